"""Running a mock: the timed rounds, answers routed from the thread, the DM or a form,
grading on the rubric, the interviewer's votes, the scorecard, a late start, a
cancellation and a restart in the middle."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.events import Event, EventKind
from bot.core.messages import Delivery, Outgoing
from bot.db.models import AttemptRow, MockRoundRow, OutboxRow
from tests.support import Transcript, row_counts
from tests.test_mock import (
    GOOD,
    HALF,
    answer,
    dms,
    make_app,
    mapp,
    mchat,
    mclock,
    mock_bank,
    mocks,
    open_chat,
)

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with tests.test_mock


def event(
    app: App,
    user: str,
    *,
    action: str = "",
    text: str = "",
    channel: str = "general",
    thread: str | None = None,
    is_dm: bool = False,
) -> list[Outgoing]:
    """A platform event (a button, a form, a thread reply or a DM), then due work as the
    scheduler would run it; outbox deliveries land in the transcript."""
    kind = EventKind.ACTION if action else EventKind.MESSAGE
    replies = app.bot.handle(
        Event(
            kind,
            "console",
            "console",
            channel,
            user,
            user_name=user,
            action=action,
            text=text,
            thread=thread,
            is_dm=is_dm,
        )
    )
    asyncio.run(app.runner.run_due_and_deliver())
    return replies


def rounds(app: App) -> list[MockRoundRow]:
    with app.session_factory() as session:
        return list(
            session.scalars(
                select(MockRoundRow).order_by(MockRoundRow.mock_id, MockRoundRow.position)
            )
        )


def round_posts(chat: Transcript) -> list[Outgoing]:
    return [m for m in chat.messages if " · round " in m.card.title and "brief" not in m.text]


def scorecards(chat: Transcript, to: str) -> list[Outgoing]:
    return [m for m in dms(chat.messages, to) if m.card.title.startswith("Scorecard")]


def test_a_solo_loop_runs_five_timed_rounds_grades_each_answer_and_ends_with_a_scorecard(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 2 hours")
    mchat.send("/advance 2h")
    (opening,) = round_posts(mchat)
    assert opening.delivery is Delivery.CHANNEL and opening.to == "general"
    assert opening.card.title.startswith("Mock #1 · round 1 of 5 · Technical deep-dive")
    assert "until Tue 01 Dec 2026 12:08 CET" in opening.text
    assert "Round 1 answer recorded: it covers 100% of the rubric" in answer(mchat, GOOD)
    mchat.send(f"/answer {HALF}")
    assert "covers 50%" in mchat.say("/answer done")
    posts = round_posts(mchat)
    assert [p.card.title.split(" · ")[1] for p in posts] == [
        "round 1 of 5",
        "round 2 of 5",
        "round 3 of 5",
    ]
    assert all(p.thread is not None and p.thread == opening_ref(mapp) for p in posts[1:])
    answer(mchat, GOOD)
    answer(mchat, "nothing relevant")
    answer(mchat, GOOD)
    (card,) = scorecards(mchat, "alice")
    assert card.card.title == "Scorecard · mock #1 · loop"
    assert "alice, solo · mean rubric coverage 70%" in card.text
    assert "the rubric's reading of each answer" in card.text
    assert "rubric coverage 50% (partial)" in card.text
    assert "missed: Names latency" in card.text
    assert "Study next: /mock schedule WHEN product" in card.text  # no quiz questions there
    assert [r.outcome for r in rounds(mapp)] == ["answered"] * 5
    with mapp.session_factory() as session:
        assert len(list(session.scalars(select(AttemptRow)))) == 5
    (row,) = mocks(mapp)
    assert row.status == "done"
    history = mchat.say("/mock history")
    assert "#1 · Tue 01 Dec 2026 12:00 CET · loop · solo · 70% rubric coverage" in history
    assert "Scorecard · mock #1" in mchat.say("/mock history 1")


def opening_ref(app: App) -> str | None:
    """The platform id the opening post got: its thread is the mock's thread."""
    with app.session_factory() as session:
        return session.scalar(select(OutboxRow.message_ref).where(OutboxRow.key == "mock:1:open"))


def test_a_round_whose_time_box_passes_unanswered_is_closed_and_the_loop_moves_on(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 1 hour behavioral box=5m")
    mchat.send("/advance 1h")
    mchat.send("/advance 5m")  # the box plus its 30 s grace is not over yet
    assert [r.outcome for r in rounds(mapp)] == [None, None, None]
    mchat.send("/advance 1m")
    assert [r.outcome for r in rounds(mapp)] == ["timed_out", None, None]
    second = round_posts(mchat)[-1]
    assert "Round 1's time box passed without an answer. Moving on." in second.text
    assert "round 2 of 3" in second.card.title
    mchat.send("/advance 20m")
    assert [r.outcome for r in rounds(mapp)] == ["timed_out"] * 3
    (card,) = [m for m in dms(mchat.messages, "alice") if m.card.title.endswith("no answers")]
    assert "none of the 3 rounds got an answer, so there is nothing to score" in card.text
    assert "Recommendation" not in card.text  # nobody was there: no "No hire"


def test_an_answer_after_the_box_closed_does_not_count(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    mclock.advance(timedelta(minutes=9))  # the scheduler has not woken up yet
    assert "Time's up for round 1" in mchat.say(GOOD)
    assert [r.outcome for r in rounds(mapp)] == ["timed_out", None, None]


def test_answers_come_from_the_mocks_thread_and_not_from_another_thread(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    ref = opening_ref(mapp)
    assert ref is not None
    event(mapp, "alice", text=GOOD, thread="some-other-post")
    event(mapp, "alice", text="done", thread="some-other-post")
    assert (rounds(mapp)[0].outcome, rounds(mapp)[0].answer) == (None, None)
    assert "Round 1: noted" in event(mapp, "alice", text=GOOD, thread=ref)[0].text
    replies = event(mapp, "alice", text="done", thread=ref)
    assert "Round 1 answer recorded" in replies[0].text
    assert rounds(mapp)[0].answer == GOOD


def test_a_mock_answer_comes_before_the_daily_question_in_the_same_channel(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/daily")
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    mchat.send(f"/answer {GOOD}")
    assert "Round 1 answer recorded" in mchat.say("/answer done")
    with mapp.session_factory() as session:
        assert session.scalar(select(AttemptRow.daily_prompt_id)) is None


def test_the_answer_button_opens_a_form_whose_submission_answers_the_round(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    (form,) = event(mapp, "alice", action="mock:1:0:form")
    assert form.delivery is Delivery.MODAL and form.form is not None
    assert form.form.action == "mock:1:0:submit"
    replies = event(mapp, "alice", action="mock:1:0:submit", text=GOOD)
    assert "Round 1: noted (1 message, 3 words so far)" in replies[0].text
    replies = event(mapp, "alice", action="mock:1:0:done")  # the round card's Done button
    assert "Round 1 answer recorded" in replies[0].text
    assert "closed" in event(mapp, "alice", action="mock:1:0:submit", text=GOOD)[0].text
    assert "closed" in event(mapp, "alice", action="mock:1:0:done")[0].text


def test_a_mock_scheduled_in_a_dm_runs_in_the_dm(mchat: Transcript, mapp: App) -> None:
    event(mapp, "alice", text="hello", channel="D-alice", is_dm=True)
    mapp.bot.handle(
        Event(
            EventKind.COMMAND,
            "console",
            "console",
            "D-alice",
            "alice",
            command="mock",
            args="schedule in 1 hour behavioral",
            is_dm=True,
        )
    )
    mchat.send("/advance 1h")
    (opening,) = round_posts(mchat)
    assert (opening.delivery, opening.to) == (Delivery.DM, "alice")
    event(mapp, "alice", text=GOOD, channel="D-alice", is_dm=True)
    assert "covers 100%" in event(mapp, "alice", text="done", channel="D-alice", is_dm=True)[0].text


def test_with_a_peer_the_interviewer_gets_the_rubric_privately_and_votes_with_buttons(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 2 hours with @bob behavioral anyway")  # 06:00 for bob
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/advance 2h")
    (brief,) = [m for m in dms(mchat.messages, "bob") if "Interviewer brief" in m.card.title]
    assert "Names isolation (weight 1)" in brief.text
    assert "Model answer" in brief.text
    assert [b.label for b in brief.card.buttons] == [
        "Strong no",
        "No",
        "Yes",
        "Strong yes",
        "Add a note",
    ]
    assert not [m for m in mchat.messages if m.to == "alice" and "Names isolation" in m.text]
    assert "vote Strong yes recorded" in event(mapp, "bob", action="mock:1:0:v:sy")[0].text
    (note_form,) = event(mapp, "bob", action="mock:1:0:note")
    assert note_form.form is not None
    event(mapp, "bob", action="mock:1:0:notesubmit", text="clear and calm")
    assert (
        "Only the candidate answers"
        in event(mapp, "bob", action="mock:1:0:submit", text="x")[0].text
    )
    mchat.send("/as alice")
    answer(mchat, GOOD)
    (seen,) = [m for m in dms(mchat.messages, "bob") if "alice's answer" in m.card.title]
    assert GOOD in seen.text
    answer(mchat, HALF)
    mchat.send("/as bob")
    mchat.send("/mock vote 1 2 no rambled")
    mchat.send("/as alice")
    answer(mchat, GOOD)
    assert not scorecards(mchat, "alice")  # round 3 still needs bob's vote
    mchat.send("/as bob")
    mchat.send("/mock vote 1 3 strong yes")
    (card,) = scorecards(mchat, "alice")
    assert scorecards(mchat, "bob")
    assert "alice with bob interviewing" in card.text
    assert "interviewer: Strong yes" in card.text and "note: clear and calm" in card.text
    assert "Votes: 2 strong yes, 1 no (interviewer votes)." in card.text
    assert "Recommendation: Hire." in card.text


def test_the_scorecard_waits_for_missing_votes_then_the_rubric_stands_in(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 2 hours with @bob behavioral anyway")  # 06:00 for bob
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/as alice")
    mchat.send("/advance 2h")
    for _ in range(3):
        answer(mchat, GOOD)
    assert mocks(mapp)[0].status == "debrief"
    assert any("your votes, please" in m.card.title for m in dms(mchat.messages, "bob"))
    mchat.send("/advance 15m")
    (card,) = scorecards(mchat, "alice")
    assert (
        "(the interviewer voted on none of the 3 rounds: the rubric's reading of each answer "
        "stands in)" in card.text
    )
    assert mocks(mapp)[0].status == "done"
    mchat.send("/as bob")
    assert "votes are final" in mchat.say("/mock vote 1 1 no")


def test_a_peer_who_never_accepted_leaves_a_solo_mock(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule in 1 hour with @bob technical anyway")  # 05:00 for bob
    mchat.send("/advance 1h")
    (opening,) = round_posts(mchat)
    assert "bob did not accept, so this one runs solo" in opening.text
    assert not [m for m in dms(mchat.messages, "bob") if "brief" in m.card.title]


def test_a_late_start_runs_with_full_time_boxes(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mclock.advance(timedelta(minutes=72))  # the bot was down at the start time
    mchat.send("/advance 1m")
    (opening,) = round_posts(mchat)
    assert "Starting 12 minutes late" in opening.text
    assert "until Tue 01 Dec 2026 11:20 CET" in opening.text  # 10:12 UTC + 8 min


def test_a_start_missed_by_too_long_is_not_run_and_can_be_rescheduled(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mclock.advance(timedelta(hours=3))
    mchat.send("/advance 1m")
    assert not round_posts(mchat)
    (told,) = [m for m in dms(mchat.messages, "alice") if "missed" in m.card.title]
    assert "/mock reschedule 1 WHEN" in told.text
    assert mocks(mapp)[0].status == "missed"
    assert "moved to" in mchat.say("/mock reschedule 1 tomorrow 3pm")
    assert mocks(mapp)[0].status == "scheduled"


def test_cancelling_a_running_mock_stops_its_rounds(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    answer(mchat, GOOD)
    mchat.send("/mock cancel 1")
    assert [r.outcome for r in rounds(mapp)] == ["answered", "stopped", None]
    assert any("cancelled this mock after round 1" in m.text for m in mchat.posts())
    start = len(mchat.messages)
    mchat.send("/advance 1h")
    assert [m for m in mchat.messages[start:] if "round" in m.card.title] == []
    assert rounds(mapp)[2].started_at is None
    assert "Round" not in mchat.say(GOOD)  # no longer routed to the mock


def test_a_restart_mid_mock_resumes_from_the_database(
    db_url: str, mclock: SimulatedClock, mock_bank: QuestionBank
) -> None:
    first = make_app(db_url, mclock, mock_bank)
    chat = open_chat(first)
    chat.send("/mock schedule in 1 hour technical")
    chat.send("/advance 1h")
    answer(chat, GOOD)
    first.close()  # the process stops in round 2

    mclock.advance(timedelta(minutes=3))
    second = make_app(db_url, mclock, mock_bank)
    try:
        again = open_chat(second)
        assert "Round 2 answer recorded" in answer(again, HALF)
        mclock.advance(timedelta(minutes=20))  # down again through round 3's time box
        again.send("/advance 1m")
        (card,) = scorecards(again, "alice")
        assert "Round 3" in card.text and "no answer within the time box" in card.text
        assert [r.outcome for r in rounds(second)] == ["answered", "answered", "timed_out"]
        assert any("I was away when it ended" in m.text for m in again.messages)
    finally:
        second.close()


def test_starting_the_mock_twice_never_posts_it_twice(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mclock.set(datetime(2026, 12, 1, 10, 0, tzinfo=UTC))
    asyncio.run(mapp.runner.run_due_and_deliver())
    asyncio.run(mapp.runner.run_due_and_deliver())
    assert len(round_posts(mchat)) == 1


# -- an answer in several messages ----------------------------------------------------------


def test_an_answer_in_several_messages_is_one_answer_and_the_next_round_starts_empty(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    first = mchat.say("isolation")
    assert "Round 1: noted (1 message, 1 word so far). Add more, or say done" in first
    assert "At Tue 01 Dec 2026 11:08 CET the round closes with what you wrote." in first
    assert "Round 1: noted (2 messages, 4 words so far)" in mchat.say("and also latency")
    assert len(round_posts(mchat)) == 1  # still round 1
    assert [(r.answer, r.outcome) for r in rounds(mapp)][:2] == [
        ("isolation\nand also latency", None),
        (None, None),
    ]
    assert "Round 1 answer recorded: it covers 100% of the rubric" in mchat.say("Done!")
    assert "Round 2: noted (1 message" in mchat.say("isolation only")
    assert [(r.answer, r.outcome) for r in rounds(mapp)] == [
        ("isolation\nand also latency", "answered"),
        ("isolation only", None),
        (None, None),
    ]
    with mapp.session_factory() as session:
        (attempt,) = session.scalars(select(AttemptRow))
    assert (attempt.answer, attempt.score) == ("isolation\nand also latency", 1.0)


def test_when_the_box_ends_what_the_candidate_wrote_is_the_answer(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 2 hours with @bob technical anyway")
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/as alice")
    mchat.send("/advance 2h")
    mchat.send("isolation")
    mchat.send("/answer and I would watch the noisy neighbours")
    mchat.send("/advance 9m")  # the box and its grace end: nobody said done
    assert [(r.outcome, r.score) for r in rounds(mapp)][:2] == [("answered", 0.5), (None, None)]
    assert rounds(mapp)[0].answer == "isolation\nand I would watch the noisy neighbours"
    assert "Round 1's time box ended: what alice wrote is the answer. Moving on." in (
        round_posts(mchat)[-1].text
    )
    (seen,) = [m for m in dms(mchat.messages, "bob") if "alice's answer" in m.card.title]
    assert "isolation\nand I would watch the noisy neighbours" in seen.text
    with mapp.session_factory() as session:
        assert [a.score for a in session.scalars(select(AttemptRow))] == [0.5]


def test_a_box_that_ends_on_no_answer_at_all_leaves_the_round_unanswered(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    mchat.send("👍")
    mchat.send("/advance 9m")
    assert [r.outcome for r in rounds(mapp)][:2] == ["timed_out", None]
    with mapp.session_factory() as session:
        assert list(session.scalars(select(AttemptRow))) == []


@pytest.mark.parametrize("line", ["done", "/answer next", "That's all."])
def test_done_before_any_answer_says_so_and_changes_nothing(
    mchat: Transcript, mapp: App, line: str
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    before = row_counts(mapp), [(r.answer, r.outcome) for r in rounds(mapp)]
    assert "Round 1 has no answer yet: write it, in as many messages as you like, then say" in (
        mchat.say(line)
    )
    assert (row_counts(mapp), [(r.answer, r.outcome) for r in rounds(mapp)]) == before
    assert "closed" not in event(mapp, "alice", action="mock:1:0:done")[0].text


def test_a_message_after_the_box_closed_leaves_what_came_before_as_the_answer(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    mchat.send(HALF)
    mclock.advance(timedelta(minutes=9))  # the scheduler has not woken up yet
    late = mchat.say("and latency")
    assert "Time's up for round 1" in late and "what you wrote before it is your answer" in late
    assert [(r.answer, r.outcome) for r in rounds(mapp)][:2] == [
        (HALF, "answered"),
        (None, None),
    ]


def test_an_answer_cannot_grow_past_what_the_grader_reads(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    mchat.send("isolation " * 390)  # 3,900 characters
    before = rounds(mapp)[0].answer
    assert "longer than 4,000 characters" in mchat.say("and latency " * 20)
    assert rounds(mapp)[0].answer == before
    assert "covers 50%" in mchat.say("done")

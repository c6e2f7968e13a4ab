"""Live rounds in a channel: a countdown, the first correct answer scores (with a speed
bonus), one answer per person per question, and the round ends after n questions or two
that nobody answered."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.content import Question
from bot.core.display import displayed, quiz_seed
from bot.core.messages import Delivery
from bot.db.models import AttemptRow, PointsBucketRow, QuizSessionRow
from tests.support import Transcript, right_letter, row_counts
from tests.test_quiz import (
    BANK,
    action_event,
    chat_for,
    make_app,
    right,
    running_app,
    wrong,
)


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(sqlite_url, clock, tmp_path)


@pytest.fixture
def any_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(db_url, clock, tmp_path)


def live_question(app: App, channel: str = "general") -> Question:
    with app.session_factory() as session:
        row = session.scalars(
            select(QuizSessionRow).where(QuizSessionRow.open_key.like("live:%"))
        ).one()
        question = displayed(BANK.get(row.question_ids[row.position]), quiz_seed(row.id))
    assert question is not None
    return question


def live_row(app: App) -> QuizSessionRow:
    with app.session_factory() as session:
        return session.scalars(select(QuizSessionRow).where(QuizSessionRow.mode == "live")).one()


def points(app: App, period: str = "all") -> dict[str, int]:
    from bot.db.models import UserRow

    with app.session_factory() as session:
        rows = session.execute(
            select(UserRow.name, PointsBucketRow.points)
            .join(UserRow, UserRow.id == PointsBucketRow.user_id)
            .where(PointsBucketRow.period == period)
        ).all()
    return {name: p for name, p in rows}


def test_a_live_round_posts_its_questions_in_the_channel(quiz_app: App) -> None:
    chat = chat_for(quiz_app)
    replies = chat.send("/quiz live mig 2")
    posts = [m for m in replies if m.delivery is Delivery.CHANNEL]
    assert [m.card.title for m in posts] == ["Live quiz", "Live quiz · question 1 of 2"]
    assert "30 s" in posts[1].text
    assert all(m.delivery is Delivery.CHANNEL for m in replies)


def test_the_first_correct_answer_scores_with_a_speed_bonus(
    quiz_app: App, clock: SimulatedClock
) -> None:
    alice = chat_for(quiz_app)
    alice.send("/quiz live cuda 2")
    question = live_question(quiz_app)
    bob = chat_for(quiz_app, "bob")
    clock.advance(timedelta(seconds=10))
    replies = bob.send(f"/answer {right(question)}")
    base = 10 * question.difficulty
    bonus = round(base * 0.5 * (1 - 10 / 30))
    assert f"Correct! +{base + bonus} points." in replies[0].text
    (won,) = [m for m in replies if m.delivery is Delivery.CHANNEL]
    assert f"bob got it in 10 s: +{base + bonus} ({base} + {bonus} speed bonus)" in won.text
    assert points(quiz_app) == {"bob": base + bonus}
    (second,) = [m for m in bob.send("/advance 5s") if m.delivery is Delivery.CHANNEL]
    assert second.card.title == "Live quiz · question 2 of 2"  # a moment after the win


def test_a_wrong_answer_uses_up_that_persons_one_answer(quiz_app: App) -> None:
    chat_for(quiz_app).send("/quiz live cuda 2")
    question = live_question(quiz_app)
    bob = chat_for(quiz_app, "bob")
    assert "Not quite" in bob.say(f"/answer {wrong(question)}")
    before = row_counts(quiz_app)
    assert "already answered this one" in bob.say(f"/answer {right(question)}")
    assert row_counts(quiz_app) == before
    carol = chat_for(quiz_app, "carol")
    assert "Correct!" in carol.say(f"/answer {right(question)}")
    # bob's wrong answer earned nothing, so it is no board activity: he is not on the board
    assert points(quiz_app) == {"carol": 10 * question.difficulty + 5 * question.difficulty}


def test_a_question_nobody_gets_times_out_and_the_next_one_is_posted(quiz_app: App) -> None:
    chat = chat_for(quiz_app)
    chat.send("/quiz live cuda 2")
    first = live_question(quiz_app)
    bob = chat_for(quiz_app, "bob")  # the console prints channel posts to the newest session
    bob.send(f"/answer {wrong(first)}")
    replies = bob.send("/advance 35s")  # the countdown, then a moment before the next one
    texts = [m.text for m in replies if m.delivery is Delivery.CHANNEL]
    assert texts[0].startswith("⏰ Time's up")
    assert "Live quiz · question 2 of 2" in texts[1]
    assert live_row(quiz_app).position == 1


def test_two_unanswered_questions_in_a_row_end_the_round_with_standings(
    quiz_app: App,
) -> None:
    chat = chat_for(quiz_app)
    chat.send("/quiz live mig 3")
    chat.send("/advance 35s")
    replies = chat.send("/advance 30s")
    end = [m for m in replies if m.card.title == "Live quiz · final standings"]
    assert len(end) == 1
    assert "Two questions in a row went unanswered" in end[0].text
    row = live_row(quiz_app)
    assert row.status == "done" and row.open_key is None and row.position == 2
    assert "Nothing" not in chat.say("/advance 5m")  # nothing more is posted


def test_a_round_ends_after_n_questions_with_ties_sharing_a_rank(
    quiz_app: App, clock: SimulatedClock
) -> None:
    chat_for(quiz_app).send("/quiz live cuda 2")
    bob, carol = chat_for(quiz_app, "bob"), chat_for(quiz_app, "carol")
    first = live_question(quiz_app)
    bob.send(f"/answer {right(first)}")
    bob.send("/advance 5s")
    second = live_question(quiz_app)
    replies = carol.send(f"/answer {right(second)}")
    end = next(m for m in replies if m.card.title == "Live quiz · final standings")
    ranks = [line.split(".")[0] for line in end.card.blocks[-1].splitlines()]
    if first.difficulty == second.difficulty:
        assert ranks == ["1", "1"]
    else:
        assert ranks == ["1", "2"]
    assert live_row(quiz_app).status == "done"


def test_only_one_live_round_runs_in_a_channel_but_other_channels_can_start_theirs(
    quiz_app: App,
) -> None:
    chat_for(quiz_app).send("/quiz live")
    bob = chat_for(quiz_app, "bob")
    before = row_counts(quiz_app)
    assert "already running here" in bob.say("/quiz live mps")
    assert row_counts(quiz_app) == before
    elsewhere = chat_for(quiz_app, "bob", channel="random")
    posts = elsewhere.send("/quiz live mps")
    assert any(m.card.title == "Live quiz · question 1 of 2" for m in posts)


def test_live_rounds_never_ask_open_questions(quiz_app: App) -> None:
    chat_for(quiz_app).send("/quiz live mig 20")
    assert "mig-open" not in live_row(quiz_app).question_ids
    assert len(live_row(quiz_app).question_ids) == 3


def test_a_letter_button_answers_the_live_question(quiz_app: App) -> None:
    posts = chat_for(quiz_app).send("/quiz live cuda 1")
    letter = right_letter(live_question(quiz_app))  # as the round displays the choices
    button = next(b for b in posts[-1].card.buttons if b.label == letter).action
    assert button.startswith("live:")
    replies = asyncio.run(quiz_app.handle(action_event(button, user="bob")))
    assert "Correct!" in replies[0].text
    stale = asyncio.run(quiz_app.handle(action_event(button, user="carol")))
    assert "over" in stale[0].text or "closed" in stale[0].text


def test_a_live_round_survives_a_restart_and_its_countdown_goes_on(
    any_app: App, db_url: str, clock: SimulatedClock, tmp_path: Path
) -> None:
    chat_for(any_app).send("/quiz live mig 3")
    any_app.close()
    restarted = make_app(db_url, clock, tmp_path / "charts2")
    try:
        chat = Transcript(restarted)
        replies = chat.send("/advance 35s")
        assert any(m.text.startswith("⏰ Time's up") for m in replies)
        question = live_question(restarted)
        bob = chat_for(restarted, "bob")
        assert "Correct!" in bob.say(f"/answer {right(question)}")
        with restarted.session_factory() as session:
            attempt = session.scalars(select(AttemptRow)).one()
        assert attempt.points > 0
    finally:
        restarted.close()


def test_answers_after_the_countdown_are_refused(quiz_app: App, clock: SimulatedClock) -> None:
    chat_for(quiz_app).send("/quiz live cuda 2")
    question = live_question(quiz_app)
    bob = chat_for(quiz_app, "bob")
    clock.advance(timedelta(seconds=31))  # the countdown job has not run yet
    assert "Time is up" in bob.say(f"/answer {right(question)}")


# -- answers that cross a win -----------------------------------------------------------------


def test_an_answer_just_after_someone_won_is_not_charged_to_the_next_question(
    quiz_app: App,
) -> None:
    chat_for(quiz_app).send("/quiz live cuda 2")
    first = live_question(quiz_app)
    carol, alice = chat_for(quiz_app, "carol"), chat_for(quiz_app, "alice")
    assert "Correct!" in carol.say(f"/answer {right(first)}")
    before = row_counts(quiz_app)
    late = alice.say(f"/answer {right(first)}")  # sent as carol's won, a moment later
    assert late == "Question 1 is closed: the next one comes in a few seconds."
    assert row_counts(quiz_app) == before  # no attempt, no streak: nothing recorded
    posted = [m for m in alice.send("/advance 5s") if m.delivery is Delivery.CHANNEL]
    assert [m.card.title for m in posted] == ["Live quiz · question 2 of 2"]
    second = live_question(quiz_app)
    assert "Correct!" in alice.say(f"/answer {right(second)}")  # her one answer is still hers


def test_the_next_question_comes_a_moment_after_a_countdown_ran_out(
    quiz_app: App, clock: SimulatedClock
) -> None:
    chat = chat_for(quiz_app)
    chat.send("/quiz live cuda 2")
    first = live_question(quiz_app)
    posts = [m for m in chat.send("/advance 30s") if m.delivery is Delivery.CHANNEL]
    assert [m.text.startswith("⏰ Time's up") for m in posts] == [True]
    bob = chat_for(quiz_app, "bob")
    before = row_counts(quiz_app)
    assert "closed" in bob.say(f"/answer {right(first)}")
    assert row_counts(quiz_app) == before
    posts = [m for m in bob.send("/advance 5s") if m.delivery is Delivery.CHANNEL]
    assert [m.card.title for m in posts] == ["Live quiz · question 2 of 2"]
    assert live_row(quiz_app).asked_at == clock.now()  # the speed bonus counts from here


def test_a_bare_letter_to_a_short_question_is_no_answer_and_uses_nothing_up(
    quiz_app: App, clock: SimulatedClock
) -> None:
    alice = chat_for(quiz_app)
    alice.send("/quiz live mps 2")
    if live_question(quiz_app).kind != "short":  # the short one comes second: let this one go
        clock.advance(timedelta(seconds=31))
        alice.send("/advance 6s")
    question = live_question(quiz_app)
    assert question.kind == "short"
    bob = chat_for(quiz_app, "bob")
    before = row_counts(quiz_app)
    for letter in ("b", "B)", "a, c"):
        (reply,) = bob.send(f"/answer {letter}")
        assert reply.delivery is Delivery.PRIVATE
        assert "no choices to pick by letter" in reply.text and "Not quite" not in reply.text
        assert question.answer_text not in reply.text  # the hint gives nothing away
    assert row_counts(quiz_app) == before  # no attempt, no streak day, nothing
    assert "Correct!" in bob.say(f"/answer {right(question)}")  # his one answer is still his

"""Reviews that adapt, read as a user's weeks: a question someone keeps failing becomes a
leech and stops coming back; a daily limit spreads a backlog (after time away) over the
following days, most overdue first; a card can be suspended or buried; partial credit is
not a lapse. On SQLite, and on PostgreSQL when it is configured."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fsrs import Rating, State
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core import srs
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Question, question_from_dict
from bot.core.display import displayed, quiz_seed
from bot.core.errors import UserError
from bot.core.model import User
from bot.core.reviews import LIMIT_USAGE, parse_limit
from bot.core.srs import REVIEWS
from bot.db.models import OutboxRow, QuizSessionRow, ReviewCardRow, ReviewSettingRow, UserRow
from tests.support import Transcript, right_letter, row_counts
from tests.test_quiz import action_event, make_question

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
USER = User(1, 1, "alice", "alice", None)
UTC_ZONE = ZoneInfo("UTC")

ISOLATION = question_from_dict(
    {
        "id": "mig-iso",
        "topic": "mig",
        "role": ["eng"],
        "difficulty": 2,
        "kind": "open",
        "prompt": "What does MIG give a tenant that time-slicing does not?",
        "rubric": [
            {"point": "names isolation", "weight": 4, "any": ["isolation"]},
            {"point": "mentions noisy neighbours", "weight": 1, "any": ["noisy"]},
            {"point": "says the GPU is cut into slices", "weight": 1, "any": ["slice"]},
        ],
        "pass_score": 0.9,
        "explanation": "MIG partitions the GPU in hardware, so tenants are isolated.",
        "sources": ["https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"],
    },
    "test",
)
MISS = "noisy neighbours, slices"  # names two small points, never isolation: incorrect
OTHERS = [make_question(f"cuda-{i}", "cuda") for i in range(6)]
BULK = [make_question(f"bulk-{i:03d}", "bulk") for i in range(300)]
LIVE = make_question("live-1", "gpu-sharing")  # the one question of its topic
BANK = QuestionBank([ISOLATION, LIVE, *OTHERS, *BULK])


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    application = bootstrap(
        Settings(studybot_database_url=db_url, studybot_charts_dir=str(tmp_path / "charts")),
        clock=clock,
        bank=BANK,
        auto_migrate=True,
    )
    yield application
    application.close()


@pytest.fixture
def chat(app: App) -> Transcript:
    transcript = Transcript(app, user="alice")
    transcript.start()
    transcript.send("/help")
    transcript.messages.clear()
    return transcript


def asked(app: App) -> Question | None:
    """The question alice's open quiz or review is asking (as displayed); None if none."""
    with app.session_factory() as session:
        row = session.scalars(
            select(QuizSessionRow).where(QuizSessionRow.open_key.is_not(None))
        ).one_or_none()
        if row is None:
            return None
        return displayed(BANK.get(row.question_ids[row.position]), quiz_seed(row.id))


def cards(app: App) -> dict[str, ReviewCardRow]:
    with app.session_factory() as session:
        return {r.question_id: r for r in session.scalars(select(ReviewCardRow))}


def next_day(clock: SimulatedClock) -> None:
    clock.advance(timedelta(days=1))


# -- leeches ---------------------------------------------------------------------------------


def test_a_question_a_user_keeps_failing_stops_appearing_after_the_eighth_lapse(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    chat.send("/quiz mig 1")
    for day in range(1, srs.LEECH_LAPSES + 1):
        question = asked(app)
        assert question is not None and question.id == "mig-iso", f"day {day}"
        reply = chat.say(f"/answer {MISS}")
        if day < srs.LEECH_LAPSES:
            assert "leech" not in reply
            next_day(clock)
            chat.send("/quiz 1")  # due reviews come first: the failed question again
    # told once, with the explanation and the rubric point missed every time
    assert "You have missed this question on 8 days, so it is a leech" in reply
    done = reply[reply.index("Quiz done") :]  # the summary leaves it out of "To review"
    assert "To review" not in done and "Nothing to review" not in done
    assert "Suspended, so not in your reviews:\n• What does MIG give a tenant" in done
    assert "(mig): /review unsuspend mig-iso" in done
    assert "The point you keep missing: names isolation." in reply
    assert ISOLATION.explanation in reply
    assert "/review unsuspend mig-iso" in reply
    row = cards(app)["mig-iso"]
    assert (row.suspended, row.leech, row.state["lapses"]) == (True, True, 8)
    for _ in range(5):  # a week of quizzes and reviews without it
        next_day(clock)
        chat.send("/quiz 1")
        question = asked(app)
        assert question is not None and question.id != "mig-iso"
        reply = chat.say(f"/answer {right_letter(question)}")
        assert "leech" not in reply
        assert "mig-iso" not in chat.say("/review")
    stats = chat.send("/stats")[0].card
    fields = {f.label: f.value for f in stats.fields}
    assert fields["Leeches"] == "1 suspended: mig-iso (/review leeches)"
    listing = chat.say("/review leeches")
    assert "mig-iso: What does MIG give a tenant" in listing
    assert "leech, missed on 8 days" in listing
    assert "mig-iso is back in your reviews" in chat.say("/review unsuspend mig-iso")
    first = chat.send("/review")[0].card
    assert first.title == "Review · question 1 of 1"
    assert "What does MIG give a tenant" in "\n".join(first.blocks)


def test_failing_twice_on_one_day_is_one_lapse_and_an_unsuspended_leech_is_flagged_again() -> None:
    card = None
    for day in range(srs.LEECH_LAPSES):
        for minutes in (0, 5):  # the relearning step brings it back the same day
            now = NOW + timedelta(days=day, minutes=minutes)
            before = card
            card = srs.review(
                card, user=USER, question_id="q", rating=Rating.Again, now=now, zone=UTC_ZONE
            )
            assert srs.became_leech(before, card) == (day == 7 and minutes == 0)
    assert card is not None and card.lapses == srs.LEECH_LAPSES and card.suspended
    card = srs.unsuspend(card, NOW + timedelta(days=8))
    assert card.leech and not card.suspended
    for day in range(9, 9 + srs.LEECH_AGAIN):
        before = card
        card = srs.review(
            card,
            user=USER,
            question_id="q",
            rating=Rating.Again,
            now=NOW + timedelta(days=day),
            zone=UTC_ZONE,
        )
        assert card.suspended == (day == 8 + srs.LEECH_AGAIN)
    assert card.lapses == srs.LEECH_LAPSES + srs.LEECH_AGAIN and srs.became_leech(before, card)


def test_suspend_and_bury_take_the_card_just_reviewed_or_a_given_one(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    chat.send("/quiz cuda 2")
    seen = []
    for _ in range(2):
        question = asked(app)
        assert question is not None
        seen.append(question.id)
        chat.send(f"/answer {'B' if right_letter(question) != 'B' else 'C'}")  # both wrong
        clock.advance(timedelta(minutes=1))
    other, last = seen
    clock.advance(timedelta(minutes=30))  # both are due again
    assert f"{last} is buried: it comes back tomorrow" in chat.say("/review bury")
    review = chat.send("/review")[0].card
    assert review.title == "Review · question 1 of 1"
    chat.send("/quiz abandon")
    assert f"{other} is suspended" in chat.say(f"/review suspend {other}")
    assert "Nothing is due. Your next review is tomorrow" in chat.say("/review")
    assert f"{other}: Question {other}? (suspended by you)" in chat.say("/review leeches")
    next_day(clock)
    review = chat.send("/review")[0].card
    assert review.title == "Review · question 1 of 1"
    again = asked(app)
    assert again is not None and again.id == last


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/review limit 0", "Usage: /review limit N"),
        ("/review limit 501", "from 1 to 500"),
        ("/review limit twenty", "Usage: /review limit N"),
        ("/review limit 20 30", "Usage: /review limit N"),
        ("/review limit -5", "Usage: /review limit N"),
        ("/review limit 99999999999999999999999", "Usage: /review limit N"),
        ("/review leeches all", "Usage: /review leeches"),
        ("/review unsuspend", "Usage: /review unsuspend QUESTION_ID"),
        ("/review unsuspend nope", "no review card 'nope'"),
        ("/review unsuspend {cuda}", "{cuda} is not suspended"),
        ("/review suspend cuda-1 cuda-2", "Usage: /review suspend [QUESTION_ID]"),
        ("/review bury mig-iso", "mig-iso is suspended, so there is nothing to bury"),
        ("/review suspend mig-iso", "mig-iso is suspended already"),
    ],
)
def test_bad_review_settings_say_what_is_wrong_and_change_nothing(
    chat: Transcript, app: App, line: str, says: str
) -> None:
    chat.send("/quiz mig 1")
    chat.send(f"/answer {MISS}")
    chat.send("/quiz cuda 1")
    cuda = asked(app)
    assert cuda is not None
    chat.send("/answer A")
    chat.say("/review suspend mig-iso")
    chat.say("/review limit 30")
    before, cards_before = row_counts(app), {k: v.state for k, v in cards(app).items()}
    assert says.format(cuda=cuda.id) in chat.say(line.format(cuda=cuda.id))
    assert row_counts(app) == before
    assert {k: v.state for k, v in cards(app).items()} == cards_before
    with app.session_factory() as session:
        assert session.scalars(select(ReviewSettingRow.daily_limit)).all() == [30]


def test_suspend_before_any_review_says_what_to_do(chat: Transcript, app: App) -> None:
    before = row_counts(app)
    assert "take a /quiz first" in chat.say("/review suspend")
    assert row_counts(app) == before


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=12), st.integers(-10, 1000).map(str)))
def test_any_limit_text_is_a_limit_in_range_or_the_usage(text: str) -> None:
    try:
        limit = parse_limit(text.split())
    except UserError as exc:
        assert str(exc) == LIMIT_USAGE
        assert not (text.strip().isdigit() and text.strip().isascii() and 1 <= int(text) <= 500)
    else:
        assert 1 <= limit <= srs.MAX_DAILY_LIMIT and limit == int(text)


# -- the daily limit -------------------------------------------------------------------------


def seed_studied(app: App, question_ids: list[str], at: datetime) -> None:
    """alice studied these questions at ``at`` (seen, then right ten minutes later)."""
    with app.session_factory() as session:
        row = session.scalars(select(UserRow).where(UserRow.external_id == "alice")).one()
        user = User(row.id, row.workspace_id, row.external_id, row.name, row.timezone)
    with app.uow() as uow:
        for qid in question_ids:
            card = srs.review(
                None, user=user, question_id=qid, rating=Rating.Good, now=at, zone=UTC_ZONE
            )
            card = srs.review(
                card,
                user=user,
                question_id=qid,
                rating=Rating.Good,
                now=at + timedelta(minutes=10),
                zone=UTC_ZONE,
            )
            uow[REVIEWS].save(card)
        uow.commit()


@pytest.mark.slow
def test_after_two_weeks_away_300_due_cards_come_no_more_than_the_limit_a_day(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    bulk = [q.id for q in BULK]
    seed_studied(app, bulk, clock.now())
    assert "limit is 50 (the default)" in chat.say("/review limit")
    assert "Daily review limit set to 20" in chat.say("/review limit 20")
    chat.say("/away 2026-12-02 2026-12-15")
    clock.advance(timedelta(days=15))  # Wed 16 Dec: back, with everything overdue
    assert all(r.due_at <= clock.now() for r in cards(app).values())
    fields = {f.label: f.value for f in chat.send("/stats")[0].card.fields}
    assert (
        fields["Reviews"] == "20 due now · 280 more spread over the next 14 days (limit 20 a day)"
    )
    reviewed: set[str] = set()
    per_day: list[int] = []
    for _day in range(16):
        done = 0
        while (first := chat.send("/review")[0]).card.title.startswith("Review"):
            while (question := asked(app)) is not None:
                chat.send(f"/answer {right_letter(question)}")
                reviewed.add(question.id)
                done += 1
        per_day.append(done)
        if done == 20 and len(reviewed) < len(bulk):
            assert "You have done your 20 reviews for today" in first.text
        if len(reviewed) == len(bulk):
            break
        next_day(clock)
    assert max(per_day) <= 20
    assert per_day[:15] == [20] * 15  # the backlog of 300 is spread over 15 days
    assert reviewed == set(bulk)  # and every card is reviewed


def test_back_early_from_time_away_the_backlog_is_spread_not_dumped(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    seed_studied(app, [q.id for q in BULK], clock.now())
    chat.say("/review limit 20")
    chat.say("/away 2026-12-02 2026-12-31")
    clock.advance(timedelta(days=10))
    assert all(r.due_at <= clock.now() for r in cards(app).values())
    back = chat.say("/away off")
    assert back == (
        "Welcome back! Today counts for your streak again. Reviews: 20 due now · 280 more "
        "spread over the next 14 days (limit 20 a day)."
    )
    assert chat.send("/review")[0].card.title == "Review · question 1 of 20"


def test_the_most_overdue_cards_come_first_as_a_share_of_their_interval() -> None:
    def card(qid: str, last: datetime, due: datetime) -> srs.ReviewCard:
        return srs.ReviewCard(1, 1, qid, {}, due, last, 3)

    day = timedelta(days=1)
    short_late = card("short", NOW - 3 * day, NOW - 2 * day)  # 2 days late on a 1-day interval
    long_late = card("long", NOW - 70 * day, NOW - 10 * day)  # 10 days late on 60 days
    barely = card("barely", NOW - 5 * day, NOW - day / 2)
    not_yet = card("future", NOW - day, NOW + day)
    plan = srs.plan_reviews(
        [long_late, barely, not_yet, short_late], now=NOW, zone=UTC_ZONE, limit=2
    )
    assert [c.question_id for c in plan.today] == ["short", "long"]
    assert (plan.waiting, plan.days_to_clear) == (1, 1)


def test_cards_failed_earlier_today_come_back_without_using_the_budget() -> None:
    day = timedelta(days=1)
    relearning = srs.ReviewCard(
        1, 1, "again", {}, NOW - timedelta(minutes=5), NOW - timedelta(hours=1), 4
    )
    due = [srs.ReviewCard(1, 1, f"d{i}", {}, NOW - day, NOW - 3 * day, 2) for i in range(5)]
    plan = srs.plan_reviews([relearning, *due], now=NOW, zone=UTC_ZONE, limit=3)
    assert plan.done_today == 1
    assert [c.question_id for c in plan.today] == ["again", "d0", "d1"]
    assert plan.waiting == 3


_card_times = st.tuples(
    st.integers(-30 * 24, 30 * 24),  # due, hours from NOW
    st.integers(1, 60 * 24),  # interval in hours
    st.booleans(),  # suspended
    st.integers(1, 9),  # reps
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_card_times, max_size=60), st.integers(1, 40))
def test_a_plan_never_exceeds_the_budget_and_leaves_nothing_due_unaccounted(
    spec: list[tuple[int, int, bool, int]], limit: int
) -> None:
    all_cards = [
        srs.ReviewCard(
            1,
            1,
            f"q{i}",
            {},
            NOW + timedelta(hours=due),
            NOW + timedelta(hours=due - interval),
            reps,
            suspended=suspended,
        )
        for i, (due, interval, suspended, reps) in enumerate(spec)
    ]
    plan = srs.plan_reviews(all_cards, now=NOW, zone=UTC_ZONE, limit=limit)
    start = srs.day_start(NOW, UTC_ZONE)
    fresh = [c for c in plan.today if not (c.last_review_at and c.last_review_at >= start)]
    assert len(fresh) <= max(0, limit - plan.done_today)
    assert not any(c.suspended or c.due_at > NOW for c in plan.today)
    due = [c for c in all_cards if not c.suspended and c.due_at <= NOW]
    assert len(plan.today) + plan.waiting == len(due)
    ranks = [srs.overdueness(c, NOW) for c in fresh]
    assert ranks == sorted(ranks, reverse=True)


# -- grades to FSRS --------------------------------------------------------------------------


def reviewed(*ratings: Rating) -> srs.ReviewCard:
    """A card reviewed with ``ratings``, each when it fell due."""
    card, now = None, NOW
    for rating in ratings:
        card = srs.review(card, user=USER, question_id="q", rating=rating, now=now, zone=UTC_ZONE)
        now = card.due_at
    assert card is not None
    return card


def test_partial_credit_lengthens_a_review_card_where_a_wrong_answer_resets_it() -> None:
    learnt = reviewed(Rating.Good, Rating.Good, Rating.Good)
    assert learnt.state["state"] == State.Review
    at = learnt.due_at
    partial = srs.rating_for("partial", quick=False, seen_before=True)
    wrong = srs.rating_for("incorrect", quick=False, seen_before=True)
    after_partial = srs.review(
        learnt, user=USER, question_id="q", rating=partial, now=at, zone=UTC_ZONE
    )
    after_wrong = srs.review(
        learnt, user=USER, question_id="q", rating=wrong, now=at, zone=UTC_ZONE
    )
    # partial: still a learnt card, no lapse, stability kept or grown, days away again
    assert after_partial.state["state"] == State.Review
    assert after_partial.lapses == 0
    assert after_partial.state["stability"] >= learnt.state["stability"]
    assert after_partial.due_at - at >= timedelta(days=1)
    # wrong: a lapse, back to relearning within minutes, stability cut
    assert after_wrong.state["state"] == State.Relearning
    assert after_wrong.lapses == 1
    assert after_wrong.state["stability"] < learnt.state["stability"]
    assert after_wrong.due_at - at < timedelta(hours=1)


def test_answer_time_only_eases_a_right_answer_to_a_card_seen_before() -> None:
    assert srs.rating_for("correct", quick=True, seen_before=True) == Rating.Easy
    assert srs.rating_for("correct", quick=True, seen_before=False) == Rating.Good
    assert srs.rating_for("partial", quick=True, seen_before=True) == Rating.Hard
    assert srs.rating_for("incorrect", quick=True, seen_before=True) == Rating.Again
    slow, quick = (
        srs.rating_for("correct", quick=srs.is_quick("choice", seconds), seen_before=True)
        for seconds in (60, 5)
    )
    learnt = reviewed(Rating.Good, Rating.Good)
    at = learnt.due_at
    dues = [
        srs.review(learnt, user=USER, question_id="q", rating=r, now=at, zone=UTC_ZONE).due_at
        for r in (slow, quick)
    ]
    assert dues[0] < dues[1]


def leech_dms(app: App) -> list[str]:
    """The leech notices queued for alice (the outbox: delivery runs in the background)."""
    with app.session_factory() as session:
        rows = session.scalars(
            select(OutboxRow).where(OutboxRow.key.like("leech:%")).order_by(OutboxRow.id)
        ).all()
        return [json.dumps(r.payload, ensure_ascii=False) for r in rows]


def test_a_leech_made_in_live_rounds_is_told_once_by_dm(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    for day in range(1, srs.LEECH_LAPSES + 2):
        chat.send("/quiz live gpu-sharing 1")  # a round in the channel; alice keeps missing it
        question = displayed_live(app)
        wrong = next(c for c in "ABCD" if c != right_letter(question))
        chat.send(f"/answer {wrong}")
        assert len(leech_dms(app)) == (day >= srs.LEECH_LAPSES), f"day {day}"
        chat.send("/advance 1d")  # the round times out; the next day
    (notice,) = leech_dms(app)
    assert '"delivery": "dm"' in notice and '"to": "alice"' in notice
    assert "A question you keep missing" in notice
    assert "missed this question on 8 days, so it is a leech" in notice
    assert "The answer: " in notice and LIVE.explanation in notice
    row = cards(app)["live-1"]
    assert (row.suspended, row.leech) == (True, True)
    assert row.state["lapses"] == srs.LEECH_LAPSES + 1  # live rounds still ask it; it counts


def displayed_live(app: App) -> Question:
    with app.session_factory() as session:
        row = session.scalars(
            select(QuizSessionRow).where(QuizSessionRow.open_key.like("live:%"))
        ).one()
        question = displayed(BANK.get(row.question_ids[row.position]), quiz_seed(row.id))
    assert question is not None
    return question


def test_a_grade_card_buries_or_suspends_its_card_with_one_click(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    chat.send("/quiz cuda 2")
    question = asked(app)
    assert question is not None
    grade = chat.send(f"/answer {right_letter(question)}")[0].card
    labels = {b.label: b.action for b in grade.buttons}
    assert set(labels) == {"Bury", "Suspend"}  # a right answer: nothing to dispute
    assert labels["Suspend"] == f"review:suspend:{question.id}"
    chat.send("/quiz abandon")
    replies = asyncio.run(app.handle(action_event(labels["Suspend"])))
    assert f"{question.id} is suspended" in replies[0].text
    assert cards(app)[question.id].suspended
    again = asyncio.run(app.handle(action_event(labels["Suspend"])))
    assert "suspended already" in again[0].text  # a second click changes nothing
    buried = asyncio.run(app.handle(action_event(labels["Bury"])))
    assert "nothing to bury" in buried[0].text


def test_a_wrong_answer_card_offers_dispute_bury_and_suspend(chat: Transcript, app: App) -> None:
    chat.send("/quiz cuda 2")
    question = asked(app)
    assert question is not None
    wrong = "B" if right_letter(question) != "B" else "C"
    grade = chat.send(f"/answer {wrong}")[0].card
    assert [b.label for b in grade.buttons] == ["Dispute", "Bury", "Suspend"]
    chat.send("/quiz abandon")
    replies = asyncio.run(app.handle(action_event(f"review:bury:{question.id}")))
    assert f"{question.id} is buried: it comes back tomorrow" in replies[0].text
    assert cards(app)[question.id].buried_until is not None


@pytest.mark.parametrize(
    "action", ["review", "review:bury", "review:freeze:cuda-1", "review:bury:", "review:bury:nope"]
)
def test_a_stale_or_forged_card_button_says_so_and_changes_nothing(
    chat: Transcript, app: App, action: str
) -> None:
    before = {qid: (r.suspended, r.buried_until) for qid, r in cards(app).items()}
    replies = asyncio.run(app.handle(action_event(action)))
    assert "no longer valid" in replies[0].text or "no review card" in replies[0].text
    assert {qid: (r.suspended, r.buried_until) for qid, r in cards(app).items()} == before

"""Mocks feed reviews, and a mock can start from the weakest topics.

The rubric points a candidate missed in a mock round make the question behind them a review
card due by the next day (an existing card is brought forward, its memory kept), so that
/review and a personal /quiz pick it up; ``/mock schedule … focus=weak`` draws the rounds
from the candidate's weakest topics, and says so when there is no history to tell them by.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core import srs
from bot.core.bank import QuestionBank
from bot.core.content import load_pack
from bot.core.mock.model import Mock
from bot.core.mock.questions import pick_rounds
from bot.core.model import User
from bot.db.models import QuizSessionRow, ReviewCardRow, UserRow
from tests.support import Transcript
from tests.test_mock import GOOD, HALF, PACK, answer, dms, mapp, mchat, mclock, mock_bank, mocks
from tests.test_mock_run import round_posts, rounds, scorecards

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with tests.test_mock

TECHNICAL = {"t-mig-open", "t-mps-open", "t-k8s-open"}


def cards(app: App, user: str = "alice") -> dict[str, tuple[datetime, int]]:
    """question id → (due at, reviews) of ``user``'s review cards."""
    with app.session_factory() as session:
        rows = session.execute(
            select(ReviewCardRow.question_id, ReviewCardRow.due_at, ReviewCardRow.reps)
            .join(UserRow, UserRow.id == ReviewCardRow.user_id)
            .where(UserRow.external_id == user)
        )
        return {q: (due, reps) for q, due, reps in rows}


def quiz_questions(app: App) -> list[str]:
    with app.session_factory() as session:
        row = session.scalars(select(QuizSessionRow).order_by(QuizSessionRow.id.desc())).first()
        assert row is not None
        return [str(q) for q in row.question_ids]


def learn_well(chat: Transcript, app: App, topic: str, times: int) -> None:
    """Answer ``topic``'s one open question fully, each time as it falls due again."""
    for time in range(times):
        if time:
            due = min(due for due, _reps in cards(app).values())
            chat.send(f"/advance {int((due - now(app)).total_seconds() // 60) + 1}m")
        chat.say(f"/quiz {topic} 1 medium")
        assert "Correct" in chat.say(f"/answer {GOOD}")


def now(app: App) -> datetime:
    return app.services.clock.now()


# -- mocks feed reviews ---------------------------------------------------------------------------


def test_a_missed_rubric_point_in_a_mock_is_due_within_two_days_and_a_quiz_picks_it(
    mchat: Transcript, mapp: App
) -> None:
    learn_well(mchat, mapp, "mps", 4)  # alice knows MPS well: her card is weeks away
    due_before, reps_before = cards(mapp)["t-mps-open"]
    assert due_before - now(mapp) > timedelta(days=7)
    mchat.send("/mock schedule in 1 hour technical")
    mchat.send("/advance 1h")
    for r in rounds(mapp):  # the three technical questions, in the mock's own order
        if r.question_id == "t-mps-open":
            assert "covers 50%" in answer(mchat, HALF)  # misses "Names latency"
        elif r.question_id == "t-mig-open":
            assert "covers 100%" in answer(mchat, GOOD)
        else:
            mchat.send("/advance 9m")  # Kubernetes: the time box passes unanswered
    finished = now(mapp)
    (card,) = scorecards(mchat, "alice")
    assert "missed: Names latency" in card.text
    assert "The 2 questions with missed rubric points are in alice's reviews" in card.text
    after = cards(mapp)
    for question_id in ("t-mps-open", "t-k8s-open"):
        due, _reps = after[question_id]
        assert due - finished <= timedelta(days=2)
    assert after["t-mps-open"][1] == reps_before + 1  # the mock's answer was its review
    assert after["t-k8s-open"][1] == 0  # a new card: nothing was answered
    mchat.send("/advance 1d")
    mchat.say("/quiz 3")
    assert {"t-mps-open", "t-k8s-open"} <= set(quiz_questions(mapp))


def test_a_mock_covering_every_point_adds_nothing_to_reviews(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule in 1 hour behavioral")
    mchat.send("/advance 1h")
    for _ in range(3):
        answer(mchat, GOOD)
    (card,) = scorecards(mchat, "alice")
    assert "reviews, due by tomorrow" not in card.text
    assert all(due - now(mapp) < timedelta(minutes=30) for due, _ in cards(mapp).values())


@given(st.integers(min_value=-10_000, max_value=10_000), st.integers(min_value=0, max_value=5000))
def test_bringing_a_card_forward_never_puts_it_later(offset_minutes: int, by_minutes: int) -> None:
    user = User(1, 1, "alice", "alice", "UTC")
    start = datetime(2026, 12, 1, 9, tzinfo=UTC)
    card = srs.review(None, user=user, question_id="q", rating=srs.Rating.Good, now=start, zone=UTC)
    card = replace(card, due_at=start + timedelta(minutes=offset_minutes))
    by = start + timedelta(minutes=by_minutes)
    moved = srs.due_by(card, user=user, question_id="q", due=by)
    assert moved.due_at == min(card.due_at, by)
    assert (moved.reps, moved.state["stability"]) == (card.reps, card.state["stability"])


# -- focus=weak ---------------------------------------------------------------------------------


def test_focus_weak_draws_the_technical_rounds_from_the_weakest_topics(
    mchat: Transcript, mapp: App
) -> None:
    mchat.say("/quiz mig 1 easy")
    mchat.say("/answer 8")  # wrong: mig is weak (0%)
    mchat.say("/quiz mps 1 medium")
    mchat.say(f"/answer {HALF}")  # half: mps is weak (50%)
    mchat.say("/quiz kubernetes 1")
    mchat.say(f"/answer {GOOD}")  # Kubernetes is strong (100%)
    reply = mchat.say("/mock schedule in 2 hours focus=weak")
    assert "Focus: its questions come from your weakest topics first: mig (0%), mps (50%)." in (
        reply
    )
    assert mocks(mapp)[0].focus == "weak"
    mchat.send("/advance 2h")
    (opening,) = round_posts(mchat)
    assert "Focus: your weakest topics, mig, mps." in opening.text
    technical = [r.question_id for r in rounds(mapp) if r.kind == "technical"]
    assert technical == ["t-mig-open", "t-mps-open"]


def test_without_history_focus_weak_says_so_and_chooses_as_usual(
    mchat: Transcript, mapp: App
) -> None:
    reply = mchat.say("/mock schedule in 2 hours technical focus=weak")
    assert "you have no answers yet in the topics of a technical mock" in reply
    assert "it draws its questions as usual" in reply
    mchat.send("/advance 2h")
    (opening,) = round_posts(mchat)
    assert "no weak topic yet, so the questions are as usual" in opening.text
    assert {r.question_id for r in rounds(mapp)} == TECHNICAL


def test_a_focus_other_than_weak_is_refused_and_schedules_nothing(
    mchat: Transcript, mapp: App
) -> None:
    reply = mchat.say("/mock schedule in 2 hours focus=strong")
    assert "'strong' is not a focus: focus=weak draws the questions" in reply
    assert mocks(mapp) == []
    assert not dms(mchat.messages)


def _mock(mock_id: int) -> Mock:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    return Mock(
        mock_id, 1, 1, None, 1, "loop", "scheduled", at, 8, None, False, 0, at,
        at, None, None, None, 0, None, at,
    )  # fmt: skip


@cache
def _bank() -> QuestionBank:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mocktest.yaml"
        path.write_text(PACK, encoding="utf-8")
        return QuestionBank.from_packs([load_pack(path)])


@given(st.integers(min_value=1, max_value=10**6))
def test_a_weak_topic_always_takes_the_first_technical_round(mock_id: int) -> None:
    planned = pick_rounds(_bank(), _mock(mock_id), set(), ["kubernetes"])
    assert planned[0].question_id == "t-k8s-open"
    assert planned[1].topic != "kubernetes"  # then the usual: another topic


def test_without_focus_the_first_round_varies_by_mock() -> None:
    firsts = {pick_rounds(_bank(), _mock(i), set())[0].topic for i in range(1, 30)}
    assert len(firsts) > 1  # so the focus test above is no accident of the order

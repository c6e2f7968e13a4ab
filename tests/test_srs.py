"""Spaced repetition with FSRS: grades become ratings, cards fall due in the user's own
zone, and /review runs what is due."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fsrs import Rating
from sqlalchemy import select

from bot.bootstrap import App
from bot.core import srs
from bot.core.clock import SimulatedClock
from bot.core.model import User
from bot.db.models import ReviewCardRow
from tests.support import row_counts
from tests.test_quiz import RIGHT, WRONG, chat_for, current_question, running_app

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
USER = User(1, 1, "alice", "alice", None)


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(sqlite_url, clock, tmp_path)


@pytest.mark.parametrize(
    ("verdict", "quick", "seen", "rating"),
    [
        ("incorrect", True, True, Rating.Again),
        ("partial", True, True, Rating.Hard),
        ("correct", False, True, Rating.Good),
        ("correct", True, False, Rating.Good),
        ("correct", True, True, Rating.Easy),
    ],
)
def test_grades_map_to_fsrs_ratings(verdict: str, quick: bool, seen: bool, rating: Rating) -> None:
    assert srs.rating_for(verdict, quick=quick, seen_before=seen) == rating


def test_quick_depends_on_the_kind_of_question() -> None:
    assert srs.is_quick("choice", 10) and not srs.is_quick("choice", 40)
    assert srs.is_quick("open", 60) and not srs.is_quick("open", None)


def review_twice(zone: str, second: Rating) -> srs.ReviewCard:
    tz = ZoneInfo(zone)
    card = srs.review(None, user=USER, question_id="q", rating=Rating.Good, now=NOW, zone=tz)
    later = card.due_at
    return srs.review(card, user=USER, question_id="q", rating=second, now=later, zone=tz)


def test_day_long_intervals_fall_due_at_midnight_in_the_users_zone() -> None:
    card = review_twice("Asia/Tokyo", Rating.Good)
    local = card.due_at.astimezone(ZoneInfo("Asia/Tokyo"))
    assert (local.hour, local.minute) == (0, 0)
    assert card.due_at - NOW > timedelta(days=1)
    assert card.reps == 2


def test_again_brings_a_card_back_within_minutes_and_counts_a_lapse() -> None:
    card = review_twice("UTC", Rating.Again)
    assert card.due_at - card.last_review_at < timedelta(hours=1)  # type: ignore[operator]
    assert card.state["lapses"] == 1


def test_easier_ratings_give_longer_intervals() -> None:
    dues = [review_twice("UTC", r).due_at for r in (Rating.Hard, Rating.Good, Rating.Easy)]
    assert dues == sorted(dues) and len(set(dues)) == 3


def test_review_runs_what_is_due(quiz_app: App, clock: SimulatedClock) -> None:
    chat = chat_for(quiz_app)
    chat.send("/quiz cuda 2")
    chat.send(f"/answer {WRONG[current_question(quiz_app).kind]}")
    chat.send(f"/answer {RIGHT[current_question(quiz_app).kind]}")
    before = row_counts(quiz_app)
    assert "Nothing is due" in chat.say("/review")
    assert row_counts(quiz_app) == before
    clock.advance(timedelta(minutes=30))
    replies = chat.send("/review")
    assert replies[0].card.title.startswith("Review · question 1 of")
    with quiz_app.session_factory() as session:
        due = [c for c in session.scalars(select(ReviewCardRow)) if c.due_at <= clock.now()]
    assert replies[0].card.title == f"Review · question 1 of {len(due)}"


def test_review_before_any_quiz_says_what_to_do(quiz_app: App) -> None:
    assert "take a /quiz first" in chat_for(quiz_app).say("/review")

"""Spaced repetition with FSRS: one review card per (user, question).

A grade becomes an FSRS rating (incorrect → Again, partial → Hard, correct →
Good, correct and quick on a card seen before → Easy). Intervals of a day or
more fall due at the start of the due day in the user's own zone, so "due
today" means the user's today.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Any, Protocol

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler

from bot.core.model import User, Workspace
from bot.core.ports import Port

# Answers faster than this (seconds since the question was shown) count as "quick".
QUICK_SECONDS = {"choice": 15, "multi": 25, "numeric": 20, "short": 20, "open": 90}
DEFAULT_RETENTION = 0.9  # FSRS's own default: the chance of recalling a card when it is due


@lru_cache(maxsize=64)
def _scheduler(retention: float) -> Scheduler:
    return Scheduler(desired_retention=retention, enable_fuzzing=False)


@dataclass(frozen=True, slots=True)
class ReviewCard:
    """What the bot remembers about one user and one question."""

    user_id: int
    workspace_id: int
    question_id: str
    state: dict[str, Any]
    due_at: datetime
    last_review_at: datetime | None
    reps: int


class ReviewRepository(Protocol):
    def get(self, user: User, question_id: str) -> ReviewCard | None: ...

    def save(self, card: ReviewCard) -> None:
        """Insert or replace the card of (user, question)."""
        ...

    def for_user(self, workspace: Workspace, user: User) -> list[ReviewCard]:
        """Every card of ``user``, earliest due first."""
        ...

    def count_due(self, workspace: Workspace, user: User, now: datetime) -> int: ...

    def next_due_at(self, workspace: Workspace, user: User) -> datetime | None:
        """When the user's earliest card falls due; None when they have no cards."""
        ...


REVIEWS = Port[ReviewRepository]("reviews")


def rating_for(verdict: str, *, quick: bool, seen_before: bool) -> Rating:
    """The FSRS rating of a graded answer."""
    if verdict == "incorrect":
        return Rating.Again
    if verdict == "partial":
        return Rating.Hard
    return Rating.Easy if quick and seen_before else Rating.Good


def is_quick(kind: str, seconds: float | None) -> bool:
    return seconds is not None and 0 <= seconds <= QUICK_SECONDS.get(kind, 20)


def _snap_to_local_day(due: datetime, now: datetime, zone: tzinfo) -> datetime:
    """Intervals of a day or more fall due at 00:00 of the due date in ``zone``."""
    if due - now < timedelta(days=1):
        return due
    local_day = due.astimezone(zone).date()
    return datetime.combine(local_day, time(0), tzinfo=zone).astimezone(UTC)


def review(
    card: ReviewCard | None,
    *,
    user: User,
    question_id: str,
    rating: Rating,
    now: datetime,
    zone: tzinfo,
    retention: float | None = None,
) -> ReviewCard:
    """The card after one review at ``now`` with ``rating``; a new card when ``card`` is None.

    ``retention`` is the desired retention FSRS schedules for (default 0.9): higher means
    shorter intervals (``bot.core.goal`` raises it as an interview date nears)."""
    stored: Any = card.state if card is not None else None  # fsrs's own dict form
    fsrs_card = FsrsCard.from_dict(stored) if stored else FsrsCard(card_id=1, due=now)
    scheduler = _scheduler(round(retention or DEFAULT_RETENTION, 3))
    fsrs_card, _log = scheduler.review_card(fsrs_card, rating, now)
    due = _snap_to_local_day(fsrs_card.due, now, zone)
    state: dict[str, Any] = dict(fsrs_card.to_dict())
    state["lapses"] = int((card.state.get("lapses", 0) if card else 0) + (rating == Rating.Again))
    state["last_rating"] = int(rating)
    return ReviewCard(
        user_id=user.id,
        workspace_id=user.workspace_id,
        question_id=question_id,
        state=state,
        due_at=due,
        last_review_at=now,
        reps=(card.reps if card else 0) + 1,
    )


def is_due(card: ReviewCard, now: datetime) -> bool:
    return card.due_at <= now


def describe_due(due: datetime, now: datetime, zone: tzinfo) -> str:
    """When a card is due, in words and in the user's zone."""
    if due <= now:
        return "now"
    local = due.astimezone(zone)
    today = now.astimezone(zone).date()
    if local.date() == today:
        return f"today at {local:%H:%M}"
    if local.date() == today + timedelta(days=1):
        return "tomorrow" if local.time() == time(0) else f"tomorrow at {local:%H:%M}"
    return f"{local:%a %d %b}"


def due_by(card: ReviewCard | None, *, user: User, question_id: str, due: datetime) -> ReviewCard:
    """``card`` made due no later than ``due``, its memory state kept; a new, unreviewed
    card due at ``due`` when the user has none (a missed rubric point in a mock)."""
    if card is None:
        state: dict[str, Any] = dict(FsrsCard(card_id=1, due=due).to_dict())
        return ReviewCard(user.id, user.workspace_id, question_id, state, due, None, 0)
    if card.due_at <= due:
        return card
    return replace(card, state={**card.state, "due": due.isoformat()}, due_at=due)

"""Spaced repetition with FSRS: one review card per (user, question).

A grade becomes an FSRS rating (:func:`rating_for`; the table is in docs/architecture.md,
"Reviews"): incorrect → Again, partial → Hard, correct → Good, correct and quick on a card
seen before → Easy. Only Again is a lapse; Hard lengthens a card's interval a little and
never sends it back to relearning. Intervals of a day or more fall due at the start of the
due day in the user's own zone, so "due today" means the user's today.

A card failed on :data:`LEECH_LAPSES` different days is a **leech**: it is suspended (out of
reviews and quizzes) until the user brings it back; each further :data:`LEECH_AGAIN` lapses
flag it again. A card may also be suspended or buried (out until the user's next midnight)
by hand.

:func:`plan_reviews` chooses what a user reviews now: due cards, most overdue first, within
a daily budget (:data:`DEFAULT_DAILY_LIMIT`, or the user's ``/review limit``); the rest wait
for the following days, so a backlog (after time away, a long break) is spread, not dumped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Any, Final, Protocol

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler

from bot.core.model import User, Workspace
from bot.core.ports import Port

# Answers faster than this (seconds since the question was shown) count as "quick".
QUICK_SECONDS = {"choice": 15, "multi": 25, "numeric": 20, "short": 20, "open": 90}
DEFAULT_RETENTION = 0.9  # FSRS's own default: the chance of recalling a card when it is due
LEECH_LAPSES: Final = 8  # Anki's default leech threshold
LEECH_AGAIN: Final = LEECH_LAPSES // 2  # an unsuspended leech is flagged again after this many
DEFAULT_DAILY_LIMIT: Final = 50  # reviews a day unless the user sets /review limit
MAX_DAILY_LIMIT: Final = 500


@lru_cache(maxsize=64)
def _scheduler(retention: float) -> Scheduler:
    return Scheduler(desired_retention=retention, enable_fuzzing=False)


@dataclass(frozen=True, slots=True)
class ReviewCard:
    """What the bot remembers about one user and one question.

    ``state`` is fsrs's own dict plus ``lapses`` (days the card was failed), ``lapsed_on``
    (the local date of the last lapse), ``last_rating`` and ``missed`` (how often each
    rubric point was missed). A ``suspended`` card is out of reviews and quizzes until the
    user unsuspends it; ``leech`` marks one the bot suspended because it keeps being
    failed; a card ``buried_until`` a time is out until then."""

    user_id: int
    workspace_id: int
    question_id: str
    state: dict[str, Any]
    due_at: datetime
    last_review_at: datetime | None
    reps: int
    suspended: bool = False
    leech: bool = False
    buried_until: datetime | None = None

    @property
    def lapses(self) -> int:
        return int(self.state.get("lapses", 0))

    def active(self, now: datetime) -> bool:
        """Whether the card may be asked at ``now``: neither suspended nor buried."""
        return not self.suspended and (self.buried_until is None or self.buried_until <= now)


class ReviewRepository(Protocol):
    def get(self, user: User, question_id: str) -> ReviewCard | None: ...

    def save(self, card: ReviewCard) -> None:
        """Insert or replace the card of (user, question), flags included."""
        ...

    def for_user(self, workspace: Workspace, user: User) -> list[ReviewCard]:
        """Every card of ``user`` (suspended and buried ones too), earliest due first."""
        ...

    def daily_limit(self, user: User) -> int | None:
        """The user's own daily review limit; None when they have not set one."""
        ...

    def set_daily_limit(self, user: User, limit: int, now: datetime) -> None: ...


REVIEWS = Port[ReviewRepository]("reviews")


def rating_for(verdict: str, *, quick: bool, seen_before: bool) -> Rating:
    """The FSRS rating of a graded answer (docs/architecture.md, "Reviews")."""
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


def day_start(now: datetime, zone: tzinfo) -> datetime:
    """00:00 of ``now``'s local date in ``zone``, as UTC."""
    return datetime.combine(now.astimezone(zone).date(), time(0), tzinfo=zone).astimezone(UTC)


def next_day_start(now: datetime, zone: tzinfo) -> datetime:
    """00:00 of the local date after ``now``'s in ``zone``, as UTC (a buried card's return)."""
    tomorrow = now.astimezone(zone).date() + timedelta(days=1)
    return datetime.combine(tomorrow, time(0), tzinfo=zone).astimezone(UTC)


def _becomes_leech(lapses: int) -> bool:
    return lapses == LEECH_LAPSES or (
        lapses > LEECH_LAPSES and (lapses - LEECH_LAPSES) % LEECH_AGAIN == 0
    )


def review(
    card: ReviewCard | None,
    *,
    user: User,
    question_id: str,
    rating: Rating,
    now: datetime,
    zone: tzinfo,
    retention: float | None = None,
    missed: Iterable[str] = (),
    due_by: datetime | None = None,
) -> ReviewCard:
    """The card after one review at ``now`` with ``rating``; a new card when ``card`` is None.

    ``retention`` is the desired retention FSRS schedules for (default 0.9): higher means
    shorter intervals (``bot.core.goal`` raises it as an interview date nears). ``missed``
    are the rubric points the answer missed (counted for a leech's notice). An Again on a
    local day with no lapse yet counts one lapse; the lapse that reaches
    :data:`LEECH_LAPSES` (and each :data:`LEECH_AGAIN` after) suspends the card as a leech
    (:func:`became_leech` tells). ``due_by`` caps the due time (an interview date: a card
    FSRS would bring back after it comes back before it instead); a cap that is not after
    ``now`` is ignored."""
    stored: Any = card.state if card is not None else None  # fsrs's own dict form
    fsrs_card = FsrsCard.from_dict(stored) if stored else FsrsCard(card_id=1, due=now)
    scheduler = _scheduler(round(retention or DEFAULT_RETENTION, 3))
    fsrs_card, _log = scheduler.review_card(fsrs_card, rating, now)
    due = _snap_to_local_day(fsrs_card.due, now, zone)
    if due_by is not None and now < due_by < due:
        due = due_by
    old: dict[str, Any] = card.state if card else {}
    state: dict[str, Any] = dict(fsrs_card.to_dict())
    today = now.astimezone(zone).date().isoformat()
    lapses = int(old.get("lapses", 0))
    lapsed_on = old.get("lapsed_on")
    if rating == Rating.Again and lapsed_on != today:
        lapses, lapsed_on = lapses + 1, today
    state["lapses"] = lapses
    if lapsed_on is not None:
        state["lapsed_on"] = lapsed_on
    state["last_rating"] = int(rating)
    counts: dict[str, int] = dict(old.get("missed", {}))
    for point in missed:
        counts[point] = counts.get(point, 0) + 1
    if counts:
        state["missed"] = counts
    leech_now = lapses != int(old.get("lapses", 0)) and _becomes_leech(lapses)
    return ReviewCard(
        user_id=user.id,
        workspace_id=user.workspace_id,
        question_id=question_id,
        state=state,
        due_at=due,
        last_review_at=now,
        reps=(card.reps if card else 0) + 1,
        suspended=leech_now or (card.suspended if card else False),
        leech=leech_now or (card.leech if card else False),
        buried_until=None,
    )


def became_leech(before: ReviewCard | None, after: ReviewCard) -> bool:
    """Whether the review from ``before`` to ``after`` flagged the card a leech (just now)."""
    return after.lapses > (before.lapses if before else 0) and _becomes_leech(after.lapses)


def most_missed(card: ReviewCard) -> str | None:
    """The rubric point the user missed most often on this card (None if none recorded)."""
    counts: dict[str, int] = card.state.get("missed", {})
    if not counts:
        return None
    return max(sorted(counts), key=lambda point: counts[point])


def suspend(card: ReviewCard) -> ReviewCard:
    return replace(card, suspended=True)


def unsuspend(card: ReviewCard, now: datetime) -> ReviewCard:
    """Back in reviews, due now (a leech stays flagged, so its history shows)."""
    return replace(card, suspended=False, buried_until=None, due_at=min(card.due_at, now))


def bury(card: ReviewCard, now: datetime, zone: tzinfo) -> ReviewCard:
    """Out of reviews until the user's next local midnight."""
    return replace(card, buried_until=next_day_start(now, zone))


# -- choosing the day's reviews -------------------------------------------------------------


def overdueness(card: ReviewCard, now: datetime) -> float:
    """How late a card is, as a share of the interval it was given (Anki's "relative
    overdueness"): a day late on a one-day interval (1.0) comes before three days late on
    a sixty-day one (0.05), because the first is the likelier to be forgotten."""
    since = card.last_review_at or card.due_at
    interval = max((card.due_at - since).total_seconds(), 3600.0)
    return (now - card.due_at).total_seconds() / interval


@dataclass(frozen=True, slots=True)
class ReviewPlan:
    """What a user reviews now, and what waits.

    ``today``: the cards to review now, in order (cards failed earlier today first: they
    are in relearning and cost no budget; then due cards, most overdue first, up to what
    is left of the day's limit). ``waiting``: due cards beyond the limit, left for the
    following days. ``done_today``: cards already reviewed today that count against the
    limit."""

    today: tuple[ReviewCard, ...]
    waiting: int
    done_today: int
    limit: int
    suspended: tuple[ReviewCard, ...] = field(default=())

    @property
    def due(self) -> int:
        return len(self.today)

    @property
    def days_to_clear(self) -> int:
        """Days after today that the waiting cards take at the limit (0 when none wait)."""
        return math.ceil(self.waiting / self.limit) if self.limit else 0


def plan_reviews(
    cards: Sequence[ReviewCard],
    *,
    now: datetime,
    zone: tzinfo,
    limit: int = DEFAULT_DAILY_LIMIT,
    include: Callable[[ReviewCard], bool] | None = None,
    priority: Callable[[ReviewCard, datetime], float] = overdueness,
) -> ReviewPlan:
    """Choose the cards a user reviews at ``now`` from all of their ``cards``.

    ``limit`` is the day's budget (the user's local day in ``zone``): a card reviewed today
    (not for the first time) counts against it once. ``include`` narrows which cards may be
    chosen (a topic), without changing what counts against the budget. ``priority`` orders
    the due cards, highest first (default :func:`overdueness`; ties: earliest due, then
    question id). Suspended and buried cards are never chosen. Pure: no storage, no clock."""
    start = day_start(now, zone)
    done_today = 0
    relearning: list[ReviewCard] = []
    due: list[ReviewCard] = []
    suspended: list[ReviewCard] = []
    for card in cards:
        reviewed_today = card.last_review_at is not None and card.last_review_at >= start
        if reviewed_today and card.reps > 1:
            done_today += 1
        if card.suspended:
            suspended.append(card)
            continue
        if card.due_at > now or not card.active(now) or (include and not include(card)):
            continue
        (relearning if reviewed_today else due).append(card)
    due.sort(key=lambda c: (-priority(c, now), c.due_at, c.question_id))
    budget = max(0, limit - done_today)
    relearning.sort(key=lambda c: (c.due_at, c.question_id))
    return ReviewPlan(
        today=(*relearning, *due[:budget]),
        waiting=max(0, len(due) - budget),
        done_today=done_today,
        limit=limit,
        suspended=tuple(suspended),
    )


def next_review_at(
    plan: ReviewPlan, cards: Sequence[ReviewCard], now: datetime, zone: tzinfo
) -> datetime | None:
    """When the user next has something to review: now, the next local midnight when the
    day's budget is spent, else the earliest an active card falls due (None: no cards)."""
    if plan.today:
        return now
    if plan.waiting:
        return next_day_start(now, zone)
    times = [max(c.due_at, c.buried_until or c.due_at) for c in cards if not c.suspended]
    return min(times, default=None)


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

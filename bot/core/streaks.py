"""Daily streaks: a streak day is a day, in the user's own zone at the time, on which they
answered at least one question (daily or quiz), right or wrong.

Public use case for other capabilities::

    record_activity(uow, user, when) -> StreakUpdate

Call it in the same unit of work that records an answer (``ctx.uow, ctx.user, ctx.now``);
it is idempotent per day (a second answer the same day changes nothing but the count
of answers), and never commits.

Rules
- The day of an activity is its local date in the user's zone at that moment (their own
  zone, else the workspace's). The streak calendar never runs backwards: after a zone
  change westwards, an activity on a date already counted counts nothing more.
- Missed days are judged in both the zone of the last activity and the current one, and
  the smaller count wins, so flying east over the date line never creates a missed day.
  Together: activities less than 23 hours apart never break a streak, whatever the zones,
  and a streak never grows by more than one per new local date.
- Freezes: one is earned each time the streak reaches a multiple of 7 days, at most 2 are
  held; missed days are covered automatically when enough freezes are held (they keep the
  streak alive but do not lengthen it), else the streak ends.
- An evening nudge (19:00 in the user's zone) goes to users whose streak is at risk: they
  have a streak and have not answered yet today. ``/studybot nudges off`` opts out.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Final, Protocol

from bot.core.context import Context, Services
from bot.core.daily.schedule import DAILY
from bot.core.messages import Card, Delivery, Outgoing
from bot.core.model import User
from bot.core.ports import Port, UnitOfWork
from bot.core.timezones import zone

log = logging.getLogger(__name__)

FREEZE_EVERY: Final = 7
MAX_FREEZES: Final = 2
NUDGE_TIME: Final = time(19, 0)
CALENDAR_WEEKS: Final = 4
MARK_ACTIVE, MARK_FROZEN, MARK_MISSED, MARK_TODAY = "■", "❄", "·", "○"


@dataclass(frozen=True, slots=True)
class StreakState:
    """A user's streak. ``last_day`` is the last counted (or frozen) day, a local date in
    ``last_zone``, the zone of the user's latest activity."""

    current: int = 0
    longest: int = 0
    freezes: int = 0
    last_day: date | None = None
    last_zone: str | None = None
    nudge_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class StreakUpdate:
    """What :func:`record_activity` did: the new state, the day it recorded, whether it
    lengthened the streak, and any days a freeze covered on the way."""

    state: StreakState
    day: date
    counted: bool
    earned_freeze: bool
    frozen_days: tuple[date, ...]


@dataclass(frozen=True, slots=True)
class DayMark:
    answers: int
    frozen: bool


@dataclass(frozen=True, slots=True)
class NudgeTarget:
    """A user whose nudge time has come, with what the nudge job needs."""

    user: User
    state: StreakState
    zone: str
    platform: str


class StreakRepository(Protocol):
    """Streak rows and activity days; every method is scoped by the user's workspace."""

    def get(self, user: User) -> StreakState:
        """The user's streak, locked for this transaction where the database can."""
        ...

    def save(self, user: User, state: StreakState) -> None: ...

    def add_day(self, user: User, day: date, *, answers: int = 1, frozen: bool = False) -> None:
        """Add ``answers`` to the user's activity on ``day`` (creating it), or mark it frozen."""
        ...

    def days(self, user: User, first: date, last: date) -> dict[date, DayMark]: ...

    def zone_of(self, user: User) -> str:
        """The user's zone, else their workspace's."""
        ...

    def set_nudges(self, user: User, enabled: bool) -> None: ...

    def next_nudge_at(self) -> datetime | None: ...

    def claim_nudges(self, now: datetime, limit: int) -> list[NudgeTarget]:
        """Users whose ``nudge_at`` has come, locked (SKIP LOCKED) for this transaction."""
        ...


STREAKS = Port[StreakRepository]("streaks")


# -- the rules, pure ----------------------------------------------------------------------


def local_day(when: datetime, zone_name: str) -> date:
    return when.astimezone(zone(zone_name)).date()


def days_since_last(state: StreakState, when: datetime, zone_name: str) -> int:
    """Whole local dates from the last counted day to ``when``, judged in both the zone of
    the last activity and the current zone; the smaller wins (see the module doc)."""
    if state.last_day is None:
        return 0
    today_new = local_day(when, zone_name)
    today_old = local_day(when, state.last_zone or zone_name)
    return (min(today_new, today_old) - state.last_day).days


def settle(state: StreakState, when: datetime, zone_name: str) -> tuple[StreakState, list[date]]:
    """Account for days missed before ``when``'s day: spend freezes to cover them, or end
    the streak. Returns the new state and the days frozen. Idempotent."""
    missed = days_since_last(state, when, zone_name) - 1
    if missed <= 0 or state.current == 0 or state.last_day is None:
        return state, []
    if missed <= state.freezes:
        frozen = [state.last_day + timedelta(days=i) for i in range(1, missed + 1)]
        return replace(state, freezes=state.freezes - missed, last_day=frozen[-1]), frozen
    return replace(state, current=0), []


def apply_activity(
    state: StreakState, when: datetime, zone_name: str
) -> tuple[StreakState, date, bool, bool, list[date]]:
    """The streak after an activity at ``when`` in ``zone_name``: (state, day recorded,
    counted, earned a freeze, days frozen on the way)."""
    state, frozen = settle(state, when, zone_name)
    day = local_day(when, zone_name)
    if state.last_day is not None and day <= state.last_day and state.current > 0:
        return replace(state, last_zone=zone_name), day, False, False, frozen
    current = 1 if state.current == 0 or state.last_day is None else state.current + 1
    earned = current % FREEZE_EVERY == 0 and state.freezes < MAX_FREEZES
    new = replace(
        state,
        current=current,
        longest=max(state.longest, current),
        freezes=state.freezes + 1 if earned else state.freezes,
        last_day=day if state.last_day is None else max(day, state.last_day),
        last_zone=zone_name,
    )
    return new, day, True, earned, frozen


def nudge_instant(day: date, zone_name: str) -> datetime:
    """19:00 local on ``day`` (DST-correct: the wall time, whatever the offset)."""
    return datetime.combine(day, NUDGE_TIME, tzinfo=zone(zone_name)).astimezone(UTC)


def at_risk(state: StreakState, when: datetime, zone_name: str) -> bool:
    """True when the user has a streak and has not answered yet on ``when``'s day."""
    return state.current > 0 and days_since_last(state, when, zone_name) == 1


# -- use cases ----------------------------------------------------------------------------


def record_activity(uow: UnitOfWork, user: User, when: datetime) -> StreakUpdate:
    """Record that ``user`` answered a question at ``when`` (daily or quiz, right or wrong).

    Updates the streak and the activity calendar in ``uow``'s transaction (the caller
    commits); safe to call for every answer: only the first answer of a local day
    lengthens the streak. Returns what changed.
    """
    zone_name = uow[STREAKS].zone_of(user)
    state = uow[STREAKS].get(user)
    new, day, counted, earned, frozen = apply_activity(state, when, zone_name)
    for frozen_day in frozen:
        uow[STREAKS].add_day(user, frozen_day, answers=0, frozen=True)
    uow[STREAKS].add_day(user, day)
    assert new.last_day is not None
    new = replace(new, nudge_at=nudge_instant(new.last_day + timedelta(days=1), zone_name))
    uow[STREAKS].save(user, new)
    return StreakUpdate(new, day, counted, earned, tuple(frozen))


def current_streak(uow: UnitOfWork, user: User, now: datetime) -> StreakState:
    """The user's streak as of ``now``, with missed days settled (freezes spent) and saved."""
    zone_name = uow[STREAKS].zone_of(user)
    state = uow[STREAKS].get(user)
    settled, frozen = settle(state, now, zone_name)
    if settled != state:
        for frozen_day in frozen:
            uow[STREAKS].add_day(user, frozen_day, answers=0, frozen=True)
        uow[STREAKS].save(user, settled)
    return settled


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def calendar_lines(marks: dict[date, DayMark], today: date) -> list[str]:
    """The last four weeks, Monday first, one row a week: ■ answered, ❄ frozen, · missed,
    ○ today (not answered yet)."""
    first = today - timedelta(days=today.weekday() + 7 * (CALENDAR_WEEKS - 1))
    lines = ["       Mo Tu We Th Fr Sa Su"]
    for week in range(CALENDAR_WEEKS):
        monday = first + timedelta(days=7 * week)
        cells = []
        for offset in range(7):
            day = monday + timedelta(days=offset)
            mark = marks.get(day)
            if day > today:
                cells.append("  ")
            elif mark is not None and mark.answers > 0:
                cells.append(MARK_ACTIVE + " ")
            elif mark is not None and mark.frozen:
                cells.append(MARK_FROZEN + " ")
            elif day == today:
                cells.append(MARK_TODAY + " ")
            else:
                cells.append(MARK_MISSED + " ")
        lines.append(f"{monday.strftime('%b %d')} " + " ".join(c for c in cells).rstrip())
    lines.append(f"{MARK_ACTIVE} answered  {MARK_FROZEN} freeze  {MARK_MISSED} missed")
    return lines


def streak_card(state: StreakState, marks: dict[date, DayMark], today: date) -> Card:
    if state.current == 0:
        status = "Answer a question today to start one."
    elif state.last_day is not None and state.last_day >= today:
        status = "You have answered today. See you tomorrow!"
    else:
        status = "Answer a question today to keep it going."
    freezes = _plural(state.freezes, "freeze")
    return Card(
        title=f"🔥 {state.current}-day streak" if state.current else "No streak running",
        blocks=(
            f"Longest: {_plural(state.longest, 'day')} · ❄ {freezes} held "
            f"(one earned every {FREEZE_EVERY} days in a row, at most {MAX_FREEZES}).",
            status,
            "```\n" + "\n".join(calendar_lines(marks, today)) + "\n```",
        ),
    )


def show_streak(ctx: Context, args: str) -> list[Outgoing]:
    """``/streak``: current and longest streak, freezes held, the last four weeks."""
    from bot.core.errors import UserError

    if args.strip():
        raise UserError("/streak takes no arguments: it shows your own streak.")
    state = current_streak(ctx.uow, ctx.user, ctx.now)
    today = local_day(ctx.now, ctx.uow[STREAKS].zone_of(ctx.user))
    first = today - timedelta(days=today.weekday() + 7 * (CALENDAR_WEEKS - 1))
    marks = ctx.uow[STREAKS].days(ctx.user, first, today)
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            streak_card(state, marks, today),
            channel=ctx.channel.external_id,
        )
    ]


def nudge_card(state: StreakState) -> Card:
    cover = (
        " A freeze would cover today if you miss it."
        if state.freezes
        else " You have no freeze left to cover today."
    )
    return Card(
        title="Keep your streak going",
        blocks=(
            f"You are on a {state.current}-day streak and have not answered a "
            f"question today.{cover}",
            "Type /daily for today's question or /quiz for a quick round.",
        ),
        footer="Turn these off with /studybot nudges off",
    )


class StreakNudgeJob:
    """Evening nudges for users whose streak is at risk (a :class:`DueJob`)."""

    name = "streak-nudges"

    def __init__(self, batch: int = 500) -> None:
        self.batch = batch

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[STREAKS].next_nudge_at()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        """Queue the nudges due at ``now``; nudges missed by more than the grace period are
        skipped (logged). Returns how many users were handled."""
        targets = uow[STREAKS].claim_nudges(now, self.batch)
        for target in targets:
            self._handle(uow, services, target, now)
        return len(targets)

    def _handle(
        self, uow: UnitOfWork, services: Services, target: NudgeTarget, now: datetime
    ) -> None:
        state = target.state
        due = state.nudge_at or now
        settled, frozen = settle(state, now, target.zone)
        for frozen_day in frozen:
            uow[STREAKS].add_day(target.user, frozen_day, answers=0, frozen=True)
        today = local_day(now, target.zone)
        if now - due > services.grace:
            log.warning(
                "skipping the nudge for user %s due at %s: missed by more than %s",
                target.user.id,
                due.isoformat(),
                services.grace,
            )
        elif target.user.nudges and at_risk(settled, now, target.zone):
            message = Outgoing(
                Delivery.DM,
                target.user.external_id,
                nudge_card(settled),
                key=f"nudge:{target.user.id}:{today.isoformat()}",
            )
            workspace_id = target.user.workspace_id
            uow[DAILY].queue([(workspace_id, target.platform, message)], now)
        alive_tomorrow = settled.current > 0 and settled.freezes > 0
        following = nudge_instant(today + timedelta(days=1), target.zone)
        uow[STREAKS].save(
            target.user, replace(settled, nudge_at=following if alive_tomorrow else None)
        )


def streak_note(update: StreakUpdate) -> str:
    """One line for a grade reply when an answer changed the streak."""
    if not update.counted:
        return ""
    parts = [f"🔥 {update.state.current}-day streak."]
    if update.frozen_days:
        parts.append(f"A freeze covered {_plural(len(update.frozen_days), 'missed day')}.")
    if update.earned_freeze:
        parts.append(f"You earned a freeze (❄ {update.state.freezes} held).")
    return " ".join(parts)


def nudges_setting(ctx: Context, words: Sequence[str]) -> list[Outgoing]:
    """``/studybot nudges on|off``: the acting user's evening streak reminders."""
    from bot.core.errors import UserError
    from bot.core.messages import say

    if len(words) != 1 or words[0].lower() not in ("on", "off"):
        state = "on" if ctx.user.nudges else "off"
        raise UserError(f"Usage: /studybot nudges on|off (yours are {state}).")
    enabled = words[0].lower() == "on"
    ctx.uow[STREAKS].set_nudges(ctx.user, enabled)
    text = (
        "Evening streak reminders are on: you get one at 19:00 your time when your streak "
        "is at risk."
        if enabled
        else "Evening streak reminders are off. Turn them back on with /studybot nudges on."
    )
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]

"""Daily streaks: a streak day is a day, in the user's own zone at the time, on which they
answered at least one question (any real answer: daily, quiz, review, live round or mock
round, right or wrong; see ``bot.core.answers``), and a streak is broken only by a *due*
day without one.

Public use case for other capabilities::

    record_activity(uow, user, when) -> StreakUpdate

Call it in the same unit of work that records an answer (``ctx.uow, ctx.user, ctx.now``);
it is idempotent per day (a second answer the same day changes nothing but the count
of answers), and never commits.

Rules
- Due days follow the schedule. Each daily question of one of *their* channels (the
  channels whose daily question they have ever answered), posted or still to come, makes
  one local date due in the user's current zone: the question's own date (the channel's
  date for it), or the date on which it is posted where that is later (a zone east of the
  channel's, where it arrives the next day). West of the channel's zone a question arrives
  the evening before its date: its own date is due, not the evening it came, and answering
  it that evening already does the day's work (the date is no longer due). So whoever
  answers each question by the end of the date it is due on, the evening it arrives
  included, never misses a day, and a Mon–Fri channel leaves every zone five due days a
  week (:func:`due_on`). A user who never answered a
  daily (quizzes only) is due every day. Days the user is away (``/away``) are never due.
  A day that is not due neither breaks the streak nor spends a freeze; answering on it
  still lengthens the streak.
- The day of an activity is its local date in the user's zone at that moment (their own
  zone, else the workspace's). The streak calendar never runs backwards: after a zone
  change westwards, an activity on a date already counted counts nothing more, and it is
  recorded on the last counted day (never on an earlier date the streak did not count).
- ``/streak`` and its calendar agree after any ``/tz``: the calendar shows the recorded
  days and runs to the later of today (the current zone) and the last counted day, so a
  day counted in a zone ahead of the current one is still shown; dates that a zone change
  eastwards jumped over (it was never that date for the user's answers) are recorded as
  skipped and shown ``-``, never as missed, from the zone change on (before the next
  answer too). The answered days since the streak began are
  exactly its count.
- The calendar starts on the user's first day: the days before their first answer are
  blank, never missed.
- Missed days are judged in both the zone of the last activity and the current one, and
  the smaller count wins, so flying east over the date line never creates a missed day.
  Together: activities less than 23 hours apart never break a streak, whatever the zones,
  and a streak never grows by more than one per new local date.
- Freezes: one is earned each time the streak reaches a multiple of 7 days, at most 2 are
  held; missed due days are covered automatically when enough freezes are held (they keep
  the streak alive but do not lengthen it), else the streak ends.
- An evening nudge (19:00 in the user's zone) goes to users whose streak is at risk: they
  have a streak, today is due by a question posted by then (or, with no channel, by any
  answer), and they have not answered yet today.
  ``/studybot nudges off`` opts out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
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
MARK_OFF = "-"


@dataclass(frozen=True, slots=True)
class DueDays:
    """Which local dates a user is expected to answer on (see the module doc).

    ``scheduled`` holds the dates on which a daily question of one of the user's channels
    is due (:func:`due_on`), within the range asked for; None means every date (a user
    with no channel of their own). ``away`` are inclusive (first, last) date ranges."""

    scheduled: frozenset[date] | None = None
    away: tuple[tuple[date, date], ...] = ()

    def is_away(self, day: date) -> bool:
        return any(first <= day <= last for first, last in self.away)

    def due(self, day: date) -> bool:
        if self.is_away(day):
            return False
        return self.scheduled is None or day in self.scheduled


EVERY_DAY: Final = DueDays()


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
class ChannelPost:
    """A daily question of one of a user's channels, as the due-day rule needs it: ``day``
    is its own date (the channel's local date for it), ``at`` when it was or will be
    posted, ``answered_at`` the user's first answer to it (None: none yet)."""

    day: date
    at: datetime
    answered_at: datetime | None = None


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

    def first_day(self, user: User) -> date | None:
        """The earliest date on the user's calendar (answered, frozen or skipped); None
        before their first answer."""
        ...

    def zone_of(self, user: User) -> str:
        """The user's zone, else their workspace's."""
        ...

    def channel_posts(self, user: User, first: date, last: date) -> list[ChannelPost] | None:
        """The daily questions dated ``first`` to ``last`` (their channel's own dates) of the
        channels whose daily question ``user`` has answered: those posted, with the user's
        first answer to each, and each unpaused channel's next post still to come; None
        when the user never answered a daily question."""
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


def gap(state: StreakState, when: datetime, zone_name: str) -> tuple[date, date] | None:
    """The local dates strictly between the last counted day and ``when``'s day, as an
    inclusive (first, last) range; None when there are none."""
    if state.last_day is None or state.current == 0:
        return None
    days = days_since_last(state, when, zone_name)
    if days < 2:
        return None
    return state.last_day + timedelta(days=1), state.last_day + timedelta(days=days - 1)


def settle(
    state: StreakState, when: datetime, zone_name: str, due: DueDays = EVERY_DAY
) -> tuple[StreakState, list[date]]:
    """Account for due days missed before ``when``'s day: spend freezes to cover them, or
    end the streak. Days that are not due (``due``) are passed over. Returns the new state
    and the days frozen. Idempotent."""
    between = gap(state, when, zone_name)
    if between is None:
        return state, []
    first, last = between
    span = (last - first).days + 1
    missed = [d for d in (first + timedelta(days=i) for i in range(span)) if due.due(d)]
    if not missed:
        return state, []
    if len(missed) <= state.freezes:
        return replace(state, freezes=state.freezes - len(missed), last_day=missed[-1]), missed
    return replace(state, current=0), []


def apply_activity(
    state: StreakState, when: datetime, zone_name: str, due: DueDays = EVERY_DAY
) -> tuple[StreakState, date, bool, bool, list[date]]:
    """The streak after an activity at ``when`` in ``zone_name``: (state, day recorded,
    counted, earned a freeze, days frozen on the way)."""
    state, frozen = settle(state, when, zone_name, due)
    day = local_day(when, zone_name)
    if state.last_day is not None and day <= state.last_day and state.current > 0:
        # Counted already (or, after a move westwards, an earlier date): it goes on the last
        # counted day, so the calendar never shows a day the streak did not count.
        return replace(state, last_zone=zone_name), state.last_day, False, False, frozen
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
    assert new.last_day is not None
    return new, new.last_day, True, earned, frozen


def jumped_dates(state: StreakState, when: datetime, zone_name: str) -> list[date]:
    """The local dates a zone change eastwards jumps over between ``state``'s last counted
    day and ``when``'s date in ``zone_name``: in the zone of the last activity it is still
    an earlier date, so they are never missed (see :func:`days_since_last`). Shown as
    skipped, before an answer in the new zone as after it."""
    if state.last_day is None or state.current == 0:
        return []
    in_old_zone = local_day(when, state.last_zone or zone_name)
    first = max(state.last_day + timedelta(days=1), in_old_zone)
    return [first + timedelta(days=i) for i in range((local_day(when, zone_name) - first).days)]


def due_on(post: ChannelPost, zone_name: str) -> date | None:
    """The local date in ``zone_name`` on which a daily question is due: its own date, or the
    date it is posted on where that is later (east of the channel's zone). None when the
    user answered it before that date began (west of the channel's zone, where it arrives
    the evening before): that answer counted already, and nothing is left due for it."""
    day = max(post.day, local_day(post.at, zone_name))
    if post.answered_at is not None and local_day(post.answered_at, zone_name) < day:
        return None
    return day


def nudge_instant(day: date, zone_name: str) -> datetime:
    """19:00 local on ``day`` (DST-correct: the wall time, whatever the offset)."""
    return datetime.combine(day, NUDGE_TIME, tzinfo=zone(zone_name)).astimezone(UTC)


def at_risk(state: StreakState, when: datetime, zone_name: str, due: DueDays = EVERY_DAY) -> bool:
    """True when the (settled) user has a streak, ``when``'s day is due, and they have not
    answered yet on it."""
    if state.current == 0 or days_since_last(state, when, zone_name) < 1:
        return False
    return due.due(local_day(when, zone_name))


def due_days(
    uow: UnitOfWork,
    user: User,
    first: date,
    last: date,
    zone_name: str,
    *,
    posted_by: datetime | None = None,
) -> DueDays:
    """The user's due days from ``first`` to ``last`` (their channels' posts, time away);
    with ``posted_by``, only the posts made by then count (the nudge's: a question posted
    after it, or not yet, is nothing to be reminded of)."""
    from bot.core.away import AWAY

    # A question's own date is at most two dates before the local date it is posted on
    # (zones are less than 48 hours apart), and never after the date it is due on.
    posts = uow[STREAKS].channel_posts(user, first - timedelta(days=2), last)
    scheduled = None
    if posts is not None:
        made = (p for p in posts if posted_by is None or p.at <= posted_by)
        days = (due_on(post, zone_name) for post in made)
        scheduled = frozenset(d for d in days if d is not None and first <= d <= last)
    return DueDays(scheduled, tuple(uow[AWAY].ranges(user, first, last)))


def _settle_due(
    uow: UnitOfWork, user: User, state: StreakState, when: datetime, zone_name: str
) -> tuple[StreakState, list[date]]:
    between = gap(state, when, zone_name)
    if between is None:
        return state, []
    return settle(state, when, zone_name, due_days(uow, user, *between, zone_name))


# -- use cases ----------------------------------------------------------------------------


def record_activity(uow: UnitOfWork, user: User, when: datetime) -> StreakUpdate:
    """Record that ``user`` answered a question at ``when`` (daily or quiz, right or wrong).

    Updates the streak and the activity calendar in ``uow``'s transaction (the caller
    commits); safe to call for every answer: only the first answer of a local day
    lengthens the streak. Returns what changed.
    """
    zone_name = uow[STREAKS].zone_of(user)
    state = uow[STREAKS].get(user)
    between = gap(state, when, zone_name)
    due = EVERY_DAY if between is None else due_days(uow, user, *between, zone_name)
    new, day, counted, earned, frozen = apply_activity(state, when, zone_name, due)
    for frozen_day in frozen:
        uow[STREAKS].add_day(user, frozen_day, answers=0, frozen=True)
    continued = new.current == state.current + 1  # counted, and not a new streak
    for skipped in jumped_dates(state, when, zone_name) if continued else []:
        uow[STREAKS].add_day(user, skipped, answers=0)
    uow[STREAKS].add_day(user, day)
    assert new.last_day is not None
    new = replace(new, nudge_at=nudge_instant(new.last_day + timedelta(days=1), zone_name))
    uow[STREAKS].save(user, new)
    return StreakUpdate(new, day, counted, earned, tuple(frozen))


def current_streak(uow: UnitOfWork, user: User, now: datetime) -> StreakState:
    """The user's streak as of ``now``, with missed days settled (freezes spent) and saved."""
    zone_name = uow[STREAKS].zone_of(user)
    state = uow[STREAKS].get(user)
    settled, frozen = _settle_due(uow, user, state, now, zone_name)
    if settled != state:
        for frozen_day in frozen:
            uow[STREAKS].add_day(user, frozen_day, answers=0, frozen=True)
        uow[STREAKS].save(user, settled)
    return settled


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def calendar_lines(
    marks: dict[date, DayMark],
    today: date,
    due: DueDays = EVERY_DAY,
    since: date | None = None,
) -> list[str]:
    """The last four weeks, Monday first, one row a week: ■ answered, ❄ frozen, · missed,
    - nothing due (off the schedule, away, or jumped over by a zone change), ○ today (not
    answered yet), and a legend of every mark. Days before ``since`` (the user's first
    day) are blank: nothing was missed before they started."""
    first = today - timedelta(days=today.weekday() + 7 * (CALENDAR_WEEKS - 1))
    lines = ["       Mo Tu We Th Fr Sa Su"]
    for week in range(CALENDAR_WEEKS):
        monday = first + timedelta(days=7 * week)
        cells = []
        for offset in range(7):
            day = monday + timedelta(days=offset)
            mark = marks.get(day)
            if day > today or (since is not None and day < since):
                cells.append("  ")
            elif mark is not None and mark.answers > 0:
                cells.append(MARK_ACTIVE + " ")
            elif mark is not None and mark.frozen:
                cells.append(MARK_FROZEN + " ")
            elif mark is not None:  # a date a zone change jumped over
                cells.append(MARK_OFF + " ")
            elif day == today:
                cells.append(MARK_TODAY + " ")
            elif not due.due(day):
                cells.append(MARK_OFF + " ")
            else:
                cells.append(MARK_MISSED + " ")
        lines.append(f"{monday.strftime('%b %d')} " + " ".join(c for c in cells).rstrip())
    lines.append(
        f"{MARK_ACTIVE} answered  {MARK_FROZEN} freeze  {MARK_MISSED} missed  "
        f"{MARK_OFF} nothing due  {MARK_TODAY} today, not answered yet"
    )
    return lines


def calendar_today(state: StreakState, now: datetime, zone_name: str) -> date:
    """The calendar's last day: today in ``zone_name``, or the last counted day when that is
    later (it was counted in a zone ahead of this one), so the calendar shows every day the
    streak counts."""
    today = local_day(now, zone_name)
    return max(today, state.last_day) if state.last_day is not None else today


def streak_card(
    state: StreakState,
    marks: dict[date, DayMark],
    today: date,
    due: DueDays = EVERY_DAY,
    away_note: str = "",
    since: date | None = None,
) -> Card:
    if state.current == 0:
        status = "Answer a question today to start one."
    elif state.last_day is not None and state.last_day >= today:
        status = "You have answered today. See you tomorrow!"
    elif not due.due(today):
        status = "Nothing is due today: your streak is safe (answering still adds a day)."
    else:
        status = "Answer a question today to keep it going."
    if away_note:
        status = f"{status}\n{away_note}"
    freezes = _plural(state.freezes, "freeze")
    return Card(
        title=f"🔥 {state.current}-day streak" if state.current else "No streak running",
        blocks=(
            f"Longest: {_plural(state.longest, 'day')} · ❄ {freezes} held "
            f"(one earned every {FREEZE_EVERY} days in a row, at most {MAX_FREEZES}).",
            status,
            "```\n" + "\n".join(calendar_lines(marks, today, due, since)) + "\n```",
        ),
    )


def show_streak(ctx: Context, args: str) -> list[Outgoing]:
    """``/streak``: current and longest streak, freezes held, the last four weeks."""
    from bot.core.errors import UserError

    if args.strip():
        raise UserError("/streak takes no arguments: it shows your own streak.")
    from bot.core.away import away_note

    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            streak_view(ctx.uow, ctx.user, ctx.now, away_note),
            channel=ctx.channel.external_id,
        )
    ]


def streak_view(
    uow: UnitOfWork,
    user: User,
    now: datetime,
    note: Callable[[UnitOfWork, User, date], str] | None = None,
) -> Card:
    """The ``/streak`` card as of ``now``: the settled streak and the calendar that agrees
    with it (see the module doc); ``note`` gives the time-away line for the day shown."""
    state = current_streak(uow, user, now)
    zone_name = uow[STREAKS].zone_of(user)
    today = calendar_today(state, now, zone_name)
    first = today - timedelta(days=today.weekday() + 7 * (CALENDAR_WEEKS - 1))
    marks = uow[STREAKS].days(user, first, today)
    for skipped in jumped_dates(state, now, zone_name):  # not answered across them yet
        marks.setdefault(skipped, DayMark(0, False))
    due = due_days(uow, user, first, today, zone_name)
    since = uow[STREAKS].first_day(user) or today
    away = note(uow, user, today) if note else ""
    return streak_card(state, marks, today, due, away, since)


def nudge_card(state: StreakState, has_daily: bool = True) -> Card:
    """The evening nudge; it points to /daily only for users whose channels had a daily
    question today (``has_daily``), else to /quiz."""
    cover = (
        " A freeze would cover today if you miss it."
        if state.freezes
        else f" No freeze would cover today (one comes with every {FREEZE_EVERY} days in a row)."
    )
    how = (
        "Type /daily for today's question or /quiz for a quick round."
        if has_daily
        else "Type /quiz for a quick round."
    )
    return Card(
        title="Keep your streak going",
        blocks=(
            f"You are on a {state.current}-day streak and have not answered a "
            f"question today.{cover}",
            how,
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
        due_at = state.nudge_at or now
        settled, frozen = _settle_due(uow, target.user, state, now, target.zone)
        for frozen_day in frozen:
            uow[STREAKS].add_day(target.user, frozen_day, answers=0, frozen=True)
        today = local_day(now, target.zone)
        # Only a question posted by the nudge's time is one to remind of: a channel that
        # posts at 20:00 has not asked today's at 19:00.
        due = due_days(uow, target.user, today, today, target.zone, posted_by=due_at)
        risk = at_risk(settled, now, target.zone, due)
        if now - due_at > services.grace:
            log.warning(
                "skipping the nudge for user %s due at %s: missed by more than %s",
                target.user.id,
                due_at.isoformat(),
                services.grace,
            )
        elif target.user.nudges and risk:
            message = Outgoing(
                Delivery.DM,
                target.user.external_id,
                nudge_card(settled, due.scheduled is not None and today in due.scheduled),
                key=f"nudge:{target.user.id}:{today.isoformat()}",
            )
            workspace_id = target.user.workspace_id
            uow[DAILY].queue([(workspace_id, target.platform, message)], now)
        # Missing a due day without a freeze ends the streak; a day not due cannot.
        alive_tomorrow = settled.current > 0 and (settled.freezes > 0 or not risk)
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

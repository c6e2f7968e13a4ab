"""Time away: ``/away FROM TO`` pauses the acting user's streak for those local dates
(inclusive, in their own zone) without spending freezes; the evening nudges stop with it,
because a day away is never due (see :mod:`bot.core.streaks`).

Grammar::

    /away FROM TO | FROM to TO | DAY    add a period (dates: 2026-12-20, dec 20, friday, …)
    /away [list]                        current and upcoming periods
    /away off                           back now: end the current period (yesterday is its last day)
    /away cancel ID                     cancel a planned period; one that has begun ends as with
                                        /away off (the days that passed stay away)

Dates are read by :func:`bot.core.dates.read_date` (as every command reads them), relative
to the user's own today. Bad input raises a ``UserError``, so nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Final, Protocol

from bot.core.context import Context
from bot.core.dates import NotADate, read_date
from bot.core.errors import UserError
from bot.core.messages import Outgoing, say
from bot.core.model import User
from bot.core.numbers import whole_number
from bot.core.ports import Port, UnitOfWork
from bot.core.reviews import plan_summary, review_plan

MAX_DAYS: Final = 90
MAX_AHEAD: Final = timedelta(days=365)
MAX_UPCOMING: Final = 10
USAGE: Final = (
    "Usage: /away FROM TO (e.g. /away 2026-12-20 2027-01-03 or /away dec 20 to jan 3), "
    "/away off when you are back, /away list, /away cancel ID."
)
_SEPARATORS: Final = re.compile(r"\s+(?:to|until|till|through)\s+|\s*[–—]\s*|\s+-\s+", re.I)


@dataclass(frozen=True, slots=True)
class AwayPeriod:
    """A user's time away: local dates ``first`` to ``last``, both included."""

    id: int
    user_id: int
    first: date
    last: date

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1


class AwayRepository(Protocol):
    """Time-away periods; every method is scoped by the user's workspace."""

    def add(self, user: User, first: date, last: date, now: datetime) -> AwayPeriod: ...

    def periods(self, user: User, from_day: date) -> list[AwayPeriod]:
        """The user's periods that end on or after ``from_day``, earliest first."""
        ...

    def ranges(self, user: User, first: date, last: date) -> list[tuple[date, date]]:
        """(first, last) of the user's periods that overlap ``first``..``last``."""
        ...

    def set_last(self, user: User, period_id: int, last: date) -> None: ...

    def delete(self, user: User, period_id: int) -> bool:
        """Delete the user's own period ``period_id``; False when there is none."""
        ...


AWAY = Port[AwayRepository]("away")


# -- parsing ------------------------------------------------------------------------------


def parse_period(text: str, today: date) -> tuple[date, date]:
    """(first, last) from ``FROM TO``, ``FROM to TO`` or a single ``DAY``; raises UserError."""
    try:
        return _period(" ".join(text.split()), today)
    except NotADate as error:
        raise UserError(f"{error} {USAGE}") from error


def _period(text: str, today: date) -> tuple[date, date]:
    parts = _SEPARATORS.split(text, maxsplit=1)
    if len(parts) == 2:
        first, last = read_date(parts[0], today), read_date(parts[1], today)
        if first is None or last is None:
            bad = parts[0] if first is None else parts[1]
            raise UserError(f"{bad[:40]!r} is not a date. {USAGE}")
        return first, last
    single = read_date(text, today)
    if single is not None:
        return single, single
    words = text.split(" ")
    middle = len(words) / 2
    for cut in sorted(range(1, len(words)), key=lambda i: abs(i - middle)):
        first = read_date(" ".join(words[:cut]), today)
        last = read_date(" ".join(words[cut:]), today)
        if first is not None and last is not None:
            return first, last
    if len(words) == 2:
        bad = words[0] if read_date(words[0], today) is None else words[1]
        raise UserError(f"{bad[:40]!r} is not a date. {USAGE}")
    raise UserError(f"I could not read {text[:60]!r} as dates. {USAGE}")


def check_period(first: date, last: date, today: date, existing: Sequence[AwayPeriod]) -> None:
    """Raise UserError unless ``first``..``last`` is a period the user may add."""
    if last < first:
        raise UserError(
            f"Time away ends before it starts ({describe_day(first)} to {describe_day(last)}). "
            "Give the first day, then the last."
        )
    if first < today:
        raise UserError(
            f"Time away can start today ({describe_day(today)}) at the earliest: a day that "
            "has passed cannot be taken back."
        )
    if first - today > MAX_AHEAD:
        raise UserError("Time away can start at most a year from today.")
    if (last - first).days + 1 > MAX_DAYS:
        raise UserError(f"Time away lasts at most {MAX_DAYS} days; add another period later.")
    for period in existing:
        if period.first <= last and first <= period.last:
            raise UserError(
                f"That overlaps your time away #{period.id} ({describe(period)}). "
                f"Cancel it first with /away cancel {period.id}."
            )
    if len(existing) >= MAX_UPCOMING:
        raise UserError(f"You have {MAX_UPCOMING} periods of time away planned already.")


# -- describing ---------------------------------------------------------------------------


def describe_day(day: date) -> str:
    return day.strftime("%a %d %b %Y")


def describe(period: AwayPeriod) -> str:
    days = "1 day" if period.days == 1 else f"{period.days} days"
    if period.first == period.last:
        return f"{describe_day(period.first)}, {days}"
    return f"{describe_day(period.first)} to {describe_day(period.last)}, {days}"


def is_away(uow: UnitOfWork, user: User, day: date) -> bool:
    """True when local date ``day`` falls in one of ``user``'s periods of time away."""
    return bool(uow[AWAY].ranges(user, day, day))


def away_note(uow: UnitOfWork, user: User, today: date) -> str:
    """One line for /streak and the App Home: away now, or the next period; "" if none."""
    periods = uow[AWAY].periods(user, today)
    if not periods:
        return ""
    period = periods[0]
    if period.first <= today:
        return (
            f"✈ Away until {describe_day(period.last)}: your streak is paused "
            "(no freeze spent, no reminders). /away off when you are back."
        )
    return f"✈ Time away planned: {describe(period)}."


# -- the command --------------------------------------------------------------------------


def away_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/away``: add, list, end or cancel the acting user's time away."""
    today = ctx.now.astimezone(ctx.user_zone).date()
    words = args.split()
    head = words[0].lower() if words else ""
    if head in ("", "list"):
        if len(words) > 1:
            raise UserError(USAGE)
        text = _listing(ctx, today)
    elif head == "off":
        if len(words) > 1:
            raise UserError(USAGE)
        text = _back(ctx, today)
    elif head == "cancel":
        text = _cancel(ctx, words[1:], today)
    else:
        text = _add(ctx, args, today)
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]


def _listing(ctx: Context, today: date) -> str:
    periods = ctx.uow[AWAY].periods(ctx.user, today)
    if not periods:
        return "You have no time away planned. " + USAGE
    lines = ["Your time away (your streak pauses, no freeze spent, no reminders):"]
    for period in periods:
        now = " · now" if period.first <= today else ""
        lines.append(f"#{period.id} {describe(period)}{now}")
    lines.append("Cancel one with /away cancel ID; /away off when you are back early.")
    return "\n".join(lines)


def _end_today(ctx: Context, period: AwayPeriod, today: date) -> AwayPeriod | None:
    """End ``period`` so that today is no longer away, and return what is left of it: the
    days that have passed stay away (a day that has passed cannot be taken back, as
    ``check_period`` says); a period that had not begun before today goes altogether."""
    if period.first >= today:
        ctx.uow[AWAY].delete(ctx.user, period.id)
        return None
    ctx.uow[AWAY].set_last(ctx.user, period.id, today - timedelta(days=1))
    return AwayPeriod(period.id, period.user_id, period.first, today - timedelta(days=1))


def _welcome_back(ctx: Context) -> str:
    plan = review_plan(ctx, ctx.user, ctx.user_zone)
    reviews = f" Reviews: {plan_summary(plan)}." if plan.due else ""
    return "Welcome back! Today counts for your streak again." + reviews


def _back(ctx: Context, today: date) -> str:
    current = [p for p in ctx.uow[AWAY].periods(ctx.user, today) if p.first <= today]
    if not current:
        return "You are not away now, so there is nothing to end. " + (
            "See /away list for what is planned."
        )
    _end_today(ctx, current[0], today)
    return _welcome_back(ctx)


def _cancel(ctx: Context, words: Sequence[str], today: date) -> str:
    period_id = whole_number(words[0].lstrip("#")) if len(words) == 1 else None
    if period_id is None:
        raise UserError("Usage: /away cancel ID (the number /away list shows).")
    mine = ctx.uow[AWAY].periods(ctx.user, date.min) if period_id < 2**31 else []
    period = next((p for p in mine if p.id == period_id), None)
    if period is None:
        raise UserError(f"You have no time away #{period_id}. See /away list.")
    if period.last < today:
        raise UserError(
            f"Time away #{period_id} ({describe(period)}) is over: a day that has passed "
            "cannot be taken back."
        )
    kept = _end_today(ctx, period, today)
    if kept is None:
        return f"Time away #{period_id} is cancelled."
    return (
        f"Time away #{period_id} had begun, so it ends today, as with /away off: its days "
        f"so far ({describe(kept)}) stay paused, since a day that has passed cannot be "
        f"taken back. {_welcome_back(ctx)}"
    )


def _add(ctx: Context, args: str, today: date) -> str:
    first, last = parse_period(args, today)
    check_period(first, last, today, ctx.uow[AWAY].periods(ctx.user, today))
    period = ctx.uow[AWAY].add(ctx.user, first, last, ctx.now)
    return (
        f"Time away #{period.id}: {describe(period)}. Your streak pauses on those days "
        "(no freeze is spent) and you get no reminders. /away off ends it early; "
        f"/away cancel {period.id} removes it.{_mocks_during(ctx, period)}"
    )


def _mocks_during(ctx: Context, period: AwayPeriod) -> str:
    """A note on the user's upcoming mocks that start during ``period``: they stay as they
    are (the other person is told nothing), only their reminders to this user are muted."""
    from bot.core.mock.model import MOCKS, UPCOMING

    upcoming = ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, UPCOMING)
    during = [
        m.id
        for m in upcoming
        if period.first <= m.starts_at.astimezone(ctx.user_zone).date() <= period.last
    ]
    if not during:
        return ""
    names = ", ".join(f"#{i}" for i in during)
    first = during[0]
    what = f"Mock {names} falls" if len(during) == 1 else f"Mocks {names} fall"
    return (
        f" {what} in that time: it stays booked, without reminders to you "
        f"(/mock reschedule {first} WHEN or /mock cancel {first} if you will not be there)."
    )

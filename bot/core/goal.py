"""An interview date: ``/goal DATE [FORMAT]`` makes the bot work back from it.

Grammar::

    /goal DATE [loop|technical|product|behavioral]   set it (dates as /away reads them)
    /goal                                            show it, the days left, what is not covered
    /goal off                                        end it

What the date changes, while it lies ahead (in the user's own zone):

- **Retention.** The desired retention FSRS schedules the user's reviews for rises as the
  date nears (:func:`desired_retention`): 0.90 (FSRS's default) until 8 weeks before, then
  linearly up to 0.95 one week before, and 0.95 in the last week. Higher retention means
  shorter intervals, so more of what was learnt is fresh on the day.
- **Intervals.** No review falls due after the interview: a card FSRS would bring back
  later is due at the start of the day before it instead (:func:`review_deadline`).
- **Choice.** A personal ``/quiz`` takes the format's topics first, among weak topics and
  among new questions (:func:`topic_priority`); due reviews still come first.
- **A mock.** In the last three weeks ``/stats`` suggests a mock, once, unless one is
  coming up already.
- **Progress.** ``/stats`` and the App Home show the days left and the format's topics that
  the user has not answered a question of yet.

A past date, a date that cannot be read or an unknown format is a ``UserError``: nothing
is written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Final, Protocol

from bot.core.away import describe_day
from bot.core.bank import QuestionBank
from bot.core.context import Context
from bot.core.dates import NotADate, read_date
from bot.core.errors import UserError
from bot.core.mastery import scores_of
from bot.core.messages import Field, Outgoing, say
from bot.core.mock.model import ACTIVE, FORMATS, LOOP, MOCKS, format_topics
from bot.core.model import User, Workspace
from bot.core.ports import Port, UnitOfWork
from bot.core.srs import DEFAULT_RETENTION

PEAK_RETENTION: Final = 0.95
RAMP_FROM_DAYS: Final = 56  # retention starts rising 8 weeks before the date
RAMP_TO_DAYS: Final = 7  # and is at its peak for the last week
SUGGEST_MOCK_DAYS: Final = 21  # in the last three weeks /stats suggests a mock, once
MAX_AHEAD: Final = timedelta(days=730)
USAGE: Final = (
    "Usage: /goal DATE [loop|technical|product|behavioral] (e.g. /goal 2027-02-10 technical "
    "or /goal feb 10), /goal to see it, /goal off to end it."
)


@dataclass(frozen=True, slots=True)
class Goal:
    """A user's interview: its local date and the mock format it is like."""

    user_id: int
    day: date
    format: str
    mock_suggested_at: datetime | None = None


class GoalRepository(Protocol):
    """One interview date per user; every method is scoped by the user's workspace."""

    def get(self, user: User) -> Goal | None: ...

    def set(self, user: User, day: date, fmt: str, now: datetime) -> Goal:
        """Insert or replace the user's goal (a new date may suggest a mock again)."""
        ...

    def clear(self, user: User) -> bool:
        """Remove the user's goal; False when there was none."""
        ...

    def mark_suggested(self, user: User, now: datetime) -> None: ...


GOALS = Port[GoalRepository]("goals")


# -- what the date changes -------------------------------------------------------------------


def desired_retention(days_left: int | None) -> float:
    """The retention to schedule reviews for with ``days_left`` days to the interview
    (None: no interview ahead). 0.90 from 56 days out, 0.95 from 7 days out, linear
    between; a date that has passed counts as none."""
    if days_left is None or days_left < 0 or days_left >= RAMP_FROM_DAYS:
        return DEFAULT_RETENTION
    if days_left <= RAMP_TO_DAYS:
        return PEAK_RETENTION
    share = (RAMP_FROM_DAYS - days_left) / (RAMP_FROM_DAYS - RAMP_TO_DAYS)
    return round(DEFAULT_RETENTION + (PEAK_RETENTION - DEFAULT_RETENTION) * share, 4)


def ahead(uow: UnitOfWork, user: User, today: date) -> Goal | None:
    """The user's goal when its date is today or later; None otherwise."""
    goal = uow[GOALS].get(user)
    return goal if goal is not None and goal.day >= today else None


def retention_for(ctx: Context) -> float | None:
    """The desired retention for the acting user's reviews now; None without a goal ahead
    (the scheduler's default then)."""
    today = ctx.now.astimezone(ctx.user_zone).date()
    goal = ahead(ctx.uow, ctx.user, today)
    return None if goal is None else desired_retention((goal.day - today).days)


def review_deadline(ctx: Context) -> datetime | None:
    """The latest a review card may fall due while an interview lies ahead: the start of
    the day before it in the user's zone (or of the day itself when that has begun), so an
    interval FSRS stretches past the date brings the card back before it; None without a
    goal ahead or when both have begun."""
    zone = ctx.user_zone
    goal = ahead(ctx.uow, ctx.user, ctx.now.astimezone(zone).date())
    if goal is None:
        return None
    for day in (goal.day - timedelta(days=1), goal.day):
        start = datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
        if start > ctx.now:
            return start
    return None


def topic_priority(ctx: Context) -> Callable[[str], int]:
    """For personal quiz choice: 1 for a topic of the acting user's interview format (while
    the date lies ahead), else 0."""
    goal = ahead(ctx.uow, ctx.user, ctx.now.astimezone(ctx.user_zone).date())
    if goal is None:
        return lambda _topic: 0
    wanted = frozenset(format_topics(goal.format))
    return lambda topic: int(topic in wanted)


def not_covered(
    uow: UnitOfWork, bank: QuestionBank, workspace: Workspace, user: User, goal: Goal
) -> list[str]:
    """The format's topics the bank has questions in and the user has answered none of."""
    answered = scores_of(uow, bank, workspace, user)
    have = set(bank.topics())
    return [t for t in format_topics(goal.format) if t in have and t not in answered]


def _days(n: int) -> str:
    if n == 0:
        return "today"
    return "tomorrow" if n == 1 else f"in {n} days"


def goal_fields(ctx: Context) -> list[Field]:
    """``/stats`` and the App Home: the interview, the days left, the topics not covered."""
    today = ctx.now.astimezone(ctx.user_zone).date()
    goal = ahead(ctx.uow, ctx.user, today)
    if goal is None:
        return []
    left = (goal.day - today).days
    fields = [
        Field("Interview", f"{describe_day(goal.day)} ({goal.format}) · {_days(left)}"),
    ]
    missing = not_covered(ctx.uow, ctx.bank, ctx.workspace, ctx.user, goal)
    fields.append(
        Field("Not covered yet", ", ".join(missing) if missing else "none: every topic answered")
    )
    return fields


def mock_suggestion(ctx: Context) -> str:
    """Once, in the last three weeks before the interview and with no mock coming up: a
    line suggesting one (and it is marked as given); "" otherwise."""
    today = ctx.now.astimezone(ctx.user_zone).date()
    goal = ahead(ctx.uow, ctx.user, today)
    if goal is None or goal.mock_suggested_at is not None:
        return ""
    left = (goal.day - today).days
    if left > SUGGEST_MOCK_DAYS or ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, ACTIVE):
        return ""
    ctx.uow[GOALS].mark_suggested(ctx.user, ctx.now)
    return (
        f"Your interview is {_days(left)}: time for a mock under real conditions. "
        f"/mock schedule tomorrow 18:00 {goal.format} focus=weak"
    )


# -- the command -------------------------------------------------------------------------------


def parse_goal(text: str, today: date) -> tuple[date, str]:
    """(date, format) from ``DATE [FORMAT]``; raises UserError."""
    words = text.split()
    fmt = LOOP
    if len(words) > 1 and words[-1].lower() in FORMATS:
        fmt = words.pop().lower()
    try:
        day = read_date(" ".join(words), today)
        rest = read_date(" ".join(words[:-1]), today) if day is None and len(words) > 1 else None
    except NotADate as error:
        raise UserError(f"{error} {USAGE}") from error
    if rest is not None:
        raise UserError(
            f"{words[-1][:30]!r} is not an interview format: loop, technical, product or "
            f"behavioral. {USAGE}"
        )
    if day is None:
        raise UserError(f"I could not read {' '.join(words)[:60]!r} as a date. {USAGE}")
    if day < today:
        raise UserError(
            f"{describe_day(day)} has passed. Give the interview's date from today "
            f"({describe_day(today)}) on."
        )
    if day - today > MAX_AHEAD:
        raise UserError("An interview date can be at most two years ahead.")
    return day, fmt


def goal_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/goal``: set, show or end the acting user's interview date."""
    today = ctx.now.astimezone(ctx.user_zone).date()
    words = args.split()
    head = words[0].lower() if words else ""
    if head == "off" and len(words) == 1:
        text = (
            "Interview date cleared: reviews and quizzes are back to their usual pace."
            if ctx.uow[GOALS].clear(ctx.user)
            else "You have no interview date set. " + USAGE
        )
    elif not words:
        text = _show(ctx, today)
    else:
        day, fmt = parse_goal(args, today)
        ctx.uow[GOALS].set(ctx.user, day, fmt, ctx.now)
        text = f"Interview date set: {describe_day(day)} ({fmt}), {_days((day - today).days)}. "
        text += _plan((day - today).days)
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]


def _plan(left: int) -> str:
    now, peak = desired_retention(left), PEAK_RETENTION
    return (
        f"Your reviews aim at {now:.0%} recall now, rising to {peak:.0%} in the last week; "
        "/quiz leans to the format's topics and your weak ones; /stats shows what is not "
        "covered yet. /goal off ends it."
    )


def _show(ctx: Context, today: date) -> str:
    goal = ctx.uow[GOALS].get(ctx.user)
    if goal is None:
        return "You have no interview date set. " + USAGE
    if goal.day < today:
        return (
            f"Your interview date, {describe_day(goal.day)}, has passed. Set a new one with "
            "/goal DATE, or /goal off."
        )
    left = (goal.day - today).days
    missing = not_covered(ctx.uow, ctx.bank, ctx.workspace, ctx.user, goal)
    covered = f"Not covered yet: {', '.join(missing)}." if missing else "Every topic has an answer."
    return (
        f"Your interview: {describe_day(goal.day)} ({goal.format}), {_days(left)}. "
        f"Reviews aim at {desired_retention(left):.0%} recall. {covered} /goal off ends it."
    )

"""Channel schedules: when a channel's daily question is posted, and what it draws from.

A schedule is a local time in an IANA zone on some weekdays. The next post is
computed from the local calendar, so 09:00 stays 09:00 local across DST
changes: a time that does not exist on a spring-forward day is posted when the
clock reaches it after the gap (02:30 → 03:30), an ambiguous one on its first
occurrence.

``/studybot`` sub-commands (admins, except ``nudges``)::

    /studybot schedule [TIME] [ZONE] [DAYS] [topics=A,B] [roles=eng|pm|any]
                       [mix=1:2,2:2,3:1] [reveal=DURATION]
    /studybot schedule show | pause | resume | skip [DATE]
    /studybot nudges on | off

Anything left out of ``schedule TIME …`` keeps its current value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Final, Protocol

from pytimeparse.timeparse import timeparse as parse_duration

from bot.core.dates import require_date
from bot.core.errors import UserError
from bot.core.messages import Outgoing
from bot.core.model import Channel, DailyPrompt, Workspace
from bot.core.numbers import whole_number
from bot.core.ports import Port
from bot.core.timezones import parse_zone, zone

DAY_NAMES: Final = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WEEKDAYS: Final = frozenset(range(5))
DEFAULT_TIME: Final = time(9, 0)
DEFAULT_REVEAL: Final = timedelta(hours=8)
MIN_REVEAL: Final = timedelta(minutes=5)
ROLES: Final = ("pm", "eng")
MAX_SKIP_DATES: Final = 60
DATE_HINT: Final = "Try 2026-12-24, tomorrow or friday."
_DAY_SETS: Final = {
    "daily": frozenset(range(7)),
    "everyday": frozenset(range(7)),
    "weekdays": WEEKDAYS,
    "weekends": frozenset({5, 6}),
}
_TIME_FORMATS: Final = ("%H:%M", "%H.%M", "%I:%M%p", "%I%p", "%H")


@dataclass(frozen=True, slots=True)
class Schedule:
    """One channel's daily-question plan. ``next_post_at`` is what the post job looks at."""

    channel_id: int
    workspace_id: int
    local_time: time = DEFAULT_TIME
    timezone: str = "UTC"
    weekdays: frozenset[int] = WEEKDAYS
    topics: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    mix: Mapping[int, int] = field(default_factory=dict)
    reveal_delay: timedelta = DEFAULT_REVEAL
    paused: bool = False
    skip_dates: frozenset[date] = frozenset()
    next_post_at: datetime | None = None

    @property
    def tz(self) -> tzinfo:
        return zone(self.timezone)

    def slot_on(self, day: date) -> datetime:
        """The instant of the post on local date ``day`` (DST-correct, see the module doc)."""
        naive = datetime.combine(day, self.local_time)
        local = naive.replace(tzinfo=self.tz)
        # A wall time in a spring-forward gap round-trips to a later wall time; that is
        # the moment the clock first shows (or passes) the scheduled time.
        return local.astimezone(UTC)

    def posts_on(self, day: date) -> bool:
        return day.weekday() in self.weekdays and day not in self.skip_dates

    def next_slot_after(self, instant: datetime) -> datetime | None:
        """The first post strictly after ``instant``; None when paused or no day qualifies."""
        if self.paused or not self.weekdays:
            return None
        day = instant.astimezone(self.tz).date() - timedelta(days=1)
        for _ in range(MAX_SKIP_DATES + 15):
            if self.posts_on(day):
                slot = self.slot_on(day)
                if slot > instant:
                    return slot
            day += timedelta(days=1)
        return None

    def next_slot_after_date(self, day: date) -> datetime | None:
        """The first post on a local date after ``day`` (for 'reveal before the next post')."""
        if not self.weekdays:
            return None
        current = day + timedelta(days=1)
        for _ in range(MAX_SKIP_DATES + 15):
            if current.weekday() in self.weekdays and current not in self.skip_dates:
                return self.slot_on(current)
            current += timedelta(days=1)
        return None

    def local_date_of(self, instant: datetime) -> date:
        return instant.astimezone(self.tz).date()

    def reveal_at(self, posted_at: datetime, day: date) -> datetime:
        """When a prompt posted at ``posted_at`` for local date ``day`` is revealed: after the
        reveal delay, but always before the channel's next post."""
        reveal = posted_at + self.reveal_delay
        following = self.next_slot_after_date(day)
        if following is not None and following - timedelta(minutes=1) < reveal:
            reveal = max(posted_at, following - timedelta(minutes=1))
        return reveal

    def with_next(self, now: datetime) -> Schedule:
        return replace(self, next_post_at=self.next_slot_after(now))


def default_schedule(channel_id: int, workspace_id: int, timezone: str, now: datetime) -> Schedule:
    """09:00 on weekdays, every topic, in ``timezone``."""
    return Schedule(channel_id, workspace_id, timezone=timezone).with_next(now)


# -- describing --------------------------------------------------------------------------


def describe_days(days: Iterable[int]) -> str:
    chosen = frozenset(days)
    for name, members in (("every day", _DAY_SETS["daily"]), ("weekdays", WEEKDAYS)):
        if chosen == members:
            return name
    if chosen == _DAY_SETS["weekends"]:
        return "weekends"
    return ",".join(DAY_NAMES[d] for d in sorted(chosen)) or "no days"


def _on(days: str) -> str:
    """ "on weekdays", "on mon,thu", but "every day" as it is."""
    return days if days == "every day" else f"on {days}"


def describe_mix(mix: Mapping[int, int]) -> str:
    if not mix:
        return "any"
    return ",".join(f"{d}:{w}" for d, w in sorted(mix.items()))


def describe_duration(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    hours, rest = divmod(minutes, 60)
    if hours and rest:
        return f"{hours}h{rest:02d}m"
    return f"{hours}h" if hours else f"{rest}m"


def describe(schedule: Schedule, now: datetime) -> list[str]:
    """The schedule as lines a person can check at a glance."""
    lines = [
        f"Posts at {schedule.local_time.strftime('%H:%M')} {schedule.timezone} "
        f"{_on(describe_days(schedule.weekdays))}.",
        f"Topics: {', '.join(schedule.topics) or 'all'} · roles: "
        f"{', '.join(schedule.roles) or 'all'} · difficulty mix: {describe_mix(schedule.mix)}",
        f"Answers are revealed {describe_duration(schedule.reveal_delay)} after the post "
        "(always before the next one).",
    ]
    if schedule.paused:
        lines.append("Paused: /studybot schedule resume starts it again.")
    elif schedule.next_post_at is not None:
        local = schedule.next_post_at.astimezone(schedule.tz)
        lines.append(f"Next post: {local.strftime('%a %d %b %Y %H:%M %Z')}.")
    upcoming = sorted(d for d in schedule.skip_dates if d >= schedule.local_date_of(now))
    if upcoming:
        lines.append("Skipping: " + ", ".join(d.strftime("%a %d %b") for d in upcoming) + ".")
    return lines


# -- parsing -----------------------------------------------------------------------------

SCHEDULE_USAGE: Final = (
    "Usage: /studybot schedule [TIME] [ZONE] [DAYS] [topics=A,B] [roles=eng|pm|any] "
    "[mix=1:2,2:2,3:1] [reveal=8h], e.g. /studybot schedule 09:30 Europe/Berlin mon-fri "
    "topics=mig,mps mix=1:2,2:2,3:1 reveal=6h · also: schedule show | pause | resume | "
    "skip [DATE] · nudges on|off"
)


def parse_time_of_day(text: str) -> time | None:
    """``09:30``, ``9:30am``, ``9pm``, ``17`` → a time; None when ``text`` is not one."""
    compact = text.strip().lower().replace(" ", "")
    for fmt in _TIME_FORMATS:
        try:
            parsed = datetime.strptime(compact, fmt)  # noqa: DTZ007 - a wall time, no date
        except ValueError:
            continue
        return parsed.time()
    return None


_FULL_DAY_NAMES: Final = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)


def _day_index(name: str) -> int:
    for index, full in enumerate(_FULL_DAY_NAMES):
        if len(name) >= 3 and full.startswith(name):
            return index
    raise UserError(f"{name!r} is not a day. Use mon, tue, … sun, e.g. mon-fri or mon,wed,fri.")


def parse_days(text: str) -> frozenset[int] | None:
    """``mon-fri``, ``mon,wed,fri``, ``sat-mon``, ``weekdays``, ``daily`` → weekday numbers;
    None when ``text`` does not look like days at all."""
    lowered = text.strip().lower()
    if lowered in _DAY_SETS:
        return _DAY_SETS[lowered]
    if not re.fullmatch(r"[a-z]+(-[a-z]+)?(,[a-z]+(-[a-z]+)?)*", lowered):
        return None
    names = [n for p in lowered.split(",") for n in p.split("-")]
    if not all(len(n) >= 3 and any(f.startswith(n) for f in _FULL_DAY_NAMES) for n in names):
        return None
    days: set[int] = set()
    for part in lowered.split(","):
        if "-" in part:
            first, last = (_day_index(p) for p in part.split("-"))
            span = (last - first) % 7
            days.update((first + i) % 7 for i in range(span + 1))
        else:
            days.add(_day_index(part))
    return frozenset(days)


def parse_mix(text: str) -> dict[int, int]:
    """``1:2,2:2,3:1`` → {difficulty: weight}; ``any`` → no preference."""
    if text.strip().lower() in ("", "any", "none"):
        return {}
    mix: dict[int, int] = {}
    for part in text.split(","):
        match = re.fullmatch(r"\s*([123])\s*:\s*(\d{1,2})\s*", part)
        if not match:
            raise UserError(
                f"{part.strip()!r} is not part of a difficulty mix. Write DIFFICULTY:WEIGHT "
                "pairs with difficulties 1-3, e.g. mix=1:2,2:2,3:1."
            )
        mix[int(match.group(1))] = int(match.group(2))
    if not any(mix.values()):
        raise UserError("A difficulty mix needs at least one weight above 0, e.g. mix=1:1.")
    return {d: w for d, w in mix.items() if w}


def parse_reveal(text: str) -> timedelta:
    seconds = parse_duration(text.strip()) if text.strip() else None
    if seconds is None:
        raise UserError(f"{text!r} is not a duration. Try reveal=8h or reveal=90m.")
    delay = timedelta(seconds=seconds)
    if delay < MIN_REVEAL or delay > timedelta(days=6):  # 0h is a duration, just too short
        raise UserError("The reveal delay must be between 5 minutes and 6 days.")
    return delay


_MERIDIEM: Final = {"am", "pm", "a.m.", "p.m.", "a.m", "p.m"}
_FILLERS: Final = {"at", "on", "every", "each", "post", "posts", "in", "from"}
_PHRASES: Final = {
    ("every", "day"): "daily",
    ("each", "day"): "daily",
    ("every", "weekday"): "weekdays",
    ("every", "weekend"): "weekends",
    ("on", "weekdays"): "weekdays",
    ("at", "weekends"): "weekends",
    ("on", "weekends"): "weekends",
}


def normalise_schedule_words(args: list[str]) -> list[str]:
    """Everyday words for a schedule in its tokens: ``every day at 9:00 PM`` → ``daily
    9:00pm``, ``every monday and friday`` → ``monday,friday``. Settings (``key=value``) and
    anything not recognised pass through unchanged, so the parser can still name them."""
    words = list(args)
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        lowered = word.lower()
        following = words[i + 1].lower() if i + 1 < len(words) else ""
        if (lowered, following) in _PHRASES:
            out.append(_PHRASES[(lowered, following)])
            i += 2
            continue
        if following in _MERIDIEM and re.fullmatch(r"\d{1,2}([:.]\d{2})?", word):
            out.append(word + following.replace(".", ""))
            i += 2
            continue
        if lowered == "and" and out and _day_word(out[-1]) and _day_word(following):
            out[-1] = f"{out[-1]},{_day_word(following)}"
            i += 2
            continue
        if lowered in _FILLERS and "=" not in word:
            i += 1
            continue
        day = _day_word(word)
        if day is not None and out and _day_word(out[-1]) is not None:
            out[-1] = f"{out[-1]},{day}"  # "mon, wed, fri" is one set of days
        else:
            out.append(day or word)
        i += 1
    return out


def _day_word(word: str) -> str | None:
    """``monday``, ``mondays``, ``mon,`` or ``mon-fri`` as day names; None otherwise."""
    bare = word.strip(",").lower()
    if not bare or bare in _DAY_SETS:
        return None
    for candidate in (bare, bare.removesuffix("s")):
        if parse_days(candidate) is not None:
            return candidate
    return None


def parse_schedule_args(
    current: Schedule, args: list[str], known_topics: Iterable[str]
) -> Schedule:
    """Apply ``schedule TIME ZONE DAYS key=value …`` to ``current``; raises UserError with the
    usage for anything it does not understand (nothing is written then). Everyday words are
    read too (``every day at 9:00 PM``, ``every weekday at 9am``)."""
    topics_known = sorted(set(known_topics))
    schedule = current
    for token in normalise_schedule_words(args):
        key, sep, value = token.partition("=")
        key = key.lower()
        if sep:
            if key in ("topics", "topic"):
                names = tuple(t.strip().lower() for t in value.split(",") if t.strip())
                if names in ((), ("all",)):
                    schedule = replace(schedule, topics=())
                    continue
                unknown = [t for t in names if t not in topics_known]
                if unknown:
                    raise UserError(
                        f"Unknown topic {unknown[0]!r}. Topics with questions: "
                        f"{', '.join(topics_known)}."
                    )
                schedule = replace(schedule, topics=tuple(dict.fromkeys(names)))
            elif key in ("roles", "role"):
                roles = tuple(r.strip().lower() for r in value.split(",") if r.strip())
                if roles in ((), ("any",), ("all",)):
                    schedule = replace(schedule, roles=())
                    continue
                if any(r not in ROLES for r in roles):
                    raise UserError("Roles are pm, eng or any, e.g. roles=eng.")
                schedule = replace(schedule, roles=tuple(dict.fromkeys(roles)))
            elif key == "mix":
                schedule = replace(schedule, mix=parse_mix(value))
            elif key == "reveal":
                schedule = replace(schedule, reveal_delay=parse_reveal(value))
            elif key in ("days", "weekdays"):
                days = parse_days(value)
                if days is None:
                    raise UserError(f"{value!r} is not a set of days; try mon-fri or mon,wed,fri.")
                schedule = replace(schedule, weekdays=days)
            else:
                raise UserError(f"I don't know the setting {key!r}. {SCHEDULE_USAGE}")
            continue
        at = parse_time_of_day(token)
        if at is not None:
            schedule = replace(schedule, local_time=at)
            continue
        days = parse_days(token)
        if days is not None:
            schedule = replace(schedule, weekdays=days)
            continue
        if "/" in token or token.upper() in ("UTC", "GMT"):
            schedule = replace(schedule, timezone=parse_zone(token))
            continue
        raise UserError(f"I don't understand {token[:40]!r}. {SCHEDULE_USAGE}")
    return schedule


def parse_skip_date(text: str, schedule: Schedule, now: datetime) -> date:
    """The local date to skip: the next post's date when ``text`` is empty, else a date as
    every command reads one (:func:`bot.core.dates.read_date`): ``2026-12-24``,
    ``tomorrow``, ``friday``, ``dec 24``."""
    local_now = now.astimezone(schedule.tz)
    if not text.strip():
        nxt = schedule.next_post_at or schedule.next_slot_after(now)
        if nxt is None:
            raise UserError("There is no upcoming post to skip.")
        return schedule.local_date_of(nxt)
    return require_date(text, local_now.date(), DATE_HINT)


# -- storage -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DueChannel:
    """A channel whose post is due, with what the post job needs to queue it."""

    schedule: Schedule
    channel: Channel
    platform: str


@dataclass(frozen=True, slots=True)
class NewPrompt:
    channel: Channel
    question_id: str
    local_date: date
    posted_at: datetime
    reveal_at: datetime


@dataclass(frozen=True, slots=True)
class DueReveal:
    prompt: DailyPrompt
    channel: Channel
    platform: str


@dataclass(frozen=True, slots=True)
class RevealStats:
    """How a prompt went: scored answers, how many were right, the fastest right one."""

    answered: int = 0
    correct: int = 0
    fastest: str | None = None
    fastest_at: datetime | None = None


class ScheduleRepository(Protocol):
    """Channel schedules. Reads are scoped by the channel (and so its workspace)."""

    def get(self, channel: Channel) -> Schedule | None: ...

    def save(self, schedule: Schedule) -> Schedule:
        """Create or replace the channel's schedule."""
        ...

    def next_due(self) -> datetime | None:
        """The earliest ``next_post_at`` of any schedule."""
        ...

    def claim_due(self, now: datetime, limit: int) -> list[DueChannel]:
        """Up to ``limit`` schedules due at ``now``, locked for this transaction and skipped
        by other workers (``FOR UPDATE SKIP LOCKED`` on PostgreSQL)."""
        ...

    def set_next(self, updates: Sequence[tuple[int, datetime | None]]) -> None:
        """Set ``next_post_at`` for (channel id, instant) pairs in one go."""
        ...


SCHEDULES = Port[ScheduleRepository]("schedules")


#: The outbox key of a prompt's post, with ``{}`` for the prompt's id (see :func:`post_key`).
POST_KEY = "daily:{}:post"


def post_key(prompt_id: int) -> str:
    """The outbox key of a prompt's post. Its outbox row keeps the post's platform id once
    sent (``DailyPrompt.message_ref``), which replies in the post's thread are matched by."""
    return POST_KEY.format(prompt_id)


def prompt_of_post(key: str) -> int | None:
    """The prompt id in a post's outbox key (:func:`post_key`); None for any other key."""
    head, _, rest = key.partition(":")
    number, _, tail = rest.partition(":")
    return whole_number(number) if head == "daily" and tail == "post" else None


class DailyRepository(Protocol):
    """The daily prompts (``uow[DAILY]``): one at a time for the commands, in bulk for the post
    and reveal jobs, and the outbox in bulk."""

    def for_date(self, channel: Channel, local_date: date) -> DailyPrompt | None:
        """The channel's prompt of ``local_date``, if posted."""
        ...

    def latest(self, channel: Channel, before: datetime) -> DailyPrompt | None:
        """The most recent prompt posted in the channel at or before ``before``."""
        ...

    def get(self, workspace: Workspace, prompt_id: int) -> DailyPrompt | None: ...

    def history(self, channel_ids: Sequence[int]) -> dict[int, list[str]]:
        """Question ids each channel has had, oldest first."""
        ...

    def seen_by_members(self, channel_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        """Per channel, per question: how many of the channel's members (users who answered
        a daily question there) have answered that question anywhere in the workspace."""
        ...

    def add_prompts(self, prompts: Sequence[NewPrompt]) -> list[DailyPrompt]:
        """Create prompts; one that exists already for its channel and date is left out of
        the result (the unique constraint is the final guard)."""
        ...

    def queue(self, messages: Sequence[tuple[int, str, Outgoing]], now: datetime) -> int:
        """Queue (workspace id, platform, message) triples in the outbox, keyed by each
        message's ``key``; returns how many were new."""
        ...

    def by_message_ref(self, channel: Channel, ref: str) -> DailyPrompt | None:
        """The channel's prompt whose post has the platform id ``ref`` (its outbox row's)."""
        ...

    def next_reveal_at(self) -> datetime | None: ...

    def claim_reveals(self, now: datetime, limit: int) -> list[DueReveal]:
        """Unrevealed prompts whose reveal time has come, locked for this transaction."""
        ...

    def reveal_stats(self, prompt_ids: Sequence[int]) -> dict[int, RevealStats]: ...

    def mark_revealed(self, prompt_ids: Sequence[int], now: datetime) -> None: ...

    def clamp_reveals(self, channel: Channel, latest: datetime) -> None:
        """Bring open prompts' reveal times forward to ``latest`` at the latest."""
        ...


DAILY = Port[DailyRepository]("daily")

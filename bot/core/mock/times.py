"""Times for mock interviews: reading WHEN, showing an instant in each person's zone,
weekly availability windows and their overlaps.

WHEN is read with dateparser in the user's zone, relative to the injected clock (never
the wall clock), once the dates in it were read as every command reads dates
(:func:`bot.core.dates.pin_dates`: an impossible one is an error). dateparser gives the
wall time; the instant is then made with
``zoneinfo`` on that very date, so a mock at 10:00 stays 10:00 local across a DST change
(a wall time in a spring-forward gap lands after the gap, like the daily schedule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import TYPE_CHECKING, Final

from pytimeparse.timeparse import timeparse

from bot.core.dates import NotADate, pin_dates
from bot.core.errors import UserError
from bot.core.timezones import zone

# dateparser is slow to import; it is imported where WHEN is read.
if TYPE_CHECKING:
    from dateparser.date import DateDataParser

MAX_AHEAD: Final = timedelta(days=90)
DAY_NAMES: Final = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY_SETS: Final = {
    "daily": frozenset(range(7)),
    "everyday": frozenset(range(7)),
    "weekdays": frozenset(range(5)),
    "weekends": frozenset({5, 6}),
    "weekend": frozenset({5, 6}),
}
_RANGE = re.compile(
    r"^(?P<a>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\s*(?:-|–|to)\s*(?P<b>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)$",
    re.IGNORECASE,
)
_CLOCK = re.compile(r"^(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>am|pm)?$", re.IGNORECASE)
_EXAMPLES: Final = '"tomorrow 3pm", "Fri 15:00" or "2026-12-04 15:00"'


def _parser(zone_name: str, base: datetime) -> DateDataParser:
    from dateparser.date import DateDataParser

    settings = {
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": base,
        "TIMEZONE": zone_name,
        "RETURN_AS_TIMEZONE_AWARE": True,
        "RETURN_TIME_AS_PERIOD": True,
        "PREFER_DAY_OF_MONTH": "first",
        "DATE_ORDER": "DMY",  # as bot.core.dates reads numeric dates
    }
    return DateDataParser(languages=["en"], settings=settings)


def localize(naive: datetime, tz: tzinfo) -> datetime:
    """The instant at which the wall clock in ``tz`` shows ``naive`` (first occurrence when
    ambiguous; just after the gap when it does not exist), in UTC."""
    return naive.replace(tzinfo=tz, fold=0).astimezone(UTC)


_BARE_HOUR = re.compile(r"\bat\s+(\d{1,2})(?![\d:.])(?!\s*(?:am|pm|a\.m|p\.m|h\b|o'?clock))", re.I)
_DAY_NAME = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?"
_THIS_NEXT = re.compile(rf"\b(?:this|next|coming|on)\s+(?={_DAY_NAME}\b)", re.I)
_DAY_HOUR = re.compile(rf"\b(?P<day>{_DAY_NAME}|today|tomorrow)\s+(?P<h>\d{{1,2}})$", re.I)
_RECURRING = re.compile(r"^(?:every|each)\b|\bdaily\b|\bweekly\b", re.I)


def normalise_when(words: str) -> str:
    """Everyday phrasings dateparser does not read, in a form it does: ``next tuesday at
    9`` → ``tuesday 9:00``, ``fri 9`` → ``fri 9:00`` (a bare hour is on the 24-hour clock).
    "next" and "this" before a day name both mean its next occurrence."""
    words = _THIS_NEXT.sub("", words)
    words = _BARE_HOUR.sub(lambda m: f"{m.group(1)}:00", words)
    words = re.sub(r"\bat\s+(?=\d)", "", words, flags=re.I)
    return _DAY_HOUR.sub(lambda m: f"{m['day']} {m['h']}:00", words)


def parse_when(text: str, zone_name: str, now: datetime) -> datetime:
    """The instant ``text`` names, read in ``zone_name`` relative to ``now``.

    Raises UserError when it is not a date and time, is in the past, or is more than
    90 days ahead.
    """
    words = " ".join(text.split())
    if not words:
        raise UserError(f"When? Give a day and a time, for example {_EXAMPLES}.")
    if len(words) > 80:
        raise UserError(f"That is too long for a time. Try {_EXAMPLES}.")
    if _RECURRING.search(words):
        raise UserError(
            f"A mock happens once, so {words!r} can't be its time. Give one day and time, "
            f"for example {_EXAMPLES}."
        )
    tz = zone(zone_name)
    base = now.astimezone(tz).replace(tzinfo=None, microsecond=0)
    try:
        pinned = pin_dates(words, base.date())  # dates are read as every command reads them
    except NotADate as error:
        raise UserError(f"{error} Try {_EXAMPLES}.") from error
    data = _parser(zone_name, base).get_date_data(normalise_when(pinned))
    if data.date_obj is None:
        raise UserError(f"I can't read {words!r} as a time. Try {_EXAMPLES}.")
    if data.period != "time":
        raise UserError(f"{words!r} has no time of day. Add one, for example {_EXAMPLES}.")
    wall = data.date_obj.replace(tzinfo=None, second=0, microsecond=0)
    if re.search(rf"\bnext\s+{_DAY_NAME}\b", words, re.I) and wall.date() == base.date():
        wall += timedelta(days=7)  # "next tuesday", said on a Tuesday, is not today
    when = localize(wall, tz)
    shown = show(when, zone_name)
    if when <= now:
        raise UserError(f"{shown} is in the past. Pick a time after now, e.g. {_EXAMPLES}.")
    if when - now > MAX_AHEAD:
        raise UserError(f"{shown} is more than 90 days ahead. Pick a time within 90 days.")
    return when


NIGHT_ENDS, NIGHT_STARTS = time(7, 0), time(22, 0)


def at_night(instant: datetime, zone_name: str) -> bool:
    """Whether ``instant`` is before 07:00 or from 22:00 on in ``zone_name``."""
    local = instant.astimezone(zone(zone_name)).time()
    return local < NIGHT_ENDS or local >= NIGHT_STARTS


def show(instant: datetime, zone_name: str) -> str:
    """``Fri 04 Dec 2026 15:00 CET`` in ``zone_name``."""
    local = instant.astimezone(zone(zone_name))
    return local.strftime("%a %d %b %Y %H:%M %Z").strip()


def show_in_zones(instant: datetime, people: Iterable[tuple[str, str]]) -> list[str]:
    """One line per (name, zone): the instant as each person's clock shows it."""
    return [f"{name}: {show(instant, zone_name)} ({zone_name})" for name, zone_name in people]


def in_words(delta: timedelta) -> str:
    """``1 hour``, ``24 hours``, ``15 minutes``, ``2 days``."""
    minutes = round(delta.total_seconds() / 60)
    if minutes % 1440 == 0 and minutes >= 2880:
        n, unit = minutes // 1440, "day"
    elif minutes % 60 == 0 and minutes >= 60:
        n, unit = minutes // 60, "hour"
    elif minutes > 120:  # "23 hours 30 minutes", not "1410 minutes"
        hours, rest = divmod(minutes, 60)
        return f"{in_words(timedelta(hours=hours))} {in_words(timedelta(minutes=rest))}"
    else:
        n, unit = minutes, "minute"
    return f"{n} {unit}{'s' * (n != 1)}"


# -- reminder offsets ----------------------------------------------------------------------


def parse_offsets(text: str) -> list[int]:
    """``24h 1h`` or ``24h,1h,15m`` → minutes before the mock, largest first.

    Raises UserError for anything that is not 1–4 durations between 5 minutes and 7 days.
    """
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    if not parts or len(parts) > 4:
        raise UserError("Give 1 to 4 times before the mock, e.g. /mock remind 24h 1h (or off).")
    offsets: set[int] = set()
    for part in parts:
        seconds = timeparse(part)
        if seconds is None:
            raise UserError(f"{part[:20]!r} is not a duration. Try 24h, 1h or 15m.")
        minutes = round(seconds / 60)
        if not 5 <= minutes <= 7 * 1440:
            raise UserError("Reminders go between 5 minutes and 7 days before the mock.")
        offsets.add(minutes)
    return sorted(offsets, reverse=True)


# -- availability windows -------------------------------------------------------------------


def clock_minutes(text: str) -> int:
    match = _CLOCK.match(text.strip())
    if match is None:
        raise UserError(f"{text!r} is not a time of day. Use 18:00 or 6pm.")
    hour, minute = int(match["h"]), int(match["m"] or 0)
    ampm = (match["ampm"] or "").lower()
    if ampm:
        if not 1 <= hour <= 12:
            raise UserError(f"{text!r} is not a time of day. Use 18:00 or 6pm.")
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour == 24 and minute == 0:
        return 1440
    if hour > 23 or minute > 59:
        raise UserError(f"{text!r} is not a time of day. Use 18:00 or 6pm.")
    return hour * 60 + minute


def parse_days(text: str) -> frozenset[int]:
    """``weekdays``, ``weekends``, ``daily``, or day names: ``mon,wed``, ``tue-thu``."""
    word = text.strip().lower()
    if word in _DAY_SETS:
        return _DAY_SETS[word]
    days: set[int] = set()
    for part in word.split(","):
        bounds = part.split("-")
        if len(bounds) > 2:
            raise UserError(f"{text!r} is not a set of days. Use weekdays, mon,wed or tue-thu.")
        indices = []
        for bound in bounds:
            key = bound.strip()[:3]
            if key not in DAY_NAMES:
                raise UserError(
                    f"{text!r} is not a set of days. Use weekdays, weekends, mon,wed or tue-thu."
                )
            indices.append(DAY_NAMES.index(key))
        first, last = indices[0], indices[-1]
        span = range(first, last + 1) if first <= last else [*range(first, 7), *range(last + 1)]
        days.update(span)
    return frozenset(days)


def parse_window(text: str) -> tuple[frozenset[int], int, int]:
    """``DAYS HH:MM-HH:MM`` → (weekdays, start minute, end minute). Raises UserError."""
    head, _, rest = text.strip().partition(" ")
    if not rest:
        raise UserError(
            "Usage: /mock available DAYS FROM-TO, e.g. /mock available weekdays 18:00-20:00."
        )
    days = parse_days(head)
    match = _RANGE.match(rest.strip())
    if match is None:
        raise UserError(f"{rest.strip()[:30]!r} is not a time range. Use 18:00-20:00 or 6pm-8pm.")
    start, end = clock_minutes(match["a"]), clock_minutes(match["b"])
    if start >= 1440:
        raise UserError("A window starts before midnight.")
    if end <= start:
        raise UserError("A window ends after it starts, on the same day (e.g. 18:00-23:30).")
    if end - start < 30:
        raise UserError("A window is at least 30 minutes long.")
    return days, start, end


def describe_window(weekdays: frozenset[int], start: int, end: int, zone_name: str) -> str:
    named = {v: k for k, v in _DAY_SETS.items() if k not in ("everyday", "weekend")}
    days = named.get(weekdays) or ",".join(DAY_NAMES[d] for d in sorted(weekdays))
    return f"{days} {start // 60:02d}:{start % 60:02d}-{end // 60:02d}:{end % 60:02d} ({zone_name})"


def expand(
    weekdays: frozenset[int], start: int, end: int, zone_name: str, since: datetime, until: datetime
) -> Iterator[tuple[datetime, datetime]]:
    """The window's concrete UTC intervals that end after ``since`` and start before
    ``until``, each day's local times made DST-correct for that date."""
    tz = zone(zone_name)
    first = since.astimezone(tz).date() - timedelta(days=1)
    last = until.astimezone(tz).date()
    day = first
    while day <= last:
        if day.weekday() in weekdays:
            a = localize(datetime.combine(day, time()) + timedelta(minutes=start), tz)
            b = localize(datetime.combine(day, time()) + timedelta(minutes=end), tz)
            if b > since and a < until:
                yield max(a, since), min(b, until)
        day += timedelta(days=1)


def overlaps(
    mine: list[tuple[datetime, datetime]], theirs: list[tuple[datetime, datetime]]
) -> list[tuple[datetime, datetime]]:
    """Every non-empty intersection of two lists of intervals, earliest first."""
    found = [
        (max(a1, a2), min(b1, b2))
        for a1, b1 in mine
        for a2, b2 in theirs
        if max(a1, a2) < min(b1, b2)
    ]
    return sorted(found)


def without(
    spans: list[tuple[datetime, datetime]], days: Iterable[tuple[date, date]], zone_name: str
) -> list[tuple[datetime, datetime]]:
    """``spans`` less the local dates ``first``..``last`` (both included) of each of ``days``,
    in ``zone_name``: what is left of a person's availability around their time away."""
    tz = zone(zone_name)
    for first, last in days:
        a = localize(datetime.combine(first, time()), tz)
        b = localize(datetime.combine(last + timedelta(days=1), time()), tz)
        spans = [
            part
            for start, end in spans
            for part in ((start, min(end, a)), (max(start, b), end))
            if part[0] < part[1]
        ]
    return spans


def ceil_quarter(instant: datetime) -> datetime:
    """The next quarter hour at or after ``instant`` (UTC quarters are local quarters in
    every zone whose offset is whole quarter hours, which is all of them in use)."""
    base = instant.replace(second=0, microsecond=0)
    if base < instant:
        base += timedelta(minutes=1)
    extra = (-base.minute) % 15
    return base + timedelta(minutes=extra)


def utc_offset_hours(zone_name: str, at: datetime) -> float:
    offset = at.astimezone(zone(zone_name)).utcoffset() or timedelta(0)
    return offset.total_seconds() / 3600


def local_date(instant: datetime, zone_name: str) -> date:
    return instant.astimezone(zone(zone_name)).date()

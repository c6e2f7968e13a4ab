"""Calendar dates as people type them: the one reader of dates.

Every command that takes a date reads it here: ``/away``, ``/goal``, ``/studybot schedule
skip``, ``/studybot season start`` with :func:`read_date` (or :func:`require_date`), and a
mock's WHEN pins the dates in it with :func:`pin_dates` before it reads the time of day. So
a date means the same thing in every command:

- an ISO date (``2026-12-24``, also ``2026/12/24``) is read exactly;
- a numeric date is **day first**, whatever the user's zone: ``24/12``, ``24/12/2026``,
  ``24/12/26``, and with dots or dashes when it has a year (``24.12.2026``; ``15.30`` is a
  time of day);
- a month's name with a day (``dec 24``, ``24th of december 2026``) is that day;
- a date without a year is the next such day from the user's today on;
- a date that does not exist (``2026-13-01``, ``12/25``, ``feb 30``) is an error
  (:class:`NotADate`), never a guess, and so is a weekday that the date is not on;
- other words (``tomorrow``, ``friday``, ``in 3 days``) are read by dateparser, in English,
  relative to the user's own today, later dates preferred.

dateparser itself reads ``2027-13-01`` as 13 January and ``10/02/2027`` month first but
``25/12`` day first: it swaps whatever cannot be a month. That is why nothing reaches it
before the explicit forms were read here.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import Final

from bot.core.errors import UserError

_ISO: Final = re.compile(r"(?<![\d/.-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d/.-]*\d)")
# Day first: 24/12, 24/12/2026, 24/12/26; with dots or dashes only with a year (24.12.2026),
# since 15.30 is a time of day.
_NUMERIC: Final = re.compile(
    r"(?<![\d/.:-])(\d{1,2})(?:/(\d{1,2})(?:/(\d{4}|\d{2}))?|([.-])(\d{1,2})\4(\d{4}|\d{2}))"
    r"(?![\d/.:-]*\d)"
)
_MONTHS: Final = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_MONTH: Final = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_DAY: Final = r"\d{1,2}(?:st|nd|rd|th)?(?![\d:.]|\s*(?:am|pm|a\.m|p\.m|h\b|o'?clock))"
# dec 24, december 24th, 24 dec, 24th of december; each with a year after it or not
_NAMED: Final = re.compile(
    rf"\b(?:(?P<m1>{_MONTH})\s+(?P<d1>{_DAY})|(?<![\d:./-])(?P<d2>{_DAY})\s+(?:of\s+)?"
    rf"(?P<m2>{_MONTH}))(?:,?\s+(?P<y>\d{{4}})\b(?!:))?",
    re.IGNORECASE,
)
_WEEKDAYS: Final = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ONE: Final = re.compile(
    r"(?:(?P<weekday>[a-z]{3,9})\.?,?\s+)?(?P<iso>\d{4}-\d{2}-\d{2})", re.IGNORECASE
)


class NotADate(UserError):
    """Words that name a date that does not exist, such as ``2026-13-01``."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"{text[:40]!r} is not a date: {reason}.")
        self.text = text
        self.reason = reason


def _exact(text: str, year: int, month: int, day: int) -> date:
    """The date ``year-month-day``; NotADate (naming ``text``) when there is no such day."""
    if year < 1:
        raise NotADate(text, "there is no year 0")
    if not 1 <= month <= 12:
        raise NotADate(text, f"there is no month {month}")
    try:
        return date(year, month, day)
    except ValueError:
        first = date(year, month, 1)
        raise NotADate(text, f"{first:%B %Y} has no day {day}") from None


def _iso(match: re.Match[str]) -> date:
    year, _sep, month, day = match.groups()
    return _exact(match[0], int(year), int(month), int(day))


def _year(text: str) -> int:
    return int(text) + (2000 if len(text) == 2 else 0)


def _next(text: str, month: int, day: int, today: date) -> date:
    """The next ``day`` of ``month`` from ``today`` on (a date without a year)."""
    year = today.year if (month, day) >= (today.month, today.day) else today.year + 1
    return _exact(text, year, month, day)


def _numeric(match: re.Match[str], today: date) -> date:
    day, month, year, _sep, dotted_month, dotted_year = match.groups()
    month, year = month or dotted_month, year or dotted_year
    try:
        if year is None:
            return _next(match[0], int(month), int(day), today)
        return _exact(match[0], _year(year), int(month), int(day))
    except NotADate as error:
        raise NotADate(match[0], f"{error.reason} (numeric dates are day first: 25/12)") from None


def _named(match: re.Match[str], today: date) -> date:
    month = _MONTHS[(match["m1"] or match["m2"]).lower().rstrip(".")]
    day = int(re.sub(r"\D", "", match["d1"] or match["d2"]))
    if match["y"] is None:
        return _next(match[0], month, day, today)
    return _exact(match[0], int(match["y"]), month, day)


def pin_dates(text: str, today: date) -> str:
    """``text`` with every explicit date in it written as ISO ``YYYY-MM-DD``, which
    dateparser reads exactly: ISO dates, numeric ones (day first) and ones with a month's
    name; one without a year is the next such day from ``today`` on. Raises NotADate for a
    date that does not exist."""
    text = _ISO.sub(lambda m: _iso(m).isoformat(), text)
    text = _NUMERIC.sub(lambda m: _numeric(m, today).isoformat(), text)
    return _NAMED.sub(lambda m: _named(m, today).isoformat(), text)


def read_date(text: str, today: date) -> date | None:
    """The one local date ``text`` names, relative to ``today`` (the user's own); None when
    it names none. Raises NotADate when it names a date that does not exist, or gives a
    weekday that the date is not on."""
    words = " ".join(text.split())
    if not words:
        return None
    pinned = pin_dates(words, today)
    one = _ONE.fullmatch(pinned)
    if one is not None:
        day = date.fromisoformat(one["iso"])
        weekday = (one["weekday"] or "").lower()
        if weekday and weekday[:3] in _WEEKDAYS and _WEEKDAYS.index(weekday[:3]) != day.weekday():
            raise NotADate(words, f"{day:%d %b %Y} is a {day:%A}")
        return day if not weekday or weekday[:3] in _WEEKDAYS else None
    if pinned != words:
        return None  # a date with other words around it is not one date
    import dateparser  # imported here: it is slow to load and only a few commands need it

    parsed = dateparser.parse(
        words,
        languages=["en"],
        settings={
            "DATE_ORDER": "DMY",  # as the numeric dates above, should one get this far
            "PREFER_DATES_FROM": "future",
            "RELATIVE_BASE": datetime.combine(today, time()),
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    return None if parsed is None else parsed.date()


def require_date(text: str, today: date, hint: str) -> date:
    """:func:`read_date`, with a UserError that ends with ``hint`` when ``text`` is no date."""
    try:
        day = read_date(text, today)
    except NotADate as error:
        raise UserError(f"{error} {hint}") from error
    if day is None:
        raise UserError(f"{text.strip()[:40]!r} is not a date. {hint}")
    return day

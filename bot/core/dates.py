"""Calendar dates as people type them: the one reader of dates.

Every command that takes a date reads it here: ``/away``, ``/goal``, ``/studybot schedule
skip``, ``/studybot season start`` with :func:`read_date` (or :func:`require_date`), and a
mock's WHEN pins the dates in it with :func:`pin_dates` before it reads the time of day. So
a date means the same thing in every command:

- an ISO date (``2026-12-24``, also ``2026/12/24``) is read exactly, and one that does not
  exist (``2026-13-01``, ``2027-02-30``) is an error (:class:`NotADate`), never a guess;
- words (``tomorrow``, ``friday``, ``dec 24``, ``in 3 days``) are read by dateparser, in
  English, relative to the user's own today, later dates preferred.

dateparser itself reads ``2027-13-01`` as 13 January: a month that cannot be one is taken
for the day. That is why nothing reaches it before the explicit forms were read here.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import Final

from bot.core.errors import UserError

_ISO: Final = re.compile(r"(?<![\d/.-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d/.-]*\d)")


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


def pin_dates(text: str) -> str:
    """``text`` with every explicit date in it written as ISO ``YYYY-MM-DD``, which
    dateparser reads exactly; raises NotADate for one that does not exist."""
    return _ISO.sub(lambda m: _iso(m).isoformat(), text)


def read_date(text: str, today: date) -> date | None:
    """The one local date ``text`` names, relative to ``today`` (the user's own); None when
    it names none. Raises NotADate when it names a date that does not exist."""
    words = " ".join(text.split())
    if not words:
        return None
    whole = _ISO.fullmatch(words)
    if whole is not None:
        return _iso(whole)
    if _ISO.search(words):
        pin_dates(words)  # an impossible date among the words is named as such
        return None  # an ISO date with other words is not one date
    import dateparser  # imported here: it is slow to load and only a few commands need it

    parsed = dateparser.parse(
        words,
        languages=["en"],
        settings={
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

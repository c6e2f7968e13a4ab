"""IANA time zones: validation with a friendly error, and one cached lookup."""

from __future__ import annotations

from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from rapidfuzz import process

from bot.core.errors import UserError


@cache
def _known() -> frozenset[str]:
    return frozenset(available_timezones())


@cache
def zone(name: str) -> ZoneInfo:
    """The zone called ``name``; falls back to UTC for a stored name that no longer exists."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def parse_zone(text: str) -> str:
    """Validate a zone typed by a user and return its canonical name.

    Raises UserError naming the closest real zone when ``text`` is not one.
    """
    name = text.strip()
    if not name:
        raise UserError("Give a time zone, for example /tz Europe/Berlin.")
    if len(name) > 64:
        raise UserError("That is not a time zone. Use an IANA name such as America/New_York.")
    by_fold = {z.casefold(): z for z in _known()}
    found = by_fold.get(name.casefold())
    if found is not None:
        return found
    match = process.extractOne(name, sorted(_known()), score_cutoff=60)
    hint = f" Did you mean {match[0]}?" if match else ""
    raise UserError(
        f"{name!r} is not a time zone I know.{hint} Use an IANA name such as Asia/Tokyo."
    )

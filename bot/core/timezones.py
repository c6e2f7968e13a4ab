"""IANA time zones: validation with a friendly error, and one cached lookup."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from rapidfuzz import process

from bot.core.errors import UserError

# Abbreviations people type for a zone, and the city zone that keeps that region's clock
# (daylight saving included). Only EST, MST and HST are zones in the tz database as well,
# and they are fixed offsets all year.
ABBREVIATIONS: Final = {
    "EST": ("America/New_York", "US Eastern time"),
    "EDT": ("America/New_York", "US Eastern time"),
    "CST": ("America/Chicago", "US Central time"),
    "CDT": ("America/Chicago", "US Central time"),
    "MST": ("America/Denver", "US Mountain time"),
    "MDT": ("America/Denver", "US Mountain time"),
    "PST": ("America/Los_Angeles", "US Pacific time"),
    "PDT": ("America/Los_Angeles", "US Pacific time"),
    "AKST": ("America/Anchorage", "Alaska time"),
    "AKDT": ("America/Anchorage", "Alaska time"),
    "HST": ("Pacific/Honolulu", "Hawaii time"),
    "BST": ("Europe/London", "UK time"),
    "CEST": ("Europe/Berlin", "Central European time"),
    "EEST": ("Europe/Athens", "Eastern European time"),
    "WEST": ("Europe/Lisbon", "Western European time"),
    "IST": ("Asia/Kolkata", "India time"),
    "JST": ("Asia/Tokyo", "Japan time"),
    "KST": ("Asia/Seoul", "Korea time"),
    "SGT": ("Asia/Singapore", "Singapore time"),
    "HKT": ("Asia/Hong_Kong", "Hong Kong time"),
    "AEST": ("Australia/Sydney", "Australian Eastern time"),
    "AEDT": ("Australia/Sydney", "Australian Eastern time"),
    "NZST": ("Pacific/Auckland", "New Zealand time"),
    "NZDT": ("Pacific/Auckland", "New Zealand time"),
}


def _observes_dst(name: str, year: int) -> bool:
    tz = zone(name)
    january = datetime(year, 1, 15, tzinfo=UTC).astimezone(tz).utcoffset()
    july = datetime(year, 7, 15, tzinfo=UTC).astimezone(tz).utcoffset()
    return january != july


def zone_warning(name: str, now: datetime) -> str | None:
    """A word of caution about a valid zone ``name`` that is a fixed-offset abbreviation
    (EST, MST) while the region it names changes its clocks; None for a city zone."""
    found = ABBREVIATIONS.get(name.upper())
    if found is None:
        return None
    city, region = found
    if _observes_dst(name, now.year) or not _observes_dst(city, now.year):
        return None
    offset = datetime(now.year, 1, 15, tzinfo=UTC).astimezone(zone(name)).strftime("%z")
    return (
        f"Note: {name} is a fixed UTC{offset[:3]}:{offset[3:]} all year, with no daylight "
        f"saving. For {region} as clocks show it, use /tz {city}."
    )


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
    abbreviation = ABBREVIATIONS.get(name.upper())
    if abbreviation is not None:
        city, region = abbreviation
        raise UserError(
            f"{name!r} is an abbreviation, not a zone name. For {region}, use {city} "
            "(it follows daylight saving)."
        )
    match = process.extractOne(name, sorted(_known()), score_cutoff=60)
    hint = f" Did you mean {match[0]}?" if match else ""
    raise UserError(
        f"{name!r} is not a time zone I know.{hint} Use an IANA name such as Asia/Tokyo."
    )

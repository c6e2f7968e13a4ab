"""Leaderboard seasons: monthly by default, or as long as an admin sets, each closing with a
final board (``bot.core.season_board``) while all time goes on.

A season is a row: ``[starts_at, ends_at)`` in UTC, both a local midnight in the
workspace's zone, and the length of the season after it. Seasons follow each other
without gaps; the next one is created when an answer, a board or the closing job first
needs it, so a restart or a second worker finds the same chain (the name is unique per
workspace). A season's points are the ``s:NAME`` aggregates, added with the week, month
and all-time ones in the answer's transaction; the first season of a workspace starts on
the 1st of the month and takes over that month's points so far.

``/studybot season`` shows the current season; admins change it:
``/studybot season length 2w`` (from the next season on) and
``/studybot season start DATE`` (the current season ends that day, the next starts then).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Protocol

from bot.core.context import Context
from bot.core.daily.schedule import DATE_HINT
from bot.core.dates import require_date
from bot.core.errors import UserError
from bot.core.messages import Card, Delivery, Outgoing
from bot.core.model import Workspace
from bot.core.ports import Port, UnitOfWork
from bot.core.timezones import zone

DEFAULT_LENGTH = "1m"
MAX_MONTHS = 12
MAX_WEEKS = 26
SEASON_USAGE = (
    "Usage: /studybot season (show) · /studybot season length 1m|3m|2w (admins: from the next "
    "season on) · /studybot season start DATE (admins: the current season ends that day)"
)
_LENGTH = re.compile(r"^(\d{1,3})\s*(m|mo|mos|month|months|w|wk|wks|week|weeks)$")


@dataclass(frozen=True, slots=True)
class Season:
    id: int
    workspace_id: int
    name: str
    starts_at: datetime
    ends_at: datetime
    next_length: str
    closed_at: datetime | None

    @property
    def key(self) -> str:
        """The aggregate key of the season's points."""
        return f"s:{self.name}"


class SeasonRepository(Protocol):
    def latest(self, workspace: Workspace) -> Season | None:
        """The season that starts last."""
        ...

    def containing(self, workspace: Workspace, when: datetime) -> Season | None: ...

    def named(self, workspace: Workspace, name: str) -> Season | None: ...

    def listing(self, workspace: Workspace, limit: int) -> list[Season]:
        """The seasons, newest first."""
        ...

    def add(
        self,
        workspace: Workspace,
        name: str,
        starts_at: datetime,
        ends_at: datetime,
        next_length: str,
    ) -> tuple[Season, bool]:
        """The season named ``name``, created unless another transaction did first (then
        that one, and False)."""
        ...

    def copy_points(self, workspace: Workspace, from_key: str, to_key: str) -> None:
        """Copy the aggregates of period ``from_key`` to ``to_key`` (rows already there stay)."""
        ...

    def change(
        self, season: Season, *, ends_at: datetime | None = None, next_length: str | None = None
    ) -> Season: ...

    def next_due(self) -> datetime | None:
        """The earliest end of a season not closed yet."""
        ...

    def due(self, now: datetime, limit: int) -> list[tuple[Workspace, Season]]:
        """Seasons that ended by ``now`` and are not closed, earliest first."""
        ...

    def close(self, season: Season, now: datetime) -> bool:
        """Mark the season closed; False when another worker closed it first."""
        ...

    def workspaces_without_season(self) -> list[Workspace]:
        """Workspaces with a scheduled channel and no season yet."""
        ...


SEASONS = Port[SeasonRepository]("seasons")


# -- lengths and names -------------------------------------------------------------------------


def parse_length(text: str) -> str:
    """``1m``, ``3 months``, ``2w``, ``6 weeks`` → ``3m`` / ``2w``; raises UserError."""
    found = _LENGTH.match(text.strip().lower())
    if found is None:
        raise UserError(
            f"{text[:30]!r} is not a season length. Give months or weeks: 1m, 3m, 2w, 6w."
        )
    count, unit = int(found.group(1)), found.group(2)[0]
    limit = MAX_MONTHS if unit == "m" else MAX_WEEKS
    if not 1 <= count <= limit:
        raise UserError(f"A season lasts 1 to {limit} {'months' if unit == 'm' else 'weeks'}.")
    return f"{count}{unit}"


def length_words(length: str) -> str:
    count, unit = int(length[:-1]), length[-1]
    word = "month" if unit == "m" else "week"
    return f"{count} {word}{'s' * (count != 1)}"


def add_length(day: date, length: str) -> date:
    """The day a season of ``length`` starting on ``day`` ends (exclusive): whole months
    keep the day of the month, clamped to the month's last day."""
    count, unit = int(length[:-1]), length[-1]
    if unit == "w":
        return day + timedelta(weeks=count)
    months = day.year * 12 + day.month - 1 + count
    year, month = divmod(months, 12)
    month += 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def season_name(start: date, length: str) -> str:
    """``2026-12`` for a season of whole months from the 1st, else its start date."""
    if start.day == 1 and length.endswith("m"):
        return f"{start.year}-{start.month:02d}"
    return start.isoformat()


def _midnight(day: date, tz: tzinfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)


def local_span(season: Season, tz: tzinfo) -> tuple[date, date]:
    """The season's first and last local day."""
    return (
        season.starts_at.astimezone(tz).date(),
        (season.ends_at.astimezone(tz) - timedelta(seconds=1)).date(),
    )


def span_words(season: Season, tz: tzinfo) -> str:
    first, last = local_span(season, tz)
    return f"{first:%d %b %Y} – {last:%d %b %Y}"


# -- the chain ---------------------------------------------------------------------------------


def _start(uow: UnitOfWork, workspace: Workspace, day: date, length: str, after: str) -> Season:
    tz = zone(workspace.timezone)
    name = season_name(day, length)
    season, _created = uow[SEASONS].add(
        workspace, name, _midnight(day, tz), _midnight(add_length(day, length), tz), after
    )
    return season


def season_at(uow: UnitOfWork, workspace: Workspace, when: datetime) -> Season | None:
    """The season that ``when`` falls in, starting the seasons that lead up to it where
    they do not exist yet; None for an instant before the workspace's first season."""
    latest = uow[SEASONS].latest(workspace)
    if latest is None:
        first = when.astimezone(zone(workspace.timezone)).date().replace(day=1)
        latest, created = uow[SEASONS].add(
            workspace,
            season_name(first, DEFAULT_LENGTH),
            _midnight(first, zone(workspace.timezone)),
            _midnight(add_length(first, DEFAULT_LENGTH), zone(workspace.timezone)),
            DEFAULT_LENGTH,
        )
        if created:  # the month's points so far belong to its season
            month = f"m:{first.year}-{first.month:02d}"
            uow[SEASONS].copy_points(workspace, month, latest.key)
    if when < latest.starts_at:
        return uow[SEASONS].containing(workspace, when)
    for _ in range(10_000):
        if when < latest.ends_at:
            return latest
        day = latest.ends_at.astimezone(zone(workspace.timezone)).date()
        latest = _start(uow, workspace, day, latest.next_length, latest.next_length)
    raise RuntimeError("season chain does not reach the instant")  # pragma: no cover


# -- /studybot season --------------------------------------------------------------------------


def _reply(ctx: Context, title: str, lines: list[str]) -> list[Outgoing]:
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            Card(title=title, blocks=("\n".join(lines),)),
            channel=ctx.channel.external_id,
        )
    ]


def describe_season(season: Season, tz: tzinfo) -> list[str]:
    end = season.ends_at.astimezone(tz)
    return [
        f"Season {season.name}: {span_words(season, tz)}; it ends {end:%a %d %b %Y %H:%M} "
        f"({tz}), when its final board is posted in the scheduled channels.",
        f"Seasons after it last {length_words(season.next_length)}. All-time points go on.",
    ]


def season_setting(ctx: Context, words: list[str]) -> list[Outgoing]:
    """``/studybot season [show | length L | start DATE]``."""
    verb = words[0].lower() if words else "show"
    tz = ctx.workspace_zone
    if verb == "show" and len(words) <= 1:
        current = season_at(ctx.uow, ctx.workspace, ctx.now)
        assert current is not None  # now is never before the first season
        return _reply(ctx, "Leaderboard season", describe_season(current, tz))
    if verb not in ("length", "start") or len(words) < 2:
        raise UserError(SEASON_USAGE)
    if not ctx.is_admin:
        raise UserError("Only workspace admins can change the seasons.")
    current = season_at(ctx.uow, ctx.workspace, ctx.now)
    assert current is not None
    if verb == "length":
        length = parse_length(" ".join(words[1:]))
        changed = ctx.uow[SEASONS].change(current, next_length=length)
        return _reply(
            ctx,
            "Season length saved",
            [
                f"From the next season on, seasons last {length_words(length)}; "
                f"season {current.name} keeps its end.",
                *describe_season(changed, tz),
            ],
        )
    local_now = ctx.now.astimezone(tz)
    day = require_date(" ".join(words[1:]), local_now.date(), DATE_HINT)
    if day <= local_now.date():
        raise UserError(
            f"{day.isoformat()} is not after today: a new season can start from tomorrow on."
        )
    first, _last = local_span(current, tz)
    if day <= first:
        raise UserError(f"Season {current.name} starts on {first.isoformat()}; pick a later day.")
    if day > local_now.date() + timedelta(days=366):
        raise UserError("A season can start at most a year ahead.")
    changed = ctx.uow[SEASONS].change(current, ends_at=_midnight(day, tz))
    return _reply(
        ctx,
        "Season start saved",
        [
            f"Season {current.name} now ends on {day:%a %d %b %Y}; the next season starts then "
            f"and lasts {length_words(current.next_length)}.",
            *describe_season(changed, tz),
        ],
    )

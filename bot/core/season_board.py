"""Season boards: ``/leaderboard season [NAME]``, ``/leaderboard seasons``, and the final
board of each season, posted once in every scheduled channel when the season ends.

The closing job claims a season by setting its ``closed_at`` (an update that only one
worker can make), starts the next season, and queues the final board under one outbox
key per channel and season: two workers, a retry or a restart post it exactly once.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.core import leaderboard
from bot.core.context import Context, Services
from bot.core.errors import UserError
from bot.core.leaderboard import (
    KINDS,
    LEADERBOARD,
    TOP,
    BoardQuery,
    Period,
    board_message,
    parse_query,
    people_board,
)
from bot.core.messages import OUTBOX, Card, Delivery, Outgoing
from bot.core.model import Workspace
from bot.core.ports import UnitOfWork
from bot.core.seasons import SEASONS, Season, season_at, span_words
from bot.core.timezones import zone

SEASON_NAME = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")
SEASON_BOARD_USAGE = (
    "Usage: /leaderboard season [YYYY-MM] [team NAME | teams] (a season's board; the current "
    "one without a name) · /leaderboard seasons (the list)"
)
LISTED = 24


def season_period(season: Season, tz: ZoneInfo) -> Period:
    return Period(
        "season",
        season.key,
        f"season {season.name} ({span_words(season, tz)})",
        season.starts_at,
        season.ends_at,
    )


def _known(ctx: Context) -> str:
    names = [s.name for s in ctx.uow[SEASONS].listing(ctx.workspace, 6)]
    return ", ".join(names) if names else "none yet"


def season_board(ctx: Context, words: list[str]) -> list[Outgoing]:
    """``/leaderboard season [NAME|current] [team NAME | teams]``."""
    rest = list(words)
    season: Season | None
    if rest and SEASON_NAME.match(rest[0]):
        name = rest.pop(0)
        season = ctx.uow[SEASONS].named(ctx.workspace, name)
        if season is None:
            raise UserError(
                f"There is no season {name}. Seasons so far: {_known(ctx)}. "
                "/leaderboard seasons lists them."
            )
    else:
        if rest and rest[0].lower() in ("current", "now"):
            rest.pop(0)
        elif rest and rest[0].lower() not in ("team", "teams"):
            raise UserError(
                f"{rest[0][:30]!r} is not a season: give its name, such as 2026-11. "
                + SEASON_BOARD_USAGE
            )
        season = season_at(ctx.uow, ctx.workspace, ctx.now)
    if rest and rest[0].lower() in KINDS:
        raise UserError(SEASON_BOARD_USAGE)
    query = parse_query(" ".join(rest)) if rest else BoardQuery()
    assert season is not None  # now is never before the first season
    return [board_message(ctx, query, season_period(season, ctx.workspace_zone))]


def season_list(ctx: Context) -> list[Outgoing]:
    """``/leaderboard seasons``: each season with its days and its leader."""
    current = season_at(ctx.uow, ctx.workspace, ctx.now)
    tz = ctx.workspace_zone
    lines = []
    for season in ctx.uow[SEASONS].listing(ctx.workspace, LISTED):
        first = leaderboard.leaders(ctx.uow, ctx.workspace, season.key)
        if current is not None and season.id == current.id:
            state, lead = "current", "leading"
        elif season.starts_at > ctx.now:
            state, lead = "next", "leading"
        else:
            state, lead = "ended", "won by"
        who = f" · {lead} {first}" if first else " · no points"
        lines.append(f"{season.name} · {span_words(season, tz)} · {state}{who}")
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            Card(
                title="Leaderboard seasons",
                blocks=("\n".join(lines),),
                footer="/leaderboard season NAME shows one; all-time points never reset.",
            ),
            channel=ctx.channel.external_id,
        )
    ]


def leaderboard_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/leaderboard …``: seasons here, the week, month and all-time boards in
    :mod:`bot.core.leaderboard`."""
    words = args.split()
    head = words[0].lower() if words else ""
    if head == "seasons":
        if len(words) > 1:
            raise UserError(SEASON_BOARD_USAGE)
        return season_list(ctx)
    if head == "season":
        return season_board(ctx, words[1:])
    return leaderboard.leaderboard_command(ctx, args)


# -- the final board -------------------------------------------------------------------------


class SeasonEndJob:
    """When a season ends, close it, start the next one and post its final board."""

    name = "season-end"
    batch = 50

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[SEASONS].next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        for workspace in uow[SEASONS].workspaces_without_season():
            season_at(uow, workspace, now)
        closed = 0
        while closed < self.batch:
            due = uow[SEASONS].due(now, self.batch - closed)
            if not due:
                break
            for workspace, season in due:
                closed += 1
                if uow[SEASONS].close(season, now):
                    following = season_at(uow, workspace, now)
                    post_final_board(uow, services, workspace, season, following, now)
        return closed


def post_final_board(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    season: Season,
    following: Season | None,
    now: datetime,
) -> int:
    """Queue ``season``'s final board in every scheduled channel; how many were queued."""
    tz = zone(workspace.timezone)
    period = season_period(season, tz)
    board = people_board(uow, workspace, period, None, None)
    if not board.rows:
        return 0
    rows = board.rows[:TOP]
    blocks = ["\n".join(f"{r.rank}. {r.name} · {r.points} pts" for r in rows)]
    top_teams = leaderboard.top_team_line(uow, workspace, period.key)
    if top_teams:
        blocks.append(top_teams)
    nxt = f"Season {following.name} starts now" if following is not None else "A new season starts"
    attachments, _note = leaderboard.chart(
        services,
        f"Season {season.name}",
        [r.name for r in rows],
        [float(r.points) for r in rows],
        f"season-{season.name}.png",
    )
    queued = 0
    for channel in uow[LEADERBOARD].scheduled_channels(workspace):
        message = Outgoing(
            Delivery.CHANNEL,
            channel.external_id,
            Card(
                title=f"Season {season.name}: final board",
                blocks=(f"{span_words(season, tz)}.", *blocks),
                footer=f"{nxt}: /leaderboard season. Past seasons: /leaderboard seasons. "
                "All-time points go on.",
            ),
            attachments=attachments,
            key=f"season:{channel.id}:{season.name}",
            tags={"season": season.name},
        )
        if uow[OUTBOX].add(workspace, workspace.platform, message, message.key or "", now):
            queued += 1
    return queued

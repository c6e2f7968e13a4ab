"""Leaderboards: people, one team's members, or teams, this week, this month or all time.

Points come only from the first scored attempt at a daily prompt or a live
question's winner, and only answers that earned points appear on the boards (the rules:
``bot.core.answers``). They are added to per-period aggregates (ISO week and month in the
workspace's zone, and all time) in the same transaction as the attempt, so a
board is an index lookup, never a scan of attempts. Team boards count the
points of a team's current members. Ties share a rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Protocol

from bot.core.context import Context, Services
from bot.core.errors import UserError
from bot.core.messages import OUTBOX, Attachment, Card, Delivery, Outgoing
from bot.core.model import Channel, User, Workspace
from bot.core.ports import Port, UnitOfWork
from bot.core.seasons import season_at
from bot.core.teams import TEAMS, Team, board_team
from bot.core.timezones import zone

TOP = 10
RECAP_TOP = 5
USAGE = (
    "Usage: /leaderboard [week|month|all] [team NAME | teams] · /leaderboard season [YYYY-MM] "
    "[team NAME | teams] · /leaderboard seasons"
)
KINDS = ("week", "month", "all")


@dataclass(frozen=True, slots=True)
class Period:
    """One board period: ``key`` is what the aggregates are stored under."""

    kind: str
    key: str
    label: str
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True, slots=True)
class BoardRow:
    user_id: int
    name: str
    points: int
    answers: int
    rank: int = 0


@dataclass(frozen=True, slots=True)
class TeamScore:
    team_id: int
    name: str
    members: int
    active: int
    points: int
    rank: int = 0

    @property
    def per_active(self) -> float:
        return self.points / self.active if self.active else 0.0


@dataclass(frozen=True, slots=True)
class BoardQuery:
    """What ``/leaderboard`` was asked for."""

    period: str = "week"
    team: str | None = None
    teams: bool = False


class LeaderboardRepository(Protocol):
    def add(
        self, workspace_id: int, user_id: int, periods: list[str], points: int, answers: int
    ) -> None:
        """Add ``points`` and ``answers`` to the user's aggregate of every period, atomically."""
        ...

    def top(
        self, workspace: Workspace, period: str, limit: int, team_id: int | None = None
    ) -> list[BoardRow]:
        """The highest rows of the period (of one team's members when ``team_id``)."""
        ...

    def row(self, workspace: Workspace, period: str, user: User) -> BoardRow | None: ...

    def count_above(
        self, workspace: Workspace, period: str, points: int, team_id: int | None = None
    ) -> int:
        """How many rows of the period have more than ``points``."""
        ...

    def count(self, workspace: Workspace, period: str, team_id: int | None = None) -> int: ...

    def teams(self, workspace: Workspace, period: str) -> list[TeamScore]:
        """Every team with its members, active members and points in the period."""
        ...

    def everyone(self, workspace: Workspace, period: str) -> tuple[int, int]:
        """The workspace's (points, active members) in the period."""
        ...

    def recap_next_due(self) -> datetime | None: ...

    def recaps_due(self, now: datetime) -> list[tuple[Workspace, datetime]]:
        """Workspaces whose weekly recap is due at ``now``, with the instant it fell due."""
        ...

    def workspaces_without_recap(self) -> list[Workspace]:
        """Workspaces with a scheduled channel and no weekly recap planned yet."""
        ...

    def plan_recap(self, workspace: Workspace, next_at: datetime, done_at: datetime | None) -> bool:
        """Plan the next recap; when ``done_at`` is given, only if still due at that instant
        (so that of two workers only one posts). False if another worker got there first."""
        ...

    def scheduled_channels(self, workspace: Workspace) -> list[Channel]: ...


LEADERBOARD = Port[LeaderboardRepository]("leaderboard")


# -- periods ---------------------------------------------------------------------------------


def week_start(day: date) -> date:
    return day - timedelta(days=day.isoweekday() - 1)


def _local_midnight(day: date, tz: tzinfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)


def week_key(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"w:{year}-W{week:02d}"


def month_key(day: date) -> str:
    return f"m:{day.year}-{day.month:02d}"


def period_keys(when: datetime, tz: tzinfo) -> list[str]:
    """The aggregate keys an answer at ``when`` counts towards: its ISO week and month in
    ``tz`` (the workspace's zone), and all time."""
    day = when.astimezone(tz).date()
    return [week_key(day), month_key(day), "all"]


def period_of(kind: str, now: datetime, tz: tzinfo) -> Period:
    """The ``kind`` period (week, month, all) that contains ``now`` in ``tz``."""
    day = now.astimezone(tz).date()
    if kind == "week":
        start = week_start(day)
        year, week, _ = day.isocalendar()
        return Period(
            "week",
            week_key(day),
            f"this week ({year}-W{week:02d})",
            _local_midnight(start, tz),
            _local_midnight(start + timedelta(days=7), tz),
        )
    if kind == "month":
        first = day.replace(day=1)
        following = (first + timedelta(days=32)).replace(day=1)
        return Period(
            "month",
            month_key(day),
            f"this month ({day:%B %Y})",
            _local_midnight(first, tz),
            _local_midnight(following, tz),
        )
    return Period("all", "all", "all time")


def board_keys(uow: UnitOfWork, workspace: Workspace, when: datetime) -> list[str]:
    """:func:`period_keys` and the key of the season ``when`` falls in (``bot.core.seasons``),
    starting that season if it is the first to reach it."""
    keys = period_keys(when, zone(workspace.timezone))
    season = season_at(uow, workspace, when)
    if season is not None:
        keys.append(season.key)
    return keys


def record(
    uow: UnitOfWork, workspace: Workspace, user_id: int, points: int, when: datetime
) -> None:
    """Add one answer worth ``points`` at ``when`` to the user's aggregates (its board
    activity; ``bot.core.answers`` decides which answers have it)."""
    uow[LEADERBOARD].add(workspace.id, user_id, board_keys(uow, workspace, when), points, 1)


# -- parsing ---------------------------------------------------------------------------------


def parse_query(args: str) -> BoardQuery:
    """``[week|month|all] [team NAME | teams]``, the period also after ``teams``
    (``/leaderboard teams all``); raises UserError otherwise."""
    words = args.split()
    period = "week"
    if words and words[0].lower() in KINDS:
        period = words.pop(0).lower()
    if not words:
        return BoardQuery(period)
    head = words[0].lower()
    if head == "teams" and len(words) == 1:
        return BoardQuery(period, teams=True)
    if head == "teams" and len(words) == 2 and words[1].lower() in KINDS and period == "week":
        return BoardQuery(words[1].lower(), teams=True)
    if head == "team":
        name = " ".join(words[1:])
        if not name:
            raise UserError("Which team? Usage: /leaderboard week team NAME")
        return BoardQuery(period, team=name)
    raise UserError(USAGE)


# -- boards ----------------------------------------------------------------------------------


def ranked(rows: list[BoardRow]) -> list[BoardRow]:
    """Competition ranking of the highest rows (1, 2, 2, 4): ties share a rank."""
    rows = sorted(rows, key=lambda r: (-r.points, r.name.casefold(), r.user_id))
    out: list[BoardRow] = []
    for i, row in enumerate(rows):
        rank = out[-1].rank if out and out[-1].points == row.points else i + 1
        out.append(BoardRow(row.user_id, row.name, row.points, row.answers, rank))
    return out


def ranked_teams(scores: list[TeamScore]) -> list[TeamScore]:
    """Teams by points per active member (size does not decide), ties sharing a rank."""
    scores = sorted(scores, key=lambda s: (-round(s.per_active, 6), s.name.casefold()))
    out: list[TeamScore] = []
    for i, s in enumerate(scores):
        same = out and round(out[-1].per_active, 6) == round(s.per_active, 6)
        rank = out[-1].rank if same else i + 1
        out.append(TeamScore(s.team_id, s.name, s.members, s.active, s.points, rank))
    return out


NAMED = 3  # people or teams named in one line ("alice, bob and 4 others")


def names_line(names: list[str], total: int) -> str:
    """``names`` (the first of ``total``) in a sentence: "ann", "ann and bea", "ann, bea,
    cat and 2 others"."""
    shown = names[:NAMED]
    more = total - len(shown)
    if more > 0:
        return ", ".join(shown) + f" and {more} other{'s' * (more != 1)}"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" and {shown[-1]}"


def leaders(uow: UnitOfWork, workspace: Workspace, period: str) -> str | None:
    """Who is first on the period's board, ties shared as the boards share them ("ann
    (30 pts)", "ann, bea and cat (tied, 10 pts each)"); None when nobody has points."""
    top = [r for r in ranked(uow[LEADERBOARD].top(workspace, period, NAMED)) if r.rank == 1]
    if not top:
        return None
    points = top[0].points
    tied = uow[LEADERBOARD].count_above(workspace, period, points - 1) if len(top) > 1 else 1
    if tied == 1:
        return f"{top[0].name} ({points} pts)"
    return f"{names_line([r.name for r in top], tied)} (tied, {points} pts each)"


def top_team_line(uow: UnitOfWork, workspace: Workspace, period: str) -> str | None:
    """The recap's and the final board's line on the best team(s) with active members: every
    team ranked first, ties shared as on the team board; None without such a team."""
    teams = [t for t in ranked_teams(uow[LEADERBOARD].teams(workspace, period)) if t.active]
    best = [t for t in teams if t.rank == 1]
    if not best:
        return None
    each = f"{best[0].per_active:.1f} per active member"
    if len(best) == 1:
        return f"Top team: {best[0].name} · {each}."
    return f"Top teams, tied: {names_line([t.name for t in best], len(best))} · {each} each."


@dataclass(frozen=True, slots=True)
class PeopleBoard:
    period: Period
    scope: str
    rows: list[BoardRow]
    me: BoardRow | None
    total: int


def people_board(
    uow: UnitOfWork, workspace: Workspace, period: Period, user: User | None, team: Team | None
) -> PeopleBoard:
    """The top rows and ``user``'s own row with its rank, from the aggregates."""
    team_id = team.id if team else None
    rows = ranked(uow[LEADERBOARD].top(workspace, period.key, TOP, team_id))
    me: BoardRow | None = None
    if user is not None:
        me = next((r for r in rows if r.user_id == user.id), None)
        in_scope = team is None or any(t.id == team.id for t in uow[TEAMS].of_user(workspace, user))
        if me is None and in_scope:
            own = uow[LEADERBOARD].row(workspace, period.key, user)
            if own is not None:
                above = uow[LEADERBOARD].count_above(workspace, period.key, own.points, team_id)
                me = BoardRow(own.user_id, own.name, own.points, own.answers, above + 1)
    total = uow[LEADERBOARD].count(workspace, period.key, team_id)
    scope = f"team {team.name}" if team else "everyone"
    return PeopleBoard(period, scope, rows, me, total)


def _people_text(board: PeopleBoard, user: User | None) -> list[str]:
    if not board.rows:
        when = f"in {board.period.label}" if board.period.kind == "season" else board.period.label
        return [
            f"No points yet {when}. Answer the daily question or join a live "
            "round (/quiz live) to get on the board."
        ]
    width = len(str(board.rows[-1].rank))
    lines = []
    for row in board.rows:
        you = "  ← you" if user is not None and row.user_id == user.id else ""
        lines.append(f"{row.rank:>{width}}. {row.name} · {row.points} pts{you}")
    out = ["\n".join(lines)]
    if user is not None:
        me = board.me
        if me is None:
            out.append("You have no points here yet.")
        elif all(r.user_id != me.user_id for r in board.rows):
            out.append(f"You: #{me.rank:,} of {board.total:,} · {me.points} pts")
    return out


def chart(
    services: Services,
    title: str,
    labels: list[str],
    values: list[float],
    filename: str,
    highlight: int | None = None,
    tell: bool = True,
) -> tuple[tuple[Attachment, ...], str | None]:
    """A bar chart attachment, or why there is none: the note that charts need matplotlib,
    once per app (``Services.charts_note``), and only to a caller that ``tell``s it."""
    if services.charts is None:
        return (), (services.charts_note.take() or None) if tell else None
    if not labels:
        return (), None
    png = services.charts.bar_chart(title, labels, values, highlight)
    return (Attachment(filename, png, "image/png"),), None


def board_message(ctx: Context, query: BoardQuery, period: Period | None = None) -> Outgoing:
    """The ``/leaderboard`` reply: a card, and a chart as a PNG attachment (of ``period``
    when given, such as a season, else of the query's)."""
    period = period or period_of(query.period, ctx.now, ctx.workspace_zone)
    slug = period.key.replace(":", "-")
    if query.teams:
        scores = ranked_teams(ctx.uow[LEADERBOARD].teams(ctx.workspace, period.key))
        mine = {t.id for t in ctx.uow[TEAMS].of_user(ctx.workspace, ctx.user)}
        points, active = ctx.uow[LEADERBOARD].everyone(ctx.workspace, period.key)
        lines = [
            f"{s.rank}. {s.name} · {s.per_active:.1f} per active member · {s.points} pts · "
            f"{s.active} of {s.members} active{'  ← yours' if s.team_id in mine else ''}"
            for s in scores
        ]
        blocks = ["\n".join(lines) if lines else "No teams yet: /team create NAME."]
        if active:
            blocks.append(f"Everyone: {points / active:.1f} per active member ({active} active).")
        attachments, note = chart(
            ctx.services,
            f"Teams · {period.label}",
            [s.name for s in scores],
            [round(s.per_active, 1) for s in scores],
            f"leaderboard-teams-{slug}.png",
        )
        title = f"Team leaderboard · {period.label}"
    else:
        team = board_team(ctx, query.team) if query.team else None
        board = people_board(ctx.uow, ctx.workspace, period, ctx.user, team)
        blocks = _people_text(board, ctx.user)
        labels = [r.name for r in board.rows]
        here = next((i for i, r in enumerate(board.rows) if r.user_id == ctx.user.id), None)
        attachments, note = chart(
            ctx.services,
            f"{board.scope.capitalize()} · {period.label}",
            labels,
            [float(r.points) for r in board.rows],
            f"leaderboard-{slug}.png",
            here,
        )
        title = f"Leaderboard · {period.label} · {board.scope}"
    if note:
        blocks.append(note)
    return Outgoing(
        Delivery.PRIVATE,
        ctx.user.external_id,
        Card(title=title, blocks=tuple(blocks), footer="Ties share a rank."),
        channel=ctx.channel.external_id,
        attachments=attachments,
    )


def leaderboard_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/leaderboard [week|month|all] [team NAME | teams]``."""
    return [board_message(ctx, parse_query(args))]


# -- weekly recap ----------------------------------------------------------------------------


def next_week_start(now: datetime, tz: tzinfo) -> datetime:
    """Monday 00:00 of the next ISO week in ``tz``, as UTC."""
    day = now.astimezone(tz).date()
    return _local_midnight(week_start(day) + timedelta(days=7), tz)


class WeeklyRecapJob:
    """When an ISO week ends in a workspace's zone, post its board in every scheduled channel.

    The plan is a row per workspace (its next recap instant); a recap is claimed by
    moving that instant forward, so two workers never post it twice.
    """

    name = "weekly-recap"

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[LEADERBOARD].recap_next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done = 0
        for workspace in uow[LEADERBOARD].workspaces_without_recap():
            uow[LEADERBOARD].plan_recap(
                workspace, next_week_start(now, zone(workspace.timezone)), None
            )
        for workspace, due in uow[LEADERBOARD].recaps_due(now):
            tz = zone(workspace.timezone)
            if not uow[LEADERBOARD].plan_recap(workspace, next_week_start(now, tz), due):
                continue
            # The week that ended at ``due``: any instant just before it belongs to it.
            period = period_of("week", due - timedelta(seconds=1), tz)
            done += post_recap(uow, services, workspace, period, now)
        return done


def post_recap(
    uow: UnitOfWork, services: Services, workspace: Workspace, period: Period, now: datetime
) -> int:
    """Queue the recap of ``period`` in every scheduled channel; how many were queued."""
    board = people_board(uow, workspace, period, None, None)
    if not board.rows:
        return 0
    rows = board.rows[:RECAP_TOP]
    lines = [f"{r.rank}. {r.name} · {r.points} pts" for r in rows]
    blocks = ["\n".join(lines)]
    top_teams = top_team_line(uow, workspace, period.key)
    if top_teams:
        blocks.append(top_teams)
    week = period.key.removeprefix("w:")
    attachments, _note = chart(
        services,
        f"Week {week}",
        [r.name for r in rows],
        [float(r.points) for r in rows],
        f"recap-{week}.png",
        tell=False,  # a channel post is no place for installation advice
    )
    queued = 0
    for channel in uow[LEADERBOARD].scheduled_channels(workspace):
        message = Outgoing(
            Delivery.CHANNEL,
            channel.external_id,
            Card(
                title=f"Week {week} recap",
                blocks=tuple(blocks),
                footer="A new week starts now: /leaderboard to follow it.",
            ),
            attachments=attachments,
            key=f"recap:{channel.id}:{week}",
            tags={"recap": week},
        )
        if uow[OUTBOX].add(workspace, workspace.platform, message, message.key or "", now):
            queued += 1
    return queued

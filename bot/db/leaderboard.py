"""SQL storage of the leaderboard aggregates (``points_bucket``) and the weekly recap plan.

Points are added with one upsert per attempt (``INSERT … ON CONFLICT DO UPDATE``, atomic
on SQLite and PostgreSQL); boards read the index on (workspace, period, points).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, exists, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from bot.core.leaderboard import BoardRow, TeamScore
from bot.core.model import Channel, User, Workspace
from bot.db.models import (
    ChannelRow,
    ChannelScheduleRow,
    PointsBucketRow,
    TeamMemberRow,
    TeamRow,
    UserRow,
    WeeklyRecapRow,
    WorkspaceRow,
)
from bot.db.repositories import _channel, _Repo, _workspace, run

PB = PointsBucketRow
_UPSERTS: dict[str, Any] = {}


def _upsert(dialect: str) -> Any:
    """``INSERT … ON CONFLICT (user_id, period) DO UPDATE`` adding points and answers."""
    if dialect not in _UPSERTS:
        table = cast(Table, PB.__table__)
        stmt: Any = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
        _UPSERTS[dialect] = stmt.on_conflict_do_update(
            index_elements=[table.c.user_id, table.c.period],
            set_={
                "points": table.c.points + stmt.excluded.points,
                "answers": table.c.answers + stmt.excluded.answers,
            },
        )
    return _UPSERTS[dialect]


class SqlLeaderboard(_Repo):
    def add(
        self, workspace_id: int, user_id: int, periods: list[str], points: int, answers: int
    ) -> None:
        values = [
            {
                "user_id": user_id,
                "period": p,
                "workspace_id": workspace_id,
                "points": points,
                "answers": answers,
            }
            for p in periods
        ]
        # One statement, built once per dialect, run with a parameter set per period; no
        # autoflush: the points rows refer to nothing the session may hold unflushed.
        with self.session.no_autoflush:
            run(self.session, _upsert(self.session.connection().dialect.name), values)

    def _scoped(self, query: Any, workspace: Workspace, period: str, team_id: int | None) -> Any:
        query = query.where(PB.workspace_id == workspace.id, PB.period == period, PB.points > 0)
        if team_id is not None:
            query = query.join(
                TeamMemberRow,
                and_(TeamMemberRow.user_id == PB.user_id, TeamMemberRow.team_id == team_id),
            )
        return query

    def top(
        self, workspace: Workspace, period: str, limit: int, team_id: int | None = None
    ) -> list[BoardRow]:
        inner = (
            self._scoped(select(PB.user_id, PB.points, PB.answers), workspace, period, team_id)
            .order_by(PB.points.desc(), PB.user_id.desc())
            .limit(limit)
            .subquery()
        )
        rows = self.session.execute(
            select(inner.c.user_id, UserRow.name, inner.c.points, inner.c.answers).join(
                UserRow, UserRow.id == inner.c.user_id
            )
        ).all()
        return [BoardRow(u, name, int(p), int(a)) for u, name, p, a in rows]

    def row(self, workspace: Workspace, period: str, user: User) -> BoardRow | None:
        found = self.session.execute(
            select(PB.points, PB.answers).where(
                PB.user_id == user.id, PB.period == period, PB.workspace_id == workspace.id
            )
        ).one_or_none()
        if found is None:
            return None
        return BoardRow(user.id, user.display, int(found[0]), int(found[1]))

    def count_above(
        self, workspace: Workspace, period: str, points: int, team_id: int | None = None
    ) -> int:
        query = self._scoped(select(func.count()).select_from(PB), workspace, period, team_id)
        return int(self.session.scalar(query.where(PB.points > points)) or 0)

    def count(self, workspace: Workspace, period: str, team_id: int | None = None) -> int:
        query = self._scoped(select(func.count()).select_from(PB), workspace, period, team_id)
        return int(self.session.scalar(query) or 0)

    def teams(self, workspace: Workspace, period: str) -> list[TeamScore]:
        rows = self.session.execute(
            select(
                TeamRow.id,
                TeamRow.name,
                func.count(TeamMemberRow.user_id),
                func.count(PB.user_id),
                func.coalesce(func.sum(PB.points), 0),
            )
            .join(TeamMemberRow, TeamMemberRow.team_id == TeamRow.id)
            .outerjoin(
                PB,
                and_(
                    PB.user_id == TeamMemberRow.user_id,
                    PB.period == period,
                    PB.workspace_id == workspace.id,
                    PB.answers > 0,
                ),
            )
            .where(TeamRow.workspace_id == workspace.id)
            .group_by(TeamRow.id, TeamRow.name)
        ).all()
        return [TeamScore(i, name, int(m), int(a), int(p)) for i, name, m, a, p in rows]

    def everyone(self, workspace: Workspace, period: str) -> tuple[int, int]:
        points, active = self.session.execute(
            select(func.coalesce(func.sum(PB.points), 0), func.count()).where(
                PB.workspace_id == workspace.id, PB.period == period, PB.answers > 0
            )
        ).one()
        return int(points), int(active)

    def recap_next_due(self) -> datetime | None:
        return self.session.scalar(select(func.min(WeeklyRecapRow.next_at)))

    def recaps_due(self, now: datetime) -> list[tuple[Workspace, datetime]]:
        rows = self.session.execute(
            select(WorkspaceRow, WeeklyRecapRow.next_at)
            .join(WeeklyRecapRow, WeeklyRecapRow.workspace_id == WorkspaceRow.id)
            .where(WeeklyRecapRow.next_at <= now)
            .order_by(WeeklyRecapRow.next_at)
        ).all()
        return [(_workspace(w), due) for w, due in rows]

    def workspaces_without_recap(self) -> list[Workspace]:
        scheduled = exists().where(
            ChannelScheduleRow.workspace_id == WorkspaceRow.id,
            ChannelScheduleRow.paused.is_(False),
        )
        planned = exists().where(WeeklyRecapRow.workspace_id == WorkspaceRow.id)
        rows = self.session.scalars(select(WorkspaceRow).where(scheduled, ~planned))
        return [_workspace(r) for r in rows]

    def plan_recap(self, workspace: Workspace, next_at: datetime, done_at: datetime | None) -> bool:
        if done_at is None:
            try:
                with self.session.begin_nested():
                    self.session.add(WeeklyRecapRow(workspace_id=workspace.id, next_at=next_at))
            except IntegrityError:
                return False
            return True
        result = self.session.execute(
            update(WeeklyRecapRow)
            .where(WeeklyRecapRow.workspace_id == workspace.id, WeeklyRecapRow.next_at == done_at)
            .values(next_at=next_at, last_done_at=self.clock.now())
            .execution_options(synchronize_session=False)
        )
        return getattr(result, "rowcount", 0) == 1

    def scheduled_channels(self, workspace: Workspace) -> list[Channel]:
        rows = self.session.scalars(
            select(ChannelRow)
            .join(ChannelScheduleRow, ChannelScheduleRow.channel_id == ChannelRow.id)
            .where(ChannelRow.workspace_id == workspace.id, ChannelScheduleRow.paused.is_(False))
            .order_by(ChannelRow.id)
        )
        return [_channel(r) for r in rows]

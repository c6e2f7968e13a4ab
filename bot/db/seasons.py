"""SQL storage of the leaderboard seasons (``season``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import String, bindparam, exists, func, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite

from bot.core.model import Workspace
from bot.core.seasons import Season
from bot.db.models import ChannelScheduleRow, PointsBucketRow, SeasonRow, WorkspaceRow
from bot.db.repositories import _Repo, _workspace, insert_row, run

_COLUMNS = (
    SeasonRow.id,
    SeasonRow.workspace_id,
    SeasonRow.name,
    SeasonRow.starts_at,
    SeasonRow.ends_at,
    SeasonRow.next_length,
    SeasonRow.closed_at,
)

# Built once: every recorded answer asks for its workspace's latest season.
_LATEST = (
    select(*_COLUMNS)
    .where(SeasonRow.workspace_id == bindparam("workspace_id"))
    .order_by(SeasonRow.starts_at.desc())
    .limit(1)
)


def _season(row: SeasonRow) -> Season:
    return Season(
        row.id,
        row.workspace_id,
        row.name,
        row.starts_at,
        row.ends_at,
        row.next_length,
        row.closed_at,
    )


class SqlSeasons(_Repo):
    def _one(self, query: Any) -> Season | None:
        row = self.session.execute(query.limit(1)).first()
        return Season(*row) if row is not None else None

    def latest(self, workspace: Workspace) -> Season | None:
        row = run(self.session, _LATEST, {"workspace_id": workspace.id}).first()
        return Season(*cast(tuple[Any, ...], row)) if row is not None else None

    def containing(self, workspace: Workspace, when: datetime) -> Season | None:
        return self._one(
            select(*_COLUMNS).where(
                SeasonRow.workspace_id == workspace.id,
                SeasonRow.starts_at <= when,
                SeasonRow.ends_at > when,
            )
        )

    def named(self, workspace: Workspace, name: str) -> Season | None:
        return self._one(
            select(*_COLUMNS).where(SeasonRow.workspace_id == workspace.id, SeasonRow.name == name)
        )

    def listing(self, workspace: Workspace, limit: int) -> list[Season]:
        rows = self.session.scalars(
            select(SeasonRow)
            .where(SeasonRow.workspace_id == workspace.id)
            .order_by(SeasonRow.starts_at.desc())
            .limit(limit)
        )
        return [_season(r) for r in rows]

    def add(
        self,
        workspace: Workspace,
        name: str,
        starts_at: datetime,
        ends_at: datetime,
        next_length: str,
    ) -> tuple[Season, bool]:
        values = {
            "workspace_id": workspace.id,
            "name": name,
            "starts_at": starts_at,
            "ends_at": ends_at,
            "next_length": next_length,
            "closed_at": None,
            "created_at": self.clock.now(),
        }
        new_id = insert_row(self.session, SeasonRow, values)
        if new_id is None:
            found = self.named(workspace, name)
            assert found is not None  # the unique constraint that kept ours out holds it
            return found, False
        return _season(SeasonRow(id=new_id, **values)), True

    def copy_points(self, workspace: Workspace, from_key: str, to_key: str) -> None:
        pb = PointsBucketRow
        dialect = self.session.get_bind().dialect.name
        source = select(
            pb.user_id, literal(to_key, String(16)), pb.workspace_id, pb.points, pb.answers
        ).where(pb.workspace_id == workspace.id, pb.period == from_key)
        stmt: Any = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(pb)
        columns = ["user_id", "period", "workspace_id", "points", "answers"]
        self.session.execute(stmt.from_select(columns, source).on_conflict_do_nothing())

    def change(
        self, season: Season, *, ends_at: datetime | None = None, next_length: str | None = None
    ) -> Season:
        values: dict[str, Any] = {}
        if ends_at is not None:
            values["ends_at"] = ends_at
        if next_length is not None:
            values["next_length"] = next_length
        if values:
            self.session.execute(
                update(SeasonRow)
                .where(SeasonRow.id == season.id)
                .values(**values)
                .execution_options(synchronize_session=False)
            )
        row = self.session.get(SeasonRow, season.id, populate_existing=True)
        assert row is not None
        return _season(row)

    def next_due(self) -> datetime | None:
        return self.session.scalar(
            select(func.min(SeasonRow.ends_at)).where(SeasonRow.closed_at.is_(None))
        )

    def due(self, now: datetime, limit: int) -> list[tuple[Workspace, Season]]:
        rows = self.session.execute(
            select(WorkspaceRow, SeasonRow)
            .join(SeasonRow, SeasonRow.workspace_id == WorkspaceRow.id)
            .where(SeasonRow.closed_at.is_(None), SeasonRow.ends_at <= now)
            .order_by(SeasonRow.ends_at, SeasonRow.id)
            .limit(limit)
        ).all()
        return [(_workspace(w), _season(s)) for w, s in rows]

    def close(self, season: Season, now: datetime) -> bool:
        result = self.session.execute(
            update(SeasonRow)
            .where(SeasonRow.id == season.id, SeasonRow.closed_at.is_(None))
            .values(closed_at=now)
            .execution_options(synchronize_session=False)
        )
        return getattr(result, "rowcount", 0) == 1

    def workspaces_without_season(self) -> list[Workspace]:
        scheduled = exists().where(
            ChannelScheduleRow.workspace_id == WorkspaceRow.id,
            ChannelScheduleRow.paused.is_(False),
        )
        started = exists().where(SeasonRow.workspace_id == WorkspaceRow.id)
        rows = self.session.scalars(select(WorkspaceRow).where(scheduled, ~started))
        return [_workspace(r) for r in rows]

"""SQL storage of study groups (``team``, ``team_member``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from bot.core.model import User, Workspace
from bot.core.teams import Team
from bot.db.models import TeamMemberRow, TeamRow, UserRow
from bot.db.repositories import _Repo


class SqlTeams(_Repo):
    def _members(self, team_id: int) -> int:
        return int(
            self.session.scalar(
                select(func.count())
                .select_from(TeamMemberRow)
                .where(TeamMemberRow.team_id == team_id)
            )
            or 0
        )

    def find(self, workspace: Workspace, name_key: str) -> Team | None:
        row = self.session.scalars(
            select(TeamRow).where(
                TeamRow.workspace_id == workspace.id, TeamRow.name_key == name_key
            )
        ).one_or_none()
        if row is None:
            return None
        return Team(row.id, row.workspace_id, row.name, self._members(row.id))

    def create(self, workspace: Workspace, name: str, name_key: str, by: User) -> Team | None:
        now = self.clock.now()
        row = TeamRow(
            workspace_id=workspace.id,
            name=name,
            name_key=name_key,
            created_by=by.id,
            created_at=now,
        )
        try:
            with self.session.begin_nested():  # the team and its first member, or neither
                self.session.add(row)
                self.session.flush()
                self.session.add(TeamMemberRow(team_id=row.id, user_id=by.id, joined_at=now))
        except IntegrityError:
            return None
        return Team(row.id, row.workspace_id, row.name, 1)

    def join(self, team: Team, user: User, when: datetime) -> bool:
        if self.session.get(TeamMemberRow, (team.id, user.id)) is not None:
            return False
        try:
            with self.session.begin_nested():
                self.session.add(TeamMemberRow(team_id=team.id, user_id=user.id, joined_at=when))
        except IntegrityError:
            return False
        return True

    def leave(self, team: Team, user: User) -> bool:
        result = self.session.execute(
            delete(TeamMemberRow).where(
                TeamMemberRow.team_id == team.id, TeamMemberRow.user_id == user.id
            )
        )
        if getattr(result, "rowcount", 0) != 1:
            return False
        if self._members(team.id) == 0:
            self.session.execute(delete(TeamRow).where(TeamRow.id == team.id))
        return True

    def all(self, workspace: Workspace) -> list[Team]:
        rows = self.session.execute(
            select(TeamRow.id, TeamRow.name, func.count(TeamMemberRow.user_id))
            .outerjoin(TeamMemberRow, TeamMemberRow.team_id == TeamRow.id)
            .where(TeamRow.workspace_id == workspace.id)
            .group_by(TeamRow.id, TeamRow.name)
            .order_by(TeamRow.name_key)
        ).all()
        return [Team(i, workspace.id, name, int(n)) for i, name, n in rows]

    def of_user(self, workspace: Workspace, user: User) -> list[Team]:
        rows = self.session.execute(
            select(TeamRow.id, TeamRow.name)
            .join(TeamMemberRow, TeamMemberRow.team_id == TeamRow.id)
            .where(TeamRow.workspace_id == workspace.id, TeamMemberRow.user_id == user.id)
            .order_by(TeamRow.name_key)
        ).all()
        return [Team(i, workspace.id, name) for i, name in rows]

    def workspace_members(self, workspace: Workspace) -> int:
        return int(
            self.session.scalar(
                select(func.count())
                .select_from(UserRow)
                .where(UserRow.workspace_id == workspace.id)
            )
            or 0
        )

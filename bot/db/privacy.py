"""SQL storage of a person's data (``bot.core.privacy``), found by the schema's own links.

A row belongs to a user when it links to them (a foreign key to ``user``), or to a row that
belongs to them (an attempt's grades, a mock's rounds), followed to the end. So a table a
later migration adds is in the export, and deleted with the user, as soon as it links to
them: there is no list of tables to keep up to date. Deleting is the database's
``ON DELETE`` rules (CASCADE, or SET NULL for a mock the user was only the interviewer of);
the outbox, which addresses people by their platform id, loses the user's pending messages.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, RowMapping, Table, delete, func, select
from sqlalchemy.sql.elements import ColumnElement

from bot.core.model import User, Workspace
from bot.core.privacy import Rows
from bot.db.models import Base, OutboxRow, UserRow, WorkspaceRow
from bot.db.repositories import _Repo

#: Tables that hold no one's data and are never walked into (they are only pointed at).
NOT_PERSONAL = frozenset({"workspace", "question", "delivery_seen", "alembic_version"})
#: Ids per ``IN (…)`` query while following links.
CHUNK = 500

Key = tuple[Any, ...]
Row = dict[str, Any]


def _key(table: Table, row: RowMapping) -> Key:
    return tuple(row[c.name] for c in table.primary_key.columns)


def _owning(fk: ForeignKey) -> bool:
    """A link that makes the row belong to what it points at: it goes when that goes."""
    return (fk.ondelete or "").upper() == "CASCADE"


class SqlPersonalData(_Repo):
    def _owned(self, table: Table, where: ColumnElement[bool]) -> dict[str, dict[Key, Row]]:
        """The rows of ``table`` matching ``where`` and every row that belongs to them."""
        found: dict[str, dict[Key, Row]] = {
            table.name: {
                _key(table, row): dict(row)
                for row in self.session.execute(select(table).where(where)).mappings()
            }
        }
        grown = True
        while grown:
            grown = False
            for child in Base.metadata.sorted_tables:
                if child.name in NOT_PERSONAL:
                    continue
                for fk in child.foreign_keys:
                    parents = found.get(fk.column.table.name, {}).values()
                    values = sorted({row[fk.column.name] for row in parents})
                    if not values or not _owning(fk):
                        continue
                    seen = found.setdefault(child.name, {})
                    for start in range(0, len(values), CHUNK):
                        query = select(child).where(fk.parent.in_(values[start : start + CHUNK]))
                        for mapping in self.session.execute(query).mappings():
                            key = _key(child, mapping)
                            if key not in seen:
                                seen[key] = dict(mapping)
                                grown = True
        return found

    def _user_table(self) -> Table:
        table = UserRow.__table__
        assert isinstance(table, Table)
        return table

    def rows_of(self, user: User) -> Rows:
        users = self._user_table()
        found = self._owned(users, users.c.id == user.id)
        # Rows that only mention the user (a mock they were the interviewer of): in the
        # export, and kept without them when they are forgotten.
        for table in Base.metadata.sorted_tables:
            for fk in table.foreign_keys:
                if fk.column.table is users and not _owning(fk):
                    seen = found.setdefault(table.name, {})
                    for mapping in self.session.execute(
                        select(table).where(fk.parent == user.id)
                    ).mappings():
                        seen.setdefault(_key(table, mapping), dict(mapping))
        return {name: list(rows.values()) for name, rows in found.items() if rows}

    def forget_user(self, user: User) -> int:
        users = self._user_table()
        owned = self._owned(users, users.c.id == user.id)
        self._drop_pending_messages(user)
        self.session.execute(delete(UserRow).where(UserRow.id == user.id))
        return sum(len(rows) for rows in owned.values())

    def _drop_pending_messages(self, user: User) -> None:
        pending = self.session.execute(
            select(OutboxRow.id, OutboxRow.payload).where(
                OutboxRow.workspace_id == user.workspace_id, OutboxRow.status == "pending"
            )
        )
        mine = [
            row_id
            for row_id, payload in pending
            if payload.get("to") == user.external_id
            and payload.get("delivery") in ("private", "dm")
        ]
        if mine:
            self.session.execute(delete(OutboxRow).where(OutboxRow.id.in_(mine)))

    def forget_workspace(self, workspace: Workspace) -> int:
        counted = 1
        for table in Base.metadata.sorted_tables:
            if "workspace_id" in table.c and table.name not in NOT_PERSONAL:
                where = table.c.workspace_id == workspace.id
                counted += (
                    self.session.scalar(select(func.count()).select_from(table).where(where)) or 0
                )
        self.session.execute(delete(WorkspaceRow).where(WorkspaceRow.id == workspace.id))
        return counted

"""SQLAlchemy implementations of the core's repositories.

Each maps rows to the core's records; every read of user data is filtered by
workspace.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import CursorResult, Row, Select, and_, bindparam, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.core.clock import Clock
from bot.core.messages import Outgoing, to_payload
from bot.core.model import Actor, Attempt, Channel, DailyPrompt, User, Workspace
from bot.db.models import (
    AttemptGradeRow,
    AttemptRow,
    ChannelRow,
    DailyPromptRow,
    OutboxRow,
    UserRow,
    WorkspaceRow,
)

OUTBOX_ADDED = "studybot.outbox_added"  # session.info flag: this transaction queued messages


def _workspace(row: WorkspaceRow | Row[Any]) -> Workspace:
    return Workspace(row.id, row.platform, row.external_id, row.name, row.timezone)


def _user(row: UserRow | Row[Any]) -> User:
    return User(row.id, row.workspace_id, row.external_id, row.name, row.timezone, row.nudges)


def _channel(row: ChannelRow | Row[Any]) -> Channel:
    return Channel(row.id, row.workspace_id, row.external_id, row.name, row.live_seconds)


# What every event reads first, as Core statements built once: a row's columns (no ORM
# object, no identity map), and a statement whose compiled form SQLAlchemy caches under a
# key it works out once, not at every call.
_WORKSPACE_BY_EXTERNAL_ID = select(*WorkspaceRow.__table__.c).where(
    WorkspaceRow.platform == bindparam("platform"),
    WorkspaceRow.external_id == bindparam("external_id"),
)
_USER_BY_EXTERNAL_ID = select(*UserRow.__table__.c).where(
    UserRow.workspace_id == bindparam("workspace_id"),
    UserRow.external_id == bindparam("external_id"),
)
_CHANNEL_BY_EXTERNAL_ID = select(*ChannelRow.__table__.c).where(
    ChannelRow.workspace_id == bindparam("workspace_id"),
    ChannelRow.external_id == bindparam("external_id"),
)
# An event's workspace, user and channel in one read (``SqlActors``): the workspace, with
# the user and the channel where they exist; columns in the records' field order.
_W, _U, _C = WorkspaceRow.__table__.c, UserRow.__table__.c, ChannelRow.__table__.c
_ACTOR_WORKSPACE = ("w_id", "w_platform", "w_external_id", "w_name", "w_timezone")
_ACTOR_USER = ("u_id", "u_workspace_id", "u_external_id", "u_name", "u_timezone", "u_nudges")
_ACTOR_CHANNEL = ("c_id", "c_workspace_id", "c_external_id", "c_name", "c_live_seconds")
_ACTOR = (
    select(
        *(_W[name[2:]].label(name) for name in _ACTOR_WORKSPACE),
        *(_U[name[2:]].label(name) for name in _ACTOR_USER),
        *(_C[name[2:]].label(name) for name in _ACTOR_CHANNEL),
    )
    .select_from(
        WorkspaceRow.__table__.outerjoin(
            UserRow.__table__,
            and_(_U.workspace_id == _W.id, _U.external_id == bindparam("user")),
        ).outerjoin(
            ChannelRow.__table__,
            and_(_C.workspace_id == _W.id, _C.external_id == bindparam("channel")),
        )
    )
    .where(_W.platform == bindparam("platform"), _W.external_id == bindparam("workspace"))
)
_USER_UPDATE = (
    update(UserRow)
    .where(UserRow.id == bindparam("user_id"))
    .execution_options(synchronize_session=False)  # ensure's caller holds no UserRow
)


def _prompt(row: DailyPromptRow | Row[Any], message_ref: str | None = None) -> DailyPrompt:
    return DailyPrompt(
        row.id,
        row.workspace_id,
        row.channel_id,
        row.question_id,
        row.local_date,
        row.posted_at,
        row.reveal_at,
        row.revealed_at,
        message_ref,
    )


def _attempt(row: AttemptRow | SimpleNamespace, feedback: str = "") -> Attempt:
    return Attempt(
        user_id=row.user_id,
        workspace_id=row.workspace_id,
        question_id=row.question_id,
        answer=row.answer,
        score=row.score,
        verdict=row.verdict,
        feedback=feedback,
        grader_version=row.grader_version,
        grader_model=row.grader_model,
        content_hash=row.content_hash,
        answered_at=row.answered_at,
        daily_prompt_id=row.daily_prompt_id,
        quiz_session_id=row.quiz_session_id,
        scored=row.scored_prompt_id is not None,
        points=row.points,
        id=row.id,
    )


def run(session: Session, statement: Any, params: Any = None) -> CursorResult[Any]:
    """Run a Core ``statement`` on ``session``'s connection, in its transaction.

    What ``Session.execute`` does for a Core statement, less its ORM layer (half the cost of
    a statement on the answer path): pending ORM changes are flushed first, as autoflush
    would (``no_autoflush`` is respected), and nothing joins the identity map."""
    if session.autoflush:
        session.flush()
    return session.connection().execute(statement, params)


_INSERTS: dict[tuple[str, str, bool], Any] = {}


def insert_row(
    session: Session, model: Any, values: dict[str, Any], *, skip_conflict: bool = True
) -> Any:
    """Insert one row of ``model``'s table, ``INSERT … ON CONFLICT DO NOTHING`` (where
    ``skip_conflict``; SQLite and PostgreSQL) ``RETURNING`` its first primary key column.

    The key, or None when a unique constraint kept the row out. No savepoint and no ORM
    object: the statement is built once per dialect and table, and the session's identity
    map does not hold the row (read it with a query, or build a detached one)."""
    dialect = session.connection().dialect.name
    cache_key = (dialect, model.__tablename__, skip_conflict)
    stmt = _INSERTS.get(cache_key)
    if stmt is None:
        table = model.__table__
        stmt = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
        if skip_conflict:
            stmt = stmt.on_conflict_do_nothing()
        stmt = stmt.returning(next(iter(table.primary_key.columns)))
        _INSERTS[cache_key] = stmt
    return run(session, stmt, values).scalar()


class _Repo:
    def __init__(self, session: Session, clock: Clock) -> None:
        self.session = session
        self.clock = clock

    def _insert_or_get(self, model: Any, values: dict[str, Any], lookup: Select[Any]) -> Any:
        """Insert a ``model`` row of ``values`` (``INSERT … ON CONFLICT DO NOTHING``, no
        savepoint); if a unique constraint hits, return the row another transaction (or
        worker) created first. A new row comes back as its values and id, for reading (no
        ORM object)."""
        new_id = insert_row(self.session, model, values)
        if new_id is None:
            return self.session.scalars(lookup).one()
        return SimpleNamespace(id=new_id, **values)


class SqlWorkspaces(_Repo):
    def ensure(self, platform: str, external_id: str, name: str = "") -> Workspace:
        found = run(
            self.session,
            _WORKSPACE_BY_EXTERNAL_ID,
            {"platform": platform, "external_id": external_id},
        ).one_or_none()
        if found is not None:
            return _workspace(found)
        query = select(WorkspaceRow).where(
            WorkspaceRow.platform == platform, WorkspaceRow.external_id == external_id
        )
        row = self._insert_or_get(
            WorkspaceRow,
            {
                "platform": platform,
                "external_id": external_id,
                "name": name,
                "timezone": "UTC",
                "created_at": self.clock.now(),
            },
            query,
        )
        return _workspace(row)


class SqlUsers(_Repo):
    def ensure(
        self, workspace: Workspace, external_id: str, name: str = "", timezone: str | None = None
    ) -> User:
        found = run(
            self.session,
            _USER_BY_EXTERNAL_ID,
            {"workspace_id": workspace.id, "external_id": external_id},
        ).one_or_none()
        if found is None:
            return self.create(workspace, external_id, name, timezone)
        return self.kept(_user(found), name, timezone)

    def create(
        self, workspace: Workspace, external_id: str, name: str, timezone: str | None
    ) -> User:
        """The user, who was not there a moment ago: inserted, or as another transaction
        created it meanwhile."""
        query = select(UserRow).where(
            UserRow.workspace_id == workspace.id, UserRow.external_id == external_id
        )
        row = self._insert_or_get(
            UserRow,
            {
                "workspace_id": workspace.id,
                "external_id": external_id,
                "name": name or external_id,
                "timezone": timezone,
                "nudges": True,
                "created_at": self.clock.now(),
            },
            query,
        )
        return _user(row)

    def kept(self, user: User, name: str, timezone: str | None) -> User:
        """``user`` as found, with a newly reported ``name`` or a first known ``timezone``
        written (a zone once known is not replaced by the one a platform reports later)."""
        changes: dict[str, Any] = {}
        if name and user.name != name:
            changes["name"] = name
        if timezone and user.timezone is None:
            changes["timezone"] = timezone
        if changes:
            run(self.session, _USER_UPDATE.values(**changes), {"user_id": user.id})
            user = replace(user, **changes)
        return user

    def get(self, workspace: Workspace, user_id: int) -> User | None:
        row = self.session.get(UserRow, user_id)
        return _user(row) if row is not None and row.workspace_id == workspace.id else None

    def find(self, workspace: Workspace, handle: str) -> list[User]:
        key = handle.casefold()
        rows = self.session.scalars(
            select(UserRow)
            .where(
                UserRow.workspace_id == workspace.id,
                or_(func.lower(UserRow.external_id) == key, func.lower(UserRow.name) == key),
            )
            .order_by(UserRow.id)
        )
        return [_user(row) for row in rows]

    def set_timezone(self, user: User, timezone: str) -> User:
        row = self.session.get_one(UserRow, user.id)
        row.timezone = timezone
        row.timezone_checked_at = self.clock.now()
        return _user(row)


class SqlChannels(_Repo):
    def ensure(self, workspace: Workspace, external_id: str, name: str = "") -> Channel:
        found = run(
            self.session,
            _CHANNEL_BY_EXTERNAL_ID,
            {"workspace_id": workspace.id, "external_id": external_id},
        ).one_or_none()
        if found is not None:
            return _channel(found)
        return self.create(workspace, external_id, name)

    def create(self, workspace: Workspace, external_id: str, name: str = "") -> Channel:
        """The channel, which was not there a moment ago: inserted, or as another
        transaction created it meanwhile."""
        query = select(ChannelRow).where(
            ChannelRow.workspace_id == workspace.id, ChannelRow.external_id == external_id
        )
        row = self._insert_or_get(
            ChannelRow,
            {
                "workspace_id": workspace.id,
                "external_id": external_id,
                "name": name or external_id,
                "created_at": self.clock.now(),
                "live_seconds": None,
            },
            query,
        )
        return _channel(row)

    def get(self, workspace: Workspace, channel_id: int) -> Channel | None:
        row = self.session.get(ChannelRow, channel_id)
        return _channel(row) if row is not None and row.workspace_id == workspace.id else None

    def set_live_seconds(self, channel: Channel, seconds: int | None) -> Channel:
        row = self.session.get(ChannelRow, channel.id)
        if row is None or row.workspace_id != channel.workspace_id:
            raise LookupError(f"no channel {channel.id}")
        row.live_seconds = seconds
        self.session.flush()
        return _channel(row)


class SqlActors(_Repo):
    def ensure(
        self,
        platform: str,
        workspace: str,
        user: str,
        channel: str,
        user_name: str = "",
        user_tz: str | None = None,
    ) -> Actor:
        found = run(
            self.session,
            _ACTOR,
            {"platform": platform, "workspace": workspace, "user": user, "channel": channel},
        ).one_or_none()
        users = SqlUsers(self.session, self.clock)
        if found is None:
            where = SqlWorkspaces(self.session, self.clock).ensure(platform, workspace)
            return Actor(
                where,
                users.ensure(where, user, user_name, user_tz),
                SqlChannels(self.session, self.clock).ensure(where, channel),
            )
        values = found._mapping
        where = Workspace(*(values[c] for c in _ACTOR_WORKSPACE))
        if values["u_id"] is None:
            who = users.create(where, user, user_name, user_tz)
        else:
            who = users.kept(User(*(values[c] for c in _ACTOR_USER)), user_name, user_tz)
        if values["c_id"] is None:
            place = SqlChannels(self.session, self.clock).create(where, channel)
        else:
            place = Channel(*(values[c] for c in _ACTOR_CHANNEL))
        return Actor(where, who, place)


class SqlAttempts(_Repo):
    def add(self, attempt: Attempt) -> Attempt:
        values: dict[str, Any] = {
            "workspace_id": attempt.workspace_id,
            "user_id": attempt.user_id,
            "question_id": attempt.question_id,
            "daily_prompt_id": attempt.daily_prompt_id,
            "scored_prompt_id": attempt.daily_prompt_id if attempt.scored else None,
            "quiz_session_id": attempt.quiz_session_id,
            "answer": attempt.answer,
            "score": attempt.score,
            "verdict": attempt.verdict,
            "points": attempt.points,
            "grader_version": attempt.grader_version,
            "grader_model": attempt.grader_model,
            "content_hash": attempt.content_hash,
            "answered_at": attempt.answered_at,
        }
        # The only unique constraint: one scored attempt per user and prompt.
        scored = values["scored_prompt_id"] is not None
        if self.session.connection().dialect.name == "postgresql":
            new_id = self._add_graded(values, attempt.feedback, skip_conflict=scored)
            if new_id is None:
                # Another answer by the same user was scored first: keep this one as practice.
                values.update(scored_prompt_id=None, points=0)
                new_id = self._add_graded(values, attempt.feedback, skip_conflict=False)
            return _attempt(SimpleNamespace(id=new_id, **values), attempt.feedback)
        new_id = insert_row(self.session, AttemptRow, values, skip_conflict=scored)
        if new_id is None:
            values.update(scored_prompt_id=None, points=0)  # kept as practice, as above
            new_id = insert_row(self.session, AttemptRow, values, skip_conflict=False)
        insert_row(
            self.session,
            AttemptGradeRow,
            {
                "attempt_id": new_id,
                "grader_version": values["grader_version"],
                "grader_model": values["grader_model"],
                "content_hash": values["content_hash"],
                "score": values["score"],
                "verdict": values["verdict"],
                "feedback": attempt.feedback,
                "graded_at": values["answered_at"],
            },
            skip_conflict=False,
        )
        return _attempt(SimpleNamespace(id=new_id, **values), attempt.feedback)

    def _add_graded(self, values: dict[str, Any], feedback: str, *, skip_conflict: bool) -> Any:
        """PostgreSQL: the attempt and its first grade in one statement (one round trip); the
        attempt's id, or None when the unique constraint kept it out (and so its grade)."""
        return run(
            self.session, _ATTEMPT_WITH_GRADE[skip_conflict], {**values, "feedback": feedback}
        ).scalar()


def _attempt_with_grade(skip_conflict: bool) -> Any:
    """``WITH new AS (INSERT INTO attempt … RETURNING id), grade AS (INSERT INTO
    attempt_grade … SELECT new.id, …) SELECT id FROM new``: the grade is the attempt's own
    (its grader, score and verdict, graded when answered), with ``feedback``."""
    attempt_table: Any = AttemptRow.__table__
    grade_table: Any = AttemptGradeRow.__table__
    attempts, grades = attempt_table.c, grade_table.c
    insert = postgresql.insert(attempt_table).values(
        {name: bindparam(name, type_=attempts[name].type) for name in _ATTEMPT_VALUES}
    )
    if skip_conflict:
        insert = insert.on_conflict_do_nothing()
    new = insert.returning(attempts.id).cte("new_attempt")
    same = ("grader_version", "grader_model", "content_hash", "score", "verdict")
    grade = (
        postgresql.insert(grade_table)
        .from_select(
            ["attempt_id", *same, "feedback", "graded_at"],
            select(
                new.c.id,
                *(bindparam(name, type_=grades[name].type) for name in same),
                bindparam("feedback", type_=grades.feedback.type),
                bindparam("answered_at", type_=grades.graded_at.type),
            ),
        )
        .cte("new_grade")
    )
    return select(new.c.id).add_cte(grade)


_ATTEMPT_VALUES = (
    "workspace_id",
    "user_id",
    "question_id",
    "daily_prompt_id",
    "scored_prompt_id",
    "quiz_session_id",
    "answer",
    "score",
    "verdict",
    "points",
    "grader_version",
    "grader_model",
    "content_hash",
    "answered_at",
)
_ATTEMPT_WITH_GRADE = {skip: _attempt_with_grade(skip) for skip in (True, False)}


class SqlOutbox(_Repo):
    def add(
        self, workspace: Workspace, platform: str, message: Outgoing, key: str, due_at: datetime
    ) -> bool:
        row = OutboxRow(
            workspace_id=workspace.id,
            platform=platform,
            key=key,
            payload=to_payload(message),
            status="pending",
            tries=0,
            next_attempt_at=due_at.astimezone(UTC),
            created_at=self.clock.now(),
        )
        try:
            with self.session.begin_nested():
                self.session.add(row)
        except IntegrityError:
            return False
        self.session.info[OUTBOX_ADDED] = True
        return True

"""SQL repositories of the daily question, channel schedules and streaks.

Due work is claimed with ``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL, so any
number of workers can share one database: each row is handled by the worker that
locked it, and the others skip it. (SQLite ignores the clause; it has one writer at a
time anyway.) Bulk writes use ``INSERT … ON CONFLICT DO NOTHING``, so the unique
constraints (one prompt per channel and local date, one outbox row per key) are the
final guard against doing anything twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import (
    Row,
    String,
    and_,
    bindparam,
    case,
    cast,
    distinct,
    func,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.core.away import AwayPeriod
from bot.core.clock import Clock
from bot.core.daily.schedule import (
    DAY_NAMES,
    POST_KEY,
    DueChannel,
    DueReveal,
    NewPrompt,
    RevealStats,
    Schedule,
    post_key,
    prompt_of_post,
)
from bot.core.errors import ConfigError
from bot.core.goal import Goal
from bot.core.messages import Outgoing, to_payload
from bot.core.model import Channel, DailyPrompt, User, Workspace
from bot.core.streaks import ChannelPost, DayMark, NudgeTarget, StreakState
from bot.core.timezones import zone
from bot.db.models import (
    ActivityDayRow,
    AttemptRow,
    AwayPeriodRow,
    ChannelRow,
    ChannelScheduleRow,
    DailyPromptRow,
    InterviewGoalRow,
    OutboxRow,
    StreakRow,
    UserRow,
    WorkspaceRow,
)
from bot.db.repositories import OUTBOX_ADDED, _channel, _prompt, _user, insert_row, run

INSERT_CHUNK = 500


def _insert(session: Session, table: Any) -> Any:
    """An INSERT that can say ON CONFLICT DO NOTHING on this session's database."""
    name = session.get_bind().dialect.name
    if name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    if name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table)
    raise ConfigError(f"studybot runs on SQLite and PostgreSQL, not on {name}")


def _chunks(items: Sequence[Any], size: int = INSERT_CHUNK) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


class _Repo:
    def __init__(self, session: Session, clock: Clock) -> None:
        self.session = session
        self.clock = clock


# -- schedules ----------------------------------------------------------------------------


def _schedule(row: ChannelScheduleRow) -> Schedule:
    hours, minutes = (int(p) for p in row.local_time.split(":"))
    return Schedule(
        channel_id=row.channel_id,
        workspace_id=row.workspace_id,
        local_time=time(hours, minutes),
        timezone=row.timezone,
        weekdays=frozenset(DAY_NAMES.index(d) for d in row.weekdays.split(",") if d),
        topics=tuple(row.topics or ()),
        roles=tuple(row.roles or ()),
        mix={int(k): int(v) for k, v in (row.difficulty_mix or {}).items()},
        reveal_delay=timedelta(minutes=row.reveal_delay_minutes),
        paused=row.paused,
        skip_dates=frozenset(date.fromisoformat(d) for d in row.skip_dates or ()),
        next_post_at=row.next_post_at,
    )


def _fill(row: ChannelScheduleRow, schedule: Schedule, now: datetime) -> None:
    row.workspace_id = schedule.workspace_id
    row.local_time = schedule.local_time.strftime("%H:%M")
    row.timezone = schedule.timezone
    row.weekdays = ",".join(DAY_NAMES[d] for d in sorted(schedule.weekdays))
    row.topics = list(schedule.topics)
    row.roles = list(schedule.roles)
    row.difficulty_mix = {str(k): v for k, v in sorted(schedule.mix.items())}
    row.reveal_delay_minutes = int(schedule.reveal_delay.total_seconds() // 60)
    row.paused = schedule.paused
    row.skip_dates = sorted(d.isoformat() for d in schedule.skip_dates)
    row.next_post_at = schedule.next_post_at
    row.updated_at = now


class SqlSchedules(_Repo):
    def get(self, channel: Channel) -> Schedule | None:
        row = self.session.get(ChannelScheduleRow, channel.id)
        if row is None or row.workspace_id != channel.workspace_id:
            return None
        return _schedule(row)

    def save(self, schedule: Schedule) -> Schedule:
        row = self.session.get(ChannelScheduleRow, schedule.channel_id)
        if row is None:
            row = ChannelScheduleRow(channel_id=schedule.channel_id)
            _fill(row, schedule, self.clock.now())
            try:
                with self.session.begin_nested():
                    self.session.add(row)
            except IntegrityError:  # created meanwhile by another request: replace it
                row = self.session.get_one(ChannelScheduleRow, schedule.channel_id)
        _fill(row, schedule, self.clock.now())
        self.session.flush()
        return _schedule(row)

    def next_due(self) -> datetime | None:
        return self.session.scalar(
            select(ChannelScheduleRow.next_post_at)
            .where(ChannelScheduleRow.next_post_at.is_not(None))
            .order_by(ChannelScheduleRow.next_post_at)
            .limit(1)
        )

    def claim_due(self, now: datetime, limit: int) -> list[DueChannel]:
        rows = self.session.execute(
            select(ChannelScheduleRow, ChannelRow, WorkspaceRow.platform)
            .join(ChannelRow, ChannelRow.id == ChannelScheduleRow.channel_id)
            .join(WorkspaceRow, WorkspaceRow.id == ChannelScheduleRow.workspace_id)
            .where(
                ChannelScheduleRow.next_post_at <= now,
                ChannelScheduleRow.paused.is_(False),
            )
            .order_by(ChannelScheduleRow.next_post_at, ChannelScheduleRow.channel_id)
            .limit(limit)
            .with_for_update(skip_locked=True, of=ChannelScheduleRow)
        ).all()
        return [DueChannel(_schedule(s), _channel(c), platform) for s, c, platform in rows]

    def set_next(self, updates: Sequence[tuple[int, datetime | None]]) -> None:
        if not updates:
            return
        now = self.clock.now()
        self.session.execute(
            update(ChannelScheduleRow),
            [
                {"channel_id": cid, "next_post_at": instant, "updated_at": now}
                for cid, instant in updates
            ],
        )


# -- daily prompts ------------------------------------------------------------------------


class SqlDaily(_Repo):
    def _post_refs(self, prompt_ids: Sequence[int]) -> dict[int, str]:
        """The platform ids of the prompts' posts that were sent, from their outbox rows."""
        found: dict[int, str] = {}
        for chunk in _chunks(list(prompt_ids)):
            rows = self.session.execute(
                select(OutboxRow.key, OutboxRow.message_ref).where(
                    OutboxRow.key.in_([post_key(i) for i in chunk]),
                    OutboxRow.message_ref.is_not(None),
                )
            )
            for key, ref in rows:
                prompt_id = prompt_of_post(key)
                if prompt_id is not None and ref:
                    found[prompt_id] = ref
        return found

    def _one(self, query: Any, **params: Any) -> DailyPrompt | None:
        found = run(self.session, query, params).one_or_none()
        return None if found is None else _prompt(found, found.message_ref or None)

    def for_date(self, channel: Channel, local_date: date) -> DailyPrompt | None:
        return self._one(_PROMPT_FOR_DATE, channel_id=channel.id, local_date=local_date)

    def latest(self, channel: Channel, before: datetime) -> DailyPrompt | None:
        return self._one(_PROMPT_LATEST, channel_id=channel.id, before=before)

    def get(self, workspace: Workspace, prompt_id: int) -> DailyPrompt | None:
        return self._one(_PROMPT_BY_ID, prompt_id=prompt_id, workspace_id=workspace.id)

    def history(self, channel_ids: Sequence[int]) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for chunk in _chunks(list(channel_ids)):
            rows = self.session.execute(
                select(DailyPromptRow.channel_id, DailyPromptRow.question_id)
                .where(DailyPromptRow.channel_id.in_(chunk))
                .order_by(DailyPromptRow.channel_id, DailyPromptRow.local_date)
            )
            for channel_id, question_id in rows:
                found.setdefault(channel_id, []).append(question_id)
        return found

    def seen_by_members(self, channel_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        found: dict[int, dict[str, int]] = {}
        for chunk in _chunks(list(channel_ids)):
            members = (
                select(DailyPromptRow.channel_id, AttemptRow.user_id)
                .join(AttemptRow, AttemptRow.daily_prompt_id == DailyPromptRow.id)
                .where(DailyPromptRow.channel_id.in_(chunk))
                .distinct()
                .subquery()
            )
            rows = self.session.execute(
                select(
                    members.c.channel_id,
                    AttemptRow.question_id,
                    func.count(distinct(AttemptRow.user_id)),
                )
                .join(AttemptRow, AttemptRow.user_id == members.c.user_id)
                .group_by(members.c.channel_id, AttemptRow.question_id)
            )
            for channel_id, question_id, count in rows:
                found.setdefault(channel_id, {})[question_id] = int(count)
        return found

    def add_prompts(self, prompts: Sequence[NewPrompt]) -> list[DailyPrompt]:
        created: list[DailyPrompt] = []
        for chunk in _chunks(list(prompts)):
            values = [
                {
                    "workspace_id": p.channel.workspace_id,
                    "channel_id": p.channel.id,
                    "question_id": p.question_id,
                    "local_date": p.local_date,
                    "posted_at": p.posted_at.astimezone(UTC),
                    "reveal_at": p.reveal_at.astimezone(UTC),
                }
                for p in chunk
            ]
            stmt = (
                _insert(self.session, DailyPromptRow)
                .on_conflict_do_nothing(index_elements=["channel_id", "local_date"])
                .returning(DailyPromptRow.id, DailyPromptRow.channel_id)
            )
            ids = {cid: pid for pid, cid in self.session.execute(stmt, values)}
            for p, row in zip(chunk, values, strict=True):
                if p.channel.id in ids:
                    created.append(
                        DailyPrompt(
                            ids[p.channel.id],
                            p.channel.workspace_id,
                            p.channel.id,
                            p.question_id,
                            p.local_date,
                            row["posted_at"],
                            row["reveal_at"],
                            None,
                            None,
                        )
                    )
        return created

    def queue(self, messages: Sequence[tuple[int, str, Outgoing]], now: datetime) -> int:
        added = 0
        for chunk in _chunks(list(messages)):
            values = []
            for workspace_id, platform, message in chunk:
                if not message.key:
                    raise ValueError("a queued message needs an idempotency key")
                values.append(
                    {
                        "workspace_id": workspace_id,
                        "platform": platform,
                        "key": message.key,
                        "payload": to_payload(message),
                        "status": "pending",
                        "tries": 0,
                        "next_attempt_at": now.astimezone(UTC),
                        "created_at": self.clock.now(),
                    }
                )
            stmt = (
                _insert(self.session, OutboxRow)
                .on_conflict_do_nothing(index_elements=["key"])
                .returning(OutboxRow.id)
            )
            added += len(self.session.execute(stmt, values).all())
        if added:
            self.session.info[OUTBOX_ADDED] = True
        return added

    def by_message_ref(self, channel: Channel, ref: str) -> DailyPrompt | None:
        keys = self.session.scalars(
            select(OutboxRow.key).where(
                OutboxRow.message_ref == ref,
                OutboxRow.workspace_id == channel.workspace_id,
                OutboxRow.key.startswith("daily:"),
            )
        )
        ids = [i for i in (prompt_of_post(k) for k in keys) if i is not None]
        if not ids:
            return None
        row = self.session.scalars(
            select(DailyPromptRow)
            .where(
                DailyPromptRow.id.in_(ids),
                DailyPromptRow.channel_id == channel.id,
                DailyPromptRow.workspace_id == channel.workspace_id,
            )
            .order_by(DailyPromptRow.id)
        ).first()
        return _prompt(row, ref) if row is not None else None

    def next_reveal_at(self) -> datetime | None:
        return self.session.scalar(
            select(DailyPromptRow.reveal_at)
            .where(DailyPromptRow.revealed_at.is_(None))
            .order_by(DailyPromptRow.reveal_at)
            .limit(1)
        )

    def claim_reveals(self, now: datetime, limit: int) -> list[DueReveal]:
        rows = self.session.execute(
            select(DailyPromptRow, ChannelRow, WorkspaceRow.platform)
            .join(ChannelRow, ChannelRow.id == DailyPromptRow.channel_id)
            .join(WorkspaceRow, WorkspaceRow.id == DailyPromptRow.workspace_id)
            .where(DailyPromptRow.revealed_at.is_(None), DailyPromptRow.reveal_at <= now)
            .order_by(DailyPromptRow.reveal_at, DailyPromptRow.id)
            .limit(limit)
            .with_for_update(skip_locked=True, of=DailyPromptRow)
        ).all()
        refs = self._post_refs([p.id for p, _, _ in rows])
        return [
            DueReveal(_prompt(p, refs.get(p.id)), _channel(c), platform) for p, c, platform in rows
        ]

    def reveal_stats(self, prompt_ids: Sequence[int]) -> dict[int, RevealStats]:
        if not prompt_ids:
            return {}
        counts = self.session.execute(
            select(
                AttemptRow.scored_prompt_id,
                func.count(),
                func.sum(case((AttemptRow.verdict == "correct", 1), else_=0)),
            )
            .where(AttemptRow.scored_prompt_id.in_(list(prompt_ids)))
            .group_by(AttemptRow.scored_prompt_id)
        ).all()
        fastest: dict[int, tuple[str, datetime]] = {}
        for prompt_id, name, answered_at in self.session.execute(
            select(AttemptRow.scored_prompt_id, UserRow.name, AttemptRow.answered_at)
            .join(UserRow, UserRow.id == AttemptRow.user_id)
            .where(
                AttemptRow.scored_prompt_id.in_(list(prompt_ids)),
                AttemptRow.verdict == "correct",
            )
            .order_by(AttemptRow.scored_prompt_id, AttemptRow.answered_at, AttemptRow.id)
        ):
            if prompt_id is not None:
                fastest.setdefault(prompt_id, (name, answered_at))
        stats: dict[int, RevealStats] = {}
        for prompt_id, answered, correct in counts:
            if prompt_id is None:
                continue
            name_at = fastest.get(prompt_id)
            stats[prompt_id] = RevealStats(
                answered=int(answered),
                correct=int(correct or 0),
                fastest=name_at[0] if name_at else None,
                fastest_at=name_at[1] if name_at else None,
            )
        return stats

    def mark_revealed(self, prompt_ids: Sequence[int], now: datetime) -> None:
        for chunk in _chunks(list(prompt_ids)):
            self.session.execute(
                update(DailyPromptRow)
                .where(DailyPromptRow.id.in_(chunk))
                .values(revealed_at=now)
                .execution_options(synchronize_session=False)
            )

    def clamp_reveals(self, channel: Channel, latest: datetime) -> None:
        self.session.execute(
            update(DailyPromptRow)
            .where(
                DailyPromptRow.channel_id == channel.id,
                DailyPromptRow.workspace_id == channel.workspace_id,
                DailyPromptRow.revealed_at.is_(None),
                DailyPromptRow.reveal_at > latest,
            )
            .values(reveal_at=latest)
            .execution_options(synchronize_session=False)
        )


# -- streaks ------------------------------------------------------------------------------


def _state(row: StreakRow | Row[Any]) -> StreakState:
    return StreakState(
        current=row.current,
        longest=row.longest,
        freezes=row.freezes,
        last_day=row.last_day,
        last_zone=row.last_zone,
        nudge_at=row.nudge_at,
    )


def _prompt_query(*where: Any, latest: bool = False) -> Any:
    """The prompt that ``where`` selects (the latest posted one, with ``latest``) and its
    post's platform id, in one statement: the post's outbox row is joined on its key. Core
    columns, built once with bound parameters (answering a daily question reads it)."""
    prompt, outbox = DailyPromptRow.__table__, OutboxRow.__table__
    head, tail = POST_KEY.split("{}")
    post = literal(head) + cast(prompt.c.id, String) + literal(tail)
    query = (
        select(*prompt.c, outbox.c.message_ref)
        .outerjoin(outbox, and_(outbox.c.key == post, outbox.c.message_ref.is_not(None)))
        .where(*where)
    )
    if latest:
        query = query.order_by(prompt.c.posted_at.desc()).limit(1)
    return query


_PROMPT_COLUMNS = DailyPromptRow.__table__.c
_PROMPT_FOR_DATE = _prompt_query(
    _PROMPT_COLUMNS.channel_id == bindparam("channel_id"),
    _PROMPT_COLUMNS.local_date == bindparam("local_date"),
)
_PROMPT_LATEST = _prompt_query(
    _PROMPT_COLUMNS.channel_id == bindparam("channel_id"),
    _PROMPT_COLUMNS.posted_at <= bindparam("before"),
    latest=True,
)
_PROMPT_BY_ID = _prompt_query(
    _PROMPT_COLUMNS.id == bindparam("prompt_id"),
    _PROMPT_COLUMNS.workspace_id == bindparam("workspace_id"),
)


STREAK_STATE_COLUMNS = (
    "current",
    "longest",
    "freezes",
    "last_day",
    "last_zone",
    "nudge_at",
    "updated_at",
)
# A user's streak, read and written on every answer: Core statements built once. The row is
# read FOR UPDATE (PostgreSQL; SQLite's transaction holds the write lock already), so the
# update that follows in the same transaction writes over what was read.
_STREAK = StreakRow.__table__.c
_STREAK_FOR_UPDATE = (
    select(*_STREAK)
    .where(
        _STREAK.user_id == bindparam("user_id"), _STREAK.workspace_id == bindparam("workspace_id")
    )
    .with_for_update()
)
_STREAK_UPDATE = (
    update(StreakRow)
    .where(
        StreakRow.user_id == bindparam("key_user"),
        StreakRow.workspace_id == bindparam("key_workspace"),
    )
    .values({name: bindparam(name) for name in STREAK_STATE_COLUMNS})
    .execution_options(synchronize_session=False)
)


_ACTIVITY_UPSERTS: dict[str, Any] = {}


def _activity_upsert(dialect: str) -> Any:
    """``INSERT … ON CONFLICT (user_id, local_date) DO UPDATE`` adding the answers and keeping
    a frozen day frozen; built once per dialect."""
    if dialect not in _ACTIVITY_UPSERTS:
        table: Any = ActivityDayRow.__table__
        stmt: Any = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
        _ACTIVITY_UPSERTS[dialect] = stmt.on_conflict_do_update(
            index_elements=[table.c.user_id, table.c.local_date],
            set_={
                "answers": table.c.answers + stmt.excluded.answers,
                "frozen": or_(table.c.frozen, stmt.excluded.frozen),
            },
        )
    return _ACTIVITY_UPSERTS[dialect]


class SqlStreaks(_Repo):
    def __init__(self, session: Session, clock: Clock) -> None:
        super().__init__(session, clock)
        self._zones: dict[int, str] = {}
        # Streak rows this transaction read FOR UPDATE (None: there was none), by user id:
        # the lock holds until the end of the transaction, so ``save`` need not read again.
        self._locked: dict[int, Row[Any] | None] = {}

    def _row(self, user: User) -> Row[Any] | None:
        row = run(
            self.session,
            _STREAK_FOR_UPDATE,
            {"user_id": user.id, "workspace_id": user.workspace_id},
        ).one_or_none()
        self._locked[user.id] = row
        return row

    def get(self, user: User) -> StreakState:
        row = self._row(user)
        return _state(row) if row is not None else StreakState()

    def save(self, user: User, state: StreakState) -> None:
        row = self._locked[user.id] if user.id in self._locked else self._row(user)
        if row is None:
            inserted = insert_row(
                self.session,
                StreakRow,
                {"user_id": user.id, "workspace_id": user.workspace_id, **self._values(state)},
            )
            if inserted is not None:
                del self._locked[user.id]  # a second save reads the new row
                return
            row = self._row(user)  # another transaction created it first
            assert row is not None
        run(
            self.session,
            _STREAK_UPDATE,
            {"key_user": user.id, "key_workspace": user.workspace_id, **self._values(state)},
        )

    def _values(self, state: StreakState) -> dict[str, Any]:
        return {
            "current": state.current,
            "longest": state.longest,
            "freezes": state.freezes,
            "last_day": state.last_day,
            "last_zone": state.last_zone,
            "nudge_at": state.nudge_at,
            "updated_at": self.clock.now(),
        }

    def add_day(self, user: User, day: date, *, answers: int = 1, frozen: bool = False) -> None:
        # One upsert: the day's first activity inserts the row, later ones add to it.
        run(
            self.session,
            _activity_upsert(self.session.connection().dialect.name),
            {
                "user_id": user.id,
                "local_date": day,
                "workspace_id": user.workspace_id,
                "answers": answers,
                "frozen": frozen,
            },
        )

    def days(self, user: User, first: date, last: date) -> dict[date, DayMark]:
        # columns, not ORM objects: ``add_day`` writes the rows with an upsert, which an
        # identity map would not see
        rows = self.session.execute(
            select(ActivityDayRow.local_date, ActivityDayRow.answers, ActivityDayRow.frozen).where(
                ActivityDayRow.user_id == user.id,
                ActivityDayRow.workspace_id == user.workspace_id,
                ActivityDayRow.local_date >= first,
                ActivityDayRow.local_date <= last,
            )
        )
        return {r.local_date: DayMark(r.answers, r.frozen) for r in rows}

    def first_day(self, user: User) -> date | None:
        return self.session.scalar(
            select(func.min(ActivityDayRow.local_date)).where(
                ActivityDayRow.user_id == user.id,
                ActivityDayRow.workspace_id == user.workspace_id,
            )
        )

    def zone_of(self, user: User) -> str:
        if user.timezone:
            return user.timezone
        if user.workspace_id not in self._zones:
            self._zones[user.workspace_id] = (
                self.session.scalar(
                    select(WorkspaceRow.timezone).where(WorkspaceRow.id == user.workspace_id)
                )
                or "UTC"
            )
        return self._zones[user.workspace_id]

    def channel_posts(self, user: User, first: date, last: date) -> list[ChannelPost] | None:
        channels = (
            select(DailyPromptRow.channel_id)
            .join(AttemptRow, AttemptRow.daily_prompt_id == DailyPromptRow.id)
            .where(AttemptRow.user_id == user.id, AttemptRow.workspace_id == user.workspace_id)
            .distinct()
        )
        ids = list(self.session.scalars(channels))
        if not ids:
            return None
        first_answer = (  # the user's first answer to each post (by the daily_prompt_id index)
            select(func.min(AttemptRow.answered_at))
            .where(
                AttemptRow.daily_prompt_id == DailyPromptRow.id,
                AttemptRow.user_id == user.id,
            )
            .correlate(DailyPromptRow)
            .scalar_subquery()
        )
        posted = self.session.execute(
            select(
                DailyPromptRow.channel_id,
                DailyPromptRow.local_date,
                DailyPromptRow.posted_at,
                first_answer,
            ).where(
                DailyPromptRow.workspace_id == user.workspace_id,
                DailyPromptRow.channel_id.in_(ids),
                DailyPromptRow.local_date >= first,
                DailyPromptRow.local_date <= last,
            )
        ).all()
        coming = self.session.execute(
            select(
                ChannelScheduleRow.channel_id,
                ChannelScheduleRow.next_post_at,
                ChannelScheduleRow.timezone,
            ).where(
                ChannelScheduleRow.workspace_id == user.workspace_id,
                ChannelScheduleRow.channel_id.in_(ids),
                ChannelScheduleRow.paused.is_(False),
                # a post still to come: one overdue and never made (the bot was down past
                # the grace) leaves its day free
                ChannelScheduleRow.next_post_at >= self.clock.now(),
            )
        ).all()
        posts = [ChannelPost(day, at, answered_at) for _, day, at, answered_at in posted]
        made = {(channel_id, day) for channel_id, day, _, _ in posted}
        for channel_id, at, zone_name in coming:
            if at is None:
                continue
            day = at.astimezone(zone(zone_name)).date()
            if first <= day <= last and (channel_id, day) not in made:
                posts.append(ChannelPost(day, at))
        return posts

    def set_nudges(self, user: User, enabled: bool) -> None:
        self.session.execute(
            update(UserRow)
            .where(UserRow.id == user.id, UserRow.workspace_id == user.workspace_id)
            .values(nudges=enabled)
            .execution_options(synchronize_session=False)
        )

    def next_nudge_at(self) -> datetime | None:
        return self.session.scalar(
            select(StreakRow.nudge_at)
            .where(StreakRow.nudge_at.is_not(None))
            .order_by(StreakRow.nudge_at)
            .limit(1)
        )

    def claim_nudges(self, now: datetime, limit: int) -> list[NudgeTarget]:
        rows = self.session.execute(
            select(StreakRow, UserRow, WorkspaceRow.platform, WorkspaceRow.timezone)
            .join(UserRow, UserRow.id == StreakRow.user_id)
            .join(WorkspaceRow, WorkspaceRow.id == UserRow.workspace_id)
            .where(StreakRow.nudge_at <= now)
            .order_by(StreakRow.nudge_at, StreakRow.user_id)
            .limit(limit)
            .with_for_update(skip_locked=True, of=StreakRow)
        ).all()
        return [
            NudgeTarget(_user(u), _state(s), u.timezone or tz or "UTC", platform)
            for s, u, platform, tz in rows
        ]


def _away(row: AwayPeriodRow) -> AwayPeriod:
    return AwayPeriod(row.id, row.user_id, row.first_day, row.last_day)


class SqlAway(_Repo):
    """Time-away periods (``bot.core.away``), scoped by the user's workspace."""

    def _mine(self, user: User) -> Any:
        return select(AwayPeriodRow).where(
            AwayPeriodRow.user_id == user.id, AwayPeriodRow.workspace_id == user.workspace_id
        )

    def add(self, user: User, first: date, last: date, now: datetime) -> AwayPeriod:
        row = AwayPeriodRow(
            workspace_id=user.workspace_id,
            user_id=user.id,
            first_day=first,
            last_day=last,
            created_at=now,
        )
        self.session.add(row)
        self.session.flush()
        return _away(row)

    def periods(self, user: User, from_day: date) -> list[AwayPeriod]:
        rows = self.session.scalars(
            self._mine(user)
            .where(AwayPeriodRow.last_day >= from_day)
            .order_by(AwayPeriodRow.first_day, AwayPeriodRow.id)
        )
        return [_away(r) for r in rows]

    def ranges(self, user: User, first: date, last: date) -> list[tuple[date, date]]:
        rows = self.session.scalars(
            self._mine(user).where(AwayPeriodRow.last_day >= first, AwayPeriodRow.first_day <= last)
        )
        return [(r.first_day, r.last_day) for r in rows]

    def set_last(self, user: User, period_id: int, last: date) -> None:
        row = self.session.scalars(self._mine(user).where(AwayPeriodRow.id == period_id)).one()
        row.last_day = last

    def delete(self, user: User, period_id: int) -> bool:
        row = self.session.scalars(
            self._mine(user).where(AwayPeriodRow.id == period_id)
        ).one_or_none()
        if row is None:
            return False
        self.session.delete(row)
        return True


# -- interview goals ------------------------------------------------------------------------


def _goal(row: InterviewGoalRow) -> Goal:
    return Goal(row.user_id, row.day, row.format, row.mock_suggested_at)


class SqlGoals(_Repo):
    """Interview dates (``bot.core.goal``), one per user, scoped by the user's workspace."""

    def _row(self, user: User) -> InterviewGoalRow | None:
        return self.session.scalars(
            select(InterviewGoalRow).where(
                InterviewGoalRow.user_id == user.id,
                InterviewGoalRow.workspace_id == user.workspace_id,
            )
        ).one_or_none()

    def get(self, user: User) -> Goal | None:
        row = self._row(user)
        return None if row is None else _goal(row)

    def set(self, user: User, day: date, fmt: str, now: datetime) -> Goal:
        values = {
            "user_id": user.id,
            "workspace_id": user.workspace_id,
            "day": day,
            "format": fmt,
            "created_at": now,
            "mock_suggested_at": None,
        }
        if insert_row(self.session, InterviewGoalRow, values) is None:
            self.session.execute(
                update(InterviewGoalRow)
                .where(
                    InterviewGoalRow.user_id == user.id,
                    InterviewGoalRow.workspace_id == user.workspace_id,
                )
                .values(day=day, format=fmt, created_at=now, mock_suggested_at=None)
            )
        return Goal(user.id, day, fmt, None)

    def clear(self, user: User) -> bool:
        row = self._row(user)
        if row is None:
            return False
        self.session.delete(row)
        return True

    def mark_suggested(self, user: User, now: datetime) -> None:
        self.session.execute(
            update(InterviewGoalRow)
            .where(
                InterviewGoalRow.user_id == user.id,
                InterviewGoalRow.workspace_id == user.workspace_id,
            )
            .values(mock_suggested_at=now)
        )

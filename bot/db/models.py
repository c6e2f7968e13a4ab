"""SQLAlchemy 2.0 typed models. Alembic owns the schema: every change is a revision.

All times are stored as aware UTC datetimes; local dates (a user's or a
channel's calendar day) are stored as dates next to the zone they belong to.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime on every backend (SQLite keeps no zone of its own)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime, dict[str, Any]: JSON, list[Any]: JSON}  # noqa: RUF012


class WorkspaceRow(Base):
    """A Slack team, a Discord guild, or the console."""

    __tablename__ = "workspace"
    __table_args__ = (UniqueConstraint("platform", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    created_at: Mapped[datetime]


class UserRow(Base):
    __tablename__ = "user"
    __table_args__ = (UniqueConstraint("workspace_id", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    timezone: Mapped[str | None] = mapped_column(String(64))
    timezone_checked_at: Mapped[datetime | None]
    nudges: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime]


class TeamRow(Base):
    """A study group. The workspace itself is everyone's default team and has no row."""

    __tablename__ = "team"
    __table_args__ = (UniqueConstraint("workspace_id", "name_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]


class TeamMemberRow(Base):
    __tablename__ = "team_member"

    team_id: Mapped[int] = mapped_column(
        ForeignKey("team.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    joined_at: Mapped[datetime]


class ChannelRow(Base):
    __tablename__ = "channel"
    __table_args__ = (UniqueConstraint("workspace_id", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime]
    # Seconds a live-round question stays open here; NULL means the default.
    live_seconds: Mapped[int | None] = mapped_column(Integer)


class ChannelScheduleRow(Base):
    """When and what a channel's daily question is; ``next_post_at`` is what is due."""

    __tablename__ = "channel_schedule"

    channel_id: Mapped[int] = mapped_column(
        ForeignKey("channel.id", ondelete="CASCADE"), primary_key=True
    )
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    local_time: Mapped[str] = mapped_column(String(5), default="09:00")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    weekdays: Mapped[str] = mapped_column(String(32), default="mon,tue,wed,thu,fri")
    topics: Mapped[list[Any]] = mapped_column(default=list)
    roles: Mapped[list[Any]] = mapped_column(default=list)
    difficulty_mix: Mapped[dict[str, Any]] = mapped_column(default=dict)
    reveal_delay_minutes: Mapped[int] = mapped_column(Integer, default=480)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    skip_dates: Mapped[list[Any]] = mapped_column(default=list)
    next_post_at: Mapped[datetime | None] = mapped_column(index=True)
    updated_at: Mapped[datetime]


class QuestionRow(Base):
    """A question synced from the content packs, keyed by its content id."""

    __tablename__ = "question"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    pack: Mapped[str] = mapped_column(String(64))
    topic: Mapped[str] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    difficulty: Mapped[int] = mapped_column(Integer)
    roles: Mapped[list[Any]] = mapped_column(default=list)
    prompt: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(32))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    synced_at: Mapped[datetime]


class DailyPromptRow(Base):
    """The question a channel got on one local date: at most one per channel and date."""

    __tablename__ = "daily_prompt"
    __table_args__ = (
        UniqueConstraint("channel_id", "local_date"),
        Index("ix_daily_prompt_revealed_at_reveal_at", "revealed_at", "reveal_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channel.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(ForeignKey("question.id"))
    local_date: Mapped[date] = mapped_column(Date)
    posted_at: Mapped[datetime]
    reveal_at: Mapped[datetime] = mapped_column(index=True)
    revealed_at: Mapped[datetime | None]
    # The post's platform id is on its outbox row (key ``daily:<id>:post``), kept for good.


class AttemptRow(Base):
    """One answer by one user. ``scored_prompt_id`` is set only on the scored attempt at a
    daily prompt, so the unique constraint allows exactly one scored attempt per prompt."""

    __tablename__ = "attempt"
    __table_args__ = (
        UniqueConstraint("user_id", "scored_prompt_id"),
        Index("ix_attempt_workspace_id_answered_at", "workspace_id", "answered_at"),
        Index("ix_attempt_user_id_question_id", "user_id", "question_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(ForeignKey("question.id"))
    daily_prompt_id: Mapped[int | None] = mapped_column(
        ForeignKey("daily_prompt.id", ondelete="CASCADE"), index=True
    )
    scored_prompt_id: Mapped[int | None] = mapped_column(
        ForeignKey("daily_prompt.id", ondelete="CASCADE")
    )
    quiz_session_id: Mapped[int | None] = mapped_column(
        ForeignKey("quiz_session.id", ondelete="SET NULL"), index=True
    )
    answer: Mapped[str] = mapped_column(Text)
    score: Mapped[float] = mapped_column(Float)
    verdict: Mapped[str] = mapped_column(String(16))
    points: Mapped[int] = mapped_column(Integer, default=0)
    grader_version: Mapped[str] = mapped_column(String(32))
    # the judge's model when a judge took part in the grade (docs/judge.md), else ""
    grader_model: Mapped[str] = mapped_column(String(200), default="", server_default="")
    content_hash: Mapped[str] = mapped_column(String(32))
    answered_at: Mapped[datetime]


class AttemptGradeRow(Base):
    """Every grade an attempt has had: the first one, then one per regrade."""

    __tablename__ = "attempt_grade"

    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[int] = mapped_column(
        ForeignKey("attempt.id", ondelete="CASCADE"), index=True
    )
    grader_version: Mapped[str] = mapped_column(String(32))
    # the judge's model when a judge took part in the grade (docs/judge.md), else ""
    grader_model: Mapped[str] = mapped_column(String(200), default="", server_default="")
    content_hash: Mapped[str] = mapped_column(String(32))
    score: Mapped[float] = mapped_column(Float)
    verdict: Mapped[str] = mapped_column(String(16))
    feedback: Mapped[str] = mapped_column(Text, default="")
    graded_at: Mapped[datetime]


class ActivityDayRow(Base):
    """A day, in the user's own zone at the time, on which the user answered something."""

    __tablename__ = "activity_day"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    local_date: Mapped[date] = mapped_column(Date, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    answers: Mapped[int] = mapped_column(Integer, default=0)
    frozen: Mapped[bool] = mapped_column(Boolean, default=False)


class AwayPeriodRow(Base):
    """A user's time away: local dates ``first_day`` to ``last_day``, both included."""

    __tablename__ = "away_period"
    __table_args__ = (Index("ix_away_period_user_id_last_day", "user_id", "last_day"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    first_day: Mapped[date] = mapped_column(Date)
    last_day: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime]


class InterviewGoalRow(Base):
    """A user's interview date (``/goal``): a local date and the mock format it is like."""

    __tablename__ = "interview_goal"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    day: Mapped[date] = mapped_column(Date)
    format: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]
    mock_suggested_at: Mapped[datetime | None]  # /stats suggested a mock (once per date)


class StreakRow(Base):
    __tablename__ = "streak"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    current: Mapped[int] = mapped_column(Integer, default=0)
    longest: Mapped[int] = mapped_column(Integer, default=0)
    last_day: Mapped[date | None] = mapped_column(Date)
    freezes: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime]
    last_zone: Mapped[str | None] = mapped_column(String(64))  # zone of the latest activity
    nudge_at: Mapped[datetime | None] = mapped_column(index=True)  # next evening nudge


class ReviewCardRow(Base):
    """Spaced-repetition state of one question for one user."""

    __tablename__ = "review_card"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    question_id: Mapped[str] = mapped_column(ForeignKey("question.id"), primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    due_at: Mapped[datetime] = mapped_column(index=True)
    last_review_at: Mapped[datetime | None]
    reps: Mapped[int] = mapped_column(Integer, default=0)
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    leech: Mapped[bool] = mapped_column(Boolean, default=False)
    buried_until: Mapped[datetime | None]


class ReviewSettingRow(Base):
    """A user's own review settings: the daily limit (``/review limit N``)."""

    __tablename__ = "review_setting"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    daily_limit: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime]


class QuizSessionRow(Base):
    __tablename__ = "quiz_session"
    __table_args__ = (Index("ix_quiz_session_user_id_status", "user_id", "status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channel.id", ondelete="CASCADE"))
    mode: Mapped[str] = mapped_column(String(16), default="personal")
    status: Mapped[str] = mapped_column(String(16), default="open")
    topic: Mapped[str | None] = mapped_column(String(64))
    question_ids: Mapped[list[Any]] = mapped_column(default=list)
    position: Mapped[int] = mapped_column(Integer, default=0)
    asked_at: Mapped[datetime | None]
    due_at: Mapped[datetime | None] = mapped_column(index=True)
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    started_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    # "user:<id>" for an open personal quiz, "live:<channel id>" for an open live round,
    # NULL once over: the unique constraint allows one of each at a time.
    open_key: Mapped[str | None] = mapped_column(String(64), unique=True)


class MockInterviewRow(Base):
    __tablename__ = "mock_interview"
    __table_args__ = (Index("ix_mock_interview_status_starts_at", "status", "starts_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    candidate_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    interviewer_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    channel_id: Mapped[int | None] = mapped_column(ForeignKey("channel.id", ondelete="SET NULL"))
    format: Mapped[str] = mapped_column(String(16), default="loop")
    status: Mapped[str] = mapped_column(String(16), default="scheduled")
    starts_at: Mapped[datetime]
    round_minutes: Mapped[int] = mapped_column(Integer, default=8)
    thread_ref: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    # The mock's next clock-driven step (its start, a round's time box, the debrief wait);
    # NULL once nothing more is due. The mock job looks only at this.
    next_at: Mapped[datetime | None] = mapped_column(index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)  # the round being asked
    in_dm: Mapped[bool] = mapped_column(Boolean, default=False)
    candidate_accepted_at: Mapped[datetime | None]
    interviewer_accepted_at: Mapped[datetime | None]
    declined_by: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    started_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    sequence: Mapped[int] = mapped_column(Integer, default=0)  # .ics SEQUENCE: bumps on a move
    focus: Mapped[str | None] = mapped_column(String(16))  # "weak": rounds from weak topics


class MockRoundRow(Base):
    __tablename__ = "mock_round"
    __table_args__ = (UniqueConstraint("mock_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    mock_id: Mapped[int] = mapped_column(ForeignKey("mock_interview.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    question_id: Mapped[str] = mapped_column(ForeignKey("question.id"))
    started_at: Mapped[datetime | None]
    ends_at: Mapped[datetime | None]
    answer: Mapped[str | None] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float)
    verdict: Mapped[str | None] = mapped_column(String(16))
    vote: Mapped[str | None] = mapped_column(String(16))
    note: Mapped[str | None] = mapped_column(Text)
    topic: Mapped[str] = mapped_column(String(64), default="")
    matched: Mapped[list[Any]] = mapped_column(default=list)
    missed: Mapped[list[Any]] = mapped_column(default=list)
    feedback: Mapped[str] = mapped_column(Text, default="")
    answered_at: Mapped[datetime | None]
    outcome: Mapped[str | None] = mapped_column(String(16))  # answered | timed_out | stopped


class ReminderRow(Base):
    __tablename__ = "reminder"
    __table_args__ = (UniqueConstraint("mock_id", "user_id", "offset_minutes"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    mock_id: Mapped[int] = mapped_column(ForeignKey("mock_interview.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    offset_minutes: Mapped[int] = mapped_column(Integer)
    due_at: Mapped[datetime] = mapped_column(index=True)
    sent_at: Mapped[datetime | None]
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)


class MockWindowRow(Base):
    """A weekly window in which a user is free for a peer mock (local minutes, own zone)."""

    __tablename__ = "mock_window"

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(
        ForeignKey("workspace.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    weekdays: Mapped[str] = mapped_column(String(20))  # "0,1,2,3,4": Monday is 0
    start_minute: Mapped[int] = mapped_column(Integer)
    end_minute: Mapped[int] = mapped_column(Integer)
    timezone: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]


class MockPrefRow(Base):
    """A user's mock settings: minutes before a mock at which to remind them."""

    __tablename__ = "mock_pref"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    reminder_minutes: Mapped[list[Any]] = mapped_column(default=list)


class OutboxRow(Base):
    """A message to deliver, written in the same transaction as the change that caused it.
    ``message_ref`` is the platform's id of the message once sent: a daily post's or a
    mock thread's rows are how replies in their threads find them."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next_attempt_at", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    platform: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(200), unique=True)
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    tries: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime]
    claimed_until: Mapped[datetime | None]
    sent_at: Mapped[datetime | None]
    message_ref: Mapped[str | None] = mapped_column(String(64), index=True)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]


class DeliveryWorkerRow(Base):
    """A process that delivers the outbox, alive while ``seen_at`` is recent: each one
    beats every few seconds, and each paces a workspace at its rate divided by the live
    workers (``bot.pacing``), so several workers together stay within one workspace's
    limit."""

    __tablename__ = "delivery_worker"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    started_at: Mapped[datetime]
    seen_at: Mapped[datetime] = mapped_column(index=True)


class PointsBucketRow(Base):
    """Leaderboard aggregate: a user's points and scored answers in one period
    (``w:2026-W49``, ``m:2026-12`` in the workspace's zone, or ``all``), kept up to date in
    the transaction that records the scored attempt."""

    __tablename__ = "points_bucket"
    __table_args__ = (
        Index(
            "ix_points_bucket_workspace_id_period_points",
            "workspace_id",
            "period",
            "points",
            "user_id",
        ),
    )

    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    period: Mapped[str] = mapped_column(String(16), primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    answers: Mapped[int] = mapped_column(Integer, default=0)


class WeeklyRecapRow(Base):
    """When a workspace's next weekly leaderboard recap is due (Monday 00:00 in its zone)."""

    __tablename__ = "weekly_recap"

    workspace_id: Mapped[int] = mapped_column(
        ForeignKey("workspace.id", ondelete="CASCADE"), primary_key=True
    )
    next_at: Mapped[datetime] = mapped_column(index=True)
    last_done_at: Mapped[datetime | None]


class DisputeRow(Base):
    """A user's dispute of one attempt's grade (at most one per attempt), what the grade was
    when it was disputed, and an admin's decision: accepted (the attempt re-graded) or
    rejected with a note."""

    __tablename__ = "dispute"
    __table_args__ = (Index("ix_dispute_workspace_id_status_id", "workspace_id", "status", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    attempt_id: Mapped[int] = mapped_column(
        ForeignKey("attempt.id", ondelete="CASCADE"), unique=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16))
    verdict_before: Mapped[str] = mapped_column(String(16))
    score_before: Mapped[float] = mapped_column(Float)
    feedback_before: Mapped[str] = mapped_column(Text, default="")
    grader_before: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime]
    resolved_at: Mapped[datetime | None]
    resolved_by: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    verdict_after: Mapped[str | None] = mapped_column(String(16))
    score_after: Mapped[float | None] = mapped_column(Float)
    note: Mapped[str] = mapped_column(Text, default="")


class DeliverySeenRow(Base):
    """A platform delivery already taken (a Slack event or trigger, a Discord interaction),
    so that a retry or replay reaching any worker is handled once. Kept for an hour: Slack
    refuses requests older than five minutes and retries for less, and a Discord
    interaction's token lasts fifteen."""

    __tablename__ = "delivery_seen"

    platform: Mapped[str] = mapped_column(String(16), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(index=True)


class SeasonRow(Base):
    """One leaderboard season of a workspace: ``[starts_at, ends_at)``, named by its start
    (``2026-12`` for a month-long season from the 1st, else ``2026-12-15``). Its points are
    the ``s:NAME`` aggregates. ``closed_at`` is set once, by the worker that posts its final
    board; ``next_length`` is how long the season after it lasts (``1m``, ``2w``)."""

    __tablename__ = "season"
    __table_args__ = (UniqueConstraint("workspace_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(16))
    starts_at: Mapped[datetime]
    ends_at: Mapped[datetime] = mapped_column(index=True)
    next_length: Mapped[str] = mapped_column(String(8), default="1m")
    closed_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class PairingChannelRow(Base):
    """A channel's recurring pairing round: weekly on ``weekday`` at ``minute`` (local, in
    ``timezone``); ``next_at`` is the next round, NULL while it is off."""

    __tablename__ = "pairing_channel"

    channel_id: Mapped[int] = mapped_column(
        ForeignKey("channel.id", ondelete="CASCADE"), primary_key=True
    )
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    weekday: Mapped[int] = mapped_column(Integer, default=0)  # Monday is 0
    minute: Mapped[int] = mapped_column(Integer, default=540)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    next_at: Mapped[datetime | None] = mapped_column(index=True)
    updated_at: Mapped[datetime]


class PairingMemberRow(Base):
    """Someone who opted in to a channel's pairing rounds."""

    __tablename__ = "pairing_member"

    channel_id: Mapped[int] = mapped_column(
        ForeignKey("channel.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    joined_at: Mapped[datetime]


class PairingMatchRow(Base):
    """One person's place in one round: paired with ``partner_id`` (a proposed mock at
    ``slot_at``), or left out (``partner_id`` NULL, ``reason`` says why). Each pair has two
    rows, one per person, so each answers the check-in for themselves."""

    __tablename__ = "pairing_match"
    __table_args__ = (
        UniqueConstraint("channel_id", "round_at", "user_id"),
        Index("ix_pairing_match_checkin_at_checkin_sent_at", "checkin_at", "checkin_sent_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspace.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channel.id", ondelete="CASCADE"))
    round_at: Mapped[datetime]
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    partner_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    mock_id: Mapped[int | None] = mapped_column(
        ForeignKey("mock_interview.id", ondelete="SET NULL")
    )
    slot_at: Mapped[datetime | None]
    reason: Mapped[str] = mapped_column(String(16), default="")  # "", "odd", "no-overlap"
    checkin_at: Mapped[datetime | None]
    checkin_sent_at: Mapped[datetime | None]
    happened: Mapped[bool | None] = mapped_column(Boolean)
    answered_at: Mapped[datetime | None]

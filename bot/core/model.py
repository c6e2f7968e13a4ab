"""Records the core works with, and the repositories of the shared ones (workspaces,
users, channels, attempts). Storage maps its rows to these; the core never sees a row."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from bot.core.ports import Port


@dataclass(frozen=True, slots=True)
class Workspace:
    id: int
    platform: str
    external_id: str
    name: str
    timezone: str


@dataclass(frozen=True, slots=True)
class User:
    id: int
    workspace_id: int
    external_id: str
    name: str
    timezone: str | None
    nudges: bool = True

    @property
    def display(self) -> str:
        return self.name or self.external_id


@dataclass(frozen=True, slots=True)
class Channel:
    id: int
    workspace_id: int
    external_id: str
    name: str
    live_seconds: int | None = None  # a live question's countdown here; None: the default


@dataclass(frozen=True, slots=True)
class DailyPrompt:
    id: int
    workspace_id: int
    channel_id: int
    question_id: str
    local_date: date
    posted_at: datetime
    reveal_at: datetime
    revealed_at: datetime | None
    message_ref: str | None  # the post's platform id once it was sent (from its outbox row)


@dataclass(frozen=True, slots=True)
class Attempt:
    """An answer as recorded; ``scored`` is true only for the one attempt that counts."""

    user_id: int
    workspace_id: int
    question_id: str
    answer: str
    score: float
    verdict: str
    feedback: str
    grader_version: str
    content_hash: str
    answered_at: datetime
    daily_prompt_id: int | None = None
    quiz_session_id: int | None = None
    scored: bool = False
    points: int = 0
    id: int | None = None
    grader_model: str = ""  # the judge's model when a judge took part in the grade


@dataclass(frozen=True, slots=True)
class Actor:
    """Who acts, and where: an event's workspace, user and channel."""

    workspace: Workspace
    user: User
    channel: Channel


class WorkspaceRepository(Protocol):
    def ensure(self, platform: str, external_id: str, name: str = "") -> Workspace:
        """The workspace with this platform id, created on first sight."""
        ...


class UserRepository(Protocol):
    def ensure(
        self, workspace: Workspace, external_id: str, name: str = "", timezone: str | None = None
    ) -> User:
        """The user, created on first sight; a newly reported name or zone is kept."""
        ...

    def get(self, workspace: Workspace, user_id: int) -> User | None: ...

    def find(self, workspace: Workspace, handle: str) -> list[User]:
        """The users whose platform id or name is ``handle`` (case-insensitively), oldest
        first."""
        ...

    def set_timezone(self, user: User, timezone: str) -> User: ...


class ChannelRepository(Protocol):
    def ensure(self, workspace: Workspace, external_id: str, name: str = "") -> Channel: ...

    def get(self, workspace: Workspace, channel_id: int) -> Channel | None: ...

    def set_live_seconds(self, channel: Channel, seconds: int | None) -> Channel:
        """Set how long a live-round question stays open in ``channel`` (None: the default)."""
        ...


class AttemptRepository(Protocol):
    def add(self, attempt: Attempt) -> Attempt:
        """Store an attempt and its first grade; returns it with its id.

        A second scored attempt at the same daily prompt is stored unscored.
        """
        ...


class ActorRepository(Protocol):
    def ensure(
        self,
        platform: str,
        workspace: str,
        user: str,
        channel: str,
        user_name: str = "",
        user_tz: str | None = None,
    ) -> Actor:
        """The workspace, user and channel of an event, by their platform ids: what
        ``WORKSPACES``, ``USERS`` and ``CHANNELS``' ``ensure`` give (each created on first
        sight, a newly reported name or zone kept), found in one read when all three are
        known."""
        ...


WORKSPACES = Port[WorkspaceRepository]("workspaces")
USERS = Port[UserRepository]("users")
CHANNELS = Port[ChannelRepository]("channels")
ATTEMPTS = Port[AttemptRepository]("attempts")
ACTORS = Port[ActorRepository]("actors")

"""The narrow interfaces through which the core reaches storage and the outside world.

Every repository method that reads user data takes the workspace (or a record
that belongs to one), so nothing of one Slack team or Discord guild is ever
visible in another.
"""

from __future__ import annotations

from datetime import date, datetime
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from bot.core.messages import Outgoing
from bot.core.model import Attempt, Channel, DailyPrompt, User, Workspace

if TYPE_CHECKING:
    from bot.core.daily.schedule import DailyRepository, ScheduleRepository
    from bot.core.leaderboard import LeaderboardRepository
    from bot.core.mock.model import MockRepository
    from bot.core.quiz.model import QuizRepository
    from bot.core.srs import ReviewRepository
    from bot.core.stats import StatsRepository
    from bot.core.streaks import StreakRepository
    from bot.core.teams import TeamRepository


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

    def set_timezone(self, user: User, timezone: str) -> User: ...


class ChannelRepository(Protocol):
    def ensure(self, workspace: Workspace, external_id: str, name: str = "") -> Channel: ...

    def get(self, workspace: Workspace, channel_id: int) -> Channel | None: ...


class AttemptRepository(Protocol):
    def add(self, attempt: Attempt) -> Attempt:
        """Store an attempt and its first grade; returns it with its id.

        A second scored attempt at the same daily prompt is stored unscored.
        """
        ...

    def has_scored(self, user: User, prompt: DailyPrompt) -> bool: ...


class Outbox(Protocol):
    def add(
        self, workspace: Workspace, platform: str, message: Outgoing, key: str, due_at: datetime
    ) -> bool:
        """Queue ``message`` for delivery; False if a message with ``key`` exists already."""
        ...


class ChartRenderer(Protocol):
    """Draws charts as PNG bytes (``bot.charts`` with matplotlib; absent without it)."""

    def bar_chart(
        self, title: str, labels: list[str], values: list[float], highlight: int | None = None
    ) -> bytes:
        """Horizontal bars, largest first as given; ``highlight`` marks one bar (the caller)."""
        ...

    def calendar_heatmap(
        self, title: str, counts: dict[date, int], start: date, end: date
    ) -> bytes:
        """A GitHub-style calendar of ``start``..``end`` (weeks as columns), shaded by count."""
        ...


class UnitOfWork(Protocol):
    """One transaction: repositories share it; leaving without commit rolls back."""

    @property
    def workspaces(self) -> WorkspaceRepository: ...

    @property
    def users(self) -> UserRepository: ...

    @property
    def channels(self) -> ChannelRepository: ...

    @property
    def attempts(self) -> AttemptRepository: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def quizzes(self) -> QuizRepository: ...

    @property
    def reviews(self) -> ReviewRepository: ...

    @property
    def teams(self) -> TeamRepository: ...

    @property
    def leaderboard(self) -> LeaderboardRepository: ...

    @property
    def stats(self) -> StatsRepository: ...

    @property
    def schedules(self) -> ScheduleRepository: ...

    @property
    def daily(self) -> DailyRepository: ...

    @property
    def streaks(self) -> StreakRepository: ...

    @property
    def mocks(self) -> MockRepository: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

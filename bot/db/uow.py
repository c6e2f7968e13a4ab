"""The SQL unit of work: one session, one transaction, the repositories on top."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any, Self, TypeVar, cast

from sqlalchemy.orm import Session, sessionmaker

from bot.core.away import AWAY
from bot.core.clock import Clock
from bot.core.daily.schedule import DAILY, SCHEDULES
from bot.core.disputes import DISPUTES
from bot.core.events import DELIVERIES
from bot.core.goal import GOALS
from bot.core.leaderboard import LEADERBOARD
from bot.core.messages import OUTBOX
from bot.core.mock.model import MOCKS
from bot.core.mock.rounds import PAIRING
from bot.core.model import ACTORS, ATTEMPTS, CHANNELS, USERS, WORKSPACES
from bot.core.ports import Port
from bot.core.privacy import PERSONAL_DATA
from bot.core.quiz.model import QUIZZES
from bot.core.seasons import SEASONS
from bot.core.srs import REVIEWS
from bot.core.stats import STATS
from bot.core.streaks import STREAKS
from bot.core.teams import TEAMS
from bot.db.daily import SqlAway, SqlDaily, SqlGoals, SqlSchedules, SqlStreaks
from bot.db.disputes import SqlDisputes
from bot.db.leaderboard import SqlLeaderboard
from bot.db.mock import SqlMocks
from bot.db.pairing import SqlPairing
from bot.db.privacy import SqlPersonalData
from bot.db.quiz import SqlQuizzes, SqlReviews
from bot.db.repositories import (
    OUTBOX_ADDED,
    SqlActors,
    SqlAttempts,
    SqlChannels,
    SqlOutbox,
    SqlUsers,
    SqlWorkspaces,
)
from bot.db.seasons import SqlSeasons
from bot.db.seen import SqlDeliveries
from bot.db.stats import SqlStats
from bot.db.teams import SqlTeams

R = TypeVar("R")
Factory = Callable[[Session, Clock], R]
_FACTORIES: dict[Port[Any], Factory[Any]] = {}


def provide(port: Port[R], factory: Factory[R]) -> None:
    """Build ``port``'s repository with ``factory`` (typed: the repository must be the
    port's protocol)."""
    _FACTORIES[port] = factory


provide(WORKSPACES, SqlWorkspaces)
provide(USERS, SqlUsers)
provide(CHANNELS, SqlChannels)
provide(ATTEMPTS, SqlAttempts)
provide(ACTORS, SqlActors)
provide(OUTBOX, SqlOutbox)
provide(QUIZZES, SqlQuizzes)
provide(REVIEWS, SqlReviews)
provide(TEAMS, SqlTeams)
provide(LEADERBOARD, SqlLeaderboard)
provide(STATS, SqlStats)
provide(SCHEDULES, SqlSchedules)
provide(DAILY, SqlDaily)
provide(STREAKS, SqlStreaks)
provide(AWAY, SqlAway)
provide(MOCKS, SqlMocks)
provide(DISPUTES, SqlDisputes)
provide(PERSONAL_DATA, SqlPersonalData)
provide(GOALS, SqlGoals)
provide(SEASONS, SqlSeasons)
provide(PAIRING, SqlPairing)
provide(DELIVERIES, SqlDeliveries)


class SqlUnitOfWork:
    """Opens a session on enter; ``commit`` commits, leaving without it rolls back."""

    def __init__(
        self,
        session_factory: sessionmaker[Session],
        clock: Clock,
        on_outbox_commit: Callable[[], None] | None = None,
    ) -> None:
        self._factory = session_factory
        self._clock = clock
        self._on_outbox_commit = on_outbox_commit
        self._repositories: dict[Port[Any], Any] = {}

    def __enter__(self) -> Self:
        self.session = self._factory()
        self._repositories = {}  # a unit of work entered again starts with fresh ones
        return self

    def __getitem__(self, port: Port[R]) -> R:
        # Each repository is built the first time a use case reaches for it, so an event
        # pays only for the ones it uses.
        repository = self._repositories.get(port)
        if repository is None:
            repository = self._repositories[port] = _FACTORIES[port](self.session, self._clock)
        return cast(R, repository)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.session.rollback()
        finally:
            self.session.close()

    def commit(self) -> None:
        """Commit; when the transaction queued outbox messages, say so (``on_outbox_commit``:
        the background delivery's nudge)."""
        queued = self.session.info.pop(OUTBOX_ADDED, False)
        self.session.commit()
        if queued and self._on_outbox_commit is not None:
            self._on_outbox_commit()

    def rollback(self) -> None:
        self.session.info.pop(OUTBOX_ADDED, None)
        self.session.rollback()

"""The SQL unit of work: one session, one transaction, the repositories on top."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from types import TracebackType
from typing import Self

from sqlalchemy.orm import Session, sessionmaker

from bot.core.clock import Clock
from bot.db.daily import SqlDaily, SqlSchedules, SqlStreaks
from bot.db.leaderboard import SqlLeaderboard
from bot.db.mock import SqlMocks
from bot.db.quiz import SqlQuizzes, SqlReviews
from bot.db.repositories import (
    OUTBOX_ADDED,
    SqlAttempts,
    SqlChannels,
    SqlOutbox,
    SqlUsers,
    SqlWorkspaces,
)
from bot.db.stats import SqlStats
from bot.db.teams import SqlTeams

REPOSITORIES = (
    "workspaces",
    "users",
    "channels",
    "attempts",
    "outbox",
    "quizzes",
    "reviews",
    "teams",
    "leaderboard",
    "stats",
    "schedules",
    "daily",
    "streaks",
    "mocks",
)


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

    def __enter__(self) -> Self:
        self.session = self._factory()
        for name in REPOSITORIES:  # a unit of work entered again starts with fresh ones
            self.__dict__.pop(name, None)
        return self

    # Each repository is built the first time a use case reaches for it, so an event pays
    # only for the ones it uses.

    @cached_property
    def workspaces(self) -> SqlWorkspaces:
        return SqlWorkspaces(self.session, self._clock)

    @cached_property
    def users(self) -> SqlUsers:
        return SqlUsers(self.session, self._clock)

    @cached_property
    def channels(self) -> SqlChannels:
        return SqlChannels(self.session, self._clock)

    @cached_property
    def attempts(self) -> SqlAttempts:
        return SqlAttempts(self.session, self._clock)

    @cached_property
    def outbox(self) -> SqlOutbox:
        return SqlOutbox(self.session, self._clock)

    @cached_property
    def quizzes(self) -> SqlQuizzes:
        return SqlQuizzes(self.session, self._clock)

    @cached_property
    def reviews(self) -> SqlReviews:
        return SqlReviews(self.session, self._clock)

    @cached_property
    def teams(self) -> SqlTeams:
        return SqlTeams(self.session, self._clock)

    @cached_property
    def leaderboard(self) -> SqlLeaderboard:
        return SqlLeaderboard(self.session, self._clock)

    @cached_property
    def stats(self) -> SqlStats:
        return SqlStats(self.session, self._clock)

    @cached_property
    def schedules(self) -> SqlSchedules:
        return SqlSchedules(self.session, self._clock)

    @cached_property
    def daily(self) -> SqlDaily:
        return SqlDaily(self.session, self._clock)

    @cached_property
    def streaks(self) -> SqlStreaks:
        return SqlStreaks(self.session, self._clock)

    @cached_property
    def mocks(self) -> SqlMocks:
        return SqlMocks(self.session, self._clock)

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

"""The SQL unit of work: one session, one transaction, the repositories on top."""

from __future__ import annotations

from collections.abc import Callable
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
    SqlPrompts,
    SqlUsers,
    SqlWorkspaces,
)
from bot.db.stats import SqlStats
from bot.db.teams import SqlTeams


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
        self.workspaces = SqlWorkspaces(self.session, self._clock)
        self.users = SqlUsers(self.session, self._clock)
        self.channels = SqlChannels(self.session, self._clock)
        self.prompts = SqlPrompts(self.session, self._clock)
        self.attempts = SqlAttempts(self.session, self._clock)
        self.outbox = SqlOutbox(self.session, self._clock)
        self.quizzes = SqlQuizzes(self.session, self._clock)
        self.reviews = SqlReviews(self.session, self._clock)
        self.teams = SqlTeams(self.session, self._clock)
        self.leaderboard = SqlLeaderboard(self.session, self._clock)
        self.stats = SqlStats(self.session, self._clock)
        self.schedules = SqlSchedules(self.session, self._clock)
        self.daily = SqlDaily(self.session, self._clock)
        self.streaks = SqlStreaks(self.session, self._clock)
        self.mocks = SqlMocks(self.session, self._clock)
        return self

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

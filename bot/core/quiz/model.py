"""Quizzes: the records the use cases see and the repository they reach storage by.

A session is ``personal``, ``review`` or ``live``; ``open`` until it is ``done`` or
``abandoned``. All of a quiz's state lives in its row, so a quiz survives a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from bot.core.model import Attempt, Channel, User, Workspace
from bot.core.ports import Port

PERSONAL, REVIEW, LIVE = "personal", "review", "live"
OPEN, DONE, ABANDONED = "open", "done", "abandoned"


@dataclass(frozen=True, slots=True)
class QuizSession:
    """A quiz in progress or finished. ``position`` is the question being asked."""

    id: int
    workspace_id: int
    user_id: int | None
    channel_id: int
    mode: str
    status: str
    topic: str | None
    question_ids: tuple[str, ...]
    position: int
    asked_at: datetime | None
    due_at: datetime | None
    data: dict[str, Any]
    started_at: datetime

    @property
    def current(self) -> str | None:
        return self.question_ids[self.position] if self.position < len(self.question_ids) else None


@dataclass(frozen=True, slots=True)
class NewQuiz:
    user: User | None
    channel: Channel
    mode: str
    topic: str | None
    question_ids: tuple[str, ...]
    asked_at: datetime
    due_at: datetime | None
    data: dict[str, Any]
    open_key: str


class QuizRepository(Protocol):
    def open_for_user(self, workspace: Workspace, user: User) -> QuizSession | None:
        """The user's open personal quiz (or review), if any."""
        ...

    def open_live(self, workspace: Workspace, channel: Channel) -> QuizSession | None: ...

    def get(self, workspace: Workspace, session_id: int) -> QuizSession | None: ...

    def start(self, workspace: Workspace, quiz: NewQuiz, now: datetime) -> QuizSession | None:
        """Store a new open quiz; None if one with the same ``open_key`` is open already
        (one personal quiz per user, one live round per channel)."""
        ...

    def move(
        self,
        session: QuizSession,
        *,
        position: int,
        asked_at: datetime | None,
        due_at: datetime | None,
        data: dict[str, Any],
        status: str,
        now: datetime,
    ) -> QuizSession | None:
        """Compare-and-set: update ``session`` only if it is still open at the same position
        (another answer or worker may have moved it); None when it was not."""
        ...

    def live_next_due(self) -> datetime | None: ...

    def live_due(self, now: datetime) -> list[tuple[Workspace, Channel, QuizSession]]:
        """Open live rounds whose current question's countdown has run out."""
        ...

    def answers(self, session: QuizSession, question_id: str | None = None) -> list[Attempt]:
        """Attempts recorded in ``session`` (at one question when ``question_id``), in order."""
        ...


QUIZZES = Port[QuizRepository]("quizzes")

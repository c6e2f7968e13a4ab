"""Records the core works with. Storage maps its rows to these; the core never sees a row."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


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
    message_ref: str | None


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

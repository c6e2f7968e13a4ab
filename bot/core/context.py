"""What a use case gets: the unit of work, the clock, the bank, and who is acting where."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

from bot.core import grading
from bot.core.bank import QuestionBank
from bot.core.clock import Clock
from bot.core.content import Question
from bot.core.events import Event, EventKind
from bot.core.model import Channel, User, Workspace
from bot.core.ports import ChartRenderer, UnitOfWork
from bot.core.timezones import zone

Grader = Callable[[Question, str], grading.Grade]
"""Grades one answer to one question: ``bot.core.grading.grade`` unless bootstrap was told
otherwise. Raises UserError for an empty answer; a reply that is no answer at all comes
back with ``answered=False``."""


CHARTS_MISSING = (
    "Charts need matplotlib: install studybot with its charts extra, "
    "e.g. pip install '.[charts]' in a clone."
)


class OnceNote:
    """A note worth saying once: :meth:`take` gives its text the first time, then ``""``.

    Thread-safe: the core runs in worker threads, and of two replies built at once only one
    carries the note."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._told = False
        self._lock = threading.Lock()

    def take(self) -> str:
        with self._lock:
            if self._told:
                return ""
            self._told = True
            return self.text


@dataclass(frozen=True, slots=True)
class Services:
    """Everything long-lived that use cases share; built once by ``bootstrap``."""

    clock: Clock
    bank: QuestionBank
    charts: ChartRenderer | None = None  # PNG charts; None when matplotlib is not installed
    admin_ids: frozenset[str] = frozenset()  # platform user ids with admin rights
    grace: timedelta = timedelta(hours=1)  # due work missed by more than this is skipped
    grade: Grader = grading.grade  # every answer path grades through this
    # Said with the first chart-less reply of the app (one app a process: `studybot run`, a
    # console run), not with every /leaderboard and /stats.
    charts_note: OnceNote = field(default_factory=lambda: OnceNote(CHARTS_MISSING))


@dataclass(slots=True)
class Context:
    uow: UnitOfWork
    services: Services
    event: Event
    workspace: Workspace
    user: User
    channel: Channel

    @property
    def now(self) -> datetime:
        return self.services.clock.now()

    @property
    def is_admin(self) -> bool:
        """Workspace or server admins and the configured admin ids (``STUDYBOT_ADMINS``), as
        on every platform. The console has no admins of its own: there, while no admin id is
        configured, whoever sits at the terminal (any ``--user`` or ``/as`` name) is one; once
        some are, only the names they list are."""
        event, admins = self.event, self.services.admin_ids
        if event.platform == "console" and not admins:
            return True
        return event.is_admin or event.user in admins

    @property
    def bank(self) -> QuestionBank:
        return self.services.bank

    @property
    def user_zone(self) -> tzinfo:
        return zone(self.user.timezone or self.workspace.timezone)

    @property
    def workspace_zone(self) -> ZoneInfo:
        return zone(self.workspace.timezone)


def on_behalf_of(
    uow: UnitOfWork, services: Services, workspace: Workspace, user: User, channel: Channel
) -> Context:
    """A context for what the clock does in ``user``'s name, as if they had written in
    ``channel``: a mock round whose time box ended records the answer they had gathered."""
    event = Event(
        EventKind.MESSAGE,
        workspace.platform,
        workspace.external_id,
        channel.external_id,
        user.external_id,
        user_name=user.display,
    )
    return Context(uow, services, event, workspace, user, channel)

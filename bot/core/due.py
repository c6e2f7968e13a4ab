"""Work that falls due later: daily posts, reveals, nudges, reminders.

The database holds what is due; a job only answers "when is the next thing
due?" and "do what is due now". The scheduler (or the console's /advance)
calls them; any number of workers may, since jobs claim their rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from bot.core.context import Services
from bot.core.ports import UnitOfWork


class DueJob(Protocol):
    name: str

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        """The earliest instant at which this job has work, or None."""
        ...

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        """Do what is due at ``now`` (queueing messages in the outbox); return how many items."""
        ...

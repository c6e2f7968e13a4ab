"""The mocks' due jobs: reminders, and each mock's next clock-driven step."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.core.context import Services
from bot.core.mock.common import calendar, dm
from bot.core.mock.model import MOCKS
from bot.core.mock.reminders import (
    reminder_card,
)
from bot.core.mock.running import run_step
from bot.core.ports import UnitOfWork


@dataclass
class MockReminderJob:
    """Sends each due reminder once, by DM with the .ics file; cancelled mocks send none."""

    name: str = "mock-reminders"
    batch: int = 200

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[MOCKS].next_reminder()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done = 0
        for due in uow[MOCKS].claim_reminders(now, self.batch):
            card = reminder_card(uow, due.workspace, due.mock, due.user, now)
            dm(
                uow,
                due.workspace,
                due.user,
                card,
                f"mock:{due.mock.id}:remind:{due.user.id}:{due.offset_minutes}:s{due.mock.sequence}",
                now,
                (calendar(uow, due.workspace, due.mock, now),),
            )
            done += 1
        return done


@dataclass
class MockClockJob:
    """Each mock's next step when its time comes: start (or expire, or give up on a start
    missed by too long), close a round whose time box passed, end the debrief wait."""

    name: str = "mock-clock"
    batch: int = 100

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[MOCKS].next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        return sum(
            run_step(uow, services, ws, mock, now) for ws, mock in uow[MOCKS].due(now, self.batch)
        )

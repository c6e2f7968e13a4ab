"""The mocks' due jobs: reminders, and each mock's next clock-driven step."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from bot.core.away import is_away
from bot.core.context import Services
from bot.core.mock.common import calendar, dm, zone_of
from bot.core.mock.model import MOCKS, DueReminder
from bot.core.mock.reminders import (
    reminder_card,
)
from bot.core.mock.running import run_step
from bot.core.ports import UnitOfWork
from bot.core.timezones import zone

log = logging.getLogger(__name__)


def reminders_to_send(
    due: list[DueReminder], now: datetime, services: Services
) -> list[DueReminder]:
    """Of the reminders that fell due, the ones worth sending: one per person and mock,
    the latest that fell due (after downtime, "in 24 hours" and "in 1 hour" both due
    would say the same thing twice), and none that is late by more than the grace."""
    latest: dict[tuple[int, int], DueReminder] = {}
    for reminder in due:
        key = (reminder.mock.id, reminder.user.id)
        if key not in latest or reminder.due_at > latest[key].due_at:
            latest[key] = reminder
    fresh = [r for r in latest.values() if now - r.due_at <= services.grace]
    dropped = len(due) - len(fresh)
    if dropped:
        log.info("dropped %d mock reminder(s) that fell due while the bot was away", dropped)
    return sorted(fresh, key=lambda r: (r.due_at, r.mock.id, r.user.id))


def muted_by_time_away(uow: UnitOfWork, reminder: DueReminder, now: datetime) -> bool:
    """A reminder that comes on a day its person is away (``/away``, their local date) is
    muted: not sent, and not sent later either. The mock's other person is not affected."""
    day = now.astimezone(zone(zone_of(reminder.user, reminder.workspace))).date()
    return is_away(uow, reminder.user, day)


@dataclass
class MockReminderJob:
    """Sends each due reminder once, by DM with the .ics file; cancelled mocks send none.
    After downtime a person gets at most one reminder of a mock, and none past the grace
    (:func:`reminders_to_send`); none on a day they are away (:func:`muted_by_time_away`);
    a claimed reminder is never claimed again."""

    name: str = "mock-reminders"
    batch: int = 200

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[MOCKS].next_reminder()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        claimed = uow[MOCKS].claim_reminders(now, self.batch)
        for due in reminders_to_send(claimed, now, services):
            if muted_by_time_away(uow, due, now):
                log.info("muted a reminder of mock %d: its person is away", due.mock.id)
                continue
            card = reminder_card(uow, due.workspace, due.mock, due.user, now)
            dm(
                uow,
                due.workspace,
                due.user,
                card,
                f"mock:{due.mock.id}:remind:{due.user.id}:{due.offset_minutes}:s{due.mock.sequence}",
                now,
                (calendar(uow, due.workspace, due.mock, now),),
                stale_at=due.mock.starts_at,  # a reminder says nothing once the mock began
            )
        return len(claimed)  # reminders handled, sent or dropped


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

"""Reminders of a mock: planned as rows (``reminder``) for each participant who accepted,
at their chosen offsets before the start.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.core.messages import (
    Card,
)
from bot.core.mock.common import (
    describe,
    people,
    user_by_id,
    where,
    zone_of,
)
from bot.core.mock.model import (
    MOCKS,
    SCHEDULED,
    Mock,
)
from bot.core.mock.times import (
    in_words,
    show,
)
from bot.core.model import User, Workspace
from bot.core.ports import UnitOfWork

DEFAULT_OFFSETS = (24 * 60, 60)  # reminders: 24 h and 1 h before


def offsets_for(uow: UnitOfWork, user: User) -> list[int]:
    chosen = uow[MOCKS].reminder_offsets(user)
    return list(DEFAULT_OFFSETS) if chosen is None else chosen


def plan_reminders(uow: UnitOfWork, mock: Mock, user: User, now: datetime) -> int:
    """(Re)plan ``user``'s reminders of ``mock``: the ones still ahead of now."""
    due = [
        (offset, mock.starts_at - timedelta(minutes=offset))
        for offset in offsets_for(uow, user)
        if mock.starts_at - timedelta(minutes=offset) > now
    ]
    uow[MOCKS].set_reminders(mock, user, due)
    return len(due)


def plan_all_reminders(uow: UnitOfWork, workspace: Workspace, mock: Mock, now: datetime) -> None:
    uow[MOCKS].cancel_reminders(mock)
    if mock.status != SCHEDULED:
        return
    for user_id in mock.participants():
        user = user_by_id(uow, workspace, user_id)
        if user is not None and mock.accepted(user_id):
            plan_reminders(uow, mock, user, now)


def reminder_card(
    uow: UnitOfWork, workspace: Workspace, mock: Mock, user: User, now: datetime
) -> Card:
    candidate, interviewer = people(uow, workspace, mock)
    if user.id == candidate.id:
        role = (
            f"with {interviewer.display} interviewing"
            if interviewer is not None and mock.has_interviewer
            else "solo"
        )
    else:
        role = f"you interview {candidate.display}"
    return Card(
        title=f"Reminder: mock interview #{mock.id} in {in_words(mock.starts_at - now)}",
        blocks=(
            f"{show(mock.starts_at, zone_of(user, workspace))} · {describe(mock)} · {role}.",
            f"It opens {where(uow, workspace, mock)}. Cancel with /mock cancel {mock.id}, "
            f"move it with /mock reschedule {mock.id} WHEN.",
        ),
    )

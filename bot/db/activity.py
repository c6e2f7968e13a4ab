"""When a database last saw the bot at work: what the console compares its ``--clock`` with."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.db.models import AttemptRow, OutboxRow, UserRow


def latest_activity(session_factory: sessionmaker[Session]) -> datetime | None:
    """The latest instant at which anything was recorded: a message queued (posts, DMs,
    reminders), an answer, a new user; None for a database with none of these."""
    with session_factory() as session:
        found = [
            session.scalar(select(func.max(column)))
            for column in (OutboxRow.created_at, AttemptRow.answered_at, UserRow.created_at)
        ]
    return max((instant for instant in found if instant is not None), default=None)

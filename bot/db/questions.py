"""Keep the question table in step with the loaded bank (attempts refer to its ids)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.core.bank import QuestionBank
from bot.db.models import QuestionRow


def sync_questions(session: Session, bank: QuestionBank, now: datetime) -> int:
    """Insert new questions, update changed ones, deactivate removed ones; returns changes."""
    rows = {row.id: row for row in session.scalars(select(QuestionRow))}
    changed = 0
    for q in bank:
        row = rows.pop(q.id, None)
        if row is None:
            session.add(
                QuestionRow(
                    id=q.id,
                    pack=q.pack,
                    topic=q.topic,
                    kind=q.kind,
                    difficulty=q.difficulty,
                    roles=list(q.roles),
                    prompt=q.prompt,
                    content_hash=q.content_hash,
                    active=True,
                    synced_at=now,
                )
            )
            changed += 1
        elif row.content_hash != q.content_hash or not row.active or row.pack != q.pack:
            row.pack, row.topic, row.kind, row.difficulty = q.pack, q.topic, q.kind, q.difficulty
            row.roles, row.prompt, row.content_hash = list(q.roles), q.prompt, q.content_hash
            row.active, row.synced_at = True, now
            changed += 1
    for row in rows.values():
        if row.active:
            row.active = False
            changed += 1
    return changed


def store_bank(session_factory: Callable[[], Session], bank: QuestionBank, now: datetime) -> int:
    """:func:`sync_questions` in a transaction of its own, at start-up. Two workers that
    start at the same instant on a new database both find the table empty and insert the
    same questions; the second one's insert then fails on the primary key. It reads the
    table again (now holding the other's rows) and syncs against that, so both start."""
    try:
        with session_factory() as session, session.begin():
            return sync_questions(session, bank, now)
    except IntegrityError:
        with session_factory() as session, session.begin():
            return sync_questions(session, bank, now)

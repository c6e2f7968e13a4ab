"""Deliveries already taken: the one record, shared by every worker, of which platform
requests were handled, so that a retried or replayed one is handled once.

A delivery is taken by inserting ``(platform, key)`` with ON CONFLICT DO NOTHING: of any
number of workers that take the same delivery at once, exactly one inserts the row and
handles it. :class:`SqlDeliveries` does that inside an event's own unit of work (the core's
``DELIVERIES`` port), :class:`DeliveryLog` in a transaction of its own.
"""

from __future__ import annotations

import itertools
import logging
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from bot.core.clock import Clock
from bot.db.models import DeliverySeenRow
from bot.db.repositories import insert_row

log = logging.getLogger(__name__)

#: How long a delivery is remembered; longer than any platform retries or accepts a replay.
KEEP = timedelta(hours=1)
#: Forget old deliveries once every this many new ones (per process).
PRUNE_EVERY = 500
MAX_KEY = 200
_taken = itertools.count(1)  # deliveries this process took first (next() is atomic)


def take(session: Session, platform: str, key: str, now: datetime) -> bool:
    """Insert ``key`` of ``platform`` in ``session``'s transaction: True when this inserted
    it (first), False when the row was there. Now and then, forget deliveries older than
    :data:`KEEP` in the same transaction. Raises the database's error."""
    row = {"platform": platform, "key": key[:MAX_KEY], "seen_at": now}
    # RETURNING, not rowcount: a skipped row returns nothing on both databases
    first = insert_row(session, DeliverySeenRow, row) is not None
    if first and next(_taken) % PRUNE_EVERY == 0:
        gone = (
            session.connection()
            .execute(delete(DeliverySeenRow).where(DeliverySeenRow.seen_at < now - KEEP))
            .rowcount
        )
        log.debug("forgot %d deliveries older than %s", gone, KEEP)
    return first


class SqlDeliveries:
    """The ``DELIVERIES`` port: deliveries taken in the unit of work's own transaction."""

    def __init__(self, session: Session, clock: Clock) -> None:
        self.session = session
        self.clock = clock

    def first(self, platform: str, key: str) -> bool:
        return take(self.session, platform, key, self.clock.now())


class DeliveryLog:
    """``first_delivery(platform, key, now)`` over one engine, each in a transaction of its
    own; thread-safe like the engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def first_delivery(self, platform: str, key: str, now: datetime) -> bool:
        """True for the first time ``key`` is taken on ``platform`` (by any worker on this
        database), False for every retry or replay of it. Raises the database's error."""
        with Session(self.engine) as session, session.begin():
            return take(session, platform, key, now)

"""Deliveries already taken: the one record, shared by every worker, of which platform
requests were handled, so that a retried or replayed one is handled once.

``first_delivery`` inserts ``(platform, key)`` with ON CONFLICT DO NOTHING: of any number of
workers that take the same delivery at once, exactly one inserts the row and handles it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from bot.core.errors import ConfigError
from bot.db.models import DeliverySeenRow

log = logging.getLogger(__name__)

#: How long a delivery is remembered; longer than any platform retries or accepts a replay.
KEEP = timedelta(hours=1)
#: Forget old deliveries once every this many new ones (per process).
PRUNE_EVERY = 500
MAX_KEY = 200


class DeliveryLog:
    """``first_delivery(platform, key, now)`` over one engine; thread-safe like the engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._taken = 0

    def first_delivery(self, platform: str, key: str, now: datetime) -> bool:
        """True for the first time ``key`` is taken on ``platform`` (by any worker on this
        database), False for every retry or replay of it. Raises the database's error."""
        row = {"platform": platform, "key": key[:MAX_KEY], "seen_at": now}
        with self.engine.begin() as connection:
            insert = self._insert().values(**row).on_conflict_do_nothing()
            # RETURNING, not rowcount: a skipped row returns nothing on both databases
            first = connection.execute(insert.returning(DeliverySeenRow.key)).first() is not None
            if first:
                self._taken += 1
                if self._taken % PRUNE_EVERY == 0:
                    gone = connection.execute(
                        delete(DeliverySeenRow).where(DeliverySeenRow.seen_at < now - KEEP)
                    ).rowcount
                    log.debug("forgot %d deliveries older than %s", gone, KEEP)
        return first

    def _insert(self) -> postgresql.Insert | sqlite.Insert:
        name = self.engine.dialect.name
        if name == "postgresql":
            return postgresql.insert(DeliverySeenRow)
        if name == "sqlite":
            return sqlite.insert(DeliverySeenRow)
        raise ConfigError(f"studybot runs on SQLite and PostgreSQL, not on {name}")

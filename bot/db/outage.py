"""The database not answering (PostgreSQL down or restarting, a dropped connection): said
once per outage in the log, with the reason, and once when it answers again; meanwhile every
user who acts is told to try again shortly (:data:`TRY_AGAIN`), and nothing else changes:
the pool reconnects by itself once the database is back."""

from __future__ import annotations

import logging
import threading
import time

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

log = logging.getLogger("bot.db")
TRY_AGAIN = (
    "I can't reach my database right now, so that was not saved. Please try again in a minute."
)


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) says the database cannot be reached or used now,
    rather than that a query was wrong."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, PoolTimeout | OperationalError | InterfaceError):
            return True
        if isinstance(seen, DBAPIError) and seen.connection_invalidated:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class Outage:
    """Whether the database is known to be down in this process, and since when."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None

    @property
    def down(self) -> bool:
        return self.since is not None

    def failed(self, exc: BaseException) -> None:
        """A piece of work failed because the database did not answer: the first one of an
        outage is logged (one line, the reason), the others only counted by the caller."""
        with self._lock:
            if self.since is not None:
                return
            self.since = time.monotonic()
        reason = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        log.error(
            "the database is not answering (%s: %s); users are told to try again shortly, "
            "and this is said once until it answers again",
            type(exc).__name__,
            reason[:300],
        )

    def answered(self) -> None:
        """Work that needed the database succeeded: an outage in course is over."""
        if self.since is None:
            return
        with self._lock:
            since, self.since = self.since, None
        if since is not None:
            log.warning("the database answers again, after %.0fs", time.monotonic() - since)


#: The process's one view of the database's health.
OUTAGE = Outage()

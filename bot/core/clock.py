"""The one source of time. Nothing else calls ``datetime.now()``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Tells the current instant as an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class SimulatedClock:
    """A clock that stands still until moved: tests and the console's ``--clock``."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("the simulated clock needs an aware datetime")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by ``delta`` (never backward) and return the new instant."""
        if delta < timedelta(0):
            raise ValueError("time only moves forward")
        self._now += delta
        return self._now

    def set(self, instant: datetime) -> None:
        if instant.tzinfo is None:
            raise ValueError("the simulated clock needs an aware datetime")
        self._now = instant.astimezone(UTC)

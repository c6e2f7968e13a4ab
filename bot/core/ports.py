"""The narrow interfaces through which the core reaches storage and the outside world.

Storage is one :class:`UnitOfWork` per transaction. It knows no feature: each aggregate's
repository protocol lives next to the records it returns, with a :class:`Port` that names
it (``USERS`` in :mod:`bot.core.model`, ``MOCKS`` in :mod:`bot.core.mock.model`, …), and a
use case reaches it as ``uow[MOCKS]``, typed as that protocol. Every repository method
that reads user data takes the workspace (or a record that belongs to one), so nothing of
one Slack team or Discord guild is ever visible in another.
"""

from __future__ import annotations

from datetime import date
from types import TracebackType
from typing import Generic, Protocol, Self, TypeVar

R = TypeVar("R")


class Port(Generic[R]):
    """The name of one aggregate's repository in a unit of work; ``uow[port]`` is an ``R``.

    Defined once, next to the repository's protocol; ports compare by identity."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Port({self.name!r})"


class UnitOfWork(Protocol):
    """One transaction: the repositories it hands out share it; leaving without commit
    rolls back."""

    def __getitem__(self, port: Port[R]) -> R:
        """The repository ``port`` names, in this transaction (built the first time a use
        case reaches for it). Raises KeyError for a port the storage does not provide."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...


class ChartRenderer(Protocol):
    """Draws charts as PNG bytes (``bot.charts`` with matplotlib; absent without it)."""

    def bar_chart(
        self, title: str, labels: list[str], values: list[float], highlight: int | None = None
    ) -> bytes:
        """Horizontal bars, largest first as given; ``highlight`` marks one bar (the caller)."""
        ...

    def calendar_heatmap(
        self, title: str, counts: dict[date, int], start: date, end: date
    ) -> bytes:
        """A GitHub-style calendar of ``start``..``end`` (weeks as columns), shaded by count."""
        ...

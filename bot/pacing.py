"""Delivery pacing, shared between the workers on one database.

A platform's limit is per workspace (Slack: about 20 ``chat.postMessage`` a second per
workspace and app) or per bot (Discord: 50 requests a second). A notifier says which, and
at what rate, with its :class:`Rate`; the outbox delivery paces every message it sends
through one ``aiolimiter`` bucket per workspace (or per platform) at that rate.

Several worker processes on one database share each limit: every delivering worker keeps
a heartbeat row (``delivery_worker``), beating every :data:`BEAT_EVERY` seconds, and takes
``1 / live workers`` of each bucket (each send takes as many units of its bucket as there
are live workers, so N buckets together never send faster than one would). A worker
counts as live while its last beat is at most ``3 × BEAT_EVERY`` old: the share of a
worker that died (``kill -9``) is taken back by the others at their first beat after
that, within ``4 × BEAT_EVERY``; a worker that stops cleanly removes its row and its share
goes back at the others' next beat. A worker that joins while others deliver sends
nothing for ``1.5 × BEAT_EVERY``, so that each of them has counted it (and slowed down)
before it starts, and every new bucket starts spent (no burst of its own on top of a
burst another worker may have just sent, even one that has not counted it yet).
``3 × BEAT_EVERY`` must exceed a bucket's one-second period, so
that a dead worker's last burst has drained before its share is taken back.

The cost per message is no statement at all: one short transaction per worker every
:data:`BEAT_EVERY` seconds, whatever it sends.

Heartbeats are on the wall clock (``SystemClock``), not the bot's calendar clock, which a
test or the console may move: workers on several hosts need clocks kept in step (NTP), to
well within a beat.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.clock import Clock, SystemClock
from bot.db.models import DeliveryWorkerRow

if TYPE_CHECKING:
    from aiolimiter import AsyncLimiter

log = logging.getLogger(__name__)
BEAT_EVERY = 5.0  # seconds between a worker's heartbeats
FORGET_AFTER = timedelta(hours=1)  # a dead worker's row is deleted after this
MAX_BUCKETS = 10_000  # per process; the least recently used bucket goes first
_LOCK_KEY = 0x5EED_0017  # PostgreSQL advisory lock: one worker registers at a time


@dataclass(frozen=True, slots=True)
class Rate:
    """A platform's send limit: ``per_second`` messages, with bursts of one second's worth,
    for each workspace (``per="workspace"``) or for the whole platform (``"platform"``, a
    Discord bot's global limit)."""

    per_second: float
    per: Literal["workspace", "platform"] = "workspace"


class WorkerShare:
    """This worker's heartbeat, and how many delivering workers share each limit."""

    def __init__(
        self,
        session_factory: sessionmaker[Session],
        *,
        clock: Clock | None = None,
        beat_every: float = BEAT_EVERY,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock or SystemClock()
        self.beat_every = beat_every
        self.id = uuid.uuid4().hex
        self.workers = 1  # live delivering workers, this one included, as of the last beat
        self._beaten_at: float | None = None  # time.monotonic() of the last beat
        self._ready_at = 0.0  # a joining worker sends nothing before this
        self._beat: asyncio.Task[None] | None = None

    @property
    def alive_for(self) -> timedelta:
        """How long a beat keeps a worker counted."""
        return timedelta(seconds=3 * self.beat_every)

    def beat(self) -> tuple[int, bool]:
        """Write this worker's heartbeat; returns (live workers, whether this one joined,
        that is, was not counted as live by the others until now). Blocking."""
        now = self.clock.now()
        alive_since = now - self.alive_for
        with self.session_factory() as session, session.begin():
            if session.get_bind().dialect.name == "postgresql":
                # Two workers joining at once each see the other's row.
                session.execute(select(func.pg_advisory_xact_lock(_LOCK_KEY)))
            row = session.get(DeliveryWorkerRow, self.id)
            joined = row is None or row.seen_at < alive_since
            if row is None:
                session.add(DeliveryWorkerRow(id=self.id, started_at=now, seen_at=now))
            else:
                row.seen_at = now
            session.flush()
            live = session.scalar(
                select(func.count())
                .select_from(DeliveryWorkerRow)
                .where(DeliveryWorkerRow.seen_at >= alive_since)
            )
            session.execute(
                delete(DeliveryWorkerRow)
                .where(DeliveryWorkerRow.seen_at < now - FORGET_AFTER)
                .execution_options(synchronize_session=False)
            )
        return max(int(live or 0), 1), joined

    def leave(self) -> None:
        """Remove this worker's row (a clean stop): the others take its share back at their
        next beat. Blocking."""
        with self.session_factory() as session, session.begin():
            session.execute(
                delete(DeliveryWorkerRow)
                .where(DeliveryWorkerRow.id == self.id)
                .execution_options(synchronize_session=False)
            )
        self._beaten_at = None
        self.workers = 1

    async def refresh(self) -> None:
        """Beat now (in a thread) and take the new count."""
        from bot.delivery import in_thread  # delivery imports this module

        live, joined = await in_thread(self.beat)
        if live != self.workers:
            log.info("delivery: %d live worker(s) share each send limit", live)
        self.workers = live
        self._beaten_at = time.monotonic()
        if joined and live > 1:
            # The others count this worker at their next beat: wait for it.
            self._ready_at = self._beaten_at + 1.5 * self.beat_every

    async def keep_beating(self) -> None:
        """Beat about every :attr:`beat_every` seconds, for as long as the task runs."""
        while True:
            try:
                await self.refresh()
            except Exception:  # the database is down: delivery says so; beat again later
                log.debug("delivery heartbeat failed", exc_info=True)
            # a little early, so that sends rarely find the count a beat old and wait for it
            await asyncio.sleep(0.9 * self.beat_every)

    async def current(self) -> int:
        """How many workers share each limit now; beats first when the last beat is a beat
        old or more (and the first time), and waits while this worker is joining."""
        # A count older than a beat may miss a worker that joined meanwhile: beat first.
        stale = self._beaten_at is None or time.monotonic() - self._beaten_at >= self.beat_every
        if stale:
            if self._beat is None or self._beat.done():
                self._beat = asyncio.create_task(self.refresh())
            await asyncio.shield(self._beat)
        wait = self._ready_at - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        return self.workers


class Pacing:
    """One bucket per workspace (or per platform) at the notifier's rate; each send takes
    this worker's share of it."""

    def __init__(self, share: WorkerShare) -> None:
        self.share = share
        self._buckets: OrderedDict[tuple[str, str], tuple[AsyncLimiter, asyncio.Lock]] = (
            OrderedDict()
        )
        self._loop: asyncio.AbstractEventLoop | None = None

    async def wait(self, platform: str, rate: Rate, workspace: int) -> None:
        """Return when this worker may send one message to ``workspace`` on ``platform``."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # buckets bind to a loop
            self._buckets.clear()
            self._loop = loop
        key = (platform, str(workspace) if rate.per == "workspace" else "*")
        await self.share.current()  # beats when due; waits while this worker joins
        paced = self._buckets.get(key)
        if paced is None:
            # aiolimiter comes with the platforms' extras, as the notifiers that pace do
            from aiolimiter import AsyncLimiter

            paced = self._buckets[key] = (AsyncLimiter(rate.per_second, 1.0), asyncio.Lock())
            if len(self._buckets) > MAX_BUCKETS:
                self._buckets.popitem(last=False)
            # A new bucket starts spent: another worker may have just sent its burst, or
            # may start in the same instant and not be counted yet (two workers that join at
            # once each count only themselves until their next beat), so that all of them
            # together never burst past one bucket.
            await paced[0].acquire(paced[0].max_rate)
        self._buckets.move_to_end(key)
        bucket, turn = paced
        # One send at a time takes its units, one unit per live worker, counted again after
        # each unit: sends go out evenly spaced and in order, and one that waits while the
        # count changes (a worker joined, or one died) takes the new share.
        unit = min(1.0, bucket.max_rate)
        async with turn:
            taken = 0
            while taken < self.share.workers:
                await bucket.acquire(unit)
                taken += 1

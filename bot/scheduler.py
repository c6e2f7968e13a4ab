"""Everything that happens later, in one module.

``DueRunner`` asks each due job, then the outbox, what is due and runs it.
``start_scheduler`` wraps it in APScheduler 3 so a long-running process wakes
up every few seconds; the database, not APScheduler, holds the plan, so a
restart loses nothing and several workers can share one database.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.core.clock import SimulatedClock
from bot.core.context import Services
from bot.core.due import DueJob
from bot.core.ports import UnitOfWork
from bot.db.outage import OUTAGE, is_outage
from bot.delivery import OutboxDeliverer, in_thread

# APScheduler is imported by ``start_scheduler``: the console wakes the runner itself.
if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

log = logging.getLogger(__name__)
WAKE_EVERY = timedelta(seconds=5)
MAX_ROUNDS = 10_000  # batches per job per run: a guard against a job that never finishes


class DueRunner:
    def __init__(
        self,
        uow_factory: Callable[[], UnitOfWork],
        services: Services,
        jobs: Sequence[DueJob],
        deliverer: OutboxDeliverer,
    ) -> None:
        self.uow_factory = uow_factory
        self.services = services
        self.jobs = list(jobs)
        self.deliverer = deliverer
        self._runs: set[asyncio.Task[object]] = set()  # run_due calls in flight
        self._stopping = False  # the runs in flight end after their round in flight

    def next_due(self) -> datetime | None:
        """The earliest instant at which any job or the outbox has work (the jobs' reads
        in one transaction)."""
        instants: list[datetime] = []
        with self.uow_factory() as uow:
            for job in self.jobs:
                when = job.next_due(uow)
                if when is not None:
                    instants.append(when)
        outbox = self.deliverer.next_due()
        if outbox is not None:
            instants.append(outbox)
        return min(instants, default=None)

    async def run_due(self) -> int:
        """Run every due job at the current instant; returns how many items they handled.

        A job with a ``batch`` attribute is run again while it handles a full batch (each
        round is its own transaction, so a crash loses at most one uncommitted round and
        another worker picks it up). Each round that queues messages nudges the outbox's
        background delivery as it commits, so sending starts while the jobs still run; this
        call does not wait for it.
        """
        task = asyncio.current_task()
        if task is not None:
            self._runs.add(task)
        try:
            self.deliverer.start()
            now = self.services.clock.now()
            done = 0
            for job in self.jobs:
                if self._stopping:
                    break
                done += await self._run_job(job, now)
            self.deliverer.poke()  # retries that fell due, and whatever the jobs queued
            return done
        finally:
            if task is not None:
                self._runs.discard(task)

    async def finish_runs(self, timeout: float) -> None:
        """Let the :meth:`run_due` calls in flight end after the round they are in (a round
        is one transaction; no other round or job starts), waiting at most ``timeout``
        seconds: a stopping process finishes its work in flight and leaves the rest to the
        next start or another worker."""
        runs = self._runs - {asyncio.current_task()}
        self._stopping = True
        try:
            if runs:
                await asyncio.wait(runs, timeout=timeout)
        finally:
            self._stopping = False

    async def run_due_and_deliver(self) -> int:
        """:meth:`run_due`, then wait until what it queued has been sent (the console's
        ordered output and ``advance``); returns items handled plus messages sent."""
        done = await self.run_due()
        return done + await self.deliverer.settle()

    async def _run_job(self, job: DueJob, now: datetime) -> int:
        batch = getattr(job, "batch", None)
        total = 0
        for _ in range(MAX_ROUNDS):
            if self._stopping:
                break
            try:
                count = await in_thread(self._run_round, job, now)
            except Exception as exc:
                if is_outage(exc):
                    OUTAGE.failed(exc)  # said once per outage, not once per job and tick
                else:
                    log.exception("due job %s failed", job.name)
                return total
            OUTAGE.answered()
            total += count
            if not isinstance(batch, int) or count < batch:
                break
        if total:
            log.info("due job %s: %d done", job.name, total)
        return total

    def _run_round(self, job: DueJob, now: datetime) -> int:
        with self.uow_factory() as uow:
            count = job.run(uow, self.services, now)
            uow.commit()
        return count

    async def advance(self, clock: SimulatedClock, delta: timedelta) -> int:
        """Move a simulated clock forward, stopping at each due instant on the way; at each
        one, what falls due is run and delivered before the clock moves on."""
        target = clock.now() + delta
        done = await self.run_due_and_deliver()
        for _ in range(100_000):
            when = self.next_due()
            if when is None or when > target:
                break
            if when > clock.now():
                clock.set(when)
            step = await self.run_due_and_deliver()
            done += step
            if step == 0 and when <= clock.now() and self.next_due() == when:
                break  # nothing could be done at this instant; avoid spinning
        clock.set(target)
        return done + await self.run_due_and_deliver()


def start_scheduler(runner: DueRunner) -> AsyncIOScheduler:
    """Wake the runner every few seconds on the running event loop."""
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    async def run_due() -> int:
        try:
            return await runner.run_due()
        except asyncio.CancelledError:
            # The scheduler shut down past the stop's grace: said in one line (APScheduler
            # would log the cancellation as a failure, with a traceback). The round in flight
            # was waited for; the jobs left run at the next start or on another worker.
            log.warning("the due run was stopped mid-way; what is left runs on the next start")
            return 0

    scheduler = AsyncIOScheduler(timezone="UTC")
    scheduler.add_job(
        run_due,
        "interval",
        seconds=WAKE_EVERY.total_seconds(),
        id="studybot-due-work",
        max_instances=1,
        coalesce=True,
        replace_existing=True,
    )
    scheduler.start()
    return scheduler

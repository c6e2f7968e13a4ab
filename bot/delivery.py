"""Outbox delivery: send what is due through each platform's notifier, then mark it sent.

A message is marked sent only after its notifier returned, so a crash between the two
delivers it late, never not at all; the idempotency key (``OutboxRow.key``, also
``Outgoing.key``) lets a platform adapter drop a resend where the platform allows it.

Throughput and pacing: rows are claimed in batches (``FOR UPDATE SKIP LOCKED`` plus a
short claim lease, so several workers share the outbox) and sent concurrently, while the
next batch is already being claimed. Each message is marked as soon as it was sent (group
commits of whatever finished meanwhile), and a sending slot takes its next message only
once its last one is marked: a crash (``kill -9``) repeats at most the messages in flight,
one per slot, never a batch.

A failed send is retried with backoff for as long as the message is worth sending: a
daily post until its reveal, a mock reminder until the mock starts (the ``stale_at`` tag,
``bot.core.messages.until``), anything else for :data:`DEFAULT_STALE_AFTER`; then it is
dropped with a log line. Pacing is one system, which ``bench/fanout.py`` measures: a
notifier states its platform's limit (:class:`bot.pacing.Rate`: per workspace on Slack,
per bot on Discord) and delivery paces each message through that workspace's bucket,
shared between the workers on the database (:mod:`bot.pacing`); Slack's notifier adds its
per-channel bursts. A :class:`RetryLater` from the platform (HTTP 429 with
``Retry-After``) reschedules the message for exactly then, without counting it as a
failure.

Delivery runs beside everything else, never in front of it: one long-lived background task
per process (:meth:`OutboxDeliverer.start`) sleeps until it is poked, by a unit of work
that committed outbox rows (:meth:`OutboxDeliverer.nudge`, from the worker thread) or by
the scheduler's due run, and then sends whatever is due. A user's reply is sent by the
adapter at once and never waits for a fan-out.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.clock import Clock
from bot.core.messages import Outgoing, from_payload, stale_at
from bot.db.models import OutboxRow
from bot.db.outage import OUTAGE, is_outage
from bot.metrics import OUTBOX
from bot.pacing import Pacing, Rate, WorkerShare

log = logging.getLogger(__name__)
_T = TypeVar("_T")
CLAIM_FOR = timedelta(minutes=2)
RECLAIM_EVERY = 0.25  # seconds between claims while a paced workspace holds rows back
#: How long a message that does not say (``bot.core.messages.until``) is worth sending:
#: a failing send is retried with backoff until then.
DEFAULT_STALE_AFTER = timedelta(hours=24)
_Claimed = tuple[int, str, int, dict[str, object], datetime]


class RetryLater(Exception):
    """A notifier's signal that the platform asked to wait ``retry_after`` seconds (HTTP 429
    and the like): the message is sent again then."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"retry after {retry_after:.1f}s")
        self.retry_after = max(float(retry_after), 0.0)


class Notifier(Protocol):
    """Sends one message on one platform; returns the platform's id for the message.

    A notifier may state its platform's send limit as ``rate`` (a :class:`bot.pacing.Rate`);
    delivery then paces it, shared between workers. It raises RetryLater when the platform
    asks to wait; delivery then reschedules the message for exactly then.
    """

    async def send(self, message: Outgoing) -> str | None: ...


async def in_thread(fn: Callable[..., _T], *args: Any) -> _T:
    """Run blocking database work in a thread so the event loop keeps sending meanwhile.

    If the caller is cancelled, the thread is still waited for, so its session is closed
    and its connection returned before the caller goes away.
    """
    future = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait([future])
        raise


def backoff(tries: int) -> timedelta:
    """Exponential backoff: 5 s, 10 s, 20 s … capped at 30 minutes."""
    return timedelta(seconds=min(5 * 2 ** max(tries - 1, 0), 1800))


def stale_deadline(message: Outgoing, created_at: datetime) -> datetime:
    """Until when ``message`` (queued at ``created_at``) is worth sending: what it says
    itself, else :data:`DEFAULT_STALE_AFTER` after it was queued."""
    if created_at.tzinfo is None:  # SQLite hands back naive UTC
        created_at = created_at.replace(tzinfo=UTC)
    return stale_at(message) or created_at + DEFAULT_STALE_AFTER


@dataclass(slots=True)
class _Result:
    row_id: int
    platform: str
    message: Outgoing
    stale_at: datetime
    ref: str | None = None
    error: str | None = None
    wait: timedelta | None = None
    rate_limited: bool = False
    stale: bool = False  # worth nothing any more: dropped unsent


class _Marks:
    """Writes each message's outcome as soon as it is known, in group commits: whatever
    finished while one transaction was being written goes into the next one. A sender
    waits for its own outcome to be written before it takes the next message, so a crash
    repeats at most the messages whose sends were in flight (one per sending slot), never
    a whole batch."""

    def __init__(self, write: Callable[[Sequence[_Result]], int]) -> None:
        self._write = write
        self._queued: list[tuple[_Result, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def mark(self, result: _Result) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queued.append((result, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        await asyncio.shield(future)

    async def _drain(self) -> None:
        while self._queued:
            group, self._queued = self._queued, []
            try:
                await in_thread(self._write, [result for result, _ in group])
            except Exception as exc:
                for _, future in group:
                    if not future.done():
                        future.set_exception(exc)
            except BaseException:
                for _, future in group:
                    future.cancel()
                raise
            else:
                for _, future in group:
                    if not future.done():
                        future.set_result(None)


class OutboxDeliverer:
    def __init__(
        self,
        session_factory: sessionmaker[Session],
        clock: Clock,
        notifiers: Mapping[str, Notifier],
        batch: int = 250,
        concurrency: int = 64,
        batches_in_flight: int = 2,
        max_in_flight: int = 5000,
        renew_every: float = CLAIM_FOR.total_seconds() / 3,
        share: WorkerShare | None = None,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock
        self.notifiers = notifiers
        self.batch = batch
        self.concurrency = concurrency
        self.batches_in_flight = batches_in_flight  # without paced notifiers
        self.max_in_flight = max_in_flight  # claimed messages not yet sent, at most
        # Claimed and not yet sent, per workspace: a claim takes at most one second's worth
        # of a paced workspace's messages and skips a workspace with two seconds' worth in
        # flight, so that every workspace of a fan-out is sent at once, each at its own
        # rate, and the other workers get their part of each.
        self._in_flight: Counter[int] = Counter()
        self.renew_every = renew_every  # seconds between renewals of a batch's claim
        self._lock: asyncio.Lock | None = None  # one delivery pass at a time in this process
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None
        # Each workspace's send limit, shared with the other workers on this database.
        self.share = share or WorkerShare(session_factory)
        self.pacing = Pacing(self.share)
        self._beating: asyncio.Task[None] | None = None
        self.sent = 0  # messages sent by this deliverer, for settle()'s count
        # The background task and its bookkeeping (see start()).
        self._worker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._done: asyncio.Condition | None = None
        self._requested = 0
        self._completed = 0
        self._stopping = False

    def next_due(self) -> datetime | None:
        with self.session_factory() as session:
            return session.scalar(
                select(OutboxRow.next_attempt_at)
                .where(OutboxRow.status == "pending", OutboxRow.platform.in_(list(self.notifiers)))
                .order_by(OutboxRow.next_attempt_at)
                .limit(1)
            )

    def per_workspace(self) -> int | None:
        """How many of one workspace's messages a claim takes at most: one second's worth
        at the fastest paced notifier's rate; None (no such limit) without paced ones."""
        rates = [r.per_second for n in self.notifiers.values() if (r := getattr(n, "rate", None))]
        return max(1, int(max(rates))) if rates else None

    def _claim(self, now: datetime, skip: Sequence[int] = ()) -> tuple[list[_Claimed], bool]:
        """Claim due rows for this worker (SKIP LOCKED on PostgreSQL) and return them, and
        whether there may be more: at most :meth:`per_workspace` of each workspace, none of
        the workspaces in ``skip``. Rows over a workspace's part are left to the next claim,
        or to another worker."""
        due = [
            OutboxRow.status == "pending",
            OutboxRow.next_attempt_at <= now,
            OutboxRow.platform.in_(list(self.notifiers)),
            (OutboxRow.claimed_until.is_(None)) | (OutboxRow.claimed_until < now),
        ]
        if skip:
            due.append(OutboxRow.workspace_id.not_in(list(skip)))
        cap = self.per_workspace()
        with self.session_factory() as session, session.begin():
            candidates = session.execute(
                select(OutboxRow.id, OutboxRow.workspace_id)
                .where(*due)
                .order_by(OutboxRow.next_attempt_at, OutboxRow.id)
                .limit(self.batch)
                .with_for_update(skip_locked=True)
            ).all()
            taken: Counter[int] = Counter()
            ids: list[int] = []
            for row_id, workspace_id in candidates:
                if cap is None or taken[workspace_id] < cap:
                    taken[workspace_id] += 1
                    ids.append(row_id)
            if not ids:
                return [], False
            session.execute(
                update(OutboxRow)
                .where(OutboxRow.id.in_(ids))
                .values(claimed_until=now + CLAIM_FOR)
                .execution_options(synchronize_session=False)
            )
            rows = session.execute(
                select(
                    OutboxRow.id,
                    OutboxRow.platform,
                    OutboxRow.workspace_id,
                    OutboxRow.payload,
                    OutboxRow.created_at,
                )
                .where(OutboxRow.id.in_(ids))
                .order_by(OutboxRow.next_attempt_at, OutboxRow.id)
            ).all()
            claimed = [
                (r.id, r.platform, r.workspace_id, dict(r.payload), r.created_at) for r in rows
            ]
            return claimed, len(candidates) == self.batch

    # -- the background task ---------------------------------------------------------------

    def start(self) -> None:
        """Run delivery as a background task of the running event loop (once per loop).

        The task sleeps until :meth:`poke` (or :meth:`nudge` from a worker thread) says that
        messages were committed, then sends everything due. Replies to users never wait for
        it: adapters send them at once, and the task runs beside them.
        """
        loop = asyncio.get_running_loop()
        if self._worker is not None and not self._worker.done() and self._loop is loop:
            return
        self._loop = loop
        self._wake = asyncio.Event()
        self._done = asyncio.Condition()
        self._requested = self._completed = 0
        self._stopping = False
        self._worker = loop.create_task(self._run(), name="studybot-outbox")
        if any(getattr(n, "rate", None) is not None for n in self.notifiers.values()):
            self._keep_beating()

    def _keep_beating(self) -> None:
        """Keep this worker's heartbeat while it runs (see :mod:`bot.pacing`)."""
        loop = asyncio.get_running_loop()
        if self._beating is None or self._beating.done() or self._beating.get_loop() is not loop:
            self._beating = loop.create_task(self.share.keep_beating(), name="studybot-beat")

    def poke(self) -> None:
        """New messages were committed: wake the background task (starting it if need be).

        Call it on the event loop; outside one it does nothing (the scheduler's next due run,
        or whoever runs a loop, delivers them)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self.start()
        assert self._wake is not None
        self._requested += 1
        self._wake.set()

    def nudge(self) -> None:
        """:meth:`poke` from any thread (a unit of work that committed outbox rows)."""
        loop = self._loop
        if loop is None or loop.is_closed() or self._worker is None or self._worker.done():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self.poke()
        else:
            with suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.poke)

    async def settle(self) -> int:
        """Poke, and return once everything due now has been sent; returns how many were.

        For the console's piped mode and ``/advance``, whose output must come in order, and
        for tests; adapters never wait for it."""
        before = self.sent
        self.poke()
        assert self._done is not None
        target = self._requested
        async with self._done:
            await self._done.wait_for(lambda: self._completed >= target)
        return self.sent - before

    async def flush(self, timeout: float = 10.0) -> None:
        """Send what is due now, for at most ``timeout`` seconds; nothing when the background
        task is not running. A platform adapter calls it before it closes its client, so the
        replies of the handlers it just finished still go out through it."""
        if self._worker is None or self._worker.done():
            return
        try:
            await asyncio.wait_for(self.settle(), timeout)
        except TimeoutError:
            log.warning("outbox delivery did not settle within %.0fs of a client closing", timeout)

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop the background task after the pass in flight (at most ``timeout`` seconds),
        and give this worker's share of each send limit back to the others."""
        task, self._worker = self._worker, None
        try:
            await self._stop_worker(task, timeout)
        finally:
            await self._leave()

    async def _leave(self) -> None:
        beating, self._beating = self._beating, None
        if beating is None:
            return
        beating.cancel()
        with suppress(asyncio.CancelledError):
            await beating
        try:
            await in_thread(self.share.leave)
        except Exception:  # the database is down: the row runs out by itself
            log.warning("delivery worker %s could not sign off; its share runs out", self.share.id)

    async def _stop_worker(self, task: asyncio.Task[None] | None, timeout: float) -> None:
        if task is None or task.done():
            return
        self._stopping = True
        if self._wake is not None:
            self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            log.warning("outbox delivery did not finish within %.0fs; stopping it", timeout)
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    def cancel(self) -> None:
        """Cancel the background task without waiting (when its loop is no longer running)."""
        for task in (self._worker, self._beating):
            if task is not None and not task.done() and not task.get_loop().is_closed():
                task.cancel()
        self._worker = self._beating = None

    async def _run(self) -> None:
        assert self._wake is not None and self._done is not None
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
            target = self._requested
            try:
                if not self._stopping:
                    await self.deliver_due()
                    OUTAGE.answered()
            except Exception as exc:
                if is_outage(exc):
                    OUTAGE.failed(exc)  # said once per outage
                else:
                    log.exception("outbox delivery failed; it runs again on the next nudge")
            self._completed = target
            async with self._done:
                self._done.notify_all()

    # -- one pass ----------------------------------------------------------------------------

    async def deliver_due(self) -> int:
        """Send every message due now, batch after batch; returns how many were sent.

        The background task calls this whenever it is poked; tests of delivery itself call
        it directly."""
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:  # asyncio primitives bind to a loop
            self._lock, self._lock_loop = asyncio.Lock(), loop
        async with self._lock:
            sent = await self._deliver_all()
        self.sent += sent
        return sent

    async def _deliver_all(self) -> int:
        self._slots = asyncio.Semaphore(self.concurrency)
        self._in_flight.clear()
        cap = self.per_workspace()
        sent = 0
        pending: set[asyncio.Task[int]] = set()
        try:
            while not self._stopping:
                busy = sorted(w for w, n in self._in_flight.items() if cap and n >= 2 * cap)
                claimed, more = await in_thread(self._claim, self.clock.now(), busy)
                if claimed:
                    self._in_flight.update(row[2] for row in claimed)
                    pending.add(asyncio.create_task(self._send_batch(claimed)))
                if not pending or (cap is None and not more):
                    break  # everything due is claimed (what is in flight finishes below)
                if cap is None:
                    full = len(pending) >= self.batches_in_flight
                else:
                    full = sum(self._in_flight.values()) >= self.max_in_flight
                if full or not more or busy:
                    # Wait for a batch to finish, or a moment (workspaces held back, or
                    # messages in flight whose claims another worker's may follow).
                    done, pending = await asyncio.wait(
                        pending,
                        timeout=None if full or cap is None else RECLAIM_EVERY,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    sent += sum(task.result() for task in done)
            if pending:
                sent += sum(await asyncio.gather(*pending))
        except BaseException:
            # Cancelled (App.close, or stop() past its timeout): the batches in flight stop
            # too. asyncio.wait leaves its tasks running, and a send of a closed app would go
            # on talking to the platform; what was not marked sent is sent again once its
            # claim runs out.
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)
            raise
        return sent

    async def _send_batch(self, claimed: Sequence[_Claimed]) -> int:
        marks = _Marks(self._record)
        unsent = {row[0] for row in claimed}
        renewing = asyncio.create_task(self._keep_claimed(unsent))
        try:
            sent = await asyncio.gather(
                *(self._send_one(marks, *row, unsent=unsent) for row in claimed)
            )
        finally:
            renewing.cancel()
            with suppress(asyncio.CancelledError):
                await renewing
        return sum(sent)

    async def _keep_claimed(self, unsent: set[int]) -> None:
        """Renew the claim on a batch's messages not yet sent while it is being sent (pacing
        may take longer than one lease), so that no other worker takes them meanwhile; a
        dead worker's claims still run out within :data:`CLAIM_FOR`."""
        while True:
            await asyncio.sleep(self.renew_every)
            if unsent:
                await in_thread(self._renew, sorted(unsent))

    def _renew(self, row_ids: Sequence[int]) -> None:
        with self.session_factory() as session, session.begin():
            _lock_in_id_order(session, row_ids)
            session.execute(
                update(OutboxRow)
                .where(OutboxRow.id.in_(row_ids), OutboxRow.status == "pending")
                .values(claimed_until=self.clock.now() + CLAIM_FOR)
                .execution_options(synchronize_session=False)
            )

    async def _send_one(
        self,
        marks: _Marks,
        row_id: int,
        platform: str,
        workspace_id: int,
        payload: dict[str, object],
        created_at: datetime,
        *,
        unsent: set[int],
    ) -> int:
        """Send one message and write its outcome before the slot is free again."""
        message = from_payload(payload)
        result = _Result(row_id, platform, message, stale_deadline(message, created_at))
        assert self._slots is not None
        notifier = self.notifiers[platform]
        rate: Rate | None = getattr(notifier, "rate", None)
        try:
            if rate is not None and self.clock.now() < result.stale_at:
                # Paced before it takes a sending slot: a slow workspace holds up no other.
                self._keep_beating()
                await self.pacing.wait(platform, rate, workspace_id)
        except Exception as exc:
            log.exception("pacing outbox message %s failed", row_id)
            result.error = type(exc).__name__
        async with self._slots:
            if result.error is None and self.clock.now() >= result.stale_at:
                result.stale = True
            elif result.error is None:
                try:
                    result.ref = await notifier.send(message)
                except RetryLater as exc:
                    result.error, result.rate_limited = str(exc), True
                    result.wait = timedelta(seconds=exc.retry_after)
                except Exception as exc:
                    log.exception("delivery of outbox message %s failed", row_id)
                    result.error = type(exc).__name__
            try:
                await marks.mark(result)
            finally:
                unsent.discard(row_id)
                self._in_flight[workspace_id] -= 1
        return 1 if result.error is None and not result.stale else 0

    def _record(self, results: Sequence[_Result]) -> int:
        """Write the outcome of messages in one transaction; returns how many were sent.

        A failed message is tried again with backoff (a rate-limited one when the platform
        said) for as long as it is worth sending, and dropped, with a log line, once the
        next try would come after that."""
        now = self.clock.now()
        sent = [r for r in results if r.error is None and not r.stale]
        failed = [r for r in results if r.error is not None or r.stale]
        with self.session_factory() as session, session.begin():
            _lock_in_id_order(session, [r.row_id for r in results])
            if sent:
                session.execute(
                    update(OutboxRow),
                    [
                        {
                            "id": r.row_id,
                            "status": "sent",
                            "sent_at": now,
                            "message_ref": r.ref,
                            "claimed_until": None,
                        }
                        for r in sent
                    ],
                )
            for r in failed:
                row = session.get_one(OutboxRow, r.row_id)
                row.claimed_until = None
                if r.error is not None:
                    row.last_error = r.error
                if r.rate_limited:
                    # The platform said when: that is not a failure of the message.
                    retry_at = now + (r.wait or timedelta(0))
                elif r.stale:
                    retry_at = now
                else:
                    row.tries += 1
                    retry_at = now + backoff(row.tries)
                if r.stale or retry_at >= r.stale_at:
                    row.status = "failed"
                    log.warning(
                        "dropped outbox message %s (%s %s to %s): not sent by %s, when it "
                        "stopped being worth sending; %d tries, last error: %s",
                        r.row_id,
                        r.platform,
                        r.message.delivery.value,
                        r.message.to,
                        r.stale_at.isoformat(timespec="seconds"),
                        row.tries,
                        row.last_error or "none",
                    )
                else:
                    row.next_attempt_at = retry_at
        sent_ids = {r.row_id for r in sent}
        for r in results:
            OUTBOX.labels(r.platform, "sent" if r.row_id in sent_ids else "failed").inc()
        return len(sent)


def _lock_in_id_order(session: Session, row_ids: Sequence[int]) -> None:
    """Take the row locks of these outbox rows in id order before writing them.

    Renewing a batch's claim and recording its outcome can run at once on PostgreSQL; each
    writes the same rows, and an UPDATE locks rows in whatever order it meets them, so two
    of them could wait on each other (a deadlock that fails the outcome's transaction and
    sends the batch again). Both lock in id order first, so one waits for the other instead.
    SQLite has one writer at a time and no row locks: nothing to do there."""
    if session.get_bind().dialect.name == "sqlite" or not row_ids:
        return
    session.execute(
        select(OutboxRow.id)
        .where(OutboxRow.id.in_(sorted(row_ids)))
        .order_by(OutboxRow.id)
        .with_for_update()
    )

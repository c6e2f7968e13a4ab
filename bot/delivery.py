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
dropped with a log line. Each platform's
notifier paces its own sends (aiolimiter: per channel and per workspace on Slack, per bot
on Discord), the one pacing system, which ``bench/fanout.py`` measures; a
:class:`RetryLater` from the platform (HTTP 429 with ``Retry-After``) reschedules the
message for exactly then, without counting it as a failure.

Delivery runs beside everything else, never in front of it: one long-lived background task
per process (:meth:`OutboxDeliverer.start`) sleeps until it is poked, by a unit of work
that committed outbox rows (:meth:`OutboxDeliverer.nudge`, from the worker thread) or by
the scheduler's due run, and then sends whatever is due. A user's reply is sent by the
adapter at once and never waits for a fan-out.
"""

from __future__ import annotations

import asyncio
import logging
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

log = logging.getLogger(__name__)
_T = TypeVar("_T")
CLAIM_FOR = timedelta(minutes=2)
#: How long a message that does not say (``bot.core.messages.until``) is worth sending:
#: a failing send is retried with backoff until then.
DEFAULT_STALE_AFTER = timedelta(hours=24)
_Claimed = tuple[int, str, dict[str, object], datetime]


class RetryLater(Exception):
    """A notifier's signal that the platform asked to wait ``retry_after`` seconds (HTTP 429
    and the like): the message is sent again then."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"retry after {retry_after:.1f}s")
        self.retry_after = max(float(retry_after), 0.0)


class Notifier(Protocol):
    """Sends one message on one platform; returns the platform's id for the message.

    A notifier paces its own sends within the platform's limits (``SlackNotifier`` and
    ``DiscordNotifier`` with aiolimiter) and raises RetryLater when the platform asks to
    wait; delivery then reschedules the message for exactly then.
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
        renew_every: float = CLAIM_FOR.total_seconds() / 3,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock
        self.notifiers = notifiers
        self.batch = batch
        self.concurrency = concurrency
        self.batches_in_flight = batches_in_flight
        self.renew_every = renew_every  # seconds between renewals of a batch's claim
        self._lock: asyncio.Lock | None = None  # one delivery pass at a time in this process
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None
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

    def _claim(self, now: datetime) -> list[_Claimed]:
        """Claim due rows for this worker (SKIP LOCKED on PostgreSQL) and return them."""
        with self.session_factory() as session, session.begin():
            query = (
                select(OutboxRow.id, OutboxRow.platform, OutboxRow.payload, OutboxRow.created_at)
                .where(
                    OutboxRow.status == "pending",
                    OutboxRow.next_attempt_at <= now,
                    OutboxRow.platform.in_(list(self.notifiers)),
                )
                .where((OutboxRow.claimed_until.is_(None)) | (OutboxRow.claimed_until < now))
                .order_by(OutboxRow.next_attempt_at, OutboxRow.id)
                .limit(self.batch)
                .with_for_update(skip_locked=True)
            )
            rows = session.execute(query).all()
            if rows:
                session.execute(
                    update(OutboxRow)
                    .where(OutboxRow.id.in_([r.id for r in rows]))
                    .values(claimed_until=now + CLAIM_FOR)
                    .execution_options(synchronize_session=False)
                )
            return [(r.id, r.platform, dict(r.payload), r.created_at) for r in rows]

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
        """Stop the background task after the pass in flight (at most ``timeout`` seconds)."""
        task, self._worker = self._worker, None
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
        task, self._worker = self._worker, None
        if task is not None and not task.done() and not task.get_loop().is_closed():
            task.cancel()

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
        sent = 0
        pending: set[asyncio.Task[int]] = set()
        while not self._stopping:
            claimed = await in_thread(self._claim, self.clock.now())
            if claimed:
                pending.add(asyncio.create_task(self._send_batch(claimed)))
            while len(pending) >= self.batches_in_flight:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                sent += sum(task.result() for task in done)
            if len(claimed) < self.batch:
                break
        if pending:
            sent += sum(await asyncio.gather(*pending))
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
        payload: dict[str, object],
        created_at: datetime,
        *,
        unsent: set[int],
    ) -> int:
        """Send one message and write its outcome before the slot is free again."""
        message = from_payload(payload)
        result = _Result(row_id, platform, message, stale_deadline(message, created_at))
        assert self._slots is not None
        async with self._slots:
            if self.clock.now() >= result.stale_at:
                result.stale = True
            else:
                try:
                    result.ref = await self.notifiers[platform].send(message)
                except RetryLater as exc:
                    result.error, result.rate_limited = str(exc), True
                    result.wait = timedelta(seconds=exc.retry_after)
                except Exception as exc:
                    log.exception("delivery of outbox message %s failed", row_id)
                    result.error = type(exc).__name__
            await marks.mark(result)
            unsent.discard(row_id)
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

"""Outbox delivery: send what is due through each platform's notifier, then mark it sent.

A message is marked sent only after its notifier returned, so a crash between
the two delivers it late, never not at all; the platform-side idempotency
key (``OutboxRow.key``) keeps a resend from showing twice where it can.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.clock import Clock
from bot.core.messages import Outgoing, from_payload
from bot.db.models import DailyPromptRow, OutboxRow
from bot.metrics import OUTBOX

log = logging.getLogger(__name__)
MAX_TRIES = 8
CLAIM_FOR = timedelta(minutes=2)


class RetryLater(Exception):
    """A notifier's signal that the platform asked to wait (HTTP 429 and the like)."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"retry after {retry_after:.1f}s")
        self.retry_after = retry_after


class Notifier(Protocol):
    """Sends one message on one platform; returns the platform's id for the message."""

    async def send(self, message: Outgoing) -> str | None: ...


def backoff(tries: int) -> timedelta:
    """Exponential backoff: 5 s, 10 s, 20 s … capped at 30 minutes."""
    return timedelta(seconds=min(5 * 2 ** max(tries - 1, 0), 1800))


class OutboxDeliverer:
    def __init__(
        self,
        session_factory: sessionmaker[Session],
        clock: Clock,
        notifiers: Mapping[str, Notifier],
        batch: int = 200,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock
        self.notifiers = notifiers
        self.batch = batch
        self._lock = asyncio.Lock()  # one delivery pass at a time in this process

    def next_due(self) -> datetime | None:
        with self.session_factory() as session:
            return session.scalar(
                select(OutboxRow.next_attempt_at)
                .where(OutboxRow.status == "pending", OutboxRow.platform.in_(list(self.notifiers)))
                .order_by(OutboxRow.next_attempt_at)
                .limit(1)
            )

    def _claim(self, now: datetime) -> list[tuple[int, str, dict[str, object]]]:
        """Claim due rows for this worker (SKIP LOCKED on PostgreSQL) and return them."""
        with self.session_factory() as session, session.begin():
            query = (
                select(OutboxRow)
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
            rows = list(session.scalars(query))
            for row in rows:
                row.claimed_until = now + CLAIM_FOR
            return [(row.id, row.platform, dict(row.payload)) for row in rows]

    async def deliver_due(self) -> int:
        """Send every due message; returns how many were sent."""
        async with self._lock:
            return await self._deliver_all()

    async def _deliver_all(self) -> int:
        sent = 0
        while True:
            now = self.clock.now()
            claimed = self._claim(now)
            if not claimed:
                return sent
            for row_id, platform, payload in claimed:
                sent += await self._deliver_one(row_id, platform, payload)
            if len(claimed) < self.batch:
                return sent

    async def _deliver_one(self, row_id: int, platform: str, payload: dict[str, object]) -> int:
        message = from_payload(payload)
        error: str | None = None
        wait: timedelta | None = None
        ref: str | None = None
        try:
            ref = await self.notifiers[platform].send(message)
        except RetryLater as exc:
            error, wait = str(exc), timedelta(seconds=exc.retry_after)
        except Exception as exc:
            log.exception("delivery of outbox message %s failed", row_id)
            error = type(exc).__name__
        with self.session_factory() as session, session.begin():
            row = session.get_one(OutboxRow, row_id)
            now = self.clock.now()
            row.claimed_until = None
            OUTBOX.labels(platform, "sent" if error is None else "failed").inc()
            if error is None:
                row.status, row.sent_at, row.message_ref = "sent", now, ref
                prompt_id = message.tags.get("prompt")
                if ref and prompt_id and message.delivery.value == "channel":
                    prompt = session.get(DailyPromptRow, int(prompt_id))
                    if prompt is not None:
                        prompt.message_ref = ref  # thread replies to the post are answers
                return 1
            row.tries += 1
            row.last_error = error
            if row.tries >= MAX_TRIES:
                row.status = "failed"
                log.error("giving up on outbox message %s after %s tries", row_id, row.tries)
            else:
                row.next_attempt_at = now + max(wait or timedelta(0), backoff(row.tries))
            return 0

"""Outbox delivery: Retry-After, backoff, idempotency keys, claims (pacing is the notifiers'
own: tests/adapters/slack/test_slack_delivery.py)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.daily.schedule import DAILY
from bot.core.messages import Card, Delivery, Outgoing
from bot.core.model import WORKSPACES
from bot.db.models import OutboxRow, WorkspaceRow
from bot.delivery import OutboxDeliverer, RetryLater
from tests.conftest import START


class FakeTime:
    """A monotonic clock that moves only when someone sleeps (to the latest wake-up)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now = max(self.now, self.now + seconds)
        await asyncio.sleep(0)


class LimitedPlatform:
    """Records when each message arrived, on the fake clock; may refuse with RetryLater."""

    def __init__(self, time: FakeTime) -> None:
        self.time = time
        self.arrivals: list[tuple[float, Outgoing]] = []
        self.refuse: dict[str, float] = {}
        self.fail: set[str] = set()

    async def send(self, message: Outgoing) -> str | None:
        key = message.key or ""
        if key in self.refuse:
            raise RetryLater(self.refuse.pop(key))
        if key in self.fail:
            self.fail.discard(key)
            raise ConnectionError("platform down")
        self.arrivals.append((self.time.now, message))
        return f"ts-{len(self.arrivals)}"


def queue(app: App, messages: list[Outgoing]) -> int:
    with app.uow() as uow:
        ws = uow[WORKSPACES].ensure("slack", "T1")
        added = uow[DAILY].queue([(ws.id, "slack", m) for m in messages], app.clock.now())
        uow.commit()
    return added


def post(channel: str, n: int) -> Outgoing:
    return Outgoing(Delivery.CHANNEL, channel, Card(title=f"#{n}"), key=f"k-{channel}-{n}")


def deliverer(app: App, platform: LimitedPlatform, time: FakeTime) -> OutboxDeliverer:
    return OutboxDeliverer(app.session_factory, app.clock, {"slack": platform}, batch=7)


def test_retry_after_is_honoured_and_is_not_counted_as_a_failure(
    app: App, clock: SimulatedClock
) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    queue(app, [post("C1", 1)])
    platform.refuse["k-C1-1"] = 30.0
    outbox = deliverer(app, platform, time)
    assert asyncio.run(outbox.deliver_due()) == 0
    with app.session_factory() as session:
        row = session.scalars(select(OutboxRow)).one()
    assert (row.status, row.tries) == ("pending", 0)
    assert row.next_attempt_at == START + timedelta(seconds=30)
    clock.advance(timedelta(seconds=29))
    assert asyncio.run(outbox.deliver_due()) == 0
    clock.advance(timedelta(seconds=1))
    assert asyncio.run(outbox.deliver_due()) == 1


def test_a_failed_send_backs_off_and_is_sent_later(app: App, clock: SimulatedClock) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    queue(app, [post("C1", 1)])
    platform.fail.add("k-C1-1")
    outbox = deliverer(app, platform, time)
    assert asyncio.run(outbox.deliver_due()) == 0
    with app.session_factory() as session:
        row = session.scalars(select(OutboxRow)).one()
    assert (row.status, row.tries, row.last_error) == ("pending", 1, "ConnectionError")
    assert row.next_attempt_at == START + timedelta(seconds=5)
    clock.advance(timedelta(seconds=5))
    assert asyncio.run(outbox.deliver_due()) == 1
    with app.session_factory() as session:
        row = session.scalars(select(OutboxRow)).one()
    assert (row.status, row.message_ref) == ("sent", "ts-1")


def test_a_message_is_queued_once_per_idempotency_key(app: App) -> None:
    assert queue(app, [post("C1", 1), post("C2", 1)]) == 2
    assert queue(app, [post("C1", 1)]) == 0
    with app.session_factory() as session:
        assert len(session.scalars(select(OutboxRow)).all()) == 2
        assert session.scalars(select(WorkspaceRow.platform)).all() == ["slack"]


def test_a_worker_does_not_take_messages_another_worker_has_claimed(app: App) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    queue(app, [post("C1", n) for n in range(3)])
    first = deliverer(app, platform, time)
    claimed = first._claim(app.clock.now())
    assert len(claimed) == 3
    assert asyncio.run(deliverer(app, platform, time).deliver_due()) == 0

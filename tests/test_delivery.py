"""Outbox delivery: pacing within platform limits, Retry-After, backoff, idempotency keys."""

from __future__ import annotations

import asyncio
import itertools
from collections import defaultdict
from datetime import timedelta

from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.messages import Card, Delivery, Outgoing
from bot.db.models import OutboxRow, WorkspaceRow
from bot.delivery import OutboxDeliverer, RateLimits, RetryLater
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

    def __init__(self, time: FakeTime, limits: RateLimits | None = None) -> None:
        self.time = time
        self.rate_limits = limits
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
        ws = uow.workspaces.ensure("slack", "T1")
        added = uow.daily.queue([(ws.id, "slack", m) for m in messages], app.clock.now())
        uow.commit()
    return added


def post(channel: str, n: int) -> Outgoing:
    return Outgoing(Delivery.CHANNEL, channel, Card(title=f"#{n}"), key=f"k-{channel}-{n}")


def deliverer(app: App, platform: LimitedPlatform, time: FakeTime) -> OutboxDeliverer:
    return OutboxDeliverer(
        app.session_factory,
        app.clock,
        {"slack": platform},
        batch=7,
        monotonic=time.monotonic,
        sleep=time.sleep,
    )


def test_delivery_never_sends_faster_than_the_channel_and_global_limits(app: App) -> None:
    time = FakeTime()
    limits = RateLimits(per_channel=1.0, global_rate=4.0, global_burst=2)
    platform = LimitedPlatform(time, limits)
    queue(app, [post(channel, n) for n in range(6) for channel in ("C1", "C2", "C3")])
    sent = asyncio.run(deliverer(app, platform, time).deliver_due())
    assert sent == 18 == len(platform.arrivals)
    by_channel: dict[str, list[float]] = defaultdict(list)
    for at, message in platform.arrivals:
        by_channel[message.to].append(at)
    for times in by_channel.values():
        assert all(b - a >= 1.0 - 1e-9 for a, b in itertools.pairwise(times))
    # a token bucket of 4/s holding 2 accepts every arrival
    tokens, last = 2.0, 0.0
    for at, _ in platform.arrivals:
        tokens = min(2.0, tokens + (at - last) * 4.0)
        last = at
        assert tokens >= 1.0 - 1e-9
        tokens -= 1.0
    # and not absurdly slow (the fake clock jumps to each sleeper's wake-up, so this is
    # coarse; bench/fanout.py measures the real pace)
    assert platform.arrivals[-1][0] <= 12.0


def test_retry_after_is_honoured_and_is_not_counted_as_a_failure(
    app: App, clock: SimulatedClock
) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time, RateLimits(per_channel=1.0, global_rate=50.0))
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
    assert time.now >= 30.0  # the channel itself was held back for 30 s as well


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

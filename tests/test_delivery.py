"""Outbox delivery: Retry-After, backoff, idempotency keys, claims (pacing, shared between
workers: tests/adapters/slack/test_shared_pacing.py)."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.daily.schedule import DAILY
from bot.core.messages import Card, Delivery, Outgoing, from_payload, until
from bot.core.model import WORKSPACES
from bot.db.models import DailyPromptRow, OutboxRow, WorkspaceRow
from bot.delivery import (
    CLAIM_FOR,
    DEFAULT_STALE_AFTER,
    OutboxDeliverer,
    RetryLater,
    stale_deadline,
)
from bot.pacing import Rate
from tests.conftest import START
from tests.support import Transcript


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
        self.fail_always = False

    async def send(self, message: Outgoing) -> str | None:
        key = message.key or ""
        if key in self.refuse:
            raise RetryLater(self.refuse.pop(key))
        if key in self.fail or self.fail_always:
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
    claimed, more = first._claim(app.clock.now())
    assert (len(claimed), more) == (3, False)
    assert asyncio.run(deliverer(app, platform, time).deliver_due()) == 0


def _row(app: App) -> OutboxRow:
    with app.session_factory() as session:
        return session.scalars(select(OutboxRow)).one()


def _retry_while_failing(
    app: App, clock: SimulatedClock, outbox: OutboxDeliverer, end: datetime
) -> None:
    """Deliver at every retry time the outbox set, until ``end`` or the row is settled."""
    while clock.now() < end:
        row = _row(app)
        if row.status != "pending":
            return
        clock.set(max(row.next_attempt_at, clock.now()))
        asyncio.run(outbox.deliver_due())


def test_a_failing_daily_post_is_retried_until_its_reveal_then_dropped_with_a_log_line(
    app: App, clock: SimulatedClock, caplog: pytest.LogCaptureFixture
) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    reveal = START + timedelta(hours=6)
    queue(app, [until(post("C1", 1), reveal)])
    platform.fail_always = True
    outbox = deliverer(app, platform, time)
    with caplog.at_level(logging.WARNING, logger="bot.delivery"):
        _retry_while_failing(app, clock, outbox, START + timedelta(hours=5))
        row = _row(app)
        # Hours of failure (the old outbox gave up after eight tries, about 10 minutes).
        assert (row.status, row.last_error) == ("pending", "ConnectionError")
        assert row.tries > 8
        assert not [r for r in caplog.records if "dropped outbox message" in r.getMessage()]
        _retry_while_failing(app, clock, outbox, reveal + timedelta(hours=1))
    row = _row(app)
    assert row.status == "failed"
    assert clock.now() <= reveal
    dropped = [r.getMessage() for r in caplog.records if "dropped outbox message" in r.getMessage()]
    assert len(dropped) == 1
    assert "C1" in dropped[0] and "ConnectionError" in dropped[0]
    assert platform.arrivals == []


def test_a_daily_post_that_recovers_before_its_reveal_is_sent_once(
    app: App, clock: SimulatedClock
) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    queue(app, [until(post("C1", 1), START + timedelta(hours=6))])
    platform.fail_always = True
    outbox = deliverer(app, platform, time)
    _retry_while_failing(app, clock, outbox, START + timedelta(hours=2))
    platform.fail_always = False
    _retry_while_failing(app, clock, outbox, START + timedelta(hours=6))
    assert _row(app).status == "sent"
    assert [m.key for _, m in platform.arrivals] == ["k-C1-1"]


def test_a_message_that_went_stale_before_it_was_claimed_is_dropped_unsent(
    app: App, clock: SimulatedClock, caplog: pytest.LogCaptureFixture
) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    queue(app, [until(post("C1", 1), START + timedelta(minutes=1)), post("C2", 1)])
    clock.advance(timedelta(minutes=2))
    with caplog.at_level(logging.WARNING, logger="bot.delivery"):
        assert asyncio.run(deliverer(app, platform, time).deliver_due()) == 1
    assert [m.key for _, m in platform.arrivals] == ["k-C2-1"]
    with app.session_factory() as session:
        statuses = {k: s for k, s in session.execute(select(OutboxRow.key, OutboxRow.status))}
    assert statuses == {"k-C1-1": "failed", "k-C2-1": "sent"}
    assert any("dropped outbox message" in r.getMessage() for r in caplog.records)


def test_a_rate_limit_past_the_messages_use_drops_it(app: App, clock: SimulatedClock) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    queue(app, [until(post("C1", 1), START + timedelta(seconds=20))])
    platform.refuse["k-C1-1"] = 60.0
    assert asyncio.run(deliverer(app, platform, time).deliver_due()) == 0
    assert _row(app).status == "failed"


def test_a_message_that_does_not_say_is_retried_for_a_day(app: App, clock: SimulatedClock) -> None:
    time = FakeTime()
    platform = LimitedPlatform(time)
    queue(app, [post("C1", 1)])
    platform.fail_always = True
    outbox = deliverer(app, platform, time)
    _retry_while_failing(app, clock, outbox, START + DEFAULT_STALE_AFTER - timedelta(hours=1))
    assert _row(app).status == "pending"
    _retry_while_failing(app, clock, outbox, START + DEFAULT_STALE_AFTER + timedelta(hours=1))
    assert _row(app).status == "failed"
    assert clock.now() <= START + DEFAULT_STALE_AFTER


def test_a_daily_post_is_worth_sending_until_its_reveal(app: App, chat: Transcript) -> None:
    chat.send("/daily")
    with app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
        row = session.scalars(select(OutboxRow).where(OutboxRow.key.like("daily:%:post"))).one()
    assert stale_deadline(from_payload(row.payload), row.created_at) == prompt.reveal_at


class HeldPlatform:
    """Every send waits until ``release`` is set (a batch paced slower than its claim)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()
        self.sent: list[str] = []

    async def send(self, message: Outgoing) -> str | None:
        self.waiting.set()
        await self.release.wait()
        self.sent.append(message.key or "")
        return f"ts-{len(self.sent)}"


def test_a_batch_slower_than_its_claim_is_not_taken_by_another_worker(
    app: App, clock: SimulatedClock
) -> None:
    queue(app, [post(f"C{n}", 1) for n in range(3)])

    def renewed() -> bool:
        with app.session_factory() as session:
            leases = session.scalars(select(OutboxRow.claimed_until)).all()
        return all(lease is not None and lease > clock.now() for lease in leases)

    async def scenario() -> tuple[int, int, list[str]]:
        held = HeldPlatform()
        first = OutboxDeliverer(
            app.session_factory, app.clock, {"slack": held}, batch=7, renew_every=0.01
        )
        sending = asyncio.create_task(first.deliver_due())
        await held.waiting.wait()
        clock.advance(CLAIM_FOR * 2)  # the first claim has run out by now
        for _ in range(500):
            if await asyncio.to_thread(renewed):
                break
            await asyncio.sleep(0.01)
        other = LimitedPlatform(FakeTime())
        taken = await deliverer(app, other, FakeTime()).deliver_due()
        held.release.set()
        return taken, await sending, held.sent + [m.key or "" for _, m in other.arrivals]

    taken, sent, keys = asyncio.run(scenario())
    assert (taken, sent) == (0, 3)
    assert sorted(keys) == ["k-C0-1", "k-C1-1", "k-C2-1"]


class PacedHeldPlatform(HeldPlatform):
    """A held platform with a send limit, as Slack's and Discord's notifiers state one (the
    paced path: delivery waits for batches a moment at a time instead of for all of them)."""

    rate = Rate(per_second=50.0)


@pytest.mark.parametrize("platform", [HeldPlatform, PacedHeldPlatform])
def test_closing_the_app_stops_the_sends_in_flight(app: App, platform: type[HeldPlatform]) -> None:
    """App.close() (the loop stopped, as a test or a crashed run leaves it) cancels the
    background delivery and every send it has in flight: nothing of a closed app keeps
    talking to the platform. A send left running kept a Slack test's teardown waiting 30 s
    for the Web API client's timeout."""
    queue(app, [post("C1", 1)])
    held = platform()
    app.register_notifier("slack", held)
    loop = asyncio.new_event_loop()
    try:

        async def sending() -> None:
            app.runner.deliverer.poke()
            await held.waiting.wait()

        loop.run_until_complete(asyncio.wait_for(sending(), 10))
        app.close()

        async def left() -> set[asyncio.Task[object]]:
            others = asyncio.all_tasks() - {asyncio.current_task()}
            if others:
                await asyncio.wait(others, timeout=5)
            return {task for task in others if not task.done()}

        assert loop.run_until_complete(left()) == set()
    finally:
        loop.close()
    assert held.sent == []
    with app.session_factory() as session:
        assert session.scalars(select(OutboxRow.status)).all() == ["pending"]

"""Pacing shared between workers: two workers (two Apps on one database) fanning out to one
workspace stay within its limit as the fake Slack sees it; each workspace has a limit of
its own; a dead worker's share is taken back within a bounded time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime

import pytest
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import func, select

from bot.adapters.slack.sender import SlackNotifier, SlackSender
from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.clock import SimulatedClock
from bot.core.daily.schedule import DAILY
from bot.core.messages import Card, Delivery, Outgoing
from bot.core.model import WORKSPACES
from bot.db.models import DeliveryWorkerRow, OutboxRow
from tests.adapters.slack.fake_slack import Call, FakeSlack
from tests.adapters.slack.test_slack_delivery import conforms
from tests.conftest import START

RATE = 10.0  # messages a second per workspace, in these tests
BEAT = 0.4  # seconds between heartbeats: a dead worker counts for 3 × BEAT = 1.2 s


def worker(db_url: str, fake: FakeSlack, name: str) -> App:
    client = AsyncWebClient(token=f"xoxb-{name}", base_url=fake.api_url)
    notifier = SlackNotifier(SlackSender(client), workspace_per_second=RATE)
    app = bootstrap(
        Settings(studybot_database_url=db_url),
        clock=SimulatedClock(START),
        notifiers={"slack": notifier},
        jobs=[],
    )
    app.runner.deliverer.batch = 8  # both workers take part in a fan-out
    app.runner.deliverer.share.beat_every = BEAT
    return app


@pytest.fixture
async def workers(db_url: str, fake_slack: FakeSlack) -> AsyncIterator[Callable[[str], App]]:
    made: list[App] = []

    def make(name: str) -> App:
        made.append(worker(db_url, fake_slack, name))
        return made[-1]

    yield make
    for app in made:
        await app.stop()  # the heartbeat task and its thread are done before the engine closes
        app.close()


def queue(app: App, team: str, channels: int) -> None:
    with app.uow() as uow:
        ws = uow[WORKSPACES].ensure("slack", team)
        posts = [
            Outgoing(Delivery.CHANNEL, f"C{team}{i:03d}", Card(title="Q"), key=f"{team}-{i}")
            for i in range(channels)
        ]
        uow[DAILY].queue([(ws.id, "slack", m) for m in posts], START)
        uow.commit()


def posts(fake: FakeSlack, team: str | None = None) -> list[Call]:
    return fake.called(
        "chat.postMessage",
        lambda c: team is None or str(c.args["channel"]).startswith(f"C{team}"),
    )


def sent_by(call: Call) -> str:
    return call.headers.get("Authorization", "").removeprefix("Bearer xoxb-")


def trace(calls: list[Call]) -> str:
    """When each message reached Slack, from the first, and which worker sent it."""
    return str([(round(c.at - calls[0].at, 3), sent_by(c)) for c in calls])


def unsent(app: App) -> int:
    with app.session_factory() as session:
        return (
            session.scalar(
                select(func.count()).select_from(OutboxRow).where(OutboxRow.status != "sent")
            )
            or 0
        )


async def test_two_workers_fanning_out_to_one_workspace_stay_within_its_rate(
    workers: Callable[[str], App], fake_slack: FakeSlack
) -> None:
    a, b = workers("a"), workers("b")
    queue(a, "T1", 40)
    started = time.monotonic()
    sent = await asyncio.gather(a.runner.deliverer.deliver_due(), b.runner.deliverer.deliver_due())
    took = time.monotonic() - started
    calls = posts(fake_slack)
    assert sum(sent) == len(calls) == 40 and unsent(a) == 0
    assert {sent_by(c) for c in calls} == {"a", "b"}  # both workers sent
    # Slack's side: one second's burst, then RATE a second, for both workers together.
    assert conforms(sorted(c.at for c in calls), RATE + 1, RATE), trace(calls)
    assert took >= (40 - RATE - 1) / RATE


async def test_each_workspace_is_paced_by_its_own_limit(
    workers: Callable[[str], App], fake_slack: FakeSlack
) -> None:
    a, b = workers("a"), workers("b")
    for team in ("T1", "T2", "T3"):
        queue(a, team, 20)
    started = time.monotonic()
    await asyncio.gather(a.runner.deliverer.deliver_due(), b.runner.deliverer.deliver_due())
    took = time.monotonic() - started
    for team in ("T1", "T2", "T3"):
        calls = posts(fake_slack, team)
        assert len(calls) == 20
        assert conforms(sorted(c.at for c in calls), RATE + 1, RATE)
    # 60 messages in about the time 20 take in one workspace, not 60 at one global rate
    assert took < (60 - RATE) / RATE


async def test_a_dead_workers_share_is_taken_back_within_four_beats(
    workers: Callable[[str], App], fake_slack: FakeSlack
) -> None:
    a, b = workers("a"), workers("b")
    await b.runner.deliverer.share.refresh()
    await a.runner.deliverer.share.refresh()
    assert a.runner.deliverer.share.workers == 2
    died = time.monotonic()  # b beats no more, as after kill -9: its row stays behind
    queue(a, "T1", 30)
    seen: list[tuple[float, int]] = []

    async def watch() -> None:
        while True:
            seen.append((time.monotonic(), a.runner.deliverer.share.workers))
            await asyncio.sleep(0.02)

    watching = asyncio.create_task(watch())
    try:
        assert await a.runner.deliverer.deliver_due() == 30
    finally:
        watching.cancel()
    taken_back = next(t for t, n in seen if n == 1)
    assert taken_back - died <= 4 * BEAT + 0.5  # four beats, and room for a loaded machine
    calls = posts(fake_slack)
    assert conforms(sorted(c.at for c in calls), RATE + 1, RATE)
    # from then on the one live worker sends at the workspace's whole rate
    after = [c.at for c in calls if c.at >= taken_back + 0.3]
    assert len(after) >= 10
    assert (len(after) - 1) / (after[-1] - after[0]) > 0.75 * RATE
    with a.session_factory() as session:
        rows = session.scalars(select(DeliveryWorkerRow.id)).all()
    assert set(rows) == {a.runner.deliverer.share.id, b.runner.deliverer.share.id}


async def test_a_worker_that_stops_gives_its_share_back(
    workers: Callable[[str], App], fake_slack: FakeSlack
) -> None:
    a, b = workers("a"), workers("b")
    queue(a, "T1", 2)
    await asyncio.gather(a.runner.deliverer.deliver_due(), b.runner.deliverer.deliver_due())
    b.runner.deliverer.start()  # b's heartbeat, as while it runs
    await b.runner.deliverer.share.refresh()
    await a.runner.deliverer.share.refresh()
    assert a.runner.deliverer.share.workers == 2
    await b.stop()
    with a.session_factory() as session:
        assert session.scalars(select(DeliveryWorkerRow.id)).all() == [a.runner.deliverer.share.id]
    await a.runner.deliverer.share.refresh()
    assert a.runner.deliverer.share.workers == 1


def test_a_heartbeat_forgets_workers_dead_for_an_hour(db_url: str, fake_slack: FakeSlack) -> None:
    app = worker(db_url, fake_slack, "a")
    try:
        with app.session_factory() as session, session.begin():
            long_ago = datetime(2020, 1, 1, tzinfo=START.tzinfo)
            session.add(DeliveryWorkerRow(id="gone", started_at=long_ago, seen_at=long_ago))
        assert app.runner.deliverer.share.beat() == (1, True)
        with app.session_factory() as session:
            assert session.scalars(select(DeliveryWorkerRow.id)).all() == [
                app.runner.deliverer.share.id
            ]
    finally:
        app.close()

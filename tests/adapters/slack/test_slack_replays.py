"""A retried or replayed Slack delivery is handled once, by whichever worker takes it first:
the same signed click sent five times, a retry (``X-Slack-Retry-Num``) reaching another
worker, a mention arriving as ``app_mention`` on one worker and ``message`` on another. The
database keeps what was taken, so the workers agree (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from slack_bolt.request.async_request import AsyncBoltRequest
from sqlalchemy import func, select

from bot.adapters.slack import SlackAdapter
from bot.bootstrap import bootstrap
from bot.core.clock import SimulatedClock
from bot.db.models import AttemptRow, DeliverySeenRow
from tests.adapters.slack.conftest import bank_of, slack_settings
from tests.adapters.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.adapters.slack.payloads import click, message_event, signed_headers, slash
from tests.adapters.slack.test_slack_app import post_daily
from tests.adapters.slack.test_slack_transport import right_button

OTHER = "W333"


@pytest.fixture
async def workers(
    fake_slack: FakeSlack, db_url: str, clock: SimulatedClock
) -> AsyncIterator[tuple[SlackAdapter, SlackAdapter]]:
    """Two workers (an app and an adapter each, as two processes would have) on one
    database, behind one Slack."""
    apps = [
        bootstrap(
            slack_settings(fake_slack, db_url),
            clock=clock,
            bank=bank_of("choice"),
            auto_migrate=True,
        )
        for _ in range(2)
    ]
    first, second = (SlackAdapter(app, app.settings) for app in apps)
    yield first, second
    for adapter in (first, second):
        await adapter.settled()
        await adapter.app.stop()
        adapter.app.close()


async def deliver(adapter: SlackAdapter, body: str, retry: int = 0) -> int:
    """``body`` signed, as Slack delivers it (the ``retry``-th retry when above 0)."""
    headers = signed_headers(body)
    if retry:
        headers |= {"x-slack-retry-num": str(retry), "x-slack-retry-reason": "http_timeout"}
    response = await adapter.bolt.async_dispatch(AsyncBoltRequest(body=body, headers=headers))
    return response.status


async def both_done(fake: FakeSlack, workers: tuple[SlackAdapter, SlackAdapter]) -> None:
    """Each worker answers a fresh request from someone else: what each took before it is
    done, not merely slow."""
    before = len(fake.called("chat.postEphemeral"))
    for worker in workers:
        assert await deliver(worker, slash("/help", user=OTHER)) == 200
    await fake.wait_for("chat.postEphemeral", count=before + 2)
    for worker in workers:
        await worker.settled()


async def test_one_click_sent_five_times_to_two_workers_is_graded_once(
    workers: tuple[SlackAdapter, SlackAdapter], fake_slack: FakeSlack
) -> None:
    first = workers[0]
    post = await post_daily(first, fake_slack)
    body = click(right_button(first, post))
    statuses = [await deliver(workers[n % 2], body, retry=n) for n in range(5)]
    await both_done(fake_slack, workers)
    assert statuses == [200] * 5  # every delivery acknowledged, so Slack stops retrying
    graded = [c for c in fake_slack.called("chat.postEphemeral") if c.args.get("user") != OTHER]
    assert len(graded) == 1
    with first.app.session_factory() as session:
        assert session.scalar(select(func.count()).select_from(AttemptRow)) == 1


async def test_a_mention_as_app_mention_on_one_worker_and_message_on_another_is_answered_once(
    workers: tuple[SlackAdapter, SlackAdapter], fake_slack: FakeSlack
) -> None:
    first, second = workers
    await post_daily(first, fake_slack)
    thread = {"thread_ts": "1700000000.000001", "parent_user_id": BOT_USER_ID}
    text = f"<@{BOT_USER_ID}> B"
    mention = message_event(text, kind="app_mention", event_id="Ev1", **thread)
    message = message_event(text, kind="message", event_id="Ev2", **thread)
    assert await deliver(first, mention) == 200
    assert await deliver(second, message) == 200
    assert await deliver(second, mention, retry=1) == 200  # Slack retries the first one too
    await both_done(fake_slack, workers)
    with first.app.session_factory() as session:
        assert list(session.scalars(select(AttemptRow.answer))) == ["B"]
        assert session.scalar(select(func.count()).select_from(DeliverySeenRow)) >= 1


async def test_a_refused_click_replayed_to_two_workers_is_refused_once(
    workers: tuple[SlackAdapter, SlackAdapter], fake_slack: FakeSlack
) -> None:
    body = click("no-such-button:1")
    statuses = [await deliver(workers[n % 2], body, retry=n) for n in range(3)]
    await both_done(fake_slack, workers)
    assert statuses == [200] * 3
    refusals = [c for c in fake_slack.called("chat.postEphemeral") if c.args.get("user") != OTHER]
    assert [c.args["text"] for c in refusals] == ["That button is no longer valid."]

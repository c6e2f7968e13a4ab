"""What the outbox's Slack notifier does with each kind of message, 429s included, and how
users' zones and admin rights are looked up."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import ClassVar

import pytest
from aiolimiter import AsyncLimiter
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.adapters.slack.sender import (
    CHANNEL_BURST,
    WORKSPACE_PER_SECOND,
    SlackNotifier,
    SlackSender,
)
from bot.adapters.slack.users import UserDirectory
from bot.core.messages import Attachment, Card, Delivery, Form, Outgoing
from bot.db.models import OutboxRow
from bot.delivery import RetryLater
from bot.pacing import Rate
from tests.adapters.slack.conftest import dispatch
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import slash

CARD = Card(title="Reminder", blocks=("Your mock interview starts in 30 minutes.",))


@pytest.fixture
def notifier(fake_slack: FakeSlack) -> SlackNotifier:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    return SlackNotifier(SlackSender(client))


async def test_a_channel_post_returns_channel_and_ts(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    ref = await notifier.send(Outgoing(Delivery.CHANNEL, "C111", CARD))
    assert ref == "C111:1700000000.000001"
    (call,) = fake_slack.called("chat.postMessage")
    assert call.blocks()[0]["text"]["text"] == "Reminder"


async def test_a_post_in_a_thread_goes_under_the_parent_message(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    await notifier.send(Outgoing(Delivery.CHANNEL, "C111", CARD, thread="C111:1690000000.000100"))
    (call,) = fake_slack.called("chat.postMessage")
    assert call.args["thread_ts"] == "1690000000.000100"


async def test_a_dm_opens_the_conversation_once_and_posts_in_it(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    first = await notifier.send(Outgoing(Delivery.DM, "W222", CARD))
    await notifier.send(Outgoing(Delivery.DM, "W222", CARD))
    assert first == "DW222:1700000000.000001"
    assert len(fake_slack.called("conversations.open")) == 1
    assert [c.args["channel"] for c in fake_slack.called("chat.postMessage")] == ["DW222"] * 2


async def test_the_dm_channels_kept_are_bounded_the_least_recent_user_is_asked_again(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    notifier = SlackNotifier(SlackSender(client, dm_channels=2))
    for user in ("W1", "W2", "W1", "W3", "W1", "W2"):
        await notifier.send(Outgoing(Delivery.DM, user, CARD))
    # W1 was written to again before W3 came, so W2 was the least recent and was let go
    assert [c.args["users"] for c in fake_slack.called("conversations.open")] == [
        "W1",
        "W2",
        "W3",
        "W2",
    ]
    assert [c.args["channel"] for c in fake_slack.called("chat.postMessage")] == [
        "DW1", "DW2", "DW1", "DW3", "DW1", "DW2",
    ]  # fmt: skip


async def test_a_private_message_is_ephemeral_in_its_channel(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    ref = await notifier.send(Outgoing(Delivery.PRIVATE, "W222", CARD, channel="C111"))
    (call,) = fake_slack.called("chat.postEphemeral")
    assert (call.args["channel"], call.args["user"]) == ("C111", "W222")
    assert ref == "C111:1700000000.000001"


async def test_an_update_edits_the_message_it_names(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    ref = await notifier.send(Outgoing(Delivery.UPDATE, "C111", CARD, ref="C111:1690000000.000100"))
    (call,) = fake_slack.called("chat.update")
    assert (call.args["channel"], call.args["ts"]) == ("C111", "1690000000.000100")
    assert ref == "C111:1690000000.000100"


async def test_a_form_without_an_interaction_is_sent_privately_with_a_way_to_answer(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    form = Form(title="Your answer", label="Why MIG?", action="daily:1:submit")
    await notifier.send(Outgoing(Delivery.MODAL, "W222", CARD, channel="C111", form=form))
    assert fake_slack.called("views.open") == []
    (call,) = fake_slack.called("chat.postEphemeral")
    assert "Why MIG?: Type /answer" in call.args["text"]


async def test_a_chart_is_uploaded_beside_its_post(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    png = Attachment("leaderboard.png", b"\x89PNG fake chart", "image/png")
    await notifier.send(Outgoing(Delivery.CHANNEL, "C111", CARD, attachments=(png,)))
    (upload,) = fake_slack.called("upload")
    assert upload.args["size"] == len(png.content)
    (complete,) = fake_slack.called("files.completeUploadExternal")
    assert complete.args["channel_id"] == "C111"


async def test_a_private_chart_goes_to_the_users_dm_not_the_channel(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    png = Attachment("streak.png", b"\x89PNG", "image/png")
    await notifier.send(
        Outgoing(Delivery.PRIVATE, "W222", CARD, channel="C111", attachments=(png,))
    )
    (complete,) = fake_slack.called("files.completeUploadExternal")
    assert complete.args["channel_id"] == "DW222"


async def test_a_429_becomes_retry_later_with_slacks_retry_after(
    notifier: SlackNotifier, fake_slack: FakeSlack
) -> None:
    fake_slack.rate_limit("chat.postMessage", retry_after=7)
    with pytest.raises(RetryLater) as caught:
        await notifier.send(Outgoing(Delivery.CHANNEL, "C111", CARD))
    assert caught.value.retry_after == 7
    assert len(fake_slack.called("chat.postMessage")) == 1  # no retry in place


async def test_the_outbox_waits_as_long_as_slack_asked_after_a_429(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    fake_slack.rate_limit("chat.postMessage", retry_after=120)
    await dispatch(slack, slash("/daily"))
    await fake_slack.wait_for("chat.postMessage")
    await slack.settled()
    await slack.app.runner.deliverer.settle()  # the 429 is recorded on the row
    now = slack.app.clock.now()
    with slack.app.session_factory() as session:
        row = session.scalars(select(OutboxRow)).one()
    assert row.status == "pending"
    assert row.next_attempt_at >= now + timedelta(seconds=120)
    assert "retry after 120" in (row.last_error or "")


# --- users: zones and admin rights ------------------------------------------------------------


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_users_info_is_asked_once_a_day_per_user(fake_slack: FakeSlack) -> None:
    ticks = Ticks()
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    directory = UserDirectory(client, frozenset(), refresh_after=86400, now=ticks)
    fake_slack.users["W222"] = {"tz": "America/Chicago"}
    assert (await directory.lookup("T111", "W222")).tz == "America/Chicago"
    ticks.now = 3600
    await directory.lookup("T111", "W222")
    assert len(fake_slack.called("users.info")) == 1
    fake_slack.users["W222"] = {"tz": "Asia/Kolkata"}
    ticks.now = 86401
    assert (await directory.lookup("T111", "W222")).tz == "Asia/Kolkata"
    assert len(fake_slack.called("users.info")) == 2


async def test_a_burst_of_clicks_by_new_users_asks_slack_once_per_user(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    directory = UserDirectory(client, frozenset())
    for n in range(20):
        fake_slack.users[f"W{n}"] = {"tz": "Europe/Oslo"}
    clicks = [directory.lookup("T111", f"W{n % 20}") for n in range(200)]
    users = await asyncio.gather(*clicks)
    assert {u.tz for u in users} == {"Europe/Oslo"}
    assert len(fake_slack.called("users.info")) == 20
    assert (await directory.lookup("T111", "W3")).id == "W3"
    assert len(fake_slack.called("users.info")) == 20


async def test_a_user_change_event_refreshes_the_zone_at_once(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    directory = UserDirectory(client, frozenset())
    await directory.lookup("T111", "W222")
    directory.remember("T111", {"id": "W222", "tz": "Pacific/Auckland", "name": "w"})
    assert (await directory.lookup("T111", "W222")).tz == "Pacific/Auckland"
    assert len(fake_slack.called("users.info")) == 1


@pytest.mark.parametrize(
    ("user", "slack_says", "admin"),
    [
        ("W1", {"is_admin": True}, True),
        ("W2", {"is_owner": True}, True),
        ("W3", {}, False),
        ("W4", {}, True),  # in the configured admin list
    ],
)
async def test_admins_are_workspace_admins_owners_or_listed(
    fake_slack: FakeSlack, user: str, slack_says: dict[str, bool], admin: bool
) -> None:
    fake_slack.users[user] = dict(slack_says)
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    directory = UserDirectory(client, frozenset({"W4"}))
    assert (await directory.lookup("T111", user)).is_admin is admin


async def test_when_users_info_fails_the_user_is_still_served_from_the_admin_list(
    fake_slack: FakeSlack,
) -> None:
    fake_slack.fail("users.info", "missing_scope")
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    directory = UserDirectory(client, frozenset({"W4"}))
    user = await directory.lookup("T111", "W4", "dora")
    assert (user.id, user.name, user.tz, user.is_admin) == ("W4", "dora", None, True)


class RecordingLimiter:
    """Stands in for aiolimiter.AsyncLimiter: records which limiter each send went through."""

    made: ClassVar[list[RecordingLimiter]] = []

    def __init__(self, rate: float, period: float) -> None:
        self.rate, self.period, self.entered = rate, period, 0
        RecordingLimiter.made.append(self)

    async def __aenter__(self) -> None:
        self.entered += 1

    async def __aexit__(self, *_exc: object) -> None:
        return None


async def test_fan_out_is_paced_per_channel_and_the_workspace_limit_is_stated_for_delivery(
    fake_slack: FakeSlack,
) -> None:
    RecordingLimiter.made = []
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.api_url)
    notifier = SlackNotifier(SlackSender(client), limiter=RecordingLimiter)
    for channel in ("C1", "C1", "C2"):
        await notifier.send(Outgoing(Delivery.CHANNEL, channel, CARD))
    await notifier.send(Outgoing(Delivery.DM, "W9", CARD))
    c1, c2, dm = RecordingLimiter.made
    assert (c1.rate, c1.period, c1.entered) == (3, 3, 2)  # bursts of 3, then one a second
    assert (c2.entered, dm.entered) == (1, 1)
    # the workspace's 20 a second is paced by delivery, shared between workers (test_pacing)
    assert notifier.rate == Rate(WORKSPACE_PER_SECOND, per="workspace")


class TimedSender:
    """Stands in for SlackSender behind the real notifier: when each message went out."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, str]] = []

    async def send(self, message: Outgoing) -> str | None:
        self.sent.append((time.monotonic(), message.to))
        return f"{message.to}:{len(self.sent)}"


def conforms(times: list[float], capacity: float, rate: float) -> bool:
    """Whether ``times`` fit a token bucket of ``capacity`` refilled at ``rate`` per second:
    no span of sends holds more than the bucket and what it refilled meanwhile."""
    return all(
        j - i + 1 <= capacity + rate * (times[j] - times[i]) + 1e-6
        for i in range(len(times))
        for j in range(i, len(times))
    )


async def test_the_notifier_never_sends_faster_than_a_channel_allows() -> None:
    speed = 40  # aiolimiter on a clock 40 times as fast, so the test takes a fraction of a second

    def fast(rate: float, period: float) -> AsyncLimiter:
        return AsyncLimiter(rate, period / speed)

    sender = TimedSender()
    notifier = SlackNotifier(sender, limiter=fast)  # type: ignore[arg-type]
    messages = [Outgoing(Delivery.CHANNEL, c, CARD) for c in ["C1"] * 8 + ["C2"] * 4 + ["C3"] * 20]
    await asyncio.gather(*(notifier.send(m) for m in messages))
    assert len(sender.sent) == len(messages)
    for channel in ("C1", "C2", "C3"):
        times = sorted(t for t, to in sender.sent if to == channel)
        assert conforms(times, CHANNEL_BURST, 1.0 * speed)  # bursts of 3, then one a second

"""Outbox delivery through the real client: posts, thread replies, DMs, edits, files, 429s."""

from __future__ import annotations

import pytest

from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.messages import Attachment, Card, Delivery, Outgoing
from bot.delivery import RetryLater
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import running_adapter
from tests.adapters.discord.fake_discord import FakeDiscord

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


async def test_a_short_429_is_retried_by_discord_py_and_the_post_goes_out(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_gateway=False
    ) as (_, adapter):
        fake.rate_limit("POST", rf"^/channels/{p.CHANNEL_ID}/messages$", retry_after=0.01)
        ref = await adapter.notifier.send(
            Outgoing(Delivery.CHANNEL, p.CHANNEL_ID, Card(title="Daily"))
        )
    posts = fake.channel_posts()
    assert len(posts) == 2  # the 429, then the retry
    assert ref == list(fake.messages)[-1]


async def test_a_long_429_goes_back_to_the_outbox_as_retry_later(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_gateway=False
    ) as (_, adapter):
        fake.rate_limit("POST", rf"^/channels/{p.CHANNEL_ID}/messages$", retry_after=120)
        with pytest.raises(RetryLater) as caught:
            await adapter.notifier.send(
                Outgoing(Delivery.CHANNEL, p.CHANNEL_ID, Card(title="Daily"))
            )
    assert caught.value.retry_after == 120
    assert fake.messages == {}


async def test_dms_private_messages_updates_and_thread_replies(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_gateway=False
    ) as (_, adapter):
        send = adapter.notifier.send
        post = await send(Outgoing(Delivery.CHANNEL, p.CHANNEL_ID, Card(title="Daily")))
        assert post is not None
        await send(
            Outgoing(Delivery.CHANNEL, p.CHANNEL_ID, Card(blocks=("Revealed",)), thread=post)
        )
        await send(Outgoing(Delivery.UPDATE, p.CHANNEL_ID, Card(title="Closed"), ref=post))
        await send(Outgoing(Delivery.DM, p.USER_ID, Card(blocks=("Mock in 1 hour",))))
        await send(Outgoing(Delivery.PRIVATE, p.USER_ID, Card(blocks=("Graded later",))))
        assert (
            await send(Outgoing(Delivery.MODAL, p.USER_ID, Card(title="form"))) is None
        )  # a modal opens only in answer to an interaction

    reply = fake.channel_posts()[1]
    assert str(reply.json["message_reference"]["message_id"]) == post
    edit = next(c for c in fake.calls if c.method == "PATCH")
    assert edit.path == f"/channels/{p.CHANNEL_ID}/messages/{post}"
    assert edit.json["embeds"][0]["title"] == "Closed"
    dm_posts = fake.channel_posts(p.dm_channel_id(p.USER_ID))
    assert [c.json["content"] for c in dm_posts] == ["Mock in 1 hour", "Graded later"]


async def test_a_png_chart_is_uploaded_as_an_attachment_shown_in_the_embed(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with running_adapter(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_gateway=False
    ) as (_, adapter):
        await adapter.notifier.send(
            Outgoing(
                Delivery.CHANNEL,
                p.CHANNEL_ID,
                Card(title="This week"),
                attachments=(Attachment("week.png", PNG, "image/png"),),
            )
        )
    (post,) = fake.channel_posts()
    assert post.files == [("week.png", PNG)]
    assert post.json["embeds"][0]["image"]["url"] == "attachment://week.png"

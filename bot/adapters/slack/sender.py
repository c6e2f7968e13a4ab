"""Outgoing messages → Slack Web API calls.

| delivery | call |
| --- | --- |
| CHANNEL | ``chat.postMessage`` (in ``thread`` when set); returns ``CHANNEL:TS`` |
| PRIVATE | ``chat.postEphemeral`` to the user in the channel (the interaction's ``response_url``
            when the bot is not in that channel); no channel → a DM |
| DM | ``conversations.open`` (cached) + ``chat.postMessage`` |
| UPDATE | ``chat.update`` of ``ref`` (``CHANNEL:TS``) |
| MODAL | ``views.open`` with the interaction's ``trigger_id``; without one (from the outbox)
          the card goes privately instead |

Attachments (charts, .ics files) are uploaded with ``files_upload_v2`` next to
the message: in its channel and thread, or in the user's DM for private
messages, since a file in a channel is seen by everyone. An HTTP 429 becomes
:class:`bot.delivery.RetryLater` with Slack's ``Retry-After``, so the outbox
waits as long as Slack asked.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from aiolimiter import AsyncLimiter
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.adapters.slack import render
from bot.adapters.slack.translate import split_ref, thread_ref
from bot.core.messages import Attachment, Card, Delivery, Outgoing
from bot.delivery import RetryLater
from bot.pacing import Rate

log = logging.getLogger(__name__)
DEFAULT_RETRY_AFTER = 30.0
# chat.postEphemeral fails like this where the bot is not a member; response_url still works.
NOT_IN_CHANNEL = frozenset({"channel_not_found", "not_in_channel", "user_not_in_channel"})
NO_FORM_NOTE = "Type /answer followed by your answer."
CHANNEL_BURST = 3  # messages at once in one channel, then one a second
WORKSPACE_PER_SECOND = 20.0
MAX_PACED_CHANNELS = 10_000
MAX_DM_CHANNELS = 20_000  # users whose DM channel id is kept, as many as the user directory


def retry_after(exc: SlackApiError) -> float | None:
    """Seconds Slack asked to wait, for an HTTP 429; None for any other error."""
    if exc.response.status_code != 429:
        return None
    headers = {str(k).lower(): v for k, v in (exc.response.headers or {}).items()}
    value = headers.get("retry-after")
    if isinstance(value, list):
        value = value[0] if value else None
    try:
        return max(float(value), 0.0) if value is not None else DEFAULT_RETRY_AFTER
    except ValueError:
        return DEFAULT_RETRY_AFTER


class SlackSender:
    """Renders and sends one :class:`Outgoing`; returns Slack's id for it (``CHANNEL:TS``)."""

    def __init__(self, client: AsyncWebClient, *, dm_channels: int = MAX_DM_CHANNELS) -> None:
        self.client = client
        # user -> DM channel id, least recently used first; bounded, as a bot that DMs every
        # member of a large workspace would otherwise keep one entry per member for good
        self._dm_channels: OrderedDict[str, str] = OrderedDict()
        self._dm_channels_kept = dm_channels

    async def send(
        self,
        message: Outgoing,
        *,
        trigger_id: str | None = None,
        response_url: str | None = None,
    ) -> str | None:
        try:
            return await self._send(message, trigger_id, response_url)
        except SlackApiError as exc:
            wait = retry_after(exc)
            if wait is not None:
                raise RetryLater(wait) from exc
            raise

    async def _send(
        self, message: Outgoing, trigger_id: str | None, response_url: str | None
    ) -> str | None:
        delivery = message.delivery
        if delivery is Delivery.MODAL:
            if message.form is not None and trigger_id:
                return await self._open_modal(message, trigger_id)
            card = message.card
            if message.form is not None:
                card = Card(
                    title=card.title or message.form.title,
                    blocks=(*card.blocks, f"{message.form.label}: {NO_FORM_NOTE}"),
                )
            message = Outgoing(Delivery.PRIVATE, message.to, card, channel=message.channel)
            delivery = Delivery.PRIVATE
        if delivery is Delivery.CHANNEL:
            return await self._post(message.to, message.card, message.thread, message.attachments)
        if delivery is Delivery.DM or (delivery is Delivery.PRIVATE and not message.channel):
            channel = await self.dm_channel(message.to)
            return await self._post(channel, message.card, None, message.attachments)
        if delivery is Delivery.PRIVATE:
            return await self._ephemeral(message, response_url)
        if delivery is Delivery.UPDATE:
            channel, ts = split_ref(message.ref or "", message.to)
            response = await self.client.chat_update(
                channel=channel, ts=ts, **render.message_payload(message.card)
            )
            return thread_ref(str(response.get("channel") or channel), str(response["ts"]))
        raise ValueError(f"unknown delivery {delivery!r}")

    async def _post(
        self,
        channel: str,
        card: Card,
        thread: str | None,
        attachments: tuple[Attachment, ...],
    ) -> str:
        thread_ts = split_ref(thread)[1] if thread else None
        response = await self.client.chat_postMessage(
            channel=channel,
            thread_ts=thread_ts,
            unfurl_links=False,
            **render.message_payload(card),
        )
        posted_in = str(response.get("channel") or channel)
        if attachments:
            await self._upload(posted_in, thread_ts, attachments)
        return thread_ref(posted_in, str(response["ts"]))

    async def _ephemeral(self, message: Outgoing, response_url: str | None) -> str | None:
        channel = message.channel or ""
        thread_ts = split_ref(message.thread)[1] if message.thread else None
        payload = render.message_payload(message.card)
        try:
            response = await self.client.chat_postEphemeral(
                channel=channel, user=message.to, thread_ts=thread_ts, **payload
            )
        except SlackApiError as exc:
            if not response_url or exc.response.get("error") not in NOT_IN_CHANNEL:
                raise
            webhook = AsyncWebhookClient(response_url)
            await webhook.send(response_type="ephemeral", replace_original=False, **payload)
            ref = None
        else:
            ref = thread_ref(channel, str(response.get("message_ts", "")))
        if message.attachments:
            await self._upload(await self.dm_channel(message.to), None, message.attachments)
        return ref

    async def _open_modal(self, message: Outgoing, trigger_id: str) -> str | None:
        assert message.form is not None
        view = render.modal_view(message.form, message.channel or "", message.thread)
        response = await self.client.views_open(trigger_id=trigger_id, view=view)
        opened: dict[str, Any] = dict(response.get("view") or {})
        return str(opened["id"]) if opened.get("id") else None

    async def _upload(
        self, channel: str, thread_ts: str | None, attachments: tuple[Attachment, ...]
    ) -> None:
        await self.client.files_upload_v2(
            channel=channel,
            thread_ts=thread_ts,
            file_uploads=[
                {"content": a.content, "filename": a.filename, "title": a.filename}
                for a in attachments
            ],
        )

    async def dm_channel(self, user: str) -> str:
        """The id of the bot's DM channel with ``user`` (``conversations.open``; the ids of
        the :data:`MAX_DM_CHANNELS` users most recently written to are kept)."""
        channel = self._dm_channels.get(user)
        if channel is not None:
            self._dm_channels.move_to_end(user)
            return channel
        response = await self.client.conversations_open(users=user)
        channel = str((response.get("channel") or {})["id"])
        self._dm_channels[user] = channel
        if len(self._dm_channels) > self._dm_channels_kept:
            self._dm_channels.popitem(last=False)
        return channel

    async def publish_home(self, user: str, card: Card) -> None:
        """Show ``card`` on ``user``'s App Home tab (``views.publish``)."""
        await self.client.views_publish(user_id=user, view=render.home_view(card))


class SlackNotifier:
    """The outbox's way to Slack.

    Slack's limit is per workspace (``rate``: about 20 messages a second), which delivery
    paces, shared between workers (:mod:`bot.pacing`); on top of it each channel gets
    short bursts and then about one message a second (Slack's guidance for
    ``chat.postMessage``), paced here, per process. An HTTP 429 is not waited out here: it
    is raised as RetryLater, so the outbox retries after Slack's ``Retry-After``.
    """

    def __init__(
        self,
        sender: SlackSender,
        *,
        channel_burst: int = CHANNEL_BURST,
        workspace_per_second: float = WORKSPACE_PER_SECOND,
        limiter: Callable[[float, float], AbstractAsyncContextManager[object]] = AsyncLimiter,
    ) -> None:
        self.sender = sender
        self.channel_burst = channel_burst
        self.rate = Rate(workspace_per_second, per="workspace")
        self.limiter = limiter
        self._channels: OrderedDict[str, AbstractAsyncContextManager[object]] = OrderedDict()

    def _pace(self, channel: str) -> AbstractAsyncContextManager[object]:
        # built on first use, inside the running event loop
        pace = self._channels.get(channel)
        if pace is None:
            pace = self._channels[channel] = self.limiter(self.channel_burst, self.channel_burst)
            if len(self._channels) > MAX_PACED_CHANNELS:
                self._channels.popitem(last=False)
        self._channels.move_to_end(channel)
        return pace

    async def send(self, message: Outgoing) -> str | None:
        where = message.to if message.delivery in (Delivery.CHANNEL, Delivery.UPDATE) else None
        async with self._pace(where or message.channel or message.to):
            return await self.sender.send(message)

"""Outbox delivery on Discord: channel posts, replies in a post's thread, DMs, edits.

discord.py paces every route by Discord's own ``X-RateLimit-*`` headers and
retries short 429s; on top of that delivery paces fan-out (a daily post to many channels)
under the bot's global 50 requests/s (``rate``, per bot, shared between workers:
:mod:`bot.pacing`). A rate limit
longer than discord.py's ``max_ratelimit_timeout`` is handed back to the outbox
as :class:`~bot.delivery.RetryLater`.
"""

from __future__ import annotations

import logging

import discord

from bot.adapters.discord.render import render
from bot.core.messages import Delivery, Outgoing
from bot.delivery import RetryLater
from bot.pacing import Rate

log = logging.getLogger(__name__)
DEFAULT_RETRY = 5.0


def _retry_after(exc: discord.HTTPException) -> float:
    header = exc.response.headers.get("Retry-After") if exc.response is not None else None
    try:
        return max(float(header), 0.0) if header is not None else DEFAULT_RETRY
    except ValueError:
        return DEFAULT_RETRY


class DiscordNotifier:
    """Sends outbox messages through a logged-in discord.py client; returns message ids."""

    def __init__(self, client: discord.Client, sends_per_second: float = 40.0) -> None:
        self.client = client
        self.rate = Rate(sends_per_second, per="platform")  # Discord's limit is per bot

    async def send(self, message: Outgoing) -> str | None:
        """Deliver ``message``; raises RetryLater when Discord asks to wait too long."""
        try:
            return await self._send(message)
        except discord.RateLimited as exc:
            raise RetryLater(exc.retry_after) from exc
        except discord.HTTPException as exc:
            if exc.status == 429:
                raise RetryLater(_retry_after(exc)) from exc
            raise

    async def _send(self, message: Outgoing) -> str | None:
        delivery = message.delivery
        if delivery is Delivery.MODAL:
            # Discord opens a modal only as the answer to an interaction; the interaction
            # handler does that. One that reaches the outbox cannot be shown to anyone.
            log.warning("a form for %s reached the outbox; Discord cannot open it", message.to)
            return None
        rendered = render(message)
        if delivery is Delivery.CHANNEL:
            channel = self.client.get_partial_messageable(int(message.to))
            kwargs = rendered.kwargs()
            if message.thread:
                kwargs["reference"] = discord.MessageReference(
                    message_id=int(message.thread),
                    channel_id=int(message.to),
                    fail_if_not_exists=False,
                )
                kwargs["mention_author"] = False
            sent = await channel.send(**kwargs)
            return str(sent.id)
        if delivery is Delivery.UPDATE:
            if message.ref is None:
                raise ValueError("an update needs the id of the message to replace")
            channel = self.client.get_partial_messageable(int(message.to))
            edited = await channel.get_partial_message(int(message.ref)).edit(
                **rendered.kwargs(edit=True)
            )
            return str(edited.id)
        # DM, and PRIVATE outside an interaction: Discord has ephemeral messages only as
        # interaction responses, so a private message sent later goes to the user's DMs.
        dm = await self.client.create_dm(discord.Object(id=int(message.to)))
        sent = await dm.send(**rendered.kwargs())
        return str(sent.id)

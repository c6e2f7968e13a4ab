"""One way to answer an interaction, whether it came over the gateway or over HTTP.

Discord wants a first response within 3 seconds and accepts follow-ups for 15
minutes. The handler runs the core; if it answers within ``defer_after`` the
reply is the first response (a message, an update of the clicked message, or a
modal, which may only ever be a first response); otherwise the interaction is
deferred (type 5, ephemeral) and the replies follow by editing the deferred
message and sending follow-ups through the interaction's webhook.

Only the first response differs between the two transports: over the gateway
discord.py POSTs it to the callback endpoint; over HTTP it is the body of the
answer to Discord's request. Everything after it goes through discord.py's
interaction webhook in both cases.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import discord

from bot.adapters.base import STOP_DRAIN, report_failure
from bot.adapters.discord.render import (
    DiscordMessage,
    message_json,
    modal_json,
    render,
    render_modal,
)
from bot.adapters.discord.translate import event_from_interaction, event_from_message
from bot.bootstrap import App
from bot.core.app import APOLOGY
from bot.core.events import Event, EventKind
from bot.core.messages import Button, ButtonStyle, Card, Delivery, Outgoing, say
from bot.delivery import Notifier, RetryLater

log = logging.getLogger(__name__)
ACK_WAIT = 5.0  # seconds to wait for the HTTP first response to leave before following up
RETRY_REPLY_AFTER = 5.0  # seconds before the outbox tries a reply Discord failed to take
DRAIN_TIMEOUT = STOP_DRAIN  # seconds shutdown waits for interactions still being answered
OWN_POSTS_CACHE = 2048


class Responder(Protocol):
    """How the first response to one interaction is given."""

    files_in_first: bool

    async def message(self, message: DiscordMessage) -> None: ...

    async def update(self, message: DiscordMessage) -> None: ...

    async def modal(self, modal: discord.ui.Modal) -> None: ...

    async def defer(self) -> None: ...

    async def ack(self) -> None: ...


class GatewayResponder:
    """First responses through discord.py's ``Interaction.response`` (the callback endpoint)."""

    files_in_first = True

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction

    async def message(self, message: DiscordMessage) -> None:
        await self.interaction.response.send_message(
            **message.kwargs(), ephemeral=message.ephemeral
        )

    async def update(self, message: DiscordMessage) -> None:
        await self.interaction.response.edit_message(**message.kwargs(edit=True))

    async def modal(self, modal: discord.ui.Modal) -> None:
        await self.interaction.response.send_modal(modal)

    async def defer(self) -> None:
        await self.interaction.response.defer(ephemeral=True, thinking=True)

    async def ack(self) -> None:
        await self.interaction.response.defer()


class HttpResponder:
    """First responses as the body of the HTTP answer to Discord's POST.

    ``body`` resolves to the JSON to return; :meth:`sent` is called once the
    answer has left, and follow-ups wait for it.
    """

    files_in_first = False  # a JSON body carries no files: defer, then edit with them

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.body: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._sent = asyncio.Event()

    async def sent(self) -> None:
        """Mark the first response as sent (a background task of the HTTP answer)."""
        self._sent.set()

    async def _respond(self, body: dict[str, Any]) -> None:
        if not self.body.done():
            self.body.set_result(body)
        try:
            await asyncio.wait_for(self._sent.wait(), ACK_WAIT)
        except TimeoutError:
            log.warning("the HTTP interaction response was not sent within %ss", ACK_WAIT)

    async def message(self, message: DiscordMessage) -> None:
        await self._respond({"type": 4, "data": message_json(message)})

    async def update(self, message: DiscordMessage) -> None:
        await self._respond({"type": 7, "data": message_json(message)})

    async def modal(self, modal: discord.ui.Modal) -> None:
        await self._respond({"type": 9, "data": modal_json(modal)})

    async def defer(self) -> None:
        await self._respond({"type": 5, "data": {"flags": 64}})

    async def ack(self) -> None:
        await self._respond({"type": 6})


@dataclass(slots=True)
class _Progress:
    """How far the answer to one interaction got: whether a first response went out, and
    whether it was a deferral not yet replaced by the answer."""

    responded: bool = False
    deferred: bool = False
    answered: int = 0  # of the replies to the actor, how many Discord took


def transient(exc: BaseException) -> bool:
    """Whether a failed send may succeed later: a 429 (however Discord said it), a 5xx, the
    network. A 4xx other than 429 is for good."""
    if isinstance(exc, RetryLater | discord.RateLimited | aiohttp.ClientError | OSError):
        return True
    if isinstance(exc, TimeoutError):
        return True
    return isinstance(exc, discord.HTTPException) and (exc.status == 429 or exc.status >= 500)


def _retry_after(exc: BaseException) -> float:
    if isinstance(exc, RetryLater | discord.RateLimited):
        return float(exc.retry_after)
    return RETRY_REPLY_AFTER


def delivery_key(interaction: discord.Interaction) -> str:
    """An interaction's id is Discord's own, unique for ever."""
    return f"interaction:{interaction.id}"


class InteractionHandler:
    """Turns interactions and thread replies into events and answers with the core's replies."""

    def __init__(
        self,
        app: App,
        notifier: Notifier,
        admin_ids: frozenset[str],
        defer_after: float = 2.0,
    ) -> None:
        self.app = app
        self.notifier = notifier
        self.admin_ids = admin_ids
        self.defer_after = defer_after
        self._own_posts: OrderedDict[int, bool] = OrderedDict()
        self._in_flight: set[asyncio.Task[None]] = set()

    async def _tracked(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task that :meth:`drain` waits for."""
        task = asyncio.ensure_future(work)
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)
        await task

    async def drain(self, timeout: float = DRAIN_TIMEOUT) -> None:
        """Wait (at most ``timeout`` seconds) until no interaction or reply is being handled,
        so the app's database is not closed under work still using it (on shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while pending := {t for t in self._in_flight if t is not asyncio.current_task()}:
            remaining = deadline - loop.time()
            if remaining <= 0:
                log.warning("stopping with %d Discord interactions unfinished", len(pending))
                return
            await asyncio.wait(pending, timeout=remaining)

    async def run(
        self, interaction: discord.Interaction, responder: Responder, *, recorded: bool = False
    ) -> None:
        """Answer one command, component or modal interaction, once: an interaction that any
        worker on this database took before (a gateway replay after a resume, a replayed
        HTTP request) is dropped. ``recorded``: the caller has already checked and recorded
        it (the HTTP endpoint does, to answer a replay with 409)."""
        await self._tracked(self._run(interaction, responder, recorded))

    async def first_delivery(self, interaction: discord.Interaction) -> bool:
        """True the first time any worker takes ``interaction``; raises the database's error."""
        return await self.app.first_delivery("discord", delivery_key(interaction))

    async def _run(
        self, interaction: discord.Interaction, responder: Responder, recorded: bool
    ) -> None:
        """The adapter's edge for interactions: a failure anywhere is logged once with its
        traceback, counted, and answered with a short apology where the user acted."""
        try:
            event = event_from_interaction(interaction, self.admin_ids)
        except ValueError:
            log.warning("ignoring interaction of type %s", interaction.type)
            return
        progress = _Progress()
        try:
            if not recorded and not await self.first_delivery(interaction):
                log.info("Discord: interaction %s came again; it was handled once", interaction.id)
                return
            await self._answer_event(interaction, responder, event, progress)
        except discord.HTTPException:
            # Discord refused the answer itself: there is no way left to tell the user.
            report_failure(log, "discord", "answering an interaction")
        except Exception:
            text = report_failure(log, "discord", f"a {event.kind.value}")
            await self._apologise(interaction, responder, progress, text)

    async def _answer_event(
        self,
        interaction: discord.Interaction,
        responder: Responder,
        event: Event,
        progress: _Progress,
    ) -> None:
        work = asyncio.ensure_future(self.app.handle(event))
        done, _ = await asyncio.wait({work}, timeout=self.defer_after)
        mine: list[Outgoing] = []
        try:
            if done:
                mine, others = self._split(interaction, event, work.result())
                progress.responded = True  # from here on, the answer is given or refused
                await self._answer(interaction, responder, event, mine, progress)
            else:
                await responder.defer()
                progress.responded = progress.deferred = True
                mine, others = self._split(interaction, event, await work)
                progress.deferred = False
                await self._answer_deferred(interaction, event, mine, progress)
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            if not mine or not transient(exc):
                raise
            # Discord did not take the answer now: the user gets it by DM, through the outbox.
            await self._send_later(event, mine[progress.answered :], exc)
            progress.answered = len(mine)
        await self._deliver(others, event.workspace)

    async def _send_later(self, event: Event, replies: list[Outgoing], exc: BaseException) -> None:
        for reply in replies:
            if reply.delivery is Delivery.MODAL:
                continue  # a form opens only as the answer to an interaction
            reason = f"HTTP {exc.status}" if isinstance(exc, discord.HTTPException) else repr(exc)
            await self.app.send_later("discord", event.workspace, reply, _retry_after(exc), reason)

    async def _apologise(
        self,
        interaction: discord.Interaction,
        responder: Responder,
        progress: _Progress,
        text: str = APOLOGY,
    ) -> None:
        reply = render(Outgoing(Delivery.PRIVATE, "", Card(blocks=(text,))), ephemeral=True)
        try:
            if not progress.responded:
                await responder.message(reply)
            elif progress.deferred:
                await interaction.edit_original_response(**reply.kwargs(edit=True))
            else:
                await interaction.followup.send(**reply.kwargs(), ephemeral=True)
        except discord.HTTPException as exc:
            log.warning("Discord: the apology could not be sent either: %r", exc)

    def _split(
        self, interaction: discord.Interaction, event: Event, replies: list[Outgoing]
    ) -> tuple[list[Outgoing], list[Outgoing]]:
        """Replies that answer the interaction itself, and the rest (sent by the notifier)."""
        clicked = str(interaction.message.id) if interaction.message is not None else None
        mine: list[Outgoing] = []
        others: list[Outgoing] = []
        for reply in replies:
            to_actor = reply.delivery in (Delivery.PRIVATE, Delivery.MODAL) and (
                reply.to == event.user
            )
            clicked_update = reply.delivery is Delivery.UPDATE and reply.ref == clicked
            if to_actor or (clicked is not None and clicked_update):
                mine.append(reply)
            else:
                others.append(reply)
        return mine, others

    async def _deliver(self, replies: list[Outgoing], workspace: str | None = None) -> None:
        """Send replies that do not answer the interaction itself; one Discord cannot take
        now goes to the outbox (with ``workspace``, the guild's id), which retries it."""
        for reply in replies:
            try:
                await self.notifier.send(reply)
            except Exception as exc:
                if workspace is None or not transient(exc):
                    log.exception("sending a %s reply on Discord failed", reply.delivery.value)
                    continue
                await self.app.send_later(
                    "discord", workspace, reply, _retry_after(exc), type(exc).__name__
                )

    def _form_fallback(self, reply: Outgoing, event: Event) -> DiscordMessage:
        """A form that can no longer open as a modal: a button that opens it again."""
        form = reply.form
        label = form.label if form is not None else reply.card.title
        title = form.title if form is not None else "Open"
        buttons = (
            (Button(title, event.action, ButtonStyle.PRIMARY),)
            if event.kind is EventKind.ACTION and event.action
            else ()
        )
        card = Card(blocks=(label,), buttons=buttons)
        return render(Outgoing(Delivery.PRIVATE, reply.to, card), ephemeral=True)

    async def _answer(
        self,
        interaction: discord.Interaction,
        responder: Responder,
        event: Event,
        mine: list[Outgoing],
        progress: _Progress,
    ) -> None:
        if not mine:
            if event.kind is EventKind.COMMAND:
                # Nothing private to say (the command posted in the channel): acknowledge
                # with a deferred reply and remove it, so no empty message remains.
                await responder.defer()
                await interaction.delete_original_response()
            else:
                await responder.ack()
            return
        first, rest = mine[0], mine[1:]
        if first.delivery is Delivery.MODAL and first.form is not None:
            await responder.modal(render_modal(first.form))
        elif first.delivery is Delivery.UPDATE:
            await responder.update(render(first))
        else:
            message = render(first, ephemeral=True)
            if message.files and not responder.files_in_first:
                await responder.defer()
                await interaction.edit_original_response(**message.kwargs(edit=True))
            else:
                await responder.message(message)
        progress.answered = 1
        for reply in rest:
            await self._follow_up(interaction, event, reply)
            progress.answered += 1

    async def _answer_deferred(
        self,
        interaction: discord.Interaction,
        event: Event,
        mine: list[Outgoing],
        progress: _Progress,
    ) -> None:
        """After a deferral: the first private reply replaces the 'thinking' message."""
        edited = False
        for reply in mine:
            if reply.delivery is Delivery.UPDATE:
                await self._deliver([reply], event.workspace)
                progress.answered += 1
                continue
            message = (
                self._form_fallback(reply, event)
                if reply.delivery is Delivery.MODAL
                else render(reply, ephemeral=True)
            )
            if not edited:
                await interaction.edit_original_response(**message.kwargs(edit=True))
                edited = True
            else:
                await interaction.followup.send(**message.kwargs(), ephemeral=True)
            progress.answered += 1
        if not edited:
            await interaction.delete_original_response()

    async def _follow_up(
        self, interaction: discord.Interaction, event: Event, reply: Outgoing
    ) -> None:
        if reply.delivery is Delivery.UPDATE:
            await self._deliver([reply])
            return
        message = (
            self._form_fallback(reply, event)
            if reply.delivery is Delivery.MODAL
            else render(reply, ephemeral=True)
        )
        await interaction.followup.send(**message.kwargs(), ephemeral=True)

    async def _is_own_post(self, client: discord.Client, channel_id: int, message_id: int) -> bool:
        """Whether ``message_id`` in ``channel_id`` was posted by this bot (cached)."""
        if message_id in self._own_posts:
            self._own_posts.move_to_end(message_id)
            return self._own_posts[message_id]
        me = client.user
        try:
            starter = await client.get_partial_messageable(channel_id).fetch_message(message_id)
            own = me is not None and starter.author.id == me.id
        except discord.NotFound:
            own = False
        self._own_posts[message_id] = own
        if len(self._own_posts) > OWN_POSTS_CACHE:
            self._own_posts.popitem(last=False)
        return own

    async def on_message(self, client: discord.Client, message: discord.Message) -> None:
        """A reply to one of the bot's posts, in the post's thread or as a reply, is an answer.

        Without the message content intent Discord sends the text only when the
        bot is mentioned; a message without text is ignored.
        """
        await self._tracked(self._on_message(client, message))

    async def _on_message(self, client: discord.Client, message: discord.Message) -> None:
        try:
            await self._answer_message(client, message)
        except Exception:
            text = report_failure(log, "discord", "a reply to a post")
            await self._deliver([say(str(message.author.id), text)])

    async def _answer_message(self, client: discord.Client, message: discord.Message) -> None:
        me = client.user
        if me is None or message.author.bot or message.guild is None:
            return
        channel = message.channel
        post: tuple[int, int] | None = None  # (post id, channel of the post)
        if isinstance(channel, discord.Thread) and channel.parent_id is not None:
            if await self._is_own_post(client, channel.parent_id, channel.id):
                post = (channel.id, channel.parent_id)
        elif message.reference is not None and message.reference.message_id is not None:
            resolved = message.reference.resolved
            if isinstance(resolved, discord.Message) and resolved.author.id == me.id:
                post = (resolved.id, channel.id)
        if post is None:
            return
        event = event_from_message(
            message, bot_id=me.id, post_id=post[0], channel_id=post[1], admin_ids=self.admin_ids
        )
        if not event.text:
            return
        await self._deliver(await self.app.handle(event), event.workspace)

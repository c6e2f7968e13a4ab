"""The core's entry point: one event in, the replies out.

``StudyBot.handle`` opens a unit of work, finds who is acting where, routes the
event to its use case and commits. User errors become a private reply with
their message (and the transaction rolls back). Anything else rolls back and
propagates to the adapter's edge, which logs it once with its traceback, counts
it, and gives the user :data:`APOLOGY`, never exception text.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.commands import ACTIONS, run_command
from bot.core.context import Context, Services
from bot.core.errors import UserError
from bot.core.events import DELIVERIES, Event, EventKind
from bot.core.messages import Outgoing, say
from bot.core.model import ACTORS
from bot.core.ports import UnitOfWork
from bot.core.router import route_answer

MAX_INPUT_CHARS = 8000
APOLOGY = "Sorry, something went wrong on my side. Please try again in a moment."


class StudyBot:
    """Routes events to use cases. Built once by ``bootstrap``; safe to share between tasks."""

    def __init__(self, uow_factory: Callable[[], UnitOfWork], services: Services) -> None:
        self.uow_factory = uow_factory
        self.services = services

    def handle(self, event: Event) -> list[Outgoing]:
        """Run ``event``'s use case and return what to send back to the acting user.

        An event whose ``delivery`` was taken before (a platform's retry or replay, on this
        worker or another) gets no reply and changes nothing. The delivery is taken in the
        event's own transaction, so it costs no commit of its own, and a concurrent copy on
        another worker waits for this one's outcome. A delivery whose handling failed (an
        error that is not a UserError) is not kept: a retry of it is handled.

        Raises what is not a UserError (after rolling back), for the adapter's edge."""
        try:
            with self.uow_factory() as uow:
                if event.delivery and not uow[DELIVERIES].first(event.platform, event.delivery):
                    return []
                ctx = self._context(uow, event)
                replies = self._route(ctx)
                uow.commit()
                return replies
        except UserError as err:
            if event.delivery and not self._take_delivery(event):
                return []
            return [say(event.user, str(err), channel=event.channel)]

    def _take_delivery(self, event: Event) -> bool:
        """Keep the delivery of an event that the core refused (its transaction, and the key
        taken in it, rolled back), so that a replay is not refused twice; False when another
        worker took it meanwhile."""
        with self.uow_factory() as uow:
            first = uow[DELIVERIES].first(event.platform, event.delivery)
            uow.commit()
            return first

    def _context(self, uow: UnitOfWork, event: Event) -> Context:
        actor = uow[ACTORS].ensure(
            event.platform,
            event.workspace,
            event.user,
            event.channel,
            event.user_name,
            event.user_tz,
        )
        return Context(uow, self.services, event, actor.workspace, actor.user, actor.channel)

    def _route(self, ctx: Context) -> list[Outgoing]:
        event = ctx.event
        if len(event.text) > MAX_INPUT_CHARS or len(event.args) > MAX_INPUT_CHARS:
            raise UserError(f"That is too long: keep it under {MAX_INPUT_CHARS} characters.")
        if event.kind is EventKind.COMMAND:
            return run_command(ctx, event.command.lower(), event.args)
        if event.kind is EventKind.ACTION:
            parts = event.action.split(":")
            action = ACTIONS.get(parts[0])
            if action is None:
                raise UserError("That button is no longer valid.")
            return action(ctx, parts, event.text)
        return route_answer(ctx, event.text)

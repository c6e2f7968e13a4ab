"""A user's home: their own summary, shown in Slack's App Home tab (and anywhere else that asks).

``home_card(ctx)`` gathers fields from ``SECTIONS``. Each capability adds one
section function here when it lands (streaks: current and longest streak;
spaced repetition: reviews due; mocks: the next mock; leaderboard: the team
rank). A section returns only what is true: no field at all when it has
nothing to say, never a made-up number.

Adapters reach it through the ``home`` action (``ACTIONS["home"]``), so it runs
in the same unit of work and with the same workspace scoping as every command.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.context import Context
from bot.core.messages import Card, Delivery, Field, Outgoing

Section = Callable[[Context], list[Field]]


def answers_section(ctx: Context) -> list[Field]:
    """How many answers the user gave in this workspace, and the points they scored."""
    attempts = ctx.uow.attempts.for_user(ctx.workspace, ctx.user)
    if not attempts:
        return [Field("Answers", "none yet: type /daily to get today's question")]
    points = sum(a.points for a in attempts if a.scored)
    return [Field("Answers", str(len(attempts))), Field("Points", str(points))]


SECTIONS: list[Section] = [answers_section]


def home_card(ctx: Context) -> Card:
    """The acting user's summary card: one field per thing a capability knows about them."""
    fields = [f for section in SECTIONS for f in section(ctx)]
    return Card(
        title=f"Your studybot, {ctx.user.display}"[:150],
        blocks=("Your progress in this workspace.",),
        fields=tuple(fields),
        footer="Type /help in any channel to see every command.",
    )


def home_action(ctx: Context, _parts: list[str], _text: str) -> list[Outgoing]:
    """The ``home`` action: the user's summary, privately."""
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            home_card(ctx),
            channel=ctx.channel.external_id,
            tags={"view": "home"},
        )
    ]

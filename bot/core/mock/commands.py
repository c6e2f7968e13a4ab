"""``/mock`` and the mock's buttons: the entry points, the sub-command table, votes and
notes by command, and the history of past mocks.
"""

from __future__ import annotations

from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.messages import (
    Card,
    Delivery,
    Form,
    Outgoing,
)
from bot.core.mock.common import (
    STATUS_WORDS,
    own_mock,
    people,
    private,
    text_reply,
    zone_of,
)
from bot.core.mock.model import (
    DONE,
    MOCKS,
    PAST,
    RUNNING,
    VOTES,
)
from bot.core.mock.pairing import pair
from bot.core.mock.parsing import (
    parse_round,
    parse_vote,
)
from bot.core.mock.preferences import available, remind
from bot.core.mock.rounds import pairing_command
from bot.core.mock.running import answer_round, finish_round, record_vote
from bot.core.mock.scheduling import accept, cancel, decline, list_mocks, reschedule, schedule
from bot.core.mock.scorecard import (
    mean_coverage,
    recommendation,
    scorecard_card,
    unanswered,
    verdicts,
)
from bot.core.mock.times import (
    show,
)
from bot.core.numbers import whole_number

USAGE = (
    "Usage: /mock schedule WHEN [with @PEER] [loop|technical|product|behavioral] · "
    "/mock list · /mock cancel ID · /mock reschedule ID WHEN · "
    "/mock available [DAYS FROM-TO | clear] · /mock pair [FORMAT] · "
    "/mock accept ID · /mock decline ID · /mock vote ID ROUND VOTE [NOTE] · "
    "/mock note ID ROUND TEXT · /mock history [ID] · /mock remind [24h 1h | off] · "
    "/mock pairing join|leave|status (this channel's weekly pairing round)"
)


def vote_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock vote ID ROUND VOTE [NOTE]``."""
    words = args.split()
    if len(words) < 3:
        raise UserError("Usage: /mock vote ID ROUND strong-no|no|yes|strong-yes [NOTE].")
    mock = own_mock(ctx, words[0], lock=True)
    position = parse_round(words[1], mock)
    code, rest = parse_vote(words[2:])
    note = " ".join(rest) or None
    return record_vote(ctx, mock, position, code, note)


def note_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock note ID ROUND TEXT``."""
    words = args.split(maxsplit=2)
    if len(words) < 3 or not words[2].strip():
        raise UserError("Usage: /mock note ID ROUND TEXT.")
    mock = own_mock(ctx, words[0], lock=True)
    return record_vote(ctx, mock, parse_round(words[1], mock), None, words[2].strip())


# -- history and preferences -------------------------------------------------------------------


def history(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock history`` lists past mocks with scores; ``/mock history ID`` shows a scorecard."""
    if args.strip():
        mock = own_mock(ctx, args)
        if mock.status != DONE:
            raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: no scorecard.")
        candidate, interviewer = people(ctx.uow, ctx.workspace, mock)
        card = scorecard_card(
            mock,
            ctx.uow[MOCKS].rounds(mock),
            ctx.bank,
            candidate.display,
            interviewer.display if interviewer is not None and mock.has_interviewer else None,
        )
        return [private(ctx, card)]
    mocks = ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, PAST, limit=20)
    if not mocks:
        return text_reply(ctx, "No past mocks yet. Schedule one: /mock schedule tomorrow 3pm.")
    zone_name = zone_of(ctx.user, ctx.workspace)
    lines = []
    for mock in mocks:
        candidate, interviewer = people(ctx.uow, ctx.workspace, mock)
        if ctx.user.id == candidate.id:
            role = f"with {interviewer.display}" if mock.has_interviewer and interviewer else "solo"
        else:
            role = f"interviewed {candidate.display}"
        line = f"#{mock.id} · {show(mock.starts_at, zone_name)} · {mock.format} · {role} · "
        if mock.status == DONE:
            rounds = ctx.uow[MOCKS].rounds(mock)
            votes = [v.vote for v in verdicts(rounds, ctx.bank)]
            line += (
                "no answers"
                if unanswered(rounds)
                else f"{round(mean_coverage(rounds) * 100)}% rubric coverage · "
                f"{recommendation(votes)}"
            )
        else:
            line += STATUS_WORDS[mock.status]
        lines.append(line)
    return [
        private(
            ctx,
            Card(
                title="Your past mocks",
                blocks=("\n".join(lines),),
                footer="/mock history ID shows a scorecard.",
            ),
        )
    ]


# -- entry points ------------------------------------------------------------------------------

_SUBCOMMANDS = {
    "schedule": schedule,
    "list": list_mocks,
    "cancel": cancel,
    "reschedule": reschedule,
    "available": available,
    "pair": pair,
    "accept": accept,
    "decline": decline,
    "vote": vote_command,
    "note": note_command,
    "history": history,
    "remind": remind,
    "pairing": pairing_command,
}


def mock_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock SUBCOMMAND …``."""
    sub, _, rest = args.strip().partition(" ")
    handler = _SUBCOMMANDS.get(sub.lower())
    if handler is None:
        if sub:
            raise UserError(f"/mock has no {sub[:20]!r}. {USAGE}")
        return text_reply(ctx, USAGE)
    return handler(ctx, rest.strip())


def mock_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons and forms: ``mock:<id>:accept|decline``, ``mock:<id>:<round>:form|submit|done``,
    ``mock:<id>:<round>:v:<vote>``, ``mock:<id>:<round>:note|notesubmit``."""
    if len(parts) < 3 or whole_number(parts[1]) is None:
        raise UserError("That button is no longer valid.")
    if len(parts) == 3 and parts[2] in ("accept", "decline"):
        return (accept if parts[2] == "accept" else decline)(ctx, parts[1])
    if len(parts) < 4 or whole_number(parts[2]) is None:
        raise UserError("That button is no longer valid.")
    mock = own_mock(ctx, parts[1], lock=True)
    position, what = int(parts[2]), parts[3]
    if what == "form":
        if mock.status != RUNNING or position != mock.position:
            raise UserError(f"Round {position + 1} of mock #{mock.id} is closed.")
        form = Form(
            title=f"Mock #{mock.id} · round {position + 1}",
            label="Your answer",
            action=f"mock:{mock.id}:{position}:submit",
        )
        return [
            Outgoing(
                Delivery.MODAL,
                ctx.user.external_id,
                Card(title="Your answer"),
                channel=ctx.channel.external_id,
                form=form,
            )
        ]
    if what == "submit":
        return answer_round(ctx, mock, position, text)
    if what == "done":
        return finish_round(ctx, mock, position)
    if what == "v" and len(parts) == 5 and parts[4] in VOTES:
        return record_vote(ctx, mock, position, parts[4], None)
    if what == "note":
        form = Form(
            title=f"Note · round {position + 1}",
            label="Your note for the debrief",
            action=f"mock:{mock.id}:{position}:notesubmit",
        )
        return [
            Outgoing(
                Delivery.MODAL,
                ctx.user.external_id,
                Card(title="Your note"),
                channel=ctx.channel.external_id,
                form=form,
            )
        ]
    if what == "notesubmit":
        if not text.strip():
            raise UserError("The note is empty.")
        return record_vote(ctx, mock, position, None, text.strip())
    raise UserError("That button is no longer valid.")

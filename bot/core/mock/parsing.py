"""Reading the words of ``/mock``: WHEN with its peer, format and time box, votes, ids."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.mock.model import (
    FORMATS,
    LOOP,
    WEAK,
    Mock,
)
from bot.core.model import USERS, User
from bot.core.numbers import whole_number

DEFAULT_BOX = 8  # minutes per round
ANYWAY = "anyway"  # the last word of a line that sends a night-time invitation all the same
MIN_BOX, MAX_BOX = 3, 30


_MENTION = re.compile(r"^<@!?([A-Za-z0-9]+)(?:\|[^>]*)?>$")
_VOTE_WORDS = {
    "strongno": "sn",
    "sn": "sn",
    "no": "n",
    "n": "n",
    "yes": "y",
    "y": "y",
    "strongyes": "sy",
    "sy": "sy",
}


def parse_id(text: str) -> int:
    number = whole_number(text.strip().lstrip("#"), high=10**12 - 1)
    if number is None:
        raise UserError(f"{text.strip()[:20]!r} is not a mock id. /mock list shows yours.")
    return number


# -- parsing -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduleRequest:
    when: str
    peer: str | None
    format: str
    box: int
    anyway: bool = False  # send it even though it is at night for the peer
    focus: str | None = None  # WEAK: questions from the candidate's weakest topics


def _parse_box(value: str) -> int:
    digits = value.lower().removesuffix("min").removesuffix("m")
    box = whole_number(digits, low=MIN_BOX, high=MAX_BOX)
    if box is None:
        raise UserError(f"A round's time box is {MIN_BOX} to {MAX_BOX} minutes, e.g. box=10m.")
    return box


def parse_schedule(text: str) -> ScheduleRequest:
    """``WHEN [with @PEER] [FORMAT] [box=Nm] [focus=weak]`` in any order around WHEN."""
    words: list[str] = []
    box = DEFAULT_BOX
    focus: str | None = None
    tokens = text.split()
    anyway = bool(tokens) and tokens[-1].lower() == ANYWAY
    for token in tokens[:-1] if anyway else tokens:
        key, eq, value = token.partition("=")
        if eq and key.lower() in ("box", "minutes"):
            box = _parse_box(value)
        elif eq and key.lower() == "focus":
            if value.lower() != WEAK:
                raise UserError(
                    f"{value[:20]!r} is not a focus: focus=weak draws the questions from "
                    "your weakest topics."
                )
            focus = WEAK
        else:
            words.append(token)
    peer: str | None = None
    lowered = [w.lower() for w in words]
    if "with" in lowered:
        at = lowered.index("with")
        if at + 1 >= len(words):
            raise UserError("With whom? Mention them: /mock schedule Fri 15:00 with @bob.")
        peer = words[at + 1]
        del words[at : at + 2]
    fmt = LOOP
    if words and words[-1].lower() in FORMATS:
        fmt = words.pop().lower()
    elif words and words[0].lower() in FORMATS:
        fmt = words.pop(0).lower()
    return ScheduleRequest(" ".join(words), peer, fmt, box, anyway, focus)


def split_anyway(text: str) -> tuple[str, bool]:
    """``WHEN anyway`` → (WHEN, True); anything else → (text, False)."""
    head, _, last = text.strip().rpartition(" ")
    if head and last.lower() == ANYWAY:
        return head, True
    return text, False


def _by_handle(users: list[User], handle: str) -> User | None:
    """The one user ``handle`` names: the one with that platform id, else the only one with
    that name (None when it names several)."""
    by_id = [u for u in users if u.external_id.casefold() == handle.casefold()]
    return by_id[0] if by_id else (users[0] if len(users) == 1 else None)


def resolve_peer(ctx: Context, token: str) -> User:
    """A mention (Slack ``<@U…>``, Discord ``<@…>``) or ``@name`` of someone in the workspace."""
    mention = _MENTION.match(token)
    if mention is not None:
        peer = ctx.uow[USERS].ensure(ctx.workspace, mention.group(1))
    else:
        name = token.lstrip("@")
        if not name or len(name) > 80:
            raise UserError("With whom? Mention them: /mock schedule Fri 15:00 with @bob.")
        found = _by_handle(ctx.uow[USERS].find(ctx.workspace, name), name)
        if found is None:
            raise UserError(
                f"I don't know {name!r} here yet. Mention them (@name) so the platform "
                "tells me who they are, or ask them to say hello to the bot first."
            )
        peer = found
    if peer.id == ctx.user.id:
        raise UserError("You can't interview yourself: leave out 'with' for a solo mock.")
    return peer


def parse_vote(words: list[str]) -> tuple[str, list[str]]:
    """The vote at the head of ``words`` (``strong no`` may be two words) and the rest."""
    if not words:
        raise UserError("Vote strong-no, no, yes or strong-yes.")
    first = words[0].lower().replace("-", "").replace("_", "")
    if first == "strong" and len(words) > 1:
        first, words = "strong" + words[1].lower(), words[1:]
    code = _VOTE_WORDS.get(first)
    if code is None:
        raise UserError(f"{words[0][:20]!r} is not a vote. Vote strong-no, no, yes or strong-yes.")
    return code, words[1:]


def parse_round(text: str, mock: Mock) -> int:
    number = whole_number(text, low=1, high=mock.rounds_total)
    if number is None:
        raise UserError(f"Mock #{mock.id} has rounds 1 to {mock.rounds_total}.")
    return number - 1

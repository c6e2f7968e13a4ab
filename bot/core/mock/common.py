"""What the mock use cases share: who takes part, where a mock runs, how its messages
go out (private replies, DMs, posts in its thread) and its calendar file.
"""

from __future__ import annotations

import re
from datetime import datetime

from bot.core.context import Context
from bot.core.errors import NotFound
from bot.core.ics import ACCEPTED, NEEDS_ACTION, CalendarEvent, Person, ics_attachment
from bot.core.ics import DECLINED as DECLINED_PARTSTAT
from bot.core.messages import (
    OUTBOX,
    Attachment,
    Button,
    ButtonStyle,
    Card,
    Delivery,
    Outgoing,
    until,
)
from bot.core.mock.model import (
    ABANDONED,
    CANCELLED,
    DEBRIEF,
    DECLINED,
    DONE,
    EXPIRED,
    MISSED,
    MOCKS,
    PROPOSED,
    RUNNING,
    SCHEDULED,
    Mock,
)
from bot.core.mock.parsing import (
    parse_id,
)
from bot.core.mock.times import (
    show,
    show_in_zones,
)
from bot.core.model import CHANNELS, USERS, User, Workspace
from bot.core.ports import UnitOfWork

STATUS_WORDS = {
    PROPOSED: "waiting for acceptance",
    SCHEDULED: "scheduled",
    RUNNING: "running now",
    DEBRIEF: "waiting for the interviewer's votes",
    DONE: "done",
    CANCELLED: "cancelled",
    DECLINED: "declined",
    EXPIRED: "expired (not accepted in time)",
    MISSED: "missed (the bot could not start it)",
    ABANDONED: "stopped mid-way (the bot was away too long)",
}


def zone_of(user: User, workspace: Workspace) -> str:
    return user.timezone or workspace.timezone


def private(ctx: Context, card: Card, attachments: tuple[Attachment, ...] = ()) -> Outgoing:
    return Outgoing(
        Delivery.PRIVATE,
        ctx.user.external_id,
        card,
        channel=ctx.channel.external_id,
        attachments=attachments,
    )


def text_reply(ctx: Context, text: str) -> list[Outgoing]:
    return [private(ctx, Card(blocks=(text,)))]


def queue(uow: UnitOfWork, workspace: Workspace, message: Outgoing, now: datetime) -> None:
    key = message.key or ""
    uow[OUTBOX].add(workspace, workspace.platform, message, key, now)


def dm(
    uow: UnitOfWork,
    workspace: Workspace,
    user: User,
    card: Card,
    key: str,
    now: datetime,
    attachments: tuple[Attachment, ...] = (),
    stale_at: datetime | None = None,
) -> None:
    """Queue a DM to ``user``; with ``stale_at``, worth sending only until then."""
    message = Outgoing(Delivery.DM, user.external_id, card, attachments=attachments, key=key)
    queue(uow, workspace, message if stale_at is None else until(message, stale_at), now)


def user_by_id(uow: UnitOfWork, workspace: Workspace, user_id: int | None) -> User | None:
    return None if user_id is None else uow[USERS].get(workspace, user_id)


def people(uow: UnitOfWork, workspace: Workspace, mock: Mock) -> tuple[User, User | None]:
    candidate = user_by_id(uow, workspace, mock.candidate_id)
    if candidate is None:  # the candidate's row cascades with the mock; this cannot happen
        raise NotFound(f"Mock #{mock.id} has no candidate any more.")
    return candidate, user_by_id(uow, workspace, mock.interviewer_id)


def describe(mock: Mock) -> str:
    return (
        f"{mock.format} · {mock.rounds_total} round{'s' * (mock.rounds_total != 1)} × "
        f"{mock.round_minutes} min"
    )


def start_times(uow: UnitOfWork, workspace: Workspace, mock: Mock, at: datetime) -> list[str]:
    candidate, interviewer = people(uow, workspace, mock)
    zones = [(candidate.display, zone_of(candidate, workspace))]
    if interviewer is not None:
        zones.append((interviewer.display, zone_of(interviewer, workspace)))
    return show_in_zones(at, zones)


def where(uow: UnitOfWork, workspace: Workspace, mock: Mock) -> str:
    if mock.in_dm or mock.channel_id is None:
        return "in a direct message"
    channel = uow[CHANNELS].get(workspace, mock.channel_id)
    return f"in a thread in #{channel.name if channel else '?'}"


def calendar_address(workspace: Workspace, external_id: str) -> str:
    """A calendar address for someone the bot knows only by platform id: calendars need
    one to treat a file as an invitation; ``.invalid`` (RFC 2606) is never delivered to."""
    local = re.sub(r"[^A-Za-z0-9._-]", "_", external_id) or "someone"
    return f"mailto:{local}@{workspace.platform}.studybot.invalid"


def _attendee(workspace: Workspace, mock: Mock, user: User) -> Person:
    if mock.accepted(user.id):
        partstat = ACCEPTED
    elif mock.declined_by == user.id:
        partstat = DECLINED_PARTSTAT
    else:
        partstat = NEEDS_ACTION
    return Person(user.display, calendar_address(workspace, user.external_id), partstat)


def calendar(
    uow: UnitOfWork, workspace: Workspace, mock: Mock, now: datetime, cancelled: bool = False
) -> Attachment:
    """The mock's .ics invitation (or cancellation): organised by the bot, with the
    candidate and the interviewer as attendees; TENTATIVE until everyone has accepted."""
    candidate, interviewer = people(uow, workspace, mock)
    attendees = tuple(
        _attendee(workspace, mock, person) for person in (candidate, interviewer) if person
    )
    with_whom = f" with {interviewer.display}" if interviewer is not None else ""
    event = CalendarEvent(
        uid=f"mock-{mock.id}-{workspace.platform}-{workspace.external_id}@studybot",
        summary=f"Mock interview #{mock.id} ({mock.format}){with_whom}",
        description=(
            f"studybot mock interview for {candidate.display}: {describe(mock)}. "
            f"The bot opens it {where(uow, workspace, mock)} at the start time."
        ),
        starts_at=mock.starts_at,
        ends_at=mock.planned_end,
        stamp=now,
        sequence=mock.sequence,
        cancelled=cancelled,
        location=f"studybot ({workspace.platform})",
        tentative=mock.status == PROPOSED or any(a.partstat != ACCEPTED for a in attendees),
        organizer=Person("studybot", calendar_address(workspace, "studybot")),
        attendees=attendees,
    )
    return ics_attachment(event, f"mock-{mock.id}.ics")


def accept_buttons(mock: Mock) -> tuple[Button, ...]:
    return (
        Button("Accept", f"mock:{mock.id}:accept", ButtonStyle.PRIMARY),
        Button("Decline", f"mock:{mock.id}:decline", ButtonStyle.DANGER),
    )


def own_mock(ctx: Context, text: str, *, lock: bool = False) -> Mock:
    """The mock with id ``text`` that the acting user takes part in."""
    mock_id = parse_id(text)
    mock = ctx.uow[MOCKS].get(ctx.workspace, mock_id, lock=lock)
    if mock is None or ctx.user.id not in mock.participants():
        raise NotFound(f"You have no mock #{mock_id}. /mock list shows yours.")
    return mock


def post(
    uow: UnitOfWork, workspace: Workspace, mock: Mock, card: Card, key: str, now: datetime
) -> None:
    """Post in the mock's thread (its channel post's thread) or the candidate's DM."""
    if mock.in_dm or mock.channel_id is None:
        candidate = user_by_id(uow, workspace, mock.candidate_id)
        if candidate is not None:
            dm(uow, workspace, candidate, card, key, now)
        return
    channel = uow[CHANNELS].get(workspace, mock.channel_id)
    if channel is None:
        return
    message = Outgoing(
        Delivery.CHANNEL,
        channel.external_id,
        card,
        thread=uow[MOCKS].thread_ref(mock),
        key=key,
        tags={"mock": str(mock.id)},
    )
    queue(uow, workspace, message, now)


def invite(ctx: Context, mock: Mock, peer: User, headline: str) -> None:
    """DM ``peer`` an invitation to ``mock`` with Accept / Decline buttons."""
    blocks = (
        headline,
        f"{show(mock.starts_at, zone_of(peer, ctx.workspace))} · {describe(mock)}.",
        "\n".join(start_times(ctx.uow, ctx.workspace, mock, mock.starts_at)),
        f"Or type /mock accept {mock.id} / /mock decline {mock.id}.",
    )
    dm(
        ctx.uow,
        ctx.workspace,
        peer,
        Card(title=f"Mock interview #{mock.id}?", blocks=blocks, buttons=accept_buttons(mock)),
        f"mock:{mock.id}:s{mock.sequence}:invite:{peer.id}",
        ctx.now,
    )

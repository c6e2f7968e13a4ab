"""Scheduling a mock and the answers to it: schedule, list, cancel, reschedule, accept,
decline. Each participant's reminders follow the mock's time.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.core.away import describe_day, is_away
from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.messages import (
    Card,
    Outgoing,
)
from bot.core.mock.common import (
    STATUS_WORDS,
    accept_buttons,
    calendar,
    describe,
    dm,
    invite,
    own_mock,
    people,
    post,
    private,
    start_times,
    text_reply,
    user_by_id,
    where,
    zone_of,
)
from bot.core.mock.model import (
    ACTIVE,
    CANCELLED,
    DEBRIEF,
    DECLINED,
    FORMATS,
    MISSED,
    MOCKS,
    PROPOSED,
    RUNNING,
    SCHEDULED,
    STOPPED,
    UPCOMING,
    Mock,
    MockChanges,
    NewMock,
    RoundResult,
)
from bot.core.mock.parsing import (
    parse_schedule,
    resolve_peer,
    split_anyway,
)
from bot.core.mock.questions import check_bank, focus_note
from bot.core.mock.reminders import (
    plan_all_reminders,
    plan_reminders,
)
from bot.core.mock.times import (
    at_night,
    local_date,
    parse_when,
    show,
)
from bot.core.model import User

MAX_UPCOMING = 10


def _check_free(
    ctx: Context, users: tuple[int, ...], start: datetime, end: datetime, exclude: int | None
) -> None:
    clash = ctx.uow[MOCKS].overlapping(ctx.workspace, users, start, end, exclude)
    if clash:
        other = clash[0]
        who = "You have" if ctx.user.id in other.participants() else "Your peer has"
        raise UserError(
            f"{who} mock #{other.id} at {show(other.starts_at, zone_of(ctx.user, ctx.workspace))}"
            " then. Pick another time."
        )


def _check_daytime(ctx: Context, peer: User, starts: datetime, line: str) -> None:
    """Refuse (for now) an invitation that would land at night for ``peer``: the user
    sees it before it is sent, and sends it all the same by ending the line with
    ``anyway``."""
    zone_name = zone_of(peer, ctx.workspace)
    if not at_night(starts, zone_name):
        return
    raise UserError(
        f"That is {show(starts, zone_name)} for {peer.display} ({zone_name}), at night "
        f"for them. Pick another time, or send it as it is: {line} anyway"
    )


def _check_away(ctx: Context, people: tuple[User | None, ...], starts: datetime, line: str) -> None:
    """Refuse (for now) a mock on a day one of ``people`` is away (``/away``, their own local
    date), as ``/mock pair`` never proposes one: it would run with nobody there. ``anyway``
    at the end of the line books it all the same."""
    for person in people:
        if person is None:
            continue
        day = local_date(starts, zone_of(person, ctx.workspace))
        if not is_away(ctx.uow, person, day):
            continue
        who = "You are" if person.id == ctx.user.id else f"{person.display} is"
        raise UserError(
            f"{who} away on {describe_day(day)} (/away list), so nobody may be there to "
            f"{'answer' if person.id == ctx.user.id else 'interview'}. Pick another day, or "
            f"book it all the same: {line} anyway"
        )


def _confirmation(ctx: Context, mock: Mock, title: str, lines: list[str]) -> Outgoing:
    blocks = [
        *lines,
        f"{describe(mock)} · opens {where(ctx.uow, ctx.workspace, mock)}.",
        "\n".join(start_times(ctx.uow, ctx.workspace, mock, mock.starts_at)),
    ]
    return private(
        ctx,
        Card(
            title=title,
            blocks=tuple(blocks),
            footer=f"/mock cancel {mock.id} · /mock reschedule {mock.id} WHEN · /mock list",
        ),
        (calendar(ctx.uow, ctx.workspace, mock, ctx.now),),
    )


def schedule(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock schedule WHEN [with @PEER] [FORMAT] [box=Nm] [focus=weak]``."""
    request = parse_schedule(args)
    if not request.when:
        raise UserError("When? For example /mock schedule tomorrow 3pm (or Fri 15:00).")
    starts = parse_when(request.when, zone_of(ctx.user, ctx.workspace), ctx.now)
    peer = resolve_peer(ctx, request.peer) if request.peer else None
    if not request.anyway:
        line = f"/mock schedule {args.strip()}"
        _check_away(ctx, (ctx.user, peer), starts, line)
        if peer is not None:
            _check_daytime(ctx, peer, starts, line)
    check_bank(ctx.bank, request.format)
    users = (ctx.user.id,) if peer is None else (ctx.user.id, peer.id)
    duration = timedelta(minutes=request.box * len(FORMATS[request.format]))
    _check_free(ctx, users, starts, starts + duration, None)
    upcoming = ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, ACTIVE)
    if len(upcoming) >= MAX_UPCOMING:
        raise UserError(
            f"You have {len(upcoming)} mocks coming up already; cancel one before adding more."
        )
    mock = ctx.uow[MOCKS].add(
        ctx.workspace,
        NewMock(
            candidate=ctx.user,
            interviewer=peer,
            channel=ctx.channel,
            in_dm=ctx.event.is_dm,
            format=request.format,
            status=SCHEDULED,
            starts_at=starts,
            round_minutes=request.box,
            candidate_accepted=True,
            interviewer_accepted=False,
            focus=request.focus,
        ),
        ctx.now,
    )
    plan_reminders(ctx.uow, mock, ctx.user, ctx.now)
    lines = [f"Mock interview #{mock.id} is scheduled."]
    if request.focus is not None:
        lines.append(focus_note(ctx.uow, ctx.bank, ctx.workspace, ctx.user, request.format))
    if peer is not None:
        invite(
            ctx,
            mock,
            peer,
            f"{ctx.user.display} asks you to interview them in a mock interview.",
        )
        lines.append(f"I asked {peer.display} to interview you; until they accept, it runs solo.")
    return [_confirmation(ctx, mock, f"Mock #{mock.id} scheduled", lines)]


def list_mocks(ctx: Context, args: str) -> list[Outgoing]:
    if args.strip():
        raise UserError("/mock list takes nothing more. /mock history shows past mocks.")
    mocks = ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, ACTIVE)
    if not mocks:
        return text_reply(ctx, "No mocks coming up. Schedule one: /mock schedule tomorrow 3pm.")
    zone_name = zone_of(ctx.user, ctx.workspace)
    lines = []
    for mock in mocks:
        candidate, interviewer = people(ctx.uow, ctx.workspace, mock)
        if ctx.user.id == candidate.id:
            role = f"with {interviewer.display}" if interviewer is not None else "solo"
            if interviewer is not None and not mock.has_interviewer:
                role += " (not accepted yet)"
        else:
            role = f"you interview {candidate.display}"
        lines.append(
            f"#{mock.id} · {show(mock.starts_at, zone_name)} · {mock.format} · {role} · "
            f"{STATUS_WORDS[mock.status]}"
        )
    return [
        private(
            ctx,
            Card(
                title="Your mock interviews",
                blocks=("\n".join(lines),),
                footer="/mock cancel ID · /mock reschedule ID WHEN · /mock history",
            ),
        )
    ]


def cancel(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock cancel ID``: stops it, its reminders (also any already queued) and its rounds."""
    mock = own_mock(ctx, args, lock=True)
    if mock.status not in ACTIVE:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: nothing to cancel.")
    was_running = mock.status in (RUNNING, DEBRIEF)
    changed = ctx.uow[MOCKS].change(
        mock,
        MockChanges(
            status=CANCELLED,
            clear_next=True,
            ended_at=ctx.now if was_running else None,
            bump_sequence=True,
        ),
        ctx.now,
        expect_status=mock.status,
    )
    if changed is None:
        raise UserError(f"Mock #{mock.id} just changed; look again with /mock list.")
    ctx.uow[MOCKS].cancel_reminders(mock)
    if was_running:
        for r in ctx.uow[MOCKS].rounds(mock):
            if r.open and r.started_at is not None:
                ctx.uow[MOCKS].close_round(mock, r.position, RoundResult(STOPPED, ctx.now))
        post(
            ctx.uow,
            ctx.workspace,
            changed,
            Card(
                title=f"Mock #{mock.id} cancelled",
                blocks=(f"{ctx.user.display} cancelled this mock after round {mock.position}.",),
            ),
            f"mock:{mock.id}:cancelled",
            ctx.now,
        )
    candidate, interviewer = people(ctx.uow, ctx.workspace, mock)
    for other in (candidate, interviewer):
        if other is None or other.id == ctx.user.id:
            continue
        dm(
            ctx.uow,
            ctx.workspace,
            other,
            Card(
                title=f"Mock #{mock.id} cancelled",
                blocks=(
                    f"{ctx.user.display} cancelled mock #{mock.id} "
                    f"({show(mock.starts_at, zone_of(other, ctx.workspace))}).",
                ),
            ),
            f"mock:{mock.id}:s{mock.sequence}:cancelled:{other.id}",
            ctx.now,
            (calendar(ctx.uow, ctx.workspace, changed, ctx.now, cancelled=True),),
        )
    return [
        private(
            ctx,
            Card(blocks=(f"Mock #{mock.id} is cancelled; no reminders will be sent.",)),
            (calendar(ctx.uow, ctx.workspace, changed, ctx.now, cancelled=True),),
        )
    ]


def reschedule(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock reschedule ID WHEN``: the reminders move with it; a peer accepts again."""
    head, _, when = args.strip().partition(" ")
    when, anyway = split_anyway(when)
    if not when.strip():
        raise UserError("Usage: /mock reschedule ID WHEN, e.g. /mock reschedule 3 Fri 15:00.")
    mock = own_mock(ctx, head, lock=True)
    if mock.status not in (*UPCOMING, MISSED):
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: it can't be moved.")
    starts = parse_when(when, zone_of(ctx.user, ctx.workspace), ctx.now)
    if starts == mock.starts_at and mock.status in UPCOMING:
        # nothing moves, so nobody is asked to accept again
        raise UserError(
            f"Mock #{mock.id} is already at {show(starts, zone_of(ctx.user, ctx.workspace))}: "
            "nothing changes."
        )
    _check_free(ctx, mock.participants(), starts, starts + mock.duration, mock.id)
    is_candidate = ctx.user.id == mock.candidate_id
    other_id = mock.interviewer_id if is_candidate else mock.candidate_id
    other_user = user_by_id(ctx.uow, ctx.workspace, other_id)
    if not anyway:
        line = f"/mock reschedule {args.strip()}"
        _check_away(ctx, (ctx.user, other_user), starts, line)
        if other_user is not None:
            _check_daytime(ctx, other_user, starts, line)
    if mock.interviewer_id is None:
        status = SCHEDULED
    elif is_candidate:
        status = PROPOSED if mock.status == PROPOSED else SCHEDULED
    else:
        status = PROPOSED  # the candidate accepts the interviewer's new time
    changed = ctx.uow[MOCKS].change(
        mock,
        MockChanges(
            status=status,
            starts_at=starts,
            next_at=starts,
            candidate_accepted=is_candidate,
            interviewer_accepted=not is_candidate,
            bump_sequence=True,
        ),
        ctx.now,
        expect_status=mock.status,
    )
    if changed is None:
        raise UserError(f"Mock #{mock.id} just changed; look again with /mock list.")
    plan_all_reminders(ctx.uow, ctx.workspace, changed, ctx.now)
    candidate, interviewer = people(ctx.uow, ctx.workspace, changed)
    other = interviewer if is_candidate else candidate
    lines = [f"Mock #{mock.id} moved to {show(starts, zone_of(ctx.user, ctx.workspace))}."]
    if other is not None:
        invite(
            ctx,
            changed,
            other,
            f"{ctx.user.display} moved mock #{mock.id} "
            f"(was {show(mock.starts_at, zone_of(other, ctx.workspace))}). Does the new time "
            "suit you?",
        )
        lines.append(f"I asked {other.display} to accept the new time.")
    return [_confirmation(ctx, changed, f"Mock #{mock.id} rescheduled", lines)]


def accept(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock accept ID [anyway]`` (or the Accept button): a mock on a day the acting user
    or the other person is away is flagged first, as ``/mock schedule`` flags one."""
    head, anyway = split_anyway(args)
    mock = own_mock(ctx, head, lock=True)
    if mock.status not in UPCOMING:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: nothing to accept.")
    if mock.accepted(ctx.user.id):
        raise UserError(f"You already accepted mock #{mock.id}.")
    is_candidate = ctx.user.id == mock.candidate_id
    other_id = mock.interviewer_id if is_candidate else mock.candidate_id
    if not anyway:
        other_user = user_by_id(ctx.uow, ctx.workspace, other_id)
        _check_away(ctx, (ctx.user, other_user), mock.starts_at, f"/mock accept {mock.id}")
    both = other_id is not None and mock.accepted(other_id)
    status = SCHEDULED if (mock.status == SCHEDULED or both) else PROPOSED
    changed = ctx.uow[MOCKS].change(
        mock,
        MockChanges(
            status=status,
            candidate_accepted=True if is_candidate else None,
            interviewer_accepted=None if is_candidate else True,
            bump_sequence=True,  # the calendar's copy changes: a new attendee status
        ),
        ctx.now,
        expect_status=mock.status,
    )
    if changed is None:
        raise UserError(f"Mock #{mock.id} just changed; look again with /mock list.")
    plan_all_reminders(ctx.uow, ctx.workspace, changed, ctx.now)
    candidate, interviewer = people(ctx.uow, ctx.workspace, changed)
    other = interviewer if is_candidate else candidate
    if other is not None:
        ready = changed.status == SCHEDULED
        dm(
            ctx.uow,
            ctx.workspace,
            other,
            Card(
                title=f"Mock #{mock.id} accepted",
                blocks=(
                    f"{ctx.user.display} accepted mock #{mock.id} "
                    f"({show(changed.starts_at, zone_of(other, ctx.workspace))}).",
                    "It's on." if ready else f"Accept it too: /mock accept {mock.id}.",
                ),
                buttons=() if ready else accept_buttons(changed),
            ),
            f"mock:{mock.id}:s{changed.sequence}:accepted:{ctx.user.id}",
            ctx.now,
            (calendar(ctx.uow, ctx.workspace, changed, ctx.now),) if ready else (),
        )
    if changed.status == SCHEDULED:
        line = f"You're in: mock #{mock.id}."
    else:
        line = f"Accepted. Mock #{mock.id} is on once {other.display if other else 'they'} accepts."
    return [_confirmation(ctx, changed, f"Mock #{mock.id} accepted", [line])]


def decline(ctx: Context, args: str) -> list[Outgoing]:
    mock = own_mock(ctx, args, lock=True)
    is_candidate = ctx.user.id == mock.candidate_id
    if mock.status == SCHEDULED and is_candidate:
        raise UserError(f"It's your mock: cancel it with /mock cancel {mock.id}.")
    if mock.status not in UPCOMING:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: nothing to decline.")
    candidate, interviewer = people(ctx.uow, ctx.workspace, mock)
    other = interviewer if is_candidate else candidate
    if mock.status == SCHEDULED:
        # the candidate keeps the slot; the mock runs solo
        changes = MockChanges(drop_interviewer=True, declined_by=ctx.user.id, bump_sequence=True)
        told = (
            f"{ctx.user.display} can't interview you in mock #{mock.id}; it runs solo at "
            f"the same time, or cancel it with /mock cancel {mock.id}."
        )
    else:
        changes = MockChanges(
            status=DECLINED, clear_next=True, declined_by=ctx.user.id, bump_sequence=True
        )
        told = f"{ctx.user.display} declined mock #{mock.id}. Try /mock pair again."
    changed = ctx.uow[MOCKS].change(mock, changes, ctx.now, expect_status=mock.status)
    if changed is None:
        raise UserError(f"Mock #{mock.id} just changed; look again with /mock list.")
    ctx.uow[MOCKS].cancel_reminders(mock, None if changed.status == DECLINED else ctx.user.id)
    gone = changed.status == DECLINED
    if other is not None:
        # the other person's calendar: the mock goes (declined), or stays without the
        # interviewer (solo)
        dm(
            ctx.uow,
            ctx.workspace,
            other,
            Card(title=f"Mock #{mock.id} declined", blocks=(told,)),
            f"mock:{mock.id}:s{mock.sequence}:declined:{ctx.user.id}",
            ctx.now,
            (calendar(ctx.uow, ctx.workspace, changed, ctx.now, cancelled=gone),),
        )
    return [
        private(
            ctx,
            Card(blocks=(f"Declined mock #{mock.id}.",)),
            (calendar(ctx.uow, ctx.workspace, changed, ctx.now, cancelled=True),),
        )
    ]

"""Pairing: the best partner and slot from overlapping weekly availability."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.core.away import AWAY
from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.messages import (
    Card,
    Outgoing,
)
from bot.core.mock.common import (
    accept_buttons,
    describe,
    invite,
    private,
    start_times,
    user_by_id,
    where,
    zone_of,
)
from bot.core.mock.model import (
    FORMATS,
    MOCKS,
    PROPOSED,
    NewMock,
    Window,
)
from bot.core.mock.parsing import (
    parse_schedule,
)
from bot.core.mock.questions import check_bank
from bot.core.mock.times import (
    ceil_quarter,
    expand,
    local_date,
    overlaps,
    utc_offset_hours,
    without,
)
from bot.core.model import User, Workspace
from bot.core.ports import UnitOfWork

PAIR_HORIZON = timedelta(days=14)
PAIR_LEAD = timedelta(hours=1)  # a proposed mock starts at least this far ahead
DECLINE_MEMORY = timedelta(days=14)


@dataclass(frozen=True, slots=True)
class Match:
    user: User
    starts_at: datetime
    repeats: int
    zone_gap: float


def intervals(
    windows: list[Window], since: datetime, until: datetime
) -> list[tuple[datetime, datetime]]:
    return sorted(
        span
        for w in windows
        for span in expand(w.weekdays, w.start, w.end, w.timezone, since, until)
    )


def free_spans(
    uow: UnitOfWork,
    workspace: Workspace,
    user: User,
    windows: list[Window],
    since: datetime,
    until: datetime,
) -> list[tuple[datetime, datetime]]:
    """When ``user`` is free between ``since`` and ``until``: their weekly windows, less the
    local days they are ``/away`` (nobody is paired for a slot on a day off)."""
    spans = intervals(windows, since, until)
    if not spans:
        return spans
    name = zone_of(user, workspace)
    away = uow[AWAY].ranges(user, local_date(since, name), local_date(until, name))
    return without(spans, away, name)


def find_match(ctx: Context, fmt: str, box: int) -> Match | None:
    """The best partner and slot: overlapping availability, new partners before repeat
    ones, the earliest slot, then the closest time zone."""
    mine = ctx.uow[MOCKS].windows(ctx.workspace, ctx.user)
    since = ceil_quarter(ctx.now + PAIR_LEAD)
    until = ctx.now + PAIR_HORIZON
    duration = timedelta(minutes=box * len(FORMATS[fmt]))
    my_spans = free_spans(ctx.uow, ctx.workspace, ctx.user, mine, since, until)
    counts = ctx.uow[MOCKS].pair_counts(ctx.workspace, ctx.user)
    declined = ctx.uow[MOCKS].declined(ctx.workspace, ctx.user, ctx.now - DECLINE_MEMORY)
    my_zone = zone_of(ctx.user, ctx.workspace)
    best: Match | None = None
    for user_id, windows in ctx.uow[MOCKS].all_windows(ctx.workspace).items():
        if user_id == ctx.user.id or user_id in declined:
            continue
        other = user_by_id(ctx.uow, ctx.workspace, user_id)
        if other is None:
            continue
        slot = first_free(
            ctx.uow,
            ctx.workspace,
            (ctx.user.id, user_id),
            overlaps(my_spans, free_spans(ctx.uow, ctx.workspace, other, windows, since, until)),
            duration,
        )
        if slot is None:
            continue
        gap = abs(
            utc_offset_hours(my_zone, slot) - utc_offset_hours(zone_of(other, ctx.workspace), slot)
        )
        found = Match(other, slot, counts.get(user_id, 0), gap)
        if best is None or (found.repeats, found.starts_at, found.zone_gap, other.id) < (
            best.repeats,
            best.starts_at,
            best.zone_gap,
            best.user.id,
        ):
            best = found
    return best


def first_free(
    uow: UnitOfWork,
    workspace: Workspace,
    users: tuple[int, ...],
    spans: list[tuple[datetime, datetime]],
    duration: timedelta,
) -> datetime | None:
    """The first quarter hour in ``spans`` from which ``duration`` is free for ``users``."""
    for a, b in spans:
        t = ceil_quarter(a)
        while t + duration <= b:
            if not uow[MOCKS].overlapping(workspace, users, t, t + duration):
                return t
            t += timedelta(minutes=15)
    return None


def pair(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock pair [FORMAT] [box=Nm]``: propose a mock with the best-matching person; both
    accept before it is on."""
    request = parse_schedule(args)
    if request.when or request.peer:
        raise UserError("Usage: /mock pair [loop|technical|product|behavioral].")
    if not ctx.uow[MOCKS].windows(ctx.workspace, ctx.user):
        raise UserError(
            "Tell me when you're free first: /mock available weekdays 18:00-20:00 "
            "(as many windows as you like), then /mock pair."
        )
    check_bank(ctx.bank, request.format)
    pending = [
        m
        for m in ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, (PROPOSED,))
        if m.candidate_id == ctx.user.id
    ]
    if pending:
        raise UserError(
            f"Your pairing #{pending[0].id} is waiting for an answer. Accept or decline it first."
        )
    match = find_match(ctx, request.format, request.box)
    if match is None:
        raise UserError(
            "Nobody's availability overlaps yours in the next two weeks. Add more windows "
            "(/mock available), or schedule a solo mock: /mock schedule tomorrow 3pm."
        )
    mock = ctx.uow[MOCKS].add(
        ctx.workspace,
        NewMock(
            candidate=ctx.user,
            interviewer=match.user,
            channel=ctx.channel,
            in_dm=ctx.event.is_dm,
            format=request.format,
            status=PROPOSED,
            starts_at=match.starts_at,
            round_minutes=request.box,
            candidate_accepted=False,
            interviewer_accepted=False,
        ),
        ctx.now,
    )
    invite(
        ctx,
        mock,
        match.user,
        f"You and {ctx.user.display} are both free then: will you interview them in a mock?",
    )
    repeat = (
        f" (you've paired {match.repeats} time{'s' * (match.repeats != 1)} before: nobody new "
        "is free)"
        if match.repeats
        else ""
    )
    card = Card(
        title=f"Mock #{mock.id}: paired with {match.user.display}",
        blocks=(
            f"{match.user.display} is free when you are{repeat}. They interview you.",
            f"{describe(mock)} · opens {where(ctx.uow, ctx.workspace, mock)}.",
            "\n".join(start_times(ctx.uow, ctx.workspace, mock, mock.starts_at)),
            f"Both of you accept for it to be on: /mock accept {mock.id} or /mock decline "
            f"{mock.id}.",
        ),
        buttons=accept_buttons(mock),
    )
    return [private(ctx, card)]

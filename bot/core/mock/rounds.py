"""Pairing rounds: beside on-demand ``/mock pair``, a weekly round per channel, as coffee-
pairing apps run them.

An admin turns a channel's round on (``/studybot pairing on [DAY] [HH:MM]``); people opt
in and out (``/mock pairing join|leave``). Each round pairs those who opted in and whose
weekly availability (``/mock available``) overlaps in the coming week, new pairs before
repeat ones (:func:`plan_pairs`), everyone at most once. Each pair gets a proposed mock
(both accept, as with ``/mock pair``) and both a DM with the slot in both zones and the
.ics file; whoever is left out (an odd count, or nobody free at the same time) is told
why, and goes first next round. A day after the slot each is asked whether the mock
happened (``/mock pairing happened ID yes|no``, or the buttons); the answer is kept. A mock
that was declined, cancelled or never accepted is recorded as not happened without asking.

The plan is rows: a channel's next round instant, and one row per person and round. A
round is claimed by moving that instant forward, a check-in by marking it sent, so two
workers or a restart run each once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Protocol

from bot.core.context import Context, Services
from bot.core.errors import UserError
from bot.core.messages import OUTBOX, Button, ButtonStyle, Card, Delivery, Outgoing
from bot.core.mock.common import (
    accept_buttons,
    calendar,
    describe,
    dm,
    start_times,
    text_reply,
    user_by_id,
    zone_of,
)
from bot.core.mock.model import CANCELLED, DECLINED, EXPIRED, FORMATS, MOCKS, PROPOSED, NewMock
from bot.core.mock.pairing import PAIR_LEAD, first_free, free_spans, intervals
from bot.core.mock.parsing import ScheduleRequest, parse_schedule
from bot.core.mock.times import DAY_NAMES, ceil_quarter, clock_minutes, overlaps, show
from bot.core.model import Channel, User, Workspace
from bot.core.numbers import whole_number
from bot.core.ports import Port, UnitOfWork
from bot.core.timezones import zone

ROUND_EVERY = timedelta(days=7)
CHECK_IN_AFTER = timedelta(days=1)  # after the proposed slot
DEFAULT_DAY, DEFAULT_MINUTE = 0, 9 * 60  # Monday 09:00 in the workspace's zone
ODD, NO_OVERLAP, ALONE = "odd", "no-overlap", "alone"
NEVER_HAPPENED = (DECLINED, CANCELLED, EXPIRED)  # no need to ask: the bot knows
PAIRING_USAGE = (
    "Usage: /mock pairing join|leave|status · /mock pairing happened ID yes|no "
    "(the weekly pairing round of this channel)"
)
ADMIN_USAGE = "Usage: /studybot pairing (show) · /studybot pairing on [DAY] [HH:MM] · off"


@dataclass(frozen=True, slots=True)
class RoundPlan:
    channel_id: int
    weekday: int
    minute: int
    timezone: str
    next_at: datetime | None

    @property
    def on(self) -> bool:
        return self.next_at is not None

    def describe(self) -> str:
        day = DAY_NAMES[self.weekday].capitalize()
        return f"every {day} at {self.minute // 60:02d}:{self.minute % 60:02d} ({self.timezone})"


@dataclass(frozen=True, slots=True)
class PairingMatch:
    id: int
    workspace_id: int
    channel_id: int
    round_at: datetime
    user_id: int
    partner_id: int | None
    mock_id: int | None
    slot_at: datetime | None
    reason: str
    happened: bool | None


class PairingRepository(Protocol):
    def plan(self, channel: Channel) -> RoundPlan | None: ...

    def save_plan(self, workspace: Workspace, plan: RoundPlan) -> None: ...

    def join(self, channel: Channel, user: User, now: datetime) -> bool:
        """Opt ``user`` in; False when already in."""
        ...

    def leave(self, channel: Channel, user: User) -> bool:
        """Opt ``user`` out; False when not in."""
        ...

    def members(self, workspace: Workspace, channel: Channel) -> list[User]: ...

    def next_due(self) -> datetime | None:
        """The earliest round or check-in due."""
        ...

    def rounds_due(self, now: datetime) -> list[tuple[Workspace, Channel, RoundPlan]]: ...

    def claim_round(self, plan: RoundPlan, next_at: datetime) -> bool:
        """Move the plan on from ``plan.next_at``; False when another worker did."""
        ...

    def pair_history(self, channel: Channel) -> dict[frozenset[int], int]:
        """How often each two people were paired in the channel's rounds."""
        ...

    def sat_out(self, channel: Channel) -> dict[int, int]:
        """How many of the channel's rounds each person was left out of."""
        ...

    def add_match(
        self,
        workspace: Workspace,
        channel: Channel,
        round_at: datetime,
        user: User,
        partner: User | None,
        mock_id: int | None,
        slot_at: datetime | None,
        reason: str,
        checkin_at: datetime | None,
    ) -> int | None:
        """Record ``user``'s place in the round (with the check-in's instant, for a pair);
        None when the user already has one in this round."""
        ...

    def checkins_due(self, now: datetime, limit: int) -> list[tuple[Workspace, PairingMatch]]:
        """Check-ins that fell due, claimed (marked sent) for this worker."""
        ...

    def match(self, workspace: Workspace, match_id: int) -> PairingMatch | None: ...

    def answer(self, match: PairingMatch, happened: bool, now: datetime) -> None: ...


PAIRING = Port[PairingRepository]("pairing")


# -- who is paired with whom -----------------------------------------------------------------


def plan_pairs(
    people: Iterable[int],
    slots: dict[frozenset[int], datetime],
    history: dict[frozenset[int], int],
    sat_out: dict[int, int] | None = None,
) -> tuple[list[tuple[int, int]], list[int]]:
    """Pairs for one round and who is left out.

    ``slots`` holds the two-person sets that share a free slot this round. New pairs come
    first: a maximal matching on the pairs never made before (the person with the fewest
    options picks first, those left out of more rounds before everyone else), then repeat
    pairs, least repeated first, among whoever is still alone. So nobody is paired twice
    in a round, and a repeat pair is only made between two people for whom no new partner
    was left.
    """
    everyone = sorted(set(people))
    waited = sat_out or {}
    paired: dict[int, int] = {}

    def options(person: int, fresh: bool) -> list[int]:
        out = []
        for other in everyone:
            pair = frozenset((person, other))
            if other == person or other in paired or pair not in slots:
                continue
            if (history.get(pair, 0) == 0) == fresh:
                out.append(other)
        return out

    pairs: list[tuple[int, int]] = []
    for fresh in (True, False):
        while True:
            alone = [p for p in everyone if p not in paired and options(p, fresh)]
            if not alone:
                break
            person = min(
                alone,
                key=lambda p: (
                    min(history.get(frozenset((p, o)), 0) for o in options(p, fresh)),
                    -waited.get(p, 0),
                    len(options(p, fresh)),
                    p,
                ),
            )
            partner = min(
                options(person, fresh),
                key=lambda o: (
                    history.get(frozenset((person, o)), 0),
                    -waited.get(o, 0),
                    len(options(o, fresh)),
                    slots[frozenset((person, o))],
                    o,
                ),
            )
            paired[person], paired[partner] = partner, person
            pairs.append((person, partner))
    return pairs, [p for p in everyone if p not in paired]


def _next_round(plan: RoundPlan, after: datetime) -> datetime:
    tz = zone(plan.timezone)
    local = after.astimezone(tz)
    day = local.date() + timedelta(days=(plan.weekday - local.weekday()) % 7)
    for _ in range(3):
        at = datetime.combine(day, time(plan.minute // 60, plan.minute % 60), tzinfo=tz)
        if at.astimezone(UTC) > after:
            return at.astimezone(UTC)
        day += timedelta(days=7)
    raise RuntimeError("no next round")  # pragma: no cover


# -- the round -------------------------------------------------------------------------------


def run_round(
    uow: UnitOfWork, workspace: Workspace, channel: Channel, round_at: datetime, now: datetime
) -> int:
    """Pair the channel's members for the round at ``round_at``; how many were paired."""
    request = parse_schedule("")
    duration = timedelta(minutes=request.box * len(FORMATS[request.format]))
    since = ceil_quarter(max(now, round_at) + PAIR_LEAD)
    until = round_at + ROUND_EVERY
    members = {u.id: u for u in uow[PAIRING].members(workspace, channel)}
    windows = uow[MOCKS].all_windows(workspace)
    spans = {
        i: free_spans(uow, workspace, user, windows.get(i, []), since, until)
        for i, user in members.items()
    }
    # Whoever is /away for every hour they would have been free sits this round out
    # quietly: no pair, no "nobody is free when you are" DM on their days off.
    away = [i for i in members if not spans[i] and intervals(windows.get(i, []), since, until)]
    for i in away:
        del members[i], spans[i]
    slots: dict[frozenset[int], datetime] = {}
    for a in members:
        for b in members:
            if a < b:
                common = overlaps(spans[a], spans[b])
                slot = first_free(uow, workspace, (a, b), common, duration) if common else None
                if slot is not None:
                    slots[frozenset((a, b))] = slot
    history = uow[PAIRING].pair_history(channel)
    pairs, alone = plan_pairs(members, slots, history, uow[PAIRING].sat_out(channel))
    for a, b in pairs:  # the pairs share nobody, so their slots cannot clash
        slot = slots[frozenset((a, b))]
        _propose(uow, workspace, channel, round_at, members[a], members[b], slot, now, request)
    someone_free = {p for pair in slots for p in pair}
    for person in alone:
        reason = ALONE if len(members) == 1 else ODD if person in someone_free else NO_OVERLAP
        match_id = uow[PAIRING].add_match(
            workspace, channel, round_at, members[person], None, None, None, reason, None
        )
        if match_id is None:
            continue
        if reason == ODD:
            text = (
                f"This week's pairing round in #{channel.name} had an odd number of people "
                "free at the same time, and you are the one left over: you go first next "
                "round. /mock pair looks for someone now."
            )
        elif reason == ALONE:
            text = (
                f"You're the only one in #{channel.name}'s pairing round this week: nobody to "
                "pair you with. Ask a teammate to /mock pairing join."
            )
        else:
            text = (
                f"Nobody in this week's pairing round in #{channel.name} is free when you "
                "are. Add windows with /mock available (e.g. weekdays 18:00-20:00) to be "
                "paired next round."
            )
        dm(
            uow,
            workspace,
            members[person],
            Card(title=f"Pairing round · #{channel.name}", blocks=(text,)),
            f"pairing:{match_id}:left-out",
            now,
        )
    made = len(members) - len(alone)
    odd = sum(1 for p in alone if p in someone_free)
    summary = [f"{made // 2} pair{'s' * (made // 2 != 1)} this week, each DMed a proposed slot."]
    if not members:
        summary = []
    if odd:
        summary.append("An odd number of people were free: one sits out and goes first next week.")
    if len(members) == 1 and not away:
        summary = ["Only one person opted in, so nobody was paired."]
    elif len(alone) > odd:
        summary.append(
            f"{len(alone) - odd} shared no time with anyone: /mock available adds windows."
        )
    if away:
        who = (
            "Everyone who opted in is"
            if not members
            else f"{len(away)} {'person is' if len(away) == 1 else 'people are'}"
        )
        summary.append(f"{who} away this week: back in the next round.")
    summary.append("Opt in or out: /mock pairing join · /mock pairing leave.")
    message = Outgoing(
        Delivery.CHANNEL,
        channel.external_id,
        Card(title="Pairing round", blocks=(" ".join(summary),)),
        key=f"pairing-round:{channel.id}:{round_at.isoformat()}",
    )
    if members or away:
        uow[OUTBOX].add(workspace, workspace.platform, message, message.key or "", now)
    return made


def _propose(
    uow: UnitOfWork,
    workspace: Workspace,
    channel: Channel,
    round_at: datetime,
    candidate: User,
    interviewer: User,
    slot: datetime,
    now: datetime,
    request: ScheduleRequest,
) -> None:
    fmt, box = request.format, request.box
    mock = uow[MOCKS].add(
        workspace,
        NewMock(
            candidate=candidate,
            interviewer=interviewer,
            channel=channel,
            in_dm=False,
            format=fmt,
            status=PROPOSED,
            starts_at=slot,
            round_minutes=box,
            candidate_accepted=False,
            interviewer_accepted=False,
        ),
        now,
    )
    for person, partner, role in (
        (candidate, interviewer, f"{interviewer.display} interviews you"),
        (interviewer, candidate, f"you interview {candidate.display}"),
    ):
        match_id = uow[PAIRING].add_match(
            workspace, channel, round_at, person, partner, mock.id, slot, "", slot + CHECK_IN_AFTER
        )
        if match_id is None:
            continue
        dm(
            uow,
            workspace,
            person,
            Card(
                title=f"Pairing round · #{channel.name}: you and {partner.display}",
                blocks=(
                    f"This week you're paired with {partner.display}: you both opted in and "
                    f"are free then. Mock #{mock.id}, {role}.",
                    f"{show(slot, zone_of(person, workspace))} · {describe(mock)}.",
                    "\n".join(start_times(uow, workspace, mock, slot)),
                    f"Both accept for it to be on: /mock accept {mock.id} or /mock decline "
                    f"{mock.id}. A day after, I'll ask whether it happened.",
                ),
                buttons=accept_buttons(mock),
            ),
            f"pairing:{match_id}:proposal",
            now,
            (calendar(uow, workspace, mock, now),),
        )


def _checkin_buttons(match_id: int) -> tuple[Button, ...]:
    return (
        Button("It happened", f"pairing:{match_id}:yes", ButtonStyle.PRIMARY),
        Button("It didn't", f"pairing:{match_id}:no"),
    )


@dataclass
class PairingRoundJob:
    """Runs each channel's round when it falls due, and the check-ins after the slots."""

    name: str = "pairing-rounds"
    batch: int = 100

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[PAIRING].next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done = 0
        for workspace, channel, plan in uow[PAIRING].rounds_due(now):
            assert plan.next_at is not None
            if not uow[PAIRING].claim_round(plan, _next_round(plan, now)):
                continue
            if now - plan.next_at > services.grace + ROUND_EVERY / 2:
                continue  # the bot was away for most of the week: wait for the next round
            run_round(uow, workspace, channel, plan.next_at, now)
            done += 1
        checkins = uow[PAIRING].checkins_due(now, self.batch)
        for workspace, match in checkins:
            user = user_by_id(uow, workspace, match.user_id)
            partner = user_by_id(uow, workspace, match.partner_id)
            if user is None or partner is None or match.slot_at is None:
                continue
            mock = uow[MOCKS].get(workspace, match.mock_id) if match.mock_id else None
            if mock is not None and mock.status in NEVER_HAPPENED:
                uow[PAIRING].answer(match, False, now)  # declined, cancelled or never accepted
                continue
            dm(
                uow,
                workspace,
                user,
                Card(
                    title=f"Did your mock with {partner.display} happen?",
                    blocks=(
                        f"This week's pairing round proposed mock #{match.mock_id} with "
                        f"{partner.display} at {show(match.slot_at, zone_of(user, workspace))}.",
                        f"Did it happen? Press a button, or /mock pairing happened {match.id} "
                        "yes (or no).",
                    ),
                    buttons=_checkin_buttons(match.id),
                ),
                f"pairing:{match.id}:checkin",
                now,
            )
        return done + len(checkins)


# -- commands ----------------------------------------------------------------------------------


def _in_channel(ctx: Context) -> None:
    if ctx.event.is_dm:
        raise UserError("Pairing rounds belong to a channel: use this in the channel's chat.")


def _answer(ctx: Context, match_text: str, said: str) -> list[Outgoing]:
    match_id = whole_number(match_text)
    match = ctx.uow[PAIRING].match(ctx.workspace, match_id) if match_id is not None else None
    if match is None or match.user_id != ctx.user.id or match.partner_id is None:
        raise UserError(f"You have no pairing check-in #{match_text[:12]}.")
    word = said.lower()
    if word not in ("yes", "no", "y", "n"):
        raise UserError("Answer yes or no: /mock pairing happened ID yes.")
    happened = word.startswith("y")
    ctx.uow[PAIRING].answer(match, happened, ctx.now)
    partner = user_by_id(ctx.uow, ctx.workspace, match.partner_id)
    who = partner.display if partner else "your partner"
    if happened:
        return text_reply(ctx, f"Noted: your mock with {who} happened. /mock history has it.")
    return text_reply(
        ctx, f"Noted: it didn't happen with {who}. Next week's round pairs you again."
    )


def pairing_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock pairing join|leave|status`` and ``/mock pairing happened ID yes|no``."""
    words = args.split()
    verb = words[0].lower() if words else "status"
    if verb == "happened":
        if len(words) != 3:
            raise UserError("Usage: /mock pairing happened ID yes|no.")
        return _answer(ctx, words[1], words[2])
    if verb not in ("join", "leave", "status") or len(words) > 1:
        raise UserError(PAIRING_USAGE)
    _in_channel(ctx)
    plan = ctx.uow[PAIRING].plan(ctx.channel)
    members = ctx.uow[PAIRING].members(ctx.workspace, ctx.channel)
    mine = any(u.id == ctx.user.id for u in members)
    if verb == "status":
        if plan is None or not plan.on:
            return text_reply(
                ctx,
                f"#{ctx.channel.name} has no pairing round: an admin starts one with "
                "/studybot pairing on. /mock pair finds someone now.",
            )
        assert plan.next_at is not None
        return text_reply(
            ctx,
            f"Pairing round in #{ctx.channel.name}: {plan.describe()}; next "
            f"{show(plan.next_at, zone_of(ctx.user, ctx.workspace))}. {len(members)} opted in"
            f"{', you among them' if mine else ''}.",
        )
    if verb == "leave":
        if not ctx.uow[PAIRING].leave(ctx.channel, ctx.user):
            raise UserError(f"You're not in #{ctx.channel.name}'s pairing round.")
        return text_reply(ctx, f"You left #{ctx.channel.name}'s pairing round.")
    if plan is None or not plan.on:
        raise UserError(
            f"#{ctx.channel.name} has no pairing round yet: an admin starts one with "
            "/studybot pairing on."
        )
    if not ctx.uow[PAIRING].join(ctx.channel, ctx.user, ctx.now):
        raise UserError(f"You're already in #{ctx.channel.name}'s pairing round.")
    assert plan.next_at is not None
    lines = [
        f"You're in #{ctx.channel.name}'s pairing round ({plan.describe()}); next "
        f"{show(plan.next_at, zone_of(ctx.user, ctx.workspace))}."
    ]
    if not ctx.uow[MOCKS].windows(ctx.workspace, ctx.user):
        lines.append(
            "You have no availability yet: /mock available weekdays 18:00-20:00 (your zone)."
        )
    return text_reply(ctx, " ".join(lines))


def pairing_action(ctx: Context, parts: list[str], _text: str) -> list[Outgoing]:
    """The check-in buttons: ``pairing:<match id>:yes|no``."""
    if len(parts) != 3 or parts[2] not in ("yes", "no"):
        raise UserError("That button is no longer valid.")
    return _answer(ctx, parts[1], parts[2])


def pairing_setting(ctx: Context, words: list[str]) -> list[Outgoing]:
    """``/studybot pairing [on [DAY] [HH:MM] | off]`` for the current channel."""
    _in_channel(ctx)
    verb = words[0].lower() if words else "show"
    plan = ctx.uow[PAIRING].plan(ctx.channel)
    if verb == "show" and len(words) <= 1:
        if plan is None or not plan.on:
            return text_reply(ctx, f"No pairing round in #{ctx.channel.name}. {ADMIN_USAGE}")
        assert plan.next_at is not None
        return text_reply(
            ctx,
            f"Pairing round in #{ctx.channel.name}: {plan.describe()}, next "
            f"{show(plan.next_at, plan.timezone)}.",
        )
    if verb not in ("on", "off"):
        raise UserError(ADMIN_USAGE)
    if not ctx.is_admin:
        raise UserError("Only workspace admins can turn a channel's pairing round on or off.")
    if verb == "off":
        if len(words) > 1:
            raise UserError(ADMIN_USAGE)
        if plan is None or not plan.on:
            raise UserError(f"#{ctx.channel.name} has no pairing round to turn off.")
        ctx.uow[PAIRING].save_plan(
            ctx.workspace,
            RoundPlan(plan.channel_id, plan.weekday, plan.minute, plan.timezone, None),
        )
        return text_reply(
            ctx, f"Pairing round off in #{ctx.channel.name}; who opted in stays for next time."
        )
    weekday = plan.weekday if plan else DEFAULT_DAY
    minute = plan.minute if plan else DEFAULT_MINUTE
    for word in words[1:]:
        key = word.lower()[:3]
        if key in DAY_NAMES and word.isalpha():
            weekday = DAY_NAMES.index(key)
        elif word.isalpha():
            raise UserError(
                f"{word[:20]!r} is not a day of the week. Use monday to sunday, e.g. "
                "/studybot pairing on monday 09:00."
            )
        else:
            minute = clock_minutes(word)
            if minute >= 1440:
                raise UserError(f"{word!r} is not a time of day. Use 18:00 or 6pm.")
    draft = RoundPlan(ctx.channel.id, weekday, minute, ctx.workspace.timezone, None)
    saved = RoundPlan(
        ctx.channel.id, weekday, minute, ctx.workspace.timezone, _next_round(draft, ctx.now)
    )
    ctx.uow[PAIRING].save_plan(ctx.workspace, saved)
    assert saved.next_at is not None
    return text_reply(
        ctx,
        f"Pairing round on in #{ctx.channel.name}: {saved.describe()}, first "
        f"{show(saved.next_at, saved.timezone)}. People opt in with /mock pairing join.",
    )

"""Mock interviews: scheduling, reminders, peer pairing, a timed multi-round loop, scorecards.

``/mock`` sub-commands::

    /mock schedule WHEN [with @PEER] [loop|technical|product|behavioral] [box=8m]
    /mock list | cancel ID | reschedule ID WHEN
    /mock available [DAYS FROM-TO | clear]      weekly windows, e.g. weekdays 18:00-20:00
    /mock pair [FORMAT]                         propose a mock with someone free when you are
    /mock accept ID | decline ID
    /mock vote ID ROUND strong-no|no|yes|strong-yes [NOTE] · /mock note ID ROUND TEXT
    /mock history [ID] · /mock remind [24h 1h | off]

Everything that happens later is a row: reminders (``reminder``) and each mock's next
step (``mock_interview.next_at``: its start, the end of a round's time box, the end of
the debrief wait). :class:`MockReminderJob` and :class:`MockClockJob` claim them, so a
restart, the console's ``/advance`` and several workers all pick up where things are.

Running: at the start the bot opens a thread in the channel the mock was scheduled from
(or the candidate's DM, when it was scheduled in a DM) with the first round's question;
each answer (in the thread, ``/answer`` or the Answer form) is graded on the question's
rubric and the next round follows at once. A round whose time box passes unanswered is
closed and the loop moves on. With a peer, the interviewer gets each round's rubric and
model answer by DM, with vote buttons and a note form.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.core.answers import AnswerKind, AnswerTo, grade_answer, record_answer
from bot.core.bank import QuestionBank
from bot.core.content import Question
from bot.core.context import Context, Services
from bot.core.errors import NotFound, UserError
from bot.core.ics import CalendarEvent, ics_attachment
from bot.core.messages import (
    Attachment,
    Button,
    ButtonStyle,
    Card,
    Delivery,
    Field,
    Form,
    Outgoing,
)
from bot.core.mock_model import (
    ACTIVE,
    ANSWERED,
    CANCELLED,
    DEBRIEF,
    DECLINED,
    DONE,
    EXPIRED,
    FORMATS,
    LOOP,
    MISSED,
    PAST,
    PROPOSED,
    ROUND_TITLES,
    ROUND_TOPICS,
    RUNNING,
    SCHEDULED,
    STOPPED,
    TIMED_OUT,
    UPCOMING,
    VOTES,
    Mock,
    MockChanges,
    NewMock,
    NewRound,
    Round,
    RoundResult,
    Window,
)
from bot.core.mock_scorecard import mean_coverage, recommendation, scorecard_card, verdicts
from bot.core.mock_time import (
    ceil_quarter,
    describe_window,
    expand,
    in_words,
    overlaps,
    parse_offsets,
    parse_when,
    parse_window,
    show,
    show_in_zones,
    utc_offset_hours,
)
from bot.core.model import User, Workspace
from bot.core.ports import UnitOfWork

DEFAULT_BOX = 8  # minutes per round
MIN_BOX, MAX_BOX = 3, 30
DEFAULT_OFFSETS = (24 * 60, 60)  # reminders: 24 h and 1 h before
LATE_START_LIMIT = timedelta(minutes=30)  # a start missed by more is not run out of the blue
ANSWER_GRACE = timedelta(seconds=30)  # an answer sent as the box closes still counts
DEBRIEF_WAIT = timedelta(minutes=15)  # how long the scorecard waits for missing votes
PAIR_HORIZON = timedelta(days=14)
PAIR_LEAD = timedelta(hours=1)  # a proposed mock starts at least this far ahead
DECLINE_MEMORY = timedelta(days=14)
MAX_UPCOMING = 10
MAX_WINDOWS = 14
USAGE = (
    "Usage: /mock schedule WHEN [with @PEER] [loop|technical|product|behavioral] · "
    "/mock list · /mock cancel ID · /mock reschedule ID WHEN · "
    "/mock available [DAYS FROM-TO | clear] · /mock pair [FORMAT] · "
    "/mock accept ID · /mock decline ID · /mock vote ID ROUND VOTE [NOTE] · "
    "/mock note ID ROUND TEXT · /mock history [ID] · /mock remind [24h 1h | off]"
)
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
}


# -- small helpers ---------------------------------------------------------------------------


def zone_of(user: User, workspace: Workspace) -> str:
    return user.timezone or workspace.timezone


def _private(ctx: Context, card: Card, attachments: tuple[Attachment, ...] = ()) -> Outgoing:
    return Outgoing(
        Delivery.PRIVATE,
        ctx.user.external_id,
        card,
        channel=ctx.channel.external_id,
        attachments=attachments,
    )


def _text(ctx: Context, text: str) -> list[Outgoing]:
    return [_private(ctx, Card(blocks=(text,)))]


def _queue(uow: UnitOfWork, workspace: Workspace, message: Outgoing, now: datetime) -> None:
    key = message.key or ""
    uow.outbox.add(workspace, workspace.platform, message, key, now)


def _dm(
    uow: UnitOfWork,
    workspace: Workspace,
    user: User,
    card: Card,
    key: str,
    now: datetime,
    attachments: tuple[Attachment, ...] = (),
) -> None:
    _queue(
        uow,
        workspace,
        Outgoing(Delivery.DM, user.external_id, card, attachments=attachments, key=key),
        now,
    )


def _user(uow: UnitOfWork, workspace: Workspace, user_id: int | None) -> User | None:
    return None if user_id is None else uow.users.get(workspace, user_id)


def _people(uow: UnitOfWork, workspace: Workspace, mock: Mock) -> tuple[User, User | None]:
    candidate = _user(uow, workspace, mock.candidate_id)
    if candidate is None:  # the candidate's row cascades with the mock; this cannot happen
        raise NotFound(f"Mock #{mock.id} has no candidate any more.")
    return candidate, _user(uow, workspace, mock.interviewer_id)


def _describe(mock: Mock) -> str:
    return (
        f"{mock.format} · {mock.rounds_total} round{'s' * (mock.rounds_total != 1)} × "
        f"{mock.round_minutes} min"
    )


def _times(uow: UnitOfWork, workspace: Workspace, mock: Mock, at: datetime) -> list[str]:
    candidate, interviewer = _people(uow, workspace, mock)
    people = [(candidate.display, zone_of(candidate, workspace))]
    if interviewer is not None:
        people.append((interviewer.display, zone_of(interviewer, workspace)))
    return show_in_zones(at, people)


def _where(uow: UnitOfWork, workspace: Workspace, mock: Mock) -> str:
    if mock.in_dm or mock.channel_id is None:
        return "in a direct message"
    channel = uow.channels.get(workspace, mock.channel_id)
    return f"in a thread in #{channel.name if channel else '?'}"


def calendar(
    uow: UnitOfWork, workspace: Workspace, mock: Mock, now: datetime, cancelled: bool = False
) -> Attachment:
    """The mock's .ics invitation (or cancellation)."""
    candidate, interviewer = _people(uow, workspace, mock)
    with_whom = f" with {interviewer.display}" if interviewer is not None else ""
    event = CalendarEvent(
        uid=f"mock-{mock.id}-{workspace.platform}-{workspace.external_id}@studybot",
        summary=f"Mock interview #{mock.id} ({mock.format}){with_whom}",
        description=(
            f"studybot mock interview for {candidate.display}: {_describe(mock)}. "
            f"The bot opens it {_where(uow, workspace, mock)} at the start time."
        ),
        starts_at=mock.starts_at,
        ends_at=mock.planned_end,
        stamp=now,
        sequence=mock.sequence,
        cancelled=cancelled,
        location=f"studybot ({workspace.platform})",
    )
    return ics_attachment(event, f"mock-{mock.id}.ics")


def _accept_buttons(mock: Mock) -> tuple[Button, ...]:
    return (
        Button("Accept", f"mock:{mock.id}:accept", ButtonStyle.PRIMARY),
        Button("Decline", f"mock:{mock.id}:decline", ButtonStyle.DANGER),
    )


def _parse_id(text: str) -> int:
    raw = text.strip().lstrip("#")
    if not raw.isdigit() or len(raw) > 12:
        raise UserError(f"{text.strip()[:20]!r} is not a mock id. /mock list shows yours.")
    return int(raw)


def _own(ctx: Context, text: str, *, lock: bool = False) -> Mock:
    """The mock with id ``text`` that the acting user takes part in."""
    mock_id = _parse_id(text)
    mock = ctx.uow.mocks.get(ctx.workspace, mock_id, lock=lock)
    if mock is None or ctx.user.id not in mock.participants():
        raise NotFound(f"You have no mock #{mock_id}. /mock list shows yours.")
    return mock


# -- questions -------------------------------------------------------------------------------


def open_questions(bank: QuestionBank, kind: str) -> list[Question]:
    """Open questions with a rubric that a round of ``kind`` can ask."""
    return [
        q
        for topic in ROUND_TOPICS[kind]
        for q in bank.in_topic(topic)
        if q.kind == "open" and q.rubric
    ]


def check_bank(bank: QuestionBank, fmt: str) -> None:
    """Raise UserError when the bank cannot fill every round of ``fmt`` with its own question."""
    need: dict[str, int] = {}
    for kind in FORMATS[fmt]:
        need[kind] = need.get(kind, 0) + 1
    for kind, n in need.items():
        have = len(open_questions(bank, kind))
        if have < n:
            others = [
                f
                for f in FORMATS
                if f != fmt
                and all(
                    len(open_questions(bank, k)) >= FORMATS[f].count(k) for k in set(FORMATS[f])
                )
            ]
            hint = f" Try the {others[0]} format." if others else ""
            raise UserError(
                f"The question bank has {have} open {kind} question{'s' * (have != 1)} with a "
                f"rubric; a {fmt} mock needs {n}.{hint}"
            )


def pick_rounds(bank: QuestionBank, mock: Mock, seen: set[str]) -> list[NewRound]:
    """One open rubric question per round: ones the candidate has not had in a mock first,
    different topics within a mock where the bank allows, in a stable per-mock order."""
    chosen: list[NewRound] = []
    used_ids: set[str] = set()
    used_topics: set[str] = set()
    for position, kind in enumerate(mock.kinds):
        pool = sorted(
            open_questions(bank, kind),
            key=lambda q: hashlib.sha256(f"{mock.id}:{q.id}".encode()).hexdigest(),
        )
        if not pool:
            continue
        best = min(
            pool,
            key=lambda q: (q.id in used_ids, q.id in seen, q.topic in used_topics),
        )
        used_ids.add(best.id)
        used_topics.add(best.topic)
        chosen.append(NewRound(position, kind, best.topic, best.id))
    return chosen


# -- parsing -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduleRequest:
    when: str
    peer: str | None
    format: str
    box: int


def _parse_box(value: str) -> int:
    digits = value.lower().removesuffix("min").removesuffix("m")
    if not digits.isdigit() or not MIN_BOX <= int(digits) <= MAX_BOX:
        raise UserError(f"A round's time box is {MIN_BOX} to {MAX_BOX} minutes, e.g. box=10m.")
    return int(digits)


def parse_schedule(text: str) -> ScheduleRequest:
    """``WHEN [with @PEER] [FORMAT] [box=Nm]`` in any order around WHEN."""
    words: list[str] = []
    box = DEFAULT_BOX
    for token in text.split():
        key, eq, value = token.partition("=")
        if eq and key.lower() in ("box", "minutes"):
            box = _parse_box(value)
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
    return ScheduleRequest(" ".join(words), peer, fmt, box)


def resolve_peer(ctx: Context, token: str) -> User:
    """A mention (Slack ``<@U…>``, Discord ``<@…>``) or ``@name`` of someone in the workspace."""
    mention = _MENTION.match(token)
    if mention is not None:
        peer = ctx.uow.users.ensure(ctx.workspace, mention.group(1))
    else:
        name = token.lstrip("@")
        if not name or len(name) > 80:
            raise UserError("With whom? Mention them: /mock schedule Fri 15:00 with @bob.")
        found = ctx.uow.mocks.find_user(ctx.workspace, name)
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


# -- reminders -------------------------------------------------------------------------------


def offsets_for(uow: UnitOfWork, user: User) -> list[int]:
    chosen = uow.mocks.reminder_offsets(user)
    return list(DEFAULT_OFFSETS) if chosen is None else chosen


def plan_reminders(uow: UnitOfWork, mock: Mock, user: User, now: datetime) -> int:
    """(Re)plan ``user``'s reminders of ``mock``: the ones still ahead of now."""
    due = [
        (offset, mock.starts_at - timedelta(minutes=offset))
        for offset in offsets_for(uow, user)
        if mock.starts_at - timedelta(minutes=offset) > now
    ]
    uow.mocks.set_reminders(mock, user, due)
    return len(due)


def _plan_all(uow: UnitOfWork, workspace: Workspace, mock: Mock, now: datetime) -> None:
    uow.mocks.cancel_reminders(mock)
    if mock.status != SCHEDULED:
        return
    for user_id in mock.participants():
        user = _user(uow, workspace, user_id)
        if user is not None and mock.accepted(user_id):
            plan_reminders(uow, mock, user, now)


def reminder_card(
    uow: UnitOfWork, workspace: Workspace, mock: Mock, user: User, now: datetime
) -> Card:
    candidate, interviewer = _people(uow, workspace, mock)
    if user.id == candidate.id:
        role = (
            f"with {interviewer.display} interviewing"
            if interviewer is not None and mock.has_interviewer
            else "solo"
        )
    else:
        role = f"you interview {candidate.display}"
    return Card(
        title=f"Reminder: mock interview #{mock.id} in {in_words(mock.starts_at - now)}",
        blocks=(
            f"{show(mock.starts_at, zone_of(user, workspace))} · {_describe(mock)} · {role}.",
            f"It opens {_where(uow, workspace, mock)}. Cancel with /mock cancel {mock.id}, "
            f"move it with /mock reschedule {mock.id} WHEN.",
        ),
    )


@dataclass
class MockReminderJob:
    """Sends each due reminder once, by DM with the .ics file; cancelled mocks send none."""

    name: str = "mock-reminders"
    batch: int = 200

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow.mocks.next_reminder()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done = 0
        for due in uow.mocks.claim_reminders(now, self.batch):
            card = reminder_card(uow, due.workspace, due.mock, due.user, now)
            _dm(
                uow,
                due.workspace,
                due.user,
                card,
                f"mock:{due.mock.id}:remind:{due.user.id}:{due.offset_minutes}:s{due.mock.sequence}",
                now,
                (calendar(uow, due.workspace, due.mock, now),),
            )
            done += 1
        return done


# -- scheduling ------------------------------------------------------------------------------


def _check_free(
    ctx: Context, users: tuple[int, ...], start: datetime, end: datetime, exclude: int | None
) -> None:
    clash = ctx.uow.mocks.overlapping(ctx.workspace, users, start, end, exclude)
    if clash:
        other = clash[0]
        who = "You have" if ctx.user.id in other.participants() else "Your peer has"
        raise UserError(
            f"{who} mock #{other.id} at {show(other.starts_at, zone_of(ctx.user, ctx.workspace))}"
            " then. Pick another time."
        )


def _confirmation(ctx: Context, mock: Mock, title: str, lines: list[str]) -> Outgoing:
    blocks = [
        *lines,
        f"{_describe(mock)} · opens {_where(ctx.uow, ctx.workspace, mock)}.",
        "\n".join(_times(ctx.uow, ctx.workspace, mock, mock.starts_at)),
    ]
    return _private(
        ctx,
        Card(
            title=title,
            blocks=tuple(blocks),
            footer=f"/mock cancel {mock.id} · /mock reschedule {mock.id} WHEN · /mock list",
        ),
        (calendar(ctx.uow, ctx.workspace, mock, ctx.now),),
    )


def _invite(ctx: Context, mock: Mock, peer: User, headline: str) -> None:
    """DM ``peer`` an invitation to ``mock`` with Accept / Decline buttons."""
    blocks = (
        headline,
        f"{show(mock.starts_at, zone_of(peer, ctx.workspace))} · {_describe(mock)}.",
        "\n".join(_times(ctx.uow, ctx.workspace, mock, mock.starts_at)),
        f"Or type /mock accept {mock.id} / /mock decline {mock.id}.",
    )
    _dm(
        ctx.uow,
        ctx.workspace,
        peer,
        Card(title=f"Mock interview #{mock.id}?", blocks=blocks, buttons=_accept_buttons(mock)),
        f"mock:{mock.id}:s{mock.sequence}:invite:{peer.id}",
        ctx.now,
    )


def schedule(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock schedule WHEN [with @PEER] [FORMAT] [box=Nm]``."""
    request = parse_schedule(args)
    if not request.when:
        raise UserError("When? For example /mock schedule tomorrow 3pm (or Fri 15:00).")
    starts = parse_when(request.when, zone_of(ctx.user, ctx.workspace), ctx.now)
    peer = resolve_peer(ctx, request.peer) if request.peer else None
    check_bank(ctx.bank, request.format)
    users = (ctx.user.id,) if peer is None else (ctx.user.id, peer.id)
    duration = timedelta(minutes=request.box * len(FORMATS[request.format]))
    _check_free(ctx, users, starts, starts + duration, None)
    upcoming = ctx.uow.mocks.for_user(ctx.workspace, ctx.user, ACTIVE)
    if len(upcoming) >= MAX_UPCOMING:
        raise UserError(
            f"You have {len(upcoming)} mocks coming up already; cancel one before adding more."
        )
    mock = ctx.uow.mocks.add(
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
        ),
        ctx.now,
    )
    plan_reminders(ctx.uow, mock, ctx.user, ctx.now)
    lines = [f"Mock interview #{mock.id} is scheduled."]
    if peer is not None:
        _invite(
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
    mocks = ctx.uow.mocks.for_user(ctx.workspace, ctx.user, ACTIVE)
    if not mocks:
        return _text(ctx, "No mocks coming up. Schedule one: /mock schedule tomorrow 3pm.")
    zone_name = zone_of(ctx.user, ctx.workspace)
    lines = []
    for mock in mocks:
        candidate, interviewer = _people(ctx.uow, ctx.workspace, mock)
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
        _private(
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
    mock = _own(ctx, args, lock=True)
    if mock.status not in ACTIVE:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: nothing to cancel.")
    was_running = mock.status in (RUNNING, DEBRIEF)
    changed = ctx.uow.mocks.change(
        mock,
        MockChanges(status=CANCELLED, clear_next=True, ended_at=ctx.now if was_running else None),
        ctx.now,
        expect_status=mock.status,
    )
    if changed is None:
        raise UserError(f"Mock #{mock.id} just changed; look again with /mock list.")
    ctx.uow.mocks.cancel_reminders(mock)
    if was_running:
        for r in ctx.uow.mocks.rounds(mock):
            if r.open and r.started_at is not None:
                ctx.uow.mocks.close_round(mock, r.position, RoundResult(STOPPED, ctx.now))
        _post(
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
    candidate, interviewer = _people(ctx.uow, ctx.workspace, mock)
    for other in (candidate, interviewer):
        if other is None or other.id == ctx.user.id:
            continue
        _dm(
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
        _private(
            ctx,
            Card(blocks=(f"Mock #{mock.id} is cancelled; no reminders will be sent.",)),
            (calendar(ctx.uow, ctx.workspace, changed, ctx.now, cancelled=True),),
        )
    ]


def reschedule(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock reschedule ID WHEN``: the reminders move with it; a peer accepts again."""
    head, _, when = args.strip().partition(" ")
    if not when.strip():
        raise UserError("Usage: /mock reschedule ID WHEN, e.g. /mock reschedule 3 Fri 15:00.")
    mock = _own(ctx, head, lock=True)
    if mock.status not in (*UPCOMING, MISSED):
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: it can't be moved.")
    starts = parse_when(when, zone_of(ctx.user, ctx.workspace), ctx.now)
    _check_free(ctx, mock.participants(), starts, starts + mock.duration, mock.id)
    is_candidate = ctx.user.id == mock.candidate_id
    if mock.interviewer_id is None:
        status = SCHEDULED
    elif is_candidate:
        status = PROPOSED if mock.status == PROPOSED else SCHEDULED
    else:
        status = PROPOSED  # the candidate accepts the interviewer's new time
    changed = ctx.uow.mocks.change(
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
    _plan_all(ctx.uow, ctx.workspace, changed, ctx.now)
    candidate, interviewer = _people(ctx.uow, ctx.workspace, changed)
    other = interviewer if is_candidate else candidate
    lines = [f"Mock #{mock.id} moved to {show(starts, zone_of(ctx.user, ctx.workspace))}."]
    if other is not None:
        _invite(
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
    mock = _own(ctx, args, lock=True)
    if mock.status not in UPCOMING:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: nothing to accept.")
    if mock.accepted(ctx.user.id):
        raise UserError(f"You already accepted mock #{mock.id}.")
    is_candidate = ctx.user.id == mock.candidate_id
    other_id = mock.interviewer_id if is_candidate else mock.candidate_id
    both = other_id is not None and mock.accepted(other_id)
    status = SCHEDULED if (mock.status == SCHEDULED or both) else PROPOSED
    changed = ctx.uow.mocks.change(
        mock,
        MockChanges(
            status=status,
            candidate_accepted=True if is_candidate else None,
            interviewer_accepted=None if is_candidate else True,
        ),
        ctx.now,
        expect_status=mock.status,
    )
    if changed is None:
        raise UserError(f"Mock #{mock.id} just changed; look again with /mock list.")
    _plan_all(ctx.uow, ctx.workspace, changed, ctx.now)
    candidate, interviewer = _people(ctx.uow, ctx.workspace, changed)
    other = interviewer if is_candidate else candidate
    if other is not None:
        ready = changed.status == SCHEDULED
        _dm(
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
                buttons=() if ready else _accept_buttons(changed),
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
    mock = _own(ctx, args, lock=True)
    is_candidate = ctx.user.id == mock.candidate_id
    if mock.status == SCHEDULED and is_candidate:
        raise UserError(f"It's your mock: cancel it with /mock cancel {mock.id}.")
    if mock.status not in UPCOMING:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: nothing to decline.")
    candidate, interviewer = _people(ctx.uow, ctx.workspace, mock)
    other = interviewer if is_candidate else candidate
    if mock.status == SCHEDULED:
        # the candidate keeps the slot; the mock runs solo
        changes = MockChanges(drop_interviewer=True, declined_by=ctx.user.id)
        told = (
            f"{ctx.user.display} can't interview you in mock #{mock.id}; it runs solo at "
            f"the same time, or cancel it with /mock cancel {mock.id}."
        )
    else:
        changes = MockChanges(status=DECLINED, clear_next=True, declined_by=ctx.user.id)
        told = f"{ctx.user.display} declined mock #{mock.id}. Try /mock pair again."
    changed = ctx.uow.mocks.change(mock, changes, ctx.now, expect_status=mock.status)
    if changed is None:
        raise UserError(f"Mock #{mock.id} just changed; look again with /mock list.")
    ctx.uow.mocks.cancel_reminders(mock, None if changed.status == DECLINED else ctx.user.id)
    if other is not None:
        _dm(
            ctx.uow,
            ctx.workspace,
            other,
            Card(title=f"Mock #{mock.id} declined", blocks=(told,)),
            f"mock:{mock.id}:s{mock.sequence}:declined:{ctx.user.id}",
            ctx.now,
        )
    return _text(ctx, f"Declined mock #{mock.id}.")


# -- availability and pairing ----------------------------------------------------------------


def _windows_text(windows: list[Window]) -> str:
    return "\n".join(describe_window(w.weekdays, w.start, w.end, w.timezone) for w in windows)


def available(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock available`` lists, ``… clear`` removes, ``… DAYS FROM-TO`` adds a weekly window
    (read in your zone)."""
    text = args.strip()
    zone_name = zone_of(ctx.user, ctx.workspace)
    if text.lower() in ("", "list"):
        windows = ctx.uow.mocks.windows(ctx.workspace, ctx.user)
        if not windows:
            return _text(
                ctx,
                "You have no availability windows. Add one: /mock available weekdays 18:00-20:00 "
                f"(in your zone, {zone_name}).",
            )
        return _text(ctx, "You're available for mocks:\n" + _windows_text(windows))
    if text.lower() in ("clear", "off", "none"):
        removed = ctx.uow.mocks.clear_windows(ctx.workspace, ctx.user)
        return _text(ctx, f"Removed {removed} window{'s' * (removed != 1)}.")
    days, start, end = parse_window(text)
    existing = ctx.uow.mocks.windows(ctx.workspace, ctx.user)
    if len(existing) >= MAX_WINDOWS:
        raise UserError(f"You have {MAX_WINDOWS} windows; /mock available clear to start over.")
    ctx.uow.mocks.add_window(ctx.workspace, ctx.user, days, start, end, zone_name, ctx.now)
    windows = ctx.uow.mocks.windows(ctx.workspace, ctx.user)
    return _text(
        ctx,
        "Added. You're available for mocks:\n"
        + _windows_text(windows)
        + "\n/mock pair finds someone free at the same time.",
    )


@dataclass(frozen=True, slots=True)
class Match:
    user: User
    starts_at: datetime
    repeats: int
    zone_gap: float


def _intervals(
    windows: list[Window], since: datetime, until: datetime
) -> list[tuple[datetime, datetime]]:
    return sorted(
        span
        for w in windows
        for span in expand(w.weekdays, w.start, w.end, w.timezone, since, until)
    )


def find_match(ctx: Context, fmt: str, box: int) -> Match | None:
    """The best partner and slot: overlapping availability, new partners before repeat
    ones, the earliest slot, then the closest time zone."""
    mine = ctx.uow.mocks.windows(ctx.workspace, ctx.user)
    since = ceil_quarter(ctx.now + PAIR_LEAD)
    until = ctx.now + PAIR_HORIZON
    duration = timedelta(minutes=box * len(FORMATS[fmt]))
    my_spans = _intervals(mine, since, until)
    counts = ctx.uow.mocks.pair_counts(ctx.workspace, ctx.user)
    declined = ctx.uow.mocks.declined(ctx.workspace, ctx.user, ctx.now - DECLINE_MEMORY)
    my_zone = zone_of(ctx.user, ctx.workspace)
    best: Match | None = None
    for user_id, windows in ctx.uow.mocks.all_windows(ctx.workspace).items():
        if user_id == ctx.user.id or user_id in declined:
            continue
        other = _user(ctx.uow, ctx.workspace, user_id)
        if other is None:
            continue
        slot = _first_free(
            ctx,
            (ctx.user.id, user_id),
            overlaps(my_spans, _intervals(windows, since, until)),
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


def _first_free(
    ctx: Context,
    users: tuple[int, ...],
    spans: list[tuple[datetime, datetime]],
    duration: timedelta,
) -> datetime | None:
    for a, b in spans:
        t = ceil_quarter(a)
        while t + duration <= b:
            if not ctx.uow.mocks.overlapping(ctx.workspace, users, t, t + duration):
                return t
            t += timedelta(minutes=15)
    return None


def pair(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock pair [FORMAT] [box=Nm]``: propose a mock with the best-matching person; both
    accept before it is on."""
    request = parse_schedule(args)
    if request.when or request.peer:
        raise UserError("Usage: /mock pair [loop|technical|product|behavioral].")
    if not ctx.uow.mocks.windows(ctx.workspace, ctx.user):
        raise UserError(
            "Tell me when you're free first: /mock available weekdays 18:00-20:00 "
            "(as many windows as you like), then /mock pair."
        )
    check_bank(ctx.bank, request.format)
    pending = [
        m
        for m in ctx.uow.mocks.for_user(ctx.workspace, ctx.user, (PROPOSED,))
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
    mock = ctx.uow.mocks.add(
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
    _invite(
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
            f"{_describe(mock)} · opens {_where(ctx.uow, ctx.workspace, mock)}.",
            "\n".join(_times(ctx.uow, ctx.workspace, mock, mock.starts_at)),
            f"Both of you accept for it to be on: /mock accept {mock.id} or /mock decline "
            f"{mock.id}.",
        ),
        buttons=_accept_buttons(mock),
    )
    return [_private(ctx, card)]


# -- running -----------------------------------------------------------------------------------


def _post(
    uow: UnitOfWork, workspace: Workspace, mock: Mock, card: Card, key: str, now: datetime
) -> None:
    """Post in the mock's thread (its channel post's thread) or the candidate's DM."""
    if mock.in_dm or mock.channel_id is None:
        candidate = _user(uow, workspace, mock.candidate_id)
        if candidate is not None:
            _dm(uow, workspace, candidate, card, key, now)
        return
    channel = uow.channels.get(workspace, mock.channel_id)
    if channel is None:
        return
    message = Outgoing(
        Delivery.CHANNEL,
        channel.external_id,
        card,
        thread=uow.mocks.thread_ref(mock),
        key=key,
        tags={"mock": str(mock.id)},
    )
    _queue(uow, workspace, message, now)


def _round_blocks(
    bank: QuestionBank, mock: Mock, r: Round, zone_name: str, ends_at: datetime
) -> tuple[str, ...]:
    question = bank.get(r.question_id)
    prompt = question.prompt if question is not None else "(this question left the bank)"
    return (
        prompt,
        f"Time box: {mock.round_minutes} minutes, until {show(ends_at, zone_name)}.",
    )


def _round_card(
    uow: UnitOfWork,
    bank: QuestionBank,
    workspace: Workspace,
    mock: Mock,
    r: Round,
    ends_at: datetime,
    intro: tuple[str, ...] = (),
) -> Card:
    candidate, _ = _people(uow, workspace, mock)
    return Card(
        title=(
            f"Mock #{mock.id} · round {r.position + 1} of {mock.rounds_total} · "
            f"{ROUND_TITLES.get(r.kind, r.kind)} ({r.topic})"
        ),
        blocks=(*intro, *_round_blocks(bank, mock, r, zone_of(candidate, workspace), ends_at)),
        buttons=(Button("Answer", f"mock:{mock.id}:{r.position}:form", ButtonStyle.PRIMARY),),
        footer=f"{candidate.display}: answer here, with /answer TEXT, or the Answer button.",
    )


def _vote_buttons(mock: Mock, position: int) -> tuple[Button, ...]:
    return (
        *(Button(label, f"mock:{mock.id}:{position}:v:{code}") for code, label in VOTES.items()),
        Button("Add a note", f"mock:{mock.id}:{position}:note", ButtonStyle.PRIMARY),
    )


def _brief(
    uow: UnitOfWork, bank: QuestionBank, workspace: Workspace, mock: Mock, r: Round, now: datetime
) -> None:
    """The interviewer's private brief for a round: question, rubric, model answer, votes."""
    interviewer = _user(uow, workspace, mock.interviewer_id)
    if interviewer is None or not mock.has_interviewer:
        return
    question = bank.get(r.question_id)
    if question is None:
        return
    rubric = "\n".join(f"• {p.point} (weight {p.weight:g})" for p in question.rubric)
    fields = [Field("Rubric", rubric or "(none)", inline=False)]
    if question.model_answer:
        fields.append(Field("Model answer", question.model_answer, inline=False))
    _dm(
        uow,
        workspace,
        interviewer,
        Card(
            title=f"Interviewer brief · mock #{mock.id} · round {r.position + 1}",
            blocks=(
                question.prompt,
                "Only you see this. Vote when you've heard the answer; add a note for the "
                f"debrief. (Or /mock vote {mock.id} {r.position + 1} yes NOTE.)",
            ),
            fields=tuple(fields),
            buttons=_vote_buttons(mock, r.position),
        ),
        f"mock:{mock.id}:r{r.position}:brief",
        now,
    )


def _start(
    uow: UnitOfWork, services: Services, workspace: Workspace, mock: Mock, now: datetime
) -> int:
    late = now - mock.starts_at
    candidate, interviewer = _people(uow, workspace, mock)
    if late > LATE_START_LIMIT:
        changed = uow.mocks.change(
            mock, MockChanges(status=MISSED, clear_next=True), now, expect_status=SCHEDULED
        )
        if changed is None:
            return 0
        uow.mocks.cancel_reminders(mock)
        for person in (candidate, interviewer if mock.has_interviewer else None):
            if person is None:
                continue
            _dm(
                uow,
                workspace,
                person,
                Card(
                    title=f"Mock #{mock.id} missed",
                    blocks=(
                        f"Mock #{mock.id} was due at "
                        f"{show(mock.starts_at, zone_of(person, workspace))}, but I could not "
                        f"start it within {in_words(LATE_START_LIMIT)}. Sorry. Pick a new time "
                        f"with /mock reschedule {mock.id} WHEN.",
                    ),
                ),
                f"mock:{mock.id}:s{mock.sequence}:missed:{person.id}",
                now,
            )
        return 1
    seen = uow.mocks.question_ids_seen(workspace, candidate)
    planned = pick_rounds(services.bank, mock, seen)
    if len(planned) < mock.rounds_total:
        changed = uow.mocks.change(
            mock, MockChanges(status=CANCELLED, clear_next=True), now, expect_status=SCHEDULED
        )
        if changed is not None:
            uow.mocks.cancel_reminders(mock)
            _dm(
                uow,
                workspace,
                candidate,
                Card(
                    title=f"Mock #{mock.id} could not start",
                    blocks=(
                        f"The question bank has no open {mock.format} questions with a rubric "
                        "any more, so I cancelled it. Try another format.",
                    ),
                ),
                f"mock:{mock.id}:s{mock.sequence}:nobank",
                now,
            )
        return 1
    ends = now + timedelta(minutes=mock.round_minutes)
    changed = uow.mocks.change(
        mock,
        MockChanges(status=RUNNING, position=0, started_at=now, next_at=ends + ANSWER_GRACE),
        now,
        expect_status=SCHEDULED,
    )
    if changed is None:
        return 0
    uow.mocks.add_rounds(changed, planned)
    uow.mocks.start_round(changed, 0, now, ends)
    uow.mocks.cancel_reminders(changed)  # any still unsent are moot once it runs
    intro = [
        f"Mock interview #{mock.id} for {candidate.display}: {_describe(mock)}.",
    ]
    if changed.has_interviewer and interviewer is not None:
        intro.append(f"{interviewer.display} interviews and scores each round.")
    elif interviewer is not None:
        intro.append(f"{interviewer.display} did not accept, so this one runs solo.")
    if late >= timedelta(minutes=1):
        intro.append(f"Starting {in_words(late)} late; every round still gets its full time box.")
    first = uow.mocks.rounds(changed)[0]
    card = _round_card(uow, services.bank, workspace, changed, first, ends, tuple(intro))
    _post(uow, workspace, changed, card, f"mock:{mock.id}:open", now)
    _brief(uow, services.bank, workspace, changed, first, now)
    return 1


def _advance(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    mock: Mock,
    position: int,
    now: datetime,
    intro: tuple[str, ...] = (),
) -> None:
    """After round ``position`` closed: start the next round, or finish."""
    nxt = position + 1
    if nxt < mock.rounds_total:
        ends = now + timedelta(minutes=mock.round_minutes)
        moved = uow.mocks.change(
            mock,
            MockChanges(position=nxt, next_at=ends + ANSWER_GRACE),
            now,
            expect_status=RUNNING,
            expect_position=position,
        )
        if moved is None:
            return
        uow.mocks.start_round(moved, nxt, now, ends)
        r = uow.mocks.rounds(moved)[nxt]
        card = _round_card(uow, services.bank, workspace, moved, r, ends, intro)
        _post(uow, workspace, moved, card, f"mock:{mock.id}:r{nxt}:ask", now)
        _brief(uow, services.bank, workspace, moved, r, now)
        return
    rounds = uow.mocks.rounds(mock)
    missing = [r.position + 1 for r in rounds if r.vote is None]
    if mock.has_interviewer and missing:
        waiting = uow.mocks.change(
            mock,
            MockChanges(status=DEBRIEF, position=mock.rounds_total, next_at=now + DEBRIEF_WAIT),
            now,
            expect_status=RUNNING,
            expect_position=position,
        )
        if waiting is None:
            return
        interviewer = _user(uow, workspace, mock.interviewer_id)
        if interviewer is not None:
            listed = ", ".join(str(n) for n in missing)
            _dm(
                uow,
                workspace,
                interviewer,
                Card(
                    title=f"Mock #{mock.id}: your votes, please",
                    blocks=(
                        f"The last round is over. Vote on round{'s' * (len(missing) > 1)} "
                        f"{listed} within {in_words(DEBRIEF_WAIT)} for the scorecard "
                        f"(/mock vote {mock.id} ROUND yes|no|strong-yes|strong-no NOTE); after "
                        "that the rubric stands in for missing votes.",
                    ),
                ),
                f"mock:{mock.id}:debrief",
                now,
            )
        _post(
            uow,
            workspace,
            waiting,
            Card(
                blocks=(
                    *intro,
                    "That was the last round. The scorecard follows once the interviewer has "
                    f"voted (at most {in_words(DEBRIEF_WAIT)}).",
                )
            ),
            f"mock:{mock.id}:last",
            now,
        )
        return
    _complete(uow, services, workspace, mock, now, intro)


def _complete(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    mock: Mock,
    now: datetime,
    intro: tuple[str, ...] = (),
) -> None:
    done = uow.mocks.change(
        mock,
        MockChanges(status=DONE, clear_next=True, ended_at=now, position=mock.rounds_total),
        now,
        expect_status=mock.status,
    )
    if done is None:
        return
    candidate, interviewer = _people(uow, workspace, done)
    card = scorecard_card(
        done,
        uow.mocks.rounds(done),
        services.bank,
        candidate.display,
        interviewer.display if interviewer is not None and done.has_interviewer else None,
    )
    for person in (candidate, interviewer if done.has_interviewer else None):
        if person is not None:
            _dm(uow, workspace, person, card, f"mock:{mock.id}:scorecard:{person.id}", now)
    if not done.in_dm:
        _post(
            uow,
            workspace,
            done,
            Card(
                blocks=(
                    *intro,
                    f"Mock #{mock.id} is over. The scorecard is in your direct messages.",
                )
            ),
            f"mock:{mock.id}:over",
            now,
        )


def _time_out(
    uow: UnitOfWork, services: Services, workspace: Workspace, mock: Mock, now: datetime
) -> int:
    if mock.status == DEBRIEF:
        _complete(uow, services, workspace, mock, now)
        return 1
    position = mock.position
    closed = uow.mocks.close_round(mock, position, RoundResult(TIMED_OUT, now))
    if closed is None:
        return 0
    late = ""
    if closed.ends_at is not None and now - closed.ends_at > timedelta(minutes=1):
        late = " (I was away when it ended)"
    intro = (f"⏱ Round {position + 1}'s time box passed without an answer{late}. Moving on.",)
    _advance(uow, services, workspace, mock, position, now, intro)
    return 1


def _expire(uow: UnitOfWork, workspace: Workspace, mock: Mock, now: datetime) -> int:
    changed = uow.mocks.change(
        mock, MockChanges(status=EXPIRED, clear_next=True), now, expect_status=PROPOSED
    )
    if changed is None:
        return 0
    uow.mocks.cancel_reminders(mock)
    for user_id in mock.participants():
        person = _user(uow, workspace, user_id)
        if person is not None:
            _dm(
                uow,
                workspace,
                person,
                Card(
                    title=f"Mock #{mock.id} expired",
                    blocks=(
                        f"Mock #{mock.id} was not accepted by both of you before it was due, "
                        "so it did not run. /mock pair finds a new match.",
                    ),
                ),
                f"mock:{mock.id}:expired:{person.id}",
                now,
            )
    return 1


@dataclass
class MockClockJob:
    """Each mock's next step when its time comes: start (or expire, or give up on a start
    missed by too long), close a round whose time box passed, end the debrief wait."""

    name: str = "mock-clock"
    batch: int = 100

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow.mocks.next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done = 0
        for workspace, mock in uow.mocks.due(now, self.batch):
            if mock.status == PROPOSED:
                done += _expire(uow, workspace, mock, now)
            elif mock.status == SCHEDULED:
                done += _start(uow, services, workspace, mock, now)
            elif mock.status in (RUNNING, DEBRIEF):
                done += _time_out(uow, services, workspace, mock, now)
        return done


def answer_round(ctx: Context, mock: Mock, position: int, text: str) -> list[Outgoing]:
    """Grade the candidate's answer to round ``position`` on its rubric; the next round
    follows at once."""
    if not text.strip():
        raise UserError("Your answer is empty. Say what you would say in the interview.")
    if ctx.user.id != mock.candidate_id:
        raise UserError(f"Only the candidate answers in mock #{mock.id}.")
    if mock.status != RUNNING:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}.")
    rounds = ctx.uow.mocks.rounds(mock)
    if position != mock.position or position >= len(rounds) or not rounds[position].open:
        raise UserError(f"Round {position + 1} of mock #{mock.id} is closed.")
    current = rounds[position]
    now = ctx.now
    if current.ends_at is not None and now > current.ends_at + ANSWER_GRACE:
        # The job has not closed the round yet (it runs every few seconds): close it now.
        _time_out(ctx.uow, ctx.services, ctx.workspace, mock, now)
        return _text(
            ctx,
            f"Time's up for round {position + 1}: its {mock.round_minutes}-minute box closed "
            "before your answer, so it doesn't count. The next round is up.",
        )
    question = ctx.bank.get(current.question_id)
    if question is None:
        raise UserError("That question left the bank; wait for the next round.")
    result = grade_answer(ctx, question, text)
    closed = ctx.uow.mocks.close_round(
        mock,
        position,
        RoundResult(
            ANSWERED,
            now,
            answer=text,
            score=result.score,
            verdict=result.verdict.value,
            matched=tuple(result.matched),
            missed=tuple(result.missed),
            feedback=result.feedback,
        ),
    )
    if closed is None:
        raise UserError(f"Round {position + 1} of mock #{mock.id} just closed.")
    recorded = record_answer(
        ctx, text, result, AnswerTo(AnswerKind.MOCK, question, asked_at=current.started_at), now
    )
    interviewer = _user(ctx.uow, ctx.workspace, mock.interviewer_id)
    if interviewer is not None and mock.has_interviewer:
        _dm(
            ctx.uow,
            ctx.workspace,
            interviewer,
            Card(
                title=f"Mock #{mock.id} · round {position + 1}: {ctx.user.display}'s answer",
                blocks=(text,),
                buttons=_vote_buttons(mock, position),
            ),
            f"mock:{mock.id}:r{position}:answer",
            now,
        )
    last = position + 1 == mock.rounds_total
    said = (
        f"Round {position + 1} answer recorded: it covers {round(result.score * 100)}% of the "
        f"rubric. {'That was the last round.' if last else 'Next round coming up.'}"
    )
    reply = _text(ctx, " ".join(n for n in (said, recorded.streak_note) if n))
    _advance(ctx.uow, ctx.services, ctx.workspace, mock, position, now)
    return reply


def _here(ctx: Context, mock: Mock) -> bool:
    """Whether the event happened where ``mock`` runs: its thread, its DM, or its channel."""
    event = ctx.event
    if mock.in_dm:
        return event.is_dm
    ref = ctx.uow.mocks.thread_ref(mock)
    if event.thread is not None:
        return ref is not None and event.thread == ref
    return mock.channel_id == ctx.channel.id


def answer_running_mock(ctx: Context, text: str) -> list[Outgoing] | None:
    """Route ``/answer`` and plain text to a running mock's open round when the acting user
    is its candidate and writes where it runs (thread, DM or channel); None otherwise, so
    the quiz or the daily question gets it."""
    for mock in ctx.uow.mocks.running_for(ctx.workspace, ctx.user):
        if not _here(ctx, mock):
            continue
        if mock.candidate_id == ctx.user.id and mock.status == RUNNING:
            return answer_round(ctx, mock, mock.position, text)
        if mock.interviewer_id == ctx.user.id and ctx.event.thread is not None:
            raise UserError(
                f"You're interviewing in mock #{mock.id}: vote with the buttons in your DM, "
                f"or /mock vote {mock.id} ROUND yes|no NOTE."
            )
    return None


# -- votes -------------------------------------------------------------------------------------


def record_vote(
    ctx: Context, mock: Mock, position: int, vote: str | None, note: str | None
) -> list[Outgoing]:
    if ctx.user.id != mock.interviewer_id or not mock.has_interviewer:
        raise UserError(f"Only mock #{mock.id}'s interviewer votes.")
    if mock.status in UPCOMING:
        raise UserError(f"Mock #{mock.id} has not started yet: vote as its rounds run.")
    if mock.status not in (RUNNING, DEBRIEF):
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: its votes are final.")
    rounds = ctx.uow.mocks.rounds(mock)
    if not 0 <= position < len(rounds) or rounds[position].started_at is None:
        raise UserError(f"Mock #{mock.id} has no round {position + 1} yet.")
    if note is not None and len(note) > 2000:
        raise UserError("Keep the note under 2,000 characters.")
    ctx.uow.mocks.vote(mock, position, vote, note)
    said = []
    if vote is not None:
        said.append(f"vote {VOTES[vote]}")
    if note is not None:
        said.append("note")
    reply = _text(ctx, f"Round {position + 1} of mock #{mock.id}: {' and '.join(said)} recorded.")
    if mock.status == DEBRIEF and all(r.vote is not None for r in ctx.uow.mocks.rounds(mock)):
        _complete(ctx.uow, ctx.services, ctx.workspace, mock, ctx.now)
    return reply


def _round_number(text: str, mock: Mock) -> int:
    if not text.isdigit() or not 1 <= int(text) <= mock.rounds_total:
        raise UserError(f"Mock #{mock.id} has rounds 1 to {mock.rounds_total}.")
    return int(text) - 1


def vote_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock vote ID ROUND VOTE [NOTE]``."""
    words = args.split()
    if len(words) < 3:
        raise UserError("Usage: /mock vote ID ROUND strong-no|no|yes|strong-yes [NOTE].")
    mock = _own(ctx, words[0], lock=True)
    position = _round_number(words[1], mock)
    code, rest = parse_vote(words[2:])
    note = " ".join(rest) or None
    return record_vote(ctx, mock, position, code, note)


def note_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock note ID ROUND TEXT``."""
    words = args.split(maxsplit=2)
    if len(words) < 3 or not words[2].strip():
        raise UserError("Usage: /mock note ID ROUND TEXT.")
    mock = _own(ctx, words[0], lock=True)
    return record_vote(ctx, mock, _round_number(words[1], mock), None, words[2].strip())


# -- history and preferences -------------------------------------------------------------------


def history(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock history`` lists past mocks with scores; ``/mock history ID`` shows a scorecard."""
    if args.strip():
        mock = _own(ctx, args)
        if mock.status != DONE:
            raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}: no scorecard.")
        candidate, interviewer = _people(ctx.uow, ctx.workspace, mock)
        card = scorecard_card(
            mock,
            ctx.uow.mocks.rounds(mock),
            ctx.bank,
            candidate.display,
            interviewer.display if interviewer is not None and mock.has_interviewer else None,
        )
        return [_private(ctx, card)]
    mocks = ctx.uow.mocks.for_user(ctx.workspace, ctx.user, PAST, limit=20)
    if not mocks:
        return _text(ctx, "No past mocks yet. Schedule one: /mock schedule tomorrow 3pm.")
    zone_name = zone_of(ctx.user, ctx.workspace)
    lines = []
    for mock in mocks:
        candidate, interviewer = _people(ctx.uow, ctx.workspace, mock)
        if ctx.user.id == candidate.id:
            role = f"with {interviewer.display}" if mock.has_interviewer and interviewer else "solo"
        else:
            role = f"interviewed {candidate.display}"
        line = f"#{mock.id} · {show(mock.starts_at, zone_name)} · {mock.format} · {role} · "
        if mock.status == DONE:
            rounds = ctx.uow.mocks.rounds(mock)
            votes = [v.vote for v in verdicts(rounds, ctx.bank)]
            line += (
                f"{round(mean_coverage(rounds) * 100)}% rubric coverage · {recommendation(votes)}"
            )
        else:
            line += STATUS_WORDS[mock.status]
        lines.append(line)
    return [
        _private(
            ctx,
            Card(
                title="Your past mocks",
                blocks=("\n".join(lines),),
                footer="/mock history ID shows a scorecard.",
            ),
        )
    ]


def remind(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock remind`` shows, ``/mock remind 24h 1h`` sets, ``/mock remind off`` stops the
    reminders of your future mocks (already planned ones move to the new times)."""
    text = args.strip().lower()
    if not text:
        current = offsets_for(ctx.uow, ctx.user)
        said = ", ".join(in_words(timedelta(minutes=m)) for m in current) or "none"
        return _text(
            ctx, f"Mock reminders: {said} before. Change with /mock remind 24h 1h (or off)."
        )
    offsets = [] if text in ("off", "none", "no") else parse_offsets(text)
    ctx.uow.mocks.set_reminder_offsets(ctx.workspace, ctx.user, offsets)
    for mock in ctx.uow.mocks.for_user(ctx.workspace, ctx.user, (SCHEDULED,)):
        if mock.accepted(ctx.user.id):
            plan_reminders(ctx.uow, mock, ctx.user, ctx.now)
    said = ", ".join(in_words(timedelta(minutes=m)) for m in offsets)
    return _text(ctx, f"Mock reminders: {said} before." if offsets else "Mock reminders are off.")


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
}


def mock_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock SUBCOMMAND …``."""
    sub, _, rest = args.strip().partition(" ")
    handler = _SUBCOMMANDS.get(sub.lower())
    if handler is None:
        if sub:
            raise UserError(f"/mock has no {sub[:20]!r}. {USAGE}")
        return _text(ctx, USAGE)
    return handler(ctx, rest.strip())


def mock_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons and forms: ``mock:<id>:accept|decline``, ``mock:<id>:<round>:form|submit``,
    ``mock:<id>:<round>:v:<vote>``, ``mock:<id>:<round>:note|notesubmit``."""
    if len(parts) < 3 or not parts[1].isdigit():
        raise UserError("That button is no longer valid.")
    if len(parts) == 3 and parts[2] in ("accept", "decline"):
        return (accept if parts[2] == "accept" else decline)(ctx, parts[1])
    if len(parts) < 4 or not parts[2].isdigit():
        raise UserError("That button is no longer valid.")
    mock = _own(ctx, parts[1], lock=True)
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

"""The running mock, a state machine driven by its ``next_at`` and its candidate's answers.

At the start the bot opens a thread in the channel the mock was scheduled from (or the
candidate's DM, when it was scheduled in a DM) with the first round's question. The
candidate answers as people do in chat, in several messages (in the thread, ``/answer`` or
the Answer form): each one is added to the round's answer (:func:`answer_round`), and the
round closes when the candidate says ``done`` (or ``next``, or presses Done) or when its time
box ends, whichever comes first (:func:`finish_round`). Then what they wrote, all of it, is
graded on the question's rubric and the next round follows. A round whose time box passes
with nothing written is closed unanswered and the loop moves on. With a peer, the
interviewer gets each round's rubric and model answer by DM, with vote buttons and a note
form, and the candidate's whole answer when the round closes; after the last round the
scorecard waits for missing votes (at most ``DEBRIEF_WAIT``). The statuses are drawn in
:mod:`bot.core.mock.model`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Final

from bot.core.answers import AnswerKind, AnswerTo, RecordedAnswer, grade_answer, record_answer
from bot.core.bank import QuestionBank
from bot.core.context import Context, Services, on_behalf_of
from bot.core.errors import UserError
from bot.core.grading import MAX_ANSWER_CHARS, Grade
from bot.core.messages import (
    Button,
    ButtonStyle,
    Card,
    Field,
    Outgoing,
)
from bot.core.mock.common import (
    STATUS_WORDS,
    describe,
    dm,
    people,
    post,
    text_reply,
    user_by_id,
    zone_of,
)
from bot.core.mock.followup import review_missed
from bot.core.mock.model import (
    ABANDONED,
    ANSWERED,
    CANCELLED,
    DEBRIEF,
    DONE,
    EXPIRED,
    MISSED,
    MOCKS,
    PROPOSED,
    ROUND_TITLES,
    RUNNING,
    SCHEDULED,
    STOPPED,
    TIMED_OUT,
    UPCOMING,
    VOTES,
    Mock,
    MockChanges,
    Round,
    RoundResult,
)
from bot.core.mock.questions import pick_rounds, weak_for
from bot.core.mock.scorecard import scorecard_card
from bot.core.mock.times import (
    in_words,
    show,
)
from bot.core.model import CHANNELS, Channel, User, Workspace
from bot.core.ports import UnitOfWork

LATE_START_LIMIT = timedelta(minutes=30)  # a start missed by more is not run out of the blue
ANSWER_GRACE = timedelta(seconds=30)  # an answer sent as the box closes still counts
DEBRIEF_WAIT = timedelta(minutes=15)  # how long the scorecard waits for missing votes
# A message that only says the candidate has finished the round's answer.
_DONE: Final = re.compile(
    r"(?:done|next|finished|that'?s (?:it|all)|that is (?:it|all))[.!]*", re.I
)


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
    candidate, _ = people(uow, workspace, mock)
    return Card(
        title=(
            f"Mock #{mock.id} · round {r.position + 1} of {mock.rounds_total} · "
            f"{ROUND_TITLES.get(r.kind, r.kind)} ({r.topic})"
        ),
        blocks=(*intro, *_round_blocks(bank, mock, r, zone_of(candidate, workspace), ends_at)),
        buttons=(
            Button("Answer", f"mock:{mock.id}:{r.position}:form", ButtonStyle.PRIMARY),
            Button("Done", f"mock:{mock.id}:{r.position}:done"),
        ),
        footer=(
            f"{candidate.display}: answer here or with /answer TEXT, in as many messages as "
            "you like, and say done (or press Done) when you have finished; when the time box "
            "ends, what you wrote is your answer."
        ),
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
    interviewer = user_by_id(uow, workspace, mock.interviewer_id)
    if interviewer is None or not mock.has_interviewer:
        return
    question = bank.get(r.question_id)
    if question is None:
        return
    rubric = "\n".join(f"• {p.point} (weight {p.weight:g})" for p in question.rubric)
    fields = [Field("Rubric", rubric or "(none)", inline=False)]
    if question.model_answer:
        fields.append(Field("Model answer", question.model_answer, inline=False))
    dm(
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
    candidate, interviewer = people(uow, workspace, mock)
    if late > LATE_START_LIMIT:
        changed = uow[MOCKS].change(
            mock, MockChanges(status=MISSED, clear_next=True), now, expect_status=SCHEDULED
        )
        if changed is None:
            return 0
        uow[MOCKS].cancel_reminders(mock)
        for person in (candidate, interviewer if mock.has_interviewer else None):
            if person is None:
                continue
            dm(
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
    seen = uow[MOCKS].question_ids_seen(workspace, candidate)
    weak = weak_for(uow, services.bank, workspace, candidate, mock.format) if mock.focus else []
    planned = pick_rounds(services.bank, mock, seen, [t for t, _mean in weak])
    if len(planned) < mock.rounds_total:
        changed = uow[MOCKS].change(
            mock, MockChanges(status=CANCELLED, clear_next=True), now, expect_status=SCHEDULED
        )
        if changed is not None:
            uow[MOCKS].cancel_reminders(mock)
            dm(
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
    changed = uow[MOCKS].change(
        mock,
        MockChanges(status=RUNNING, position=0, started_at=now, next_at=ends + ANSWER_GRACE),
        now,
        expect_status=SCHEDULED,
    )
    if changed is None:
        return 0
    uow[MOCKS].add_rounds(changed, planned)
    uow[MOCKS].start_round(changed, 0, now, ends)
    uow[MOCKS].cancel_reminders(changed)  # any still unsent are moot once it runs
    intro = [
        f"Mock interview #{mock.id} for {candidate.display}: {describe(mock)}.",
    ]
    if weak:
        intro.append("Focus: your weakest topics, " + ", ".join(t for t, _m in weak) + ".")
    elif mock.focus:
        intro.append("Focus on weak topics: no weak topic yet, so the questions are as usual.")
    if changed.has_interviewer and interviewer is not None:
        intro.append(f"{interviewer.display} interviews and scores each round.")
    elif interviewer is not None:
        intro.append(f"{interviewer.display} did not accept, so this one runs solo.")
    if late >= timedelta(minutes=1):
        intro.append(f"Starting {in_words(late)} late; every round still gets its full time box.")
    first = uow[MOCKS].rounds(changed)[0]
    card = _round_card(uow, services.bank, workspace, changed, first, ends, tuple(intro))
    post(uow, workspace, changed, card, f"mock:{mock.id}:open", now)
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
        moved = uow[MOCKS].change(
            mock,
            MockChanges(position=nxt, next_at=ends + ANSWER_GRACE),
            now,
            expect_status=RUNNING,
            expect_position=position,
        )
        if moved is None:
            return
        uow[MOCKS].start_round(moved, nxt, now, ends)
        r = uow[MOCKS].rounds(moved)[nxt]
        card = _round_card(uow, services.bank, workspace, moved, r, ends, intro)
        post(uow, workspace, moved, card, f"mock:{mock.id}:r{nxt}:ask", now)
        _brief(uow, services.bank, workspace, moved, r, now)
        return
    rounds = uow[MOCKS].rounds(mock)
    missing = [r.position + 1 for r in rounds if r.vote is None]
    if mock.has_interviewer and missing:
        waiting = uow[MOCKS].change(
            mock,
            MockChanges(status=DEBRIEF, position=mock.rounds_total, next_at=now + DEBRIEF_WAIT),
            now,
            expect_status=RUNNING,
            expect_position=position,
        )
        if waiting is None:
            return
        interviewer = user_by_id(uow, workspace, mock.interviewer_id)
        if interviewer is not None:
            listed = ", ".join(str(n) for n in missing)
            dm(
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
        post(
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
    done = uow[MOCKS].change(
        mock,
        MockChanges(status=DONE, clear_next=True, ended_at=now, position=mock.rounds_total),
        now,
        expect_status=mock.status,
    )
    if done is None:
        return
    candidate, interviewer = people(uow, workspace, done)
    rounds = uow[MOCKS].rounds(done)
    card = scorecard_card(
        done,
        rounds,
        services.bank,
        candidate.display,
        interviewer.display if interviewer is not None and done.has_interviewer else None,
        review_missed(uow, services.bank, workspace, candidate, rounds, now),
    )
    for person in (candidate, interviewer if done.has_interviewer else None):
        if person is not None:
            dm(uow, workspace, person, card, f"mock:{mock.id}:scorecard:{person.id}", now)
    if not done.in_dm:
        post(
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


def _abandon(
    uow: UnitOfWork, services: Services, workspace: Workspace, mock: Mock, now: datetime
) -> int:
    """A running mock whose round ended longer ago than the grace (the bot was down): stop
    it rather than post the next round days late, and tell both people, with a scorecard
    of the rounds that ran."""
    stopped = uow[MOCKS].change(
        mock,
        MockChanges(status=ABANDONED, clear_next=True, ended_at=now),
        now,
        expect_status=RUNNING,
        expect_position=mock.position,
    )
    if stopped is None:
        return 0
    uow[MOCKS].close_round(stopped, mock.position, RoundResult(STOPPED, now))
    uow[MOCKS].cancel_reminders(stopped)
    ran = [r for r in uow[MOCKS].rounds(stopped) if r.outcome in (ANSWERED, TIMED_OUT)]
    candidate, interviewer = people(uow, workspace, stopped)
    scoring = interviewer.display if interviewer is not None and stopped.has_interviewer else None
    away_since = mock.next_at or now
    to_review = review_missed(uow, services.bank, workspace, candidate, ran, now)
    for person in (candidate, interviewer if stopped.has_interviewer else None):
        if person is None:
            continue
        said = (
            f"I was away from {show(away_since, zone_of(person, workspace))} until now, so I "
            f"stopped mock #{mock.id} after {len(ran)} of its {mock.rounds_total} rounds "
            f"rather than carry on {in_words(now - away_since)} late. Sorry. "
            "Schedule a new one with /mock schedule WHEN."
        )
        if ran:
            card = scorecard_card(
                stopped, ran, services.bank, candidate.display, scoring, to_review
            )
            card = replace(
                card,
                title=f"Mock #{mock.id} stopped mid-way · scorecard of the rounds that ran",
                blocks=(said, *card.blocks),
            )
        else:
            card = Card(title=f"Mock #{mock.id} stopped mid-way", blocks=(said,))
        dm(uow, workspace, person, card, f"mock:{mock.id}:abandoned:{person.id}", now)
    if not stopped.in_dm:
        post(
            uow,
            workspace,
            stopped,
            Card(
                blocks=(
                    f"Mock #{mock.id} stopped after round {len(ran)}: the bot was away too long "
                    "to carry on. The scorecard of what ran is in your direct messages.",
                )
            ),
            f"mock:{mock.id}:abandoned",
            now,
        )
    return 1


def _time_out(
    uow: UnitOfWork, services: Services, workspace: Workspace, mock: Mock, now: datetime
) -> int:
    if mock.status == DEBRIEF:
        _complete(uow, services, workspace, mock, now)
        return 1
    if mock.next_at is not None and now - mock.next_at > services.grace:
        return _abandon(uow, services, workspace, mock, now)
    position = mock.position
    rounds = uow[MOCKS].rounds(mock)
    current = rounds[position] if position < len(rounds) else None
    if current is not None and current.open and current.answer:
        candidate, _ = people(uow, workspace, mock)
        if _record_gathered(uow, services, workspace, mock, candidate, current, now):
            intro = (
                f"⏱ Round {position + 1}'s time box ended: what {candidate.display} wrote is "
                "the answer. Moving on.",
            )
            _advance(uow, services, workspace, mock, position, now, intro)
            return 1
    closed = uow[MOCKS].close_round(mock, position, RoundResult(TIMED_OUT, now))
    if closed is None:
        return 0
    late = ""
    if closed.ends_at is not None and now - closed.ends_at > timedelta(minutes=1):
        late = " (I was away when it ended)"
    intro = (f"⏱ Round {position + 1}'s time box passed without an answer{late}. Moving on.",)
    _advance(uow, services, workspace, mock, position, now, intro)
    return 1


def _record_gathered(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    mock: Mock,
    candidate: User,
    current: Round,
    now: datetime,
) -> bool:
    """At the end of the time box: grade and record what the candidate wrote in the round,
    as if they had said done; False when it is no answer at all (the round times out)."""
    question = services.bank.get(current.question_id)
    if question is None or not current.answer:
        return False
    channel = uow[CHANNELS].get(workspace, mock.channel_id) if mock.channel_id else None
    if channel is None:  # the channel is gone; recording the answer does not need it
        channel = Channel(0, workspace.id, "", "")
    ctx = on_behalf_of(uow, services, workspace, candidate, channel)
    result = services.grade(question, current.answer)
    if not result.answered:
        return False
    return _record_round(ctx, mock, current, result, now) is not None


def _expire(uow: UnitOfWork, workspace: Workspace, mock: Mock, now: datetime) -> int:
    changed = uow[MOCKS].change(
        mock, MockChanges(status=EXPIRED, clear_next=True), now, expect_status=PROPOSED
    )
    if changed is None:
        return 0
    uow[MOCKS].cancel_reminders(mock)
    for user_id in mock.participants():
        person = user_by_id(uow, workspace, user_id)
        if person is not None:
            dm(
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


def run_step(
    uow: UnitOfWork, services: Services, workspace: Workspace, mock: Mock, now: datetime
) -> int:
    """The mock's next clock-driven step, now that its ``next_at`` has come: expire a
    proposal, start (or give up on a start missed by too long), close a round whose time
    box passed (or stop the mock, when that was longer ago than the grace), end the
    debrief wait. Returns 1 when it did something, else 0."""
    if mock.status == PROPOSED:
        return _expire(uow, workspace, mock, now)
    if mock.status == SCHEDULED:
        return _start(uow, services, workspace, mock, now)
    if mock.status in (RUNNING, DEBRIEF):
        return _time_out(uow, services, workspace, mock, now)
    return 0


def _open_round(ctx: Context, mock: Mock, position: int) -> tuple[Mock, Round]:
    """``mock``, locked until the transaction ends (a message added to the round's answer
    and the done that closes it never cross), and the candidate's open round ``position``;
    UserError otherwise."""
    mock = ctx.uow[MOCKS].get(ctx.workspace, mock.id, lock=True) or mock
    if ctx.user.id != mock.candidate_id:
        raise UserError(f"Only the candidate answers in mock #{mock.id}.")
    if mock.status != RUNNING:
        raise UserError(f"Mock #{mock.id} is {STATUS_WORDS[mock.status]}.")
    rounds = ctx.uow[MOCKS].rounds(mock)
    if position != mock.position or position >= len(rounds) or not rounds[position].open:
        raise UserError(f"Round {position + 1} of mock #{mock.id} is closed.")
    return mock, rounds[position]


def _past_the_box(ctx: Context, mock: Mock, current: Round) -> list[Outgoing] | None:
    """When the round's box (and its grace) ended before this message, close the round now
    (the job runs every few seconds) with what was written before, and say so."""
    if current.ends_at is None or ctx.now <= current.ends_at + ANSWER_GRACE:
        return None
    _time_out(ctx.uow, ctx.services, ctx.workspace, mock, ctx.now)
    kept = (
        "what you wrote before it is your answer" if current.answer else "the round went unanswered"
    )
    return text_reply(
        ctx,
        f"Time's up for round {current.position + 1}: its {mock.round_minutes}-minute box "
        f"closed before this message, so it doesn't count and {kept}. The next round is up.",
    )


def answer_round(ctx: Context, mock: Mock, position: int, text: str) -> list[Outgoing]:
    """One message of the candidate's answer to round ``position``: added to what they wrote
    so far; a message that only says ``done`` (or ``next``) finishes the round instead."""
    if not text.strip():
        raise UserError("Your answer is empty. Say what you would say in the interview.")
    mock, current = _open_round(ctx, mock, position)
    late = _past_the_box(ctx, mock, current)
    if late is not None:
        return late
    if _DONE.fullmatch(text.strip()):
        return finish_round(ctx, mock, position)
    if len(current.answer or "") + len(text.strip()) >= MAX_ANSWER_CHARS:
        raise UserError(
            f"That would make your answer to round {position + 1} longer than "
            f"{MAX_ANSWER_CHARS:,} characters, the most an answer can be: say done to finish "
            "it, or write this part shorter."
        )
    gathered = ctx.uow[MOCKS].add_to_answer(mock, position, text.strip())
    if gathered is None or gathered.answer is None:
        raise UserError(f"Round {position + 1} of mock #{mock.id} just closed.")
    parts = gathered.answer.count("\n") + 1
    words = len(gathered.answer.split())
    ends = (
        f" At {show(current.ends_at, zone_of(ctx.user, ctx.workspace))} the round closes with "
        "what you wrote."
        if current.ends_at is not None
        else ""
    )
    return text_reply(
        ctx,
        f"Round {position + 1}: noted ({parts} message{'s' * (parts != 1)}, {words} "
        f"word{'s' * (words != 1)} so far). Add more, or say done when you have finished.{ends}",
    )


def finish_round(ctx: Context, mock: Mock, position: int) -> list[Outgoing]:
    """The candidate has finished round ``position`` (``done``, or the Done button): grade
    everything they wrote in it on the question's rubric; the next round follows at once."""
    mock, current = _open_round(ctx, mock, position)
    late = _past_the_box(ctx, mock, current)
    if late is not None:
        return late
    if not current.answer:
        raise UserError(
            f"Round {position + 1} has no answer yet: write it, in as many messages as you "
            "like, then say done."
        )
    question = ctx.bank.get(current.question_id)
    if question is None:
        raise UserError("That question left the bank; wait for the next round.")
    result = grade_answer(ctx, question, current.answer)
    recorded = _record_round(ctx, mock, current, result, ctx.now)
    if recorded is None:
        raise UserError(f"Round {position + 1} of mock #{mock.id} just closed.")
    last = position + 1 == mock.rounds_total
    said = (
        f"Round {position + 1} answer recorded: it covers {round(result.score * 100)}% of the "
        f"rubric. {'That was the last round.' if last else 'Next round coming up.'}"
    )
    reply = text_reply(ctx, " ".join(n for n in (said, recorded.streak_note) if n))
    _advance(ctx.uow, ctx.services, ctx.workspace, mock, position, ctx.now)
    return reply


def _record_round(
    ctx: Context, mock: Mock, current: Round, result: Grade, now: datetime
) -> RecordedAnswer | None:
    """Close ``current`` as answered with what the candidate wrote and ``result``, record
    the answer (attempt, streak, review card) and show it to the interviewer; None when the
    round was closed meanwhile."""
    text = current.answer or ""
    question = ctx.bank.get(current.question_id)
    if question is None:
        return None
    closed = ctx.uow[MOCKS].close_round(
        mock,
        current.position,
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
        return None
    recorded = record_answer(
        ctx, text, result, AnswerTo(AnswerKind.MOCK, question, asked_at=current.started_at), now
    )
    interviewer = user_by_id(ctx.uow, ctx.workspace, mock.interviewer_id)
    if interviewer is not None and mock.has_interviewer:
        dm(
            ctx.uow,
            ctx.workspace,
            interviewer,
            Card(
                title=(
                    f"Mock #{mock.id} · round {current.position + 1}: {ctx.user.display}'s answer"
                ),
                blocks=(text,),
                buttons=_vote_buttons(mock, current.position),
            ),
            f"mock:{mock.id}:r{current.position}:answer",
            now,
        )
    return recorded


def _here(ctx: Context, mock: Mock) -> bool:
    """Whether the event happened where ``mock`` runs: its thread, its DM, or its channel."""
    event = ctx.event
    if mock.in_dm:
        return event.is_dm
    ref = ctx.uow[MOCKS].thread_ref(mock)
    if event.thread is not None:
        return ref is not None and event.thread == ref
    return mock.channel_id == ctx.channel.id


def answer_running_mock(ctx: Context, text: str) -> list[Outgoing] | None:
    """Route ``/answer`` and plain text to a running mock's open round when the acting user
    is its candidate and writes where it runs (thread, DM or channel); None otherwise, so
    the quiz or the daily question gets it."""
    for mock in ctx.uow[MOCKS].running_for(ctx.workspace, ctx.user):
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
    rounds = ctx.uow[MOCKS].rounds(mock)
    if not 0 <= position < len(rounds) or rounds[position].started_at is None:
        raise UserError(f"Mock #{mock.id} has no round {position + 1} yet.")
    if note is not None and len(note) > 2000:
        raise UserError("Keep the note under 2,000 characters.")
    ctx.uow[MOCKS].vote(mock, position, vote, note)
    said = []
    if vote is not None:
        said.append(f"vote {VOTES[vote]}")
    if note is not None:
        said.append("note")
    reply = text_reply(
        ctx, f"Round {position + 1} of mock #{mock.id}: {' and '.join(said)} recorded."
    )
    if mock.status == DEBRIEF and all(r.vote is not None for r in ctx.uow[MOCKS].rounds(mock)):
        _complete(ctx.uow, ctx.services, ctx.workspace, mock, ctx.now)
    return reply

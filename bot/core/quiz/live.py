"""Live rounds in a channel (``/quiz live [topic] [n]``).

The bot posts questions in the channel with a countdown; the first correct answer scores
(difficulty-weighted, plus a speed bonus); each person gets one answer per question; the
round ends after n questions or two in a row that nobody answered, with a standings card.
After a question closes (won, or its countdown ran out) the next one comes
``NEXT_QUESTION_GAP`` later, not at once: answers to the closed question that arrive just
after someone won (people answer at nearly the same moment) are told it closed and count
for nothing, instead of being taken as their one answer to a question they have not seen.
Its clock-driven steps are the ``LiveQuizJob``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pytimeparse.timeparse import timeparse as parse_duration

from bot.core.answers import AnswerKind, AnswerTo, grade_answer, record_answer
from bot.core.content import Question
from bot.core.context import Context, Services
from bot.core.daily.answering import points_for
from bot.core.display import displayed, quiz_seed
from bot.core.errors import UserError
from bot.core.grading import Grade
from bot.core.messages import OUTBOX, Card, Delivery, Outgoing, say
from bot.core.model import CHANNELS, USERS, Channel, Workspace
from bot.core.numbers import whole_number
from bot.core.ports import UnitOfWork
from bot.core.quiz.common import (
    QuizRequest,
    answer_form,
    open_session,
    parse_request,
    question_card,
    shuffle_key,
)
from bot.core.quiz.model import DONE, LIVE, OPEN, QUIZZES, NewQuiz, QuizSession

LIVE_SECONDS = 30  # a live question's countdown unless the channel sets its own
LIVE_MIN_SECONDS, LIVE_MAX_SECONDS = 10, 300
LIVE_MAX_MISSES = 2
SPEED_BONUS = 0.5  # an instant answer earns up to half the base points again
NEXT_QUESTION_GAP = timedelta(seconds=5)  # between a question closing and the next one


# -- live rounds -----------------------------------------------------------------------------


def live_seconds(channel: Channel) -> int:
    """How long a live question stays open in ``channel``: its own setting, else the default."""
    return channel.live_seconds or LIVE_SECONDS


def parse_live_seconds(text: str) -> int | None:
    """``/studybot live SECONDS``: a countdown such as ``45``, ``45s`` or ``1m``, within the
    bounds; ``default`` (or ``reset``) gives None. Raises UserError for anything else."""
    value = text.strip().lower()
    if value in ("default", "reset"):
        return None
    seconds = whole_number(value.removesuffix("s").strip(), low=0)
    if seconds is None:  # "1m", "1 min", "90 sec"
        parsed = parse_duration(value) if len(value) <= 20 else None
        if parsed is None or parsed != int(parsed):
            raise UserError(
                f"{text.strip()[:20]!r} is not a number of seconds. "
                f"Try /studybot live 45 (from {LIVE_MIN_SECONDS} to {LIVE_MAX_SECONDS} s)."
            )
        seconds = int(parsed)
    if not LIVE_MIN_SECONDS <= seconds <= LIVE_MAX_SECONDS:
        raise UserError(
            f"A live question can stay open from {LIVE_MIN_SECONDS} to {LIVE_MAX_SECONDS} "
            f"seconds, not {seconds}. Try /studybot live 45."
        )
    return seconds


def describe_live(channel: Channel) -> str:
    """The channel's live-round timing, as settings show it."""
    own = "" if channel.live_seconds else " (the default)"
    return f"Live rounds: {live_seconds(channel)} s a question{own}."


def live_setting(ctx: Context, words: Sequence[str]) -> list[Outgoing]:
    """``/studybot live [SECONDS|default]``: show or (admins) set the channel's countdown."""
    if not words:
        shown = describe_live(ctx.channel)
        return [say(ctx.user.external_id, shown, channel=ctx.channel.external_id)]
    if len(words) > 1 and not (len(words) == 2 and words[1].lower() in ("s", "sec", "seconds")):
        raise UserError(
            f"Usage: /studybot live [SECONDS|default], seconds from {LIVE_MIN_SECONDS} to "
            f"{LIVE_MAX_SECONDS}."
        )
    if not ctx.is_admin:
        raise UserError("Only workspace admins can change a channel's live-round timing.")
    seconds = parse_live_seconds(words[0])
    channel = ctx.uow[CHANNELS].set_live_seconds(ctx.channel, seconds)
    running = ctx.uow[QUIZZES].open_live(ctx.workspace, ctx.channel)
    later = " The round running now keeps its own timing." if running is not None else ""
    return [
        say(
            ctx.user.external_id,
            f"Saved. {describe_live(channel)}{later}",
            channel=ctx.channel.external_id,
        )
    ]


def parse_live(args: str, topics: list[str]) -> QuizRequest:
    request = parse_request(args, topics)
    if request.difficulty is not None:
        raise UserError("Live rounds mix difficulties: /quiz live [TOPIC] [N].")
    return request


def start_live(ctx: Context, args: str) -> list[Outgoing]:
    """Start a live round in the channel and queue its first question."""
    request = parse_live(args, ctx.bank.topics())
    if ctx.event.is_dm:
        raise UserError("Live rounds run in a channel: start one there with /quiz live.")
    running = ctx.uow[QUIZZES].open_live(ctx.workspace, ctx.channel)
    if running is not None:
        raise UserError(
            f"A live round is already running here (question {running.position + 1} of "
            f"{len(running.question_ids)}). Join in: answer with /answer TEXT."
        )
    pool = [
        q
        for q in ctx.bank.all()
        if q.kind != "open" and (request.topic is None or q.topic == request.topic)
    ]
    if not pool:
        raise UserError("No questions fit a live round on that topic. Try another one.")
    now = ctx.now
    seconds = live_seconds(ctx.channel)
    seed = f"{ctx.channel.id}:{now.isoformat()}"
    ids = [q.id for q in sorted(pool, key=lambda q: shuffle_key(seed, q.id))[: request.n]]
    session = ctx.uow[QUIZZES].start(
        ctx.workspace,
        NewQuiz(
            ctx.user,
            ctx.channel,
            LIVE,
            request.topic,
            tuple(ids),
            now,
            now + timedelta(seconds=seconds),
            {"seconds": seconds, "misses": 0},
            f"live:{ctx.channel.id}",
        ),
        now,
    )
    if session is None:
        raise UserError("A live round is already running here. Join in: /answer TEXT.")
    about = f" on {request.topic}" if request.topic else ""
    _post(
        ctx.uow,
        ctx.workspace,
        ctx.channel,
        Card(
            title="Live quiz",
            blocks=(
                f"{ctx.user.display} started a live round{about}: {len(ids)} question"
                f"{'s' * (len(ids) != 1)}, {seconds} s each. The first correct answer "
                "scores, faster scores more; one answer per person per question.",
            ),
        ),
        f"live:{session.id}:start",
        now,
    )
    _post_live_question(ctx.uow, ctx.services, ctx.workspace, ctx.channel, session, now)
    return []


def _post(
    uow: UnitOfWork,
    workspace: Workspace,
    channel: Channel,
    card: Card,
    key: str,
    now: datetime,
    tags: dict[str, str] | None = None,
) -> None:
    message = Outgoing(Delivery.CHANNEL, channel.external_id, card, key=key, tags=tags or {})
    uow[OUTBOX].add(workspace, workspace.platform, message, key, now)


def _post_live_question(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    channel: Channel,
    session: QuizSession,
    now: datetime,
) -> None:
    question = displayed(services.bank.get(session.current or ""), quiz_seed(session.id))
    if question is None:
        return
    seconds = int(session.data.get("seconds", LIVE_SECONDS))
    card = question_card(
        question,
        f"Live quiz · question {session.position + 1} of {len(session.question_ids)}",
        f"live:{session.id}:{session.position}",
        f"First correct answer scores · {seconds} s",
    )
    _post(uow, workspace, channel, card, f"live:{session.id}:{session.position}:ask", now)


def live_points(question: Question, result: Grade, elapsed: float, seconds: float) -> int:
    """Difficulty-weighted points plus a speed bonus of up to ``SPEED_BONUS`` of them."""
    base = points_for(question, result)
    left = max(0.0, min(1.0, 1 - elapsed / seconds)) if seconds > 0 else 0.0
    return base + round(base * SPEED_BONUS * left)


def answer_live(
    ctx: Context, session: QuizSession, answer: str, position: int | None = None
) -> list[Outgoing]:
    """One person's answer to the live question: the first correct one scores and moves on."""
    if position is not None and position != session.position:
        raise UserError("That question is closed.")
    if session.data.get("waiting"):
        raise UserError(
            f"Question {session.position} is closed: the next one comes in a few seconds."
        )
    now = ctx.now
    if session.due_at is not None and now >= session.due_at:
        raise UserError("Time is up for this question.")
    # graded as shown: the copy whose choices are in this round's displayed order
    question = displayed(ctx.bank.get(session.current or ""), quiz_seed(session.id))
    if question is None:
        raise UserError("That question is closed.")
    if any(a.user_id == ctx.user.id for a in ctx.uow[QUIZZES].answers(session, question.id)):
        raise UserError("You already answered this one: wait for the next question.")
    result = grade_answer(ctx, question, answer)
    seconds = float(session.data.get("seconds", LIVE_SECONDS))
    elapsed = (now - session.asked_at).total_seconds() if session.asked_at else seconds
    moved: QuizSession | None = None
    finished = False
    if result.verdict.value == "correct":
        finished = session.position + 1 >= len(session.question_ids)
        moved = _close_question(ctx.uow, session, finished, {**session.data, "misses": 0}, now)
    points = live_points(question, result, elapsed, seconds) if moved is not None else 0
    recorded = record_answer(
        ctx,
        answer,
        result,
        AnswerTo(
            AnswerKind.LIVE,
            question,
            quiz_session_id=session.id,
            asked_at=session.asked_at,
            points=points,
        ),
        now,
    )
    streak = recorded.streak_note
    if moved is None:
        text = (
            "Right, but someone was faster."
            if result.verdict.value == "correct"
            else "Not quite. One answer per question: wait for the next one."
        )
        text = f"{text} {streak}".strip()
        card = Card(blocks=(text,), buttons=recorded.dispute_buttons)
        return [
            Outgoing(Delivery.PRIVATE, ctx.user.external_id, card, channel=ctx.channel.external_id)
        ]
    base = points_for(question, result)
    _post(
        ctx.uow,
        ctx.workspace,
        ctx.channel,
        Card(
            blocks=(
                f"✅ {ctx.user.display} got it in {elapsed:.0f} s: +{points} "
                f"({base} + {points - base} speed bonus).",
                f"The answer: {question.answer_text}.",
            ),
        ),
        f"live:{session.id}:{session.position}:won",
        now,
    )
    if finished:
        _post_standings(ctx.uow, ctx.services, ctx.workspace, ctx.channel, moved, now, "")
    text = f"Correct! +{points} points. {streak}".strip()
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]


def standings(uow: UnitOfWork, workspace: Workspace, session: QuizSession) -> list[str]:
    """Lines of the round's standings: points, then correct answers; ties share a rank."""
    totals: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for attempt in uow[QUIZZES].answers(session):
        t = totals[attempt.user_id]
        t[0] += attempt.points
        t[1] += attempt.points > 0
    names = {}
    for user_id in totals:
        user = uow[USERS].get(workspace, user_id)
        names[user_id] = user.display if user else "someone"
    order = sorted(totals, key=lambda u: (-totals[u][0], -totals[u][1], names[u].casefold()))
    lines: list[str] = []
    rank = 0
    previous: tuple[int, int] | None = None
    for i, user_id in enumerate(order):
        key = (totals[user_id][0], totals[user_id][1])
        if key != previous:
            rank, previous = i + 1, key
        won = totals[user_id][1]
        lines.append(f"{rank}. {names[user_id]} · {totals[user_id][0]} pts · {won} won")
    return lines


def _post_standings(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    channel: Channel,
    session: QuizSession,
    now: datetime,
    why: str,
) -> None:
    lines = standings(uow, workspace, session)
    blocks = [why] if why else []
    blocks.append("\n".join(lines) if lines else "Nobody answered this time.")
    _post(
        uow,
        workspace,
        channel,
        Card(
            title="Live quiz · final standings",
            blocks=tuple(blocks),
            footer="Points count on /leaderboard. Start another round with /quiz live.",
        ),
        f"live:{session.id}:end",
        now,
        {"quiz": str(session.id)},
    )


def time_out(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    channel: Channel,
    session: QuizSession,
    now: datetime,
) -> int:
    """The live round's next clock-driven step: the gap after a question ended (post the
    next one), or the countdown of the question ran out (reveal, then the gap before the
    next question, or the end)."""
    if session.data.get("waiting"):  # the gap is over: post the question, start its countdown
        seconds = int(session.data.get("seconds", LIVE_SECONDS))
        asked = uow[QUIZZES].move(
            session,
            position=session.position,
            asked_at=now,
            due_at=now + timedelta(seconds=seconds),
            data={**session.data, "waiting": False},
            status=OPEN,
            now=now,
        )
        if asked is None:
            return 0
        _post_live_question(uow, services, workspace, channel, asked, now)
        return 1
    question = displayed(services.bank.get(session.current or ""), quiz_seed(session.id))
    answered = bool(uow[QUIZZES].answers(session, session.current)) if session.current else False
    misses = 0 if answered else int(session.data.get("misses", 0)) + 1
    finished = misses >= LIVE_MAX_MISSES or session.position + 1 >= len(session.question_ids)
    moved = _close_question(uow, session, finished, {**session.data, "misses": misses}, now)
    if moved is None:
        return 0
    reveal = f" The answer: {question.answer_text}." if question else ""
    _post(
        uow,
        workspace,
        channel,
        Card(blocks=(f"⏰ Time's up: nobody got it.{reveal}",)),
        f"live:{session.id}:{session.position}:timeout",
        now,
    )
    if finished:
        asked_all = session.position + 1 >= len(session.question_ids)
        # Ending early needs saying why; after the last question the round is simply over.
        why = (
            "Two questions in a row went unanswered, so the round ends here."
            if misses >= LIVE_MAX_MISSES and not asked_all
            else ""
        )
        _post_standings(uow, services, workspace, channel, moved, now, why)
    return 1


def _close_question(
    uow: UnitOfWork, session: QuizSession, finished: bool, data: dict[str, Any], now: datetime
) -> QuizSession | None:
    """Move ``session`` past its current question: to the end, or into the gap before the
    next one (``waiting``, due when the gap is over). None when another answer or worker
    moved it first."""
    gap_over = now + NEXT_QUESTION_GAP
    return uow[QUIZZES].move(
        session,
        position=session.position + 1,
        asked_at=None if finished else gap_over,
        due_at=None if finished else gap_over,
        data={**data, "waiting": not finished},
        status=DONE if finished else OPEN,
        now=now,
    )


@dataclass
class LiveQuizJob:
    """The live rounds' countdowns: each question whose time ran out is closed."""

    name: str = "live-quiz"
    batch: int = field(default=100)

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[QUIZZES].live_next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done = 0
        for workspace, channel, session in uow[QUIZZES].live_due(now)[: self.batch]:
            done += time_out(uow, services, workspace, channel, session, now)
        return done


def live_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons of a live question: ``live:<id>:<position>:<letter>|form|submit``."""
    if len(parts) != 4 or whole_number(parts[2]) is None:
        raise UserError("That button is no longer valid.")
    session = open_session(ctx, parts[1])
    if session.mode != LIVE or session.channel_id != ctx.channel.id:
        raise UserError("That button is no longer valid.")
    position = int(parts[2])
    if parts[3] == "form":
        if position != session.position:
            raise UserError("That question is closed.")
        question = ctx.bank.get(session.current or "")
        return answer_form(ctx, question, f"live:{session.id}:{position}:submit")
    answer = text if parts[3] == "submit" else parts[3]
    return answer_live(ctx, session, answer, position)

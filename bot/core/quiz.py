"""Quizzes: personal ones driven by spaced repetition, and live rounds in a channel.

A personal quiz (``/quiz [topic] [n] [difficulty]``, ``/review``) is private: one
question at a time, each graded with feedback as it is answered, then a
summary. It picks due reviews first, then weak topics, then new questions.
Personal practice counts for streaks and mastery, never for the boards.

A live round (``/quiz live [topic] [n]``) posts questions in the channel with a
countdown; the first correct answer scores (difficulty-weighted, plus a speed
bonus); each person gets one answer per question; the round ends after n
questions or two in a row that nobody answered, with a standings card. Its
clock-driven steps are the ``LiveQuizJob``; all state lives in ``quiz_session``,
so a quiz survives a restart.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from rapidfuzz import process, utils

from bot.core import daily, srs
from bot.core.answers import AnswerKind, AnswerTo, grade_answer, record_answer
from bot.core.content import Question
from bot.core.context import Context, Services
from bot.core.errors import UserError
from bot.core.grading import Grade
from bot.core.messages import Button, ButtonStyle, Card, Delivery, Form, Outgoing, say
from bot.core.model import Attempt, Channel, User, Workspace
from bot.core.ports import UnitOfWork

DEFAULT_N = 5
MAX_N = 20
LIVE_SECONDS = 30
LIVE_MAX_MISSES = 2
SPEED_BONUS = 0.5  # an instant answer earns up to half the base points again
WEAK_TOPIC = 0.7  # topics whose mean score is below this are weak
DIFFICULTY_WORDS = {"easy": 1, "medium": 2, "hard": 3}
ANY_TOPIC = {"any", "all", "mixed"}
VERDICT_MARK = {"correct": "✅", "partial": "🟡", "incorrect": "❌"}
HOW = {
    "choice": "Pick a letter",
    "multi": "Answer with every right letter, e.g. A, C",
    "numeric": "Answer with a number and its unit",
    "short": "Answer in a word or two",
    "open": "Answer in a few sentences",
}
_INT = re.compile(r"^[+-]?\d+$")

PERSONAL, REVIEW, LIVE = "personal", "review", "live"
OPEN, DONE, ABANDONED = "open", "done", "abandoned"


@dataclass(frozen=True, slots=True)
class QuizSession:
    """A quiz in progress or finished. ``position`` is the question being asked."""

    id: int
    workspace_id: int
    user_id: int | None
    channel_id: int
    mode: str
    status: str
    topic: str | None
    question_ids: tuple[str, ...]
    position: int
    asked_at: datetime | None
    due_at: datetime | None
    data: dict[str, Any]
    started_at: datetime

    @property
    def current(self) -> str | None:
        return self.question_ids[self.position] if self.position < len(self.question_ids) else None


@dataclass(frozen=True, slots=True)
class NewQuiz:
    user: User | None
    channel: Channel
    mode: str
    topic: str | None
    question_ids: tuple[str, ...]
    asked_at: datetime
    due_at: datetime | None
    data: dict[str, Any]
    open_key: str


class QuizRepository(Protocol):
    def open_for_user(self, workspace: Workspace, user: User) -> QuizSession | None:
        """The user's open personal quiz (or review), if any."""
        ...

    def open_live(self, workspace: Workspace, channel: Channel) -> QuizSession | None: ...

    def get(self, workspace: Workspace, session_id: int) -> QuizSession | None: ...

    def start(self, workspace: Workspace, quiz: NewQuiz, now: datetime) -> QuizSession | None:
        """Store a new open quiz; None if one with the same ``open_key`` is open already
        (one personal quiz per user, one live round per channel)."""
        ...

    def move(
        self,
        session: QuizSession,
        *,
        position: int,
        asked_at: datetime | None,
        due_at: datetime | None,
        data: dict[str, Any],
        status: str,
        now: datetime,
    ) -> QuizSession | None:
        """Compare-and-set: update ``session`` only if it is still open at the same position
        (another answer or worker may have moved it); None when it was not."""
        ...

    def live_next_due(self) -> datetime | None: ...

    def live_due(self, now: datetime) -> list[tuple[Workspace, Channel, QuizSession]]:
        """Open live rounds whose current question's countdown has run out."""
        ...

    def answers(self, session: QuizSession, question_id: str | None = None) -> list[Attempt]:
        """Attempts recorded in ``session`` (at one question when ``question_id``), in order."""
        ...


@dataclass(frozen=True, slots=True)
class QuizRequest:
    topic: str | None = None
    n: int = DEFAULT_N
    difficulty: int | None = None


# -- parsing ---------------------------------------------------------------------------------


def _topic_or_error(word: str, topics: list[str]) -> str:
    by_fold = {t.casefold(): t for t in topics}
    found = by_fold.get(word.casefold())
    if found is not None:
        return found
    match = (
        process.extractOne(word, topics, processor=utils.default_process, score_cutoff=50)
        if topics
        else None
    )
    hint = f" Did you mean {match[0]}?" if match else ""
    shown = word if len(word) <= 40 else word[:40] + "…"
    raise UserError(f"There is no topic {shown!r}.{hint} Topics: {', '.join(topics)}.")


def parse_request(args: str, topics: list[str], *, default_n: int = DEFAULT_N) -> QuizRequest:
    """``[topic] [n] [difficulty]`` in any order: the first number is n (1–20), a second
    number or easy/medium/hard the difficulty. Raises UserError for anything else."""
    numbers: list[int] = []
    difficulty: int | None = None
    words: list[str] = []
    any_topic = False
    for token in args.split():
        low = token.lower()
        if _INT.match(token):
            numbers.append(int(token))
        elif low in DIFFICULTY_WORDS:
            if difficulty is not None:
                raise UserError("Give one difficulty: easy, medium or hard.")
            difficulty = DIFFICULTY_WORDS[low]
        elif low in ANY_TOPIC:
            any_topic = True
        else:
            words.append(token)
    if len(numbers) > 2 or (len(numbers) == 2 and difficulty is not None):
        raise UserError("Usage: /quiz [TOPIC] [N] [DIFFICULTY], e.g. /quiz mig 5 hard.")
    n = numbers[0] if numbers else default_n
    if not 1 <= n <= MAX_N:
        raise UserError(f"Pick between 1 and {MAX_N} questions (you asked for {n:,}"[:80] + ").")
    if len(numbers) == 2:
        difficulty = numbers[1]
        if not 1 <= difficulty <= 3:
            raise UserError("Difficulty is 1 (easy), 2 (medium) or 3 (hard).")
    topic = None
    if words:
        if any_topic:
            raise UserError("Give one topic, or none for a mix.")
        topic = _topic_or_error("-".join(words), topics)
    return QuizRequest(topic, n, difficulty)


# -- questions -------------------------------------------------------------------------------


def _shuffle_key(seed: str, question_id: str) -> str:
    return hashlib.sha256(f"{seed}:{question_id}".encode()).hexdigest()


def topic_scores(ctx: Context, user: User) -> dict[str, tuple[float, int, int]]:
    """Per topic: (mean score, answers, correct answers) of ``user``."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0, 0])
    for question_id, count, score_sum, correct in ctx.uow.stats.answers_by_question(
        ctx.workspace, user
    ):
        question = ctx.bank.get(question_id)
        if question is None:
            continue
        t = totals[question.topic]
        t[0] += score_sum
        t[1] += count
        t[2] += correct
    return {topic: (t[0] / t[1], int(t[1]), int(t[2])) for topic, t in totals.items() if t[1]}


def pick_questions(ctx: Context, request: QuizRequest, *, due_only: bool = False) -> list[str]:
    """Due reviews first (earliest due first), then weak topics (weakest first), then new
    questions; then anything else, so that the quiz has ``n`` questions when it can."""
    pool = [
        q
        for q in ctx.bank.all()
        if (request.topic is None or q.topic == request.topic)
        and (request.difficulty is None or q.difficulty == request.difficulty)
    ]
    cards = {c.question_id: c for c in ctx.uow.reviews.for_user(ctx.workspace, ctx.user)}
    now = ctx.now
    seed = f"{ctx.user.id}:{now.date().isoformat()}"
    due = sorted(
        (q for q in pool if q.id in cards and cards[q.id].due_at <= now),
        key=lambda q: (cards[q.id].due_at, q.id),
    )
    if due_only:
        return [q.id for q in due[: request.n]]
    scores = topic_scores(ctx, ctx.user)
    weak = {t: s[0] for t, s in scores.items() if s[0] < WEAK_TOPIC}
    chosen = {q.id for q in due}
    weak_qs = sorted(
        (q for q in pool if q.topic in weak and q.id not in chosen),
        key=lambda q: (weak[q.topic], q.id in cards, _shuffle_key(seed, q.id)),
    )
    chosen |= {q.id for q in weak_qs}
    new = sorted(
        (q for q in pool if q.id not in cards and q.id not in chosen),
        key=lambda q: _shuffle_key(seed, q.id),
    )
    chosen |= {q.id for q in new}
    rest = sorted((q for q in pool if q.id not in chosen), key=lambda q: (cards[q.id].due_at, q.id))
    return [q.id for q in [*due, *weak_qs, *new, *rest][: request.n]]


def _choices_block(question: Question) -> str:
    return "\n".join(f"{chr(ord('A') + i)}) {text}" for i, text in enumerate(question.choices))


def question_card(
    question: Question, title: str, action_prefix: str, footer_extra: str = ""
) -> Card:
    """A question with its choices; choice questions get letter buttons, others a form."""
    blocks = [question.prompt]
    buttons: list[Button] = []
    if question.kind in ("choice", "multi"):
        blocks.append(_choices_block(question))
        if question.kind == "choice":
            buttons = [
                Button(chr(ord("A") + i), f"{action_prefix}:{chr(ord('A') + i)}")
                for i in range(len(question.choices))
            ]
    if question.kind != "choice":
        buttons.append(Button("Answer", f"{action_prefix}:form", ButtonStyle.PRIMARY))
    footer = (
        f"{HOW[question.kind]}: /answer TEXT · {question.topic} · difficulty {question.difficulty}"
    )
    if footer_extra:
        footer = f"{footer_extra} · {footer}"
    return Card(title=title, blocks=tuple(blocks), buttons=tuple(buttons), footer=footer)


def _private(ctx: Context, card: Card) -> Outgoing:
    return Outgoing(Delivery.PRIVATE, ctx.user.external_id, card, channel=ctx.channel.external_id)


def _form(ctx: Context, question: Question | None, action: str) -> list[Outgoing]:
    label = question.prompt[:45] if question else "Your answer"
    form = Form(title="Your answer", label=label, action=action)
    return [
        Outgoing(
            Delivery.MODAL,
            ctx.user.external_id,
            Card(title="Your answer"),
            channel=ctx.channel.external_id,
            form=form,
        )
    ]


# -- personal quizzes ------------------------------------------------------------------------


def _personal_question(ctx: Context, session: QuizSession) -> Outgoing:
    question = ctx.bank.get(session.current or "")
    if question is None:
        raise UserError("That question is no longer in the bank. Type /quiz abandon.")
    label = "Review" if session.mode == REVIEW else "Quiz"
    title = f"{label} · question {session.position + 1} of {len(session.question_ids)}"
    return _private(ctx, question_card(question, title, f"quiz:{session.id}:{session.position}"))


def _offer(ctx: Context, session: QuizSession) -> list[Outgoing]:
    what = "review" if session.mode == REVIEW else "quiz"
    about = f" on {session.topic}" if session.topic else ""
    card = Card(
        title=f"You have a {what} open",
        blocks=(
            f"Question {session.position + 1} of {len(session.question_ids)}{about}, "
            f"started {session.started_at.astimezone(ctx.user_zone):%a %d %b %H:%M}.",
            "Resume it or abandon it: /quiz resume or /quiz abandon.",
        ),
        buttons=(
            Button("Resume", f"quiz:{session.id}:resume", ButtonStyle.PRIMARY),
            Button("Abandon", f"quiz:{session.id}:abandon", ButtonStyle.DANGER),
        ),
    )
    return [_private(ctx, card)]


def _start_personal(
    ctx: Context, request: QuizRequest, mode: str, question_ids: list[str]
) -> list[Outgoing]:
    now = ctx.now
    session = ctx.uow.quizzes.start(
        ctx.workspace,
        NewQuiz(
            ctx.user,
            ctx.channel,
            mode,
            request.topic,
            tuple(question_ids),
            now,
            None,
            {"results": [], "difficulty": request.difficulty},
            f"user:{ctx.user.id}",
        ),
        now,
    )
    if session is None:
        existing = ctx.uow.quizzes.open_for_user(ctx.workspace, ctx.user)
        if existing is None:
            raise UserError("Your quiz could not be started; please try again.")
        return _offer(ctx, existing)
    replies: list[Outgoing] = []
    if mode == PERSONAL and len(question_ids) < request.n:
        replies.append(
            say(
                ctx.user.external_id,
                f"Only {len(question_ids)} question{'s' * (len(question_ids) != 1)} "
                f"match, so this quiz is that long.",
                channel=ctx.channel.external_id,
            )
        )
    replies.append(_personal_question(ctx, session))
    return replies


def quiz_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/quiz [topic] [n] [difficulty]``, ``/quiz live [topic] [n]``,
    ``/quiz resume`` and ``/quiz abandon``."""
    words = args.split()
    head = words[0].lower() if words else ""
    if head == "live":
        return start_live(ctx, " ".join(words[1:]))
    if head in ("resume", "abandon") and len(words) == 1:
        session = ctx.uow.quizzes.open_for_user(ctx.workspace, ctx.user)
        if session is None:
            raise UserError("You have no quiz open. Start one with /quiz.")
        return resume(ctx, session) if head == "resume" else abandon(ctx, session)
    request = parse_request(args, ctx.bank.topics())
    session = ctx.uow.quizzes.open_for_user(ctx.workspace, ctx.user)
    if session is not None:
        return _offer(ctx, session)
    question_ids = pick_questions(ctx, request)
    if not question_ids:
        raise UserError("No questions match that. Try another topic or difficulty.")
    return _start_personal(ctx, request, PERSONAL, question_ids)


def review_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/review [topic] [n]``: a personal quiz of the cards that are due."""
    request = parse_request(args, ctx.bank.topics(), default_n=MAX_N)
    session = ctx.uow.quizzes.open_for_user(ctx.workspace, ctx.user)
    if session is not None:
        return _offer(ctx, session)
    question_ids = pick_questions(ctx, request, due_only=True)
    if not question_ids:
        cards = ctx.uow.reviews.for_user(ctx.workspace, ctx.user)
        if not cards:
            raise UserError("Nothing to review yet: take a /quiz first.")
        upcoming = min(c.due_at for c in cards)
        when = srs.describe_due(upcoming, ctx.now, ctx.user_zone)
        raise UserError(f"Nothing is due. Your next review is {when}.")
    return _start_personal(ctx, request, REVIEW, question_ids)


def resume(ctx: Context, session: QuizSession) -> list[Outgoing]:
    return [_personal_question(ctx, session)]


def abandon(ctx: Context, session: QuizSession) -> list[Outgoing]:
    moved = ctx.uow.quizzes.move(
        session,
        position=session.position,
        asked_at=session.asked_at,
        due_at=None,
        data=session.data,
        status=ABANDONED,
        now=ctx.now,
    )
    if moved is None:
        raise UserError("That quiz is already over.")
    return [
        say(
            ctx.user.external_id,
            f"Quiz abandoned after {session.position} of {len(session.question_ids)} "
            "questions. What you answered still counts for your reviews.",
            channel=ctx.channel.external_id,
        )
    ]


def answer_personal(
    ctx: Context, session: QuizSession, answer: str, position: int | None = None
) -> list[Outgoing]:
    """Grade the answer to the quiz's current question; then the next question or the summary."""
    if position is not None and position != session.position:
        raise UserError("That question is already answered. Type /quiz resume to continue.")
    question = ctx.bank.get(session.current or "")
    if question is None:
        raise UserError("That question is no longer in the bank. Type /quiz abandon.")
    result = grade_answer(ctx, question, answer)
    now = ctx.now
    recorded = record_answer(
        ctx,
        answer,
        result,
        AnswerTo(
            AnswerKind.QUIZ, question, quiz_session_id=session.id, asked_at=session.asked_at
        ),
        now,
    )
    card, streak = recorded.card, recorded.streak_note
    assert card is not None  # quiz answers always move their review card
    results = [
        *session.data.get("results", []),
        {"q": question.id, "score": result.score, "verdict": result.verdict.value},
    ]
    finished = session.position + 1 >= len(session.question_ids)
    moved = ctx.uow.quizzes.move(
        session,
        position=session.position + 1,
        asked_at=now,
        due_at=None,
        data={**session.data, "results": results},
        status=DONE if finished else OPEN,
        now=now,
    )
    if moved is None:
        raise UserError("That question is already answered. Type /quiz resume to continue.")
    mark = VERDICT_MARK[result.verdict.value]
    feedback = Card(
        title=f"Question {session.position + 1} of {len(session.question_ids)}",
        blocks=(
            f"{mark} {result.verdict.value.capitalize()} ({round(result.score * 100)}%)",
            result.feedback,
            *((streak,) if streak else ()),
        ),
        footer=f"Next review: {srs.describe_due(card.due_at, now, ctx.user_zone)}",
    )
    replies = [_private(ctx, feedback)]
    replies.append(_summary(ctx, moved) if finished else _personal_question(ctx, moved))
    return replies


def _summary(ctx: Context, session: QuizSession) -> Outgoing:
    results: list[dict[str, Any]] = session.data.get("results", [])
    correct = sum(1 for r in results if r["verdict"] == "correct")
    mean = sum(float(r["score"]) for r in results) / len(results) if results else 0.0
    by_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    review_lines: list[str] = []
    for r in results:
        question = ctx.bank.get(r["q"])
        topic = question.topic if question else "?"
        by_topic[topic][1] += 1
        if r["verdict"] == "correct":
            by_topic[topic][0] += 1
        elif question is not None:
            prompt = question.prompt if len(question.prompt) <= 70 else question.prompt[:69] + "…"
            review_lines.append(f"• {prompt} ({topic})")
    blocks = [
        f"Score: {correct}/{len(results)} correct · {round(mean * 100)}%",
        "By topic: " + " · ".join(f"{t} {c}/{n}" for t, (c, n) in sorted(by_topic.items())),
    ]
    if review_lines:
        blocks.append("To review:\n" + "\n".join(review_lines))
    else:
        blocks.append("Nothing to review: all correct.")
    due = ctx.uow.reviews.count_due(ctx.workspace, ctx.user, ctx.now)
    cards = ctx.uow.reviews.for_user(ctx.workspace, ctx.user)
    upcoming = min((c.due_at for c in cards if c.due_at > ctx.now), default=None)
    if due:
        footer = f"{due} review{'s' * (due != 1)} due now: /review"
    elif upcoming is not None:
        footer = f"Next review {srs.describe_due(upcoming, ctx.now, ctx.user_zone)}: /review"
    else:
        footer = "Practice counts for your streak and mastery, not for the leaderboard."
    label = "Review" if session.mode == REVIEW else "Quiz"
    return _private(ctx, Card(title=f"{label} done", blocks=tuple(blocks), footer=footer))


# -- live rounds -----------------------------------------------------------------------------


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
    running = ctx.uow.quizzes.open_live(ctx.workspace, ctx.channel)
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
    seed = f"{ctx.channel.id}:{now.isoformat()}"
    ids = [q.id for q in sorted(pool, key=lambda q: _shuffle_key(seed, q.id))[: request.n]]
    session = ctx.uow.quizzes.start(
        ctx.workspace,
        NewQuiz(
            ctx.user,
            ctx.channel,
            LIVE,
            request.topic,
            tuple(ids),
            now,
            now + timedelta(seconds=LIVE_SECONDS),
            {"seconds": LIVE_SECONDS, "misses": 0},
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
                f"{'s' * (len(ids) != 1)}, {LIVE_SECONDS} s each. The first correct answer "
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
    uow.outbox.add(workspace, workspace.platform, message, key, now)


def _post_live_question(
    uow: UnitOfWork,
    services: Services,
    workspace: Workspace,
    channel: Channel,
    session: QuizSession,
    now: datetime,
) -> None:
    question = services.bank.get(session.current or "")
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
    base = daily.points_for(question, result)
    left = max(0.0, min(1.0, 1 - elapsed / seconds)) if seconds > 0 else 0.0
    return base + round(base * SPEED_BONUS * left)


def answer_live(
    ctx: Context, session: QuizSession, answer: str, position: int | None = None
) -> list[Outgoing]:
    """One person's answer to the live question: the first correct one scores and moves on."""
    if position is not None and position != session.position:
        raise UserError("That question is closed.")
    now = ctx.now
    if session.due_at is not None and now >= session.due_at:
        raise UserError("Time is up for this question.")
    question = ctx.bank.get(session.current or "")
    if question is None:
        raise UserError("That question is closed.")
    if any(a.user_id == ctx.user.id for a in ctx.uow.quizzes.answers(session, question.id)):
        raise UserError("You already answered this one: wait for the next question.")
    result = grade_answer(ctx, question, answer)
    seconds = float(session.data.get("seconds", LIVE_SECONDS))
    elapsed = (now - session.asked_at).total_seconds() if session.asked_at else seconds
    moved: QuizSession | None = None
    finished = False
    if result.verdict.value == "correct":
        finished = session.position + 1 >= len(session.question_ids)
        moved = ctx.uow.quizzes.move(
            session,
            position=session.position + 1,
            asked_at=now,
            due_at=None if finished else now + timedelta(seconds=seconds),
            data={**session.data, "misses": 0},
            status=DONE if finished else OPEN,
            now=now,
        )
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
        return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]
    base = daily.points_for(question, result)
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
    else:
        _post_live_question(ctx.uow, ctx.services, ctx.workspace, ctx.channel, moved, now)
    text = f"Correct! +{points} points. {streak}".strip()
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]


def standings(uow: UnitOfWork, workspace: Workspace, session: QuizSession) -> list[str]:
    """Lines of the round's standings: points, then correct answers; ties share a rank."""
    totals: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for attempt in uow.quizzes.answers(session):
        t = totals[attempt.user_id]
        t[0] += attempt.points
        t[1] += attempt.points > 0
    names = {}
    for user_id in totals:
        user = uow.users.get(workspace, user_id)
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
    """The countdown of the live question ran out: reveal, then the next question or the end."""
    question = services.bank.get(session.current or "")
    answered = bool(uow.quizzes.answers(session, session.current)) if session.current else False
    misses = 0 if answered else int(session.data.get("misses", 0)) + 1
    seconds = int(session.data.get("seconds", LIVE_SECONDS))
    finished = misses >= LIVE_MAX_MISSES or session.position + 1 >= len(session.question_ids)
    moved = uow.quizzes.move(
        session,
        position=session.position + 1,
        asked_at=now,
        due_at=None if finished else now + timedelta(seconds=seconds),
        data={**session.data, "misses": misses},
        status=DONE if finished else OPEN,
        now=now,
    )
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
        why = (
            "Two questions in a row went unanswered, so the round ends here."
            if misses >= LIVE_MAX_MISSES
            else ""
        )
        _post_standings(uow, services, workspace, channel, moved, now, why)
    else:
        _post_live_question(uow, services, workspace, channel, moved, now)
    return 1


@dataclass
class LiveQuizJob:
    """The live rounds' countdowns: each question whose time ran out is closed."""

    name: str = "live-quiz"
    batch: int = field(default=100)

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow.quizzes.live_next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done = 0
        for workspace, channel, session in uow.quizzes.live_due(now)[: self.batch]:
            done += time_out(uow, services, workspace, channel, session, now)
        return done


# -- buttons ---------------------------------------------------------------------------------


def _session_from(ctx: Context, raw: str) -> QuizSession:
    if not raw.isdigit():
        raise UserError("That button is no longer valid.")
    session = ctx.uow.quizzes.get(ctx.workspace, int(raw))
    if session is None or session.status != OPEN:
        raise UserError("That quiz is over.")
    return session


def quiz_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons of a personal quiz: ``quiz:<id>:resume|abandon`` and
    ``quiz:<id>:<position>:<letter>|form|submit``."""
    if len(parts) == 3 and parts[2] in ("resume", "abandon"):
        session = _session_from(ctx, parts[1])
        if session.user_id != ctx.user.id:
            raise UserError("That is someone else's quiz.")
        return resume(ctx, session) if parts[2] == "resume" else abandon(ctx, session)
    if len(parts) != 4 or not parts[2].isdigit():
        raise UserError("That button is no longer valid.")
    session = _session_from(ctx, parts[1])
    if session.user_id != ctx.user.id:
        raise UserError("That is someone else's quiz.")
    position = int(parts[2])
    if parts[3] == "form":
        if position != session.position:
            raise UserError("That question is already answered.")
        question = ctx.bank.get(session.current or "")
        return _form(ctx, question, f"quiz:{session.id}:{position}:submit")
    answer = text if parts[3] == "submit" else parts[3]
    return answer_personal(ctx, session, answer, position)


def live_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons of a live question: ``live:<id>:<position>:<letter>|form|submit``."""
    if len(parts) != 4 or not parts[2].isdigit():
        raise UserError("That button is no longer valid.")
    session = _session_from(ctx, parts[1])
    if session.mode != LIVE or session.channel_id != ctx.channel.id:
        raise UserError("That button is no longer valid.")
    position = int(parts[2])
    if parts[3] == "form":
        if position != session.position:
            raise UserError("That question is closed.")
        question = ctx.bank.get(session.current or "")
        return _form(ctx, question, f"live:{session.id}:{position}:submit")
    answer = text if parts[3] == "submit" else parts[3]
    return answer_live(ctx, session, answer, position)

"""Personal quizzes (``/quiz [topic] [n] [difficulty]``) and reviews (``/review``).

Private: one question at a time, each graded with feedback as it is answered, then a
summary. It picks due reviews first, then weak topics, then new questions. Personal
practice counts for streaks and mastery, never for the boards.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from bot.core import goal, srs
from bot.core.answers import AnswerKind, AnswerTo, grade_answer, record_answer
from bot.core.context import Context
from bot.core.display import displayed, quiz_seed
from bot.core.errors import UserError
from bot.core.mastery import weakest_topics
from bot.core.messages import Button, ButtonStyle, Card, Outgoing, say
from bot.core.numbers import whole_number
from bot.core.quiz.common import (
    MAX_N,
    VERDICT_MARK,
    QuizRequest,
    answer_form,
    open_session,
    parse_request,
    private,
    question_card,
    shuffle_key,
)
from bot.core.quiz.live import start_live
from bot.core.quiz.model import (
    ABANDONED,
    DONE,
    OPEN,
    PERSONAL,
    QUIZZES,
    REVIEW,
    NewQuiz,
    QuizSession,
)
from bot.core.reviews import (
    SUBCOMMANDS,
    card_buttons,
    leech_notice,
    review_plan,
    review_settings_command,
)
from bot.core.srs import REVIEWS


def pick_questions(ctx: Context, request: QuizRequest, *, due_only: bool = False) -> list[str]:
    """Due reviews first (within the day's review limit, most overdue first: see
    ``srs.plan_reviews``), then weak topics (weakest first, by ``mastery.weakest_topics``,
    the rule of ``/stats``), then new questions; then
    anything else, so that the quiz has ``n`` questions when it can. Among weak and among
    new ones, the topics of the user's interview come first (``goal.topic_priority``).
    Suspended and buried cards are never asked."""
    pool = {
        q.id: q
        for q in ctx.bank.all()
        if (request.topic is None or q.topic == request.topic)
        and (request.difficulty is None or q.difficulty == request.difficulty)
    }
    all_cards = ctx.uow[REVIEWS].for_user(ctx.workspace, ctx.user)
    cards = {c.question_id: c for c in all_cards}
    now = ctx.now
    plan = review_plan(
        ctx, ctx.user, ctx.user_zone, include=lambda c: c.question_id in pool, cards=all_cards
    )
    due = [pool[c.question_id] for c in plan.today]
    if due_only:
        return [q.id for q in due[: request.n]]
    seed = f"{ctx.user.id}:{now.date().isoformat()}"
    out = {qid for qid, c in cards.items() if not c.active(now)}
    # the weak topics of /stats and a mock's focus=weak, weakest first: one rule for all
    weakest = weakest_topics(ctx.uow, ctx.bank, ctx.workspace, ctx.user)
    weak = {topic: rank for rank, (topic, _mean) in enumerate(weakest)}
    chosen = {q.id for q in due} | out
    lead = goal.topic_priority(ctx)
    weak_qs = sorted(
        (q for q in pool.values() if q.topic in weak and q.id not in chosen),
        key=lambda q: (-lead(q.topic), weak[q.topic], q.id in cards, shuffle_key(seed, q.id)),
    )
    chosen |= {q.id for q in weak_qs}
    new = sorted(
        (q for q in pool.values() if q.id not in cards and q.id not in chosen),
        key=lambda q: (-lead(q.topic), shuffle_key(seed, q.id)),
    )
    chosen |= {q.id for q in new}
    rest = sorted(
        (q for q in pool.values() if q.id not in chosen), key=lambda q: (cards[q.id].due_at, q.id)
    )
    return [q.id for q in [*due, *weak_qs, *new, *rest][: request.n]]


# -- personal quizzes ------------------------------------------------------------------------


def _personal_question(ctx: Context, session: QuizSession) -> Outgoing:
    question = displayed(ctx.bank.get(session.current or ""), quiz_seed(session.id))
    if question is None:
        raise UserError("That question is no longer in the bank. Type /quiz abandon.")
    label = "Review" if session.mode == REVIEW else "Quiz"
    title = f"{label} · question {session.position + 1} of {len(session.question_ids)}"
    return private(ctx, question_card(question, title, f"quiz:{session.id}:{session.position}"))


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
    return [private(ctx, card)]


def _start_personal(
    ctx: Context, request: QuizRequest, mode: str, question_ids: list[str]
) -> list[Outgoing]:
    now = ctx.now
    session = ctx.uow[QUIZZES].start(
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
        existing = ctx.uow[QUIZZES].open_for_user(ctx.workspace, ctx.user)
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
        session = ctx.uow[QUIZZES].open_for_user(ctx.workspace, ctx.user)
        if session is None:
            raise UserError("You have no quiz open. Start one with /quiz.")
        return resume(ctx, session) if head == "resume" else abandon(ctx, session)
    request = parse_request(args, ctx.bank.topics())
    session = ctx.uow[QUIZZES].open_for_user(ctx.workspace, ctx.user)
    if session is not None:
        return _offer(ctx, session)
    question_ids = pick_questions(ctx, request)
    if not question_ids:
        raise UserError("No questions match that. Try another topic or difficulty.")
    return _start_personal(ctx, request, PERSONAL, question_ids)


def review_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/review [topic] [n]``: a personal quiz of the cards that are due, within the day's
    limit; ``/review limit|leeches|suspend|unsuspend|bury …``: :mod:`bot.core.reviews`."""
    words = args.split()
    if words and words[0].lower() in SUBCOMMANDS:
        return review_settings_command(ctx, words)
    request = parse_request(args, ctx.bank.topics(), default_n=MAX_N)
    session = ctx.uow[QUIZZES].open_for_user(ctx.workspace, ctx.user)
    if session is not None:
        return _offer(ctx, session)
    question_ids = pick_questions(ctx, request, due_only=True)
    if not question_ids:
        cards = ctx.uow[REVIEWS].for_user(ctx.workspace, ctx.user)
        if not cards:
            raise UserError("Nothing to review yet: take a /quiz first.")
        plan = review_plan(ctx, ctx.user, ctx.user_zone, cards=cards)
        if plan.waiting:
            raise UserError(
                f"You have done your {plan.limit} reviews for today. {plan.waiting} more "
                f"wait for the next days, most overdue first (/review limit N changes the "
                "limit)."
            )
        upcoming = srs.next_review_at(plan, cards, ctx.now, ctx.user_zone)
        if upcoming is None or upcoming <= ctx.now:
            raise UserError("Nothing is due on that. /review alone runs everything that is due.")
        when = srs.describe_due(upcoming, ctx.now, ctx.user_zone)
        raise UserError(f"Nothing is due. Your next review is {when}.")
    return _start_personal(ctx, request, REVIEW, question_ids)


def resume(ctx: Context, session: QuizSession) -> list[Outgoing]:
    return [_personal_question(ctx, session)]


def abandon(ctx: Context, session: QuizSession) -> list[Outgoing]:
    moved = ctx.uow[QUIZZES].move(
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
    # graded as shown: the copy whose choices are in this session's displayed order
    question = displayed(ctx.bank.get(session.current or ""), quiz_seed(session.id))
    if question is None:
        raise UserError("That question is no longer in the bank. Type /quiz abandon.")
    result = grade_answer(ctx, question, answer)
    now = ctx.now
    recorded = record_answer(
        ctx,
        answer,
        result,
        AnswerTo(AnswerKind.QUIZ, question, quiz_session_id=session.id, asked_at=session.asked_at),
        now,
    )
    card, streak = recorded.card, recorded.streak_note
    assert card is not None  # quiz answers always move their review card
    results = [
        *session.data.get("results", []),
        {"q": question.id, "score": result.score, "verdict": result.verdict.value},
    ]
    finished = session.position + 1 >= len(session.question_ids)
    moved = ctx.uow[QUIZZES].move(
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
            *((leech_notice(question, card),) if recorded.new_leech else ()),
        ),
        buttons=(*recorded.dispute_buttons, *card_buttons(card)),
        footer=(
            "Suspended: /review unsuspend " + question.id
            if card.suspended
            else f"Next review: {srs.describe_due(card.due_at, now, ctx.user_zone)}"
        ),
    )
    replies = [private(ctx, feedback)]
    replies.append(_summary(ctx, moved) if finished else _personal_question(ctx, moved))
    return replies


def _summary(ctx: Context, session: QuizSession) -> Outgoing:
    results: list[dict[str, Any]] = session.data.get("results", [])
    correct = sum(1 for r in results if r["verdict"] == "correct")
    mean = sum(float(r["score"]) for r in results) / len(results) if results else 0.0
    by_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    cards = ctx.uow[REVIEWS].for_user(ctx.workspace, ctx.user)
    suspended = {c.question_id for c in cards if c.suspended}
    review_lines: list[str] = []
    out_lines: list[str] = []  # a leech, or a card suspended by hand: no longer reviewed
    for r in results:
        question = ctx.bank.get(r["q"])
        topic = question.topic if question else "?"
        by_topic[topic][1] += 1
        if r["verdict"] == "correct":
            by_topic[topic][0] += 1
        elif question is not None:
            prompt = question.prompt if len(question.prompt) <= 70 else question.prompt[:69] + "…"
            if question.id in suspended:
                out_lines.append(f"• {prompt} ({topic}): /review unsuspend {question.id}")
            else:
                review_lines.append(f"• {prompt} ({topic})")
    blocks = [
        f"Score: {correct}/{len(results)} correct · {round(mean * 100)}%",
        "By topic: " + " · ".join(f"{t} {c}/{n}" for t, (c, n) in sorted(by_topic.items())),
    ]
    if review_lines:
        blocks.append("To review:\n" + "\n".join(review_lines))
    if out_lines:
        blocks.append("Suspended, so not in your reviews:\n" + "\n".join(out_lines))
    if not review_lines and not out_lines:
        blocks.append("Nothing to review: all correct.")
    plan = review_plan(ctx, ctx.user, ctx.user_zone, cards=cards)
    due = plan.due
    upcoming = srs.next_review_at(plan, cards, ctx.now, ctx.user_zone)
    if due:
        footer = f"{due} review{'s' * (due != 1)} due now: /review"
    elif upcoming is not None:
        footer = f"Next review {srs.describe_due(upcoming, ctx.now, ctx.user_zone)}: /review"
    else:
        footer = "Practice counts for your streak and mastery, not for the leaderboard."
    label = "Review" if session.mode == REVIEW else "Quiz"
    return private(ctx, Card(title=f"{label} done", blocks=tuple(blocks), footer=footer))


def quiz_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons of a personal quiz: ``quiz:<id>:resume|abandon`` and
    ``quiz:<id>:<position>:<letter>|form|submit``."""
    if len(parts) == 3 and parts[2] in ("resume", "abandon"):
        session = open_session(ctx, parts[1])
        if session.user_id != ctx.user.id:
            raise UserError("That is someone else's quiz.")
        return resume(ctx, session) if parts[2] == "resume" else abandon(ctx, session)
    if len(parts) != 4 or whole_number(parts[2]) is None:
        raise UserError("That button is no longer valid.")
    session = open_session(ctx, parts[1])
    if session.user_id != ctx.user.id:
        raise UserError("That is someone else's quiz.")
    position = int(parts[2])
    if parts[3] == "form":
        if position != session.position:
            raise UserError("That question is already answered.")
        question = ctx.bank.get(session.current or "")
        return answer_form(ctx, question, f"quiz:{session.id}:{position}:submit")
    answer = text if parts[3] == "submit" else parts[3]
    return answer_personal(ctx, session, answer, position)

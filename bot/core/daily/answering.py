"""Answering a daily prompt: a private grade; the first answer before the reveal scores."""

from __future__ import annotations

from bot.core.answers import AnswerKind, AnswerTo, grade_answer, record_answer
from bot.core.content import Question
from bot.core.context import Context
from bot.core.daily.schedule import DAILY
from bot.core.display import daily_seed, displayed
from bot.core.errors import UserError
from bot.core.grading import Grade
from bot.core.messages import Button, Card, Delivery, Form, Outgoing
from bot.core.model import DailyPrompt
from bot.core.numbers import whole_number

VERDICT_MARK = {"correct": "✅", "partial": "🟡", "incorrect": "❌"}


# -- answering ----------------------------------------------------------------------------


def points_for(question: Question, result: Grade) -> int:
    """Difficulty-weighted points: 10 per difficulty level, scaled by the score."""
    return round(10 * question.difficulty * result.score)


def grade_card(
    question: Question, result: Grade, note: str = "", buttons: tuple[Button, ...] = ()
) -> Card:
    blocks = [
        f"{VERDICT_MARK[result.verdict.value]} {result.verdict.value.capitalize()} "
        f"({round(result.score * 100)}%)",
        result.feedback,
    ]
    if note:
        blocks.append(note)
    source = question.sources[0]
    # The grader's feedback usually ends with the source already; say it once.
    footer = f"{question.topic} · difficulty {question.difficulty}"
    if source not in result.feedback:
        footer = f"Source: {source} · {footer}"
    return Card(blocks=tuple(blocks), footer=footer, buttons=buttons)


def answer_daily(ctx: Context, answer: str, prompt: DailyPrompt | None = None) -> list[Outgoing]:
    """Grade an answer to a daily prompt (``prompt``, else the channel's latest) and reply
    privately.

    The first answer before the reveal is scored; later ones, and any after the reveal,
    get feedback only (what an answer records: ``bot.core.answers``).
    """
    if not answer.strip():
        raise UserError("Your answer is empty. Type /answer followed by what you think.")
    if prompt is None:
        prompt = ctx.uow[DAILY].latest(ctx.channel, ctx.now)
    if prompt is None:
        raise UserError(
            "There is no daily question open in this channel yet. Type /daily to get one."
        )
    # graded as shown: the copy whose choices are in the post's displayed order
    question = displayed(ctx.bank.get(prompt.question_id), daily_seed(prompt.id))
    if question is None:
        raise UserError("That question is no longer in the bank.")
    result = grade_answer(ctx, question, answer)
    now = ctx.now
    revealed = prompt.reveal_at <= now or (
        prompt.revealed_at is not None and prompt.revealed_at <= now
    )
    # Asked to score; the store keeps it as practice when another answer by this user to
    # this prompt scored first (one unique constraint decides, also between workers).
    scored = not revealed
    recorded = record_answer(
        ctx,
        answer,
        result,
        AnswerTo(
            AnswerKind.DAILY,
            question,
            daily_prompt_id=prompt.id,
            scored=scored,
            points=points_for(question, result) if scored else 0,
        ),
        now,
    )
    attempt = recorded.attempt
    if attempt.scored:
        note = f"+{attempt.points} points." if attempt.points else ""
    elif revealed:
        note = "The answer is already revealed, so this one is practice: no points."
    else:
        note = "You already answered today's question; this one is practice: no points."
    note = " ".join(n for n in (note, recorded.streak_note) if n)
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            grade_card(question, result, note, recorded.dispute_buttons),
            channel=ctx.channel.external_id,
        )
    ]


def daily_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons and forms of a daily post: ``daily:<prompt>:<letter>|form|submit``."""
    prompt_id = whole_number(parts[1]) if len(parts) == 3 else None
    if prompt_id is None:
        raise UserError("That button is no longer valid.")
    prompt = ctx.uow[DAILY].get(ctx.workspace, prompt_id)
    if prompt is None or prompt.channel_id != ctx.channel.id:
        raise UserError("That question is no longer open.")
    what = parts[2]
    if what == "form":
        question = ctx.bank.get(prompt.question_id)
        label = question.prompt[:45] if question else "Your answer"
        form = Form(title="Your answer", label=label, action=f"daily:{prompt.id}:submit")
        return [
            Outgoing(
                Delivery.MODAL,
                ctx.user.external_id,
                Card(title="Your answer"),
                channel=ctx.channel.external_id,
                form=form,
            )
        ]
    answer = text if what == "submit" else what
    return answer_daily(ctx, answer, prompt)

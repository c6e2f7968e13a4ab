"""The daily question: post it in a channel once per local date, and grade answers to it."""

from __future__ import annotations

import hashlib
from datetime import date, datetime, timedelta

from bot.core import leaderboard
from bot.core.content import Question
from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.grading import GRADER_VERSION, Grade, grade
from bot.core.messages import Button, ButtonStyle, Card, Delivery, Form, Outgoing
from bot.core.model import Attempt, DailyPrompt
from bot.core.timezones import zone

DEFAULT_REVEAL_DELAY = timedelta(hours=8)
VERDICT_MARK = {"correct": "✅", "partial": "🟡", "incorrect": "❌"}


def channel_zone_name(ctx: Context) -> str:
    """The zone whose calendar decides the channel's 'today'."""
    return ctx.workspace.timezone


def local_today(ctx: Context) -> date:
    return ctx.now.astimezone(zone(channel_zone_name(ctx))).date()


def _order_key(channel_id: int, question_id: str) -> str:
    return hashlib.sha256(f"{channel_id}:{question_id}".encode()).hexdigest()


def choose_question(ctx: Context) -> Question:
    """A question the channel has not had yet, in a stable per-channel order.

    When every question has been used, the cycle starts again.
    """
    questions = ctx.bank.all()
    if not questions:
        raise UserError("There are no questions loaded. Add a pack to content/packs.")
    used = ctx.uow.prompts.question_ids_used(ctx.channel)
    fresh = [q for q in questions if q.id not in used] or questions
    return min(fresh, key=lambda q: _order_key(ctx.channel.id, q.id))


def letters(question: Question) -> list[str]:
    return [chr(ord("A") + i) for i in range(len(question.choices))]


def prompt_card(question: Question, prompt: DailyPrompt) -> Card:
    """The card posted in the channel: prompt, choices as buttons, a way to answer in words."""
    blocks = [question.prompt]
    buttons: list[Button] = []
    if question.kind in ("choice", "multi"):
        blocks.append(
            "\n".join(
                f"{ch}) {text}"
                for ch, text in zip(letters(question), question.choices, strict=True)
            )
        )
        if question.kind == "choice":
            buttons = [Button(ch, f"daily:{prompt.id}:{ch}") for ch in letters(question)]
    if question.kind != "choice":
        buttons.append(Button("Answer", f"daily:{prompt.id}:form", ButtonStyle.PRIMARY))
    how = {
        "choice": "Pick a letter",
        "multi": "Answer with every right letter, e.g. A, C",
        "numeric": "Answer with a number and its unit",
        "short": "Answer in a word or two",
        "open": "Answer in a few sentences",
    }[question.kind]
    return Card(
        title=f"Daily question · {prompt.local_date.isoformat()}",
        blocks=tuple(blocks),
        buttons=tuple(buttons),
        footer=f"{how}: /answer TEXT or reply in the thread · {question.topic} · "
        f"difficulty {question.difficulty}",
    )


def show_daily(ctx: Context) -> list[Outgoing]:
    """Post today's question in the channel if it is not posted yet, else show it again."""
    today = local_today(ctx)
    prompt = ctx.uow.prompts.for_date(ctx.channel, today)
    if prompt is not None:
        question = ctx.bank.get(prompt.question_id)
        if question is None:
            raise UserError("Today's question was removed from the bank; ask again tomorrow.")
        return [
            Outgoing(
                Delivery.PRIVATE,
                ctx.user.external_id,
                prompt_card(question, prompt),
                channel=ctx.channel.external_id,
            )
        ]
    question = choose_question(ctx)
    post_daily_prompt(ctx, question, today, ctx.now)
    return []


def post_daily_prompt(
    ctx: Context, question: Question, day: date, now: datetime
) -> DailyPrompt | None:
    """Create the channel's prompt for ``day`` and queue its post; None if it exists already."""
    prompt = ctx.uow.prompts.add(ctx.channel, question.id, day, now, now + DEFAULT_REVEAL_DELAY)
    if prompt is None:
        return None
    post = Outgoing(
        Delivery.CHANNEL,
        ctx.channel.external_id,
        prompt_card(question, prompt),
        key=f"daily:{prompt.id}:post",
        tags={"prompt": str(prompt.id)},
    )
    ctx.uow.outbox.add(ctx.workspace, ctx.workspace.platform, post, post.key or "", now)
    return prompt


def points_for(question: Question, result: Grade) -> int:
    """Difficulty-weighted points: 10 per difficulty level, scaled by the score."""
    return round(10 * question.difficulty * result.score)


def grade_card(question: Question, result: Grade, note: str = "") -> Card:
    blocks = [
        f"{VERDICT_MARK[result.verdict.value]} {result.verdict.value.capitalize()} "
        f"({round(result.score * 100)}%)",
        result.feedback,
    ]
    if note:
        blocks.append(note)
    return Card(blocks=tuple(blocks), footer=f"Source: {question.sources[0]}")


def answer_daily(ctx: Context, answer: str, prompt: DailyPrompt | None = None) -> list[Outgoing]:
    """Grade an answer to the channel's open daily prompt and reply privately.

    The first answer before the reveal is scored; later ones get feedback only.
    """
    if not answer.strip():
        raise UserError("Your answer is empty. Type /answer followed by what you think.")
    if prompt is None:
        prompt = ctx.uow.prompts.for_date(ctx.channel, local_today(ctx))
    if prompt is None:
        raise UserError(
            "There is no daily question open in this channel yet. Type /daily to get one."
        )
    question = ctx.bank.get(prompt.question_id)
    if question is None:
        raise UserError("That question is no longer in the bank.")
    result = grade(question, answer)
    now = ctx.now
    revealed = prompt.revealed_at is not None and prompt.revealed_at <= now
    scored = not revealed and not ctx.uow.attempts.has_scored(ctx.user, prompt)
    attempt = ctx.uow.attempts.add(
        Attempt(
            user_id=ctx.user.id,
            workspace_id=ctx.workspace.id,
            question_id=question.id,
            answer=answer,
            score=result.score,
            verdict=result.verdict.value,
            feedback=result.feedback,
            grader_version=GRADER_VERSION,
            content_hash=question.content_hash,
            answered_at=now,
            daily_prompt_id=prompt.id,
            scored=scored,
            points=points_for(question, result) if scored else 0,
        )
    )
    leaderboard.add_points(ctx.uow, ctx.workspace, attempt)
    if attempt.scored:
        note = f"+{attempt.points} points." if attempt.points else ""
    elif revealed:
        note = "The answer is already revealed, so this one is practice: no points."
    else:
        note = "You already answered today's question; this one is practice: no points."
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            grade_card(question, result, note),
            channel=ctx.channel.external_id,
        )
    ]


def daily_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons and forms of a daily post: ``daily:<prompt>:<letter>|form|submit``."""
    if len(parts) != 3 or not parts[1].isdigit():
        raise UserError("That button is no longer valid.")
    prompt = ctx.uow.prompts.get(ctx.workspace, int(parts[1]))
    if prompt is None:
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

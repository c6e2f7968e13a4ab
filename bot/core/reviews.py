"""Managing one's reviews: the daily limit, leeches, suspending and burying cards.

Grammar (the rest of ``/review`` starts a review session, :mod:`bot.core.quiz.personal`)::

    /review limit [N]          show, or set, the daily review limit (1..500)
    /review leeches            the questions suspended because they keep being missed
    /review suspend [ID]       suspend a card: the one just reviewed, or question ID
    /review unsuspend ID       bring a suspended card (a leech) back, due now
    /review bury [ID]          leave a card out until tomorrow (the user's midnight)

A quiz or review grade card carries **Bury** and **Suspend** buttons for its card
(:func:`card_buttons`, actions ``review:bury:<question id>`` and ``review:suspend:<question
id>``), which do what the commands do.

Bad input raises a ``UserError``, so nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from typing import Final

from bot.core import srs
from bot.core.content import Question
from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.messages import Button, Outgoing, say
from bot.core.model import User
from bot.core.numbers import whole_number
from bot.core.srs import REVIEWS, ReviewCard, ReviewPlan

SUBCOMMANDS: Final = ("limit", "leeches", "suspend", "unsuspend", "bury")
CARD_ACTION: Final = "review"  # a grade card's buttons: ``review:<bury|suspend>:<question id>``
LIMIT_USAGE: Final = (
    f"Usage: /review limit N, a whole number of reviews a day from 1 to {srs.MAX_DAILY_LIMIT} "
    "(e.g. /review limit 20)."
)


def daily_limit(ctx: Context, user: User) -> int:
    """The user's daily review limit: their own, else the default."""
    own = ctx.uow[REVIEWS].daily_limit(user)
    return srs.DEFAULT_DAILY_LIMIT if own is None else own


def review_plan(
    ctx: Context,
    user: User,
    zone: tzinfo,
    *,
    include: Callable[[ReviewCard], bool] | None = None,
    cards: Sequence[ReviewCard] | None = None,
    priority: Callable[[ReviewCard, datetime], float] = srs.overdueness,
) -> ReviewPlan:
    """``srs.plan_reviews`` for ``user`` now, with their limit (``cards``: theirs, if read;
    ``include`` and ``priority`` as ``plan_reviews`` takes them)."""
    if cards is None:
        cards = ctx.uow[REVIEWS].for_user(ctx.workspace, user)
    return srs.plan_reviews(
        cards,
        now=ctx.now,
        zone=zone,
        limit=daily_limit(ctx, user),
        include=include,
        priority=priority,
    )


def plan_summary(plan: ReviewPlan) -> str:
    """``N due now`` and, when the limit holds some back, how they are spread."""
    text = f"{plan.due} due now"
    if plan.waiting:
        days = plan.days_to_clear
        text += (
            f" · {plan.waiting} more spread over the next {days} day{'s' * (days != 1)} "
            f"(limit {plan.limit} a day)"
        )
    return text


def leech_notice(question: Question, card: ReviewCard) -> str:
    """What a user is told, once, when a question becomes a leech."""
    point = srs.most_missed(card)
    missing = (
        f"The point you keep missing: {point}." if point else f"The answer: {question.answer_text}."
    )
    return (
        f"🩹 You have missed this question on {card.lapses} days, so it is a leech: it is "
        f"suspended from your reviews and quizzes. {missing} {question.explanation} "
        f"When you are ready for it again: /review unsuspend {question.id}"
    )


def review_settings_command(ctx: Context, words: Sequence[str]) -> list[Outgoing]:
    """``/review limit|leeches|suspend|unsuspend|bury …`` (``words[0]`` is the subcommand)."""
    head, rest = words[0].lower(), list(words[1:])
    if head == "limit":
        text = _limit(ctx, rest)
    elif head == "leeches":
        if rest:
            raise UserError("Usage: /review leeches")
        text = _leeches(ctx)
    else:
        text = _flag(ctx, head, rest)
    return [say(ctx.user.external_id, text, channel=ctx.channel.external_id)]


def card_buttons(card: ReviewCard) -> tuple[Button, ...]:
    """Bury and Suspend for the card a grade reply is about; none for a suspended card
    (a leech just made: its notice says how to bring it back)."""
    if card.suspended:
        return ()
    qid = card.question_id
    return (
        Button("Bury", f"{CARD_ACTION}:bury:{qid}"),
        Button("Suspend", f"{CARD_ACTION}:suspend:{qid}"),
    )


def card_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """A grade card's Bury or Suspend button (``review:<bury|suspend>:<question id>``)."""
    if len(parts) != 3 or parts[1] not in ("bury", "suspend") or not parts[2]:
        raise UserError("That button is no longer valid.")
    return review_settings_command(ctx, parts[1:])


def parse_limit(words: Sequence[str]) -> int:
    """The daily limit ``words`` give (one whole number, 1..MAX_DAILY_LIMIT); raises
    UserError with :data:`LIMIT_USAGE` for anything else."""
    limit = whole_number(words[0], low=1, high=srs.MAX_DAILY_LIMIT) if len(words) == 1 else None
    if limit is None:
        raise UserError(LIMIT_USAGE)
    return limit


def _limit(ctx: Context, rest: list[str]) -> str:
    if not rest:
        own = ctx.uow[REVIEWS].daily_limit(ctx.user)
        limit = srs.DEFAULT_DAILY_LIMIT if own is None else own
        which = "your own" if own is not None else "the default"
        plan = review_plan(ctx, ctx.user, ctx.user_zone)
        return (
            f"Your daily review limit is {limit} ({which}); {plan.done_today} done today. "
            f"Change it with /review limit N (1 to {srs.MAX_DAILY_LIMIT})."
        )
    limit = parse_limit(rest)
    ctx.uow[REVIEWS].set_daily_limit(ctx.user, limit, ctx.now)
    plan = review_plan(ctx, ctx.user, ctx.user_zone)
    return (
        f"Daily review limit set to {limit}. Due cards beyond it wait for the following days, "
        f"most overdue first. Reviews: {plan_summary(plan)}."
    )


def _leeches(ctx: Context) -> str:
    cards = [c for c in ctx.uow[REVIEWS].for_user(ctx.workspace, ctx.user) if c.suspended]
    if not cards:
        return (
            "No suspended questions. A question you miss on "
            f"{srs.LEECH_LAPSES} days becomes a leech and is suspended until you ask for it."
        )
    lines = ["Suspended questions (/review unsuspend ID brings one back):"]
    for card in sorted(cards, key=lambda c: (not c.leech, c.question_id)):
        question = ctx.bank.get(card.question_id)
        prompt = question.prompt if question else "(no longer in the bank)"
        prompt = prompt if len(prompt) <= 70 else prompt[:69] + "…"
        why = f"leech, missed on {card.lapses} days" if card.leech else "suspended by you"
        lines.append(f"• {card.question_id}: {prompt} ({why})")
    return "\n".join(lines)


def _card_for(ctx: Context, head: str, rest: list[str]) -> ReviewCard:
    """The card ``rest`` names (a question id), or the one reviewed last."""
    if len(rest) > 1:
        raise UserError(f"Usage: /review {head} [QUESTION_ID]")
    if rest:
        card = ctx.uow[REVIEWS].get(ctx.user, rest[0].lower())
        if card is None:
            raise UserError(
                f"You have no review card {rest[0][:60]!r}. /review leeches lists suspended ones."
            )
        return card
    if head == "unsuspend":
        raise UserError("Usage: /review unsuspend QUESTION_ID (see /review leeches).")
    cards = [c for c in ctx.uow[REVIEWS].for_user(ctx.workspace, ctx.user) if c.last_review_at]
    if not cards:
        raise UserError("You have not reviewed anything yet: take a /quiz first.")
    return max(cards, key=lambda c: (c.last_review_at, c.question_id))


def _flag(ctx: Context, head: str, rest: list[str]) -> str:
    card = _card_for(ctx, head, rest)
    qid = card.question_id
    if head == "suspend":
        if card.suspended:
            raise UserError(f"{qid} is suspended already. /review unsuspend {qid} brings it back.")
        ctx.uow[REVIEWS].save(srs.suspend(card))
        return (
            f"{qid} is suspended: it is out of your reviews and quizzes until "
            f"/review unsuspend {qid}."
        )
    if head == "unsuspend":
        if not card.suspended:
            raise UserError(f"{qid} is not suspended.")
        ctx.uow[REVIEWS].save(srs.unsuspend(card, ctx.now))
        return f"{qid} is back in your reviews, due now: /review"
    if card.suspended:
        raise UserError(f"{qid} is suspended, so there is nothing to bury.")
    buried = srs.bury(card, ctx.now, ctx.user_zone)
    ctx.uow[REVIEWS].save(buried)
    when = srs.describe_due(buried.buried_until or ctx.now, ctx.now, ctx.user_zone)
    return f"{qid} is buried: it comes back {when}."

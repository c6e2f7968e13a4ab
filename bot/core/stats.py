"""``/stats [@user]``: accuracy by topic, weakest topics, streak, reviews due, and a
calendar heatmap of the days with answers."""

from __future__ import annotations

import re
from datetime import date, timedelta, tzinfo

from bot.core import goal, srs, streaks
from bot.core.context import Context
from bot.core.errors import NotFound, UserError
from bot.core.mastery import STATS, WEAK_MEAN, StatsRepository, scores_of, weakest_topics
from bot.core.messages import Attachment, Card, Delivery, Field, Outgoing
from bot.core.model import USERS, User
from bot.core.reviews import plan_summary, review_plan
from bot.core.srs import REVIEWS
from bot.core.streaks import STREAKS
from bot.core.timezones import zone

CALENDAR_WEEKS = 26
WEAKEST = 3
_SAFE = re.compile(r"[^A-Za-z0-9_-]")
_MENTION = re.compile(r"^<@!?([A-Za-z0-9._-]+)(?:\|[^>]*)?>$")
__all__ = ["STATS", "StatsRepository"]  # their home is bot.core.mastery


def topic_scores(ctx: Context, user: User) -> dict[str, tuple[float, int, int]]:
    """Per topic: (mean score, answers, correct answers) of ``user``."""
    return scores_of(ctx.uow, ctx.bank, ctx.workspace, user)


def weakest_line(ctx: Context, user: User) -> str:
    """The weak topics as a mock's ``focus=weak`` reads them (``mastery.weakest_topics``,
    however few answers a topic has), weakest first, with the rule that makes one weak."""
    weak = weakest_topics(ctx.uow, ctx.bank, ctx.workspace, user)[:WEAKEST]
    below = f"{round(WEAK_MEAN * 100)}%"
    if not weak:
        return f"No weak topic: every topic averages {below} or more."
    listed = ", ".join(f"{topic} ({round(mean * 100)}%)" for topic, mean in weak)
    return f"Weakest (under {below} on average, or the last review failed): {listed}"


def target_user(ctx: Context, args: str) -> User:
    """The acting user, or the one named by ``@name``, ``name`` or a platform mention."""
    text = args.strip()
    if not text:
        return ctx.user
    if len(text.split()) > 1:
        raise UserError("Usage: /stats [@user]")
    mention = _MENTION.match(text)
    handle = mention.group(1) if mention else text.lstrip("@")
    if not handle or len(handle) > 64:
        raise UserError("Usage: /stats [@user]")
    found = ctx.uow[USERS].find(ctx.workspace, handle)
    if not found:
        raise NotFound(f"I don't know anyone called {handle!r} here yet.")
    return found[0]


def srs_zone(ctx: Context, user: User) -> tzinfo:
    return zone(user.timezone or ctx.workspace.timezone)


def activity(
    ctx: Context, user: User, weeks: int = CALENDAR_WEEKS
) -> tuple[dict[date, int], date, date]:
    """Answers per local day over the last ``weeks`` weeks (ending today), from the streak
    calendar (days in the user's zone)."""
    end = ctx.now.astimezone(zone(ctx.uow[STREAKS].zone_of(user))).date()
    start = end - timedelta(days=7 * weeks - 1)
    days = ctx.uow[STREAKS].days(user, start, end)
    return {d: mark.answers for d, mark in days.items() if mark.answers}, start, end


def stats_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/stats [@user]``: a private card, and the streak calendar as a PNG."""
    user = target_user(ctx, args)
    scores = topic_scores(ctx, user)
    who = "Your" if user.id == ctx.user.id else f"{user.display}'s"
    fields: list[Field] = []
    blocks: list[str] = []
    if not scores:
        blocks.append(
            "No answers yet: /daily for today's question, /quiz for a personal quiz."
            if user.id == ctx.user.id
            else f"{user.display} has not answered anything yet."
        )
    else:
        answers = sum(s[1] for s in scores.values())
        correct = sum(s[2] for s in scores.values())
        fields.append(Field("Answers", f"{answers} · {correct} correct"))
        lines = [
            f"{topic}: {round(mean * 100)}% over {n} answer{'s' * (n != 1)}"
            for topic, (mean, n, _c) in sorted(scores.items(), key=lambda kv: -kv[1][0])
        ]
        blocks.append("Accuracy by topic:\n" + "\n".join(lines))
        blocks.append(weakest_line(ctx, user))
    streak = streaks.current_streak(ctx.uow, user, ctx.now)
    fields.append(
        Field(
            "Streak",
            f"{streak.current} day{'s' * (streak.current != 1)} (longest {streak.longest})",
        )
    )
    cards = ctx.uow[REVIEWS].for_user(ctx.workspace, user)
    user_zone = srs_zone(ctx, user)
    plan = review_plan(ctx, user, user_zone, cards=cards)
    reviews = plan_summary(plan)
    upcoming = srs.next_review_at(plan, cards, ctx.now, user_zone)
    if upcoming is not None and upcoming > ctx.now:
        reviews += f" · next {srs.describe_due(upcoming, ctx.now, user_zone)}"
    fields.append(Field("Reviews", reviews))
    leeches = sorted(c.question_id for c in plan.suspended if c.leech)
    if leeches:
        shown = ", ".join(leeches[:5]) + (
            f" and {len(leeches) - 5} more" if len(leeches) > 5 else ""
        )
        fields.append(Field("Leeches", f"{len(leeches)} suspended: {shown} (/review leeches)"))
    if user.id == ctx.user.id:
        fields.extend(goal.goal_fields(ctx))
        suggestion = goal.mock_suggestion(ctx)
        if suggestion:
            blocks.append(suggestion)
    attachments: tuple[Attachment, ...] = ()
    counts, start, end = activity(ctx, user)
    if ctx.services.charts is None:
        note = ctx.services.charts_note.take()
        if note:
            blocks.append(note)
    else:
        png = ctx.services.charts.calendar_heatmap(
            f"{user.display}: answers per day", counts, start, end
        )
        attachments = (
            Attachment(f"streak-{_SAFE.sub('_', user.external_id)}.png", png, "image/png"),
        )
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            Card(title=f"{who} stats", blocks=tuple(blocks), fields=tuple(fields)),
            channel=ctx.channel.external_id,
            attachments=attachments,
        )
    ]

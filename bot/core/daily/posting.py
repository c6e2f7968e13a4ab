"""Posting the daily question and revealing its answer: the cards, ``/daily``, and the due
jobs :class:`DailyRevealJob` (which runs first) and :class:`DailyPostJob`.

Reveal: the original post is *updated in place* (``Delivery.UPDATE`` of the post's
platform message) to show the answer, the explanation, the source and the channel's
stats, and its buttons go away; if the post's platform id is not known (it was never
delivered), the reveal is posted as a new channel message instead. Work missed by more
than the grace period (``Services.grace``) is skipped and logged: the schedule moves on to
its next slot, a late reveal marks the prompt revealed without a message.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta, tzinfo

from bot.core.content import Question
from bot.core.context import Context, Services
from bot.core.daily.choosing import choose_question
from bot.core.daily.schedule import (
    DAILY,
    SCHEDULES,
    DueReveal,
    NewPrompt,
    RevealStats,
    Schedule,
    default_schedule,
    describe_days,
    post_key,
)
from bot.core.display import choice_lines, daily_seed, displayed
from bot.core.errors import UserError
from bot.core.messages import Button, ButtonStyle, Card, Delivery, Outgoing, say, until
from bot.core.model import Channel, DailyPrompt
from bot.core.ports import UnitOfWork
from bot.core.streaks import ChannelPost, due_on, local_day

log = logging.getLogger(__name__)

HOW_TO_ANSWER = {
    "choice": "Pick a letter",
    "multi": "Answer with every right letter, e.g. A, C",
    "numeric": "Answer with a number and its unit",
    "short": "Answer in a word or two",
    "open": "Answer in a few sentences",
}


# -- schedules ----------------------------------------------------------------------------


def ensure_schedule(ctx: Context) -> Schedule:
    """The channel's schedule; the first time, the default one (09:00 on weekdays, every
    topic, in the asking user's zone, else the workspace's)."""
    schedule = ctx.uow[SCHEDULES].get(ctx.channel)
    if schedule is None:
        zone_name = ctx.user.timezone or ctx.workspace.timezone
        schedule = ctx.uow[SCHEDULES].save(
            default_schedule(ctx.channel.id, ctx.workspace.id, zone_name, ctx.now)
        )
    return schedule


# -- cards --------------------------------------------------------------------------------


def letters(question: Question) -> list[str]:
    return [chr(ord("A") + i) for i in range(len(question.choices))]


def _question_blocks(question: Question) -> list[str]:
    blocks = [question.prompt]
    if question.kind in ("choice", "multi"):
        blocks.append(choice_lines(question))
    return blocks


def prompt_card(question: Question, prompt: DailyPrompt) -> Card:
    """The card posted in the channel: prompt, choices as buttons, a way to answer in words.
    Choices are in the post's own displayed order (``bot.core.display``)."""
    question = displayed(question, daily_seed(prompt.id))
    buttons: list[Button] = []
    if question.kind == "choice":
        buttons = [Button(ch, f"daily:{prompt.id}:{ch}") for ch in letters(question)]
    if question.kind != "choice":
        buttons.append(Button("Answer", f"daily:{prompt.id}:form", ButtonStyle.PRIMARY))
    return Card(
        title=f"Daily question · {prompt.local_date.isoformat()}",
        blocks=tuple(_question_blocks(question)),
        buttons=tuple(buttons),
        footer=f"{HOW_TO_ANSWER[question.kind]}: /answer TEXT or reply in the thread · "
        f"{question.topic} · difficulty {question.difficulty}",
    )


def _after(delta: timedelta) -> str:
    seconds = max(int(delta.total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def stats_line(stats: RevealStats, posted_at: datetime) -> str:
    if stats.answered == 0:
        return "Nobody answered this one."
    pct = round(100 * stats.correct / stats.answered)
    people = "1 person" if stats.answered == 1 else f"{stats.answered} people"
    line = f"{people} answered · {pct}% correct"
    if stats.fastest is not None and stats.fastest_at is not None:
        line += f" · fastest right answer: {stats.fastest} ({_after(stats.fastest_at - posted_at)})"
    return line


def reveal_card(question: Question, prompt: DailyPrompt, stats: RevealStats) -> Card:
    """The post once revealed: the choices as they were shown, and the answer's letter there."""
    question = displayed(question, daily_seed(prompt.id))
    blocks = [
        *_question_blocks(question),
        f"Answer: {question.answer_text}",
        question.explanation,
        stats_line(stats, prompt.posted_at),
    ]
    return Card(
        title=f"Daily question · {prompt.local_date.isoformat()} · revealed",
        blocks=tuple(b for b in blocks if b),
        footer=f"Source: {question.sources[0]} · answers now are practice",
    )


def post_message(channel: Channel, question: Question, prompt: DailyPrompt) -> Outgoing:
    """The channel's daily post; worth sending (and retrying) until the prompt's reveal."""
    post = Outgoing(
        Delivery.CHANNEL,
        channel.external_id,
        prompt_card(question, prompt),
        key=post_key(prompt.id),
    )
    return until(post, prompt.reveal_at)


def reveal_message(
    channel: Channel, question: Question, prompt: DailyPrompt, stats: RevealStats
) -> Outgoing:
    card = reveal_card(question, prompt, stats)
    key = f"daily:{prompt.id}:reveal"
    if prompt.message_ref:
        return Outgoing(Delivery.UPDATE, channel.external_id, card, ref=prompt.message_ref, key=key)
    return Outgoing(Delivery.CHANNEL, channel.external_id, card, key=key)


# -- posting ------------------------------------------------------------------------------


def post_daily_prompt(
    ctx: Context, question: Question, day: date, now: datetime
) -> DailyPrompt | None:
    """Create the channel's prompt for ``day`` and queue its post; None if it exists already.
    The schedule's next post moves past ``day``, which has its question now."""
    schedule = ensure_schedule(ctx)
    created = ctx.uow[DAILY].add_prompts(
        [NewPrompt(ctx.channel, question.id, day, now, schedule.reveal_at(now, day))]
    )
    if not created:
        return None
    prompt = created[0]
    ctx.uow[DAILY].queue(
        [(ctx.workspace.id, ctx.workspace.platform, post_message(ctx.channel, question, prompt))],
        now,
    )
    following = schedule.next_post_at
    if following is not None and schedule.local_date_of(following) <= day:
        ctx.uow[SCHEDULES].set_next([(ctx.channel.id, schedule.next_slot_after_date(day))])
    return prompt


def _next_post(schedule: Schedule, now: datetime, user_zone: tzinfo) -> str:
    """When the channel's next question comes, in its schedule's zone and, where the clock
    reads otherwise, the asking user's."""
    following = schedule.next_slot_after(now)
    if following is None:
        return "No post is scheduled."
    local = following.astimezone(schedule.tz)
    when = f"{local.strftime('%a %d %b %H:%M')} ({schedule.timezone}"
    theirs = following.astimezone(user_zone)
    if theirs.replace(tzinfo=None) != local.replace(tzinfo=None):
        when += f"; {theirs.strftime('%a %d %b %H:%M')} your time"
    return f"The next one comes {when})."


def closed_today(schedule: Schedule, today: date, now: datetime, user_zone: tzinfo) -> str:
    """Why the channel has no daily question on ``today`` (paused, a skipped date, a day
    off the schedule) and when the next one comes; "" when it has one."""
    if schedule.paused:
        return (
            "The daily question is paused in this channel. "
            "An admin can start it again with /studybot schedule resume."
        )
    coming = _next_post(schedule, now, user_zone)
    if today in schedule.skip_dates:
        return f"Today is skipped in this channel's schedule. {coming}"
    if today.weekday() not in schedule.weekdays:
        return (
            f"This channel has no daily question on {today.strftime('%A')}s (it posts on "
            f"{describe_days(schedule.weekdays)}). {coming}"
        )
    return ""


def _yours_today(ctx: Context) -> DailyPrompt | None:
    """The channel's latest question when it is the one due today in the asker's zone
    (``streaks.due_on``): west of the channel's zone, once the channel's date has turned,
    the asker's question of the day is still the channel's question of yesterday."""
    latest = ctx.uow[DAILY].latest(ctx.channel, ctx.now)
    if latest is None:
        return None
    zone_name = ctx.user.timezone or ctx.workspace.timezone
    due = due_on(ChannelPost(latest.local_date, latest.posted_at), zone_name)
    return latest if due == local_day(ctx.now, zone_name) else None


def show_daily(ctx: Context) -> list[Outgoing]:
    """Show today's question in the channel; post it if its time has come and it is not
    posted yet (the post job has not run, or the bot was down). Before the channel's post
    time, and on a day the schedule has no question (paused, skipped, off its weekdays),
    it shows the question that is due today in the asker's zone if there is one, else posts
    nothing and says why, and when the next one comes. A channel with no schedule
    yet has no post time: its first /daily posts today's question at once and starts the
    default schedule with the next day's."""
    schedule = ctx.uow[SCHEDULES].get(ctx.channel)
    started = schedule is not None
    schedule = schedule or ensure_schedule(ctx)
    today = schedule.local_date_of(ctx.now)
    prompt = ctx.uow[DAILY].for_date(ctx.channel, today) or _yours_today(ctx)
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
    closed = closed_today(schedule, today, ctx.now, ctx.user_zone)
    if not closed and started and ctx.now < schedule.slot_on(today):
        closed = (
            f"Today's question is not posted yet. {_next_post(schedule, ctx.now, ctx.user_zone)}"
        )
    if closed:
        return [say(ctx.user.external_id, closed, channel=ctx.channel.external_id)]
    history = ctx.uow[DAILY].history([ctx.channel.id]).get(ctx.channel.id, [])
    seen = ctx.uow[DAILY].seen_by_members([ctx.channel.id]).get(ctx.channel.id, {})
    question = choose_question(ctx.bank, schedule, history, seen, ctx.channel.id)
    if question is None:
        raise UserError("There are no questions loaded: add a folder of packs to STUDYBOT_PACKS.")
    post_daily_prompt(ctx, question, today, ctx.now)
    return []


class DailyPostJob:
    """Posts the daily question in every channel whose schedule is due (a DueJob)."""

    name = "daily-post"

    def __init__(self, batch: int = 250) -> None:
        self.batch = batch

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[SCHEDULES].next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        """Post what is due at ``now`` (claiming at most ``batch`` channels); returns how many
        schedules were handled, posted or skipped."""
        due = uow[SCHEDULES].claim_due(now, self.batch)
        if not due:
            return 0
        updates: list[tuple[int, datetime | None]] = []
        wanted = []
        for item in due:
            schedule = item.schedule
            slot = schedule.next_post_at or now
            updates.append((schedule.channel_id, schedule.next_slot_after(now)))
            if now - slot > services.grace:
                log.warning(
                    "skipping the daily post of channel %s due at %s: missed by more than %s",
                    schedule.channel_id,
                    slot.isoformat(),
                    services.grace,
                )
                continue
            day = schedule.local_date_of(slot)
            if schedule.posts_on(day):
                wanted.append((item, day))
        ids = [item.channel.id for item, _ in wanted]
        history = uow[DAILY].history(ids) if ids else {}
        seen = uow[DAILY].seen_by_members(ids) if ids else {}
        new: list[NewPrompt] = []
        for item, day in wanted:
            cid = item.channel.id
            question = choose_question(
                services.bank, item.schedule, history.get(cid, []), seen.get(cid, {}), cid
            )
            if question is None:
                log.error("no question for channel %s: the bank is empty", cid)
                continue
            new.append(
                NewPrompt(item.channel, question.id, day, now, item.schedule.reveal_at(now, day))
            )
        by_channel = {item.channel.id: item for item, _ in wanted}
        messages = []
        for prompt in uow[DAILY].add_prompts(new):
            item = by_channel[prompt.channel_id]
            question = services.bank.get(prompt.question_id)
            assert question is not None
            messages.append(
                (prompt.workspace_id, item.platform, post_message(item.channel, question, prompt))
            )
        uow[DAILY].queue(messages, now)
        uow[SCHEDULES].set_next(updates)
        return len(due)


class DailyRevealJob:
    """Reveals the answer of every daily prompt whose reveal time has come (a DueJob)."""

    name = "daily-reveal"

    def __init__(self, batch: int = 250) -> None:
        self.batch = batch

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow[DAILY].next_reveal_at()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        due = uow[DAILY].claim_reveals(now, self.batch)
        if not due:
            return 0
        stats = uow[DAILY].reveal_stats([d.prompt.id for d in due])
        messages = []
        for item in due:
            message = self._message(item, services, stats.get(item.prompt.id, RevealStats()), now)
            if message is not None:
                messages.append((item.prompt.workspace_id, item.platform, message))
        uow[DAILY].mark_revealed([d.prompt.id for d in due], now)
        uow[DAILY].queue(messages, now)
        return len(due)

    def _message(
        self, item: DueReveal, services: Services, stats: RevealStats, now: datetime
    ) -> Outgoing | None:
        prompt = item.prompt
        if now - prompt.reveal_at > services.grace:
            log.warning(
                "skipping the reveal message of daily prompt %s due at %s: missed by more than %s",
                prompt.id,
                prompt.reveal_at.isoformat(),
                services.grace,
            )
            return None
        question = services.bank.get(prompt.question_id)
        if question is None:
            log.warning("daily prompt %s: question %s left the bank", prompt.id, prompt.question_id)
            return None
        return reveal_message(item.channel, question, prompt, stats)

"""The daily question: one post per channel per local date, on the channel's schedule or
when someone first asks with ``/daily``; private grades; a reveal before the next post.

Reveal: the original post is *updated in place* (``Delivery.UPDATE`` of the post's
platform message) to show the answer, the explanation, the source and the channel's
stats, and its buttons go away; if the post's platform id is not known (it was never
delivered), the reveal is posted as a new channel message instead. Updating keeps one
message per day in the channel, and nobody can click a stale button on a revealed post.

Due work (see :mod:`bot.core.due`): :class:`DailyRevealJob` runs before
:class:`DailyPostJob`, and a prompt's reveal time is always before the channel's next
post. Work missed by more than the grace period (``Services.grace``) is skipped and
logged: the schedule moves on to its next slot, a late reveal marks the prompt revealed
without a message.
"""

from __future__ import annotations

import hashlib
import logging
import weakref
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta

from bot.core.answers import AnswerKind, AnswerTo, grade_answer, record_answer
from bot.core.bank import QuestionBank
from bot.core.content import Question
from bot.core.context import Context, Services
from bot.core.errors import UserError
from bot.core.grading import Grade
from bot.core.messages import Button, ButtonStyle, Card, Delivery, Form, Outgoing, say
from bot.core.model import Channel, DailyPrompt
from bot.core.ports import UnitOfWork
from bot.core.schedule import (
    DueReveal,
    NewPrompt,
    RevealStats,
    Schedule,
    default_schedule,
    describe,
    parse_schedule_args,
    parse_skip_date,
)
from bot.core.streaks import nudges_setting

log = logging.getLogger(__name__)

DEFAULT_REVEAL_DELAY = timedelta(hours=8)
VERDICT_MARK = {"correct": "✅", "partial": "🟡", "incorrect": "❌"}
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
    schedule = ctx.uow.schedules.get(ctx.channel)
    if schedule is None:
        zone_name = ctx.user.timezone or ctx.workspace.timezone
        schedule = ctx.uow.schedules.save(
            default_schedule(ctx.channel.id, ctx.workspace.id, zone_name, ctx.now)
        )
    return schedule


def channel_zone_name(ctx: Context) -> str:
    """The zone whose calendar decides the channel's 'today'."""
    schedule = ctx.uow.schedules.get(ctx.channel)
    if schedule is not None:
        return schedule.timezone
    return ctx.user.timezone or ctx.workspace.timezone


def local_today(ctx: Context) -> date:
    return ensure_schedule(ctx).local_date_of(ctx.now)


# -- choosing -----------------------------------------------------------------------------


def _order_key(channel_id: int, question_id: str) -> str:
    return hashlib.sha256(f"{channel_id}:{question_id}".encode()).hexdigest()


_POOLS: weakref.WeakKeyDictionary[QuestionBank, dict[tuple[object, ...], list[Question]]] = (
    weakref.WeakKeyDictionary()
)


def eligible(bank: QuestionBank, schedule: Schedule) -> list[Question]:
    """The channel's pool: questions in its topics and for its roles (all when unset)."""
    pools = _POOLS.setdefault(bank, {})
    key = (schedule.topics, schedule.roles)
    if key not in pools:
        pools[key] = _eligible(bank, schedule)
    return pools[key]


def _eligible(bank: QuestionBank, schedule: Schedule) -> list[Question]:
    questions = bank.all()
    if schedule.topics:
        wanted = set(schedule.topics)
        questions = [q for q in questions if q.topic in wanted]
    if schedule.roles:
        roles = set(schedule.roles)
        questions = [q for q in questions if roles & set(q.roles)]
    return questions


def choose_question(
    bank: QuestionBank,
    schedule: Schedule,
    history: Sequence[str],
    seen: Mapping[str, int],
    channel_id: int,
) -> Question | None:
    """The channel's next question, or None when its pool is empty.

    1. Never repeat until the pool is exhausted: only the least-used questions qualify.
    2. Follow the difficulty mix: the difficulty furthest behind its share so far.
    3. Rotate topics: the topic used least recently.
    4. Prefer what few members have seen; then a stable per-channel order.
    """
    pool = eligible(bank, schedule) or bank.all()
    if not pool:
        return None
    if history:
        uses = Counter(history)
        least = min(uses[q.id] for q in pool)
        candidates = [q for q in pool if uses[q.id] == least]
    else:
        candidates = pool
    if schedule.mix:
        available = sorted({q.difficulty for q in candidates} & set(schedule.mix))
        if available:
            past = Counter(q.difficulty for qid in history if (q := bank.get(qid)) is not None)
            total = sum(schedule.mix.values())
            n = len(history) + 1

            def deficit(d: int) -> float:
                return schedule.mix[d] / total * n - past[d]

            target = max(available, key=deficit)
            candidates = [q for q in candidates if q.difficulty == target]
    last_used: dict[str, int] = {}
    for position, qid in enumerate(history):
        q = bank.get(qid)
        if q is not None:
            last_used[q.topic] = position
    topic = min(sorted({q.topic for q in candidates}), key=lambda t: last_used.get(t, -1))
    in_topic = [q for q in candidates if q.topic == topic]
    return min(in_topic, key=lambda q: (seen.get(q.id, 0), _order_key(channel_id, q.id)))


# -- cards --------------------------------------------------------------------------------


def letters(question: Question) -> list[str]:
    return [chr(ord("A") + i) for i in range(len(question.choices))]


def _question_blocks(question: Question) -> list[str]:
    blocks = [question.prompt]
    if question.kind in ("choice", "multi"):
        blocks.append(
            "\n".join(
                f"{ch}) {text}"
                for ch, text in zip(letters(question), question.choices, strict=True)
            )
        )
    return blocks


def prompt_card(question: Question, prompt: DailyPrompt) -> Card:
    """The card posted in the channel: prompt, choices as buttons, a way to answer in words."""
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
    return Outgoing(
        Delivery.CHANNEL,
        channel.external_id,
        prompt_card(question, prompt),
        key=f"daily:{prompt.id}:post",
        tags={"prompt": str(prompt.id)},
    )


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
    """Create the channel's prompt for ``day`` and queue its post; None if it exists already."""
    schedule = ensure_schedule(ctx)
    created = ctx.uow.daily.add_prompts(
        [NewPrompt(ctx.channel, question.id, day, now, schedule.reveal_at(now, day))]
    )
    if not created:
        return None
    prompt = created[0]
    ctx.uow.daily.queue(
        [(ctx.workspace.id, ctx.workspace.platform, post_message(ctx.channel, question, prompt))],
        now,
    )
    return prompt


def show_daily(ctx: Context) -> list[Outgoing]:
    """Post today's question in the channel if it is not posted yet, else show it again."""
    schedule = ensure_schedule(ctx)
    today = schedule.local_date_of(ctx.now)
    prompt = ctx.uow.daily.for_date(ctx.channel, today)
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
    history = ctx.uow.daily.history([ctx.channel.id]).get(ctx.channel.id, [])
    seen = ctx.uow.daily.seen_by_members([ctx.channel.id]).get(ctx.channel.id, {})
    question = choose_question(ctx.bank, schedule, history, seen, ctx.channel.id)
    if question is None:
        raise UserError("There are no questions loaded. Add a pack to content/packs.")
    post_daily_prompt(ctx, question, today, ctx.now)
    return []


class DailyPostJob:
    """Posts the daily question in every channel whose schedule is due (a DueJob)."""

    name = "daily-post"

    def __init__(self, batch: int = 250) -> None:
        self.batch = batch

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow.schedules.next_due()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        """Post what is due at ``now`` (claiming at most ``batch`` channels); returns how many
        schedules were handled, posted or skipped."""
        due = uow.schedules.claim_due(now, self.batch)
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
        history = uow.daily.history(ids) if ids else {}
        seen = uow.daily.seen_by_members(ids) if ids else {}
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
        for prompt in uow.daily.add_prompts(new):
            item = by_channel[prompt.channel_id]
            question = services.bank.get(prompt.question_id)
            assert question is not None
            messages.append(
                (prompt.workspace_id, item.platform, post_message(item.channel, question, prompt))
            )
        uow.daily.queue(messages, now)
        uow.schedules.set_next(updates)
        return len(due)


class DailyRevealJob:
    """Reveals the answer of every daily prompt whose reveal time has come (a DueJob)."""

    name = "daily-reveal"

    def __init__(self, batch: int = 250) -> None:
        self.batch = batch

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return uow.daily.next_reveal_at()

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        due = uow.daily.claim_reveals(now, self.batch)
        if not due:
            return 0
        stats = uow.daily.reveal_stats([d.prompt.id for d in due])
        messages = []
        for item in due:
            message = self._message(item, services, stats.get(item.prompt.id, RevealStats()), now)
            if message is not None:
                messages.append((item.prompt.workspace_id, item.platform, message))
        uow.daily.mark_revealed([d.prompt.id for d in due], now)
        uow.daily.queue(messages, now)
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


# -- answering ----------------------------------------------------------------------------


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
    source = question.sources[0]
    # The grader's feedback usually ends with the source already; say it once.
    footer = f"{question.topic} · difficulty {question.difficulty}"
    if source not in result.feedback:
        footer = f"Source: {source} · {footer}"
    return Card(blocks=tuple(blocks), footer=footer)


def answer_daily(ctx: Context, answer: str, prompt: DailyPrompt | None = None) -> list[Outgoing]:
    """Grade an answer to a daily prompt (``prompt``, else the channel's latest) and reply
    privately.

    The first answer before the reveal is scored; later ones, and any after the reveal,
    get feedback only (what an answer records: ``bot.core.answers``).
    """
    if not answer.strip():
        raise UserError("Your answer is empty. Type /answer followed by what you think.")
    if prompt is None:
        prompt = ctx.uow.daily.latest(ctx.channel, ctx.now)
    if prompt is None:
        raise UserError(
            "There is no daily question open in this channel yet. Type /daily to get one."
        )
    question = ctx.bank.get(prompt.question_id)
    if question is None:
        raise UserError("That question is no longer in the bank.")
    result = grade_answer(ctx, question, answer)
    now = ctx.now
    revealed = prompt.reveal_at <= now or (
        prompt.revealed_at is not None and prompt.revealed_at <= now
    )
    scored = not revealed and not ctx.uow.attempts.has_scored(ctx.user, prompt)
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
            grade_card(question, result, note),
            channel=ctx.channel.external_id,
        )
    ]


def daily_action(ctx: Context, parts: list[str], text: str) -> list[Outgoing]:
    """Buttons and forms of a daily post: ``daily:<prompt>:<letter>|form|submit``."""
    if len(parts) != 3 or not parts[1].isdigit():
        raise UserError("That button is no longer valid.")
    prompt = ctx.uow.daily.get(ctx.workspace, int(parts[1]))
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


# -- /studybot ----------------------------------------------------------------------------

STUDYBOT_USAGE = (
    "Usage: /studybot schedule [TIME] [ZONE] [DAYS] [topics=A,B] [roles=eng|pm|any] "
    "[mix=1:2,2:2,3:1] [reveal=8h] · /studybot schedule show|pause|resume|skip [DATE] · "
    "/studybot nudges on|off"
)


def _reply(ctx: Context, lines: Sequence[str], title: str = "") -> list[Outgoing]:
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            Card(title=title, blocks=("\n".join(lines),)),
            channel=ctx.channel.external_id,
        )
    ]


def _save_schedule(ctx: Context, schedule: Schedule) -> Schedule:
    saved = ctx.uow.schedules.save(schedule.with_next(ctx.now))
    if saved.next_post_at is not None:
        # Changing the schedule never lets an open prompt's reveal slip past the next post.
        ctx.uow.daily.clamp_reveals(ctx.channel, saved.next_post_at - timedelta(minutes=1))
    return saved


def studybot_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/studybot``: channel schedules (admins) and the acting user's nudges."""
    words = args.split()
    if not words or words[0].lower() in ("help", "?"):
        return [say(ctx.user.external_id, STUDYBOT_USAGE, channel=ctx.channel.external_id)]
    area, rest = words[0].lower(), words[1:]
    if area == "nudges":
        return nudges_setting(ctx, rest)
    if area != "schedule":
        raise UserError(f"I don't know /studybot {area[:30]}. {STUDYBOT_USAGE}")
    verb = rest[0].lower() if rest else "show"
    if verb == "show":
        if len(rest) > 1:
            raise UserError("Usage: /studybot schedule show")
        schedule = ctx.uow.schedules.get(ctx.channel)
        if schedule is None:
            return _reply(
                ctx,
                [
                    "This channel has no schedule yet: the first /daily starts the default "
                    "(09:00 on weekdays, every topic).",
                    STUDYBOT_USAGE,
                ],
            )
        return _reply(ctx, describe(schedule, ctx.now), title=f"Schedule of #{ctx.channel.name}")
    if not ctx.is_admin:
        raise UserError("Only workspace admins can change a channel's schedule.")
    schedule = ensure_schedule(ctx)
    if verb == "pause":
        _save_schedule(ctx, replace(schedule, paused=True))
        return _reply(ctx, ["Paused: no daily question until /studybot schedule resume."])
    if verb == "resume":
        saved = _save_schedule(ctx, replace(schedule, paused=False))
        return _reply(ctx, ["Resumed.", *describe(saved, ctx.now)])
    if verb == "skip":
        day = parse_skip_date(" ".join(rest[1:]), schedule, ctx.now)
        today = schedule.local_date_of(ctx.now)
        if day < today:
            raise UserError(f"{day.isoformat()} is in the past; skip a day from today on.")
        if day > today + timedelta(days=366):
            raise UserError("Skip dates can be at most a year ahead.")
        kept = frozenset(d for d in schedule.skip_dates if d >= today) | {day}
        if len(kept) > 60:
            raise UserError("That is too many skipped days; remove the schedule's days instead.")
        saved = _save_schedule(ctx, replace(schedule, skip_dates=kept))
        note = ""
        if ctx.uow.daily.for_date(ctx.channel, day) is not None:
            note = " Today's question is already posted; it stays."
        return _reply(
            ctx,
            [
                f"No daily question on {day.strftime('%a %d %b %Y')}.{note}",
                *describe(saved, ctx.now),
            ],
        )
    updated = parse_schedule_args(schedule, rest, ctx.bank.topics())
    if not eligible(ctx.bank, updated):
        raise UserError("No question matches those topics and roles; widen them.")
    saved = _save_schedule(ctx, updated)
    return _reply(ctx, ["Schedule saved.", *describe(saved, ctx.now)])

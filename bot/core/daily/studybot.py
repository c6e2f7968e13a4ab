"""``/studybot``: a channel's daily schedule (changes are for admins), the dispute queue
(admins; ``bot.core.disputes``) and the acting user's nudges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

from bot.core.context import Context
from bot.core.daily.choosing import eligible
from bot.core.daily.posting import ensure_schedule
from bot.core.daily.schedule import (
    DAILY,
    SCHEDULES,
    Schedule,
    describe,
    parse_schedule_args,
    parse_skip_date,
)
from bot.core.disputes import review_command
from bot.core.errors import UserError
from bot.core.messages import Card, Delivery, Outgoing, say
from bot.core.mock.rounds import pairing_setting
from bot.core.privacy import export_me, forget_me, forget_workspace
from bot.core.quiz.live import describe_live, live_setting
from bot.core.seasons import season_setting
from bot.core.streaks import nudges_setting

# -- /studybot ----------------------------------------------------------------------------

PRIVACY = {"export-me": export_me, "forget-me": forget_me, "forget-workspace": forget_workspace}

STUDYBOT_USAGE = (
    "Usage: /studybot schedule [TIME] [ZONE] [DAYS] [topics=A,B] [roles=eng|pm|any] "
    "[mix=1:2,2:2,3:1] [reveal=8h] · /studybot schedule show|pause|resume|skip [DATE] · "
    "/studybot live [SECONDS|default] (admins: a live-round question's countdown here) · "
    "/studybot nudges on|off · /studybot disputes (admins: the grade disputes to decide) · "
    "/studybot season [length 1m|2w | start DATE] (the leaderboard seasons; changes for admins) · "
    "/studybot pairing on [DAY] [HH:MM] | off (admins: this channel's weekly pairing round) · "
    "/studybot export-me · /studybot forget-me [confirm] · "
    "/studybot forget-workspace [confirm] (admins)"
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
    saved = ctx.uow[SCHEDULES].save(schedule.with_next(ctx.now))
    if saved.next_post_at is not None:
        # Changing the schedule never lets an open prompt's reveal slip past the next post.
        ctx.uow[DAILY].clamp_reveals(ctx.channel, saved.next_post_at - timedelta(minutes=1))
    return saved


def studybot_command(ctx: Context, args: str) -> list[Outgoing]:
    """``/studybot``: channel schedules and disputes (admins), and the acting user's nudges."""
    words = args.split()
    if not words or words[0].lower() in ("help", "?"):
        return [say(ctx.user.external_id, STUDYBOT_USAGE, channel=ctx.channel.external_id)]
    area, rest = words[0].lower(), words[1:]
    if area == "nudges":
        return nudges_setting(ctx, rest)
    if area == "disputes":
        return review_command(ctx, rest)
    if area == "live":
        return live_setting(ctx, rest)
    if area in PRIVACY:
        return PRIVACY[area](ctx, rest)
    if area == "season":
        return season_setting(ctx, rest)
    if area == "pairing":
        return pairing_setting(ctx, rest)
    if area != "schedule":
        raise UserError(f"I don't know /studybot {area[:30]}. {STUDYBOT_USAGE}")
    verb = rest[0].lower() if rest else "show"
    if verb == "show":
        if len(rest) > 1:
            raise UserError("Usage: /studybot schedule show")
        schedule = ctx.uow[SCHEDULES].get(ctx.channel)
        if schedule is None:
            return _reply(
                ctx,
                [
                    "This channel has no schedule yet: the first /daily starts the default "
                    "(09:00 on weekdays, every topic) and, on a weekday, posts today's "
                    "question at once.",
                    describe_live(ctx.channel),
                    STUDYBOT_USAGE,
                ],
            )
        return _reply(
            ctx,
            [*describe(schedule, ctx.now), describe_live(ctx.channel)],
            title=f"Schedule of #{ctx.channel.name}",
        )
    if not ctx.is_admin:
        raise UserError("Only workspace admins can change a channel's schedule.")
    schedule = ensure_schedule(ctx)
    if verb == "pause":
        if schedule.paused:
            return _reply(ctx, ["Already paused: /studybot schedule resume starts it again."])
        _save_schedule(ctx, replace(schedule, paused=True))
        return _reply(ctx, ["Paused: no daily question until /studybot schedule resume."])
    if verb == "resume":
        if not schedule.paused:
            return _reply(
                ctx, ["Not paused, so there is nothing to resume.", *describe(schedule, ctx.now)]
            )
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
        if ctx.uow[DAILY].for_date(ctx.channel, day) is not None:
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

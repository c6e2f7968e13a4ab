"""Each person's mock preferences: weekly availability windows and reminder offsets."""

from __future__ import annotations

from datetime import timedelta

from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.messages import (
    Outgoing,
)
from bot.core.mock.common import (
    text_reply,
    zone_of,
)
from bot.core.mock.model import (
    MOCKS,
    SCHEDULED,
    Window,
)
from bot.core.mock.reminders import (
    offsets_for,
    plan_reminders,
)
from bot.core.mock.times import (
    describe_window,
    in_words,
    parse_offsets,
    parse_window,
)

MAX_WINDOWS = 14


def _windows_text(windows: list[Window]) -> str:
    return "\n".join(describe_window(w.weekdays, w.start, w.end, w.timezone) for w in windows)


def available(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock available`` lists, ``… clear`` removes, ``… DAYS FROM-TO`` adds a weekly window
    (read in your zone)."""
    text = args.strip()
    zone_name = zone_of(ctx.user, ctx.workspace)
    if text.lower() in ("", "list"):
        windows = ctx.uow[MOCKS].windows(ctx.workspace, ctx.user)
        if not windows:
            return text_reply(
                ctx,
                "You have no availability windows. Add one: /mock available weekdays 18:00-20:00 "
                f"(in your zone, {zone_name}).",
            )
        return text_reply(ctx, "You're available for mocks:\n" + _windows_text(windows))
    if text.lower() in ("clear", "off", "none"):
        removed = ctx.uow[MOCKS].clear_windows(ctx.workspace, ctx.user)
        return text_reply(ctx, f"Removed {removed} window{'s' * (removed != 1)}.")
    days, start, end = parse_window(text)
    existing = ctx.uow[MOCKS].windows(ctx.workspace, ctx.user)
    if len(existing) >= MAX_WINDOWS:
        raise UserError(f"You have {MAX_WINDOWS} windows; /mock available clear to start over.")
    ctx.uow[MOCKS].add_window(ctx.workspace, ctx.user, days, start, end, zone_name, ctx.now)
    windows = ctx.uow[MOCKS].windows(ctx.workspace, ctx.user)
    return text_reply(
        ctx,
        "Added. You're available for mocks:\n"
        + _windows_text(windows)
        + "\n/mock pair finds someone free at the same time.",
    )


def remind(ctx: Context, args: str) -> list[Outgoing]:
    """``/mock remind`` shows, ``/mock remind 24h 1h`` sets, ``/mock remind off`` stops the
    reminders of your future mocks (already planned ones move to the new times)."""
    text = args.strip().lower()
    if not text:
        current = offsets_for(ctx.uow, ctx.user)
        said = ", ".join(in_words(timedelta(minutes=m)) for m in current) or "none"
        return text_reply(
            ctx, f"Mock reminders: {said} before. Change with /mock remind 24h 1h (or off)."
        )
    offsets = [] if text in ("off", "none", "no") else parse_offsets(text)
    ctx.uow[MOCKS].set_reminder_offsets(ctx.workspace, ctx.user, offsets)
    for mock in ctx.uow[MOCKS].for_user(ctx.workspace, ctx.user, (SCHEDULED,)):
        if mock.accepted(ctx.user.id):
            plan_reminders(ctx.uow, mock, ctx.user, ctx.now)
    said = ", ".join(in_words(timedelta(minutes=m)) for m in offsets)
    return text_reply(
        ctx, f"Mock reminders: {said} before." if offsets else "Mock reminders are off."
    )

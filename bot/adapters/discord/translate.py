"""Discord interactions and messages as neutral events. Translation only, no rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import discord

from bot.adapters.discord.commands import command_line
from bot.core.events import Event, EventKind

PLATFORM = "discord"


def workspace_of(guild_id: int | None, user_id: int) -> str:
    """A guild is a workspace; a user's DMs with the bot form a workspace of their own."""
    return str(guild_id) if guild_id is not None else f"dm-{user_id}"


def is_admin(permissions: discord.Permissions, user_id: int, admin_ids: frozenset[str]) -> bool:
    """Manage Server (or Administrator) in the guild, or listed in STUDYBOT_ADMINS."""
    return permissions.manage_guild or permissions.administrator or str(user_id) in admin_ids


def _first_value(components: Iterable[Mapping[str, Any]]) -> str:
    """The first text input's value in a modal submission (action rows or labels)."""
    for component in components:
        if "value" in component and isinstance(component["value"], str):
            return component["value"]
        inner = component.get("components") or (
            [component["component"]] if "component" in component else []
        )
        found = _first_value(inner)
        if found:
            return found
    return ""


def event_from_interaction(interaction: discord.Interaction, admin_ids: frozenset[str]) -> Event:
    """A command, button, select or modal submission as an event.

    Commands become COMMAND with the arguments in the console's order; buttons
    become ACTION with their ``custom_id``; a select becomes ACTION with the
    chosen option's value; a modal submission becomes ACTION with the modal's
    ``custom_id`` and the typed text. Raises ValueError for other interactions.
    """
    data: Mapping[str, Any] = dict(interaction.data or {})
    user = interaction.user
    base: dict[str, Any] = {
        "platform": PLATFORM,
        "workspace": workspace_of(interaction.guild_id, user.id),
        "channel": str(interaction.channel_id or interaction.extras.get("channel_id") or user.id),
        "user": str(user.id),
        "user_name": user.display_name,
        "is_admin": is_admin(interaction.permissions, user.id, admin_ids),
        "is_dm": interaction.guild_id is None,
    }
    kind = interaction.type
    if kind is discord.InteractionType.application_command:
        name, args = command_line(data)
        return Event(EventKind.COMMAND, command=name, args=args, **base)
    if kind is discord.InteractionType.component:
        values = data.get("values") or []
        action = str(values[0]) if values else str(data.get("custom_id", ""))
        return Event(EventKind.ACTION, action=action, **base)
    if kind is discord.InteractionType.modal_submit:
        text = _first_value(data.get("components") or [])
        return Event(EventKind.ACTION, action=str(data.get("custom_id", "")), text=text, **base)
    raise ValueError(f"not an interaction studybot handles: {kind!r}")


def message_text(message: discord.Message, bot_id: int) -> str:
    """The message's text without mentions of the bot."""
    text = message.content
    for mention in (f"<@{bot_id}>", f"<@!{bot_id}>"):
        text = text.replace(mention, " ")
    return text.strip()


def event_from_message(
    message: discord.Message,
    *,
    bot_id: int,
    post_id: int,
    channel_id: int,
    admin_ids: frozenset[str],
) -> Event:
    """A reply to one of the bot's posts (in its thread, or as a reply) as a MESSAGE event.

    ``thread`` is the post's message id (a thread started from a message has the
    message's id); ``channel`` is the channel the post is in.
    """
    author = message.author
    permissions = (
        author.guild_permissions if isinstance(author, discord.Member) else discord.Permissions()
    )
    return Event(
        EventKind.MESSAGE,
        PLATFORM,
        workspace_of(message.guild.id if message.guild else None, author.id),
        str(channel_id),
        str(author.id),
        user_name=author.display_name,
        text=message_text(message, bot_id),
        thread=str(post_id),
        is_admin=is_admin(permissions, author.id, admin_ids),
        is_dm=message.guild is None,
    )

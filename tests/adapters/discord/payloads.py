"""Realistic Discord payloads, built on the recorded fixtures in ./fixtures.

discord.py reads some keys without defaults (members need ``flags``, channels
``position``, interactions ``attachment_size_limit``), so every builder fills
in what a real gateway or HTTP payload carries.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
BOT_ID = "900000000000000001"
APP_ID = "900000000000000002"
GUILD_ID = "290926798626357999"
CHANNEL_ID = "645027906669510667"
USER_ID = "53908232506183680"
OTHER_USER_ID = "53908232506183681"
ADMIN_PERMISSIONS = "2147483647"  # includes Manage Server (1 << 5)
MEMBER_PERMISSIONS = str((1 << 10) | (1 << 11))  # view channel, send messages
TIMESTAMP = "2026-12-01T09:00:00.000000+00:00"
_ids = itertools.count(1_200_000_000_000_000_000)

BOT_USER: dict[str, Any] = {
    "id": BOT_ID,
    "username": "studybot",
    "global_name": "studybot",
    "discriminator": "0",
    "avatar": None,
    "bot": True,
    "verified": True,
    "flags": 0,
    "mfa_enabled": False,
    "public_flags": 0,
}


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return data


def snowflake() -> str:
    return str(next(_ids))


def dm_channel_id(user_id: str) -> str:
    return str(int(user_id) + 7)


def application() -> dict[str, Any]:
    return {
        "id": APP_ID,
        "name": "studybot",
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "00" * 32,
        "flags": 0,
        "owner": {**BOT_USER, "id": USER_ID, "username": "Mason", "bot": False},
        "team": None,
        "rpc_origins": [],
    }


def user(user_id: str = USER_ID, name: str = "Mason") -> dict[str, Any]:
    return {
        "id": user_id,
        "username": name,
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "public_flags": 0,
    }


def member(
    user_id: str = USER_ID, name: str = "Mason", permissions: str = MEMBER_PERMISSIONS
) -> dict[str, Any]:
    return {
        "user": user(user_id, name),
        "roles": [],
        "premium_since": None,
        "permissions": permissions,
        "pending": False,
        "nick": None,
        "mute": False,
        "deaf": False,
        "joined_at": "2017-03-13T19:19:14.040000+00:00",
        "flags": 0,
        "avatar": None,
    }


def text_channel(channel_id: str = CHANNEL_ID, name: str = "general") -> dict[str, Any]:
    return {
        "id": channel_id,
        "type": 0,
        "guild_id": GUILD_ID,
        "name": name,
        "position": 0,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "rate_limit_per_user": 0,
        "last_message_id": None,
        "flags": 0,
    }


def thread(thread_id: str, parent_id: str = CHANNEL_ID) -> dict[str, Any]:
    return {
        "id": thread_id,
        "type": 11,
        "guild_id": GUILD_ID,
        "parent_id": parent_id,
        "owner_id": USER_ID,
        "name": "Daily question",
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "total_message_sent": 0,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": TIMESTAMP,
            "locked": False,
        },
    }


def guild() -> dict[str, Any]:
    return {
        "id": GUILD_ID,
        "name": "GPU study group",
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": USER_ID,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": "en-US",
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "vanity_url_code": None,
        "max_members": 500000,
        "features": [],
        "roles": [
            {
                "id": GUILD_ID,
                "name": "@everyone",
                "permissions": MEMBER_PERMISSIONS,
                "position": 0,
                "color": 0,
                "hoist": False,
                "managed": False,
                "mentionable": False,
                "flags": 0,
            }
        ],
        "emojis": [],
        "stickers": [],
        "member_count": 2,
        "large": False,
        "unavailable": False,
        "joined_at": TIMESTAMP,
        "channels": [text_channel()],
        "threads": [],
        "members": [{**member(BOT_ID, "studybot"), "user": BOT_USER}],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def ready(gateway_url: str, guilds: list[dict[str, Any]], shard: list[int]) -> dict[str, Any]:
    return {
        "v": 10,
        "user": BOT_USER,
        "guilds": [{"id": g["id"], "unavailable": True} for g in guilds],
        "session_id": "fake-session",
        "resume_gateway_url": gateway_url,
        "application": {"id": APP_ID, "flags": 0},
        "shard": shard,
    }


def app_command(command_id: str, command: dict[str, Any], guild_id: str | None) -> dict[str, Any]:
    data = {
        **command,
        "id": command_id,
        "application_id": APP_ID,
        "version": command_id,
        "default_member_permissions": command.get("default_member_permissions"),
        "type": command.get("type", 1),
    }
    if guild_id is not None:
        data["guild_id"] = guild_id
    return data


def message(
    message_id: str,
    channel_id: str,
    *,
    content: str = "",
    embeds: list[Any] | None = None,
    components: list[Any] | None = None,
    flags: int = 0,
    attachments: list[Any] | None = None,
    author: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "id": message_id,
        "channel_id": channel_id,
        "author": author or BOT_USER,
        "content": content,
        "embeds": embeds or [],
        "components": components or [],
        "attachments": attachments or [],
        "type": 0,
        "tts": False,
        "timestamp": TIMESTAMP,
        "edited_timestamp": None,
        "pinned": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "flags": flags,
    }


def dm_channel(channel_id: str, recipient_id: str) -> dict[str, Any]:
    return {
        "id": channel_id,
        "type": 1,
        "last_message_id": None,
        "flags": 0,
        "recipients": [user(recipient_id)],
    }


def _interaction(
    kind: int, data: dict[str, Any], permissions: str, user_id: str, base: str
) -> dict[str, Any]:
    payload = fixture(base)
    payload.update(
        {
            "id": snowflake(),
            "type": kind,
            "token": f"token-{snowflake()}",
            "application_id": APP_ID,
            "version": 1,
            "guild_id": GUILD_ID,
            "channel_id": CHANNEL_ID,
            "channel": {**text_channel(), "permissions": "281474976710655"},
            "member": member(user_id, permissions=permissions),
            "app_permissions": "442368",
            "locale": "en-US",
            "guild_locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": GUILD_ID},
            "context": 0,
            "attachment_size_limit": 8 * 1024 * 1024,
            "data": data,
        }
    )
    return payload


def option(name: str, value: Any, kind: int = 3) -> dict[str, Any]:
    """A command option: string (3), integer (4), boolean (5), user (6, the user's id)."""
    return {"name": name, "type": kind, "value": value}


def user_option(name: str, user_id: str) -> dict[str, Any]:
    return option(name, user_id, 6)


def subcommand(name: str, *options: dict[str, Any]) -> dict[str, Any]:
    """A subcommand (type 1) with its options, as Discord nests them."""
    sub: dict[str, Any] = {"name": name, "type": 1}
    if options:
        sub["options"] = list(options)
    return sub


def _user_ids(options: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    for o in options:
        if o.get("type") == 6:
            found.append(str(o["value"]))
        found.extend(_user_ids(o.get("options") or []))
    return found


def command(
    name: str,
    options: list[dict[str, Any]] | None = None,
    *,
    permissions: str = MEMBER_PERMISSIONS,
    user_id: str = USER_ID,
    user_name: str = "Mason",
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A slash command (type 2), as in type2_application_command_slash_chat_input.json.

    Users picked in user options are in ``data.resolved`` (``users`` and ``members``), as
    Discord sends them; ``names`` gives their names (default: Nadia).
    """
    data = copy.deepcopy(fixture("type2_application_command_slash_chat_input")["data"])
    data.update({"name": name, "id": snowflake(), "type": 1, "options": options or []})
    picked = _user_ids(data["options"])
    if picked:
        names = names or {}
        data["resolved"] = {
            "users": {i: user(i, names.get(i, "Nadia")) for i in picked},
            "members": {
                i: {k: v for k, v in member(i, names.get(i, "Nadia")).items() if k != "user"}
                for i in picked
            },
        }
    payload = _interaction(
        2, data, permissions, user_id, "type2_application_command_slash_chat_input"
    )
    payload["member"] = member(user_id, user_name, permissions)
    return payload


def autocomplete(name: str, option: str, value: str, *, sub: str | None = None) -> dict[str, Any]:
    """An autocomplete interaction (type 4) for ``option`` of ``/name`` (or ``/name sub``)."""
    focused: list[dict[str, Any]] = [{"type": 3, "name": option, "value": value, "focused": True}]
    data = {
        "id": snowflake(),
        "name": name,
        "type": 1,
        "options": [{"type": 1, "name": sub, "options": focused}] if sub else focused,
    }
    return _interaction(
        4, data, MEMBER_PERMISSIONS, USER_ID, "type2_application_command_slash_chat_input"
    )


def button(
    custom_id: str,
    message_id: str,
    *,
    user_id: str = USER_ID,
    permissions: str = MEMBER_PERMISSIONS,
) -> dict[str, Any]:
    """A button click (type 3) on the bot's message ``message_id``."""
    payload = _interaction(
        3,
        {"custom_id": custom_id, "component_type": 2},
        permissions,
        user_id,
        "type3_message_component_button",
    )
    payload["message"] = message(message_id, CHANNEL_ID)
    return payload


def select(custom_id: str, value: str, message_id: str) -> dict[str, Any]:
    payload = _interaction(
        3,
        {"custom_id": custom_id, "component_type": 3, "values": [value]},
        MEMBER_PERMISSIONS,
        USER_ID,
        "type3_message_component_string_select",
    )
    payload["message"] = message(message_id, CHANNEL_ID)
    return payload


def modal_submit(custom_id: str, text: str, *, input_id: str = "text") -> dict[str, Any]:
    """A modal submission (type 5), in the action-row shape of the recorded fixture."""
    data = copy.deepcopy(fixture("type5_modal_submit_text_input_actionrow_legacy")["data"])
    data["custom_id"] = custom_id
    data["components"][0]["components"][0].update({"custom_id": input_id, "value": text})
    return _interaction(
        5, data, MEMBER_PERMISSIONS, USER_ID, "type5_modal_submit_text_input_actionrow_legacy"
    )


def ping() -> dict[str, Any]:
    return {
        "id": snowflake(),
        "type": 1,
        "token": "ping-token",
        "application_id": APP_ID,
        "version": 1,
    }


def user_message(
    channel_id: str,
    content: str,
    *,
    reference: dict[str, Any] | None = None,
    user_id: str = USER_ID,
) -> dict[str, Any]:
    """MESSAGE_CREATE from a member."""
    data = message(snowflake(), channel_id, content=content, author=user(user_id))
    data["guild_id"] = GUILD_ID
    data["member"] = {k: v for k, v in member(user_id).items() if k != "user"}
    if reference is not None:
        data["message_reference"] = {
            "message_id": reference["id"],
            "channel_id": reference["channel_id"],
            "guild_id": GUILD_ID,
            "type": 0,
        }
        data["referenced_message"] = reference
        data["type"] = 19
    return data

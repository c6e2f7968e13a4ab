"""``studybot discord``: upload the slash commands, print the invite URL."""

from __future__ import annotations

import argparse
import asyncio
import sys
from urllib.parse import urlencode

from bot.cli.common import usage_of
from bot.config import load_settings
from bot.extras import missing_extra

MISSING_EXTRA = ("discord", "nacl", "aiolimiter", "yarl")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("discord", help="Discord: sync slash commands, invite URL")
    actions = parser.add_subparsers(dest="discord_action", metavar="ACTION")
    parser.set_defaults(handler=usage_of(parser))
    sync = actions.add_parser(
        "sync", help="upload the slash commands globally, or to one guild (instant)"
    )
    sync.add_argument("--guild", metavar="ID", help="sync to this guild only (for testing)")
    sync.set_defaults(handler=sync_command)
    invite = actions.add_parser("invite", help="print the URL that adds the bot to a server")
    invite.set_defaults(handler=invite_command)


def _fail(message: str) -> int:
    print(f"studybot discord: {message}", file=sys.stderr)
    return 2


def sync_command(args: argparse.Namespace) -> int:
    guild = args.guild
    if guild is not None and not guild.isdigit():
        return _fail(f"--guild takes a guild id (a number), not {guild!r}")
    try:
        from bot.adapters.discord.client import SyncTarget, sync_now
    except ImportError as exc:
        if exc.name not in MISSING_EXTRA:
            raise
        return _fail(missing_extra("Discord support", "discord"))
    import discord

    from bot.core.bank import QuestionBank
    from bot.core.errors import ContentError, StudybotError

    try:
        settings = load_settings()
    except ValueError as exc:
        return _fail(str(exc))
    try:
        topics = QuestionBank.load(settings.pack_dirs).topics()
        names = asyncio.run(sync_now(settings, topics, SyncTarget(int(guild) if guild else None)))
    except ContentError as exc:
        return _fail("the question packs have problems:\n  " + "\n  ".join(exc.problems))
    except StudybotError as exc:
        return _fail(str(exc))
    except discord.LoginFailure:
        return _fail("Discord refused DISCORD_BOT_TOKEN")
    except discord.HTTPException as exc:
        return _fail(f"Discord answered {exc.status}: {exc.text or exc}")
    where = f"guild {guild}" if guild else "every guild (global commands take up to an hour)"
    print(f"synced {len(names)} commands to {where}: {', '.join('/' + n for n in names)}")
    return 0


def invite_command(_args: argparse.Namespace) -> int:
    """Print the invite URL; needs DISCORD_APPLICATION_ID, not the Discord extra."""
    try:
        settings = load_settings()
    except ValueError as exc:
        return _fail(str(exc))
    app_id = settings.discord_application_id
    if not app_id:
        return _fail("set DISCORD_APPLICATION_ID (General Information in the Developer Portal)")
    if not app_id.isdigit():
        return _fail(
            f"DISCORD_APPLICATION_ID is a number (General Information → Application ID in the "
            f"Developer Portal), not {app_id!r}"
        )
    print(invite_url(app_id))
    return 0


#: The permissions the bot asks for when it is added to a server, by Discord's bit numbers
#: (https://discord.com/developers/docs/topics/permissions).
INVITE_PERMISSIONS = {
    "view_channel": 10,
    "send_messages": 11,
    "embed_links": 14,
    "attach_files": 15,
    "read_message_history": 16,
    "send_messages_in_threads": 38,
}
INVITE_SCOPES = ("bot", "applications.commands")


def invite_url(application_id: str) -> str:
    """The OAuth2 URL that adds the bot to a server with the scopes and permissions it uses."""
    permissions = sum(1 << bit for bit in INVITE_PERMISSIONS.values())
    query = urlencode(
        {"client_id": application_id, "scope": " ".join(INVITE_SCOPES), "permissions": permissions}
    )
    return f"https://discord.com/oauth2/authorize?{query}"

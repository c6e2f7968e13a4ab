"""``studybot slack manifest``: the Slack app manifest, for Socket Mode or for an HTTPS URL.

The manifest is built from the command table, so every command of the bot is a
slash command (with ``STUDYBOT_SLACK_COMMAND_PREFIX`` or ``--prefix`` in front
of each name). ``slack/manifest.yml`` is this output for Socket Mode and
``slack/manifest.http.yml`` for a placeholder URL; a test keeps them in step.
This module needs no Slack library, so it works without the ``slack`` extra.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any
from urllib.parse import urlsplit

import yaml

from bot.cli.common import usage_of
from bot.config import load_settings
from bot.core.commands import COMMANDS

EVENTS_PATH = "/slack/events"
BOT_SCOPES = [
    "app_mentions:read",  # @studybot mentions
    "channels:history",  # replies in threads of daily posts (public channels)
    "groups:history",  # the same in private channels
    "im:history",  # direct messages to the bot
    "chat:write",  # posts, private (ephemeral) replies, updates
    "chat:write.public",  # post the daily question in public channels without joining
    "commands",  # slash commands
    "files:write",  # charts and calendar files
    "im:write",  # open a DM for reminders
    "users:read",  # time zones and admin rights (users.info)
]
BOT_EVENTS = [
    "app_home_opened",
    "app_mention",
    "message.channels",
    "message.groups",
    "message.im",
    "user_change",
]
DESCRIPTION = (
    "Daily questions, quizzes, streaks and mock interviews for GPU and ML-infra interviews"
)


def slash_commands(prefix: str) -> list[tuple[str, str, str]]:
    """(slash command, description, usage hint) for every command Slack users can type."""
    out: list[tuple[str, str, str]] = []
    for name, spec in COMMANDS.items():
        if spec.console_only:
            continue
        hint = spec.usage.split(" ", 1)[1] if " " in spec.usage else ""
        out.append((f"/{prefix}{name}", spec.summary, hint))
    return out


def events_url(url: str) -> str:
    """The Request URL for ``url``: a bare host gets ``/slack/events``; a path is kept."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc:
        raise ValueError(f"Slack needs an https:// URL, not {url!r}")
    if parts.path in ("", "/"):
        return url.rstrip("/") + EVENTS_PATH
    return url


def build_manifest(
    url: str | None = None, *, prefix: str = "", name: str = "studybot"
) -> dict[str, Any]:
    """The app manifest: Socket Mode without ``url``; HTTP with every request sent to ``url``."""
    request_url = events_url(url) if url else None
    commands: list[dict[str, Any]] = []
    for command, description, hint in slash_commands(prefix):
        entry: dict[str, Any] = {
            "command": command,
            "description": description[:100],
            "should_escape": False,
        }
        if hint:
            entry["usage_hint"] = hint[:100]
        if request_url:
            entry["url"] = request_url
        commands.append(entry)
    events: dict[str, Any] = {"bot_events": list(BOT_EVENTS)}
    interactivity: dict[str, Any] = {"is_enabled": True}
    if request_url:
        events = {"request_url": request_url, **events}
        interactivity["request_url"] = request_url
    return {
        "display_information": {
            "name": name,
            "description": DESCRIPTION[:139],
            "background_color": "#1d3557",
        },
        "features": {
            "app_home": {
                "home_tab_enabled": True,
                "messages_tab_enabled": True,
                "messages_tab_read_only_enabled": False,
            },
            "bot_user": {"display_name": name, "always_online": True},
            "slash_commands": commands,
        },
        "oauth_config": {"scopes": {"bot": list(BOT_SCOPES)}},
        "settings": {
            "event_subscriptions": events,
            "interactivity": interactivity,
            "org_deploy_enabled": False,
            "socket_mode_enabled": request_url is None,
            "token_rotation_enabled": False,
        },
    }


def render_manifest(manifest: dict[str, Any]) -> str:
    """The manifest as YAML, keys in Slack's documented order."""
    return yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True, width=100)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("slack", help="Slack app set-up")
    parser.set_defaults(handler=usage_of(parser))
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    manifest = actions.add_parser(
        "manifest",
        help="print the Slack app manifest (Socket Mode, or HTTP with --url)",
        description="Print the Slack app manifest to paste into api.slack.com/apps "
        "(Create New App → From a manifest).",
    )
    manifest.add_argument(
        "--url",
        help="public https URL of this bot (HTTP mode); a bare host gets /slack/events",
    )
    manifest.add_argument(
        "--prefix",
        help="slash command prefix (default: STUDYBOT_SLACK_COMMAND_PREFIX, else none)",
    )
    manifest.add_argument("--name", default="studybot", help="app and bot user name")
    manifest.set_defaults(handler=print_manifest)


def print_manifest(args: argparse.Namespace) -> int:
    prefix = args.prefix
    if prefix is None:
        try:
            prefix = load_settings().studybot_slack_command_prefix
        except ValueError as exc:
            print(f"studybot slack manifest: {exc}", file=sys.stderr)
            return 2
    prefix = prefix.strip().lower().lstrip("/")
    if not re.fullmatch(r"[a-z0-9_-]{0,20}", prefix):
        print(
            f"studybot slack manifest: --prefix takes up to 20 lowercase letters, digits, "
            f"'-' or '_', not {args.prefix!r}",
            file=sys.stderr,
        )
        return 2
    name = args.name.strip()
    if not 1 <= len(name) <= 35:
        print("studybot slack manifest: --name takes 1 to 35 characters", file=sys.stderr)
        return 2
    try:
        manifest = build_manifest(args.url, prefix=prefix, name=name)
    except ValueError as exc:
        print(f"studybot slack manifest: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(render_manifest(manifest))
    return 0

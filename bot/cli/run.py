"""``studybot run``: start every adapter whose credentials are set, and the scheduler."""

from __future__ import annotations

import argparse
import sys

from bot.config import Settings, load_settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("run", help="run the bot on Slack and/or Discord")
    parser.set_defaults(handler=run_bot)


def configured_platforms(settings: Settings) -> list[str]:
    platforms = []
    if settings.slack_enabled:
        platforms.append("slack")
    if settings.discord_gateway_enabled or settings.discord_http_enabled:
        platforms.append("discord")
    return platforms


def run_bot(_args: argparse.Namespace) -> int:
    settings = load_settings()
    platforms = configured_platforms(settings)
    if not platforms:
        print(
            "studybot run: no Slack or Discord credentials are set "
            "(SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET or SLACK_APP_TOKEN; DISCORD_BOT_TOKEN "
            "or DISCORD_PUBLIC_KEY).\nTo try the bot without them, run: studybot console",
            file=sys.stderr,
        )
        return 2
    print(
        f"studybot run: {', '.join(platforms)} support is not available yet; "
        "use studybot console meanwhile.",
        file=sys.stderr,
    )
    return 2

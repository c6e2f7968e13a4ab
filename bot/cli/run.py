"""``studybot run``: start every adapter whose credentials are set, and the scheduler."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys

from bot import __version__
from bot.config import Settings, load_settings
from bot.core.errors import ContentError, StudybotError
from bot.logging_setup import setup_logging

log = logging.getLogger(__name__)
SWITCH_INTERVAL = 0.001  # seconds a thread holds the GIL before another may take it


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
    from bot.bootstrap import bootstrap
    from bot.db.engine import display_url
    from bot.runtime import build_adapters, run_forever

    try:
        settings = load_settings()
    except ValueError as exc:
        print(f"studybot run: {exc}", file=sys.stderr)
        return 2
    setup_logging(settings.studybot_log_level, settings.secrets())
    if not configured_platforms(settings):
        print(
            "studybot run: no Slack or Discord credentials are set "
            "(SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET or SLACK_APP_TOKEN; DISCORD_BOT_TOKEN "
            "or DISCORD_PUBLIC_KEY).\nTo try the bot without them, run: studybot console",
            file=sys.stderr,
        )
        return 2
    try:
        app = bootstrap(settings)
    except ContentError as exc:
        print("studybot run: the question packs have problems:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except StudybotError as exc:
        print(f"studybot run: {exc}", file=sys.stderr)
        return 2
    try:
        adapters = build_adapters(app, settings)
        # What start-up built (the question bank, SQLAlchemy's mappers, the frameworks) lives
        # as long as the process: out of the collector's way, a full collection no longer
        # walks it (~150,000 objects, a 100 ms pause in the middle of answering clicks).
        gc.collect()
        gc.freeze()
        # The event loop and the threads that run the core take turns on the GIL: a thread
        # gives it up at every database call and, at the default 5 ms interval, may wait that
        # long to get it back, holding SQLite's write lock (every other answer waits behind
        # it) and delaying the loop's acks. 1 ms: at 200 connections SQLite answered 0.42x ->
        # 0.57x the ack+ephemeral floor, PostgreSQL's ack p99 at 100 clicks/s fell to 85 ms.
        sys.setswitchinterval(SWITCH_INTERVAL)
        log.info(
            "studybot %s starting on %s: database %s, %d questions",
            __version__,
            ", ".join(a.name for a in adapters),
            display_url(app.engine.url),
            len(app.services.bank),
        )
        asyncio.run(run_forever(app, adapters))
    except StudybotError as exc:
        print(f"studybot run: {exc}", file=sys.stderr)
        return 2
    except Exception:
        log.exception("studybot stopped on an unexpected error")
        return 1
    finally:
        app.close()
    log.info("studybot stopped")
    return 0

"""``studybot console``: chat with the bot in the terminal (the console contract)."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime

from bot.config import load_settings
from bot.core.clock import Clock, SimulatedClock, SystemClock
from bot.core.errors import ContentError, StudybotError, UserError
from bot.core.timezones import parse_zone, zone


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "console", help="chat with the bot in this terminal (SQLite by default)"
    )
    parser.add_argument(
        "--db", metavar="URL", help="SQLAlchemy URL (default: sqlite:///studybot.db)"
    )
    parser.add_argument("--user", default="you", help="who you are (default: you)")
    parser.add_argument("--channel", default="general", help="the channel (default: general)")
    parser.add_argument("--tz", metavar="ZONE", help="your time zone, e.g. Europe/Berlin")
    parser.add_argument(
        "--clock",
        metavar="ISO8601",
        help="start a simulated clock at this instant (enables /advance)",
    )
    parser.add_argument("--json", action="store_true", help="print each message as a JSON line")
    parser.set_defaults(handler=run_console_command)


def _fail(message: str) -> int:
    print(f"studybot console: {message}", file=sys.stderr)
    return 2


def parse_clock(text: str, tz: str | None) -> SimulatedClock:
    try:
        instant = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise UserError(
            f"--clock {text!r} is not an ISO 8601 instant, e.g. 2026-12-01T09:00:00+00:00"
        ) from exc
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=zone(tz or "UTC"))
    return SimulatedClock(instant)


def run_console_command(args: argparse.Namespace) -> int:
    from bot.adapters.console.run import run_console
    from bot.adapters.console.session import check_name
    from bot.bootstrap import bootstrap

    problem = check_name(args.user)
    if problem is not None:
        return _fail(f"--user: {problem}")
    try:
        tz = parse_zone(args.tz) if args.tz else None
        clock: Clock = parse_clock(args.clock, tz) if args.clock else SystemClock()
        overrides = {"studybot_database_url": args.db} if args.db else {}
        settings = load_settings(**overrides)
        app = bootstrap(settings, clock=clock)
    except ContentError as exc:
        return _fail("the question packs have problems:\n  " + "\n  ".join(exc.problems))
    except (UserError, StudybotError) as exc:
        return _fail(str(exc))
    try:
        return run_console(app, user=args.user, channel=args.channel, tz=tz, json_lines=args.json)
    finally:
        app.close()

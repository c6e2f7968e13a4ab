"""``studybot db upgrade``: apply the database migrations, and say which."""

from __future__ import annotations

import argparse
import sys

from bot.cli.common import usage_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("db", help="database maintenance")
    db_sub = parser.add_subparsers(dest="db_command", metavar="ACTION")
    upgrade = db_sub.add_parser("upgrade", help="apply every pending migration")
    upgrade.add_argument("--db", metavar="URL", help="SQLAlchemy URL (default: from settings)")
    upgrade.add_argument("--revision", default="head", help="target revision (default: head)")
    upgrade.set_defaults(handler=run_upgrade)
    parser.set_defaults(handler=usage_of(parser))


def run_upgrade(args: argparse.Namespace) -> int:
    """Exit 0 once the database is at the revision; 2, with one line, when it cannot be."""
    from bot.config import load_settings
    from bot.core.errors import ConfigError
    from bot.db import migrate
    from bot.db.engine import check_connection, display_url, make_engine

    try:
        url = args.db or load_settings().database_url
        migrate.check_revision(args.revision)
        engine = make_engine(url)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    where = display_url(engine.url)
    try:
        check_connection(engine)
        applied = migrate.upgrade(engine, args.revision)
        at = migrate.current(engine)
    except ConfigError as exc:
        return _fail(str(exc))
    finally:
        engine.dispose()
    position = ", ".join(at) or "base"
    if not applied:
        if args.revision == "head":
            print(f"database at {where} is already up to date ({position})")
        else:
            print(f"nothing to apply: the database at {where} is at {position}")
        return 0
    print(
        f"database at {where}: applied {len(applied)} migration{'s' if len(applied) != 1 else ''}:"
    )
    for name in applied:
        print(f"  {migrate.describe(name)}")
    print(f"now at {position}")
    return 0


def _fail(message: str) -> int:
    print(f"studybot db upgrade: {message}", file=sys.stderr)
    return 2

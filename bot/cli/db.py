"""``studybot db upgrade``: apply the database migrations."""

from __future__ import annotations

import argparse

from bot.cli.common import usage_of
from bot.config import load_settings
from bot.db import migrate
from bot.db.engine import make_engine


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("db", help="database maintenance")
    db_sub = parser.add_subparsers(dest="db_command", metavar="ACTION")
    upgrade = db_sub.add_parser("upgrade", help="apply every pending migration")
    upgrade.add_argument("--db", metavar="URL", help="SQLAlchemy URL (default: from settings)")
    upgrade.add_argument("--revision", default="head", help="target revision (default: head)")
    upgrade.set_defaults(handler=run_upgrade)
    parser.set_defaults(handler=usage_of(parser))


def run_upgrade(args: argparse.Namespace) -> int:
    url = args.db or load_settings().database_url
    engine = make_engine(url)
    try:
        migrate.upgrade(engine, args.revision)
    finally:
        engine.dispose()
    print(f"database at {engine.url.render_as_string(hide_password=True)} is up to date")
    return 0

"""``studybot data delete --workspace ID``: delete one workspace's data, on the server.

The same as an admin's ``/studybot forget-workspace confirm`` (``bot.core.privacy``), for an
operator: a workspace that removed the app, or a request that reached you by mail.
"""

from __future__ import annotations

import argparse
import sys

from bot.cli.common import usage_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("data", help="delete a workspace's data")
    data_sub = parser.add_subparsers(dest="data_command", metavar="ACTION")
    delete = data_sub.add_parser(
        "delete", help="delete a workspace and everything stored for it (docs/privacy.md)"
    )
    delete.add_argument(
        "--workspace",
        required=True,
        metavar="ID",
        help="Slack team id, Discord guild id or console",
    )
    delete.add_argument(
        "--platform", choices=("slack", "discord", "console"), help="when the id is on several"
    )
    delete.add_argument("--db", metavar="URL", help="SQLAlchemy URL (default: from settings)")
    delete.add_argument("--yes", action="store_true", help="really delete (it cannot be undone)")
    delete.set_defaults(handler=run_delete)
    parser.set_defaults(handler=usage_of(parser))


def run_delete(args: argparse.Namespace) -> int:
    """Exit 0 once the workspace is deleted; 2, with one line, when it cannot be."""
    from sqlalchemy import select

    from bot.config import load_settings
    from bot.core.clock import SystemClock
    from bot.core.errors import ConfigError
    from bot.db.engine import make_engine, make_session_factory
    from bot.db.models import WorkspaceRow
    from bot.db.privacy import SqlPersonalData
    from bot.db.repositories import _workspace

    try:
        engine = make_engine(args.db or load_settings().database_url)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    try:
        with make_session_factory(engine)() as session, session.begin():
            query = select(WorkspaceRow).where(WorkspaceRow.external_id == args.workspace)
            if args.platform:
                query = query.where(WorkspaceRow.platform == args.platform)
            found = session.scalars(query).all()
            if not found:
                return _fail(f"no workspace {args.workspace} in this database")
            if len(found) > 1:
                platforms = ", ".join(sorted(row.platform for row in found))
                return _fail(f"{args.workspace} is on {platforms}: pass --platform")
            workspace = _workspace(found[0])
            if not args.yes:
                return _fail(
                    f"this deletes everything stored for {workspace.platform} workspace "
                    f"{workspace.external_id}; pass --yes to go ahead"
                )
            deleted = SqlPersonalData(session, SystemClock()).forget_workspace(workspace)
    finally:
        engine.dispose()
    print(f"deleted {workspace.platform} workspace {workspace.external_id} ({deleted} records)")
    return 0


def _fail(message: str) -> int:
    print(f"studybot data delete: {message}", file=sys.stderr)
    return 2

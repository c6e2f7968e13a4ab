"""The ``studybot`` command line: one sub-command per module of this package.

Each module has ``register(subparsers)``, which adds its parser and sets
``handler`` to a function taking the parsed arguments and returning an exit
code. Exit 0 is success, 1 a failed check, 2 bad input.

Only the module of the command being run is imported: ``studybot --help`` and
``studybot grade`` do not pay for SQLAlchemy, slack-bolt or discord.py. The
one-line help of each command lives in ``COMMANDS`` so the overview needs no
module at all; a test keeps it equal to what each module registers.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from bot import __version__

COMMANDS: dict[str, str] = {
    "console": "chat with the bot in this terminal (SQLite by default)",
    "run": "run the bot on Slack and/or Discord",
    "db": "database maintenance",
    "content": "check, import and export question packs",
    "grade": "grade an answer against a question of a pack",
    "regrade": "re-grade stored attempts after a content or grader change",
    "data": "delete a workspace's data",
    "discord": "Discord: sync slash commands, invite URL",
    "slack": "Slack app set-up",
}


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The sub-command named on the line: the first argument that is not an option."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser, with the full sub-parser of the command in ``argv`` (or of every command
    when ``argv`` is ``None``) and a one-line entry for each of the others."""
    parser = argparse.ArgumentParser(
        prog="studybot",
        description="A study bot for GPU-virtualization and ML-infrastructure interviews.",
    )
    parser.add_argument("--version", action="version", version=f"studybot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = _chosen_command(argv)
    for name, help_text in COMMANDS.items():
        if name == chosen:
            importlib.import_module(f"bot.cli.{name}").register(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command on the line (``argv``, default ``sys.argv[1:]``); its exit code.

    Run as the program (no ``argv``), the process exits right after: its objects are
    frozen out of the garbage collector first, so that the interpreter's last collection
    does not walk every object the command made (a tenth of a second or more of a
    console's one-second start), and the OS takes the memory back as it does anyway."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(arguments)
    finally:
        if argv is None:
            gc.freeze()


def _run(arguments: list[str]) -> int:
    parser = build_parser(arguments)
    args = parser.parse_args(arguments)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

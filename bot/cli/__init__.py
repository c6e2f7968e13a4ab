"""The ``studybot`` command line: one sub-command per module of this package.

Each module has ``register(subparsers)``, which adds its parser and sets
``handler`` to a function taking the parsed arguments and returning an exit
code. Exit 0 is success, 1 a failed check, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bot import __version__
from bot.cli import console, content, db, discord, grade, regrade, run, slack


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="studybot",
        description="A study bot for GPU-virtualization and ML-infrastructure interviews.",
    )
    parser.add_argument("--version", action="version", version=f"studybot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (console, run, db, content, grade, regrade, discord, slack):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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

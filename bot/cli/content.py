"""``studybot content``: lint the question packs (import and export live beside it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.core.lint import lint_paths


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("content", help="check, import and export question packs")
    content_sub = parser.add_subparsers(dest="content_command", metavar="ACTION")
    lint = content_sub.add_parser(
        "lint", help="check every pack against the schema and the content rules"
    )
    lint.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="pack files or folders (default: content/packs)",
    )
    lint.set_defaults(handler=run_lint)
    parser.set_defaults(handler=lambda _args: parser.print_help() or 2)


def run_lint(args: argparse.Namespace) -> int:
    problems, count = lint_paths(list(args.paths))
    if problems:
        print(f"{len(problems)} problem(s) in {count} question(s):", file=sys.stderr)
        for line in problems:
            print(f"  - {line}", file=sys.stderr)
        return 1
    print(f"ok: {count} questions, no problems")
    return 0

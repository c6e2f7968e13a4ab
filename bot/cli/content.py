"""``studybot content``: lint, import and export question packs.

- ``lint [PATH ...]``: check packs against the schema and the content rules.
- ``import --from FORMAT FILE --pack NAME``: read a Red trivia list, an Anki
  deck (``.apkg`` or text export), an Open Trivia DB response or a CSV file,
  and write ``NAME.yaml`` into the first ``STUDYBOT_PACKS`` directory (or ``--out``)
  once it passes lint and reuses no id of the bank; nothing is written otherwise, and
  every problem is listed.
- ``export --to anki|csv [--pack ID ...] [--out FILE]``: write packs as Anki
  plain text or CSV (the layout ``import --from csv`` reads).
- ``disputes --export FILE.jsonl [--db URL]``: write every accepted grade dispute as a
  labelled example (one JSON object a line: ``id``, ``answer``, ``label``, …), to improve
  rubrics with; ``studybot grade --jsonl`` reads the same lines.

Exit codes: 0 success, 1 lint problems, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.cli.common import usage_of
from bot.config import load_settings
from bot.content_io import (
    EXPORT_FORMATS,
    IMPORT_FORMATS,
    ImportOptions,
    export_packs,
    import_file,
    select_packs,
)
from bot.core.content import PACKS_DIR, bank_files, pack_files
from bot.core.errors import ContentError, UserError
from bot.core.lint import lint_report


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
        help="pack files or folders (default: the packs that ship with studybot and those "
        "of STUDYBOT_PACKS)",
    )
    lint.set_defaults(handler=run_lint)
    _register_import(content_sub)
    _register_export(content_sub)
    _register_disputes(content_sub)
    parser.set_defaults(handler=usage_of(parser))


def _register_import(content_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    imp = content_sub.add_parser(
        "import",
        help="import a Red trivia list, Anki deck, Open Trivia DB response or CSV as a pack",
        description=(
            "Import questions from another tool as a pack. The pack is checked with the "
            "content lint before anything is written; on any problem nothing is written "
            "and every problem is listed."
        ),
    )
    imp.add_argument(
        "--from",
        dest="fmt",
        required=True,
        choices=IMPORT_FORMATS,
        help="red: Red-DiscordBot trivia YAML; anki: .apkg or Anki text export; "
        "opentdb: Open Trivia DB API JSON; csv: studybot's CSV layout",
    )
    imp.add_argument("file", type=Path, help="the file to import")
    imp.add_argument("--pack", required=True, metavar="NAME", help="the new pack's name (its id)")
    imp.add_argument("--title", help="pack title (default: from the file, else NAME)")
    imp.add_argument("--topic", help="topic of every question (default: NAME as an id)")
    imp.add_argument(
        "--source",
        metavar="URL",
        help="source URL for questions that have none (default per format; CSV has none)",
    )
    imp.add_argument(
        "--role",
        default="pm,eng",
        help="who the questions are for: pm, eng or pm,eng (default)",
    )
    imp.add_argument(
        "--difficulty",
        type=int,
        default=2,
        choices=(1, 2, 3),
        help="difficulty when the file gives none (default 2)",
    )
    imp.add_argument(
        "--out",
        metavar="PATH",
        help="where to write the pack (default: NAME.yaml in the first STUDYBOT_PACKS "
        "directory; '-' prints it)",
    )
    imp.add_argument("--force", action="store_true", help="replace an existing pack file")
    imp.add_argument("--packs-dir", type=Path, default=None, help=argparse.SUPPRESS)
    imp.set_defaults(handler=run_import)


def _register_export(content_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    exp = content_sub.add_parser(
        "export",
        help="export packs as Anki plain text or CSV",
        description="Export packs for other tools: Anki's plain-text import format, or CSV.",
    )
    exp.add_argument(
        "--to",
        dest="fmt",
        required=True,
        choices=EXPORT_FORMATS,
        help="anki: Anki's plain-text notes (File > Import in Anki); csv: the layout "
        "'import --from csv' reads",
    )
    exp.add_argument(
        "--pack",
        dest="packs",
        action="append",
        default=[],
        metavar="ID",
        help="a pack id or pack file to export (repeatable; default: every pack)",
    )
    exp.add_argument("--out", type=Path, metavar="FILE", help="write here (default: stdout)")
    exp.add_argument("--packs-dir", type=Path, default=None, help=argparse.SUPPRESS)
    exp.set_defaults(handler=run_export)


def _register_disputes(content_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    disputes = content_sub.add_parser(
        "disputes",
        help="export accepted grade disputes as labelled examples (JSON lines)",
        description=(
            "Write every accepted grade dispute as one JSON line: the question id and the "
            "answer (what `studybot grade --jsonl` reads), the admins' label (correct or "
            "partial) and score, and what the grader had said, to improve rubrics with. "
            "No user or workspace is named."
        ),
    )
    disputes.add_argument(
        "--export", required=True, metavar="FILE", help="the JSON lines file to write ('-': stdout)"
    )
    disputes.add_argument("--db", metavar="URL", help="SQLAlchemy URL (default: from settings)")
    disputes.set_defaults(handler=run_disputes_export)


def run_disputes_export(args: argparse.Namespace) -> int:
    """``studybot content disputes --export FILE``: 0 when written, 2 when the database is
    missing, unreachable or not migrated, or the file cannot be written."""
    import json

    from bot.cli.regrade import open_existing
    from bot.core.bank import QuestionBank
    from bot.core.errors import ConfigError
    from bot.db.disputes import accepted_examples
    from bot.db.engine import make_session_factory

    try:
        settings = load_settings()
        bank = QuestionBank.load(settings.pack_dirs)  # the order choices were shown in
        engine = open_existing(args.db or settings.database_url, "export")
    except ContentError as exc:
        return _fail("disputes", f"cannot load the question packs: {exc.problems[0]}")
    except (ConfigError, ValueError) as exc:
        return _fail("disputes", str(exc))
    try:
        with make_session_factory(engine)() as session:
            lines = [
                json.dumps(e, ensure_ascii=False) + "\n" for e in accepted_examples(session, bank)
            ]
    finally:
        engine.dispose()
    text = "".join(lines)
    if args.export == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.export).write_text(text, encoding="utf-8")
    except OSError as exc:
        return _fail("disputes", f"cannot write {args.export}: {exc.strerror or exc}")
    count = len(lines)
    print(f"exported {count} accepted dispute{'s' if count != 1 else ''} to {args.export}")
    return 0


def lint_targets(paths: Sequence[Path]) -> list[Path]:
    """What ``content lint`` checks: the paths named, else the whole bank (the bundled packs
    and those of STUDYBOT_PACKS). Raises InvalidSettings, and ContentError naming a
    STUDYBOT_PACKS directory that does not exist."""
    return list(paths) or bank_files(load_settings().pack_dirs)


def run_lint(args: argparse.Namespace) -> int:
    try:
        args.paths = lint_targets(args.paths)
    except ValueError as exc:
        return _fail("lint", str(exc))
    except ContentError as exc:  # a STUDYBOT_PACKS directory is missing: nothing to lint there
        print(f"{len(exc.problems)} problem(s) in 0 question(s):", file=sys.stderr)
        for line in exc.problems:
            print(f"  - {line}", file=sys.stderr)
        return 1
    report = lint_report(list(args.paths))
    width = max((len(p.pack) for p in report.packs), default=0)
    for checked in report.packs:
        examples = (
            f"{checked.examples_held} of {_count(checked.examples, 'example')} hold"
            if checked.examples
            else "no examples"
        )
        where = _shown(checked.path) if checked.path else "(no file)"
        print(
            f"{checked.pack:<{width}}  {where}: {_count(checked.questions, 'question')}, {examples}"
        )
    held = f"{report.examples_held} of {report.examples} examples hold"
    if report.problems:
        print(
            f"{len(report.problems)} problem(s) in {report.questions} question(s); {held}:",
            file=sys.stderr,
        )
        for line in report.problems:
            print(f"  - {line}", file=sys.stderr)
        return 1
    print(f"ok: {report.questions} questions, {held}, no problems")
    return 0


def _shown(path: Path) -> Path:
    """``path`` relative to the working directory when it lies inside it (a clone's
    ``content/packs/mig.yaml``), else as it is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _fail(action: str, message: str, problems: Sequence[str] = ()) -> int:
    print(f"studybot content {action}: {message}", file=sys.stderr)
    for line in problems:
        print(f"  - {line}", file=sys.stderr)
    return 2


def import_destination(args: argparse.Namespace, pack_dirs: Sequence[Path]) -> Path | None:
    """The directory an import writes to when no --out names a file: the first
    STUDYBOT_PACKS directory (None when there is none)."""
    if args.packs_dir is not None:
        return Path(args.packs_dir)
    return pack_dirs[0] if pack_dirs else None


def run_import(args: argparse.Namespace) -> int:
    """``studybot content import``: exit 0 when written (or printed), 2 on any problem."""
    to_stdout = args.out == "-"
    try:
        pack_dirs = load_settings().pack_dirs
    except ValueError as exc:
        return _fail("import", str(exc))
    packs_dir = import_destination(args, pack_dirs)
    if packs_dir is None and args.out is None:
        return _fail(
            "import",
            "where should the pack go? Set STUDYBOT_PACKS to a directory for your own packs "
            "(the bot loads them beside the packs it ships), or pass --out PATH",
        )
    bank = pack_files(PACKS_DIR) + [path for d in pack_dirs if d.is_dir() for path in pack_files(d)]
    try:
        options = ImportOptions(
            pack=args.pack,
            title=args.title,
            topic=args.topic,
            source=args.source,
            roles=tuple(dict.fromkeys(args.role.replace(",", " ").split())),
            difficulty=args.difficulty,
        )
        result = import_file(
            args.fmt,
            args.file,
            options,
            out=None if args.out is None or to_stdout else Path(args.out),
            force=args.force,
            write=not to_stdout,
            packs_dir=packs_dir,
            bank=bank,
        )
    except UserError as exc:
        return _fail("import", str(exc))
    except ContentError as exc:
        count = len(exc.problems)
        return _fail(
            "import",
            f"cannot import {args.file} ({count} problem{'s' if count != 1 else ''}); "
            "nothing was written:",
            exc.problems,
        )
    count = len(result.pack.questions)
    if to_stdout:
        sys.stdout.write(result.text)
        return 0
    print(
        f"imported {count} question{'s' if count != 1 else ''} from {args.file.name} "
        f"({result.source_label}) into {result.path}: pack {result.pack.pack!r}, lint ok"
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    """``studybot content export``: exit 0 when exported, 2 on unknown or broken packs."""
    try:
        directories = (
            [args.packs_dir] if args.packs_dir else [PACKS_DIR, *load_settings().pack_dirs]
        )
        packs = select_packs(list(args.packs), directories)
        text = export_packs(packs, args.fmt)
    except (UserError, ValueError) as exc:
        return _fail("export", str(exc))
    except ContentError as exc:
        return _fail("export", "the packs do not load:", exc.problems)
    count = sum(len(p.questions) for p in packs)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as exc:
        return _fail("export", f"cannot write {args.out}: {exc.strerror or exc}")
    label = "Anki text" if args.fmt == "anki" else "CSV"
    print(
        f"exported {count} question{'s' if count != 1 else ''} from {len(packs)} "
        f"pack{'s' if len(packs) != 1 else ''} to {args.out} ({label})"
    )
    return 0

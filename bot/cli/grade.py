"""``studybot grade``: grade answers against a pack file (the grading contract)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.core.content import PACKS_DIR, Pack, Question, find_question, load_pack, packs_named
from bot.core.errors import ConfigError, ContentError, UserError
from bot.core.grading import grade as rules_grade

if TYPE_CHECKING:
    from bot.core.context import Grader


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("grade", help="grade an answer against a question of a pack")
    parser.add_argument(
        "--pack",
        required=True,
        metavar="ID|PATH",
        help="a pack id (a bundled pack or one of STUDYBOT_PACKS, e.g. mig) or a pack file",
    )
    parser.add_argument("--id", dest="question_id", help="the question id")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--jsonl", metavar="FILE", help='grade {"id","answer"} lines from FILE ("-" = stdin)'
    )
    parser.add_argument("answer", nargs="*", help="the answer to grade")
    parser.set_defaults(handler=run_grade)


def _fail(message: str) -> int:
    print(f"studybot grade: {message}", file=sys.stderr)
    return 2


def _grader() -> Grader:
    """The grader ``studybot run`` grades with: the same reference backend, and the judge
    where the rules are unsure when STUDYBOT_JUDGE_URL is set."""
    from bot.config import load_settings
    from bot.grader import build_grader

    return build_grader(load_settings())


def _pack(name: str) -> Pack:
    """The pack ``--pack`` names: a file that exists, else a pack id of the bank.
    Raises UserError or ContentError (a file that does not load)."""
    if Path(name).is_file():
        return load_pack(Path(name))
    from bot.config import load_settings

    return packs_named([name], [PACKS_DIR, *load_settings().pack_dirs])[0]


def run_grade(args: argparse.Namespace) -> int:
    try:
        pack = _pack(args.pack)
    except ContentError as exc:
        return _fail(f"cannot load pack {args.pack}: {exc.problems[0]}")
    except (UserError, ConfigError) as exc:
        return _fail(str(exc))
    try:
        grade = _grader()
    except ConfigError as exc:
        return _fail(str(exc))
    if args.jsonl is not None:
        if args.answer or args.question_id:
            return _fail("--jsonl takes no --id and no answer")
        if args.jsonl == "-":
            return grade_lines(pack, sys.stdin, sys.stdout, grade)
        try:
            with open(args.jsonl, encoding="utf-8", errors="replace") as stream:
                return grade_lines(pack, stream, sys.stdout, grade)
        except OSError as exc:
            return _fail(f"cannot read {args.jsonl}: {exc.strerror}")
    if not args.question_id:
        return _fail("--id is required (or use --jsonl)")
    question = find_question(pack, args.question_id)
    if question is None:
        return _fail(f"no question {args.question_id!r} in pack {pack.pack!r}")
    answer = " ".join(args.answer)
    try:
        result = grade(question, answer)
    except UserError as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(result.as_dict(with_points=question.kind == "open"), ensure_ascii=False))
    else:
        print(f"{result.verdict.value} ({result.score:.2f}): {result.feedback}")
    return 0


GIVEN_KEY = "given"


def grade_lines(pack: Pack, stream: TextIO, out: TextIO, grade: Grader = rules_grade) -> int:
    """Grade one JSON object per line with ``grade``, writing one line out per line in.

    The output line is the input object plus the grade's fields (``score``, ``verdict``,
    ``feedback``, and ``matched``/``missed``/``answered`` where they apply), as the contract
    says; an input value a grade field replaces (a disputes export's own ``score``) is kept
    under ``given`` (``given_`` when the input has a ``given``, and so on). A line that
    cannot be graded gets an ``error`` naming its line number instead, and is told on
    stderr; the others are graded."""
    by_id = {q.id: q for q in pack.questions}
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            out.write(json.dumps({"error": _problem(number, f"not JSON: {exc}")}) + "\n")
            continue
        if not isinstance(item, dict):
            out.write(json.dumps({"error": _problem(number, "not a JSON object")}) + "\n")
            continue
        out.write(json.dumps(_graded(item, number, by_id, pack, grade), ensure_ascii=False))
        out.write("\n")
    return 0


def _graded(
    item: dict[str, object], number: int, by_id: dict[str, Question], pack: Pack, grade: Grader
) -> dict[str, object]:
    missing = [name for name in ("id", "answer") if name not in item]
    if missing:
        return _with(item, "error", _problem(number, f"no {' and no '.join(missing)} field"))
    question = by_id.get(str(item["id"]))
    if question is None:
        return _with(
            item, "error", _problem(number, f"no question {item['id']!r} in pack {pack.pack!r}")
        )
    try:
        result = grade(question, str(item["answer"] or ""))
    except UserError as exc:
        return _with(item, "error", _problem(number, str(exc)))
    fields = result.as_dict(with_points=question.kind == "open")
    replaced = {k: item[k] for k in fields if k in item}
    graded = {**item, **fields}
    return _with(graded, GIVEN_KEY, replaced) if replaced else graded


def _with(item: dict[str, object], key: str, value: object) -> dict[str, object]:
    """``item`` and ``value`` under ``key``, or under ``key`` + underscores where the input
    already has that name: nothing of the input is overwritten."""
    while key in item:
        key += "_"
    return {**item, key: value}


def _problem(number: int, text: str) -> str:
    message = f"line {number}: {text}"
    print(f"studybot grade: {message}", file=sys.stderr)
    return message

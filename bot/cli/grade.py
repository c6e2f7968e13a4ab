"""``studybot grade``: grade answers against a pack file (the grading contract)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.core.content import Pack, find_question, load_pack
from bot.core.errors import ConfigError, ContentError, UserError
from bot.core.grading import grade as rules_grade

if TYPE_CHECKING:
    from bot.core.context import Grader


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("grade", help="grade an answer against a question of a pack")
    parser.add_argument("--pack", required=True, type=Path, help="the pack file (YAML)")
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


def run_grade(args: argparse.Namespace) -> int:
    try:
        pack = load_pack(args.pack)
    except ContentError as exc:
        return _fail(f"cannot load pack {args.pack}: {exc.problems[0]}")
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


def grade_lines(pack: Pack, stream: TextIO, out: TextIO, grade: Grader = rules_grade) -> int:
    """Grade one JSON object per line with ``grade``; a bad line gets an ``error`` field,
    not a crash."""
    by_id = {q.id: q for q in pack.questions}
    for line in stream:
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise ValueError("a line must be a JSON object")
        except ValueError as exc:
            out.write(json.dumps({"error": f"not a JSON object: {exc}"}) + "\n")
            continue
        question = by_id.get(str(item.get("id")))
        if question is None:
            item["error"] = f"no question {item.get('id')!r} in pack {pack.pack!r}"
        else:
            try:
                item.update(
                    grade(question, str(item.get("answer") or "")).as_dict(
                        with_points=question.kind == "open"
                    )
                )
            except UserError as exc:
                item["error"] = str(exc)
        out.write(json.dumps(item, ensure_ascii=False) + "\n")
    return 0

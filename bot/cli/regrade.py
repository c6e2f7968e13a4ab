"""``studybot regrade``: grade stored attempts again after a content or grader change.

An attempt is stale when it was graded by another grader version or against
another version of its question (``content_hash``). Each regrade updates the
attempt's score, verdict, grader version and content hash, and appends a row to
``attempt_grade``, so the history of every grade an attempt had is kept.
Points already awarded are left as they were: a regrade corrects the record,
it does not rewrite past leaderboards.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.config import load_settings
from bot.core import grading
from bot.core.bank import QuestionBank
from bot.core.clock import Clock, SystemClock
from bot.core.content import PACKS_DIR
from bot.core.context import Grader
from bot.core.errors import ContentError, UserError
from bot.core.grading import GRADER_VERSION
from bot.db.engine import make_engine, make_session_factory
from bot.db.models import AttemptGradeRow, AttemptRow

BATCH = 500


@dataclass
class RegradeReport:
    """What a regrade did: attempts seen, regraded, whose verdict changed, and skipped."""

    seen: int = 0
    regraded: int = 0
    changed: int = 0
    current: int = 0
    missing_question: int = 0
    unreadable: int = 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "regrade", help="re-grade stored attempts after a content or grader change"
    )
    parser.add_argument("--db", metavar="URL", help="SQLAlchemy URL (default: from settings)")
    parser.add_argument(
        "--packs",
        type=Path,
        default=PACKS_DIR,
        help="directory of question packs (default: content/packs)",
    )
    parser.add_argument(
        "--all", action="store_true", help="re-grade every attempt, not only stale ones"
    )
    parser.add_argument("--dry-run", action="store_true", help="count, but change nothing")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.set_defaults(handler=run_regrade)


def run_regrade(args: argparse.Namespace) -> int:
    """Handle ``studybot regrade``; 0 on success, 2 when the packs cannot be loaded."""
    try:
        bank = QuestionBank.load(args.packs)
    except ContentError as exc:
        print(f"studybot regrade: cannot load packs from {args.packs}: {exc.problems[0]}")
        return 2
    from bot.bootstrap import build_grader

    settings = load_settings()
    engine = make_engine(args.db or settings.database_url)
    try:
        report = regrade_attempts(
            make_session_factory(engine),
            bank,
            SystemClock(),
            everything=args.all,
            dry_run=args.dry_run,
            grade=build_grader(settings),  # the grader `studybot run` grades with
        )
    finally:
        engine.dispose()
    if args.json:
        print(
            json.dumps(
                {"grader_version": GRADER_VERSION, "dry_run": args.dry_run, **asdict(report)}
            )
        )
    else:
        verb = "would regrade" if args.dry_run else "regraded"
        print(
            f"{verb} {report.regraded} of {report.seen} attempts with grader {GRADER_VERSION} "
            f"({report.changed} changed verdict, {report.current} already current, "
            f"{report.missing_question} of removed questions, {report.unreadable} unreadable)"
        )
    return 0


def regrade_attempts(
    sessions: sessionmaker[Session],
    bank: QuestionBank,
    clock: Clock,
    *,
    everything: bool = False,
    dry_run: bool = False,
    grade: Grader = grading.grade,
) -> RegradeReport:
    """Re-grade stale attempts (or all, with ``everything``), in batches of one transaction each.

    Takes a session factory, the question bank, a clock and the grader; returns a
    :class:`RegradeReport`. Attempts whose question is gone from the bank, or whose answer
    cannot be graded (empty, or no answer at all to the grader now), are counted and left
    alone.
    """
    report = RegradeReport()
    last_id = 0
    while True:
        with sessions() as session, session.begin():
            rows = list(
                session.scalars(
                    select(AttemptRow)
                    .where(AttemptRow.id > last_id)
                    .order_by(AttemptRow.id)
                    .limit(BATCH)
                )
            )
            if not rows:
                return report
            last_id = rows[-1].id
            now = clock.now()
            for row in rows:
                report.seen += 1
                question = bank.get(row.question_id)
                if question is None:
                    report.missing_question += 1
                    continue
                stale = row.grader_version != GRADER_VERSION or (
                    row.content_hash != question.content_hash
                )
                if not (stale or everything):
                    report.current += 1
                    continue
                try:
                    result = grade(question, row.answer)
                except UserError:
                    report.unreadable += 1
                    continue
                if not result.answered:
                    report.unreadable += 1
                    continue
                report.regraded += 1
                report.changed += result.verdict.value != row.verdict
                if dry_run:
                    continue
                row.score, row.verdict = result.score, result.verdict.value
                row.grader_version, row.content_hash = GRADER_VERSION, question.content_hash
                session.add(
                    AttemptGradeRow(
                        attempt_id=row.id,
                        grader_version=GRADER_VERSION,
                        content_hash=question.content_hash,
                        score=result.score,
                        verdict=result.verdict.value,
                        feedback=result.feedback,
                        graded_at=now,
                    )
                )

"""``studybot regrade``: grade stored attempts again after a content or grader change.

An attempt is stale when it was graded by another grader version or against
another version of its question (``content_hash``). Each regrade updates the
attempt's score, verdict, grader version and content hash, and appends a row to
``attempt_grade``, so the history of every grade an attempt had is kept.
Points already awarded are left as they were: a regrade corrects the record,
it does not rewrite past leaderboards. An attempt whose grade an admin set by accepting a
dispute (``bot.core.disputes``) keeps it: it is counted as ``disputed`` and left alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from bot.config import load_settings
from bot.core import grading
from bot.core.bank import QuestionBank
from bot.core.clock import Clock, SystemClock
from bot.core.context import Grader
from bot.core.display import displayed, seed_of
from bot.core.disputes import ACCEPTED
from bot.core.errors import ConfigError, ContentError, UserError
from bot.core.grading import GRADER_VERSION, rules_version
from bot.db import migrate
from bot.db.engine import check_connection, make_engine, make_session_factory, sqlite_path
from bot.db.models import AttemptGradeRow, AttemptRow, DisputeRow

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
    disputed: int = 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "regrade", help="re-grade stored attempts after a content or grader change"
    )
    parser.add_argument("--db", metavar="URL", help="SQLAlchemy URL (default: from settings)")
    parser.add_argument(
        "--packs",
        type=Path,
        metavar="DIR",
        help="grade against the packs in DIR only (default: the bot's bank, the packs that "
        "ship with studybot and those of STUDYBOT_PACKS)",
    )
    parser.add_argument(
        "--all", action="store_true", help="re-grade every attempt, not only stale ones"
    )
    parser.add_argument("--dry-run", action="store_true", help="count, but change nothing")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.set_defaults(handler=run_regrade)


def run_regrade(args: argparse.Namespace) -> int:
    """Handle ``studybot regrade``; 0 on success, 2 (one line, nothing written) when the packs
    cannot be loaded or the database is missing, unreachable or not migrated."""
    try:
        settings = load_settings()
        bank = (
            QuestionBank.load(bundled=args.packs)
            if args.packs is not None
            else QuestionBank.load(settings.pack_dirs)
        )
    except ContentError as exc:
        return _fail(f"cannot load the question packs: {exc.problems[0]}")
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    try:
        engine = open_existing(args.db or settings.database_url)
    except ConfigError as exc:
        return _fail(str(exc))
    from bot.grader import build_grader

    try:
        report = regrade_attempts(
            make_session_factory(engine),
            bank,
            SystemClock(),
            grade=build_grader(settings),  # the grader `studybot run` grades with
            everything=args.all,
            dry_run=args.dry_run,
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
            f"{report.missing_question} of removed questions, {report.unreadable} unreadable, "
            f"{report.disputed} set by an accepted dispute)"
        )
    return 0


def _fail(message: str) -> int:
    print(f"studybot regrade: {message}", file=sys.stderr)
    return 2


def open_existing(url: str, purpose: str = "regrade") -> Engine:
    """An engine on a database that exists and is migrated; never creates one (a SQLite
    file that is not there is an error, not a new empty database)."""
    engine = make_engine(url)
    path = sqlite_path(engine.url)
    if path is not None and not path.is_file():
        engine.dispose()
        raise ConfigError(f"there is no database at {path}: nothing to {purpose}")
    try:
        check_connection(engine)
        if not migrate.is_current(engine):
            raise ConfigError("the database schema is not current: run `studybot db upgrade` first")
    except ConfigError:
        engine.dispose()
        raise
    return engine


def regrade_attempts(
    sessions: sessionmaker[Session],
    bank: QuestionBank,
    clock: Clock,
    *,
    grade: Grader = grading.grade,
    everything: bool = False,
    dry_run: bool = False,
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
            decided = set(
                session.scalars(
                    select(DisputeRow.attempt_id).where(
                        DisputeRow.status == ACCEPTED,
                        DisputeRow.attempt_id.in_([r.id for r in rows]),
                    )
                )
            )
            for row in rows:
                report.seen += 1
                if row.id in decided:  # an admin's grade stands
                    report.disputed += 1
                    continue
                question = bank.get(row.question_id)
                if question is None:
                    report.missing_question += 1
                    continue
                # "1.1+judge-1": the rules' version decides; the judge's readings are cached
                stale = rules_version(row.grader_version) != GRADER_VERSION or (
                    row.content_hash != question.content_hash
                )
                if not (stale or everything):
                    report.current += 1
                    continue
                # graded as it was shown: the choices in the attempt's post or session order
                shown = displayed(question, seed_of(row.daily_prompt_id, row.quiz_session_id))
                try:
                    result = grade(shown, row.answer)
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
                row.grader_version, row.content_hash = result.grader, question.content_hash
                row.grader_model = result.model
                session.add(
                    AttemptGradeRow(
                        attempt_id=row.id,
                        grader_version=result.grader,
                        grader_model=result.model,
                        content_hash=question.content_hash,
                        score=result.score,
                        verdict=result.verdict.value,
                        feedback=result.feedback,
                        graded_at=now,
                    )
                )

"""``studybot regrade``: stale attempts are graded again and every grade stays in the history."""

from __future__ import annotations

import argparse
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.cli.regrade import register, regrade_attempts, run_regrade
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.core.grading import GRADER_VERSION
from bot.db import migrate
from bot.db.engine import make_engine, make_session_factory
from bot.db.models import AttemptGradeRow, AttemptRow, UserRow, WorkspaceRow
from bot.db.questions import sync_questions

PACK_PATH = Path(__file__).parent / "data" / "grading" / "questions.yaml"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def seed(url: str, bank: QuestionBank, answers: list[tuple[str, str, str, str]]) -> None:
    """Attempts (question id, answer, old verdict, old grader version) graded long ago."""
    engine = make_engine(url)
    migrate.upgrade(engine)
    with make_session_factory(engine)() as session, session.begin():
        sync_questions(session, bank, T0)
        ws = WorkspaceRow(platform="console", external_id="w", created_at=T0)
        session.add(ws)
        session.flush()
        user = UserRow(workspace_id=ws.id, external_id="ada", created_at=T0)
        session.add(user)
        session.flush()
        for qid, answer, verdict, version in answers:
            question = bank.get(qid)
            assert question is not None
            row = AttemptRow(
                workspace_id=ws.id, user_id=user.id, question_id=qid, answer=answer,
                score=1.0 if verdict == "correct" else 0.0, verdict=verdict, points=0,
                grader_version=version, content_hash=question.content_hash, answered_at=T0,
            )  # fmt: skip
            session.add(row)
            session.flush()
            session.add(
                AttemptGradeRow(
                    attempt_id=row.id, grader_version=version, content_hash=question.content_hash,
                    score=row.score, verdict=verdict, feedback="", graded_at=T0,
                )
            )  # fmt: skip
    engine.dispose()


def test_stale_attempts_are_regraded_and_the_history_is_kept(sqlite_url: str) -> None:
    bank = QuestionBank.from_packs([load_pack(PACK_PATH)])
    seed(
        sqlite_url,
        bank,
        [
            ("gl-num-a100-instances", "seven", "incorrect", "0.1"),  # the old grader missed it
            ("gl-short-mps", "MSP", "incorrect", "0.1"),
            ("gl-short-mps", "MPS", "correct", GRADER_VERSION),  # already current
        ],
    )
    engine = make_engine(sqlite_url)
    sessions = make_session_factory(engine)
    report = regrade_attempts(sessions, bank, SimulatedClock(T0))
    assert (report.seen, report.regraded, report.changed, report.current) == (3, 2, 1, 1)
    with sessions() as session:
        attempts = session.scalars(select(AttemptRow).order_by(AttemptRow.id)).all()
        assert [a.verdict for a in attempts] == ["correct", "incorrect", "correct"]
        assert {a.grader_version for a in attempts} == {GRADER_VERSION}
        history = session.scalars(
            select(AttemptGradeRow).where(AttemptGradeRow.attempt_id == attempts[0].id)
        ).all()
        assert [(h.grader_version, h.verdict) for h in history] == [
            ("0.1", "incorrect"),
            (GRADER_VERSION, "correct"),
        ]
    again = regrade_attempts(sessions, bank, SimulatedClock(T0))
    assert again.regraded == 0 and again.current == 3
    engine.dispose()


def test_a_dry_run_changes_nothing_and_the_cli_reports_json(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    shutil.copy(PACK_PATH, packs / "labelled.yaml")
    bank = QuestionBank.load(bundled=packs)
    seed(sqlite_url, bank, [("gl-num-a100-instances", "seven", "incorrect", "0.1")])
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    argv = ["regrade", "--db", sqlite_url, "--packs", str(packs), "--json", "--dry-run"]
    assert run_regrade(parser.parse_args(argv)) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["regraded"] == 1 and report["changed"] == 1 and report["dry_run"] is True
    engine = make_engine(sqlite_url)
    with make_session_factory(engine)() as session:
        assert session.scalars(select(AttemptRow.verdict)).all() == ["incorrect"]
    engine.dispose()
    assert run_regrade(parser.parse_args(argv[:-1])) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == 1

"""Every attempt records which grader and model produced it, through the real answer path.

The console answers a quiz question with the judge configured (a fake endpoint on
127.0.0.1): the attempt row and its first grade row hold the judge and its model; with the
judge down, the rules' grade is recorded and says so. A regrade keeps what graded it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.core.grading import GRADER_VERSION
from bot.core.grading.judge import JUDGE_VERSION
from bot.db.models import AttemptGradeRow, AttemptRow
from tests.fake_judge import closed_port, fake_judge, reading
from tests.support import Transcript
from tests.test_judge import BORDERLINE, GOOD, MODEL

BANK = QuestionBank.from_packs([load_pack(Path(__file__).parent / "data" / "judge" / "pack.yaml")])


@pytest.fixture
def start_app(db_url: str, clock: SimulatedClock) -> Iterator[object]:
    apps: list[App] = []

    def start(judge_url: str) -> Transcript:
        settings = Settings(
            studybot_database_url=db_url,
            studybot_judge_url=judge_url,
            studybot_judge_model=MODEL,
        )
        app = bootstrap(settings, clock=clock, bank=BANK, auto_migrate=True)
        apps.append(app)
        chat = Transcript(app)
        chat.start()
        return chat

    yield start
    for app in apps:
        app.close()


def _rows(app: App) -> tuple[list[AttemptRow], list[AttemptGradeRow]]:
    with app.session_factory() as session:
        attempts = list(session.scalars(select(AttemptRow)))
        grades = list(session.scalars(select(AttemptGradeRow)))
        session.expunge_all()
    return attempts, grades


def test_a_judged_answer_records_the_judge_and_its_model(start_app: object) -> None:
    with fake_judge(lambda body: GOOD) as fake:
        chat = start_app(fake.url)  # type: ignore[operator]
        chat.say("/quiz system-design 1")
        reply = chat.say(BORDERLINE)
    assert "Good answer" in reply
    assert len(fake.requests) == 1
    (attempt,), (first,) = _rows(chat.app)
    assert (attempt.verdict, attempt.score) == ("correct", 1.0)
    assert (attempt.grader_version, attempt.grader_model) == (
        f"{GRADER_VERSION}+{JUDGE_VERSION}",
        MODEL,
    )
    assert (first.grader_version, first.grader_model) == (attempt.grader_version, MODEL)


def test_with_the_judge_down_the_rules_grade_is_recorded_as_the_rules(start_app: object) -> None:
    chat = start_app(f"http://127.0.0.1:{closed_port()}/v1")  # type: ignore[operator]
    chat.say("/quiz system-design 1")
    reply = chat.say(BORDERLINE)
    assert "Partly there" in reply
    (attempt,), (first,) = _rows(chat.app)
    assert (attempt.verdict, attempt.grader_version, attempt.grader_model) == (
        "partial",
        GRADER_VERSION,
        "",
    )
    assert (first.grader_version, first.grader_model) == (GRADER_VERSION, "")


def test_a_slow_judge_does_not_hold_the_reply_past_its_timeout(
    db_url: str, clock: SimulatedClock
) -> None:
    with fake_judge(hold=True) as fake:
        settings = Settings(
            studybot_database_url=db_url,
            studybot_judge_url=fake.url,
            studybot_judge_model=MODEL,
            studybot_judge_timeout=0.3,
        )
        app = bootstrap(settings, clock=clock, bank=BANK, auto_migrate=True)
        try:
            chat = Transcript(app)
            chat.start()
            chat.say("/quiz system-design 1")
            started = time.perf_counter()
            reply = chat.say(BORDERLINE)
            waited = time.perf_counter() - started
            (attempt,), _ = _rows(app)
        finally:
            app.close()
        assert len(fake.requests) == 1
    assert "Partly there" in reply and waited < 2.0
    assert (attempt.verdict, attempt.grader_version) == ("partial", GRADER_VERSION)


def test_a_regrade_records_what_graded_it_and_leaves_judged_attempts_current(
    start_app: object, clock: SimulatedClock
) -> None:
    from bot.cli.regrade import regrade_attempts

    with fake_judge(lambda body: GOOD) as fake:
        chat = start_app(fake.url)  # type: ignore[operator]
        chat.say("/quiz system-design 1")
        chat.say(BORDERLINE)
        report = regrade_attempts(
            chat.app.session_factory, BANK, clock, grade=chat.app.services.grade
        )
        assert (report.current, report.regraded) == (1, 0)
        fake.respond = lambda body: reading(("p2", "missed", ""))
        # everything: the cached reading still stands for the same answer and model
        report = regrade_attempts(
            chat.app.session_factory, BANK, clock, grade=chat.app.services.grade, everything=True
        )
    assert report.regraded == 1
    (attempt,), grades = _rows(chat.app)
    assert [(g.grader_version, g.grader_model) for g in grades] == [
        (f"{GRADER_VERSION}+{JUDGE_VERSION}", MODEL)
    ] * 2
    assert attempt.grader_model == MODEL and len(fake.requests) == 1

"""What an answer does (``bot.core.answers.record_answer``), the same for every kind of
session, and what is no answer at all: it records nothing and the next real answer scores.

The rules: every real answer is an attempt and streak activity; points only for the scored
daily answer and a live question's winner; board activity only for an answer that earned
points; review cards for quiz, live and mock answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.db.models import (
    ActivityDayRow,
    AttemptRow,
    Base,
    PointsBucketRow,
    ReviewCardRow,
)
from tests.support import HINT, NOT_AN_ANSWER, Transcript, hinting_grader, row_counts
from tests.test_mock import GOOD, PACK
from tests.test_quiz import BANK, RIGHT, WRONG
from tests.test_quiz_live import live_question


def make_app(db_url: str, clock: SimulatedClock, bank: QuestionBank, tmp_path: Path) -> App:
    return bootstrap(
        Settings(studybot_database_url=db_url, studybot_charts_dir=str(tmp_path / "charts")),
        clock=clock,
        bank=bank,
        grade=hinting_grader,
    )


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    application = make_app(db_url, clock, BANK, tmp_path)
    yield application
    application.close()


@pytest.fixture
def mock_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    from bot.core.content import load_pack

    path = tmp_path / "mocktest.yaml"
    path.write_text(PACK, encoding="utf-8")
    application = make_app(db_url, clock, QuestionBank.from_packs([load_pack(path)]), tmp_path)
    yield application
    application.close()


def chat(app: App, user: str = "alice") -> Transcript:
    """A transcript of a user the bot already knows (so "nothing written" compares only what
    an answer itself would write)."""
    transcript = Transcript(app, user=user)
    transcript.start()
    transcript.send("/streak")
    return transcript


def count(app: App, table: type[Base], **where: object) -> int:
    with app.session_factory() as session:
        query = select(func.count()).select_from(table)
        for column, value in where.items():
            query = query.where(getattr(table, column) == value)
        return session.scalar(query) or 0


def board(app: App) -> dict[int, tuple[int, int]]:
    """The all-time board: user id → (points, answers)."""
    with app.session_factory() as session:
        rows = session.scalars(select(PointsBucketRow).where(PointsBucketRow.period == "all"))
        return {r.user_id: (r.points, r.answers) for r in rows}


def daily_question(app: App) -> str:
    from bot.db.models import DailyPromptRow

    with app.session_factory() as session:
        qid = session.scalars(select(DailyPromptRow.question_id)).one()
    question = app.services.bank.get(qid)
    assert question is not None
    return question.kind


# -- what each real answer records ------------------------------------------------------------


def test_a_scored_daily_answer_earns_points_board_activity_and_a_streak_day(app: App) -> None:
    alice = chat(app)
    alice.send("/daily")
    reply = alice.say(f"/answer {RIGHT[daily_question(app)]}")
    assert "points" in reply and "1-day streak" in reply
    assert count(app, AttemptRow, points=0) == 0 and count(app, AttemptRow) == 1
    ((points, answers),) = board(app).values()
    assert points > 0 and answers == 1
    assert count(app, ActivityDayRow) == 1
    assert count(app, ReviewCardRow) == 0  # the daily question keeps no review card


def test_a_wrong_daily_answer_scores_no_points_and_is_no_board_activity(app: App) -> None:
    alice = chat(app)
    alice.send("/daily")
    assert "1-day streak" in alice.say(f"/answer {WRONG[daily_question(app)]}")
    assert count(app, AttemptRow) == 1
    assert board(app) == {}  # earned nothing: not "active" on any board
    assert count(app, ActivityDayRow) == 1


def test_a_quiz_answer_moves_its_review_card_and_the_streak_and_earns_nothing(app: App) -> None:
    alice = chat(app)
    alice.send("/quiz mig 2")
    assert "1-day streak" in alice.say("/answer A")
    assert count(app, AttemptRow) == 1 and count(app, ReviewCardRow) == 1
    assert count(app, ActivityDayRow) == 1
    assert board(app) == {}


def test_a_wrong_live_answer_is_streak_activity_and_a_review_but_not_board_activity(
    app: App,
) -> None:
    chat(app).send("/quiz live cuda 2")
    question = live_question(app)
    bob = chat(app, "bob")
    assert "Not quite" in bob.say(f"/answer {WRONG[question.kind]}")
    assert count(app, AttemptRow, points=0) == 1
    assert count(app, ReviewCardRow) == 1 and count(app, ActivityDayRow) == 1
    assert board(app) == {}
    carol = chat(app, "carol")
    assert "Correct!" in carol.say(f"/answer {RIGHT[question.kind]}")
    ((points, answers),) = board(app).values()  # the winner, alone
    assert points > 0 and answers == 1


def test_a_mock_answer_is_streak_activity_and_a_review_and_earns_nothing(mock_app: App) -> None:
    alice = chat(mock_app)
    alice.send("/mock schedule in 2 hours")
    alice.send("/advance 2h")
    alice.send(GOOD)
    assert "1-day streak" in alice.say("done")
    assert count(mock_app, AttemptRow) == 1
    assert count(mock_app, ActivityDayRow) == 1 and count(mock_app, ReviewCardRow) == 1
    assert board(mock_app) == {}


# -- what is no answer at all ------------------------------------------------------------------


def test_no_answer_to_the_daily_records_nothing_and_the_next_one_still_scores(app: App) -> None:
    alice = chat(app)
    alice.send("/daily")
    before = row_counts(app)
    assert alice.say(f"/answer {NOT_AN_ANSWER}") == HINT
    assert row_counts(app) == before
    reply = alice.say(f"/answer {RIGHT[daily_question(app)]}")
    assert "points" in reply and "practice" not in reply
    assert count(app, AttemptRow, scored_prompt_id=None) == 0


def test_no_answer_to_a_quiz_records_nothing_and_the_question_stays(app: App) -> None:
    alice = chat(app)
    alice.send("/quiz mig 2")
    before = row_counts(app)
    assert alice.say(NOT_AN_ANSWER) == HINT
    assert row_counts(app) == before
    feedback = alice.send("/answer A")[0]
    assert feedback.card.title == "Question 1 of 2"


def test_no_answer_to_a_live_question_records_nothing_and_the_person_can_still_win(
    app: App,
) -> None:
    chat(app).send("/quiz live cuda 2")
    question = live_question(app)
    bob = chat(app, "bob")
    before = row_counts(app)
    assert bob.say(f"/answer {NOT_AN_ANSWER}") == HINT
    assert row_counts(app) == before
    assert "Correct!" in bob.say(f"/answer {RIGHT[question.kind]}")


def test_no_answer_to_a_mock_round_records_nothing_and_the_round_stays_open(
    mock_app: App,
) -> None:
    alice = chat(mock_app)
    alice.send("/mock schedule in 2 hours")
    alice.send("/advance 2h")
    before = row_counts(mock_app)
    alice.send(NOT_AN_ANSWER)  # part of the round's answer, graded when it is done
    assert alice.say("done") == HINT
    assert row_counts(mock_app) == before
    alice.send(GOOD)
    assert "Round 1 answer recorded" in alice.say("done")

"""One router decides what an answer answers (``bot.core.router``): a daily post's thread,
then the user's running mock round, then the channel's live round, then the user's quiz,
then today's daily question."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.commands import COMMANDS
from bot.core.events import Event, EventKind
from bot.db.models import AttemptRow, DailyPromptRow, OutboxRow, QuizSessionRow
from tests.support import Transcript
from tests.test_quiz import make_app, right
from tests.test_quiz_live import live_question, live_row


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    application = make_app(db_url, clock, tmp_path / "charts")
    yield application
    application.close()


def chat(app: App, user: str) -> Transcript:
    transcript = Transcript(app, user=user)
    transcript.start()
    return transcript


def personal_position(app: App) -> int:
    with app.session_factory() as session:
        row = session.scalars(select(QuizSessionRow).where(QuizSessionRow.mode == "personal")).one()
        return row.position


def test_with_a_quiz_open_an_answer_where_a_live_round_runs_answers_the_live_round(
    app: App,
) -> None:
    alice = chat(app, "alice")
    alice.send("/quiz mig 3")  # her personal quiz, in #general
    chat(app, "bob").send("/quiz live cuda 2")  # and a live round in the same channel
    question = live_question(app)
    reply = alice.say(f"/answer {right(question)}")
    assert reply.startswith("Correct! +")  # the live round's reply, not the quiz's feedback
    with app.session_factory() as session:
        (attempt,) = session.scalars(select(AttemptRow))
    assert attempt.quiz_session_id == live_row(app).id
    assert attempt.points > 0
    assert personal_position(app) == 0  # her quiz still waits on its first question


def test_a_plain_console_line_with_a_quiz_open_answers_the_live_round_too(app: App) -> None:
    alice = chat(app, "alice")
    alice.send("/quiz mig 3")
    chat(app, "bob").send("/quiz live cuda 2")
    reply = alice.say(right(live_question(app)))  # typed as is, no /answer
    assert reply.startswith("Correct! +")
    with app.session_factory() as session:
        (attempt,) = session.scalars(select(AttemptRow))
    assert attempt.quiz_session_id == live_row(app).id
    assert personal_position(app) == 0


def test_elsewhere_the_same_answer_goes_to_the_personal_quiz(app: App) -> None:
    alice = chat(app, "alice")
    alice.send("/quiz mig 3")
    chat(app, "bob").send("/quiz live cuda 2")
    away = Transcript(app, user="alice", channel="random")
    assert away.send("/answer A")[0].card.title == "Question 1 of 3"
    assert personal_position(app) == 1


def test_a_reply_in_a_daily_posts_thread_answers_that_post_before_anything_else(
    app: App,
) -> None:
    alice = chat(app, "alice")
    alice.send("/daily")
    alice.send("/quiz mig 3")
    chat(app, "bob").send("/quiz live cuda 2")
    with app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
        post_ref = session.scalar(
            select(OutboxRow.message_ref).where(OutboxRow.key == "daily:1:post")
        )
    assert post_ref is not None
    reply = asyncio.run(
        app.handle(
            Event(
                EventKind.MESSAGE,
                "console",
                "console",
                "general",
                "alice",
                text="A",
                thread=post_ref,
            )
        )
    )
    assert "difficulty" in reply[0].card.footer  # the daily's grade card
    with app.session_factory() as session:
        (attempt,) = session.scalars(select(AttemptRow))
    assert attempt.daily_prompt_id == prompt.id
    assert personal_position(app) == 0


def test_help_states_the_order() -> None:
    summary = COMMANDS["answer"].summary
    order = ["mock round", "live round", "quiz", "daily"]
    assert [summary.index(word) for word in order] == sorted(summary.index(w) for w in order)

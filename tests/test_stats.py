"""/stats: accuracy by topic, weakest topics, streak, reviews due, for you or someone else."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from tests.support import row_counts
from tests.test_quiz import chat_for, current_question, right, running_app, wrong


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(sqlite_url, clock, tmp_path)


def take_quiz(app: App, user: str, topic: str, oks: list[bool]) -> None:
    chat = chat_for(app, user)
    chat.send(f"/quiz {topic} {len(oks)}")
    for ok in oks:
        answer = right if ok else wrong
        chat.send(f"/answer {answer(current_question(app))}")


def test_stats_show_accuracy_by_topic_and_the_weakest(quiz_app: App) -> None:
    take_quiz(quiz_app, "alice", "cuda", [True, True])
    take_quiz(quiz_app, "alice", "mps", [False, True])
    card = chat_for(quiz_app).send("/stats")[0]
    text = card.text
    assert card.card.title == "Your stats"
    assert "cuda: 100% over 2 answers" in text
    assert "mps: 50% over 2 answers" in text
    assert text.index("cuda: 100%") < text.index("mps: 50%")
    assert "Weakest: mps (50%), cuda (100%)" in text
    assert "Answers: 4 · 3 correct" in text
    assert "Reviews: 0 due now · next" in text


def test_stats_of_someone_else_by_mention(quiz_app: App) -> None:
    take_quiz(quiz_app, "bob", "cuda", [True])
    chat = chat_for(quiz_app)
    for handle in ("@bob", "bob", "<@bob>", "BOB"):
        card = chat.send(f"/stats {handle}")[0]
        assert card.card.title == "bob's stats"
        assert "cuda: 100% over 1 answer" in card.text


def test_stats_of_an_unknown_user_say_so_and_write_nothing(quiz_app: App) -> None:
    chat = chat_for(quiz_app)
    before = row_counts(quiz_app)
    assert "I don't know anyone called 'nobody'" in chat.say("/stats @nobody")
    assert "Usage: /stats" in chat.say("/stats two words")
    assert row_counts(quiz_app) == before


def test_stats_before_any_answer_point_to_the_daily(quiz_app: App) -> None:
    assert "No answers yet" in chat_for(quiz_app).say("/stats")


def test_stats_come_with_a_streak_calendar_chart(quiz_app: App) -> None:
    take_quiz(quiz_app, "alice", "cuda", [True])
    (chart,) = chat_for(quiz_app).send("/stats")[0].attachments
    assert chart.filename == "streak-alice.png" and chart.content.startswith(b"\x89PNG")

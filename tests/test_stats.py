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
    assert "Weakest (under 70% on average, or the last review failed): mps (50%)" in text
    assert "cuda (100%)" not in text
    assert "Answers: 4 · 3 correct" in text
    assert "Reviews: 0 due now · next" in text


def test_the_weakest_topics_are_the_lowest_numbers_above_them_whatever_their_count(
    quiz_app: App,
) -> None:
    """One wrong answer makes a topic 0%: it is weaker than a topic at 50%, as a mock's
    focus=weak takes it, and a topic at 100% is never called weak."""
    take_quiz(quiz_app, "alice", "cuda", [True, True])
    take_quiz(quiz_app, "alice", "mig", [True, False])
    take_quiz(quiz_app, "alice", "mps", [False])
    text = chat_for(quiz_app).say("/stats")
    assert "mps: 0% over 1 answer" in text and "mig: 50% over 2 answers" in text
    weakest = next(line for line in text.splitlines() if line.startswith("Weakest"))
    assert weakest.endswith(": mps (0%), mig (50%)")
    assert "cuda" not in weakest


def test_with_every_topic_strong_no_topic_is_called_weak(quiz_app: App) -> None:
    take_quiz(quiz_app, "alice", "cuda", [True, True])
    take_quiz(quiz_app, "alice", "mps", [True])
    text = chat_for(quiz_app).say("/stats")
    assert "No weak topic: every topic averages 70% or more." in text
    assert "Weakest" not in text


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

"""Bullets of a team's first month (issue #16) that no other story covers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.messages import Delivery
from tests.support import Transcript
from tests.test_quiz import answer_right, chat_for, running_app


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(db_url, clock, tmp_path)


def test_a_quiz_only_users_nudge_points_to_a_quiz_not_to_a_daily_question(app: App) -> None:
    chat = chat_for(app)
    chat.send("/tz UTC")
    chat.send("/quiz 1")
    answer_right(chat, app)  # Tue 1 Dec 09:00: a 1-day streak, and no daily question ever
    printed = chat.send("/advance 1d10h")  # Wed 19:00 passes with nothing answered
    (nudge,) = [m for m in printed if m.delivery is Delivery.DM]
    assert "Type /quiz for a quick round." in nudge.text
    assert "/daily" not in nudge.text


def test_a_new_users_calendar_shows_no_missed_days_before_their_first_answer(app: App) -> None:
    chat = chat_for(app)
    chat.send("/tz UTC")
    fresh = chat.say("/streak")  # a quiz-only user: every day is due, but none before today
    assert "·" not in fresh.split("Mo Tu We Th Fr Sa Su", 1)[1].split("■ answered")[0]
    assert "Nov 30    ○" in fresh
    chat.send("/quiz 1")
    answer_right(chat, app)
    chat.send("/advance 2d")  # Thursday: Wednesday was missed, Monday never was
    shown = chat.say("/streak")
    assert "Nov 30    ■  ·  ○" in shown


def test_advancing_by_seconds_shows_the_seconds_and_whole_minutes_stay_short(app: App) -> None:
    chat = Transcript(app, tz="Europe/Berlin")
    chat.start()
    first, second = chat.say("/advance 15s"), chat.say("/advance 45s")
    assert "The clock is now 2026-12-01T09:00:15+00:00 (Tue 01 Dec 10:00:15 in" in first
    assert "The clock is now 2026-12-01T09:01+00:00 (Tue 01 Dec 10:01 in" in second

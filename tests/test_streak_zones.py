"""After ``/tz`` mid-streak, ``/streak``'s count and the calendar it shows agree: the days
recorded are the days counted, the calendar runs to the last counted day, and a date a move
eastwards jumped over shows as skipped (``-``), never as missed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.messages import Card
from bot.core.model import USERS, WORKSPACES
from bot.core.streaks import (
    MARK_ACTIVE,
    MARK_MISSED,
    MARK_OFF,
    MARK_TODAY,
    record_activity,
    streak_view,
)
from tests.fakes import FakeStore, FakeUnitOfWork
from tests.support import Transcript
from tests.test_quiz import answer_right, chat_for, running_app

ZONES = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "America/Los_Angeles",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "Pacific/Kiritimati",  # UTC+14
    "Pacific/Pago_Pago",  # UTC-11
]


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(db_url, clock, tmp_path)


def answer(chat: Transcript, app: App) -> None:
    chat.send("/quiz 1")
    answer_right(chat, app)


def calendar_rows(text: str) -> list[str]:
    """The week rows of the /streak calendar, their cells only ("Mo Tu …" order)."""
    start = text.index("Mo Tu We Th Fr Sa Su")
    rows = text[start:].split("\n")[1:5]
    return [row[7:] for row in rows]


def cells(text: str) -> str:
    """The calendar's marks in order, one character a day shown."""
    return "".join("".join(row.split()) for row in calendar_rows(text))


def count_of(text: str) -> int:
    if "No streak running" in text:
        return 0
    return int(text.split("🔥 ", 1)[1].split("-day streak", 1)[0])


# -- the stories, on both databases -----------------------------------------------------------


def test_two_days_answered_in_berlin_stay_two_after_moving_to_new_york(
    app: App, clock: SimulatedClock
) -> None:
    chat = chat_for(app)
    chat.send("/tz Europe/Berlin")
    answer(chat, app)  # Tue 1 Dec 10:00 Berlin
    clock.set(datetime(2026, 12, 1, 23, 30, tzinfo=UTC))
    answer(chat, app)  # Wed 2 Dec 00:30 Berlin
    chat.send("/tz America/New_York")  # Tue 1 Dec 18:30 there: both answers fell on Tuesday
    shown = chat.say("/streak")
    assert "2-day streak" in shown
    assert cells(shown).endswith(MARK_ACTIVE * 2)  # Tue and Wed, as they were counted
    assert cells(shown).count(MARK_ACTIVE) == 2


def test_answering_again_after_moving_west_counts_nothing_and_shows_nothing_more(
    app: App, clock: SimulatedClock
) -> None:
    chat = chat_for(app)
    chat.send("/tz Asia/Tokyo")
    clock.set(datetime(2026, 12, 1, 23, 0, tzinfo=UTC))
    answer(chat, app)  # Wed 2 Dec 08:00 Tokyo
    chat.send("/tz America/Los_Angeles")  # Tue 1 Dec 15:00 there
    answer(chat, app)
    shown = chat.say("/streak")
    assert "1-day streak" in shown and cells(shown).count(MARK_ACTIVE) == 1
    clock.set(datetime(2026, 12, 2, 18, 0, tzinfo=UTC))  # Wed 2 Dec 10:00 LA: counted already
    answer(chat, app)
    shown = chat.say("/streak")
    assert "1-day streak" in shown and cells(shown).count(MARK_ACTIVE) == 1
    clock.set(datetime(2026, 12, 3, 18, 0, tzinfo=UTC))  # Thu 3 Dec in LA: a new day
    answer(chat, app)
    shown = chat.say("/streak")
    assert "2-day streak" in shown and cells(shown).count(MARK_ACTIVE) == 2


def test_a_date_jumped_over_flying_east_shows_as_skipped_not_missed(
    app: App, clock: SimulatedClock
) -> None:
    chat = chat_for(app)
    chat.send("/tz America/Los_Angeles")
    clock.set(datetime(2026, 12, 2, 4, 0, tzinfo=UTC))
    answer(chat, app)  # Tue 1 Dec 20:00 LA
    chat.send("/tz Pacific/Kiritimati")
    clock.set(datetime(2026, 12, 2, 14, 0, tzinfo=UTC))  # Thu 3 Dec 04:00 there; Wed 06:00 in LA
    shown = chat.say("/streak")  # before answering there: Wednesday is skipped already
    assert "1-day streak" in shown and "Answer a question today to keep it going" in shown
    assert cells(shown).endswith(MARK_ACTIVE + MARK_OFF + MARK_TODAY)  # Tue ■, Wed -, Thu ○
    assert f"{MARK_TODAY} today, not answered yet" in shown  # the legend names every mark
    answer(chat, app)
    shown = chat.say("/streak")
    assert "2-day streak" in shown
    assert cells(shown).endswith(MARK_ACTIVE + MARK_OFF + MARK_ACTIVE)  # Tue ■, Wed -, Thu ■


# -- the rule, over any zones -----------------------------------------------------------------


def shown_around(steps: list[tuple[int, str | None]], start: datetime) -> list[tuple[Card, Card]]:
    """Answer after each step's minutes, switching zone first when it names one; the
    /streak card just before and just after every answer (on the in-memory unit of work,
    for a user who never answered a daily: every day is due)."""
    with FakeUnitOfWork(FakeStore(), SimulatedClock(start)) as uow:
        workspace = uow[WORKSPACES].ensure("console", "console")
        user = uow[USERS].ensure(workspace, "u1")
        when = start
        cards = []
        for minutes, new_zone in steps:
            when += timedelta(minutes=minutes)
            if new_zone is not None:
                user = uow[USERS].set_timezone(user, new_zone)
            before = streak_view(uow, user, when)
            record_activity(uow, user, when)
            cards.append((before, streak_view(uow, user, when)))
    return cards


steps = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=22 * 60),  # under 23 hours: never a break
        st.one_of(st.none(), st.sampled_from(ZONES)),
    ),
    min_size=1,
    max_size=20,  # at most 19 days: all within the calendar's four weeks
)


@settings(max_examples=400, deadline=None)
@given(steps=steps, start_zone=st.sampled_from(ZONES), hour=st.integers(0, 23))
def test_whatever_the_zone_changes_the_count_is_the_answered_days_the_calendar_shows(
    steps: list[tuple[int, str | None]], start_zone: str, hour: int
) -> None:
    first, *rest = steps
    shown = shown_around(
        [(first[0], first[1] or start_zone), *rest], datetime(2026, 10, 20, hour, tzinfo=UTC)
    )
    for index, (before, after) in enumerate(shown):
        # before the first answer there is no streak yet; after that, /streak before an
        # answer (just after a zone change) is held to the same as after one
        for card in (before, after) if index else (after,):
            text = "\n".join(card.blocks)
            count, marks = count_of(card.title), cells(text)
            assert count == marks.count(MARK_ACTIVE)  # what /streak says is what it shows
            since_start = marks[marks.index(MARK_ACTIVE) :]
            assert MARK_MISSED not in since_start  # nothing inside a running streak is missed
        assert cells("\n".join(after.blocks)).endswith(MARK_ACTIVE)  # the last counted day

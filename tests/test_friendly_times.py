"""Times as people type them: a channel's schedule in everyday words, a mock's WHEN such
as "next tuesday at 9", and zone abbreviations such as EST or PST."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.daily.schedule import default_schedule, parse_schedule_args
from bot.core.errors import UserError
from bot.core.mock.times import parse_when
from bot.core.timezones import parse_zone
from bot.db.models import ChannelScheduleRow, UserRow
from tests.support import Transcript, row_counts

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday, 10:00 in Berlin


def schedule_row(app: App) -> ChannelScheduleRow:
    with app.session_factory() as session:
        return session.scalars(select(ChannelScheduleRow)).one()


@pytest.mark.parametrize(
    ("words", "time", "days"),
    [
        ("every day at 9:00 PM", "21:00", "mon,tue,wed,thu,fri,sat,sun"),
        ("every weekday at 9am", "09:00", "mon,tue,wed,thu,fri"),
        ("at 7 p.m. on weekends", "19:00", "sat,sun"),
        ("mondays and thursdays at 8:30 AM", "08:30", "mon,thu"),
        ("mon, wed, fri 10:00", "10:00", "mon,wed,fri"),
    ],
)
def test_a_schedule_reads_everyday_words(
    chat: Transcript, app: App, words: str, time: str, days: str
) -> None:
    text = chat.say(f"/studybot schedule {words}")
    assert "Schedule saved" in text
    row = schedule_row(app)
    assert (row.local_time, row.weekdays) == (time, days)


def test_everyday_words_keep_the_settings_beside_them(chat: Transcript, app: App) -> None:
    saved = chat.say("/studybot schedule every day at 9:00 PM Europe/Berlin topics=mig reveal=2h")
    assert "Posts at 21:00 Europe/Berlin every day." in saved  # not "on every day"
    row = schedule_row(app)
    assert (row.local_time, row.timezone, row.topics, row.reveal_delay_minutes) == (
        "21:00",
        "Europe/Berlin",
        ["mig"],
        120,
    )
    assert "Posts at 09:00 Europe/Berlin on weekdays." in chat.say(
        "/studybot schedule weekdays 9am"
    )


def test_words_a_schedule_cannot_use_are_named_and_change_nothing(
    chat: Transcript, app: App
) -> None:
    chat.send("/studybot schedule 09:30")
    before = row_counts(app), schedule_row(app).local_time
    text = chat.say("/studybot schedule every fortnight at 9:00 PM")
    assert "I don't understand 'fortnight'" in text
    assert (row_counts(app), schedule_row(app).local_time) == before


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        ("next tuesday at 9", datetime(2026, 12, 8, 8, 0, tzinfo=UTC)),
        ("tuesday at 9", datetime(2026, 12, 8, 8, 0, tzinfo=UTC)),
        ("this friday at 10", datetime(2026, 12, 4, 9, 0, tzinfo=UTC)),
        ("fri 9", datetime(2026, 12, 4, 8, 0, tzinfo=UTC)),
        ("tomorrow at 9:00 PM", datetime(2026, 12, 2, 20, 0, tzinfo=UTC)),
        ("tomorrow at 9 pm", datetime(2026, 12, 2, 20, 0, tzinfo=UTC)),
        ("at 9 next tuesday", datetime(2026, 12, 8, 8, 0, tzinfo=UTC)),
        ("next tuesday at 12", datetime(2026, 12, 8, 11, 0, tzinfo=UTC)),  # not today
    ],
)
def test_a_mocks_when_reads_everyday_phrasings(when: str, expected: datetime) -> None:
    assert parse_when(when, "Europe/Berlin", NOW) == expected


def test_a_recurring_when_for_a_mock_says_a_mock_happens_once() -> None:
    with pytest.raises(UserError, match="A mock happens once"):
        parse_when("every day at 9:00 PM", "Europe/Berlin", NOW)


@given(st.text(max_size=60))
def test_any_when_is_an_instant_ahead_or_a_friendly_error(text: str) -> None:
    try:
        when = parse_when(text, "America/New_York", NOW)
    except UserError:
        return
    assert when > NOW


def test_tz_est_is_accepted_with_a_warning_that_it_has_no_daylight_saving(
    chat: Transcript, app: App
) -> None:
    text = chat.say("/tz EST")
    assert "Time zone set to EST" in text
    assert "no daylight saving" in text and "/tz America/New_York" in text
    with app.session_factory() as session:
        assert session.scalars(select(UserRow.timezone)).one() == "EST"


def test_a_city_zone_gets_no_warning(chat: Transcript) -> None:
    assert "daylight" not in chat.say("/tz America/New_York")


@pytest.mark.parametrize(
    ("typed", "city"),
    [("PST", "America/Los_Angeles"), ("cst", "America/Chicago"), ("JST", "Asia/Tokyo")],
)
def test_an_abbreviation_that_is_no_zone_suggests_its_city_zone_and_changes_nothing(
    chat: Transcript, app: App, typed: str, city: str
) -> None:
    chat.send("/tz Europe/Berlin")
    text = chat.say(f"/tz {typed}")
    assert f"use {city}" in text and "Time zone set" not in text
    with app.session_factory() as session:
        assert session.scalars(select(UserRow.timezone)).one() == "Europe/Berlin"
    with pytest.raises(UserError, match=city):
        parse_zone(typed)


WORDS = st.sampled_from(
    [
        "every",
        "day",
        "at",
        "9:00",
        "PM",
        "pm",
        "on",
        "weekdays",
        "and",
        "mon",
        "fridays",
        "7",
        "a.m.",
        "each",
        "weekend",
        "Europe/Berlin",
        "topics=mig",
        "banana",
        ",",
        "tue-thu",
    ]
)


@given(st.lists(WORDS, max_size=8))
def test_any_schedule_words_give_a_schedule_or_a_friendly_error(words: list[str]) -> None:
    current = default_schedule(1, 1, "UTC", NOW)
    try:
        schedule = parse_schedule_args(current, words, ["mig", "mps"])
    except UserError:
        return
    assert schedule.weekdays and schedule.local_time is not None

"""Dates as people type them, read one way in every command (``bot.core.dates``): an ISO
date is read exactly, and one that does not exist is a friendly error that changes
nothing, never another date."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.dates import NotADate, pin_dates, read_date
from bot.db.models import ChannelScheduleRow, MockInterviewRow
from tests.support import Transcript, row_counts
from tests.test_mock import mapp, mchat, mclock, mock_bank

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with tests.test_mock

TODAY = date(2026, 12, 1)  # the fixtures' clock: Tue 1 Dec 2026


def skip_dates(app: App) -> list[str]:
    with app.session_factory() as session:
        row = session.scalars(select(ChannelScheduleRow)).one()
        return sorted(row.skip_dates or ())


def mock_starts(app: App) -> list[str]:
    with app.session_factory() as session:
        return [str(r.starts_at) for r in session.scalars(select(MockInterviewRow))]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/studybot schedule skip 2027-13-01", "'2027-13-01' is not a date: there is no month 13"),
        ("/studybot schedule skip 2026-13-01", "'2026-13-01' is not a date: there is no month 13"),
        ("/studybot schedule skip 2027-02-29", "February 2027 has no day 29"),
        ("/studybot season start 2027-13-01", "'2027-13-01' is not a date"),
        ("/mock schedule 2027-13-01 15:00", "'2027-13-01' is not a date: there is no month 13"),
        ("/mock schedule 2026-12-32 15:00", "December 2026 has no day 32"),
        ("/mock reschedule 1 2027-13-01 15:00", "'2027-13-01' is not a date"),
        ("/away 2027-13-01 2027-13-02", "'2027-13-01' is not a date"),
        ("/away 2026-12-20 2027-02-30", "'2027-02-30' is not a date"),
        ("/goal 2027-13-01", "'2027-13-01' is not a date: there is no month 13"),
        ("/goal 2027-02-30 technical", "'2027-02-30' is not a date"),
    ],
)
def test_an_impossible_iso_date_is_an_error_in_every_command_and_changes_nothing(
    mchat: Transcript, mapp: App, line: str, says: str
) -> None:
    mchat.send("/studybot schedule 09:00 Europe/Berlin weekdays")
    mchat.send("/studybot schedule skip 2026-12-24")
    mchat.send("/mock schedule 2026-12-03 15:00")
    before = row_counts(mapp), skip_dates(mapp), mock_starts(mapp)
    reply = mchat.say(line)
    assert says in reply
    assert "2027-01-13" not in reply and "13 Jan" not in reply  # no day and month swapped
    assert (row_counts(mapp), skip_dates(mapp), mock_starts(mapp)) == before


def test_a_real_iso_date_is_read_exactly_in_every_command(mchat: Transcript, mapp: App) -> None:
    mchat.send("/studybot schedule 09:00 Europe/Berlin weekdays")
    assert "No daily question on Wed 13 Jan 2027." in mchat.say("/studybot schedule skip 2027-1-13")
    assert skip_dates(mapp) == ["2027-01-13"]
    assert "Wed 13 Jan 2027 15:00 CET" in mchat.say("/mock schedule 2027-01-13 15:00")
    assert "Wed 13 Jan 2027" in mchat.say("/goal 2027-01-13")
    assert "Wed 13 Jan 2027" in mchat.say("/away 2027-01-13")


@given(st.integers(1000, 9999), st.integers(0, 99), st.integers(0, 99))
def test_an_iso_date_is_that_date_or_not_a_date_never_another(
    year: int, month: int, day: int
) -> None:
    for text in (f"{year}-{month}-{day}", f"{year}-{month:02d}-{day:02d}", f"{year}/{month}/{day}"):
        try:
            expected: date | None = date(year, month, day)
        except ValueError:
            expected = None
        if expected is None:
            with pytest.raises(NotADate, match="is not a date: "):
                read_date(text, TODAY)
            with pytest.raises(NotADate):
                pin_dates(f"{text} 15:00")
        else:
            assert read_date(text, TODAY) == expected
            assert pin_dates(f"{text} 15:00") == f"{expected.isoformat()} 15:00"


@given(st.dates(min_value=TODAY, max_value=TODAY + timedelta(days=730)))
def test_words_around_an_iso_date_do_not_make_it_another(day: date) -> None:
    assert read_date(f"  {day.isoformat()} ", TODAY) == day
    assert pin_dates(f"on {day.year}-{day.month}-{day.day} at 9") == f"on {day} at 9"

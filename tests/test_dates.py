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
from bot.db.models import ChannelScheduleRow, InterviewGoalRow, MockInterviewRow
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
                pin_dates(f"{text} 15:00", TODAY)
        else:
            assert read_date(text, TODAY) == expected
            assert pin_dates(f"{text} 15:00", TODAY) == f"{expected.isoformat()} 15:00"


@given(st.dates(min_value=TODAY, max_value=TODAY + timedelta(days=730)))
def test_words_around_an_iso_date_do_not_make_it_another(day: date) -> None:
    assert read_date(f"  {day.isoformat()} ", TODAY) == day
    assert pin_dates(f"on {day.year}-{day.month}-{day.day} at 9", TODAY) == f"on {day} at 9"


# -- one rule for numeric dates, names of months, and dates that do not exist -------------------


def goals(app: App) -> list[tuple[date, str]]:
    with app.session_factory() as session:
        return [(r.day, r.format) for r in session.scalars(select(InterviewGoalRow))]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/goal feb 30", "'feb 30' is not a date: February 2027 has no day 30"),
        ("/goal feb 30 technical", "'feb 30' is not a date: February 2027 has no day 30"),
        ("/goal 31/04/2027", "'31/04/2027' is not a date: April 2027 has no day 31"),
        ("/goal 12/25", "there is no month 25 (numeric dates are day first: 25/12)"),
        ("/goal fri 10 feb", "10 Feb 2027 is a Wednesday"),
        ("/away apr 31", "'apr 31' is not a date: April 2027 has no day 31"),
        ("/studybot schedule skip 12/25", "numeric dates are day first"),
        ("/mock schedule feb 30 15:00", "'feb 30' is not a date"),
    ],
)
def test_a_date_that_does_not_exist_is_named_and_changes_nothing(
    mchat: Transcript, mapp: App, line: str, says: str
) -> None:
    mchat.send("/studybot schedule 09:00 Europe/Berlin weekdays")
    mchat.send("/goal 2027-01-20 product")
    before = row_counts(mapp), goals(mapp), skip_dates(mapp)
    reply = mchat.say(line)
    assert says in reply
    assert "interview format" not in reply
    assert (row_counts(mapp), goals(mapp), skip_dates(mapp)) == before


@pytest.mark.parametrize(
    ("line", "says", "day"),
    [
        ("/goal 10/02/2027", "Wed 10 Feb 2027", date(2027, 2, 10)),  # day first, never 2 Oct
        ("/goal 10.02.2027 technical", "Wed 10 Feb 2027", date(2027, 2, 10)),
        ("/goal 10/2", "Wed 10 Feb 2027", date(2027, 2, 10)),
        ("/goal 10th of february", "Wed 10 Feb 2027", date(2027, 2, 10)),
        ("/goal dec 1", "Tue 01 Dec 2026", date(2026, 12, 1)),  # today, not next year
    ],
)
def test_numeric_dates_are_day_first_in_every_zone(
    mchat: Transcript, mapp: App, line: str, says: str, day: date
) -> None:
    assert says in mchat.say(line)
    assert goals(mapp)[0][0] == day
    mchat.send("/tz America/New_York")  # no zone reads them month first
    assert says in mchat.say(line)
    assert goals(mapp)[0][0] == day


def test_the_same_numeric_date_is_the_same_day_in_every_command(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/studybot schedule 09:00 Europe/Berlin weekdays")
    assert "Fri 25 Dec 2026" in mchat.say("/studybot schedule skip 25/12")
    assert "Wed 10 Feb 2027" in mchat.say("/away 10/02/2027")
    assert "Wed 10 Feb 2027" in mchat.say("/goal 10/02/2027")
    assert "Thu 10 Dec 2026 15:00 CET" in mchat.say("/mock schedule 10/12 15:00")
    assert skip_dates(mapp) == ["2026-12-25"]


@given(st.dates(min_value=TODAY, max_value=TODAY + timedelta(days=3000)))
def test_every_written_form_of_a_date_reads_back_as_that_date(day: date) -> None:
    forms = [
        f"{day.day}/{day.month}/{day.year}",
        f"{day.day:02d}/{day.month:02d}/{day.year % 100:02d}",
        f"{day.day}.{day.month}.{day.year}",
        f"{day.day}-{day.month}-{day.year}",
        f"{day:%b} {day.day} {day.year}",
        f"{day:%B} {day.day}, {day.year}",
        f"{day.day} {day:%B} {day.year}",
        f"{day:%a} {day.day} {day:%b} {day.year}",
    ]
    if day - TODAY < timedelta(days=365):  # without a year: the next such day
        forms += [f"{day.day}/{day.month}", f"{day:%b} {day.day}", f"{day.day}th of {day:%B}"]
    for text in forms:
        assert read_date(text, TODAY) == day, text


@given(st.integers(1, 99), st.integers(1, 99), st.sampled_from(["", "/2027", "/27"]))
def test_a_numeric_date_is_day_first_or_not_a_date_never_swapped(
    first: int, second: int, year: str
) -> None:
    text = f"{first}/{second}{year}"
    try:
        expected: date | None = date(2027 if year else 2026, second, first)
    except ValueError:
        expected = None
    if expected is None:
        with pytest.raises(NotADate, match="day first"):
            read_date(text, TODAY)
    elif not year:
        assert read_date(text, TODAY) in (expected, expected.replace(year=2027))
    else:
        assert read_date(text, TODAY) == expected


@given(st.text(max_size=30))
def test_any_text_is_one_date_none_or_a_friendly_error(text: str) -> None:
    try:
        day = read_date(text, TODAY)
    except NotADate as error:
        assert str(error).endswith(".") and "Traceback" not in str(error)
    else:
        assert day is None or isinstance(day, date)

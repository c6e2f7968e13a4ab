"""Time away: /away keeps a streak intact without spending freezes and stops the nudges;
it is listable and cancellable; bad input says what is wrong and changes nothing."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.away import parse_period
from bot.core.errors import UserError
from bot.core.messages import Delivery
from bot.db.models import AwayPeriodRow, StreakRow
from tests.support import Transcript, row_counts
from tests.test_streak_schedule import answer_today

TODAY = date(2026, 12, 1)


def periods(app: App) -> list[tuple[date, date]]:
    with app.session_factory() as session:
        rows = session.scalars(select(AwayPeriodRow).order_by(AwayPeriodRow.id))
        return [(r.first_day, r.last_day) for r in rows]


def test_a_week_away_keeps_the_streak_without_a_freeze_or_a_nudge(
    chat: Transcript, app: App
) -> None:
    chat.send("/daily")
    answer_today(chat, app)  # Tue 1 Dec
    reply = chat.say("/away 2026-12-02 2026-12-08")
    assert "Time away #1: Wed 02 Dec 2026 to Tue 08 Dec 2026, 7 days" in reply
    away = chat.send("/advance 7d")  # every weekday posts; alice is away
    assert not [m for m in away if m.delivery is Delivery.DM]
    streak = chat.say("/streak")
    assert "1-day streak" in streak and "✈ Away until Tue 08 Dec 2026" in streak
    chat.send("/advance 1d")  # Wed 9 Dec: back
    assert "2-day streak" in answer_today(chat, app)
    with app.session_factory() as session:
        row = session.scalars(select(StreakRow)).one()
    assert (row.current, row.freezes) == (2, 0)
    assert "no time away planned" in chat.say("/away")


def test_away_off_ends_it_today_and_cancel_removes_a_planned_one(
    chat: Transcript, app: App
) -> None:
    chat.send("/daily")
    answer_today(chat, app)
    chat.say("/away tomorrow to dec 10")
    chat.say("/away dec 20 jan 3")
    listing = chat.say("/away list")
    assert "#1 Wed 02 Dec 2026 to Thu 10 Dec 2026, 9 days" in listing
    assert "#2 Sun 20 Dec 2026 to Sun 03 Jan 2027, 15 days" in listing
    chat.send("/advance 2d")  # Thursday 3 Dec, away since Wednesday
    assert "· now" in chat.say("/away")
    assert "Welcome back" in chat.say("/away off")
    assert periods(app) == [
        (date(2026, 12, 2), date(2026, 12, 2)),
        (date(2026, 12, 20), date(2027, 1, 3)),
    ]
    assert "not away now" in chat.say("/away off")
    assert "#2 is cancelled" in chat.say("/away cancel 2")
    assert periods(app) == [(date(2026, 12, 2), date(2026, 12, 2))]
    # Thursday is due again: the nudge comes at 19:00
    nudges = [m for m in chat.send("/advance 10h") if m.delivery is Delivery.DM]
    assert [m.to for m in nudges] == ["alice"]


def test_cancelling_time_away_that_has_begun_keeps_the_days_that_passed(
    chat: Transcript, app: App
) -> None:
    chat.send("/daily")
    answer_today(chat, app)  # Tue 1 Dec
    chat.say("/away 2026-12-02 2026-12-08")
    chat.send("/advance 3d")  # Fri 4 Dec: away on Wednesday and Thursday
    reply = chat.say("/away cancel 1")
    assert "ends today, as with /away off" in reply
    assert "(Wed 02 Dec 2026 to Thu 03 Dec 2026, 2 days) stay paused" in reply
    assert periods(app) == [(date(2026, 12, 2), date(2026, 12, 3))]
    streak = chat.say("/streak")
    assert "1-day streak" in streak and "Answer a question today" in streak
    assert "Nov 30    ■  -  -  ○" in streak  # Wednesday and Thursday paused, not missed
    assert "2-day streak" in answer_today(chat, app)


def test_time_away_that_is_over_cannot_be_cancelled(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    answer_today(chat, app)  # Tue 1 Dec
    chat.say("/away 2026-12-02 2026-12-03")
    chat.send("/advance 3d")  # Fri 4 Dec: back
    before = row_counts(app)
    reply = chat.say("/away cancel 1")
    assert reply == (
        "Time away #1 (Wed 02 Dec 2026 to Thu 03 Dec 2026, 2 days) is over: a day that has "
        "passed cannot be taken back."
    )
    assert row_counts(app) == before
    assert periods(app) == [(date(2026, 12, 2), date(2026, 12, 3))]
    assert "1-day streak" in chat.say("/streak")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/away banana", "could not read 'banana'"),
        ("/away 2026-12-10 2026-12-05", "ends before it starts"),
        ("/away 2026-11-20 2026-12-05", "start today"),
        ("/away 2026-13-01 2026-12-20", "'2026-13-01' is not a date"),
        ("/away 2026-12-02 2027-06-01", "at most 90 days"),
        ("/away 2026-12-05 to 2026-12-06", "overlaps your time away #1"),
        ("/away cancel 99", "no time away #99"),
        ("/away cancel", "Usage: /away cancel ID"),
        ("/away list me", "Usage: /away FROM TO"),
        ("/away cancel 99999999999999", "no time away #99999999999999"),
        ("/away cancel ²", "Usage: /away cancel ID"),
        ("/away cancel 99999999999999999999", "Usage: /away cancel ID"),
    ],
)
def test_bad_time_away_says_what_is_wrong_and_changes_nothing(
    chat: Transcript, app: App, line: str, says: str
) -> None:
    chat.say("/away 2026-12-04 2026-12-07")
    before = row_counts(app)
    assert says in chat.say(line)
    assert row_counts(app) == before
    assert periods(app) == [(date(2026, 12, 4), date(2026, 12, 7))]


def test_someone_elses_time_away_cannot_be_cancelled(app: App) -> None:
    alice, bob = Transcript(app, user="alice"), Transcript(app, user="bob")
    alice.say("/away 2026-12-04 2026-12-07")
    assert "no time away #1" in bob.say("/away cancel 1")
    assert "no time away planned" in bob.say("/away")
    assert periods(app) == [(date(2026, 12, 4), date(2026, 12, 7))]


@settings(max_examples=60, deadline=None)
@given(st.dates(min_value=date(2026, 12, 1), max_value=date(2027, 12, 31)), st.integers(0, 120))
def test_iso_dates_in_every_written_form_read_back_as_themselves(first: date, length: int) -> None:
    last = date.fromordinal(first.toordinal() + length)
    for text in (f"{first} {last}", f"{first} to {last}", f"{first} - {last}"):
        assert parse_period(text, TODAY) == (first, last)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=30))
def test_any_text_is_dates_or_a_friendly_error(text: str) -> None:
    try:
        first, last = parse_period(text, TODAY)
    except UserError as exc:
        assert str(exc) and "Traceback" not in str(exc)
    else:
        assert isinstance(first, date) and isinstance(last, date)

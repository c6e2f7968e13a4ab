"""Mock interview building blocks: reading WHEN, availability windows and their overlaps,
calendar files, and the hiring committee's reading of votes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import icalendar
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.errors import UserError
from bot.core.ics import CalendarEvent, build_ics
from bot.core.mock.model import ANSWERED, TIMED_OUT, Round
from bot.core.mock.scorecard import debrief, recommendation, rubric_vote, verdicts
from bot.core.mock.times import (
    MAX_AHEAD,
    ceil_quarter,
    expand,
    overlaps,
    parse_days,
    parse_offsets,
    parse_when,
    parse_window,
    show,
)

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # Tuesday


# -- WHEN ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "zone", "expected"),
    [
        ("tomorrow 3pm", "Europe/Berlin", datetime(2026, 12, 2, 14, 0, tzinfo=UTC)),
        ("Fri 15:00", "Europe/Berlin", datetime(2026, 12, 4, 14, 0, tzinfo=UTC)),
        ("2026-12-04 15:00", "America/New_York", datetime(2026, 12, 4, 20, 0, tzinfo=UTC)),
        ("in 2 hours", "Asia/Tokyo", datetime(2026, 12, 1, 11, 0, tzinfo=UTC)),
        ("next monday 9am", "UTC", datetime(2026, 12, 7, 9, 0, tzinfo=UTC)),
        ("tomorrow 3pm", "Asia/Kolkata", datetime(2026, 12, 2, 9, 30, tzinfo=UTC)),
    ],
)
def test_when_is_read_in_the_users_zone_relative_to_the_injected_clock(
    text: str, zone: str, expected: datetime
) -> None:
    assert parse_when(text, zone, NOW) == expected


def test_when_uses_the_clock_given_not_the_wall_clock() -> None:
    later = datetime(2027, 1, 20, 9, 0, tzinfo=UTC)
    assert parse_when("tomorrow 10:00", "UTC", later) == datetime(2027, 1, 21, 10, tzinfo=UTC)


def test_a_wall_time_in_a_spring_forward_gap_lands_after_the_gap() -> None:
    now = datetime(2027, 3, 10, 12, 0, tzinfo=UTC)
    when = parse_when("2027-03-14 02:30", "America/New_York", now)  # 02:00 → 03:00 that night
    assert show(when, "America/New_York") == "Sun 14 Mar 2027 03:30 EDT"


@given(st.text(max_size=40))
@settings(max_examples=60, deadline=None)
def test_any_text_is_either_a_future_time_within_90_days_or_a_user_error(text: str) -> None:
    try:
        when = parse_when(text, "Europe/Berlin", NOW)
    except UserError as err:
        assert str(err)
    else:
        assert NOW < when <= NOW + MAX_AHEAD


# -- reminders and windows ------------------------------------------------------------------


def test_reminder_offsets_read_as_minutes_largest_first() -> None:
    assert parse_offsets("1h 24h") == [1440, 60]
    assert parse_offsets("15m,2h,15m") == [120, 15]


@pytest.mark.parametrize(
    ("text", "days", "start", "end"),
    [
        ("weekdays 18:00-20:00", {0, 1, 2, 3, 4}, 18 * 60, 20 * 60),
        ("mon,wed 6pm-8:30pm", {0, 2}, 18 * 60, 20 * 60 + 30),
        ("fri-mon 9-11", {4, 5, 6, 0}, 9 * 60, 11 * 60),
        ("sat 22:00-24:00", {5}, 22 * 60, 24 * 60),
    ],
)
def test_windows_are_days_and_a_local_time_range(
    text: str, days: set[int], start: int, end: int
) -> None:
    assert parse_window(text) == (frozenset(days), start, end)


def test_day_words_cover_the_week() -> None:
    assert parse_days("daily") == frozenset(range(7))
    assert parse_days("weekends") == frozenset({5, 6})


def test_a_window_expands_to_dst_correct_instants_on_each_date() -> None:
    since = datetime(2027, 3, 12, 0, 0, tzinfo=UTC)  # Friday; New York changes on the 14th
    spans = list(
        expand(
            frozenset({4, 0}),
            18 * 60,
            20 * 60,
            "America/New_York",
            since,
            since + timedelta(days=4),
        )
    )
    assert spans == [
        (datetime(2027, 3, 12, 23, 0, tzinfo=UTC), datetime(2027, 3, 13, 1, 0, tzinfo=UTC)),
        (datetime(2027, 3, 15, 22, 0, tzinfo=UTC), datetime(2027, 3, 16, 0, 0, tzinfo=UTC)),
    ]


_instants = st.integers(min_value=0, max_value=7 * 24 * 4).map(
    lambda q: NOW + timedelta(minutes=15 * q)
)
_spans = st.lists(
    st.tuples(_instants, st.integers(min_value=1, max_value=16)).map(
        lambda t: (t[0], t[0] + timedelta(minutes=15 * t[1]))
    ),
    max_size=6,
)


@given(_spans, _spans)
@settings(max_examples=80, deadline=None)
def test_overlaps_are_symmetric_and_inside_both_lists(
    mine: list[tuple[datetime, datetime]], theirs: list[tuple[datetime, datetime]]
) -> None:
    found = overlaps(mine, theirs)
    assert found == overlaps(theirs, mine)
    for a, b in found:
        assert a < b
        assert any(x <= a and b <= y for x, y in mine)
        assert any(x <= a and b <= y for x, y in theirs)


@given(st.integers(min_value=0, max_value=2 * 365 * 24 * 3600 * 1000))
def test_ceil_quarter_is_the_next_quarter_hour(millis: int) -> None:
    instant = NOW + timedelta(milliseconds=millis)
    rounded = ceil_quarter(instant)
    assert rounded >= instant
    assert rounded - instant < timedelta(minutes=15)
    assert rounded.minute % 15 == 0 and rounded.second == 0 and rounded.microsecond == 0


# -- calendar files ---------------------------------------------------------------------------


def test_the_ics_file_is_one_event_a_calendar_can_update_and_cancel() -> None:
    event = CalendarEvent(
        uid="mock-7-console-console@studybot",
        summary="Mock interview #7 (loop)",
        description="Five rounds.",
        starts_at=datetime(2026, 12, 4, 14, 0, tzinfo=UTC),
        ends_at=datetime(2026, 12, 4, 14, 40, tzinfo=UTC),
        stamp=NOW,
        sequence=2,
    )
    cal = icalendar.Calendar.from_ical(build_ics(event))
    assert cal["method"] == "PUBLISH"
    (vevent,) = cal.walk("VEVENT")
    assert str(vevent["uid"]) == event.uid
    assert vevent.decoded("dtstart") == event.starts_at
    assert vevent.decoded("dtend") == event.ends_at
    assert vevent["sequence"] == 2
    cancelled = icalendar.Calendar.from_ical(build_ics(replace(event, cancelled=True)))
    assert cancelled["method"] == "CANCEL"
    assert cancelled.walk("VEVENT")[0]["status"] == "CANCELLED"


# -- the committee ------------------------------------------------------------------------------


def _round(position: int, score: float | None, vote: str | None, outcome: str = ANSWERED) -> Round:
    return Round(
        id=position,
        mock_id=1,
        position=position,
        kind="technical",
        topic="mig",
        question_id="nope",
        started_at=NOW,
        ends_at=NOW,
        answer="x" if outcome == ANSWERED else None,
        score=score,
        verdict="partial",
        matched=(),
        missed=(),
        feedback="",
        answered_at=NOW,
        outcome=outcome,
        vote=vote,
        note=None,
    )


@pytest.mark.parametrize(
    ("votes", "reads"),
    [
        (["sy", "sy", "sy", "y", "sy"], "Strong hire"),
        (["y", "y", "sy", "y", "n"], "Hire"),
        (["y", "n", "y", "n", "y"], "Lean hire"),
        (["n", "n", "y", "n", "n"], "Lean no hire"),
        (["sy", "sy", "sy", "sy", "sn"], "Lean no hire"),
        (["y", "sn", "y", "sn", "y"], "No hire"),
        ([], "No signal"),
    ],
)
def test_the_committee_weighs_votes_as_a_hiring_committee_would(
    votes: list[str], reads: str
) -> None:
    assert recommendation(votes) == reads


def test_the_rubric_stands_in_for_a_missing_vote() -> None:
    assert rubric_vote(_round(0, 0.9, None), 0.6) == "sy"
    assert rubric_vote(_round(0, 0.6, None), 0.6) == "y"
    assert rubric_vote(_round(0, 0.4, None), 0.6) == "n"
    assert rubric_vote(_round(0, 0.1, None), 0.6) == "sn"
    assert rubric_vote(_round(0, None, None, TIMED_OUT), 0.6) == "sn"


@pytest.mark.parametrize(
    ("votes", "source"),
    [
        ([None, None, None], "(the interviewer voted on none of the 3 rounds: the rubric's"),
        (["y", None, None], "(the interviewer voted on 1 of the 3 rounds; the rubric stands in"),
        (["y", "n", "sy"], "(interviewer votes)."),
    ],
)
def test_the_debrief_says_whose_votes_they_are(votes: list[str | None], source: str) -> None:
    from bot.core.bank import QuestionBank

    rounds = [_round(i, 0.1, vote) for i, vote in enumerate(votes)]
    text = debrief(verdicts(rounds, QuestionBank([])), has_interviewer=True)
    assert source in text
    assert "on 0 of" not in text


def test_the_debrief_names_strengths_concerns_gaps_and_calibration() -> None:
    from bot.core.bank import QuestionBank

    rounds = [
        _round(0, 0.9, "sy"),
        _round(1, 0.1, "sy"),  # the interviewer liked an answer the rubric did not
        _round(2, None, "n", TIMED_OUT),
    ]
    text = debrief(verdicts(rounds, QuestionBank([])), has_interviewer=True)
    assert "Votes: 2 strong yes, 1 no (interviewer votes)." in text
    assert "Strongest: round 1" in text
    assert "Main concern: round 3" in text
    assert "No answer within the time box in round 3." in text
    assert "Calibration: in round 2" in text
    assert text.endswith("Recommendation: Hire.")

"""Streaks: local days in the user's own zone, freezes, and DST or zone changes that never
break or double-count a streak."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.streaks import (
    FREEZE_EVERY,
    MAX_FREEZES,
    StreakState,
    apply_activity,
    at_risk,
    local_day,
    nudge_instant,
    settle,
)

DST_ZONES = [
    "Europe/Berlin",
    "America/New_York",
    "America/Sao_Paulo",
    "Australia/Lord_Howe",  # a 30-minute DST shift
    "Australia/Sydney",
    "Pacific/Auckland",
    "Asia/Kolkata",
    "Pacific/Kiritimati",  # UTC+14
    "Pacific/Pago_Pago",  # UTC-11
    "UTC",
]
# Around the 2026 DST changes of Europe and the US (March and Oct/Nov) and the southern ones.
BASES = [
    datetime(2026, 3, 6, tzinfo=UTC),
    datetime(2026, 3, 26, tzinfo=UTC),
    datetime(2026, 4, 2, tzinfo=UTC),
    datetime(2026, 10, 22, tzinfo=UTC),
    datetime(2026, 10, 29, tzinfo=UTC),
]


def run(instants: list[datetime], zones: list[str]) -> list[StreakState]:
    state = StreakState()
    states = []
    for when, zone_name in zip(instants, zones, strict=True):
        state, *_ = apply_activity(state, when, zone_name)
        states.append(state)
    return states


def reference(days: list[date]) -> tuple[int, int, int]:
    """(current, longest, freezes) walking the calendar one day at a time: an independent
    statement of the rules for a user who never changes zone."""
    active = set(days)
    current = longest = freezes = 0
    missed_run = 0
    day = min(days)
    while day <= max(days):
        if day in active:
            if current and missed_run:
                if missed_run <= freezes:
                    freezes -= missed_run
                else:
                    current = 0
            missed_run = 0
            current += 1
            if current % FREEZE_EVERY == 0 and freezes < MAX_FREEZES:
                freezes += 1
            longest = max(longest, current)
        else:
            missed_run += 1
        day += timedelta(days=1)
    return current, longest, freezes


instants = st.lists(st.integers(min_value=0, max_value=40 * 24 * 60), min_size=1, max_size=40).map(
    sorted
)


@settings(max_examples=150, deadline=None)
@given(minutes=instants, zone_name=st.sampled_from(DST_ZONES), base=st.sampled_from(BASES))
def test_in_one_zone_the_streak_follows_the_local_calendar_across_dst(
    minutes: list[int], zone_name: str, base: datetime
) -> None:
    whens = [base + timedelta(minutes=m) for m in minutes]
    state = run(whens, [zone_name] * len(whens))[-1]
    days = [local_day(w, zone_name) for w in whens]
    assert (state.current, state.longest, state.freezes) == reference(days)


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.integers(min_value=1, max_value=23 * 60 - 1), min_size=1, max_size=30),
    zones=st.lists(st.sampled_from(DST_ZONES), min_size=31, max_size=31),
    base=st.sampled_from(BASES),
)
def test_answers_less_than_23_hours_apart_never_break_a_streak_whatever_the_zones(
    gaps: list[int], zones: list[str], base: datetime
) -> None:
    whens = [base]
    for gap in gaps:
        whens.append(whens[-1] + timedelta(minutes=gap))
    states = run(whens, zones[: len(whens)])
    for before, after in itertools.pairwise(states):
        assert after.current >= before.current  # never reset, never a freeze spent
        assert after.freezes >= before.freezes


@settings(max_examples=200, deadline=None)
@given(
    minutes=instants,
    zones=st.lists(st.sampled_from(DST_ZONES), min_size=40, max_size=40),
    base=st.sampled_from(BASES),
)
def test_zone_changes_never_double_count(
    minutes: list[int], zones: list[str], base: datetime
) -> None:
    whens = [base + timedelta(minutes=m) for m in minutes]
    states = run(whens, zones[: len(whens)])
    previous = StreakState()
    for state in states:
        # at most one more day per answer, and a run can be at most as long as the real
        # days it spans plus the day a zone change can gain (UTC-11 to UTC+14)
        assert state.current <= previous.current + 1
        previous = state
    run_length = states[-1].current
    first_of_run = whens[len(whens) - 1]
    for when, state in zip(reversed(whens), reversed(states), strict=True):
        if state.current == 1:
            first_of_run = when
            break
    span_days = (whens[-1] - first_of_run) / timedelta(days=1)
    assert run_length <= span_days + 3


def test_a_second_answer_the_same_local_day_counts_once() -> None:
    morning = datetime(2026, 12, 1, 8, tzinfo=UTC)
    states = run([morning, morning + timedelta(hours=10)], ["Europe/Berlin"] * 2)
    assert [s.current for s in states] == [1, 1]


def test_the_day_is_the_users_local_date_not_utc() -> None:
    # 23:30 in New York on Dec 1 is Dec 2 in UTC: then 20:00 New York on Dec 2 is the next day.
    first = datetime(2026, 12, 2, 4, 30, tzinfo=UTC)
    second = datetime(2026, 12, 3, 1, 0, tzinfo=UTC)
    states = run([first, second], ["America/New_York"] * 2)
    assert [s.current for s in states] == [1, 2]
    assert states[-1].last_day == date(2026, 12, 2)


def test_a_freeze_is_earned_every_seven_days_and_at_most_two_are_held() -> None:
    start = datetime(2026, 12, 1, 12, tzinfo=UTC)
    states = run([start + timedelta(days=i) for i in range(22)], ["UTC"] * 22)
    assert [s.freezes for s in states][5:8] == [0, 1, 1]
    assert states[13].freezes == 2
    assert states[20].freezes == 2  # the third run of 7 earns nothing more


def test_a_missed_day_spends_a_freeze_and_the_streak_goes_on() -> None:
    start = datetime(2026, 12, 1, 12, tzinfo=UTC)
    whens = [start + timedelta(days=i) for i in range(7)] + [start + timedelta(days=8)]
    state, _, counted, _, frozen = apply_activity(run(whens[:7], ["UTC"] * 7)[-1], whens[7], "UTC")
    assert counted and state.current == 8 and state.freezes == 0
    assert frozen == [date(2026, 12, 8)]


def test_two_missed_days_with_one_freeze_end_the_streak_and_keep_the_freeze() -> None:
    start = datetime(2026, 12, 1, 12, tzinfo=UTC)
    week = run([start + timedelta(days=i) for i in range(7)], ["UTC"] * 7)[-1]
    state, *_ = apply_activity(week, start + timedelta(days=9), "UTC")
    assert (state.current, state.longest, state.freezes) == (1, 7, 1)


def test_settle_is_idempotent() -> None:
    start = datetime(2026, 12, 1, 12, tzinfo=UTC)
    week = run([start + timedelta(days=i) for i in range(7)], ["UTC"] * 7)[-1]
    later = start + timedelta(days=8, hours=5)
    once, frozen = settle(week, later, "UTC")
    twice, again = settle(once, later, "UTC")
    assert once == twice and len(frozen) == 1 and again == []


def test_flying_east_over_the_date_line_counts_the_next_day_without_a_miss() -> None:
    # 23:00 Monday in Pago Pago (UTC-11), then two hours later it is Wednesday in Kiritimati.
    monday = datetime(2026, 12, 8, 10, tzinfo=UTC)
    states = run([monday, monday + timedelta(hours=2)], ["Pacific/Pago_Pago", "Pacific/Kiritimati"])
    assert [s.current for s in states] == [1, 2]


def test_flying_west_back_onto_a_counted_date_counts_nothing_more() -> None:
    start = datetime(2026, 12, 8, 10, tzinfo=UTC)
    zones = ["Pacific/Kiritimati", "Pacific/Pago_Pago", "Pacific/Pago_Pago"]
    states = run([start, start + timedelta(hours=3), start + timedelta(hours=20)], zones)
    assert [s.current for s in states] == [1, 1, 1]


def test_the_nudge_is_at_19_local_on_both_sides_of_a_dst_change() -> None:
    before = nudge_instant(date(2026, 3, 28), "Europe/Berlin")
    after = nudge_instant(date(2026, 3, 29), "Europe/Berlin")
    assert (before.hour, after.hour) == (18, 17)  # 19:00 CET, then 19:00 CEST


def test_a_streak_is_at_risk_only_until_the_user_answers_today() -> None:
    monday = datetime(2026, 12, 7, 12, tzinfo=UTC)
    state = run([monday], ["UTC"])[0]
    assert not at_risk(state, monday + timedelta(hours=7), "UTC")
    assert at_risk(state, monday + timedelta(days=1, hours=7), "UTC")
    assert not at_risk(StreakState(), monday, "UTC")

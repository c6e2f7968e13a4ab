"""Streaks follow the schedule: a day on which none of a user's channels had a daily
question is not a missed day; /daily keeps to the channel's days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.messages import Delivery
from bot.core.streaks import (
    FREEZE_EVERY,
    MAX_FREEZES,
    DueDays,
    StreakState,
    apply_activity,
    at_risk,
)
from bot.db.models import DailyPromptRow, StreakRow
from tests.support import Transcript, row_counts

# The right answer to each question of the sample pack, by text (not letter).
RIGHT = {
    "sample-mig-max-instances": "7",
    "sample-timeslicing-isolation": "No memory isolation and one shared fault domain",
    "sample-mps-name": "Multi-Process Service",
}


def answer_today(chat: Transcript, app: App) -> str:
    """Answer the channel's latest daily question rightly; return the reply's text."""
    with app.session_factory() as session:
        question = session.scalars(
            select(DailyPromptRow.question_id).order_by(DailyPromptRow.local_date.desc())
        ).first()
    assert question is not None
    return chat.say(f"/answer {RIGHT[question]}")


def test_a_weekday_team_keeps_its_streak_over_the_weekend(chat: Transcript, app: App) -> None:
    # Tue 1 Dec 09:00 UTC: the default schedule posts at 09:00 on weekdays.
    chat.send("/daily")
    assert "1-day streak" in answer_today(chat, app)
    for _ in range(3):  # Wednesday to Friday: the job posts, alice answers
        chat.send("/advance 1d")
        answer_today(chat, app)
    weekend = chat.send("/advance 1d") + chat.send("/advance 1d")  # Sat, then Sun 09:00
    assert not [m for m in weekend if m.delivery is Delivery.DM], "no nudge on a day off"
    streak = chat.say("/streak")
    assert "4-day streak" in streak and "No streak running" not in streak
    assert "Nov 30    ■  ■  ■  ■  -  ○" in streak  # Monday before the first answer, Saturday
    assert "Nothing is due today" in streak
    chat.send("/advance 1d")  # Monday 7 Dec
    assert "5-day streak" in answer_today(chat, app)
    with app.session_factory() as session:
        row = session.scalars(select(StreakRow)).one()
    assert (row.current, row.freezes) == (5, 0)


def test_a_missed_weekday_still_breaks_the_streak(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    answer_today(chat, app)  # Tuesday
    chat.send("/advance 1d")  # Wednesday: posted, not answered; nudged at 19:00
    nudges = [m for m in chat.send("/advance 10h") if m.delivery is Delivery.DM]
    assert len(nudges) == 1 and "Type /daily for today's question" in nudges[0].text
    chat.send("/advance 14h")  # Thursday 09:00
    assert "No streak running" in chat.say("/streak")


def test_a_quiz_only_user_keeps_calendar_days(chat: Transcript, app: App) -> None:
    chat.send("/quiz 1")
    chat.say("/answer 7")  # a real answer in a personal quiz (right or wrong)
    assert "1-day streak" in chat.say("/streak")
    nudge = [m for m in chat.send("/advance 1d 10h") if m.delivery is Delivery.DM]
    assert len(nudge) == 1 and "/daily" not in nudge[0].text and "/quiz" in nudge[0].text
    chat.send("/advance 1d")  # Wednesday passed with nothing: a missed day for her
    assert "No streak running" in chat.say("/streak")


def test_daily_on_a_day_off_the_schedule_posts_nothing_and_says_when_the_next_comes(
    chat: Transcript, app: App
) -> None:
    chat.send("/daily")  # Tuesday: the schedule exists
    chat.send("/advance 4d")  # Saturday 5 Dec, 09:00 UTC
    before = row_counts(app)
    text = chat.say("/daily")
    assert "no daily question on Saturdays" in text and "weekdays" in text
    assert "The next one comes Mon 07 Dec 09:00 (UTC)" in text
    assert row_counts(app) == before


def test_daily_while_paused_or_on_a_skipped_date_posts_nothing(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    chat.send("/studybot schedule skip 2026-12-02")
    chat.send("/advance 1d")  # Wednesday: skipped, so the job posted nothing
    before = row_counts(app)
    text = chat.say("/daily")
    assert "Today is skipped" in text and "Thu 03 Dec 09:00" in text
    chat.send("/studybot schedule pause")
    after_pause = row_counts(app)
    chat.send("/advance 1d")
    assert "paused" in chat.say("/daily")
    assert row_counts(app) == after_pause
    with app.session_factory() as session:
        days = list(session.scalars(select(DailyPromptRow.local_date)))
    assert days == [date(2026, 12, 1)]
    assert before["daily_prompt"] == 1


# -- the rule, pure: a reference walk over the calendar -------------------------------------


def reference(active: set[date], due: set[date]) -> tuple[int, int, int]:
    """(current, longest, freezes) walking one day at a time: only due days without an
    answer are missed; any answered day lengthens the streak."""
    current = longest = freezes = 0
    missed = 0
    day = min(active)
    while day <= max(active):
        if day in active:
            if current and missed:
                if missed <= freezes:
                    freezes -= missed
                else:
                    current = 0
            missed = 0
            current += 1
            if current % FREEZE_EVERY == 0 and freezes < MAX_FREEZES:
                freezes += 1
            longest = max(longest, current)
        elif day in due:
            missed += 1
        day += timedelta(days=1)
    return current, longest, freezes


START = date(2026, 12, 1)


@settings(max_examples=300, deadline=None)
@given(
    st.sets(st.integers(min_value=0, max_value=60), min_size=1),
    st.sets(st.integers(min_value=0, max_value=60)),
    st.sets(st.integers(min_value=0, max_value=60)),
)
def test_only_due_days_without_an_answer_count_as_missed(
    answered: set[int], scheduled: set[int], away: set[int]
) -> None:
    days = {START + timedelta(days=i) for i in answered}
    posted = frozenset(START + timedelta(days=i) for i in scheduled)
    away_ranges = tuple((START + timedelta(days=i), START + timedelta(days=i)) for i in away)
    due = DueDays(posted, away_ranges)
    state = StreakState()
    for day in sorted(days):
        when = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12)
        state, *_ = apply_activity(state, when, "UTC", due)
    due_set = {d for d in posted if d not in {a for a, _ in away_ranges}}
    assert (state.current, state.longest, state.freezes) == reference(days, due_set)


def test_a_day_that_is_not_due_puts_no_streak_at_risk() -> None:
    friday = datetime(2026, 12, 4, 12, tzinfo=UTC)
    state, *_ = apply_activity(StreakState(), friday, "UTC")
    weekdays = DueDays(frozenset({date(2026, 12, 4), date(2026, 12, 7)}))
    assert not at_risk(state, friday + timedelta(days=1, hours=7), "UTC", weekdays)
    assert at_risk(state, friday + timedelta(days=3, hours=7), "UTC", weekdays)
    away = DueDays(None, ((date(2026, 12, 5), date(2026, 12, 9)),))
    assert not at_risk(state, friday + timedelta(days=3, hours=7), "UTC", away)


def test_a_day_the_bot_was_down_is_not_a_missed_day(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    chat.send("/daily")
    answer_today(chat, app)  # Tue 1 Dec
    clock.set(datetime(2026, 12, 3, 0, 30, tzinfo=UTC))  # down all Wednesday: nothing ran
    assert "1-day streak" in chat.say("/streak")  # Wednesday's post never came
    messages = chat.send("/advance 10h")  # Thursday: the job skips Wednesday, posts today
    assert not [m for m in messages if m.delivery is Delivery.DM]  # Wednesday's nudge is late
    assert "2-day streak" in answer_today(chat, app)
    with app.session_factory() as session:
        days = list(session.scalars(select(DailyPromptRow.local_date)))
    assert days == [date(2026, 12, 1), date(2026, 12, 3)]

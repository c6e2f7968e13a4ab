"""Streaks follow the schedule: a day on which none of a user's channels had a daily
question is not a missed day; /daily keeps to the channel's days."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.answers import AnswerKind, AnswerTo, record_answer
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.daily.schedule import Schedule
from bot.core.grading import Grade, Verdict
from bot.core.messages import Delivery, Outgoing
from bot.core.model import USERS
from bot.core.streaks import (
    FREEZE_EVERY,
    MARK_MISSED,
    MAX_FREEZES,
    ChannelPost,
    DueDays,
    StreakState,
    apply_activity,
    at_risk,
    due_on,
    local_day,
    streak_view,
)
from bot.db.models import DailyPromptRow, StreakRow
from tests.fakes import FakeWorld
from tests.support import Transcript, row_counts
from tests.test_streak_zones import cells, count_of

RIGHT_GRADE = Grade(1.0, Verdict.CORRECT, "Right.")
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
    # she never had a freeze: the nudge says how one comes, not that none is "left"
    assert "No freeze would cover today (one comes with every 7 days in a row)" in nudges[0].text
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


# -- a channel's posts in another zone: which of the user's days are due ----------------------


def advance_to(chat: Transcript, clock: SimulatedClock, instant: datetime) -> list[Outgoing]:
    minutes = int((instant - clock.now()).total_seconds() // 60)
    return chat.send(f"/advance {minutes}m")


@pytest.mark.parametrize(
    ("zone_name", "schedule"),
    [
        # 08:00 in Berlin is 23:00 the evening before in Los Angeles
        ("America/Los_Angeles", "08:00 Europe/Berlin weekdays reveal=20h"),
        # the default 09:00 in Berlin is 22:00 the evening before in Honolulu
        ("Pacific/Honolulu", "09:00 Europe/Berlin weekdays"),
    ],
)
def test_a_teammate_west_of_the_schedules_zone_keeps_the_streak_over_weekends(
    chat: Transcript, app: App, clock: SimulatedClock, zone_name: str, schedule: str
) -> None:
    chat.send(f"/studybot schedule {schedule}")  # Tue 1 Dec 10:00 in Berlin
    chat.send("/as hana")
    chat.send(f"/tz {zone_name}")
    counts = []
    for offset in range(1, 16):  # Wed 2 Dec to Wed 16 Dec, at 10:00 in her zone
        day = date(2026, 12, 1) + timedelta(days=offset)
        morning = datetime.combine(day, time(10), tzinfo=ZoneInfo(zone_name))
        messages = advance_to(chat, clock, morning)
        assert not [m for m in messages if m.delivery is Delivery.DM], "no nudge"
        if day.weekday() == 6:  # Sunday: Monday's question comes tonight, nothing is due
            shown = chat.say("/streak")
            assert "Nothing is due today" in shown and MARK_MISSED not in cells(shown)
        if day.weekday() < 5:
            counts.append(count_of(answer_today(chat, app)))
    assert counts == list(range(1, 12))
    shown = chat.say("/streak")
    assert count_of(shown) == 11 and MARK_MISSED not in cells(shown)
    assert cells(shown).endswith("■■■--■■■■■--■■■")  # from Wed 2 Dec: weekends free


def test_answering_the_evening_a_question_arrives_keeps_the_streak_west_of_its_zone(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    chat.send("/studybot schedule 08:00 Europe/Berlin weekdays")
    chat.send("/as hana")
    chat.send("/tz America/Los_Angeles")
    evening = datetime(2026, 12, 1, 23, 5, tzinfo=ZoneInfo("America/Los_Angeles"))
    counts = []
    for offset in range(13):  # Tue 1 Dec to Sun 13 Dec, 23:05 in Los Angeles
        advance_to(chat, clock, evening + timedelta(days=offset))
        if (evening + timedelta(days=offset)).weekday() in (6, 0, 1, 2, 3):
            # each question is answered the evening it arrives, the day before its own date
            counts.append(count_of(answer_today(chat, app)))
    assert counts == list(range(1, 10))
    shown = chat.say("/streak")
    # Friday's question was answered on Thursday evening: Friday is done, not missed
    assert count_of(shown) == 9 and MARK_MISSED not in cells(shown)
    assert cells(shown).endswith("■■■--■■■■■--■")  # Tue 1 Dec to today, Sun 13 Dec


MONDAY = date(2026, 12, 7)
BERLIN_0800 = "2026-12-07T08:00+01:00"  # Sun 6 Dec 23:00 in Los Angeles


@pytest.mark.parametrize(
    ("posted", "answered", "zone_name", "due"),
    [
        # in the channel's own zone: the question's date
        (BERLIN_0800, None, "Europe/Berlin", MONDAY),
        # west: it arrives the evening before; its own date is due
        (BERLIN_0800, None, "America/Los_Angeles", MONDAY),
        # west, answered the evening it arrived: nothing is left due for it
        (BERLIN_0800, "2026-12-06T23:05-08:00", "America/Los_Angeles", None),
        # answered on its date or later: the date is due (and answered, or missed)
        (BERLIN_0800, "2026-12-08T10:00-08:00", "America/Los_Angeles", MONDAY),
        # east: the same date, in the afternoon
        (BERLIN_0800, None, "Asia/Tokyo", MONDAY),
        # far east, a late post: it arrives the next day, which is the day due
        ("2026-12-07T23:00+01:00", None, "Pacific/Kiritimati", date(2026, 12, 8)),
    ],
)
def test_a_question_is_due_on_its_own_date_or_the_later_date_it_arrives_on(
    posted: str, answered: str | None, zone_name: str, due: date | None
) -> None:
    at = datetime.fromisoformat(posted)
    post = ChannelPost(MONDAY, at, None if answered is None else datetime.fromisoformat(answered))
    assert due_on(post, zone_name) == due


ZONE_NAMES = sorted(available_timezones())


# the bank is read-only: sharing it between examples is safe
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    channel_zone=st.sampled_from(ZONE_NAMES),
    user_zone=st.sampled_from(ZONE_NAMES),
    post_time=st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 45])),
    first=st.dates(date(2026, 1, 1), date(2026, 12, 1)),
    reading=st.lists(st.floats(0, 1, exclude_max=True), min_size=23, max_size=23),
)
def test_over_a_month_anyone_who_answers_each_question_by_the_end_of_its_day_keeps_the_streak(
    sample_bank: QuestionBank,
    channel_zone: str,
    user_zone: str,
    post_time: time,
    first: date,
    reading: list[float],
) -> None:
    """A Mon–Fri channel in one zone, a user in another, a month: each question is answered
    once, at any moment from its post to the end of the date it is due on in the user's
    zone (the evening it arrives, west of the channel's zone, included). The streak never
    breaks, it counts every answered date, and the calendar shows no missed day."""
    question = sample_bank.all()[0]
    world = FakeWorld(SimulatedClock(datetime.combine(first, time(0), tzinfo=UTC)), sample_bank)
    clock = world.clock
    assert isinstance(clock, SimulatedClock)
    with world.acting("hana") as ctx:
        ctx.uow[USERS].set_timezone(ctx.user, user_zone)
        channel = ctx.channel
    schedule = Schedule(channel.id, channel.workspace_id, post_time, channel_zone)
    days = [first + timedelta(days=i) for i in range(31)]
    posts = [ChannelPost(day, schedule.slot_on(day)) for day in days if schedule.posts_on(day)]
    answers = []
    for post, share in zip(posts, reading, strict=False):
        # its own date, or the later date it arrives on in her zone (the promise, restated)
        due = max(post.day, local_day(post.at, user_zone))
        end = datetime.combine(due + timedelta(days=1), time(0), tzinfo=ZoneInfo(user_zone))
        when = post.at + (end.astimezone(UTC) - post.at) * share
        assume(local_day(when, user_zone) <= due)  # (a DST gap at midnight)
        answers.append((when, post))
    ids: dict[ChannelPost, int] = {}
    for when, post in sorted(answers, key=lambda pair: pair[0]):
        for made in posts:  # what the daily job posted by then, and its next post
            if made.at <= when and made not in ids:
                ids[made] = world.store.post_daily(channel, question.id, made.at, made.day).id
        following = next((p.at for p in posts if p.at > when), None)
        world.store.schedules[channel.id] = (channel.workspace_id, following, False, channel_zone)
        clock.set(when)
        with world.acting("hana") as ctx:
            to = AnswerTo(AnswerKind.DAILY, question, daily_prompt_id=ids[post])
            record_answer(ctx, "an answer", RIGHT_GRADE, to, when)
    answered = {local_day(when, user_zone) for when, _ in answers}
    with world.acting("hana") as ctx:
        card = streak_view(ctx.uow, ctx.user, clock.now())
    text = "\n".join(card.blocks)
    assert count_of(card.title) == len(answered)
    assert MARK_MISSED not in cells(text)

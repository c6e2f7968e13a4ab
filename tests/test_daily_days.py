"""The daily habit over simulated days, as console transcripts: scheduled posts, reveals,
nudges, streaks and freezes."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.daily.schedule import Schedule
from bot.core.messages import Delivery
from bot.db.models import (
    ActivityDayRow,
    ChannelRow,
    ChannelScheduleRow,
    DailyPromptRow,
    OutboxRow,
    StreakRow,
)
from tests.support import ANY_KIND, Transcript, row_counts


def kinds(messages: list) -> list[tuple[str, str]]:
    return [(m.delivery.value, m.card.title) for m in messages]


def test_the_first_daily_starts_the_default_schedule_in_the_askers_zone(app: App) -> None:
    chat = Transcript(app, tz="Europe/Berlin")
    chat.send("/daily")
    with app.session_factory() as session:
        row = session.scalars(select(ChannelScheduleRow)).one()
    assert (row.local_time, row.timezone, row.weekdays) == (
        "09:00",
        "Europe/Berlin",
        "mon,tue,wed,thu,fri",
    )
    assert row.topics == [] and not row.paused
    # Tue 09:00 UTC is 10:00 in Berlin: the next post is Wednesday 09:00 Berlin (08:00 UTC).
    assert row.next_post_at is not None
    assert row.next_post_at.isoformat() == "2026-12-02T08:00:00+00:00"


def test_scheduled_posts_reveals_and_nudges_over_a_week(chat: Transcript, app: App) -> None:
    chat.send("/daily")  # Tue 1 Dec, 09:00 UTC
    assert "+" in chat.say("/answer 7")
    revealed = chat.send("/advance 8h")  # 17:00: the reveal updates the post in place
    reveal = [m for m in revealed if m.delivery is Delivery.UPDATE]
    assert len(reveal) == 1
    assert reveal[0].card.title == "Daily question · 2026-12-01 · revealed"
    assert not reveal[0].card.buttons
    assert "1 person answered" in reveal[0].text and "fastest right answer: alice" in reveal[0].text
    assert reveal[0].ref is not None  # the post's platform id

    # Wednesday: the 09:00 post comes by itself; alice does not answer and is nudged at 19:00.
    day2 = chat.send("/advance 16h")
    assert ("channel", "Daily question · 2026-12-02") in kinds(day2)
    nudges = [m for m in chat.send("/advance 10h") if m.delivery is Delivery.DM]
    assert [m.to for m in nudges] == ["alice"]
    assert "1-day streak" in nudges[0].text

    # Her streak has ended by Thursday; /streak shows it and the calendar.
    text = chat.say("/advance 14h")
    assert "Daily question · 2026-12-03" in text
    streak = chat.say("/streak")
    assert "No streak running" in streak and "Longest: 1 day" in streak
    assert "Nov 30    ■  ·  ○" in streak  # Monday, before her first answer: blank

    # Saturday and Sunday have no post on the default schedule.
    posts_before = len(chat.posts())
    chat.send("/advance 4d")
    titles = [
        m.card.title
        for m in chat.posts()[posts_before:]
        if m.card.title.startswith("Daily question")
    ]
    assert titles == ["Daily question · 2026-12-04", "Daily question · 2026-12-07"]
    with app.session_factory() as session:
        prompts = session.scalars(select(DailyPromptRow).order_by(DailyPromptRow.local_date))
        rows = list(prompts)
    assert [p.local_date.isoformat() for p in rows] == [
        "2026-12-01",
        "2026-12-02",
        "2026-12-03",
        "2026-12-04",
        "2026-12-07",
    ]
    assert all(p.revealed_at is not None for p in rows[:-1])
    # the sample bank has three questions: none repeats until all three were asked
    assert len({p.question_id for p in rows[:3]}) == 3


def test_a_week_of_answers_earns_a_freeze_that_covers_a_missed_day(
    chat: Transcript, app: App
) -> None:
    chat.send("/studybot schedule daily")
    for _ in range(7):
        chat.send("/daily")
        chat.send(f"/answer {ANY_KIND}")
        chat.send("/advance 1d")
    assert "❄ 1 freeze held" in chat.say("/streak")
    chat.send("/advance 1d")  # Tuesday 8 Dec passes without an answer
    chat.send("/daily")
    text = chat.say(f"/answer {ANY_KIND}")
    assert "8-day streak" in text and "A freeze covered 1 missed day" in text
    streak = chat.say("/streak")
    assert "❄ 0 freezes held" in streak and "❄" in streak.split("```")[1]
    with app.session_factory() as session:
        frozen = session.scalars(select(ActivityDayRow).where(ActivityDayRow.frozen)).all()
        row = session.scalars(select(StreakRow)).one()
    assert [d.local_date for d in frozen] == [date(2026, 12, 8)]
    assert (row.current, row.longest, row.freezes) == (8, 8, 0)


def test_nudges_off_means_no_evening_reminder(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    chat.send("/answer 7")
    assert "off" in chat.say("/studybot nudges off")
    messages = chat.send("/advance 2d")
    assert not [m for m in messages if m.delivery is Delivery.DM]
    assert "on" in chat.say("/studybot nudges on")


def test_a_thread_reply_to_the_post_is_an_answer(chat: Transcript, app: App) -> None:
    from bot.core.events import Event, EventKind

    chat.send("/daily")
    with app.session_factory() as session:
        ref = session.scalar(select(OutboxRow.message_ref).where(OutboxRow.key == "daily:1:post"))
    assert ref
    reply = app.bot.handle(
        Event(EventKind.MESSAGE, "console", "console", "general", "carol", text="7", thread=ref)
    )
    assert "Correct" in reply[0].text


def test_an_answer_after_the_reveal_is_practice(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    chat.send("/advance 8h")
    assert "practice" in chat.say("/answer 7")
    with app.session_factory() as session:
        keys = sorted(session.scalars(select(OutboxRow.key)))
    assert keys == ["daily:1:post", "daily:1:reveal"]


# -- /daily before the channel's post time ------------------------------------------------


def test_daily_before_the_post_time_says_when_it_comes_and_posts_nothing(
    chat: Transcript, app: App
) -> None:
    chat.send("/studybot schedule 11:00 Europe/Berlin weekdays")  # Tue 1 Dec, 10:00 in Berlin
    before = row_counts(app)
    assert chat.say("/daily") == (
        "Today's question is not posted yet. The next one comes Tue 01 Dec 11:00 "
        "(Europe/Berlin; Tue 01 Dec 10:00 your time)."
    )
    assert row_counts(app) == before
    assert "Next post: Tue 01 Dec 2026 11:00 CET" in chat.say("/studybot schedule show")
    posted = chat.send("/advance 1h")  # 11:00 in Berlin: the schedule posts it
    assert ("channel", "Daily question · 2026-12-01") in kinds(posted)
    assert "Daily question · 2026-12-01" in chat.say("/daily")  # shown again, not reposted
    with app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
    assert prompt.posted_at == datetime(2026, 12, 1, 10, tzinfo=UTC)
    assert prompt.reveal_at == datetime(2026, 12, 1, 18, tzinfo=UTC)  # 8 h after its post


def test_the_first_daily_of_a_channel_without_a_schedule_posts_at_once_and_the_schedule_goes_on(
    app: App, clock: SimulatedClock
) -> None:
    clock.set(datetime(2027, 1, 3, 23, 30, tzinfo=UTC))  # Mon 4 Jan, 00:30 in Berlin
    chat = Transcript(app, tz="Europe/Berlin")
    assert ("channel", "Daily question · 2027-01-04") in kinds(chat.send("/daily"))
    shown = chat.say("/studybot schedule show")
    assert "Next post: Tue 05 Jan 2027 09:00 CET" in shown  # Monday has its question
    with app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
        row = session.scalars(select(ChannelScheduleRow)).one()
    assert row.next_post_at == datetime(2027, 1, 5, 8, tzinfo=UTC)
    assert prompt.reveal_at == datetime(2027, 1, 4, 7, 30, tzinfo=UTC)  # 8 h after its post
    posts = chat.send("/advance 1d")
    assert [t for _, t in kinds(posts) if t.startswith("Daily question ·")] == [
        "Daily question · 2027-01-04 · revealed"  # and no second post on Monday
    ]


def test_daily_shows_a_teammate_west_of_the_channel_the_question_of_their_own_day(
    chat: Transcript, app: App, clock: SimulatedClock
) -> None:
    chat.send("/studybot schedule 08:00 Europe/Berlin weekdays")
    chat.send("/as hana")
    chat.send("/tz America/Los_Angeles")
    chat.send("/advance 138h")  # Sun 6 Dec 19:00 in Los Angeles
    assert clock.now() == datetime(2026, 12, 7, 3, tzinfo=UTC)
    assert "Mon 07 Dec 08:00 (Europe/Berlin; Sun 06 Dec 23:00 your time)" in chat.say("/daily")
    chat.send("/advance 5h")  # 23:00: Monday's question is posted
    assert "Daily question · 2026-12-07" in chat.say("/daily")
    # Mon 7 Dec 19:00 in Los Angeles is Tuesday 04:00 in Berlin: Tuesday's comes at 23:00,
    # and her question of the day is still Monday's
    chat.send("/advance 20h")
    assert "Daily question · 2026-12-07" in chat.say("/daily")
    chat.send("/advance 4h")  # 23:00: Tuesday's question
    assert "Daily question · 2026-12-08" in chat.say("/daily")


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    zone_name=st.sampled_from(["Europe/Berlin", "America/Los_Angeles", "Asia/Kolkata"]),
    post_time=st.builds(time, st.integers(0, 23), st.sampled_from([0, 30])),
    minutes=st.integers(0, 7 * 24 * 60),
)
def test_daily_never_posts_a_scheduled_question_before_its_time(
    app: App, clock: SimulatedClock, zone_name: str, post_time: time, minutes: int
) -> None:
    clock.set(datetime(2026, 3, 26, tzinfo=UTC) + timedelta(minutes=minutes))  # DST weeks
    channel = f"c{uuid.uuid4().hex[:8]}"
    chat = Transcript(app, channel=channel, tz="Asia/Tokyo")
    chat.send(f"/studybot schedule {post_time.strftime('%H:%M')} {zone_name} daily")
    schedule = Schedule(0, 0, post_time, zone_name, frozenset(range(7)))
    day = schedule.local_date_of(clock.now())
    text = chat.say("/daily")
    with app.session_factory() as session:
        posted = session.scalars(
            select(DailyPromptRow)
            .join(ChannelRow, ChannelRow.id == DailyPromptRow.channel_id)
            .where(ChannelRow.external_id == channel)
        ).all()
    if clock.now() < schedule.slot_on(day):
        assert posted == [] and text.startswith("Today's question is not posted yet.")
        assert schedule.slot_on(day).astimezone(ZoneInfo(zone_name)).strftime("%H:%M") in text
    else:  # its time has come (the schedule was set after it): posted now, for today
        assert [p.local_date for p in posted] == [day]


def _nudges(messages: list) -> list:
    return [m for m in messages if m.delivery is Delivery.DM and "streak" in m.card.title]


def test_no_evening_nudge_for_a_question_the_channel_has_not_posted_by_then(
    chat: Transcript,
) -> None:
    """A channel that posts at 20:00 has asked nothing at 19:00: no "keep your streak" for
    it (it is still due, and missing it still costs the streak or a freeze)."""
    chat.send("/daily")
    chat.send("/answer 7")  # Tuesday 09:00: a 1-day streak
    chat.send("/studybot schedule 20:00")
    wednesday_evening = chat.send("/advance 1d") + chat.send("/advance 10h30m")  # Wed 19:30
    assert not _nudges(wednesday_evening)
    posted = chat.send("/advance 1h")  # 20:30: the question is out now, the nudge is not sent late
    assert [m.card.title for m in posted if m.delivery is Delivery.CHANNEL] == [
        "Daily question · 2026-12-02"
    ]
    assert not _nudges(posted)


def test_the_evening_nudge_comes_for_a_question_posted_that_morning(chat: Transcript) -> None:
    chat.send("/daily")
    chat.send("/answer 7")
    (nudge,) = _nudges(chat.send("/advance 1d") + chat.send("/advance 10h30m"))  # Wed 19:30
    assert "1-day streak" in nudge.text and "/daily" in nudge.text

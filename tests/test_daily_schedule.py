"""Channel schedules: the /studybot grammar, admin rights, DST-correct slots, and choosing."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, time, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.bank import QuestionBank
from bot.core.content import Question
from bot.core.daily.choosing import choose_question
from bot.core.daily.schedule import Schedule, parse_days, parse_schedule_args, parse_time_of_day
from bot.core.errors import UserError
from bot.core.events import Event, EventKind
from bot.db.models import ChannelScheduleRow
from tests.support import Transcript, row_counts


def schedule_row(app: App) -> ChannelScheduleRow:
    with app.session_factory() as session:
        return session.scalars(select(ChannelScheduleRow)).one()


def test_an_admin_sets_time_zone_days_topics_roles_mix_and_reveal(
    chat: Transcript, app: App
) -> None:
    text = chat.say(
        "/studybot schedule 09:30 Europe/Berlin mon-fri topics=mig,mps roles=eng "
        "mix=1:2,2:2,3:1 reveal=6h"
    )
    assert "Schedule saved" in text and "Next post: Wed 02 Dec 2026 09:30 CET" in text
    row = schedule_row(app)
    assert (row.local_time, row.timezone, row.weekdays) == (
        "09:30",
        "Europe/Berlin",
        "mon,tue,wed,thu,fri",
    )
    assert (row.topics, row.roles, row.difficulty_mix) == (
        ["mig", "mps"],
        ["eng"],
        {"1": 2, "2": 2, "3": 1},
    )
    assert row.reveal_delay_minutes == 360
    assert "09:30 Europe/Berlin" in chat.say("/studybot schedule show")


def test_leaving_settings_out_keeps_them(chat: Transcript, app: App) -> None:
    chat.send("/studybot schedule 07:00 Asia/Tokyo topics=mig")
    chat.send("/studybot schedule 8am")
    row = schedule_row(app)
    assert (row.local_time, row.timezone, row.topics) == ("08:00", "Asia/Tokyo", ["mig"])


def test_pause_resume_and_skip(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    assert "Paused" in chat.say("/studybot schedule pause")
    assert schedule_row(app).next_post_at is None
    paused = chat.send("/advance 2d")
    assert [m.delivery.value for m in paused if m.card.title.startswith("Daily")] == ["update"]
    chat.send("/studybot schedule resume")
    assert "Skipping: Fri 04 Dec" in chat.say("/studybot schedule skip")  # now Thu 09:00
    assert "Skipping: Fri 04 Dec, Tue 08 Dec" in chat.say("/studybot schedule skip 2026-12-08")
    titles = [m.card.title for m in chat.send("/advance 6d") if m.card.title.startswith("Daily q")]
    assert [t for t in titles if "revealed" not in t] == [
        "Daily question · 2026-12-07",
        "Daily question · 2026-12-09",
    ]


def test_pausing_a_paused_schedule_or_resuming_a_running_one_says_so_and_changes_nothing(
    chat: Transcript, app: App
) -> None:
    chat.send("/daily")
    before = row_counts(app), schedule_row(app).paused, schedule_row(app).next_post_at
    assert chat.say("/studybot schedule resume").startswith(
        "Not paused, so there is nothing to resume."
    )
    assert (row_counts(app), schedule_row(app).paused, schedule_row(app).next_post_at) == before
    chat.send("/studybot schedule pause")
    paused = row_counts(app), schedule_row(app).paused, schedule_row(app).next_post_at
    assert chat.say("/studybot schedule pause") == (
        "Already paused: /studybot schedule resume starts it again."
    )
    assert (row_counts(app), schedule_row(app).paused, schedule_row(app).next_post_at) == paused


def test_skip_reads_dates_in_words(chat: Transcript, app: App) -> None:
    assert "No daily question on Fri 04 Dec 2026" in chat.say("/studybot schedule skip friday")


def test_only_admins_change_a_schedule_but_anyone_sees_it_and_sets_their_nudges(app: App) -> None:
    def run(line: str, user: str = "U1", admin: bool = False) -> str:
        name, _, args = line[1:].partition(" ")
        event = Event(
            EventKind.COMMAND, "slack", "T1", "C1", user, command=name, args=args, is_admin=admin
        )
        return "\n".join(m.text for m in app.bot.handle(event))

    assert "Only workspace admins" in run("/studybot schedule 10:00")
    assert "no schedule yet" in run("/studybot schedule show")
    assert "reminders are off" in run("/studybot nudges off")
    assert "Schedule saved" in run("/studybot schedule 10:00", admin=True)
    app.services = app.bot.services = type(app.services)(
        clock=app.clock, bank=app.services.bank, admin_ids=frozenset({"U2"})
    )
    assert "Schedule saved" in run("/studybot schedule 11:00", user="U2")
    assert schedule_row(app).local_time == "11:00"


BAD_SETTINGS = [
    ("/studybot schedule 25:00", "don't understand"),
    ("/studybot schedule Mars/Olympus", "not a time zone"),
    ("/studybot schedule topics=astrology", "Unknown topic"),
    ("/studybot schedule roles=ceo", "Roles are pm, eng or any"),
    ("/studybot schedule mix=4:1", "difficulty mix"),
    ("/studybot schedule mix=1:0", "at least one weight"),
    ("/studybot schedule reveal=banana", "not a duration"),
    ("/studybot schedule reveal=1m", "between 5 minutes and 6 days"),
    ("/studybot schedule reveal=0h", "between 5 minutes and 6 days"),  # a duration, too short
    ("/studybot schedule colour=blue", "don't know the setting"),
    ("/studybot schedule skip 2020-01-01", "in the past"),
    ("/studybot schedule skip gibberish-day", "not a date"),
    ("/studybot schedule show extra", "Usage"),
    ("/studybot nudges maybe", "Usage: /studybot nudges on|off"),
    ("/studybot frobnicate", "don't know /studybot frobnicate"),
    ("/streak please", "takes no arguments"),
]


def test_bad_settings_get_a_clear_message_and_change_nothing(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    before = row_counts(app)
    row = schedule_row(app)
    for line, expected in BAD_SETTINGS:
        text = chat.say(line)
        assert expected in text, (line, text)
    assert row_counts(app) == before
    after = schedule_row(app)
    assert (after.local_time, after.timezone, after.topics, after.skip_dates) == (
        row.local_time,
        row.timezone,
        row.topics,
        row.skip_dates,
    )


def test_a_local_time_stays_local_across_dst() -> None:
    schedule = Schedule(1, 1, time(9, 0), "Europe/Berlin", frozenset(range(7)))
    before = schedule.next_slot_after(datetime(2026, 3, 28, 12, tzinfo=UTC))
    after = schedule.next_slot_after(before) if before else None
    assert before == datetime(2026, 3, 29, 7, tzinfo=UTC)  # 09:00 CEST
    assert after == datetime(2026, 3, 30, 7, tzinfo=UTC)
    assert schedule.next_slot_after(datetime(2026, 3, 27, 12, tzinfo=UTC)) == datetime(
        2026,
        3,
        28,
        8,
        tzinfo=UTC,  # 09:00 CET
    )


def test_a_time_inside_the_spring_forward_gap_posts_when_the_clock_reaches_it() -> None:
    schedule = Schedule(1, 1, time(2, 30), "America/New_York", frozenset(range(7)))
    slot = schedule.next_slot_after(datetime(2026, 3, 8, 0, tzinfo=UTC))
    assert slot == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 EDT


@settings(max_examples=100, deadline=None)
@given(
    start=st.datetimes(
        min_value=datetime(2026, 1, 1),  # noqa: DTZ001 - hypothesis wants naive bounds
        max_value=datetime(2027, 12, 31),  # noqa: DTZ001
    ),
    zone_name=st.sampled_from(["Europe/Berlin", "America/New_York", "Australia/Sydney", "UTC"]),
    hour=st.integers(0, 23),
    days=st.frozensets(st.integers(0, 6), min_size=1),
)
def test_every_slot_is_the_local_time_on_a_chosen_day_after_the_instant(
    start: datetime, zone_name: str, hour: int, days: frozenset[int]
) -> None:
    schedule = Schedule(1, 1, time(hour, 15), zone_name, days)
    instant = start.replace(tzinfo=UTC)
    slot = schedule.next_slot_after(instant)
    assert slot is not None and instant < slot <= instant + timedelta(days=8)
    local = slot.astimezone(schedule.tz)
    assert local.weekday() in days
    assert local.minute == 15 and local.hour in (hour, (hour + 1) % 24)  # +1 only in a DST gap


def test_days_and_times_read_the_usual_ways() -> None:
    assert parse_days("mon-fri") == frozenset(range(5))
    assert parse_days("sat-mon") == frozenset({5, 6, 0})
    assert parse_days("Monday,Wednesday") == frozenset({0, 2})
    assert parse_days("weekends") == frozenset({5, 6})
    assert parse_days("09:00") is None
    assert parse_time_of_day("9:30pm") == time(21, 30)
    assert parse_time_of_day("17") == time(17, 0)
    with pytest.raises(UserError):
        parse_schedule_args(Schedule(1, 1), ["mon-frog"], [])


def q(qid: str, topic: str, difficulty: int = 1) -> Question:
    return Question(
        qid, "p", topic, ("eng",), difficulty, "short", "?", "", ("https://x",), accepted=("a",)
    )


BANK = QuestionBank(
    [q(f"{t}-{d}-{i}", t, d) for t in ("mig", "mps", "vgpu") for d in (1, 2, 3) for i in range(2)]
)


def test_choosing_never_repeats_until_the_pool_is_exhausted_and_rotates_topics() -> None:
    schedule = Schedule(1, 1)
    history: list[str] = []
    for _ in range(len(BANK) * 2):
        chosen = choose_question(BANK, schedule, history, {}, 7)
        assert chosen is not None
        history.append(chosen.id)
    assert sorted(history[: len(BANK)]) == sorted(x.id for x in BANK)
    assert sorted(history[len(BANK) :]) == sorted(x.id for x in BANK)
    topics = [h.split("-")[0] for h in history[:9]]
    assert all(topics[i] != topics[i + 1] for i in range(8))


def test_choosing_follows_the_difficulty_mix_and_the_channels_topics() -> None:
    schedule = Schedule(1, 1, topics=("mig", "mps"), mix={1: 2, 3: 1})
    history: list[str] = []
    for _ in range(6):
        chosen = choose_question(BANK, schedule, history, {}, 3)
        assert chosen is not None
        history.append(chosen.id)
    difficulties = Counter(int(h.split("-")[1]) for h in history)
    assert difficulties == {1: 4, 3: 2}
    assert {h.split("-")[0] for h in history} == {"mig", "mps"}


def test_choosing_prefers_what_few_members_have_seen() -> None:
    schedule = Schedule(1, 1, topics=("mig",), mix={1: 1})
    seen = {"mig-1-0": 5, "mig-1-1": 0}
    chosen = choose_question(BANK, schedule, [], seen, 1)
    assert chosen is not None and chosen.id == "mig-1-1"


def test_the_reveal_is_always_before_the_next_post() -> None:
    schedule = Schedule(
        1, 1, time(9, 0), "UTC", frozenset(range(7)), reveal_delay=timedelta(days=3)
    )
    posted = datetime(2026, 12, 1, 9, tzinfo=UTC)
    assert schedule.reveal_at(posted, date(2026, 12, 1)) == datetime(2026, 12, 2, 8, 59, tzinfo=UTC)

"""Leaderboard seasons: a month by default in the workspace's zone, an admin's own length or
start, the final board posted once when a season ends (two workers or a restart), past
seasons readable by name, and all time never reset."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select, update

from bot.bootstrap import App
from bot.core import leaderboard
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.errors import UserError
from bot.core.messages import Delivery, Outgoing
from bot.core.model import ATTEMPTS, USERS, WORKSPACES, Attempt
from bot.core.seasons import add_length, parse_length, season_name
from bot.db.models import OutboxRow, PointsBucketRow, SeasonRow, WorkspaceRow
from tests.support import row_counts
from tests.test_a_teams_month import Team, command
from tests.test_leaderboard import score
from tests.test_quiz import chat_for, running_app

LA = "America/Los_Angeles"


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(sqlite_url, clock, tmp_path)


def _zone(app: App, tz: str) -> None:
    with app.session_factory() as session, session.begin():
        session.execute(update(WorkspaceRow).values(timezone=tz))


@pytest.fixture
async def made() -> AsyncIterator[list[Team]]:
    """The teams a test made, their workers stopped and closed afterwards."""
    teams: list[Team] = []
    yield teams
    for team in teams:
        await team.restart(0)


async def _team_in(
    made: list[Team], db_url: str, clock: SimulatedClock, bank: QuestionBank, tz: str
) -> Team:
    """A team whose channel has the default daily schedule, its workspace in ``tz``."""
    team = Team(db_url, clock, bank)
    made.append(team)
    await team.say(command("ann", "daily"))  # the channel gets its schedule
    _zone(team.workers[0], tz)
    return team


def _points(team: Team, name: str, points: int, when: datetime) -> None:
    app = team.workers[0]
    with app.uow() as uow:
        ws = uow[WORKSPACES].ensure("console", "console")
        user = uow[USERS].ensure(ws, name, name)
        uow.commit()
    with app.uow() as uow:  # a live round's winner, as the quiz records it
        uow[ATTEMPTS].add(
            Attempt(user.id, ws.id, "sample-mig-max-instances", "7", 1.0, "correct", "", "1", "h",
                    when, points=points)
        )  # fmt: skip
        leaderboard.record(uow, ws, user.id, points, when)
        uow.commit()


def _finals(sent: list[Outgoing]) -> list[Outgoing]:
    return [m for m in sent if m.delivery is Delivery.CHANNEL and "final board" in m.card.title]


async def test_a_teams_season_ends_at_midnight_in_its_zone_and_its_board_is_posted_once(
    db_url: str, sample_bank: QuestionBank, made: list[Team]
) -> None:
    clock = SimulatedClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))  # 01:00 on 1 Dec in LA
    team = await _team_in(made, db_url, clock, sample_bank, LA)
    await team.say(command("ann", "team", "create gpus"))
    _points(team, "ann", 30, clock.now())
    _points(team, "bea", 20, clock.now())
    # 23:30 on 31 Dec in Los Angeles is already 1 Jan in UTC: it still counts for December
    new_years_eve = datetime(2027, 1, 1, 7, 30, tzinfo=UTC)
    await team.run_until(new_years_eve)
    _points(team, "cat", 25, new_years_eve)
    assert _finals(team.sent()) == []
    await team.run_until(datetime(2027, 1, 1, 7, 59, tzinfo=UTC))
    assert _finals(team.sent()) == []  # not yet midnight in LA
    await team.run_until(datetime(2027, 1, 1, 8, 1, tzinfo=UTC))  # 00:01 on 1 Jan in LA
    (final,) = _finals(team.sent())
    assert final.to == "general"
    assert final.card.title == "Season 2026-12: final board"
    assert "01 Dec 2026 – 31 Dec 2026." in final.text
    assert "1. ann · 30 pts\n2. cat · 25 pts\n3. bea · 20 pts" in final.text
    assert "Top team: gpus · 30.0 per active member." in final.text
    assert "Season 2027-01 starts now" in final.text
    # a January point is the new season's; December's board stays as it was
    _points(team, "bea", 5, clock.now())
    await team.run_until(datetime(2027, 1, 5, tzinfo=UTC))
    assert len(_finals(team.sent())) == 1
    past = await team.say(command("ann", "leaderboard", "season 2026-12"))
    assert "1. ann · 30 pts  ← you\n2. cat · 25 pts\n3. bea · 20 pts" in past
    current = await team.say(command("ann", "leaderboard", "season"))
    assert "season 2027-01 (01 Jan 2027 – 31 Jan 2027)" in current
    assert "1. bea · 5 pts" in current
    every = await team.say(command("ann", "leaderboard", "all"))
    assert "1. ann · 30 pts  ← you\n2. bea · 25 pts\n2. cat · 25 pts" in every  # all time goes on
    listing = await team.say(command("ann", "leaderboard", "seasons"))
    assert "2027-01 · 01 Jan 2027 – 31 Jan 2027 · current · leading bea (5 pts)" in listing
    assert "2026-12 · 01 Dec 2026 – 31 Dec 2026 · ended · won by ann (30 pts)" in listing
    teams = await team.say(command("ann", "leaderboard", "season 2026-12 teams"))
    assert "1. gpus · 30.0 per active member · 30 pts · 1 of 1 active  ← yours" in teams


async def test_a_tied_season_is_led_and_won_by_everyone_tied_as_the_board_ranks_them(
    db_url: str, sample_bank: QuestionBank, made: list[Team]
) -> None:
    clock = SimulatedClock(datetime(2026, 11, 30, 8, 30, tzinfo=UTC))
    team = await _team_in(made, db_url, clock, sample_bank, "UTC")
    for name in ("cat", "ann", "bea"):
        _points(team, name, 10, clock.now())
    _points(team, "dan", 5, clock.now())
    await team.say(command("bea", "team", "create alpha"))
    await team.say(command("cat", "team", "create zeta"))
    await team.say(command("dan", "team", "create omega"))
    board = await team.say(command("ann", "leaderboard", "season"))
    assert "1. ann · 10 pts  ← you\n1. bea · 10 pts\n1. cat · 10 pts\n4. dan · 5 pts" in board
    listing = await team.say(command("ann", "leaderboard", "seasons"))
    assert "current · leading ann, bea and cat (tied, 10 pts each)" in listing
    await team.run_until(datetime(2026, 12, 1, 0, 1, tzinfo=UTC))
    (final,) = _finals(team.sent())
    assert "Top teams, tied: alpha and zeta · 10.0 per active member each." in final.text
    listing = await team.say(command("ann", "leaderboard", "seasons"))
    assert "2026-11 · 01 Nov 2026 – 30 Nov 2026 · ended · won by ann, bea and cat (tied, " in (
        listing
    )


async def test_two_workers_and_a_restart_across_the_boundary_post_the_final_board_once(
    db_url: str, sample_bank: QuestionBank, made: list[Team]
) -> None:
    clock = SimulatedClock(datetime(2026, 12, 30, 12, 0, tzinfo=UTC))
    team = await _team_in(made, db_url, clock, sample_bank, "Asia/Tokyo")
    _points(team, "ann", 10, clock.now())
    await team.run_until(datetime(2026, 12, 31, 14, 0, tzinfo=UTC))  # 23:00 in Tokyo
    await team.restart(2)  # down across midnight in Tokyo (15:00 UTC), back as two workers
    clock.set(datetime(2026, 12, 31, 18, 0, tzinfo=UTC))
    await team.run_until(datetime(2027, 1, 2, tzinfo=UTC))
    await team.restart(2)
    await team.run_until(datetime(2027, 1, 3, tzinfo=UTC))
    (final,) = _finals(team.sent())
    assert "1. ann · 10 pts" in final.text
    with team.workers[0].session_factory() as session:
        keys = session.scalars(select(OutboxRow.key).where(OutboxRow.key.like("season:%"))).all()
        seasons = session.execute(
            select(SeasonRow.name, SeasonRow.closed_at.is_not(None)).order_by(SeasonRow.starts_at)
        ).all()
    assert len(keys) == 1
    assert [tuple(s) for s in seasons] == [("2026-12", True), ("2027-01", False)]


@pytest.mark.slow
async def test_an_admin_sets_the_length_and_the_start_of_seasons(
    db_url: str, sample_bank: QuestionBank, made: list[Team]
) -> None:
    clock = SimulatedClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    team = await _team_in(made, db_url, clock, sample_bank, "Europe/Berlin")
    shown = await team.say(command("ann", "studybot", "season"))
    assert "Season 2026-12: 01 Dec 2026 – 31 Dec 2026" in shown
    assert "Seasons after it last 1 month." in shown
    saved = await team.say(command("ann", "studybot", "season length 2 weeks", admin=True))
    assert "From the next season on, seasons last 2 weeks; season 2026-12 keeps its end." in saved
    moved = await team.say(command("ann", "studybot", "season start 2026-12-20", admin=True))
    assert "Season 2026-12 now ends on Sun 20 Dec 2026" in moved
    _points(team, "ann", 10, clock.now())
    await team.run_until(datetime(2026, 12, 19, 22, 59, tzinfo=UTC))  # 23:59 in Berlin
    assert _finals(team.sent()) == []
    await team.run_until(datetime(2026, 12, 19, 23, 1, tzinfo=UTC))
    (final,) = _finals(team.sent())
    assert "01 Dec 2026 – 19 Dec 2026." in final.text
    assert "Season 2026-12-20 starts now" in final.text
    listing = await team.say(command("ann", "leaderboard", "seasons"))
    assert "2026-12-20 · 20 Dec 2026 – 02 Jan 2027 · current · no points" in listing
    await team.run_until(datetime(2027, 1, 10, tzinfo=UTC))
    listing = await team.say(command("ann", "leaderboard", "seasons"))
    assert "2027-01-03 · 03 Jan 2027 – 16 Jan 2027 · current" in listing


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ("season 2030-01", "There is no season 2030-01. Seasons so far: 2026-12."),
        ("season nonsense", "'nonsense' is not a season: give its name, such as 2026-11."),
        ("season 2026-12 month", "Usage: /leaderboard season [YYYY-MM]"),
        ("seasons 2026", "Usage: /leaderboard season [YYYY-MM]"),
    ],
)
def test_a_season_that_does_not_exist_gets_a_clear_reply_and_changes_nothing(
    quiz_app: App, args: str, error: str
) -> None:
    chat = chat_for(quiz_app, "ann")
    chat.send("/leaderboard season")  # the first season starts
    before = row_counts(quiz_app)
    assert error in chat.say(f"/leaderboard {args}")
    assert row_counts(quiz_app) == before


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ("season length 0m", "A season lasts 1 to 12 months."),
        ("season length 27w", "A season lasts 1 to 26 weeks."),
        ("season length forever", "'forever' is not a season length."),
        ("season start 2026-12-01", "2026-12-01 is not after today"),
        ("season start 2028-06-01", "A season can start at most a year ahead."),
        ("season start someday", "'someday' is not a date."),
        ("season stop", "Usage: /studybot season"),
    ],
)
def test_bad_season_settings_are_refused_and_change_nothing(
    quiz_app: App, args: str, error: str
) -> None:
    chat = chat_for(quiz_app, "ann")
    chat.send("/studybot season")
    with quiz_app.session_factory() as session:
        before = session.execute(select(SeasonRow.ends_at, SeasonRow.next_length)).all()
    counts = row_counts(quiz_app)
    assert error in chat.say(f"/studybot {args}")
    assert row_counts(quiz_app) == counts
    with quiz_app.session_factory() as session:
        assert session.execute(select(SeasonRow.ends_at, SeasonRow.next_length)).all() == before


def test_only_admins_change_the_seasons(quiz_app: App) -> None:
    from bot.core.events import Event, EventKind

    event = Event(
        EventKind.COMMAND, "slack", "T1", "C1", "U1", command="studybot",
        args="season length 2w", is_admin=False,
    )  # fmt: skip
    (reply,) = quiz_app.bot.handle(event)
    assert reply.text == "Only workspace admins can change the seasons."


def test_the_first_season_takes_over_the_months_points_so_far(
    quiz_app: App, clock: SimulatedClock
) -> None:
    chat = chat_for(quiz_app, "ann")
    # what a version without seasons recorded this month
    with quiz_app.uow() as uow:
        ws = uow[WORKSPACES].ensure("console", "console")
        ann = uow[USERS].ensure(ws, "ann", "ann")
        uow.commit()
    with quiz_app.session_factory() as session, session.begin():
        for period in ("m:2026-12", "all"):
            session.add(
                PointsBucketRow(
                    user_id=ann.id, period=period, workspace_id=ws.id, points=40, answers=2
                )
            )
    score(quiz_app, ws, ann, 10, clock.now())  # the first answer since seasons: 40 + 10
    assert "1. ann · 50 pts  ← you" in chat.say("/leaderboard season 2026-12")


def test_month_lengths_keep_the_day_and_clamp_at_month_end() -> None:
    assert add_length(date(2027, 1, 31), "1m") == date(2027, 2, 28)
    assert add_length(date(2028, 1, 31), "1m") == date(2028, 2, 29)
    assert add_length(date(2026, 12, 1), "1m") == date(2027, 1, 1)
    assert add_length(date(2026, 11, 15), "3m") == date(2027, 2, 15)
    assert add_length(date(2026, 12, 28), "2w") == date(2027, 1, 11)
    assert season_name(date(2026, 12, 1), "1m") == "2026-12"
    assert season_name(date(2026, 12, 1), "2w") == "2026-12-01"
    assert season_name(date(2026, 12, 20), "1m") == "2026-12-20"
    assert [parse_length(t) for t in ("1m", "3 months", "2w", "6 weeks", "1 MONTH")] == [
        "1m",
        "3m",
        "2w",
        "6w",
        "1m",
    ]


@given(
    start=st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 1, 1)),
    length=st.one_of(
        st.integers(1, 12).map(lambda n: f"{n}m"), st.integers(1, 26).map(lambda n: f"{n}w")
    ),
)
def test_seasons_follow_each_other_without_gaps_and_each_lasts_its_length(
    start: date, length: str
) -> None:
    day = start
    for _ in range(6):
        following = add_length(day, length)
        count = int(length[:-1])
        low, high = (7 * count, 7 * count) if length.endswith("w") else (28 * count, 31 * count)
        assert low <= (following - day).days <= high
        assert season_name(day, length) != season_name(following, length)
        day = following


@given(st.text(max_size=20))
def test_any_text_is_a_length_or_a_friendly_error(text: str) -> None:
    try:
        length = parse_length(text)
    except UserError as exc:
        assert "season" in str(exc)
    else:
        assert length[-1] in "mw" and 1 <= int(length[:-1]) <= 26

"""Leaderboards from per-period aggregates: ties share a rank, your own rank shows outside
the top 10, ISO weeks follow the workspace's zone, and the aggregates always equal a scan
of the attempts."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select, update

from bot.bootstrap import App
from bot.core import leaderboard
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.errors import UserError
from bot.core.leaderboard import KINDS, LEADERBOARD, parse_query, period_keys, period_of, ranked
from bot.core.model import ATTEMPTS, CHANNELS, USERS, WORKSPACES, Attempt, User, Workspace
from bot.core.teams import TEAMS
from bot.db.models import (
    AttemptRow,
    ChannelScheduleRow,
    DailyPromptRow,
    PointsBucketRow,
    WorkspaceRow,
)
from tests.fakes import FakeWorld
from tests.support import row_counts
from tests.test_quiz import BANK, RIGHT, chat_for, running_app


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(sqlite_url, clock, tmp_path)


@pytest.fixture
def any_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(db_url, clock, tmp_path)


def workspace_and_users(
    app: App, names: list[str], tz: str = "UTC"
) -> tuple[Workspace, list[User]]:
    with app.uow() as uow:
        ws = uow[WORKSPACES].ensure("console", "console")
        users = [uow[USERS].ensure(ws, n, n) for n in names]
        uow.commit()
    if tz != "UTC":  # no command sets a workspace's zone: an operator writes it
        with app.session_factory() as session, session.begin():
            session.execute(
                update(WorkspaceRow).where(WorkspaceRow.id == ws.id).values(timezone=tz)
            )
        ws = replace(ws, timezone=tz)
    return ws, users


def score(app: App, ws: Workspace, user: User, points: int, when: datetime) -> None:
    """A scored answer as a live round records it: the attempt and its points, together."""
    with app.uow() as uow:
        uow[ATTEMPTS].add(
            Attempt(
                user.id, ws.id, "cuda-1", "A", 1.0, "correct", "", "1", "h", when, points=points
            )
        )
        leaderboard.record(uow, ws, user.id, points, when)
        uow.commit()


def test_iso_weeks_follow_the_workspace_zone() -> None:
    tz = ZoneInfo("America/Los_Angeles")
    sunday_night = datetime(2026, 12, 7, 7, 30, tzinfo=UTC)  # Sun 6 Dec 23:30 in LA
    monday_morning = datetime(2026, 12, 7, 8, 30, tzinfo=UTC)  # Mon 7 Dec 00:30 in LA
    assert period_keys(sunday_night, tz)[0] == "w:2026-W49"
    assert period_keys(monday_morning, tz)[0] == "w:2026-W50"
    assert period_keys(sunday_night, ZoneInfo("UTC"))[0] == "w:2026-W50"
    week = period_of("week", monday_morning, tz)
    assert week.start == monday_morning - timedelta(minutes=30)
    assert week.start is not None and week.end == week.start + timedelta(days=7)


def test_the_iso_year_is_not_the_calendar_year() -> None:
    tz = ZoneInfo("Asia/Tokyo")
    new_year = datetime(2027, 1, 1, 12, tzinfo=tz)
    assert period_keys(new_year, tz) == ["w:2026-W53", "m:2027-01", "all"]


def naive_board(
    app: App, ws: Workspace, start: datetime | None, end: datetime | None, members: set[int] | None
) -> dict[int, int]:
    """Points per user straight from the attempts: what the aggregates must equal."""
    with app.session_factory() as session:
        query = (
            select(AttemptRow.user_id, func.sum(AttemptRow.points))
            .where(AttemptRow.workspace_id == ws.id)
            .group_by(AttemptRow.user_id)
        )
        if start is not None and end is not None:
            query = query.where(AttemptRow.answered_at >= start, AttemptRow.answered_at < end)
        rows = {u: int(p) for u, p in session.execute(query).all() if p}
    return {u: p for u, p in rows.items() if members is None or u in members}


@pytest.mark.parametrize("seed", [1, 2])
def test_aggregates_equal_a_scan_of_the_attempts_on_random_data(
    any_app: App, clock: SimulatedClock, seed: int
) -> None:
    rng = random.Random(seed)
    ws, users = workspace_and_users(
        any_app, [f"p{i}" for i in range(12)], tz=rng.choice(["Europe/Berlin", "Asia/Kolkata"])
    )
    tz = ZoneInfo(ws.timezone)
    teams: dict[int, set[int]] = {}
    with any_app.uow() as uow:
        for t in range(3):
            team = uow[TEAMS].create(ws, f"Team {t}", f"team {t}", users[t])
            assert team is not None
            members = {users[t].id}
            for user in rng.sample(users, 5):
                if uow[TEAMS].join(team, user, clock.now()):
                    members.add(user.id)
            teams[team.id] = members
        uow.commit()
    start = datetime(2026, 11, 20, tzinfo=UTC)
    for _ in range(150):
        when = start + timedelta(minutes=rng.randrange(60 * 24 * 30))
        score(any_app, ws, rng.choice(users), rng.choice([0, 0, 10, 15, 20, 30, 45]), when)
    for probe in (datetime(2026, 11, 30, 23, 30, tzinfo=UTC), datetime(2026, 12, 14, tzinfo=UTC)):
        for kind in KINDS:
            period = period_of(kind, probe, tz)
            with any_app.uow() as uow:
                rows = uow[LEADERBOARD].top(ws, period.key, 1000)
                team_scores = {s.team_id: s for s in uow[LEADERBOARD].teams(ws, period.key)}
                for row in rows:
                    above = uow[LEADERBOARD].count_above(ws, period.key, row.points)
                    assert above == sum(1 for r in rows if r.points > row.points)
            expected = naive_board(any_app, ws, period.start, period.end, None)
            assert {r.user_id: r.points for r in rows} == expected
            for team_id, members in teams.items():
                in_team = naive_board(any_app, ws, period.start, period.end, members)
                assert team_scores[team_id].points == sum(in_team.values())
                assert team_scores[team_id].members == len(members)
            assert [r.rank for r in ranked(rows)] == [
                1 + sum(1 for r in rows if r.points > row.points) for row in ranked(rows)
            ]


def test_daily_answers_feed_the_board_once(quiz_app: App) -> None:
    chat = chat_for(quiz_app)
    chat.send("/daily")
    with quiz_app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
    question = BANK.get(prompt.question_id)
    assert question is not None
    chat.send(f"/answer {RIGHT[question.kind]}")
    chat.send(f"/answer {RIGHT[question.kind]}")  # practice: no more points
    with quiz_app.session_factory() as session:
        buckets = {b.period: b.points for b in session.scalars(select(PointsBucketRow))}
    assert buckets == {
        "w:2026-W49": 10 * question.difficulty,
        "m:2026-12": 10 * question.difficulty,
        "s:2026-12": 10 * question.difficulty,  # the season (bot.core.seasons)
        "all": 10 * question.difficulty,
    }
    assert f"1. alice · {10 * question.difficulty} pts" in chat.say("/leaderboard all")


def test_an_unknown_team_on_the_board_suggests_the_closest(quiz_app: App) -> None:
    chat = chat_for(quiz_app)
    chat.send("/team create GPU Gang")
    before = row_counts(quiz_app)
    assert "Did you mean GPU Gang?" in chat.say("/leaderboard week team GPU Gan")
    assert "Usage: /leaderboard" in chat.say("/leaderboard fortnight")
    assert row_counts(quiz_app) == before


@pytest.mark.parametrize("kind", KINDS)
def test_the_period_may_follow_teams(kind: str) -> None:
    query = parse_query(f"teams {kind}")
    assert (query.period, query.teams, query.team) == (kind, True, None)
    with pytest.raises(UserError):
        parse_query(f"month teams {kind}")  # two periods


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=50))
def test_board_arguments_either_parse_or_raise_a_user_error(text: str) -> None:
    try:
        query = parse_query(text)
    except UserError as err:
        assert str(err)
    else:
        assert query.period in KINDS
        assert not (query.teams and query.team)


@settings(max_examples=100, deadline=None)
@given(
    period=st.sampled_from(["", *KINDS]),
    target=st.one_of(
        st.none(), st.just("teams"), st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,20}", fullmatch=True)
    ),
)
def test_valid_board_arguments_parse(period: str, target: str | None) -> None:
    line = period
    if target == "teams":
        line += " teams"
    elif target is not None:
        line += f" team {target}"
    query = parse_query(line)
    assert query.period == (period or "week")
    assert query.teams == (target == "teams")
    if target not in (None, "teams"):
        assert query.team == " ".join(target.split())


def test_the_week_recap_is_posted_in_scheduled_channels_when_the_week_ends(
    any_app: App, clock: SimulatedClock
) -> None:
    ws, (a, b) = workspace_and_users(any_app, ["ann", "bea"], tz="Europe/Berlin")
    chat = chat_for(any_app, "ann")
    with any_app.uow() as uow:
        channel = uow[CHANNELS].ensure(ws, "general")
        uow.commit()
    with any_app.session_factory() as session, session.begin():
        session.add(
            ChannelScheduleRow(
                channel_id=channel.id, workspace_id=ws.id, updated_at=clock.now(), paused=False
            )
        )
    score(any_app, ws, a, 30, clock.now())
    score(any_app, ws, b, 20, clock.now())
    chat.send("/help")  # the recap is planned at the next tick
    replies = chat.send("/advance 6d")  # Tue 09:00 UTC → past Mon 00:00 in Berlin
    recaps = [m for m in replies if m.card.title == "Week 2026-W49 recap"]
    assert len(recaps) == 1
    assert recaps[0].to == "general"
    assert "1. ann · 30 pts" in recaps[0].text and "2. bea · 20 pts" in recaps[0].text
    assert recaps[0].attachments and recaps[0].attachments[0].content.startswith(b"\x89PNG")
    again = chat.send("/advance 7d")  # the next week had no points: no recap
    assert not [m for m in again if "recap" in m.card.title]


def test_no_recap_without_a_scheduled_channel(quiz_app: App, clock: SimulatedClock) -> None:
    ws, (a,) = workspace_and_users(quiz_app, ["ann"])
    score(quiz_app, ws, a, 30, clock.now())
    replies = chat_for(quiz_app).send("/advance 8d")
    assert not [m for m in replies if "recap" in m.card.title]


def test_the_board_comes_with_a_chart(quiz_app: App, clock: SimulatedClock) -> None:
    ws, (a,) = workspace_and_users(quiz_app, ["ann"])
    score(quiz_app, ws, a, 30, clock.now())
    board = chat_for(quiz_app, "ann").send("/leaderboard")[0]
    (chart,) = board.attachments
    assert chart.mime_type == "image/png" and chart.content.startswith(b"\x89PNG")
    assert chart.filename == "leaderboard-w-2026-W49.png"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=9))
def test_the_leaders_line_names_everyone_ranked_first_and_counts_the_rest(
    points: list[int],
) -> None:
    """Whoever shares the top of the board shares the lead: the line names the first
    three of them by name and counts the others; nobody ranked lower is named."""
    world = FakeWorld(SimulatedClock(datetime(2026, 12, 1, 9, tzinfo=UTC)), QuestionBank([]))
    names = [f"user{i}" for i in range(len(points))]
    with world.uow() as uow:
        ws = uow[WORKSPACES].ensure("console", "console")
        for name, p in zip(names, points, strict=True):
            if p:
                user = uow[USERS].ensure(ws, name, name)
                uow[LEADERBOARD].add(ws.id, user.id, ["all"], p, 1)
        uow.commit()
    with world.uow() as uow:
        line = leaderboard.leaders(uow, ws, "all")
    best = max(points)
    if not best:
        assert line is None
        return
    assert line is not None
    first = sorted(n for n, p in zip(names, points, strict=True) if p == best)
    named = re.findall(r"user\d+", line)
    assert set(named) <= set(first) and len(named) == min(len(first), leaderboard.NAMED)
    if len(first) == 1:
        assert line == f"{first[0]} ({best} pts)"
    else:
        assert line.endswith(f"(tied, {best} pts each)")
        others = len(first) - len(named)
        assert (f"and {others} other" in line) == (others > 0)

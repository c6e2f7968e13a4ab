"""Study groups: create, join, leave, list; names are unique whatever their case, and bad
names get a clear message with nothing written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.errors import UserError
from bot.core.teams import MAX_NAME, clean_name
from bot.db.models import TeamMemberRow, TeamRow
from tests.support import row_counts
from tests.test_quiz import chat_for, running_app


@pytest.fixture
def quiz_app(sqlite_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(sqlite_url, clock, tmp_path)


@pytest.fixture
def any_app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(db_url, clock, tmp_path)


def teams(app: App) -> dict[str, int]:
    with app.session_factory() as session:
        rows = session.execute(select(TeamRow.name, TeamRow.id)).all()
        members = list(session.scalars(select(TeamMemberRow)))
    return {name: sum(1 for m in members if m.team_id == tid) for name, tid in rows}


def test_creating_a_team_puts_you_in_it(any_app: App) -> None:
    assert "Team 'GPU Gang' created" in chat_for(any_app).say("/team create GPU Gang")
    assert teams(any_app) == {"GPU Gang": 1}


def test_joining_and_leaving_a_team(any_app: App) -> None:
    chat_for(any_app).send("/team create GPU Gang")
    bob = chat_for(any_app, "bob")
    assert "You joined 'GPU Gang'" in bob.say("/team join gpu   GANG")
    assert teams(any_app) == {"GPU Gang": 2}
    assert "You left 'GPU Gang'" in bob.say("/team leave GPU Gang")
    assert teams(any_app) == {"GPU Gang": 1}


def test_a_user_may_be_in_several_teams_and_the_list_shows_which(quiz_app: App) -> None:
    chat = chat_for(quiz_app)
    chat.send("/team create Alpha")
    chat.send("/team create Beta")
    chat_for(quiz_app, "bob").send("/team create Gamma")
    text = chat_for(quiz_app).say("/team list")
    assert "Everyone (the workspace) · 2 members · you" in text
    assert "Alpha · 1 member · you" in text and "Beta · 1 member · you" in text
    assert "Gamma · 1 member\n" in text + "\n"


def test_the_last_member_leaving_removes_the_team(quiz_app: App) -> None:
    chat = chat_for(quiz_app)
    chat.send("/team create Solo")
    chat.send("/team leave solo")
    assert teams(quiz_app) == {}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/team create", "Give the team a name"),
        ("/team create    ", "Give the team a name"),
        ("/team create " + "x" * 200, "200 characters long"),
        ("/team create GPU GANG", "exists already"),
        ("/team create <script>", "Team names use letters"),
        ("/team join Nope", "There is no team called 'Nope'"),
        ("/team join gpu gan", "Did you mean GPU Gang?"),
        ("/team join GPU Gang", "You are already in 'GPU Gang'"),
        ("/team leave Other", "You are not in 'Other'"),
        ("/team leave Everyone", "Everyone is the whole workspace"),
        ("/team join everyone", "cannot be joined or left"),
        ("/team create everyone", "'everyone' is the whole workspace"),
        ("/team create  The   Workspace ", "'The Workspace' is the whole workspace"),
        ("/team create EVERYONE", "give your study group a name of its own"),
        ("/team dance", "Usage: /team"),
        ("/team", "Usage: /team"),
    ],
)
def test_bad_team_commands_get_a_clear_message_and_write_nothing(
    quiz_app: App, line: str, message: str
) -> None:
    chat = chat_for(quiz_app)
    chat.send("/team create GPU Gang")
    chat_for(quiz_app, "bob").send("/team create Other")
    chat = chat_for(quiz_app)
    before = row_counts(quiz_app)
    assert message in chat.say(line)
    assert row_counts(quiz_app) == before


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_team_names_are_cleaned_or_refused(raw: str) -> None:
    try:
        name = clean_name(raw)
    except UserError as err:
        assert str(err)
    else:
        assert 1 <= len(name) <= MAX_NAME
        assert name == " ".join(name.split())


@pytest.mark.parametrize("name", ["everyone", "Everyone", "the workspace"])
def test_the_board_of_team_everyone_is_the_workspaces_board(quiz_app: App, name: str) -> None:
    chat = chat_for(quiz_app)
    for period in ("week", "all"):
        everyone = chat.say(f"/leaderboard {period} team {name}")
        assert everyone == chat.say(f"/leaderboard {period}")
        assert "· everyone" in everyone.splitlines()[0]

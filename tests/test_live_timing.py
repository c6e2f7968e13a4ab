"""Live rounds, as a channel lives with them: the end of a round says why only when it ends
early, and admins set how long each question stays open (``/studybot live SECONDS``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.errors import UserError
from bot.core.events import Event, EventKind
from bot.core.messages import Delivery
from bot.core.quiz.live import LIVE_MAX_SECONDS, LIVE_MIN_SECONDS, parse_live_seconds
from bot.db.models import ChannelRow
from tests.support import row_counts
from tests.test_quiz import chat_for, running_app
from tests.test_quiz_live import live_row

END = "Live quiz · final standings"


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, tmp_path: Path) -> Iterator[App]:
    yield from running_app(db_url, clock, tmp_path)


def channel_posts(replies: list) -> list[str]:  # type: ignore[type-arg]
    return [m.text for m in replies if m.delivery is Delivery.CHANNEL]


def test_a_round_whose_last_two_questions_nobody_answered_ends_without_blaming_anyone(
    app: App,
) -> None:
    chat = chat_for(app)
    chat.send("/quiz live mig 2")
    chat.send("/advance 35s")  # question 1: nobody; question 2 comes 5 s later
    replies = chat.send("/advance 30s")  # question 2, the last: nobody
    (end,) = [m for m in replies if m.card.title == END]
    assert "Two questions in a row went unanswered" not in end.text
    assert "Nobody answered this time." in end.text
    assert live_row(app).position == 2  # every question was asked


def test_a_round_that_stops_early_still_says_why(app: App) -> None:
    chat = chat_for(app)
    chat.send("/quiz live mig 3")
    chat.send("/advance 35s")
    replies = chat.send("/advance 30s")
    (end,) = [m for m in replies if m.card.title == END]
    assert "Two questions in a row went unanswered, so the round ends here." in end.text
    assert live_row(app).position == 2 and len(live_row(app).question_ids) == 3


def test_an_admin_sets_the_channels_countdown_and_the_next_round_runs_by_it(app: App) -> None:
    chat = chat_for(app)
    assert chat.say("/studybot live") == "Live rounds: 30 s a question (the default)."
    assert chat.say("/studybot live 45") == "Saved. Live rounds: 45 s a question."
    posts = channel_posts(chat.send("/quiz live mig 2"))
    assert "2 questions, 45 s each" in posts[0]
    assert "First correct answer scores · 45 s" in posts[1]
    assert "Time's up" not in "".join(channel_posts(chat.send("/advance 30s")))
    after = channel_posts(chat.send("/advance 20s"))
    assert after[0].startswith("⏰ Time's up") and "question 2 of 2" in after[1]
    # other channels keep the default
    elsewhere = chat_for(app, "bob", channel="random")
    assert "30 s each" in channel_posts(elsewhere.send("/quiz live mig 2"))[0]


def test_the_timing_shows_in_the_channels_settings_and_can_go_back_to_the_default(
    app: App,
) -> None:
    chat = chat_for(app)
    chat.say("/studybot live 1m")
    assert "Live rounds: 60 s a question." in chat.say("/studybot schedule show")
    chat.send("/daily")  # now the channel has a schedule too
    assert "Live rounds: 60 s a question." in chat.say("/studybot schedule show")
    assert chat.say("/studybot live default") == (
        "Saved. Live rounds: 30 s a question (the default)."
    )
    with app.session_factory() as session:
        assert session.scalars(select(ChannelRow.live_seconds)).all() == [None]


def test_a_change_during_a_round_leaves_that_round_alone(app: App) -> None:
    chat = chat_for(app)
    chat.send("/quiz live mig 2")
    assert "The round running now keeps its own timing." in chat.say("/studybot live 90")
    assert channel_posts(chat.send("/advance 30s"))[0].startswith("⏰ Time's up")


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("/studybot live 5", "from 10 to 300 seconds, not 5"),
        ("/studybot live 301", "from 10 to 300 seconds, not 301"),
        ("/studybot live 10m", "from 10 to 300 seconds, not 600"),
        ("/studybot live soon", "'soon' is not a number of seconds"),
        ("/studybot live -20", "'-20' is not a number of seconds"),
        ("/studybot live 1.5", "'1.5' is not a number of seconds"),
        ("/studybot live 99999999999999999999999", "is not a number of seconds"),
        ("/studybot live 45 60", "Usage: /studybot live [SECONDS|default]"),
    ],
)
def test_a_bad_countdown_says_what_is_allowed_and_changes_nothing(
    app: App, line: str, error: str
) -> None:
    chat = chat_for(app)
    before = row_counts(app)
    assert error in chat.say(line)
    assert row_counts(app) == before
    assert chat.say("/studybot live") == "Live rounds: 30 s a question (the default)."


def test_only_admins_change_the_countdown_but_anyone_sees_it(app: App) -> None:
    def run(line: str, admin: bool) -> str:
        name, _, args = line[1:].partition(" ")
        event = Event(
            EventKind.COMMAND, "slack", "T1", "C1", "U1", command=name, args=args, is_admin=admin
        )
        return "\n".join(m.text for m in app.bot.handle(event))

    assert "Only workspace admins" in run("/studybot live 45", admin=False)
    assert run("/studybot live", admin=False) == "Live rounds: 30 s a question (the default)."
    assert "Saved" in run("/studybot live 45", admin=True)
    assert run("/studybot live", admin=False) == "Live rounds: 45 s a question."


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=30))
def test_any_text_is_a_countdown_within_the_bounds_or_a_friendly_error(text: str) -> None:
    try:
        seconds = parse_live_seconds(text)
    except UserError as err:
        assert "seconds" in str(err) and "Traceback" not in str(err)
    else:
        assert seconds is None or LIVE_MIN_SECONDS <= seconds <= LIVE_MAX_SECONDS

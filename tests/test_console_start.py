"""What the console says as it starts and as its clock moves: ``--tz`` for a user the bot
knows already, and the time ``/advance`` shows."""

from __future__ import annotations

from sqlalchemy import select

from bot.bootstrap import App
from bot.db.models import UserRow
from tests.support import Transcript


def zones(app: App) -> dict[str, str | None]:
    with app.session_factory() as session:
        return {u.external_id: u.timezone for u in session.scalars(select(UserRow))}


def opened(app: App, user: str = "alice", tz: str | None = None) -> list[str]:
    """Open a console session as ``studybot console`` does; what it printed on opening."""
    chat = Transcript(app, user=user, tz=tz)
    chat.start()
    return [m.text for m in chat.messages]


def test_tz_on_the_command_line_sets_the_zone_of_a_user_the_bot_knows_and_says_so(
    app: App,
) -> None:
    Transcript(app, tz="Europe/Berlin").send("/daily")
    assert zones(app) == {"alice": "Europe/Berlin"}
    printed = opened(app, tz="America/New_York")
    assert printed == ["Time zone set to America/New_York. It is Tue 01 Dec 04:00 there."]
    assert zones(app) == {"alice": "America/New_York"}
    assert opened(app, tz="America/New_York") == []  # the zone it has: nothing to say
    assert opened(app) == [] and zones(app) == {"alice": "America/New_York"}  # no --tz


def test_advance_shows_the_time_on_the_acting_users_clock(app: App) -> None:
    chat = Transcript(app, tz="Europe/Berlin")
    assert "(Tue 01 Dec 10:30 in Europe/Berlin)" in chat.say("/advance 30m")
    chat.send("/as bob")
    chat.send("/tz Asia/Tokyo")
    assert chat.say("/advance 30m") == (
        "The clock is now 2026-12-01T10:00+00:00 (Tue 01 Dec 19:00 in Asia/Tokyo)."
    )

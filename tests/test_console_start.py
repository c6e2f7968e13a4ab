"""What the console says as it starts and as its clock moves: ``--tz`` for a user the bot
knows already, the time ``/advance`` shows, and a ``--clock`` far from the database's last
activity."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.bootstrap import App
from bot.core.clock import SimulatedClock
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


def test_a_clock_that_starts_long_after_the_last_activity_says_due_work_is_skipped(
    app: App, clock: SimulatedClock
) -> None:
    Transcript(app, tz="Europe/Berlin").send("/daily")  # a weekday schedule: posts due daily
    assert opened(app) == []  # at once: nothing to say
    clock.advance(timedelta(days=2, hours=3))
    (note,) = opened(app)
    assert note.startswith(
        "Note: the clock starts 51 hours after this database's last activity "
        "(2026-12-01T09:00+00:00). As after any downtime longer than 1 hour, what fell due "
        "longer ago than that (daily posts, reminders, nudges) is skipped, not sent late."
    )


def test_a_clock_that_starts_before_the_last_activity_is_flagged(
    app: App, clock: SimulatedClock
) -> None:
    Transcript(app, tz="Europe/Berlin").send("/daily")
    clock.set(clock.now() - timedelta(days=10))
    (note,) = opened(app)
    assert note.startswith(
        "Note: --clock 2026-11-21T09:00+00:00 is before this database's last activity "
        "(2026-12-01T09:00+00:00), so time goes backwards here"
    )


def test_a_new_database_says_nothing_about_its_clock(app: App, clock: SimulatedClock) -> None:
    clock.advance(timedelta(days=30))
    assert opened(app) == []

"""Mock interviews that survive downtime, told as stories: the bot goes down (its clock
moves on while nothing runs), then restarts on the same database.

- reminders that fell due while it was down: one per person, none past the grace, none
  twice however often it restarts;
- a mock whose rounds were running: carried on after a short gap, stopped with a
  scorecard of what ran after a long one;
- calendar files that calendars treat as invitations (ORGANIZER, ATTENDEE, TENTATIVE
  until accepted, SEQUENCE on every change, an update on cancel and decline), and a
  night-time invitation flagged before it is sent.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import icalendar
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.messages import Outgoing
from bot.db.models import MockInterviewRow
from tests.support import Transcript, row_counts
from tests.test_mock import (
    GOOD,
    answer,
    calendar_of,
    dms,
    make_app,
    mapp,
    mchat,
    mclock,
    mock_bank,
    mocks,
    open_chat,
    reminders,
)

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with test_mock

FRIDAY_15 = datetime(2026, 12, 4, 14, 0, tzinfo=UTC)  # 15:00 Berlin, 09:00 New York


def restart(
    db_url: str, clock: SimulatedClock, bank: QuestionBank, user: str = "alice"
) -> tuple[App, Transcript]:
    """The bot starts again on the same database: it delivers what fell due meanwhile."""
    app = make_app(db_url, clock, bank)
    return app, open_chat(app, user)


def scheduled_with_bob(chat: Transcript) -> None:
    chat.send("/mock schedule Fri 15:00 with @bob")
    chat.send("/as bob")
    chat.send("/mock accept 1")
    chat.send("/as alice")


def the_event(message: Outgoing) -> icalendar.Event:
    (event,) = calendar_of(message).walk("VEVENT")
    return event


def attendees(event: icalendar.Event) -> dict[str, str]:
    found = event.get("attendee")
    found = found if isinstance(found, list) else [found] if found is not None else []
    return {str(a.params["CN"]): str(a.params["PARTSTAT"]) for a in found}


# -- reminders ----------------------------------------------------------------------------------


def test_after_downtime_each_person_gets_one_reminder_and_none_past_the_grace(
    mchat: Transcript, mapp: App, mclock: SimulatedClock, db_url: str, mock_bank: QuestionBank
) -> None:
    scheduled_with_bob(mchat)
    mapp.close()  # down from Tuesday until 50 minutes before the mock
    mclock.set(FRIDAY_15 - timedelta(minutes=50))  # the 24 h reminder is 23 h late
    app, chat = restart(db_url, mclock, mock_bank)
    try:
        sent = dms(chat.messages)
        assert sorted(m.to for m in sent) == ["alice", "bob"]
        assert all("in 50 minutes" in m.card.title for m in sent)  # the 1 h one, 10 min late
        assert all(sent for _offset, _due, sent, _cancelled in reminders(app))
        chat.send("/advance 40m")
        assert dms(chat.messages) == sent  # nothing more before the start
    finally:
        app.close()
    again, chat = restart(db_url, mclock, mock_bank)  # and a second restart sends nothing
    try:
        assert dms(chat.messages) == []
    finally:
        again.close()


def test_two_reminders_due_at_once_become_one(
    mchat: Transcript, mapp: App, mclock: SimulatedClock, db_url: str, mock_bank: QuestionBank
) -> None:
    mchat.send("/mock remind 1h 30m")
    mchat.send("/mock schedule Fri 15:00")
    mapp.close()
    mclock.set(FRIDAY_15 - timedelta(minutes=20))  # both fell due, both within the grace
    app, chat = restart(db_url, mclock, mock_bank)
    try:
        (only,) = dms(chat.messages)
        assert "in 20 minutes" in only.card.title and only.attachments
        assert [sent for _o, _d, sent, _c in reminders(app)] == [True, True]
    finally:
        app.close()


def test_a_reminder_late_by_less_than_the_grace_still_goes(
    mchat: Transcript, mapp: App, mclock: SimulatedClock, db_url: str, mock_bank: QuestionBank
) -> None:
    mchat.send("/mock schedule Fri 15:00")
    mapp.close()
    mclock.set(FRIDAY_15 - timedelta(hours=23, minutes=30))  # the 24 h one, 30 min late
    app, chat = restart(db_url, mclock, mock_bank)
    try:
        (reminder,) = dms(chat.messages)
        assert "in 23 hours 30 minutes" in reminder.card.title  # the real time left
    finally:
        app.close()


# -- a running mock -----------------------------------------------------------------------------


def running_technical(chat: Transcript, peer: bool = False) -> None:
    line = "/mock schedule in 1 hour technical" + (" with @bob anyway" if peer else "")
    chat.send(line)
    if peer:
        chat.send("/as bob")
        chat.send("/mock accept 1")
        chat.send("/as alice")
    chat.send("/advance 1h")
    answer(chat, GOOD)  # round 1 answered; round 2 is open


def test_a_mock_stopped_by_a_long_downtime_is_abandoned_with_a_scorecard_of_what_ran(
    mchat: Transcript, mapp: App, mclock: SimulatedClock, db_url: str, mock_bank: QuestionBank
) -> None:
    running_technical(mchat, peer=True)
    mapp.close()
    mclock.advance(timedelta(days=2))
    app, chat = restart(db_url, mclock, mock_bank)
    try:
        assert not [m for m in chat.messages if "round 3 of 3" in m.card.title]
        told = {m.to: m for m in dms(chat.messages) if "stopped mid-way" in m.card.title}
        assert sorted(told) == ["alice", "bob"]
        card = told["alice"].card
        assert "after 1 of its 3 rounds" in told["alice"].text
        assert [f.label.split(" · ")[0] for f in card.fields if f.label.startswith("Round")] == [
            "Round 1"
        ]
        (row,) = mocks(app)
        assert row.status == "abandoned" and row.next_at is None
        listed = chat.say("/mock list")
        assert "running now" not in listed and "No mocks coming up" in listed
        assert "stopped mid-way" in chat.say("/mock history")
        chat.send("/advance 1h")
        assert mocks(app)[0].status == "abandoned"  # nothing more happens to it
    finally:
        app.close()


def test_a_short_downtime_lets_the_mock_carry_on(
    mchat: Transcript, mapp: App, mclock: SimulatedClock, db_url: str, mock_bank: QuestionBank
) -> None:
    running_technical(mchat)
    mapp.close()
    mclock.advance(timedelta(minutes=20))  # round 2's box ended 12 minutes ago
    app, chat = restart(db_url, mclock, mock_bank)
    try:
        (third,) = [m for m in chat.messages if "round 3 of 3" in m.card.title]
        assert "I was away when it ended" in third.text
        assert mocks(app)[0].status == "running"
        assert "running now" in chat.say("/mock list")
    finally:
        app.close()


def test_a_start_missed_by_a_long_downtime_tells_both_people(
    mchat: Transcript, mapp: App, mclock: SimulatedClock, db_url: str, mock_bank: QuestionBank
) -> None:
    scheduled_with_bob(mchat)
    mapp.close()
    mclock.set(FRIDAY_15 + timedelta(days=1))
    app, chat = restart(db_url, mclock, mock_bank)
    try:
        told = [m.to for m in dms(chat.messages) if "missed" in m.card.title]
        assert sorted(told) == ["alice", "bob"]
        assert not [m for m in dms(chat.messages) if "Reminder" in m.card.title]
        assert mocks(app)[0].status == "missed"
    finally:
        app.close()


# -- calendar files -----------------------------------------------------------------------------


def test_invitations_are_tentative_until_accepted_and_every_change_bumps_the_sequence(
    mchat: Transcript,
) -> None:
    (mine,) = mchat.send("/mock schedule Fri 15:00 with @bob")[:1]
    cal = calendar_of(mine)
    event = the_event(mine)
    assert cal["method"] == "REQUEST" and event["status"] == "TENTATIVE"
    assert event["sequence"] == 0
    assert str(event["organizer"]).startswith("mailto:") and event["organizer"].params["CN"]
    assert attendees(event) == {"alice": "ACCEPTED", "bob": "NEEDS-ACTION"}

    mchat.send("/as bob")
    accepted = mchat.send("/mock accept 1")
    event = the_event(accepted[0])
    assert (event["status"], event["sequence"]) == ("CONFIRMED", 1)
    assert attendees(event) == {"alice": "ACCEPTED", "bob": "ACCEPTED"}
    (to_alice,) = dms(accepted, "alice")
    assert the_event(to_alice)["sequence"] == 1

    mchat.send("/as alice")
    moved = mchat.send("/mock reschedule 1 Fri 16:00")
    event = the_event(moved[0])
    assert (event["status"], event["sequence"]) == ("TENTATIVE", 2)  # bob accepts again
    assert event.decoded("dtstart") == FRIDAY_15 + timedelta(hours=1)

    mchat.send("/as bob")
    declined = mchat.send("/mock decline 1")  # the mock goes on solo
    assert calendar_of(declined[0])["method"] == "CANCEL"  # gone from bob's calendar
    assert the_event(declined[0])["sequence"] == 3
    (update,) = dms(declined, "alice")
    event = the_event(update)
    assert calendar_of(update)["method"] == "REQUEST"
    assert (event["status"], event["sequence"]) == ("CONFIRMED", 3)
    assert attendees(event) == {"alice": "ACCEPTED"}

    mchat.send("/as alice")
    cancelled = mchat.send("/mock cancel 1")
    event = the_event(cancelled[0])
    assert calendar_of(cancelled[0])["method"] == "CANCEL"
    assert (event["status"], event["sequence"]) == ("CANCELLED", 4)


def test_a_declined_proposal_sends_a_cancellation_to_the_other_person(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob")
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/mock reschedule 1 Fri 10:00")  # bob's 10:00: the interviewer proposes
    mchat.send("/as alice")
    replies = mchat.send("/mock decline 1")
    assert "Declined mock #1" in replies[0].text
    (to_bob,) = dms(replies, "bob")
    assert calendar_of(to_bob)["method"] == "CANCEL"
    assert the_event(to_bob)["status"] == "CANCELLED"
    with mapp.session_factory() as session:
        assert session.scalars(select(MockInterviewRow.status)).one() == "declined"


def test_a_mock_at_night_for_the_peer_is_flagged_before_the_invitation_goes(
    mchat: Transcript, mapp: App
) -> None:
    before = row_counts(mapp)
    replies = mchat.send("/mock schedule tomorrow 9am with @bob")  # 03:00 in New York
    (warning,) = replies
    assert "Wed 02 Dec 2026 03:00 EST for bob" in warning.text and "at night" in warning.text
    assert "/mock schedule tomorrow 9am with @bob anyway" in warning.text
    assert dms(replies) == [] and row_counts(mapp) == before
    sent = mchat.send("/mock schedule tomorrow 9am with @bob anyway")
    assert "Mock #1 scheduled" in sent[0].text
    (invite,) = dms(sent, "bob")
    assert "03:00 EST" in invite.text


def test_a_mock_in_the_peers_daytime_needs_no_confirmation(mchat: Transcript) -> None:
    replies = mchat.send("/mock schedule Fri 15:00 with @bob")  # 09:00 for bob
    assert "Mock #1 scheduled" in replies[0].text
    assert len(dms(replies, "bob")) == 1


def test_moving_a_mock_into_the_peers_night_is_flagged_and_changes_nothing(
    mchat: Transcript, mapp: App
) -> None:
    scheduled_with_bob(mchat)
    before = mocks(mapp)[0].starts_at
    text = mchat.say("/mock reschedule 1 Sat 23:30")  # 17:30 for bob: fine
    assert "moved to" in text
    text = mchat.say("/mock reschedule 1 Sun 10:00")  # 04:00 for bob
    assert "at night for them" in text and "/mock reschedule 1 Sun 10:00 anyway" in text
    assert mocks(mapp)[0].starts_at != before  # the first move stands, the second did not
    assert mocks(mapp)[0].starts_at == datetime(2026, 12, 5, 22, 30, tzinfo=UTC)

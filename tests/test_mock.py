"""Mock interviews: scheduling in people's zones, reminders, cancel and reschedule (also
racing a reminder), and a DST change between scheduling and the mock.

The fixtures and helpers here are shared by the other ``test_mock_*`` modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import icalendar
import pytest
from sqlalchemy import select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.core.messages import Delivery, Outgoing, from_payload
from bot.core.mock.jobs import MockReminderJob
from bot.core.mock.model import MOCKS
from bot.core.model import WORKSPACES
from bot.db.models import MockInterviewRow, OutboxRow, ReminderRow
from bot.delivery import stale_deadline
from tests.support import Transcript, row_counts

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # Tue; 10:00 in Berlin, 04:00 in New York


def _open(qid: str, topic: str, prompt: str) -> str:
    return f"""
  - id: {qid}
    topic: {topic}
    role: [pm, eng]
    difficulty: 2
    kind: open
    prompt: "{prompt}"
    rubric:
      - point: "Names isolation"
        weight: 1
        any: ["isolation"]
      - point: "Names latency"
        weight: 1
        any: ["latency"]
    model_answer: "Isolation keeps neighbours out; watch latency."
    explanation: "Isolation and latency are what matter."
    sources: ["https://example.com/{qid}"]
"""


PACK = (
    "pack: mocktest\ntitle: Mock test questions\nquestions:"
    + _open("t-mig-open", "mig", "How does MIG isolate tenants?")
    + _open("t-mps-open", "mps", "When is MPS the right choice?")
    + _open("t-k8s-open", "kubernetes", "How do you share GPUs in Kubernetes?")
    + _open("t-product-1", "product", "Which metric tells a GPU platform works?")
    + _open("t-product-2", "product", "How do you price shared GPUs?")
    + _open("t-product-3", "product", "Who are the users of a GPU platform?")
    + _open("t-behav-1", "behavioral", "Tell me about a conflict you resolved.")
    + _open("t-behav-2", "behavioral", "Tell me about a launch that slipped.")
    + _open("t-behav-3", "behavioral", "Tell me about a hard trade-off.")
    + """
  - id: t-mig-choice
    topic: mig
    role: [pm, eng]
    difficulty: 1
    kind: choice
    prompt: "How many MIG instances at most on an A100?"
    choices: ["7", "8"]
    answer: "7"
    explanation: "Seven."
    sources: ["https://example.com/mig"]
"""
)
GOOD = "isolation and latency"  # covers the whole rubric
HALF = "isolation only"  # half of it


@pytest.fixture
def mock_bank(tmp_path: Path) -> QuestionBank:
    path = tmp_path / "mocktest.yaml"
    path.write_text(PACK, encoding="utf-8")
    return QuestionBank.from_packs([load_pack(path)])


def make_app(db_url: str, clock: SimulatedClock, bank: QuestionBank) -> App:
    return bootstrap(
        Settings(studybot_database_url=db_url), clock=clock, bank=bank, auto_migrate=True
    )


@pytest.fixture
def mclock() -> SimulatedClock:
    return SimulatedClock(START)


@pytest.fixture
def mapp(db_url: str, mclock: SimulatedClock, mock_bank: QuestionBank) -> Iterator[App]:
    application = make_app(db_url, mclock, mock_bank)
    yield application
    application.close()


def open_chat(app: App, user: str = "alice") -> Transcript:
    transcript = Transcript(app, user=user)
    transcript.start()
    return transcript


@pytest.fixture
def mchat(mapp: App) -> Transcript:
    """alice in Europe/Berlin and bob in America/New_York, both known to the bot."""
    chat = open_chat(mapp)
    chat.send("/as bob")
    chat.send("/tz America/New_York")
    chat.send("/as alice")
    chat.send("/tz Europe/Berlin")
    return chat


def answer(chat: Transcript, text: str) -> str:
    """Answer the running mock round in one message, then say done: what the bot said to
    the done (the round's grade)."""
    chat.send(text)
    return chat.say("done")


def dms(messages: list[Outgoing], to: str | None = None) -> list[Outgoing]:
    return [m for m in messages if m.delivery is Delivery.DM and (to is None or m.to == to)]


def mocks(app: App) -> list[MockInterviewRow]:
    with app.session_factory() as session:
        return list(session.scalars(select(MockInterviewRow).order_by(MockInterviewRow.id)))


def reminders(app: App) -> list[tuple[int, datetime, bool, bool]]:
    """(offset minutes, due at, sent, cancelled) of every reminder row."""
    with app.session_factory() as session:
        rows = session.scalars(select(ReminderRow).order_by(ReminderRow.due_at, ReminderRow.id))
        return [(r.offset_minutes, r.due_at, r.sent_at is not None, r.cancelled) for r in rows]


def calendar_of(message: Outgoing) -> icalendar.Calendar:
    (attachment,) = message.attachments
    assert attachment.filename.endswith(".ics")
    assert attachment.mime_type == "text/calendar"
    return icalendar.Calendar.from_ical(attachment.content)


def the_event(message: Outgoing) -> icalendar.Event:
    (event,) = calendar_of(message).walk("VEVENT")
    return event


# -- scheduling ------------------------------------------------------------------------------


def test_schedule_reads_when_in_the_users_zone_and_shows_it_in_every_participants_zone(
    mchat: Transcript, mapp: App
) -> None:
    replies = mchat.send("/mock schedule tomorrow 3pm with @bob")
    (confirmation,) = [m for m in replies if m.delivery is Delivery.PRIVATE]
    assert "alice: Wed 02 Dec 2026 15:00 CET (Europe/Berlin)" in confirmation.text
    assert "bob: Wed 02 Dec 2026 09:00 EST (America/New_York)" in confirmation.text
    event = the_event(confirmation)
    assert event.decoded("dtstart") == datetime(2026, 12, 2, 14, 0, tzinfo=UTC)
    assert event.decoded("dtend") == datetime(2026, 12, 2, 14, 40, tzinfo=UTC)  # 5 × 8 min
    (invite,) = dms(replies, "bob")
    assert "Wed 02 Dec 2026 09:00 EST" in invite.text
    assert [b.action for b in invite.card.buttons] == ["mock:1:accept", "mock:1:decline"]
    (row,) = mocks(mapp)
    assert (row.status, row.format, row.round_minutes) == ("scheduled", "loop", 8)
    assert row.starts_at == datetime(2026, 12, 2, 14, 0, tzinfo=UTC)


@pytest.mark.parametrize("when", ["2026-12-04 15:00", "Fri 15:00", "friday 3pm", "Dec 4 3pm"])
def test_iso_and_natural_forms_name_the_same_instant(
    mchat: Transcript, mapp: App, when: str
) -> None:
    mchat.send(f"/mock schedule {when}")
    (row,) = mocks(mapp)
    assert row.starts_at == datetime(2026, 12, 4, 14, 0, tzinfo=UTC)  # 15:00 in Berlin


def test_format_and_time_box_are_taken_from_the_line(mchat: Transcript, mapp: App) -> None:
    text = mchat.say("/mock schedule Fri 15:00 technical box=10m")
    assert "technical · 3 rounds × 10 min" in text
    (row,) = mocks(mapp)
    assert (row.format, row.round_minutes) == ("technical", 10)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/mock schedule yesterday 3pm", "is in the past"),
        ("/mock schedule 2026-12-01 09:30", "is in the past"),  # 08:30 UTC, before now
        ("/mock schedule 2027-06-01 10:00", "more than 90 days ahead"),
        ("/mock schedule friday", "no time of day"),
        ("/mock schedule banana", "can't read"),
        ("/mock schedule", "When?"),
        ("/mock schedule tomorrow 3pm with @nobody", "don't know 'nobody'"),
        ("/mock schedule tomorrow 3pm with @alice", "can't interview yourself"),
        ("/mock schedule tomorrow 3pm box=100", "time box"),
        ("/mock bogus", "/mock has no 'bogus'"),
        ("/mock cancel x", "not a mock id"),
        ("/mock cancel 99", "no mock #99"),
        ("/mock reschedule 1", "Usage: /mock reschedule"),
        ("/mock accept 5", "no mock #5"),
        ("/mock remind soon", "not a duration"),
        ("/mock remind 1s", "between 5 minutes and 7 days"),
        ("/mock remind 30d", "between 5 minutes and 7 days"),
        ("/mock available mon 25:00-26:00", "not a time of day"),
        ("/mock available someday 18:00-20:00", "not a set of days"),
        ("/mock available mon 20:00-18:00", "ends after it starts"),
        ("/mock pair", "Tell me when you're free first"),
        ("/mock vote 1 1 maybe", "no mock #1"),
    ],
)
def test_bad_mock_input_gets_a_clear_message_and_writes_nothing(
    mchat: Transcript, mapp: App, line: str, says: str
) -> None:
    before = row_counts(mapp)
    text = mchat.say(line)
    assert says in text
    assert row_counts(mapp) == before


def test_an_overlapping_mock_is_refused(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule Fri 15:00")
    assert "You have mock #1" in mchat.say("/mock schedule Fri 15:20")
    assert len(mocks(mapp)) == 1


def test_list_shows_upcoming_mocks_in_the_readers_zone(mchat: Transcript) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob technical")
    mine = mchat.say("/mock list")
    assert "#1 · Fri 04 Dec 2026 15:00 CET · technical · with bob (not accepted yet)" in mine
    mchat.send("/as bob")
    theirs = mchat.say("/mock list")
    assert "#1 · Fri 04 Dec 2026 09:00 EST · technical · you interview alice" in theirs


# -- reminders -------------------------------------------------------------------------------


def test_reminders_arrive_by_dm_24h_and_1h_before_each_with_an_ics_file(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob")
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/as alice")
    start = len(mchat.messages)
    mchat.send("/advance 2d5h")  # Thu 14:00 UTC: the 24 h reminders are out
    day_before = dms(mchat.messages[start:])
    assert sorted(m.to for m in day_before) == ["alice", "bob"]
    assert all("in 24 hours" in m.text for m in day_before)
    (bobs,) = dms(day_before, "bob")
    assert "Fri 04 Dec 2026 09:00 EST" in bobs.text
    assert the_event(bobs).decoded("dtstart") == datetime(2026, 12, 4, 14, 0, tzinfo=UTC)
    start = len(mchat.messages)
    mchat.send("/advance 23h")  # Fri 13:00: one hour before
    hour_before = dms(mchat.messages[start:])
    assert sorted(m.to for m in hour_before) == ["alice", "bob"]
    assert all("in 1 hour" in m.text and m.attachments for m in hour_before)
    assert [sent for *_, sent, _cancelled in reminders(mapp)] == [True] * 4


def test_reminder_offsets_are_configurable_per_user(mchat: Transcript, mapp: App) -> None:
    assert "2 hours, 15 minutes before" in mchat.say("/mock remind 2h,15m")
    mchat.send("/mock schedule tomorrow 3pm")
    assert [(o, due) for o, due, *_ in reminders(mapp)] == [
        (120, datetime(2026, 12, 2, 12, 0, tzinfo=UTC)),
        (15, datetime(2026, 12, 2, 13, 45, tzinfo=UTC)),
    ]
    assert "Mock reminders are off" in mchat.say("/mock remind off")
    assert all(cancelled for *_, cancelled in reminders(mapp))


def test_a_reminder_already_past_at_scheduling_is_not_planned(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule in 3 hours")
    assert [o for o, *_ in reminders(mapp)] == [60]


def test_a_cancelled_mock_sends_nothing_more_and_never_starts(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob")
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/as alice")
    replies = mchat.send("/mock cancel 1")
    assert "cancelled; no reminders will be sent" in replies[0].text
    assert calendar_of(replies[0])["method"] == "CANCEL"
    (to_bob,) = dms(mchat.messages, "bob")[-1:]
    assert "alice cancelled mock #1" in to_bob.text
    assert the_event(to_bob)["status"] == "CANCELLED"
    start = len(mchat.messages)
    mchat.send("/advance 5d")
    assert [m for m in mchat.messages[start:] if "Mock #1" in m.text or "mock #1" in m.text] == []
    (row,) = mocks(mapp)
    assert row.status == "cancelled"
    assert "nothing to cancel" in mchat.say("/mock cancel 1")


def test_reschedule_moves_the_reminders_and_asks_the_peer_again(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob")
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/as alice")
    replies = mchat.send("/mock reschedule 1 Sat 11:00 anyway")  # 05:00 for bob
    assert "Mock #1 moved to Sat 05 Dec 2026 11:00 CET" in replies[0].text
    assert the_event(replies[0])["sequence"] == 2  # bob's acceptance was the first change
    (ask,) = dms(replies, "bob")
    assert "Sat 05 Dec 2026 05:00 EST" in ask.text and ask.card.buttons
    live = [(o, due) for o, due, sent, cancelled in reminders(mapp) if not cancelled]
    assert live == [
        (1440, datetime(2026, 12, 4, 10, 0, tzinfo=UTC)),
        (60, datetime(2026, 12, 5, 9, 0, tzinfo=UTC)),
    ]
    start = len(mchat.messages)
    mchat.send("/advance 3d3h")  # Fri 12:00 UTC: past the old 24 h reminder and the new one
    sent = dms(mchat.messages[start:])
    assert [m.to for m in sent] == ["alice"]  # bob must accept the new time first
    assert "Sat 05 Dec 2026 11:00 CET" in sent[0].text


@pytest.mark.parametrize("when", ["tomorrow 3pm", "2026-12-02 15:00", "wed 15:00", "2/12 3pm"])
def test_reschedule_to_the_time_it_has_changes_nothing_and_keeps_the_peers_acceptance(
    mchat: Transcript, mapp: App, when: str
) -> None:
    mchat.send("/mock schedule tomorrow 3pm with @bob")
    mchat.send("/as bob")
    mchat.send("/mock accept 1")
    mchat.send("/as alice")
    before = (
        row_counts(mapp),
        [(r.status, r.sequence, r.interviewer_accepted_at) for r in mocks(mapp)],
    )
    replies = mchat.send(f"/mock reschedule 1 {when}")
    assert [m.text for m in replies] == [
        "Mock #1 is already at Wed 02 Dec 2026 15:00 CET: nothing changes."
    ]
    assert dms(replies) == []  # bob is not asked to accept again
    after = (
        row_counts(mapp),
        [(r.status, r.sequence, r.interviewer_accepted_at) for r in mocks(mapp)],
    )
    assert after == before
    listing = mchat.say("/mock list")
    assert "with bob · scheduled" in listing and "not accepted yet" not in listing


# -- racing a reminder -----------------------------------------------------------------------


def _claim_reminders_now(app: App) -> int:
    """Run the reminder job alone, as a worker that claimed its rows but has not delivered."""
    with app.uow() as uow:
        done = MockReminderJob().run(uow, app.services, app.clock.now())
        uow.commit()
    return done


def _outbox(app: App, prefix: str) -> list[tuple[str, str]]:
    with app.session_factory() as session:
        rows = session.scalars(
            select(OutboxRow).where(OutboxRow.key.startswith(prefix)).order_by(OutboxRow.id)
        )
        return [(r.key, r.status) for r in rows]


def test_cancel_racing_a_claimed_reminder_withdraws_its_dm(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule tomorrow 3pm")
    mclock.set(datetime(2026, 12, 1, 14, 0, tzinfo=UTC))  # the 24 h reminder is due
    assert _claim_reminders_now(mapp) == 1
    assert [status for _key, status in _outbox(mapp, "mock:1:remind:")] == ["pending"]
    mchat.send("/mock cancel 1")
    assert [status for _key, status in _outbox(mapp, "mock:1:remind:")] == ["cancelled"]
    start = len(mchat.messages)
    mchat.send("/advance 2d")
    assert dms(mchat.messages[start:]) == []


def test_reschedule_racing_a_claimed_reminder_sends_only_the_new_times_reminders(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule tomorrow 3pm")
    mclock.set(datetime(2026, 12, 1, 14, 0, tzinfo=UTC))
    assert _claim_reminders_now(mapp) == 1
    mchat.send("/mock reschedule 1 Thu 15:00")
    assert [status for _key, status in _outbox(mapp, "mock:1:remind:")] == ["cancelled"]
    start = len(mchat.messages)
    mchat.send("/advance 2d")  # Thu 14:00 UTC: the new 24 h and 1 h reminders
    sent = dms(mchat.messages[start:])
    assert ["in 24 hours" in m.text for m in sent] == [True, False]
    assert all("Thu 03 Dec 2026 15:00 CET" in m.text for m in sent)


def test_a_reminder_due_while_its_mock_is_being_cancelled_is_skipped(
    mchat: Transcript, mapp: App, mclock: SimulatedClock, db_url: str
) -> None:
    """Two workers at once: the cancel holds the mock's row; the reminder worker's claim
    skips it (SKIP LOCKED) and, once the cancel commits, finds nothing to send."""
    if not db_url.startswith("postgresql"):
        pytest.skip("row locks between two connections: PostgreSQL")
    mchat.send("/mock schedule tomorrow 3pm")
    mclock.set(datetime(2026, 12, 1, 14, 0, tzinfo=UTC))
    with mapp.uow() as cancelling:
        workspace = cancelling[WORKSPACES].ensure("console", "console")
        mock = cancelling[MOCKS].get(workspace, 1, lock=True)
        assert mock is not None
        assert _claim_reminders_now(mapp) == 0  # skipped: the row is locked
        from bot.core.mock.model import CANCELLED, MockChanges

        cancelling[MOCKS].change(mock, MockChanges(status=CANCELLED, clear_next=True), START)
        cancelling[MOCKS].cancel_reminders(mock)
        cancelling.commit()
    assert _claim_reminders_now(mapp) == 0
    assert reminders(mapp)[0][2:] == (False, True)  # never sent, cancelled


# -- time zones ------------------------------------------------------------------------------


def test_a_dst_change_between_scheduling_and_the_mock_keeps_its_local_time(
    db_url: str, mock_bank: QuestionBank
) -> None:
    clock = SimulatedClock(datetime(2027, 3, 10, 15, 0, tzinfo=UTC))  # 10:00 EST, Wednesday
    app = make_app(db_url, clock, mock_bank)
    try:
        chat = open_chat(app)
        chat.send("/tz America/New_York")
        replies = chat.send("/mock schedule Tue 10:00")  # 2027-03-16: after the 14 March change
        assert "alice: Tue 16 Mar 2027 10:00 EDT (America/New_York)" in replies[0].text
        (row,) = mocks(app)
        assert row.starts_at == datetime(2027, 3, 16, 14, 0, tzinfo=UTC)  # UTC-4 now, not -5
        assert [due for _o, due, *_ in reminders(app)] == [
            datetime(2027, 3, 15, 14, 0, tzinfo=UTC),  # exactly 24 hours before
            datetime(2027, 3, 16, 13, 0, tzinfo=UTC),
        ]
        chat.send("/advance 5d22h59m")  # 13:59 UTC on the 16th: not yet
        assert not [m for m in chat.posts() if "round 1" in m.text]
        chat.send("/advance 1m")
        (opening,) = [m for m in chat.posts() if "round 1" in m.text]
        assert "until Tue 16 Mar 2027 10:08 EDT" in opening.text
    finally:
        app.close()


def test_a_peer_in_another_zone_is_reminded_in_their_own_time(mchat: Transcript, mapp: App) -> None:
    mchat.send("/as bob")
    replies = mchat.send("/mock schedule Fri 9am with @alice product")
    assert "bob: Fri 04 Dec 2026 09:00 EST (America/New_York)" in replies[0].text
    assert "alice: Fri 04 Dec 2026 15:00 CET (Europe/Berlin)" in replies[0].text
    mchat.send("/as alice")
    mchat.send("/mock accept 1")
    start = len(mchat.messages)
    mchat.send("/advance 3d4h")  # Fri 13:00 UTC
    (to_alice,) = [m for m in dms(mchat.messages[start:], "alice") if "in 1 hour" in m.text]
    assert "Fri 04 Dec 2026 15:00 CET" in to_alice.text
    assert "you interview bob" in to_alice.text


def test_a_queued_reminder_is_worth_sending_until_its_mock_starts(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    mchat.send("/mock schedule tomorrow 3pm")  # 15:00 CET is 14:00 UTC
    mclock.set(datetime(2026, 12, 1, 14, 0, tzinfo=UTC))
    assert _claim_reminders_now(mapp) == 1
    with mapp.session_factory() as session:
        row = session.scalars(
            select(OutboxRow).where(OutboxRow.key.startswith("mock:1:remind:"))
        ).one()
    assert stale_deadline(from_payload(row.payload), row.created_at) == datetime(
        2026, 12, 2, 14, 0, tzinfo=UTC
    )

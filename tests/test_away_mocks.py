"""Time away and mock interviews: while alice is away (``/away``), the reminders of her mock
with bob are muted for her; bob gets his as always and is told nothing odd."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.bootstrap import App
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.messages import Outgoing
from tests.support import Transcript, row_counts
from tests.test_mock import GOOD, dms, mapp, mchat, mclock, mock_bank, mocks, reminders
from tests.test_mock_downtime import FRIDAY_15, scheduled_with_bob
from tests.test_quiz import action_event

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with test_mock


def reminded(messages: list[Outgoing], to: str) -> list[str]:
    """The titles of the mock reminders ``to`` got by DM."""
    return [m.card.title for m in dms(messages, to=to) if m.card.title.startswith("Reminder")]


def until(chat: Transcript, clock: SimulatedClock, moment: object) -> list[Outgoing]:
    """Advance the console's clock to ``moment``; what was printed meanwhile."""
    assert moment > clock.now()  # type: ignore[operator]
    minutes = int((moment - clock.now()).total_seconds() // 60)  # type: ignore[operator]
    return chat.send(f"/advance {minutes}m")


def test_away_alice_gets_no_mock_reminder_and_bob_gets_his_as_usual(
    mchat: Transcript, mapp: App, mclock: SimulatedClock
) -> None:
    scheduled_with_bob(mchat)  # Fri 04 Dec 15:00 Berlin, 09:00 New York
    reply = mchat.say("/away 2026-12-03 2026-12-06")
    assert "Mock #1 falls in that time: it stays booked, without reminders to you" in reply
    printed = until(mchat, mclock, FRIDAY_15 - timedelta(minutes=5))
    assert reminded(printed, "alice") == []
    bobs = [m for m in dms(printed, to="bob") if m.card.title.startswith("Reminder")]
    assert [m.card.title for m in bobs] == [
        "Reminder: mock interview #1 in 24 hours",
        "Reminder: mock interview #1 in 1 hour",
    ]
    for message in bobs:  # the same reminder as ever: nothing about alice being away
        assert "away" not in message.text.lower() and message.attachments
        assert "alice" in message.text
    # every reminder was handled once: alice's are not kept to be sent after her return
    assert [(offset, sent) for offset, _due, sent, _c in reminders(mapp)] == [
        (1440, True),
        (1440, True),
        (60, True),
        (60, True),
    ]
    mchat.send("/advance 3d")  # she comes back on Monday: nothing late arrives
    assert reminded(mchat.messages, "alice") == []


def test_back_early_with_away_off_the_next_reminder_comes_again(
    mchat: Transcript, mclock: SimulatedClock
) -> None:
    scheduled_with_bob(mchat)
    mchat.say("/away 2026-12-03 2026-12-06")
    until(mchat, mclock, FRIDAY_15 - timedelta(hours=5))  # Thursday's 24 h one was muted
    assert reminded(mchat.messages, "alice") == []
    assert "Welcome back" in mchat.say("/away off")
    printed = until(mchat, mclock, FRIDAY_15 - timedelta(minutes=5))
    assert reminded(printed, "alice") == ["Reminder: mock interview #1 in 1 hour"]


def test_time_away_without_a_mock_in_it_says_nothing_about_mocks(
    mchat: Transcript, mock_bank: QuestionBank
) -> None:
    scheduled_with_bob(mchat)
    reply = mchat.say("/away 2026-12-07 2026-12-09")
    assert "Time away #1" in reply and "Mock" not in reply


# -- booking a mock on a day away -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/mock schedule 2026-12-03 15:00", "You are away on Thu 03 Dec 2026 (/away list)"),
        ("/mock schedule thu 15:00 with @bob", "You are away on Thu 03 Dec 2026"),
        ("/mock schedule 2026-12-08 15:00 with @bob", "bob is away on Tue 08 Dec 2026"),
        ("/mock reschedule 1 2026-12-03 16:00", "You are away on Thu 03 Dec 2026"),
    ],
)
def test_a_mock_on_a_day_away_is_flagged_first_and_nothing_is_booked(
    mchat: Transcript, mapp: App, line: str, says: str
) -> None:
    mchat.send("/mock schedule 2026-12-02 15:00")  # mock #1, before anyone is away
    mchat.say("/away 2026-12-03")
    mchat.send("/as bob")
    mchat.say("/away 2026-12-08")
    mchat.send("/as alice")
    before = row_counts(mapp), [(m.id, m.starts_at) for m in mocks(mapp)]
    reply = mchat.say(line)
    assert says in reply
    assert reply.endswith(f"{line} anyway")  # the way to book it all the same
    assert (row_counts(mapp), [(m.id, m.starts_at) for m in mocks(mapp)]) == before


def test_anyway_books_a_mock_on_a_day_away(mchat: Transcript, mapp: App) -> None:
    mchat.say("/away 2026-12-03")
    assert "is scheduled" in mchat.say("/mock schedule 2026-12-03 15:00 anyway")
    assert [m.starts_at.isoformat() for m in mocks(mapp)] == ["2026-12-03T14:00:00+00:00"]
    assert "is scheduled" in mchat.say("/mock schedule 2026-12-04 15:00")  # not away: no flag


def test_a_mock_nobody_answered_says_so_instead_of_a_no_hire(mchat: Transcript, mapp: App) -> None:
    mchat.say("/away 2026-12-03")
    mchat.send("/mock schedule 2026-12-03 15:00 anyway")
    mchat.send("/advance 3d")  # it runs on Thursday with nobody there
    (card,) = [m for m in dms(mchat.messages, "alice") if "mock #1" in m.card.title.lower()]
    assert card.card.title == "Mock #1 · loop · no answers"
    assert "none of the 5 rounds got an answer, so there is nothing to score" in card.text
    assert "hire" not in card.text.lower() and "strong no" not in card.text.lower()
    history = mchat.say("/mock history")
    assert "#1 · Thu 03 Dec 2026 15:00 CET · loop · solo · no answers" in history
    assert "hire" not in history.lower()
    assert "no answers" in mchat.say("/mock history 1")


def test_one_answered_round_is_scored_as_before(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule in 2 hours technical")
    mchat.send("/advance 2h")
    mchat.say(GOOD)
    mchat.send("/advance 1h")  # the other two rounds pass unanswered
    (card,) = [m for m in dms(mchat.messages, "alice") if m.card.title.startswith("Scorecard")]
    assert "Recommendation: No hire" in card.text  # two strong noes: a real signal


@pytest.mark.parametrize("how", ["/mock accept 1", "the Accept button"])
def test_accepting_a_mock_on_a_day_away_is_flagged_first_and_changes_nothing(
    mchat: Transcript, mapp: App, how: str
) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob")  # proposed to bob, who is not away yet
    mchat.send("/as bob")
    mchat.say("/away 2026-12-04")
    before = row_counts(mapp), [(m.status, m.interviewer_accepted_at) for m in mocks(mapp)]
    if how == "/mock accept 1":
        reply = mchat.say(how)
    else:
        reply = "\n".join(m.text for m in mapp.bot.handle(action_event("mock:1:accept", "bob")))
    assert "You are away on Fri 04 Dec 2026 (/away list)" in reply
    assert reply.endswith("/mock accept 1 anyway")
    assert (
        row_counts(mapp),
        [(m.status, m.interviewer_accepted_at) for m in mocks(mapp)],
    ) == before
    assert "You're in: mock #1." in mchat.say("/mock accept 1 anyway")
    assert [m.status for m in mocks(mapp)] == ["scheduled"]


def test_accepting_a_mock_on_a_day_the_proposer_is_away_names_them(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob")
    mchat.say("/away 2026-12-04")  # alice, after proposing it
    mchat.send("/as bob")
    assert "alice is away on Fri 04 Dec 2026" in mchat.say("/mock accept 1")

"""Peer pairing: weekly availability windows in each person's zone, a match on the
earliest overlap, new partners before repeat ones, and both people accepting."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.bootstrap import App
from bot.core.messages import Delivery
from tests.support import Transcript, row_counts
from tests.test_mock import dms, mapp, mchat, mclock, mock_bank, mocks, reminders

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with tests.test_mock


def _free(chat: Transcript, user: str, zone: str, window: str) -> None:
    chat.send(f"/as {user}")
    chat.send(f"/tz {zone}")
    chat.send(f"/mock available {window}")


def test_available_windows_are_kept_in_the_users_zone(mchat: Transcript) -> None:
    text = mchat.say("/mock available weekdays 18:00-20:00")
    assert "weekdays 18:00-20:00 (Europe/Berlin)" in text
    assert "sat 10:00-12:00 (Europe/Berlin)" in mchat.say("/mock available sat 10am-12pm")
    assert "Removed 2 windows" in mchat.say("/mock available clear")
    assert "no availability windows" in mchat.say("/mock available")


def test_pair_matches_overlapping_availability_across_zones_and_both_accept(
    mchat: Transcript, mapp: App
) -> None:
    _free(mchat, "bob", "America/New_York", "weekdays 12:00-14:00")  # 17:00-19:00 UTC
    _free(mchat, "carol", "Asia/Tokyo", "weekdays 09:00-10:00")  # 00:00-01:00 UTC: no overlap
    _free(mchat, "alice", "Europe/Berlin", "weekdays 18:00-20:00")  # 17:00-19:00 UTC
    before = len(mchat.messages)
    replies = mchat.send("/mock pair technical")
    (proposal,) = [m for m in replies if m.delivery is Delivery.PRIVATE]
    assert proposal.card.title == "Mock #1: paired with bob"
    assert "alice: Tue 01 Dec 2026 18:00 CET (Europe/Berlin)" in proposal.text
    assert "bob: Tue 01 Dec 2026 12:00 EST (America/New_York)" in proposal.text
    (invite,) = dms(mchat.messages[before:], "bob")
    assert [b.label for b in invite.card.buttons] == ["Accept", "Decline"]
    (row,) = mocks(mapp)
    assert (row.status, row.starts_at) == ("proposed", datetime(2026, 12, 1, 17, 0, tzinfo=UTC))
    assert reminders(mapp) == []  # nothing until both accept
    assert "on once bob accepts" in mchat.say("/mock accept 1")
    assert mocks(mapp)[0].status == "proposed"
    mchat.send("/as bob")
    assert "You're in: mock #1." in mchat.say("/mock accept 1")
    assert mocks(mapp)[0].status == "scheduled"
    # the 24 h reminder is already past: each gets the one an hour before
    assert [(o, due) for o, due, *_ in reminders(mapp)] == [
        (60, datetime(2026, 12, 1, 16, 0, tzinfo=UTC)),
        (60, datetime(2026, 12, 1, 16, 0, tzinfo=UTC)),
    ]


def test_pair_prefers_someone_new_over_a_repeat_partner(mchat: Transcript, mapp: App) -> None:
    _free(mchat, "bob", "America/New_York", "weekdays 12:00-14:00")
    _free(mchat, "dave", "America/New_York", "weekdays 12:00-14:00")
    _free(mchat, "alice", "Europe/Berlin", "weekdays 18:00-20:00")
    mchat.send("/mock schedule Mon 18:00 with @bob technical")  # alice has paired with bob
    text = mchat.say("/mock pair technical")
    assert "paired with dave" in text
    assert "paired 1 time" not in text


def test_pair_falls_back_to_a_repeat_partner_and_says_so(mchat: Transcript) -> None:
    _free(mchat, "bob", "America/New_York", "weekdays 12:00-14:00")
    _free(mchat, "alice", "Europe/Berlin", "weekdays 18:00-20:00")
    mchat.send("/mock schedule Mon 18:00 with @bob technical")
    text = mchat.say("/mock pair technical")
    assert "paired with bob" in text
    assert "you've paired 1 time before: nobody new is free" in text


def test_a_declined_proposal_tells_the_other_and_is_not_offered_again(
    mchat: Transcript, mapp: App
) -> None:
    _free(mchat, "bob", "America/New_York", "weekdays 12:00-14:00")
    _free(mchat, "alice", "Europe/Berlin", "weekdays 18:00-20:00")
    mchat.send("/mock pair")
    mchat.send("/as bob")
    assert "Declined mock #1." in mchat.say("/mock decline 1")
    (told,) = [m for m in dms(mchat.messages, "alice") if "declined" in m.card.title]
    assert "bob declined mock #1" in told.text
    assert mocks(mapp)[0].status == "declined"
    mchat.send("/as alice")
    before = row_counts(mapp)
    assert "Nobody's availability overlaps yours" in mchat.say("/mock pair")
    assert row_counts(mapp) == before


def test_a_proposal_nobody_accepts_expires_at_its_start(mchat: Transcript, mapp: App) -> None:
    _free(mchat, "bob", "America/New_York", "weekdays 12:00-14:00")
    _free(mchat, "alice", "Europe/Berlin", "weekdays 18:00-20:00")
    mchat.send("/mock pair behavioral")
    assert "waiting for an answer" in mchat.say("/mock pair")
    mchat.send("/advance 9h")
    assert mocks(mapp)[0].status == "expired"
    assert {m.to for m in dms(mchat.messages) if "expired" in m.card.title} == {"alice", "bob"}
    assert not [m for m in mchat.posts() if "round 1" in m.text]


def test_a_peer_who_declines_a_scheduled_mock_leaves_it_solo(mchat: Transcript, mapp: App) -> None:
    mchat.send("/mock schedule Fri 15:00 with @bob")
    mchat.send("/as bob")
    mchat.send("/mock decline 1")
    (told,) = [m for m in dms(mchat.messages, "alice") if "declined" in m.card.title]
    assert "it runs solo at the same time" in told.text
    (row,) = mocks(mapp)
    assert (row.status, row.interviewer_id) == ("scheduled", None)
    assert "No mocks coming up" in mchat.say("/mock list")  # bob is out of it


def test_pair_skips_the_days_a_person_is_away(mchat: Transcript, mapp: App) -> None:
    _free(mchat, "bob", "America/New_York", "weekdays 12:00-14:00")  # 17:00-19:00 UTC
    mchat.send("/away 2026-12-01 2026-12-03")  # bob: Tue to Thu, his own dates
    _free(mchat, "alice", "Europe/Berlin", "weekdays 18:00-20:00")
    text = mchat.say("/mock pair technical")
    assert "paired with bob" in text
    assert "bob: Fri 04 Dec 2026 12:00 EST (America/New_York)" in text  # his first day back
    (row,) = mocks(mapp)
    assert row.starts_at == datetime(2026, 12, 4, 17, 0, tzinfo=UTC)


def test_pair_finds_nobody_in_someone_away_for_the_whole_fortnight(mchat: Transcript) -> None:
    _free(mchat, "bob", "America/New_York", "weekdays 12:00-14:00")
    mchat.send("/away 2026-12-01 2026-12-20")
    _free(mchat, "alice", "Europe/Berlin", "weekdays 18:00-20:00")
    assert "paired with" not in mchat.say("/mock pair technical")

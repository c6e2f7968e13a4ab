"""Weekly pairing rounds in a channel: an admin turns them on, people opt in, each round
pairs those free at the same time (new pairs before repeats, nobody twice), both get a DM
with a proposed slot and its .ics, an odd one out is told and goes first next time, and a
day after the slot each is asked whether the mock happened."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.events import Event, EventKind
from bot.core.messages import Delivery
from bot.core.mock.rounds import plan_pairs
from bot.db.models import OutboxRow, PairingMatchRow, UserRow
from tests.support import Transcript, row_counts
from tests.test_mock import dms, make_app, mapp, mchat, mclock, mock_bank, mocks

__all__ = ["mapp", "mchat", "mclock", "mock_bank"]  # fixtures shared with tests.test_mock

# Seven people in five zones, all free 17:00-20:00 UTC on weekdays (their own local hours).
PEOPLE = {
    "alice": ("Europe/Berlin", "weekdays 18:00-21:00"),
    "bob": ("America/New_York", "weekdays 12:00-15:00"),
    "carol": ("Europe/London", "weekdays 17:00-20:00"),
    "dave": ("Europe/Lisbon", "weekdays 17:00-20:00"),
    "erin": ("Europe/Berlin", "weekdays 18:00-21:00"),
    "frank": ("America/New_York", "weekdays 12:00-15:00"),
    "gina": ("Asia/Tokyo", "tue-fri 02:00-05:00"),  # Mon–Thu 17:00-20:00 UTC
}


def _opt_in(chat: Transcript, user: str, zone: str, window: str) -> str:
    chat.send(f"/as {user}")
    chat.send(f"/tz {zone}")
    chat.send(f"/mock available {window}")
    return chat.say("/mock pairing join")


def _rounds(app: App) -> dict[datetime, list[tuple[str, str | None, str]]]:
    """Each round's rows: (person, partner or None, reason), by round instant."""
    with app.session_factory() as session:
        names = {i: n for i, n in session.execute(select(UserRow.id, UserRow.name))}
        rows = session.scalars(select(PairingMatchRow).order_by(PairingMatchRow.id)).all()
    out: dict[datetime, list[tuple[str, str | None, str]]] = defaultdict(list)
    for r in rows:
        partner = names[r.partner_id] if r.partner_id else None
        out[r.round_at].append((names[r.user_id], partner, r.reason))
    return dict(sorted(out.items()))


def test_a_month_of_weekly_rounds_pairs_everyone_once_a_week_and_never_repeats_a_pair(
    mchat: Transcript, mapp: App
) -> None:
    text = mchat.say("/studybot pairing on mon 09:00")
    assert "Pairing round on in #general: every Mon at 09:00 (UTC)" in text
    assert "first Mon 07 Dec 2026 09:00" in text
    for user, (zone, window) in PEOPLE.items():
        assert "You're in #general's pairing round" in _opt_in(mchat, user, zone, window)
    mchat.send("/as alice")
    assert "7 opted in, you among them" in mchat.say("/mock pairing status")
    before = len(mchat.messages)
    mchat.send("/advance 28d")  # Tue 1 Dec → Tue 29 Dec: rounds on 7, 14, 21 and 28 Dec
    sent = mchat.messages[before:]
    rounds = _rounds(mapp)
    assert list(rounds) == [datetime(2026, 12, d, 9, 0, tzinfo=UTC) for d in (7, 14, 21, 28)]
    seen: set[frozenset[str]] = set()
    left_out = []
    for rows in rounds.values():
        people = [p for p, _, _ in rows]
        assert sorted(people) == sorted(PEOPLE)  # everyone has exactly one place a round
        pairs = {frozenset((p, q)) for p, q, _ in rows if q is not None}
        assert len(pairs) == 3 and all(len(pair) == 2 for pair in pairs)
        for p, q, _ in rows:  # each pair is seen from both sides
            assert q is None or (q, p, "") in rows
        (alone,) = [(p, reason) for p, q, reason in rows if q is None]
        assert alone[1] == "odd"
        left_out.append(alone[0])
        assert not pairs & seen  # 21 possible pairs: a fresh one is always there
        seen |= pairs
    assert len(set(left_out)) == 4  # who sat out goes first the next rounds
    # the DMs: a proposed slot in both zones with the .ics, and the odd one out told why
    proposals = [m for m in dms(sent) if m.card.title.startswith("Pairing round · #general: ")]
    assert len(proposals) == 4 * 6
    first = next(m for m in proposals if m.to == "bob")
    assert [b.label for b in first.card.buttons] == ["Accept", "Decline"]
    assert first.attachments and first.attachments[0].filename.endswith(".ics")
    assert "bob: Mon 07 Dec 2026 12:00 EST (America/New_York)" in first.text
    odd = [m for m in dms(sent, left_out[0]) if "odd number of people" in m.text]
    assert len(odd) == 1 and "you go first next round" in odd[0].text
    posts = [m for m in sent if m.delivery is Delivery.CHANNEL and m.card.title == "Pairing round"]
    assert len(posts) == 4
    assert "3 pairs this week" in posts[0].text and "one sits out" in posts[0].text
    # a proposal is a mock to accept, like /mock pair's
    assert sum(1 for m in mocks(mapp) if m.status in ("proposed", "expired")) == 12
    # nobody accepted: the mocks expired, so no check-in asks; they are recorded as not held
    assert not [m for m in sent if m.card.title.endswith("happen?")]
    with mapp.session_factory() as session:
        held = session.execute(
            select(PairingMatchRow.round_at, PairingMatchRow.happened).where(
                PairingMatchRow.partner_id.is_not(None)
            )
        ).all()
    assert {(r, h) for r, h in held} == {
        *((datetime(2026, 12, d, 9, 0, tzinfo=UTC), False) for d in (7, 14, 21)),
        (datetime(2026, 12, 28, 9, 0, tzinfo=UTC), None),  # its check-in is still to come
    }


def test_a_check_in_a_day_after_the_slot_records_whether_the_mock_happened(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/studybot pairing on")
    for user in ("alice", "bob"):
        _opt_in(mchat, user, *PEOPLE[user])
    mchat.send("/advance 6d")  # Mon 7 Dec 09:00 UTC: the round; slot Mon 17:00 UTC
    (proposal,) = dms(mchat.messages, "alice")[-1:]
    mock_id = mocks(mapp)[0].id
    assert f"Mock #{mock_id}, you interview bob." in proposal.text  # bob's the candidate
    mchat.send("/as alice")
    assert "Accepted." in mchat.say(f"/mock accept {mock_id}")
    mchat.send("/as bob")
    assert f"You're in: mock #{mock_id}." in mchat.say(f"/mock accept {mock_id}")
    before = len(mchat.messages)
    mchat.send("/advance 1d")  # Tue 8 Dec 09:00: not yet a day after the slot
    assert not [m for m in mchat.messages[before:] if "happen?" in m.card.title]
    mchat.send("/advance 9h")  # Tue 18:00 UTC
    checkins = [m for m in mchat.messages[before:] if m.card.title.endswith("happen?")]
    assert sorted(m.to for m in checkins) == ["alice", "bob"]
    ask = next(m for m in checkins if m.to == "alice")
    assert ask.card.title == "Did your mock with bob happen?"
    assert [b.label for b in ask.card.buttons] == ["It happened", "It didn't"]
    alice_match = ask.card.buttons[0].action.split(":")[1]
    bob_match = next(m for m in checkins if m.to == "bob").card.buttons[1].action.split(":")[1]
    mchat.send("/as alice")
    assert "Noted: your mock with bob happened." in mchat.say(
        f"/mock pairing happened {alice_match} yes"
    )
    event = Event(
        EventKind.ACTION, "console", "console", "general", "bob", "bob",
        action=f"pairing:{bob_match}:no",
    )  # fmt: skip
    (reply,) = mapp.bot.handle(event)
    assert "Noted: it didn't happen with alice." in reply.text
    with mapp.session_factory() as session:
        answers = session.execute(
            select(PairingMatchRow.id, PairingMatchRow.happened).order_by(PairingMatchRow.id)
        ).all()
    assert {str(i): h for i, h in answers} == {alice_match: True, bob_match: False}
    mchat.send("/advance 7d")  # each check-in is asked once
    keys = [m.key for m in mchat.messages if m.card.title.endswith("happen?")]
    # the next round's proposal expired unaccepted: recorded, not asked
    assert sorted(keys) == sorted(
        [f"pairing:{alice_match}:checkin", f"pairing:{bob_match}:checkin"]
    )


def test_someone_free_when_nobody_else_is_is_told_and_who_left_is_not_paired(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/studybot pairing on wed 8am")
    for user in ("alice", "bob", "carol"):
        _opt_in(mchat, user, *PEOPLE[user])
    _opt_in(mchat, "hank", "Asia/Tokyo", "weekdays 09:00-10:00")  # 00:00 UTC: nobody else
    mchat.send("/as carol")
    assert "You left #general's pairing round." in mchat.say("/mock pairing leave")
    mchat.send("/advance 2d")  # Wed 2 Dec 08:00 UTC
    (rows,) = _rounds(mapp).values()
    assert sorted((p, q) for p, q, _ in rows) == [
        ("alice", "bob"),
        ("bob", "alice"),
        ("hank", None),
    ]
    assert ("hank", None, "no-overlap") in rows
    (told,) = [m for m in dms(mchat.messages, "hank") if "Nobody in this week's" in m.text]
    assert "/mock available" in told.text
    post = [m for m in mchat.messages if m.card.title == "Pairing round"][-1]
    assert "1 pair this week" in post.text and "1 shared no time with anyone" in post.text


def test_bad_pairing_input_gets_a_clear_reply_and_changes_nothing(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/mock available weekdays 18:00-20:00")
    before = row_counts(mapp)
    assert "#general has no pairing round yet" in mchat.say("/mock pairing join")
    assert "Usage: /mock pairing join|leave|status" in mchat.say("/mock pairing dance")
    assert "You're not in #general's pairing round." in mchat.say("/mock pairing leave")
    assert "no pairing check-in #999" in mchat.say("/mock pairing happened 999 yes")
    assert "no pairing check-in #x" in mchat.say("/mock pairing happened x yes")
    assert "Usage: /mock pairing happened ID yes|no." in mchat.say("/mock pairing happened 1")
    assert "'someday' is not a day of the week" in mchat.say("/studybot pairing on someday")
    assert "'funday' is not a day of the week" in mchat.say("/studybot pairing on funday 9am")
    assert "'25:00' is not a time of day" in mchat.say("/studybot pairing on 25:00")
    assert "no pairing round to turn off" in mchat.say("/studybot pairing off")
    assert "Usage: /studybot pairing" in mchat.say("/studybot pairing maybe")
    assert row_counts(mapp) == before
    mchat.send("/studybot pairing on")
    mchat.send("/mock pairing join")
    assert "already in #general's pairing round" in mchat.say("/mock pairing join")
    assert "Pairing round off in #general" in mchat.say("/studybot pairing off")
    before = len(mchat.messages)
    mchat.send("/advance 14d")
    assert _rounds(mapp) == {}  # off: no round
    assert not [m for m in mchat.messages[before:] if m.card.title == "Pairing round"]


def test_only_admins_turn_a_channels_round_on(mapp: App) -> None:
    event = Event(
        EventKind.COMMAND, "slack", "T1", "C1", "U1", command="studybot",
        args="pairing on", is_admin=False,
    )  # fmt: skip
    (reply,) = mapp.bot.handle(event)
    assert reply.text == "Only workspace admins can turn a channel's pairing round on or off."


def test_the_matching_makes_new_pairs_before_repeats_and_each_person_once() -> None:
    t = datetime(2026, 12, 7, 17, 0, tzinfo=UTC)
    everyone = [1, 2, 3, 4]
    slots = {frozenset(p): t for p in [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]}
    # 1-2 and 3-4 met before: 1-3/2-4 or 1-4/2-3 are new
    pairs, alone = plan_pairs(everyone, slots, {frozenset((1, 2)): 1, frozenset((3, 4)): 1})
    assert {frozenset(p) for p in pairs} in (
        {frozenset((1, 3)), frozenset((2, 4))},
        {frozenset((1, 4)), frozenset((2, 3))},
    )
    assert alone == []
    # only repeat pairs are possible: the least repeated one is made
    pairs, alone = plan_pairs(
        [1, 2, 3], {frozenset((1, 2)): t, frozenset((2, 3)): t}, {
            frozenset((1, 2)): 3, frozenset((2, 3)): 1}
    )  # fmt: skip
    assert [frozenset(p) for p in pairs] == [frozenset((2, 3))] and alone == [1]
    # who sat out last time goes first
    pairs, alone = plan_pairs([1, 2, 3], {frozenset(p): t for p in [(1, 2), (1, 3)]}, {}, {3: 1})
    assert [frozenset(p) for p in pairs] == [frozenset((1, 3))] and alone == [2]


@given(
    st.integers(0, 9).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.sets(st.tuples(st.integers(0, 8), st.integers(1, 9)), max_size=40),
            st.sets(st.tuples(st.integers(0, 8), st.integers(1, 9)), max_size=20),
            st.dictionaries(st.integers(0, 9), st.integers(0, 3), max_size=5),
        )
    )
)
def test_any_round_pairs_each_person_once_and_repeats_only_when_nobody_new_is_left(
    case: tuple[int, set[tuple[int, int]], set[tuple[int, int]], dict[int, int]],
) -> None:
    n, compatible, met, waited = case
    t = datetime(2026, 12, 7, 17, 0, tzinfo=UTC)
    people = list(range(n))
    slots = {frozenset((a, a + d)): t for a, d in compatible if a + d < n}
    history = {frozenset((a, a + d)): 1 for a, d in met if a + d < n}
    pairs, alone = plan_pairs(people, slots, history, waited)
    placed = [p for pair in pairs for p in pair] + alone
    assert sorted(placed) == people  # each person once: paired or left out
    assert all(frozenset(pair) in slots for pair in pairs)  # only people free together
    in_repeat = {p for pair in pairs if frozenset(pair) in history for p in pair}
    free_now = set(alone) | in_repeat
    for pair in pairs:
        if frozenset(pair) in history:  # a repeat: neither had a new partner still free
            for person in pair:
                assert not [
                    o
                    for o in free_now - {person}
                    if frozenset((person, o)) in slots and frozenset((person, o)) not in history
                ]
    for a in alone:  # nobody left out could have been paired with another left out
        assert not [b for b in alone if b != a and frozenset((a, b)) in slots]


async def test_two_workers_and_a_restart_run_a_round_once(
    db_url: str, mclock: SimulatedClock, mock_bank: QuestionBank
) -> None:
    first = make_app(db_url, mclock, mock_bank)
    chat = Transcript(first)
    await chat.session.start()
    for line in ("/studybot pairing on", "/mock pairing join"):
        await chat.session.handle_line(line)
    for user in ("alice", "bob", "carol", "dave"):
        for line in (f"/as {user}", f"/tz {PEOPLE[user][0]}", f"/mock available {PEOPLE[user][1]}"):
            await chat.session.handle_line(line)
        await chat.session.handle_line("/mock pairing join")
    await chat.session.stop()
    second = make_app(db_url, mclock, mock_bank)
    try:
        mclock.set(datetime(2026, 12, 7, 9, 0, tzinfo=UTC))  # the round
        await asyncio.gather(
            first.runner.run_due_and_deliver(), second.runner.run_due_and_deliver()
        )
        await first.stop()
        first.close()
        first = make_app(db_url, mclock, mock_bank)  # a restart just after
        mclock.set(datetime(2026, 12, 7, 9, 5, tzinfo=UTC))
        await asyncio.gather(
            first.runner.run_due_and_deliver(), second.runner.run_due_and_deliver()
        )
        made = mocks(second)
        with second.session_factory() as session:
            rows = session.scalars(select(PairingMatchRow.user_id)).all()
            keys = session.scalars(
                select(OutboxRow.key).where(OutboxRow.key.like("pairing%"))
            ).all()
    finally:
        for app in (first, second):
            await app.stop()
            app.close()
    assert len(made) == 2
    assert sorted(rows) == sorted(set(rows)) and len(rows) == 4
    assert len([k for k in keys if k.endswith(":proposal")]) == 4  # one DM each, once
    assert len([k for k in keys if k.startswith("pairing-round:")]) == 1  # one channel post


def test_the_only_one_in_a_round_is_told_so(mchat: Transcript, mapp: App) -> None:
    mchat.send("/studybot pairing on tue 10:00")
    mchat.send("/mock available weekdays 18:00-20:00")
    mchat.send("/mock pairing join")
    mchat.send("/advance 2h")  # Tue 1 Dec 10:00 UTC, today's round
    (told,) = [m for m in dms(mchat.messages, "alice") if m.card.title.startswith("Pairing")]
    assert "You're the only one in #general's pairing round this week" in told.text
    post = [m for m in mchat.messages if m.card.title == "Pairing round"][-1]
    assert "Only one person opted in, so nobody was paired." in post.text
    assert mocks(mapp) == []


def test_whoever_is_away_all_week_sits_the_round_out_without_a_dm(
    mchat: Transcript, mapp: App
) -> None:
    mchat.send("/studybot pairing on mon 09:00")
    for user in ("alice", "bob", "carol"):
        _opt_in(mchat, user, *PEOPLE[user])
    mchat.send("/as alice")
    mchat.send("/away 2026-12-05 2026-12-14")  # the whole week of the 7 Dec round
    mchat.send("/as bob")
    mchat.send("/away 2026-12-07")  # bob: only the Monday of it, his own date
    before = len(mchat.messages)
    mchat.send("/advance 6d")  # Mon 7 Dec 09:00 UTC: the round
    (rows,) = _rounds(mapp).values()
    assert sorted((p, q) for p, q, _ in rows) == [("bob", "carol"), ("carol", "bob")]
    assert not dms(mchat.messages[before:], "alice")  # no pair, no "nobody is free" DM
    (mock,) = mocks(mapp)
    assert mock.starts_at == datetime(2026, 12, 8, 17, 0, tzinfo=UTC)  # bob's Tuesday, not Monday
    post = [m for m in mchat.messages if m.card.title == "Pairing round"][-1]
    assert "1 pair this week" in post.text
    assert "1 person is away this week: back in the next round." in post.text


def test_a_round_with_everyone_away_pairs_nobody_and_says_why(mchat: Transcript, mapp: App) -> None:
    mchat.send("/studybot pairing on mon 09:00")
    for user in ("alice", "bob"):
        _opt_in(mchat, user, *PEOPLE[user])
        mchat.send("/away 2026-12-06 2026-12-15")
    mchat.send("/advance 6d")
    assert _rounds(mapp) == {}
    post = [m for m in mchat.messages if m.card.title == "Pairing round"][-1]
    assert "Everyone who opted in is away this week: back in the next round." in post.text

"""The ports' contracts, run against the in-memory fake (``tests/fakes.py``) and the SQL
repositories on SQLite and PostgreSQL: what the rule tests on the fake rely on is what the
database does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.core.away import AWAY
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.daily.schedule import DAILY, SCHEDULES, NewPrompt, Schedule
from bot.core.events import DELIVERIES
from bot.core.goal import GOALS
from bot.core.leaderboard import LEADERBOARD
from bot.core.messages import OUTBOX, Card, Delivery, Outgoing
from bot.core.model import (
    ACTORS,
    ATTEMPTS,
    CHANNELS,
    USERS,
    WORKSPACES,
    Actor,
    Attempt,
    Channel,
    DailyPrompt,
)
from bot.core.ports import UnitOfWork
from bot.core.seasons import SEASONS
from bot.core.srs import REVIEWS, ReviewCard
from bot.core.streaks import STREAKS, ChannelPost, DayMark, StreakState
from bot.core.teams import TEAMS
from bot.db.engine import make_engine, make_session_factory
from bot.db.questions import sync_questions
from bot.db.uow import SqlUnitOfWork
from tests.conftest import BACKENDS, START
from tests.fakes import FakeStore, FakeUnitOfWork


@dataclass
class Storage:
    """A way to open units of work on one store, and to post a daily question in it."""

    uow: Callable[[], UnitOfWork]
    post_daily: Callable[..., DailyPrompt]  # (channel, question id, posted_at, day=None)
    plan_daily: Callable[[Channel, datetime, str], None]  # a channel's next post, in a zone


@pytest.fixture(params=["fake", *BACKENDS])
def storage(
    request: pytest.FixtureRequest, clock: SimulatedClock, sample_bank: QuestionBank
) -> Iterator[Storage]:
    if request.param == "fake":
        store = FakeStore()

        def plan(channel: Channel, next_at: datetime, zone_name: str) -> None:
            store.schedules[channel.id] = (channel.workspace_id, next_at, False, zone_name)

        yield Storage(lambda: FakeUnitOfWork(store, clock), store.post_daily, plan)
        return
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    engine = make_engine(url)
    factory = make_session_factory(engine)
    with factory() as session:
        sync_questions(session, sample_bank, clock.now())
        session.commit()

    def post_daily(
        channel: Channel, question_id: str, posted_at: datetime, day: date | None = None
    ) -> DailyPrompt:
        with SqlUnitOfWork(factory, clock) as uow:
            new = NewPrompt(
                channel,
                question_id,
                day or posted_at.date(),
                posted_at,
                posted_at + timedelta(hours=8),
            )
            (prompt,) = uow[DAILY].add_prompts([new])
            uow.commit()
        return prompt

    def plan_daily(channel: Channel, next_at: datetime, zone_name: str) -> None:
        with SqlUnitOfWork(factory, clock) as uow:
            schedule = Schedule(channel.id, channel.workspace_id, timezone=zone_name)
            uow[SCHEDULES].save(replace(schedule, next_post_at=next_at))
            uow.commit()

    yield Storage(lambda: SqlUnitOfWork(factory, clock), post_daily, plan_daily)
    engine.dispose()


@pytest.fixture
def qid(sample_bank: QuestionBank) -> str:
    return sample_bank.all()[0].id


def attempt(user_id: int, workspace_id: int, qid: str, **extra: object) -> Attempt:
    values: dict[str, object] = {
        "user_id": user_id,
        "workspace_id": workspace_id,
        "question_id": qid,
        "answer": "an answer",
        "score": 1.0,
        "verdict": "correct",
        "feedback": "Right.",
        "grader_version": "test",
        "content_hash": "h",
        "answered_at": START,
    }
    values.update(extra)
    return Attempt(**values)  # type: ignore[arg-type]


def test_ensure_gives_the_same_records_in_later_units_of_work(storage: Storage) -> None:
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1", "Team one")
        user = uow[USERS].ensure(workspace, "U1")
        channel = uow[CHANNELS].ensure(workspace, "C1", "general")
        uow.commit()
    assert (workspace.timezone, user.name, user.timezone, user.nudges) == ("UTC", "U1", None, True)
    assert channel.name == "general" and channel.live_seconds is None
    with storage.uow() as uow:
        assert uow[WORKSPACES].ensure("console", "T1") == workspace
        named = uow[USERS].ensure(workspace, "U1", "Alice", "Europe/Berlin")
        assert (named.id, named.name, named.timezone) == (user.id, "Alice", "Europe/Berlin")
        # a zone once known is not replaced by the one a platform reports later
        assert uow[USERS].ensure(workspace, "U1", "", "Asia/Tokyo").timezone == "Europe/Berlin"
        assert uow[CHANNELS].ensure(workspace, "C1") == channel
        assert uow[USERS].find(workspace, "alice") == [named]
        assert uow[USERS].find(workspace, "u1") == [named]
        assert uow[USERS].get(workspace, user.id) == named
        uow.commit()


def test_an_events_actor_is_what_the_three_ensures_give(storage: Storage) -> None:
    with storage.uow() as uow:  # nothing known yet: all three are created
        first = uow[ACTORS].ensure("slack", "T1", "U1", "C1", "Ann", "Asia/Tokyo")
        uow.commit()
    assert (first.user.name, first.user.timezone, first.channel.name) == ("Ann", "Asia/Tokyo", "C1")
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("slack", "T1")
        assert first == Actor(
            workspace, uow[USERS].ensure(workspace, "U1"), uow[CHANNELS].ensure(workspace, "C1")
        )
        # all known: found as they are; a new name is kept, a known zone is not replaced
        again = uow[ACTORS].ensure("slack", "T1", "U1", "C1", "Annie", "Europe/Paris")
        assert again == replace(first, user=replace(first.user, name="Annie"))
        # a new user and a new channel of a known workspace
        other = uow[ACTORS].ensure("slack", "T1", "U2", "C2")
        assert other.workspace == workspace
        assert (other.user.external_id, other.user.name, other.user.timezone) == ("U2", "U2", None)
        assert other.user.id != first.user.id and other.channel.id != first.channel.id
        # the same platform ids in another workspace are other people and places
        elsewhere = uow[ACTORS].ensure("slack", "T2", "U1", "C1")
        assert elsewhere.workspace.id != workspace.id
        assert elsewhere.user.id not in (first.user.id, other.user.id)
        assert elsewhere.channel.id not in (first.channel.id, other.channel.id)
        uow.commit()
    with storage.uow() as uow:
        assert uow[ACTORS].ensure("slack", "T1", "U1", "C1") == again
        assert uow[ACTORS].ensure("slack", "T1", "U2", "C2") == other


def test_nothing_of_one_workspace_is_visible_in_another(storage: Storage, qid: str) -> None:
    with storage.uow() as uow:
        one = uow[WORKSPACES].ensure("slack", "T1")
        other = uow[WORKSPACES].ensure("slack", "T2")
        alice = uow[USERS].ensure(one, "U1", "alice")
        channel = uow[CHANNELS].ensure(one, "C1")
        uow[LEADERBOARD].add(one.id, alice.id, ["all"], 5, 1)
        uow.commit()
    with storage.uow() as uow:
        assert uow[USERS].get(other, alice.id) is None
        assert uow[USERS].find(other, "alice") == []
        assert uow[CHANNELS].get(other, channel.id) is None
        assert uow[LEADERBOARD].top(other, "all", 10) == []
        assert uow[LEADERBOARD].row(other, "all", alice) is None
        assert uow[LEADERBOARD].everyone(other, "all") == (0, 0)


def test_leaving_without_commit_keeps_nothing(storage: Storage) -> None:
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        uow.commit()
    with storage.uow() as uow:
        user = uow[USERS].ensure(workspace, "U1")
        uow[STREAKS].save(user, StreakState(current=3))
    with storage.uow() as uow:
        assert uow[USERS].find(workspace, "U1") == []


def test_a_second_scored_attempt_at_a_daily_prompt_is_kept_unscored(
    storage: Storage, qid: str
) -> None:
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        user = uow[USERS].ensure(workspace, "U1")
        channel = uow[CHANNELS].ensure(workspace, "C1")
        uow.commit()
    prompt = storage.post_daily(channel, qid, START)
    with storage.uow() as uow:
        first = uow[ATTEMPTS].add(
            attempt(user.id, workspace.id, qid, daily_prompt_id=prompt.id, scored=True, points=3)
        )
        second = uow[ATTEMPTS].add(
            attempt(user.id, workspace.id, qid, daily_prompt_id=prompt.id, scored=True, points=3)
        )
        practice = uow[ATTEMPTS].add(attempt(user.id, workspace.id, qid))
        uow.commit()
    assert (first.scored, first.points, first.feedback) == (True, 3, "Right.")
    assert (second.scored, second.points) == (False, 0)
    assert (practice.scored, practice.points, practice.daily_prompt_id) == (False, 0, None)
    assert len({first.id, second.id, practice.id}) == 3 and None not in {first.id, second.id}


def test_the_outbox_keeps_one_message_per_key(storage: Storage) -> None:
    message = Outgoing(Delivery.DM, "U1", Card(title="Hello"), key="k1")
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        assert uow[OUTBOX].add(workspace, "console", message, "k1", START)
        assert not uow[OUTBOX].add(workspace, "console", message, "k1", START)
        uow.commit()
    with storage.uow() as uow:
        assert not uow[OUTBOX].add(workspace, "console", message, "k1", START)
        assert uow[OUTBOX].add(workspace, "console", message, "k2", START)


def test_a_delivery_is_taken_once_and_only_by_a_unit_of_work_that_commits(
    storage: Storage,
) -> None:
    with storage.uow() as uow:
        assert uow[DELIVERIES].first("slack", "T1:trigger:1")
    with storage.uow() as uow:  # the first one rolled back: the key is free again
        assert uow[DELIVERIES].first("slack", "T1:trigger:1")
        assert not uow[DELIVERIES].first("slack", "T1:trigger:1")
        uow.commit()
    with storage.uow() as uow:
        assert not uow[DELIVERIES].first("slack", "T1:trigger:1")
        assert uow[DELIVERIES].first("discord", "T1:trigger:1")  # keys are per platform
        assert uow[DELIVERIES].first("slack", "T1:trigger:2")


def test_review_cards_are_saved_whole_and_listed_by_due_time(storage: Storage, qid: str) -> None:
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        user = uow[USERS].ensure(workspace, "U1")
        uow.commit()
    other_qid = "sample-mps-name" if qid != "sample-mps-name" else "sample-mig-max-instances"
    later = ReviewCard(
        user.id, workspace.id, qid, {"lapses": 1}, START + timedelta(days=2), START, 1
    )
    sooner = ReviewCard(user.id, workspace.id, other_qid, {}, START + timedelta(days=1), None, 0)
    with storage.uow() as uow:
        assert uow[REVIEWS].get(user, qid) is None and uow[REVIEWS].daily_limit(user) is None
        uow[REVIEWS].save(later)
        uow[REVIEWS].save(sooner)
        uow[REVIEWS].set_daily_limit(user, 12, START)
        uow.commit()
    buried = ReviewCard(
        user.id, workspace.id, qid, {"lapses": 2}, later.due_at, START, 2, True, True, START
    )
    with storage.uow() as uow:
        assert uow[REVIEWS].get(user, qid) == later
        assert uow[REVIEWS].for_user(workspace, user) == [sooner, later]
        assert uow[REVIEWS].daily_limit(user) == 12
        uow[REVIEWS].save(buried)
        uow.commit()
    with storage.uow() as uow:
        assert uow[REVIEWS].get(user, qid) == buried


def test_streaks_and_activity_days_add_up(storage: Storage) -> None:
    day = date(2026, 12, 1)
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        user = uow[USERS].ensure(workspace, "U1")
        assert uow[STREAKS].get(user) == StreakState()
        assert uow[STREAKS].first_day(user) is None
        assert uow[STREAKS].zone_of(user) == "UTC"
        state = StreakState(2, 5, 1, day, "Europe/Berlin", START)
        uow[STREAKS].save(user, state)
        uow[STREAKS].add_day(user, day)
        uow[STREAKS].add_day(user, day)
        uow[STREAKS].add_day(user, day - timedelta(days=2), answers=0, frozen=True)
        uow.commit()
    with storage.uow() as uow:
        assert uow[STREAKS].get(user) == state
        assert uow[STREAKS].next_nudge_at() == START
        uow[STREAKS].save(user, StreakState(3, 5, 1, day + timedelta(days=1), "UTC"))
        uow[STREAKS].save(user, StreakState(4, 5, 1, day + timedelta(days=2), "UTC"))
        assert uow[STREAKS].days(user, day - timedelta(days=5), day) == {
            day: DayMark(2, False),
            day - timedelta(days=2): DayMark(0, True),
        }
        assert uow[STREAKS].days(user, day + timedelta(days=1), day + timedelta(days=9)) == {}
        assert uow[STREAKS].first_day(user) == day - timedelta(days=2)
        assert uow[STREAKS].next_nudge_at() is None
        berlin = uow[USERS].set_timezone(user, "Europe/Berlin")
        assert uow[STREAKS].zone_of(berlin) == "Europe/Berlin"
        uow.commit()
    with storage.uow() as uow:
        assert uow[STREAKS].get(user).current == 4


def test_channel_posts_are_the_questions_of_the_channels_whose_daily_a_user_answered(
    storage: Storage, qid: str
) -> None:
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        alice = uow[USERS].ensure(workspace, "U1")
        bob = uow[USERS].ensure(workspace, "U2")
        mine = uow[CHANNELS].ensure(workspace, "C1")
        other = uow[CHANNELS].ensure(workspace, "C2")
        uow.commit()
    # Berlin's 08:00 on Wed 2 Dec is 07:00 UTC; Tokyo's 09:00 on Fri 4 Dec is 00:00 UTC
    wednesday = storage.post_daily(
        mine, qid, datetime(2026, 12, 2, 7, tzinfo=UTC), date(2026, 12, 2)
    )
    friday = datetime(2026, 12, 4, 0, tzinfo=UTC)
    storage.post_daily(mine, qid, friday, date(2026, 12, 4))
    storage.post_daily(other, qid, START + timedelta(days=4))
    storage.plan_daily(mine, datetime(2026, 12, 6, 23, tzinfo=UTC), "Asia/Tokyo")  # Mon 7 Dec
    with storage.uow() as uow:
        first_answer = START + timedelta(days=1)
        for when in (first_answer + timedelta(hours=2), first_answer):
            uow[ATTEMPTS].add(
                attempt(alice.id, workspace.id, qid, daily_prompt_id=wednesday.id, answered_at=when)
            )
        uow[ATTEMPTS].add(attempt(bob.id, workspace.id, qid))  # a quiz answer: no channel
        uow.commit()
    with storage.uow() as uow:
        posts = uow[STREAKS].channel_posts(alice, date(2026, 11, 30), date(2026, 12, 7))
        assert posts is not None
        assert sorted(posts, key=lambda p: p.day) == [
            ChannelPost(date(2026, 12, 2), datetime(2026, 12, 2, 7, tzinfo=UTC), first_answer),
            ChannelPost(date(2026, 12, 4), friday),
            ChannelPost(date(2026, 12, 7), datetime(2026, 12, 6, 23, tzinfo=UTC)),
        ]
        assert uow[STREAKS].channel_posts(alice, date(2026, 12, 3), date(2026, 12, 6)) == [
            ChannelPost(date(2026, 12, 4), friday)
        ]
        assert uow[STREAKS].channel_posts(bob, date(2026, 11, 30), date(2026, 12, 7)) is None


def test_away_periods_overlap_and_shrink(storage: Storage) -> None:
    d = date(2026, 12, 10)
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        user = uow[USERS].ensure(workspace, "U1")
        other = uow[USERS].ensure(workspace, "U2")
        late = uow[AWAY].add(user, d + timedelta(days=10), d + timedelta(days=12), START)
        early = uow[AWAY].add(user, d, d + timedelta(days=3), START)
        uow.commit()
    with storage.uow() as uow:
        assert [p.id for p in uow[AWAY].periods(user, d)] == [early.id, late.id]
        assert uow[AWAY].periods(user, d + timedelta(days=4)) == [late]
        assert uow[AWAY].ranges(user, d + timedelta(days=3), d + timedelta(days=9)) == [
            (d, d + timedelta(days=3))
        ]
        assert uow[AWAY].ranges(other, d, d + timedelta(days=30)) == []
        assert not uow[AWAY].delete(other, early.id)
        uow[AWAY].set_last(user, early.id, d + timedelta(days=1))
        assert uow[AWAY].delete(user, late.id)
        uow.commit()
    with storage.uow() as uow:
        assert uow[AWAY].ranges(user, d, d + timedelta(days=30)) == [(d, d + timedelta(days=1))]


def test_one_interview_goal_per_user(storage: Storage) -> None:
    d = date(2027, 1, 15)
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        user = uow[USERS].ensure(workspace, "U1")
        assert uow[GOALS].get(user) is None and not uow[GOALS].clear(user)
        uow[GOALS].set(user, d, "eng", START)
        uow[GOALS].mark_suggested(user, START)
        uow.commit()
    with storage.uow() as uow:
        goal = uow[GOALS].get(user)
        assert goal is not None and (goal.day, goal.format, goal.mock_suggested_at) == (
            d,
            "eng",
            START,
        )
        uow[GOALS].set(user, d + timedelta(days=1), "pm", START)  # replaces, unsuggested
        uow.commit()
    with storage.uow() as uow:
        goal = uow[GOALS].get(user)
        assert goal is not None and (goal.day, goal.format, goal.mock_suggested_at) == (
            d + timedelta(days=1),
            "pm",
            None,
        )
        assert uow[GOALS].clear(user) and uow[GOALS].get(user) is None


def test_boards_rank_people_with_points_and_teams_by_their_active_members(
    storage: Storage,
) -> None:
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        alice, bob, carol, dan = (
            uow[USERS].ensure(workspace, f"U{i}", n)
            for i, n in enumerate(["alice", "bob", "carol", "dan"])
        )
        board = uow[LEADERBOARD]
        board.add(workspace.id, alice.id, ["w", "all"], 5, 1)
        board.add(workspace.id, alice.id, ["w", "all"], 3, 1)
        board.add(workspace.id, bob.id, ["w"], 8, 1)
        board.add(workspace.id, carol.id, ["w"], 2, 1)
        board.add(workspace.id, dan.id, ["w"], 0, 1)  # active, without points
        gang = uow[TEAMS].create(workspace, "GPU Gang", "gpu gang", alice)
        assert gang is not None and gang.members == 1
        assert uow[TEAMS].create(workspace, "gpu gang", "gpu gang", bob) is None
        assert uow[TEAMS].join(gang, dan, START) and not uow[TEAMS].join(gang, dan, START)
        quiet = uow[TEAMS].create(workspace, "Quiet", "quiet", carol)
        assert quiet is not None
        uow.commit()
    with storage.uow() as uow:
        board = uow[LEADERBOARD]
        top = board.top(workspace, "w", 10)
        assert sorted((r.points, r.name, r.answers) for r in top) == [
            (2, "carol", 1),
            (8, "alice", 2),
            (8, "bob", 1),
        ]
        assert sorted(r.name for r in board.top(workspace, "w", 1)) == ["bob"]  # ties: newer id
        assert [r.name for r in board.top(workspace, "w", 10, gang.id)] == ["alice"]
        row = board.row(workspace, "w", dan)
        assert row is not None and (row.points, row.answers) == (0, 1)
        assert board.row(workspace, "none", alice) is None
        assert board.count_above(workspace, "w", 2) == 2
        assert board.count(workspace, "w") == 3 and board.count(workspace, "w", gang.id) == 1
        assert board.everyone(workspace, "w") == (18, 4)
        assert sorted(
            (t.name, t.members, t.active, t.points) for t in board.teams(workspace, "w")
        ) == [("GPU Gang", 2, 2, 8), ("Quiet", 1, 1, 2)]
        assert [t.name for t in uow[TEAMS].of_user(workspace, dan)] == ["GPU Gang"]
        assert [(t.name, t.members) for t in uow[TEAMS].all(workspace)] == [
            ("GPU Gang", 2),
            ("Quiet", 1),
        ]
        assert uow[TEAMS].workspace_members(workspace) == 4
        assert uow[TEAMS].leave(quiet, carol) and not uow[TEAMS].leave(quiet, carol)
        assert uow[TEAMS].find(workspace, "quiet") is None  # an empty team is gone
        found = uow[TEAMS].find(workspace, "gpu gang")
        assert found is not None and found.members == 2


def test_seasons_are_named_once_and_take_a_months_points(storage: Storage) -> None:
    end = START + timedelta(days=30)
    with storage.uow() as uow:
        workspace = uow[WORKSPACES].ensure("console", "T1")
        user = uow[USERS].ensure(workspace, "U1")
        assert uow[SEASONS].latest(workspace) is None
        uow[LEADERBOARD].add(workspace.id, user.id, ["m:2026-12"], 4, 2)
        season, created = uow[SEASONS].add(workspace, "2026-12", START, end, "month")
        again, created_again = uow[SEASONS].add(workspace, "2026-12", START, end, "month")
        assert created and not created_again and again == season
        uow[SEASONS].copy_points(workspace, "m:2026-12", season.key)
        uow[SEASONS].copy_points(workspace, "m:2026-12", season.key)  # rows there stay
        uow.commit()
    with storage.uow() as uow:
        assert uow[SEASONS].latest(workspace) == season
        assert uow[SEASONS].containing(workspace, START + timedelta(days=3)) == season
        assert uow[SEASONS].containing(workspace, end) is None
        assert uow[SEASONS].named(workspace, "2026-12") == season
        row = uow[LEADERBOARD].row(workspace, season.key, user)
        assert row is not None and (row.points, row.answers) == (4, 2)
        longer = uow[SEASONS].change(season, ends_at=end + timedelta(days=7), next_length="week")
        assert (longer.ends_at, longer.next_length) == (end + timedelta(days=7), "week")
        nxt, _ = uow[SEASONS].add(
            workspace, "2027-01", longer.ends_at, end + timedelta(days=40), "month"
        )
        assert uow[SEASONS].listing(workspace, 5) == [nxt, longer]
        assert uow[SEASONS].latest(workspace) == nxt

"""The rules of ``bot.core.answers.record_answer`` and the streak and board rules it
drives, on the in-memory unit of work (``tests/fakes.py``): what each kind of answer
stores, earns and moves. ``tests/test_answers.py`` drives the same rules end to end through
the app on SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.core import leaderboard
from bot.core.answers import AnswerKind, AnswerTo, NotAnAnswer, record_answer
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import Question
from bot.core.grading import Grade, Verdict
from bot.core.model import Channel
from bot.core.srs import LEECH_LAPSES
from bot.core.streaks import FREEZE_EVERY, StreakState
from bot.core.teams import TEAMS
from tests.conftest import START
from tests.fakes import FakeWorld

RIGHT = Grade(1.0, Verdict.CORRECT, "Right.")
WRONG = Grade(0.0, Verdict.INCORRECT, "Not quite.")
NO_ANSWER = Grade(0.0, Verdict.INCORRECT, "Name one of the choices.", answered=False)


@pytest.fixture
def world(clock: SimulatedClock, sample_bank: QuestionBank) -> FakeWorld:
    return FakeWorld(clock, sample_bank)


@pytest.fixture
def question(sample_bank: QuestionBank) -> Question:
    return sample_bank.all()[0]


def answer(world: FakeWorld, to: AnswerTo, grade: Grade = RIGHT, user: str = "alice") -> None:
    with world.acting(user) as ctx:
        record_answer(ctx, "my answer", grade, to, ctx.now)


def board(world: FakeWorld, period: str = "all") -> dict[str, tuple[int, int]]:
    """user external id → (points, answers) on ``period``'s board."""
    s = world.store
    return {
        s.users[u].external_id: (p, a) for (u, key), (_, p, a) in s.points.items() if key == period
    }


def daily_prompt(world: FakeWorld, question: Question) -> int:
    with world.acting() as ctx:
        channel = ctx.channel
    return world.store.post_daily(channel, question.id, START).id


@pytest.mark.parametrize(
    ("kind", "grade", "points", "board_row", "reviewed"),
    [
        (AnswerKind.DAILY, RIGHT, 3, (3, 1), False),
        (AnswerKind.DAILY, WRONG, 0, None, False),
        (AnswerKind.QUIZ, RIGHT, 0, None, True),
        (AnswerKind.QUIZ, WRONG, 0, None, True),
        (AnswerKind.LIVE, WRONG, 0, None, True),  # a wrong live answer is no board activity
        (AnswerKind.LIVE, RIGHT, 12, (12, 1), True),  # the winner
        (AnswerKind.MOCK, RIGHT, 0, None, True),
    ],
)
def test_every_real_answer_is_an_attempt_and_a_streak_day_and_only_points_are_board_activity(
    world: FakeWorld,
    question: Question,
    kind: AnswerKind,
    grade: Grade,
    points: int,
    board_row: tuple[int, int] | None,
    reviewed: bool,
) -> None:
    prompt_id = daily_prompt(world, question) if kind is AnswerKind.DAILY else None
    scored = kind is AnswerKind.DAILY
    to = AnswerTo(kind, question, daily_prompt_id=prompt_id, scored=scored, points=points)
    answer(world, to, grade)
    (attempt,) = world.store.attempts.values()
    assert (attempt.question_id, attempt.verdict, attempt.points) == (
        question.id,
        grade.verdict.value,
        points,
    )
    assert attempt.scored is scored and attempt.daily_prompt_id == prompt_id
    (streak,) = (state for _, state in world.store.streaks.values())
    assert (streak.current, streak.last_day) == (1, START.date())
    assert board(world).get("alice") == board_row
    assert bool(world.store.reviews) is reviewed


def test_the_scored_points_land_on_the_week_month_all_time_and_season_boards(
    world: FakeWorld, question: Question
) -> None:
    answer(world, AnswerTo(AnswerKind.LIVE, question, points=5))
    keys = {key for _, key in world.store.points}
    (season,) = world.store.seasons.values()
    assert keys == {"w:2026-W49", "m:2026-12", "all", season.key}
    assert season.starts_at <= START < season.ends_at


def test_a_second_scored_answer_to_a_daily_is_practice_and_changes_no_board(
    world: FakeWorld, question: Question
) -> None:
    prompt_id = daily_prompt(world, question)
    to = AnswerTo(AnswerKind.DAILY, question, daily_prompt_id=prompt_id, scored=True, points=3)
    answer(world, to)
    answer(world, to)
    first, second = world.store.attempts.values()
    assert (first.scored, first.points, second.scored, second.points) == (True, 3, False, 0)
    assert board(world) == {"alice": (3, 1)}
    (streak,) = (state for _, state in world.store.streaks.values())
    assert streak.current == 1
    ((_, mark),) = world.store.days.values()
    assert mark.answers == 2


def test_no_answer_records_nothing_and_says_the_hint(world: FakeWorld, question: Question) -> None:
    with world.acting():
        pass
    before = world.store.commits
    with pytest.raises(NotAnAnswer, match="Name one of the choices"):
        answer(world, AnswerTo(AnswerKind.QUIZ, question), NO_ANSWER)
    assert world.store.commits == before
    assert not world.store.attempts and not world.store.streaks and not world.store.reviews


@pytest.mark.parametrize(
    ("to", "reason"),
    [
        ({"kind": AnswerKind.QUIZ, "scored": True}, "only a daily prompt's answer is scored"),
        ({"kind": AnswerKind.MOCK, "points": 3}, "mock answers earn no points"),
        ({"kind": AnswerKind.QUIZ, "points": 3}, "quiz answers earn no points"),
        ({"kind": AnswerKind.DAILY, "points": 3}, "a practice answer to a daily prompt"),
    ],
)
def test_an_answer_cannot_earn_what_its_kind_does_not_and_nothing_is_stored(
    world: FakeWorld, question: Question, to: dict[str, object], reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        answer(world, AnswerTo(question=question, **to))  # type: ignore[arg-type]
    assert not world.store.attempts and not world.store.points


@pytest.mark.parametrize("kind", [AnswerKind.QUIZ, AnswerKind.LIVE])
def test_the_answer_that_makes_a_leech_suspends_it_and_tells_the_user_once(
    world: FakeWorld, clock: SimulatedClock, question: Question, kind: AnswerKind
) -> None:
    leeches = []
    for _ in range(LEECH_LAPSES + 1):
        with world.acting() as ctx:
            leeches.append(record_answer(ctx, "no", WRONG, AnswerTo(kind, question), ctx.now))
        clock.advance(timedelta(days=1))
    assert [r.new_leech for r in leeches] == [False] * (LEECH_LAPSES - 1) + [True, False]
    (card,) = world.store.reviews.values()
    assert card.suspended and card.leech
    dms = [m for m in world.store.outbox.values() if m.key.startswith("leech:")]
    # a quiz says it in its grade reply; a live answer by DM, once
    assert len(dms) == (0 if kind is AnswerKind.QUIZ else 1)


def test_a_quiz_only_user_is_due_every_day_and_a_missed_day_spends_a_freeze(
    world: FakeWorld, clock: SimulatedClock, question: Question
) -> None:
    for _ in range(FREEZE_EVERY):
        answer(world, AnswerTo(AnswerKind.QUIZ, question))
        clock.advance(timedelta(days=1))
    clock.advance(timedelta(days=1))  # a day without an answer
    answer(world, AnswerTo(AnswerKind.QUIZ, question))
    (state,) = (s for _, s in world.store.streaks.values())
    assert (state.current, state.freezes) == (FREEZE_EVERY + 1, 0)
    frozen = [day for (_, day), (_, mark) in world.store.days.items() if mark.frozen]
    assert frozen == [START.date() + timedelta(days=FREEZE_EVERY)]


def test_a_day_without_a_daily_in_the_users_channel_is_not_missed(
    world: FakeWorld, clock: SimulatedClock, question: Question
) -> None:
    prompt = daily_prompt(world, question)
    to = AnswerTo(AnswerKind.DAILY, question, daily_prompt_id=prompt, scored=True, points=1)
    answer(world, to)
    clock.advance(timedelta(days=3))  # no daily was posted in between: nothing was due
    answer(world, AnswerTo(AnswerKind.QUIZ, question))
    (state,) = (s for _, s in world.store.streaks.values())
    assert (state.current, state.freezes) == (2, 0)


def test_a_due_day_missed_without_a_freeze_ends_the_streak(
    world: FakeWorld, clock: SimulatedClock, question: Question
) -> None:
    prompt = daily_prompt(world, question)
    with world.acting() as ctx:
        channel: Channel = ctx.channel
    answer(world, AnswerTo(AnswerKind.DAILY, question, daily_prompt_id=prompt, scored=True))
    world.store.post_daily(channel, question.id, START + timedelta(days=1))  # missed
    clock.advance(timedelta(days=2))
    answer(world, AnswerTo(AnswerKind.QUIZ, question))
    (state,) = (s for _, s in world.store.streaks.values())
    assert (state.current, state.longest) == (1, 1)


def test_away_days_are_never_due(
    world: FakeWorld, clock: SimulatedClock, question: Question
) -> None:
    from bot.core.away import AWAY

    answer(world, AnswerTo(AnswerKind.QUIZ, question))
    with world.acting() as ctx:
        ctx.uow[AWAY].add(ctx.user, date(2026, 12, 2), date(2026, 12, 6), ctx.now)
    clock.advance(timedelta(days=6))  # Dec 7: five days away in between
    answer(world, AnswerTo(AnswerKind.QUIZ, question))
    (state,) = (s for _, s in world.store.streaks.values())
    assert state == StreakState(2, 2, 0, date(2026, 12, 7), "UTC", state.nudge_at)


# -- the boards, as the people on them see them (the SQL of the boards: test_leaderboard) ---


def score(world: FakeWorld, user: str, points: int, when: datetime | None = None) -> None:
    with world.acting(user) as ctx:
        leaderboard.record(ctx.uow, ctx.workspace, ctx.user.id, points, when or ctx.now)


def say(world: FakeWorld, user: str, args: str = "") -> list[str]:
    """The board's title and text blocks, as ``user`` sees them after ``/leaderboard args``."""
    with world.acting(user) as ctx:
        (message,) = leaderboard.leaderboard_command(ctx, args)
    assert message.card is not None
    return [message.card.title, *message.card.blocks]


def test_ties_share_a_rank(world: FakeWorld) -> None:
    for user, pts in [("ann", 30), ("bea", 20), ("cat", 20), ("dan", 10)]:
        score(world, user, pts)
    assert say(world, "ann")[1].splitlines() == [
        "1. ann · 30 pts  ← you",
        "2. bea · 20 pts",
        "2. cat · 20 pts",
        "4. dan · 10 pts",
    ]


def test_your_own_rank_shows_even_outside_the_top_ten(world: FakeWorld) -> None:
    for i in range(14):
        score(world, f"u{i:02d}", 100 - 5 * i if i < 12 else 5)  # u12, u13 tie
    text = "\n".join(say(world, "u13", "week"))
    assert text.count(" pts") == 11  # ten rows and your own line
    assert "You: #13 of 14 · 5 pts" in text


def test_someone_without_points_is_told_so(world: FakeWorld) -> None:
    score(world, "ann", 10)
    assert "You have no points here yet." in say(world, "zed")


def test_a_team_board_ranks_only_its_members(world: FakeWorld) -> None:
    for user, pts in [("ann", 10), ("bea", 50), ("cat", 20)]:
        score(world, user, pts)
    with world.acting("ann") as ctx:
        team = ctx.uow[TEAMS].create(ctx.workspace, "GPU Gang", "gpu gang", ctx.user)
    with world.acting("cat") as ctx:
        assert team is not None and ctx.uow[TEAMS].join(team, ctx.user, ctx.now)
    title, text, *_ = say(world, "bea", "week team gpu gang")
    assert "team GPU Gang" in title
    assert text.splitlines() == ["1. cat · 20 pts", "2. ann · 10 pts"]


def test_teams_are_ranked_by_points_per_active_member(world: FakeWorld) -> None:
    teams = {}
    for founder, name in (("a1", "Big"), ("b1", "Small")):
        with world.acting(founder) as ctx:
            teams[name] = ctx.uow[TEAMS].create(ctx.workspace, name, name.lower(), ctx.user)
    for user, name in (("a2", "Big"), ("a3", "Big"), ("b2", "Small")):
        with world.acting(user) as ctx:
            ctx.uow[TEAMS].join(teams[name], ctx.user, ctx.now)  # type: ignore[arg-type]
    for user, pts in [("a1", 30), ("a2", 30), ("a3", 0), ("b1", 25)]:
        score(world, user, pts)
    assert say(world, "b1", "teams")[1].splitlines() == [
        "1. Small · 25.0 per active member · 25 pts · 1 of 2 active  ← yours",
        "2. Big · 20.0 per active member · 60 pts · 3 of 3 active",
    ]


def test_points_land_in_the_local_week_not_the_utc_one(
    world: FakeWorld, clock: SimulatedClock
) -> None:
    with world.acting("ann") as ctx:
        workspace = ctx.workspace
    # no command sets a workspace's zone: an operator writes it
    world.store.workspaces[workspace.id] = replace(workspace, timezone="America/Los_Angeles")
    score(world, "ann", 10, datetime(2026, 12, 7, 7, 30, tzinfo=UTC))  # Sunday night in LA
    score(world, "bea", 20, datetime(2026, 12, 7, 8, 30, tzinfo=UTC))  # Monday in LA
    clock.set(datetime(2026, 12, 7, 9, 0, tzinfo=UTC))
    title, *blocks = say(world, "ann", "week")
    assert "2026-W50" in title
    assert blocks[:2] == ["1. bea · 20 pts", "You have no points here yet."]
    month = "\n".join(say(world, "ann", "month"))
    assert "1. bea · 20 pts" in month and "2. ann · 10 pts" in month

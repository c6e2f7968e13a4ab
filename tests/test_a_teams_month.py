"""A team's first month on a simulated clock: a Mon–Fri channel, three people in three
zones, a week away, a skipped holiday, a restart, two workers sharing one database, and
the bot down for a whole day. At the end: the streaks, the board, and every message sent
exactly once."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import func, select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.events import Event, EventKind
from bot.core.messages import Delivery, Outgoing
from bot.db.models import ActivityDayRow, AttemptRow, DailyPromptRow, StreakRow, UserRow
from tests.test_streak_schedule import RIGHT

ZONES = {"alice": "Europe/Berlin", "bob": "America/New_York", "carol": "Asia/Tokyo"}
# When each answers, UTC hour (the post is 09:00 Berlin, 08:00 UTC; each answers before
# their own 19:00 nudge): alice 11:00 Berlin, bob 10:00 New York, carol 18:00 Tokyo.
ANSWER_AT = {"carol": 9, "alice": 10, "bob": 15}
AWAY = (date(2026, 12, 14), date(2026, 12, 18))  # bob
CAROL_MISSES = date(2026, 12, 9)
HOLIDAY = date(2026, 12, 25)  # skipped by an admin
DOWN = date(2026, 12, 22)  # the bot is down all day (UTC)
RESTART = date(2026, 12, 12)  # a Saturday: from then on, two workers


class Recorder:
    """A console notifier that keeps what it sent (one per worker)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sent: list[Outgoing] = []

    async def send(self, message: Outgoing) -> str | None:
        self.sent.append(message)
        return f"{self.name}-{len(self.sent)}"


def command(user: str, name: str, args: str = "", *, admin: bool = False) -> Event:
    return Event(
        EventKind.COMMAND,
        "console",
        "console",
        "general",
        user,
        user,
        command=name,
        args=args,
        is_admin=admin,
    )


class Team:
    def __init__(self, db_url: str, clock: SimulatedClock, bank: QuestionBank) -> None:
        self.db_url, self.clock, self.bank = db_url, clock, bank
        self.recorders: list[Recorder] = []
        self.workers: list[App] = []
        self.start_workers(1)

    def start_workers(self, n: int) -> None:
        for _ in range(n):
            recorder = Recorder(f"w{len(self.recorders)}")
            app = bootstrap(
                Settings(studybot_database_url=self.db_url),
                clock=self.clock,
                bank=self.bank,
                notifiers={"console": recorder},
                auto_migrate=True,
            )
            self.recorders.append(recorder)
            self.workers.append(app)

    async def restart(self, n: int) -> None:
        for app in self.workers:
            await app.stop()
            app.close()
        self.workers = []
        self.start_workers(n)

    async def say(self, event: Event) -> str:
        replies = await self.workers[0].handle(event)
        return "\n".join(m.text for m in replies)

    async def run_until(self, until: datetime, *, down: bool = False) -> None:
        """Move the clock to ``until``, every worker running what falls due at each due
        instant on the way, side by side (unless the bot is down)."""
        for _ in range(10_000):
            if down:
                break
            due = [w.runner.next_due() for w in self.workers]
            when = min((d for d in due if d is not None), default=None)
            if when is None or when > until:
                break
            self.clock.set(max(when, self.clock.now()))
            await asyncio.gather(*(w.runner.run_due_and_deliver() for w in self.workers))
            if all(w.runner.next_due() == when for w in self.workers):
                break
        self.clock.set(until)
        if not down:
            await asyncio.gather(*(w.runner.run_due_and_deliver() for w in self.workers))

    async def answer_today(self, user: str) -> str:
        with self.workers[0].session_factory() as session:
            question_id = session.scalars(
                select(DailyPromptRow.question_id).order_by(DailyPromptRow.local_date.desc())
            ).first()
        assert question_id is not None
        return await self.say(command(user, "answer", RIGHT[question_id]))

    def sent(self) -> list[Outgoing]:
        return [m for r in self.recorders for m in r.sent]


def answers_on(user: str, day: date) -> bool:
    if day.weekday() >= 5 or day in (HOLIDAY, DOWN):
        return False
    if user == "bob" and AWAY[0] <= day <= AWAY[1]:
        return False
    return not (user == "carol" and day == CAROL_MISSES)


@pytest.mark.slow
async def test_a_teams_first_month(db_url: str, sample_bank: QuestionBank) -> None:
    start = datetime(2026, 12, 1, 8, 30, tzinfo=UTC)  # Tuesday
    clock = SimulatedClock(start)
    team = Team(db_url, clock, sample_bank)
    for user, zone_name in ZONES.items():
        await team.say(command(user, "tz", zone_name))
    # alice asks first: the channel gets the default schedule, 09:00 Berlin on weekdays
    await team.say(command("alice", "daily"))
    skip = await team.say(command("alice", "studybot", "schedule skip 2026-12-25", admin=True))
    assert "25" in skip
    away_reply = ""
    streak_while_away = ""

    day = start.date()
    while day <= date(2026, 12, 31):
        midnight = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
        if day == RESTART:
            await team.run_until(midnight)
            await team.restart(2)
        if day == DOWN:  # nothing runs and nobody can reach the bot all day
            await team.run_until(midnight)
            await team.run_until(midnight + timedelta(days=1), down=True)
            day += timedelta(days=1)
            continue
        for user, hour in sorted(ANSWER_AT.items(), key=lambda item: item[1]):
            await team.run_until(max(midnight + timedelta(hours=hour), clock.now()))
            if answers_on(user, day):
                reply = await team.answer_today(user)
                assert "Correct" in reply, (user, day, reply)
        if day == date(2026, 12, 10):
            away_reply = await team.say(command("bob", "away", "2026-12-14 to 2026-12-18"))
        if day == date(2026, 12, 16):
            streak_while_away = await team.say(command("bob", "streak"))
        day += timedelta(days=1)
    await team.run_until(datetime(2026, 12, 31, 23, 0, tzinfo=UTC))

    assert "Time away #1: Mon 14 Dec 2026 to Fri 18 Dec 2026, 5 days" in away_reply
    assert "✈ Away until Fri 18 Dec 2026" in streak_while_away
    assert "9-day streak" in streak_while_away  # Dec 1–11, before the week away

    # -- what was posted: every weekday but the holiday and the day the bot was down, once
    weekdays = [date(2026, 12, d) for d in range(1, 32) if date(2026, 12, d).weekday() < 5]
    posted_days = [d for d in weekdays if d not in (HOLIDAY, DOWN)]
    sent = team.sent()
    keys = Counter(m.key for m in sent)
    assert [k for k, n in keys.items() if n > 1] == []  # no message twice, two workers or not
    posts = [m.card.title for m in sent if m.delivery is Delivery.CHANNEL]
    daily_posts = sorted(t for t in posts if t.startswith("Daily question ·"))
    assert daily_posts == [f"Daily question · {d.isoformat()}" for d in posted_days]
    reveals = [m for m in sent if m.delivery is Delivery.UPDATE]
    assert len(reveals) == len(posted_days)
    assert {m.ref for m in reveals} == {m.ref for m in reveals if m.ref}  # each in place
    with team.workers[0].session_factory() as session:
        prompts = list(session.scalars(select(DailyPromptRow).order_by(DailyPromptRow.local_date)))
        assert [p.local_date for p in prompts] == posted_days
        assert all(p.revealed_at is not None for p in prompts)
        # the two later workers both sent some of it: the work was shared, not doubled
        assert all(r.sent for r in team.recorders[1:])

        # -- nudges: only carol, on the one due day she missed; none at weekends, on the
        # holiday, on the day the bot was down, or to bob while he was away
        dms = [(m.to, m.key) for m in sent if m.delivery is Delivery.DM]
        assert [to for to, _ in dms] == ["carol"]
        assert dms[0][1] is not None and dms[0][1].endswith(CAROL_MISSES.isoformat())

        # -- streaks: only due days count; the week away and the day down cost nothing
        rows = session.execute(
            select(UserRow.external_id, StreakRow.current, StreakRow.longest, StreakRow.freezes)
            .join(StreakRow, StreakRow.user_id == UserRow.id)
            .order_by(UserRow.external_id)
        ).all()
        frozen = session.scalar(
            select(func.count()).select_from(ActivityDayRow).where(ActivityDayRow.frozen)
        )
        points = dict(
            session.execute(
                select(UserRow.external_id, func.sum(AttemptRow.points))
                .join(AttemptRow, AttemptRow.user_id == UserRow.id)
                .group_by(UserRow.external_id)
            ).all()
        )
    answered = {u: [d for d in posted_days if answers_on(u, d)] for u in ZONES}
    after_miss = [d for d in answered["carol"] if d > CAROL_MISSES]
    assert [tuple(r) for r in rows] == [
        ("alice", len(answered["alice"]), len(answered["alice"]), 2),
        ("bob", len(answered["bob"]), len(answered["bob"]), 2),
        ("carol", len(after_miss), len(after_miss), 2),
    ]
    assert frozen == 0  # no freeze was ever spent
    assert (len(answered["alice"]), len(answered["bob"]), len(after_miss)) == (21, 16, 14)

    # -- the board: 10 × difficulty for each right daily answer, all of December
    difficulty = {p.local_date: sample_bank.get(p.question_id).difficulty for p in prompts}  # type: ignore[union-attr]
    expected = {u: sum(10 * difficulty[d] for d in days) for u, days in answered.items()}
    assert points == expected
    board = await team.say(command("alice", "leaderboard", "month"))
    for user, total in expected.items():
        assert user in board and str(total) in board
    order = sorted(expected, key=lambda u: -expected[u])
    assert [board.index(u) for u in order] == sorted(board.index(u) for u in order)
    for app in team.workers:
        await app.stop()
        app.close()

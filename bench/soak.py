"""A soak: the bot run for N simulated days against a faulty fake platform, then its invariants.

A workspace with several channels (each its own zone and schedule, one Mon–Fri, one every
day, one skipping a holiday) and many users in several zones answer the daily questions at
random times, right or wrong, some of them every day; some go away for a week. Answers reach
a random one of the workers (a load balancer), some twice with the same delivery id (a
platform's retry, which the adapters' ``first_delivery`` turns away on any worker). The
platform fails some sends (a 500, or a 429 with Retry-After); on some days all workers
restart, on some a worker is killed in the middle of a delivery pass (its batch is left
claimed, as after ``kill -9``), and one day the bot is down from midnight to midnight.

Then it checks what a team would check:
- one daily post per channel per day it posted, and no message sent twice except the ones
  in flight when a worker was killed (``repeated_after_kill``, reported and bounded);
- every answer the bot graded in its reply is stored once, and at most one scored answer per
  person and post; points on the boards are exactly the scored answers' points;
- streaks: for the people who answered every day their channel posted, the streak is the
  number of those days; for everyone, the streak is at most their active days;
- no outbox message is left pending once its time has passed, or claimed by a dead worker.

Prints one JSON object and exits 1 if an invariant does not hold. Run:
``make soak`` or ``.venv/bin/python bench/soak.py [--days 30] [--users 40] [--seed 1]
[--db URL]`` (default: a new SQLite file).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from bot.bootstrap import App, bootstrap  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.core.bank import QuestionBank  # noqa: E402
from bot.core.clock import SimulatedClock  # noqa: E402
from bot.core.content import Question  # noqa: E402
from bot.core.events import Event, EventKind  # noqa: E402
from bot.core.messages import Delivery, Outgoing  # noqa: E402
from bot.db.models import (  # noqa: E402
    ActivityDayRow,
    AttemptRow,
    ChannelRow,
    DailyPromptRow,
    OutboxRow,
    PointsBucketRow,
    StreakRow,
    UserRow,
)
from bot.delivery import RetryLater  # noqa: E402

CHANNELS = {
    # channel: (zone, schedule arguments)
    "infra": ("Europe/Berlin", "09:00 Europe/Berlin weekdays"),
    "ml-platform": ("America/New_York", "08:30 America/New_York every day"),
    "gpu-club": ("Asia/Tokyo", "10:00 Asia/Tokyo mon,wed,fri"),
}
VERDICTS = ("✅", "🟡", "❌")
PASS_TIMEOUT = 60.0  # real seconds a worker's pass may take before it counts as hung


class FlakyPlatform:
    """One worker's view of the platform: it sends, fails some sends, and its worker can die
    in the middle of a delivery pass (``kill_after`` more sends, then nothing ever again)."""

    def __init__(self, name: str, rng: random.Random, fault_rate: float) -> None:
        self.name, self.rng, self.fault_rate = name, rng, fault_rate
        self.sent: list[Outgoing] = []
        self.faults = 0
        self.kill_after: int | None = None
        self.armed_at = 0  # how much it had sent when its kill was armed
        self.dead = False

    async def send(self, message: Outgoing) -> str | None:
        if self.kill_after is not None and self.kill_after <= 0:
            self.dead = True
        if self.dead:  # the process is gone: its sends in flight never finish
            raise asyncio.CancelledError
        if self.kill_after is not None:
            self.kill_after -= 1
        roll = self.rng.random()
        if roll < self.fault_rate / 2:
            self.faults += 1
            raise RetryLater(self.rng.choice((1.0, 30.0)))
        if roll < self.fault_rate:
            self.faults += 1
            raise ConnectionError("the platform answered 500")
        self.sent.append(message)
        return f"{self.name}-{len(self.sent)}"


@dataclass
class Worker:
    app: App
    platform: FlakyPlatform


@dataclass
class Person:
    name: str
    zone: str
    channels: tuple[str, ...]
    diligent: bool  # answers every day each of their channels posts, right
    away: tuple[date, date] | None = None
    answered_days: set[tuple[str, date]] = field(default_factory=set)


def right_answer(question: Question) -> str:
    if question.kind in ("choice", "multi"):
        return ", ".join(question.correct)
    if question.kind == "numeric":
        return f"{question.value:g} {question.unit}".strip()
    if question.kind == "short":
        return question.accepted[0]
    return question.model_answer or "; ".join(p.point for p in question.rubric)


def wrong_answer(question: Question) -> str:
    if question.kind in ("choice", "multi"):
        return next(c for c in question.choices if c not in question.correct)
    if question.kind == "numeric" and question.value is not None:
        return f"{question.value * 10 + 3:g} {question.unit}".strip()
    return "It depends on the driver version, mostly."


class Soak:
    def __init__(self, args: argparse.Namespace, db_url: str) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.db_url = db_url
        self.start = datetime(2026, 12, 1, 0, 0, tzinfo=UTC)
        self.clock = SimulatedClock(self.start)
        self.bank = QuestionBank.load()
        self.platforms: list[FlakyPlatform] = []  # every worker's that ever ran
        self.workers: list[Worker] = []  # the live ones
        self.figures: Counter[str] = Counter()
        self.killed_sends: set[str | None] = set()  # keys a killed worker had sent
        self.graded: Counter[tuple[str, str]] = Counter()  # (user, channel) graded replies
        self.delivery_ids = 0
        self.people = self._people()
        self.down_day = self.start.date() + timedelta(days=self.rng.randrange(5, args.days - 2))
        self.end_day = self.start.date() + timedelta(days=args.days)  # the first day not run

    def _people(self) -> list[Person]:
        people: list[Person] = []
        names = list(CHANNELS)
        for n in range(self.args.users):
            home = names[n % len(names)]
            channels = (home,) if n % 4 else (home, names[(n + 1) % len(names)])
            diligent = n % 5 == 0 and len(channels) == 1
            zone = (
                CHANNELS[home][0]
                if diligent
                else self.rng.choice([z for z, _ in CHANNELS.values()] + ["UTC", "Asia/Kolkata"])
            )
            away = None
            if not diligent and n % 7 == 3:
                first = self.start.date() + timedelta(days=self.rng.randrange(3, 15))
                away = (first, first + timedelta(days=6))
            people.append(Person(f"user{n:03d}", zone, channels, diligent, away))
        return people

    # -- the workers ---------------------------------------------------------------------

    def start_workers(self) -> None:
        """Start workers until there are ``--workers`` of them."""
        while len(self.workers) < self.args.workers:
            # Each worker's platform has a generator of its own: how many sends the background
            # delivery makes when depends on real time, and must not shift the plan's draws.
            faults = random.Random(f"{self.args.seed}:{len(self.platforms)}")
            platform = FlakyPlatform(f"w{len(self.platforms)}", faults, self.args.fault_rate)
            app = bootstrap(
                Settings(studybot_database_url=self.db_url),
                clock=self.clock,
                bank=self.bank,
                notifiers={"console": platform},
                auto_migrate=True,
            )
            self.platforms.append(platform)
            self.workers.append(Worker(app, platform))

    async def restart_workers(self) -> None:
        """Every worker stops as on SIGTERM, and new ones start."""
        for worker in self.workers:
            await worker.app.stop()
            worker.app.close()
        self.workers = []
        self.figures["restarts"] += 1
        self.start_workers()

    def arm_a_kill(self) -> None:
        """One worker dies after a few more sends (0 to 3), in whatever pass they fall."""
        platform = self.rng.choice(self.workers).platform
        platform.kill_after = self.rng.randrange(0, 4)
        platform.armed_at = len(platform.sent)

    def bury_the_dead(self) -> None:
        """Replace each worker whose process died: no stop, no cleanup; its claimed batch
        stays claimed until the lease runs out, as after ``kill -9``."""
        for worker in [w for w in self.workers if w.platform.dead]:
            self.figures["kills"] += 1
            self.killed_sends.update(
                m.key for m in worker.platform.sent[worker.platform.armed_at :]
            )
            worker.app.runner.deliverer.cancel()
            worker.app.engine.dispose()
            self.workers.remove(worker)
        self.start_workers()

    async def run_until(self, until: datetime, *, down: bool = False) -> None:
        """Move the clock to ``until``, the workers running what falls due on the way."""
        if down:
            self.clock.set(until)
            return
        for _ in range(100_000):
            due = [w.app.runner.next_due() for w in self.workers]
            when = min((d for d in due if d is not None), default=None)
            if when is None or when > until:
                break
            self.clock.set(max(when, self.clock.now()))
            await self.run_passes()
            if all(w.app.runner.next_due() == when for w in self.workers):
                break
        self.clock.set(until)
        await self.run_passes()

    async def run_passes(self) -> None:
        """Every worker runs what is due and delivers, side by side; a worker that died on
        the way is replaced."""
        passes = {
            asyncio.ensure_future(w.app.runner.run_due_and_deliver()): w for w in self.workers
        }
        started, pending = time.monotonic(), set(passes)
        while pending:  # a dead worker's pass may wait for its own dead delivery task
            _done, pending = await asyncio.wait(pending, timeout=0.2)
            for task in [t for t in pending if passes[t].platform.dead]:
                task.cancel()
            if pending and time.monotonic() - started > PASS_TIMEOUT:
                names = ", ".join(passes[t].platform.name for t in pending)
                raise TimeoutError(f"worker {names} hung in a delivery pass")
        for task, worker in passes.items():
            if not worker.platform.dead and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        self.bury_the_dead()

    # -- people --------------------------------------------------------------------------

    def event(self, person: Person, channel: str, command: str, args: str = "") -> Event:
        return Event(
            EventKind.COMMAND,
            "console",
            "console",
            channel,
            person.name,
            person.name,
            command=command,
            args=args,
            is_admin=True,
        )

    async def say(self, event: Event, delivery_id: str | None = None) -> str | None:
        """One event through a random worker, as an adapter hands it over (None: a retry
        that a worker turned away)."""
        self.bury_the_dead()
        app = self.rng.choice(self.workers).app
        if delivery_id is not None and not await app.first_delivery("console", delivery_id):
            self.figures["retries_turned_away"] += 1
            return None
        replies = await app.handle(event)
        return "\n".join(m.text for m in replies)

    def open_prompts(self) -> dict[str, tuple[date, str]]:
        """Each channel's prompt of its local today that is not revealed yet: its day and
        question."""
        now = self.clock.now()
        with self.workers[0].app.session_factory() as session:
            rows = session.execute(
                select(
                    ChannelRow.external_id, DailyPromptRow.local_date, DailyPromptRow.question_id
                )
                .join(ChannelRow, ChannelRow.id == DailyPromptRow.channel_id)
                .where(DailyPromptRow.revealed_at.is_(None))
            ).all()
        return {
            channel: (day, question_id)
            for channel, day, question_id in rows
            if channel in CHANNELS and day == now.astimezone(ZoneInfo(CHANNELS[channel][0])).date()
        }

    async def answer(self, person: Person, channel: str, day: date, question_id: str) -> None:
        again = (channel, day) in person.answered_days
        if again and (person.diligent or self.rng.random() > 0.02):
            return  # (now and then someone answers again: a practice answer)
        if not person.diligent and not again and self.rng.random() > 0.3:
            return  # not this look
        question = self.bank.get(question_id)
        assert question is not None
        right = person.diligent or self.rng.random() < 0.6
        text = right_answer(question) if right else wrong_answer(question)
        self.delivery_ids += 1
        delivery_id = f"answer-{self.delivery_ids}"
        times = 2 if self.rng.random() < 0.1 else 1  # the platform retries the delivery
        for _ in range(times):
            reply = await self.say(self.event(person, channel, "answer", text), delivery_id)
            if reply is None:
                continue
            self.figures["answers_acknowledged"] += 1
            if reply.startswith(VERDICTS):
                self.graded[(person.name, channel)] += 1
                person.answered_days.add((channel, day))
            else:
                self.figures["answers_not_graded"] += 1

    # -- the month -----------------------------------------------------------------------

    async def run(self) -> dict[str, object]:
        started = time.perf_counter()
        self.start_workers()
        first = self.people[0]
        for person in self.people:
            await self.say(self.event(person, person.channels[0], "tz", person.zone))
        for channel, (_zone, schedule) in CHANNELS.items():
            await self.say(self.event(first, channel, "studybot", f"schedule {schedule}"))
        holiday = self.start.date() + timedelta(days=24)
        await self.say(self.event(first, "infra", "studybot", f"schedule skip {holiday}"))
        for person in self.people:
            if person.away:
                await self.say(
                    self.event(
                        person, person.channels[0], "away", f"{person.away[0]} to {person.away[1]}"
                    )
                )
        down_day = self.down_day
        for offset in range(self.args.days):
            day = self.start.date() + timedelta(days=offset)
            midnight = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
            await self.run_until(midnight)
            if day == down_day:
                await self.run_until(midnight + timedelta(days=1), down=True)
                self.figures["days_down"] += 1
                continue
            roll = self.rng.random()
            if offset in self.args.kill_on:
                self.arm_a_kill()
            elif offset in self.args.restart_on or roll < self.args.restart_rate:
                await self.restart_workers()
            elif roll < self.args.restart_rate + self.args.kill_rate:
                self.arm_a_kill()
            # Everyone looks in once an hour; the diligent answer the first time they can,
            # the others on 7 days in 10, at a random look.
            looking = [
                (person, channel)
                for person in self.people
                if not (person.away and person.away[0] <= day <= person.away[1])
                for channel in person.channels
                if person.diligent or self.rng.random() < 0.7
            ]
            for hour in range(24):
                await self.run_until(
                    max(midnight + timedelta(hours=hour, minutes=30), self.clock.now())
                )
                open_now = self.open_prompts()
                for person, channel in self.rng.sample(looking, len(looking)):
                    if channel in open_now:
                        await self.answer(person, channel, *open_now[channel])
        end = self.start + timedelta(days=self.args.days + 1)
        await self.run_until(end)
        summary = self.check(down_day)
        for worker in self.workers:
            await worker.app.stop()
            worker.app.close()
        summary["seconds"] = round(time.perf_counter() - started, 1)
        return summary

    # -- the invariants ------------------------------------------------------------------

    def check(self, down_day: date) -> dict[str, object]:
        problems: list[str] = []
        sent = [m for p in self.platforms for m in p.sent]
        keys = Counter(m.key for m in sent if m.key)
        repeated = {k: n for k, n in keys.items() if n > 1}
        after_kill = {k for k in repeated if k in self.killed_sends}
        if set(repeated) - after_kill:
            problems.append(f"sent twice without a kill: {sorted(set(repeated) - after_kill)[:5]}")
        with self.workers[0].app.session_factory() as session:
            prompts = session.execute(
                select(ChannelRow.external_id, DailyPromptRow.local_date).join(
                    ChannelRow, ChannelRow.id == DailyPromptRow.channel_id
                )
            ).all()
            per_day = Counter((c, d) for c, d in prompts)
            if any(n > 1 for n in per_day.values()):
                problems.append("a channel has two daily posts on one day")
            posts = Counter(
                (m.to, m.card.title)
                for m in sent
                if m.delivery is Delivery.CHANNEL and m.card.title.startswith("Daily question ·")
            )
            if len(posts) != len(per_day):
                problems.append(f"{len(per_day)} daily prompts but {len(posts)} posts went out")
            if any(d == down_day for _c, d in prompts):
                problems.append("a question was posted on the day the bot was down")
            names = dict(session.execute(select(UserRow.id, UserRow.external_id)).all())
            channels = dict(session.execute(select(ChannelRow.id, ChannelRow.external_id)).all())
            attempts = Counter(
                (names[u], channels[c])
                for u, c in session.execute(
                    select(AttemptRow.user_id, DailyPromptRow.channel_id).join(
                        DailyPromptRow, DailyPromptRow.id == AttemptRow.daily_prompt_id
                    )
                ).all()
            )
            if attempts != self.graded:
                problems.append(
                    f"graded replies and stored answers differ for "
                    f"{len(set(attempts.items()) ^ set(self.graded.items()))} user-channel pairs"
                )
            scored = session.execute(
                select(AttemptRow.user_id, AttemptRow.scored_prompt_id, func.count())
                .where(AttemptRow.scored_prompt_id.is_not(None))
                .group_by(AttemptRow.user_id, AttemptRow.scored_prompt_id)
                .having(func.count() > 1)
            ).all()
            if scored:
                problems.append(f"{len(scored)} people scored twice on one post")
            points = session.scalar(select(func.coalesce(func.sum(AttemptRow.points), 0)))
            board = session.scalar(
                select(func.coalesce(func.sum(PointsBucketRow.points), 0)).where(
                    PointsBucketRow.period == "all"
                )
            )
            if points != board:
                problems.append(f"answers earned {points} points but the board holds {board}")
            streaks = {
                names[u]: (current, longest)
                for u, current, longest in session.execute(
                    select(StreakRow.user_id, StreakRow.current, StreakRow.longest)
                ).all()
            }
            active = Counter(
                names[u] for (u,) in session.execute(select(ActivityDayRow.user_id)).all()
            )
            for person in self.people:
                current, longest = streaks.get(person.name, (0, 0))
                if current > active[person.name] or longest < current:
                    problems.append(
                        f"{person.name}: streak {current} with {active[person.name]} days"
                    )
                if person.diligent:
                    (channel,) = person.channels
                    posted = {d for c, d in prompts if c == channel and d < self.end_day}
                    answered = {d for c, d in person.answered_days if c == channel}
                    if answered != posted:
                        missing = sorted(posted - answered)[:3]
                        problems.append(f"{person.name} (diligent) missed posts on {missing}")
                    elif current != len(answered):
                        problems.append(
                            f"{person.name} answered all {len(answered)} posts; streak {current}"
                        )
            now = self.clock.now()
            stuck = session.scalar(
                select(func.count())
                .select_from(OutboxRow)
                .where(OutboxRow.status == "pending", OutboxRow.next_attempt_at < now)
            )
            if stuck:
                problems.append(f"{stuck} outbox messages are overdue and still pending")
            failed = session.scalar(
                select(func.count()).select_from(OutboxRow).where(OutboxRow.status == "failed")
            )
        return {
            "days": self.args.days,
            "users": len(self.people),
            "channels": len(CHANNELS),
            "workers": self.args.workers,
            "seed": self.args.seed,
            "daily_posts": len(per_day),
            "messages_sent": len(sent),
            "platform_faults": sum(p.faults for p in self.platforms),
            "answers_graded": sum(self.graded.values()),
            **dict(sorted(self.figures.items())),
            "repeated_after_kill": len(after_kill),
            "outbox_dropped": failed,
            "diligent_users": sum(p.diligent for p in self.people),
            "invariants_hold": not problems,
            "problems": problems,
        }


def _days(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fault-rate", type=float, default=0.05)
    parser.add_argument("--restart-rate", type=float, default=0.1, help="days all restart")
    parser.add_argument("--kill-rate", type=float, default=0.1, help="days a worker is killed")
    parser.add_argument("--kill-on", type=_days, default=(), help="also on these days: 2,5")
    parser.add_argument("--restart-on", type=_days, default=(), help="also on these days")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="SQLAlchemy URL of an empty database (default: SQLite)")
    args = parser.parse_args(argv)
    if args.days < 8:
        parser.error("--days must be at least 8 (a week and the day the bot is down)")
    return args


def main() -> int:
    args = arguments()
    logging.basicConfig(level=logging.CRITICAL)
    with tempfile.TemporaryDirectory(prefix="studybot-soak-") as tmp:
        url = args.db or f"sqlite:///{tmp}/soak.db"
        summary = asyncio.run(Soak(args, url).run())
    print(json.dumps(summary, indent=2))
    return 0 if summary["invariants_hold"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Mock interviews: how long reading WHEN, a /mock command and a pairing search take.

Prints one JSON object. Runs on a temporary SQLite database with a simulated clock.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bot.bootstrap import bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.events import Event, EventKind
from bot.core.mock.times import parse_when

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PHRASES = ["tomorrow 3pm", "Fri 15:00", "2026-12-04 15:00", "next monday 9am", "in 2 hours"]
ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC"]


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 2),
    }


def bench_parse() -> dict[str, float]:
    parse_when("tomorrow 3pm", "UTC", NOW)  # dateparser loads its English data once
    samples = []
    for i in range(400):
        started = time.perf_counter()
        parse_when(PHRASES[i % len(PHRASES)], ZONES[i % len(ZONES)], NOW)
        samples.append(time.perf_counter() - started)
    return _ms(samples)


def _command(user: str, args: str, tz: str = "Europe/Berlin") -> Event:
    return Event(
        EventKind.COMMAND, "console", "console", "general", user, user_name=user,
        command="mock", args=args, user_tz=tz,
    )  # fmt: skip


def bench_commands(people: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        clock = SimulatedClock(NOW)
        app = bootstrap(
            Settings(studybot_database_url=f"sqlite:///{Path(tmp) / 'bench.db'}"),
            clock=clock,
            bank=QuestionBank.load(),
            auto_migrate=True,
        )
        try:
            for i in range(people):
                tz = ZONES[i % len(ZONES)]
                app.bot.handle(_command(f"u{i}", "available weekdays 09:00-21:00", tz))
            schedule = []
            for i in range(50):
                started = time.perf_counter()
                app.bot.handle(_command(f"s{i}", "schedule Fri 15:00"))
                schedule.append(time.perf_counter() - started)
            app.bot.handle(_command("me", "available weekdays 18:00-20:00"))
            started = time.perf_counter()
            replies = app.bot.handle(_command("me", "pair"))
            pair_seconds = time.perf_counter() - started
            clock.set(datetime(2026, 12, 4, 13, 59, tzinfo=UTC))
            started = time.perf_counter()
            done = asyncio.run(app.runner.run_due_and_deliver())
            clock.set(datetime(2026, 12, 4, 14, 0, tzinfo=UTC))
            done += asyncio.run(app.runner.run_due_and_deliver())
            start_seconds = time.perf_counter() - started
        finally:
            app.close()
    return {
        "schedule": _ms(schedule),
        "pair_people_with_windows": people,
        "pair_ms": round(pair_seconds * 1000, 1),
        "pair_found": "paired with" in replies[0].text,
        "start_50_mocks_and_their_reminders_ms": round(start_seconds * 1000, 1),
        "due_items_run": done,
    }


if __name__ == "__main__":
    print(json.dumps({"parse_when": bench_parse(), **bench_commands(200)}))

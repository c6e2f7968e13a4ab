"""A user's reply while a daily fan-out is being delivered, against the same reply with none.

What runs, on 127.0.0.1: the real ``studybot run`` (Slack in HTTP mode, SQLite, and
PostgreSQL when ``STUDYBOT_TEST_POSTGRES_URL`` is set) as a subprocess, its Web API pointed
at the suite's fake Slack in this process. Nothing is replaced: the fan-out is the
scheduler's own (``DailyPostJob`` on its 5-second wake-up), delivered by the outbox through
the real ``SlackNotifier`` (Block Kit, slack-sdk) at the workspace's pace (20 posts a second),
beside the web server that takes the user's requests.

1. ``/daily`` opens the question of the bench channel (the clicks answer it).
2. **floor**: ``--samples`` rounds of a signed ``/help`` then a signed click on the daily
   question's first choice, each from a new user, one at a time, with nothing else going on.
3. ``--channels`` channels of the same workspace, each with a schedule due now, are written to
   the database; within 5 s the scheduler posts all of them and delivery sends them.
4. **during**: the same rounds from then until every channel's post has arrived at the fake;
   ``during_fan_out`` counts the replies sent between the first fan-out post's arrival and the
   last one's (delivery under way), ``from_due_to_delivered`` every one sent after the
   channels fell due (the scheduler's posting job included).
5. the floor's rounds again once the fan-out is over: ``floor`` is both floor phases together
   (before and after, so that the machine's load drifting over the run moves both sides).

A reply's time is from sending the request to the user's private message
(``chat.postEphemeral``) arriving at the fake: ack, the core, the database and the Web API
call, as the user sees it. Figures: p50/p99 of each, per phase, and ``p99_ratio_to_floor``.
Checks: every reply is the right one (the help card, a grade), every channel got exactly one
post, and the fan-out's duration against its floor (channels / 20 per second).

Run: ``.venv/bin/python bench/reply_during_fanout.py [--channels 1000] [--samples 150]``.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import aiohttp  # noqa: E402
from answer_path import (  # noqa: E402
    CHANNEL,
    VERDICT_MARKS,
    chosen_backends,
    click_body,
    cpu_seconds,
    free_port,
    machine,
    migrate,
    ms,
    percentile,
    postgres_database,
    say,
)
from memory import ReplyingSlack, read_until  # noqa: E402

from bot.adapters.slack.sender import WORKSPACE_PER_SECOND  # noqa: E402
from tests.adapters.slack.payloads import SECRET, TEAM, signed_headers, slash  # noqa: E402
from tests.support import seed_channels  # noqa: E402

STUDYBOT = str(Path(sys.executable).with_name("studybot"))
HELP_TITLE = "studybot commands"


def bot_env(db_url: str, slack: ReplyingSlack, port: int) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TZ")}
    return {
        **keep,
        "STUDYBOT_DATABASE_URL": db_url,
        "STUDYBOT_HTTP_PORT": str(port),
        "STUDYBOT_LOG_LEVEL": "INFO",  # uvicorn's start line is how the bench knows it is up
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": SECRET,
        "STUDYBOT_SLACK_API_URL": slack.api_url,
    }


class Rounds:
    """Rounds of a /help then a click, each from a new user, one request at a time."""

    def __init__(self, session: aiohttp.ClientSession, url: str, slack: ReplyingSlack, value: str):
        self.session, self.url, self.slack, self.value = session, url, slack, value
        self.users = iter(range(10**9))
        self.errors: dict[str, int] = {}

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    async def one(self, what: str) -> tuple[float, float] | None:
        """Send one request; (when it was sent, seconds until its reply), or None."""
        user = f"WR{next(self.users):07d}"
        hook = self.slack.hook_url()
        if what == "help":
            body = slash("/help", user=user, channel=CHANNEL, response_url=hook)
        else:
            body = click_body(self.value, user, hook)
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.slack.waiting[user] = future
        sent = time.perf_counter()
        async with self.session.post(
            self.url, data=body.encode(), headers=signed_headers(body)
        ) as response:
            await response.read()
            status = response.status
        if status != 200:
            self.error(f"{what}: http {status}")
            self.slack.waiting.pop(user, None)
            return None
        try:
            text = await asyncio.wait_for(future, 30)
        except TimeoutError:
            self.error(f"{what}: no reply in 30 s")
            self.slack.waiting.pop(user, None)
            return None
        took = time.perf_counter() - sent
        right = HELP_TITLE in text if what == "help" else any(m in text for m in VERDICT_MARKS)
        if not right:
            self.error(f"{what}: not the expected reply")
        return sent, took

    async def run(self, until: Any, gap: float) -> dict[str, list[tuple[float, float]]]:
        """Rounds until ``until()`` is true, ``gap`` seconds apart."""
        times: dict[str, list[tuple[float, float]]] = {"help": [], "answer": []}
        while not until():
            for what in ("help", "answer"):
                got = await self.one(what)
                if got is not None:
                    times[what].append(got)
            await asyncio.sleep(gap)
        return times


def figures(samples: list[tuple[float, float]]) -> dict[str, Any]:
    seconds = [took for _, took in samples]
    return {
        "replies": len(seconds),
        "p50_ms": ms(percentile(seconds, 0.5)),
        "p99_ms": ms(percentile(seconds, 0.99)),
        "max_ms": ms(max(seconds)) if seconds else None,
    }


async def measure(db_url: str, channels: int, samples: int, gap: float) -> dict[str, Any]:
    slack = ReplyingSlack()
    await slack.start()
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        STUDYBOT, "run",
        env=bot_env(db_url, slack, port), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    log: list[str] = []
    drain: asyncio.Task[None] | None = None
    url = f"http://127.0.0.1:{port}/slack/events"
    try:
        await asyncio.wait_for(read_until(process.stderr, "Uvicorn running on", log), 120)
        drain = asyncio.create_task(read_until(process.stderr, None, log))
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
            daily = slash("/daily", user="WADMIN", channel=CHANNEL, response_url=slack.hook_url())
            async with session.post(url, data=daily.encode(), headers=signed_headers(daily)) as r:
                assert r.status == 200, r.status
            (post, *_) = await slack.wait_for(
                "chat.postMessage", where=lambda c: c.args.get("channel") == CHANNEL
            )
            value = next(
                b["value"]
                for b in post.buttons()
                if b["value"].startswith("daily:") and b["value"].count(":") == 2
            )
            rounds = Rounds(session, url, slack, value)
            for _ in range(3):  # warm-up: imports on first use, connections
                await rounds.one("help")
                await rounds.one("answer")
            done = iter(range(samples + 1))
            say(f"floor: {samples} rounds")
            floor = await rounds.run(lambda: next(done) >= samples, gap)

            def fan_out_posts() -> list[Any]:
                return slack.called(
                    "chat.postMessage", where=lambda c: c.args.get("channel") != CHANNEL
                )

            say(f"seeding {channels} channels due now")
            from bot.db.engine import make_engine, make_session_factory

            engine = make_engine(db_url)
            seed_channels(
                SimpleNamespace(session_factory=make_session_factory(engine)),  # type: ignore[arg-type]
                channels,
                datetime.now(UTC),
                workspace=TEAM,
            )
            engine.dispose()
            seeded = time.perf_counter()
            cpu_before = cpu_seconds(process.pid)
            say("replies until the fan-out is delivered")
            during = await rounds.run(lambda: len(fan_out_posts()) >= channels, gap)
            posts = fan_out_posts()
            first, last = posts[0].at, posts[-1].at
            fan_out_cpu = cpu_seconds(process.pid) - cpu_before
            say(f"floor again: {samples} rounds")
            done = iter(range(samples + 1))
            floor_after = await rounds.run(lambda: next(done) >= samples, gap)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 60)
        if drain is not None:
            await drain
        await slack.stop()
    # perf_counter and the fake's monotonic stamps share CLOCK_MONOTONIC on Linux
    inside = {k: [(s, t) for s, t in v if first <= s <= last] for k, v in during.items()}
    from_due = {k: [(s, t) for s, t in v if s <= last] for k, v in during.items()}
    targets = [str(c.args["channel"]) for c in posts]
    result: dict[str, Any] = {
        "floor": {k: figures(v + floor_after[k]) for k, v in floor.items()},
        "floor_before": {k: figures(v) for k, v in floor.items()},
        "floor_after": {k: figures(v) for k, v in floor_after.items()},
        "during_fan_out": {k: figures(v) for k, v in inside.items()},
        "from_due_to_delivered": {k: figures(v) for k, v in from_due.items()},
        "fan_out": {
            "channels": channels,
            "posts": len(targets),
            "duplicate_posts": len(targets) - len(set(targets)),
            "due_to_first_post_s": round(first - seeded, 2),
            "delivery_s": round(last - first, 2),
            "floor_s": round(max(channels - WORKSPACE_PER_SECOND, 0) / WORKSPACE_PER_SECOND, 2),
            # the bot's CPU from due to delivered, replies included, over that wall time
            "bot_cpu_share": round(fan_out_cpu / (last - seeded), 2),
        },
        "errors": rounds.errors,
        "exit_code": code,
    }
    for phase in ("during_fan_out", "from_due_to_delivered"):
        for what in ("help", "answer"):
            mine, base = result[phase][what]["p99_ms"], result["floor"][what]["p99_ms"]
            result[phase][what]["p99_ratio_to_floor"] = (
                round(mine / base, 2) if mine and base else None
            )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=150, help="floor rounds")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between rounds")
    parser.add_argument("--backends", default="sqlite,postgres", help="sqlite,postgres")
    args = parser.parse_args()
    backends, postgres, notes = chosen_backends(args.backends)
    report: dict[str, Any] = {"machine": machine(), "target_p99_ms": 200, "notes": notes}
    tmp = Path(tempfile.mkdtemp(prefix="studybot-replies-"))
    try:
        for backend in backends:
            with contextlib.ExitStack() as stack:
                if backend == "sqlite":
                    db_url = f"sqlite:///{tmp}/replies.db"
                else:
                    assert postgres is not None
                    db_url = stack.enter_context(postgres_database(postgres))
                migrate(db_url)
                say(f"studybot run on {backend}")
                report[backend] = asyncio.run(
                    measure(db_url, args.channels, args.samples, args.gap)
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["machine"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

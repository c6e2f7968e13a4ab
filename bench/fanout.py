"""Fan-out: N channels due in the same minute, through production's Slack pacing.

The messages go through the real ``SlackNotifier`` (the aiolimiter pacing production runs:
bursts of 3 then one a second per channel, ``--workspace-rate`` messages a second for the
workspace) to a fake Slack that enforces the same limits on the real monotonic clock and
answers every message after ``--latency-ms`` (a network round trip). A message that breaks
a limit gets a 429 (RetryLater) and is counted as a violation.

The bot's calendar clock is simulated (so every channel is due at once); waiting for the
rate limit is real wall-clock time. Figures:

- ``total_s``: wall time from waking the scheduler until the last post was delivered
  and marked sent (posting the prompts, writing the outbox, claiming, sending, marking);
- ``floor_s``: the least time the limits allow: (N - one burst) / workspace rate (one
  message a channel, so the per-channel limit does not bind) plus one round trip;
- ``ratio``: total / floor (target ≤ 1.1);
- ``overhead_ms_per_post``: CPU time of the whole process during the run (every thread:
  choosing questions, SQL, claims, marks, pacing, and the fake platform itself) divided
  by the posts (target ≤ 1 ms);
- ``post_job_ms_per_channel``: wall time of the posting job alone on a second database
  (choose, insert prompts, queue the outbox), per channel.

Usage: python bench/fanout.py [--channels 500] [--workspace-rate 20] [--db URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, insert, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.adapters.slack.sender import WORKSPACE_PER_SECOND, SlackNotifier  # noqa: E402
from bot.bootstrap import App, bootstrap  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.core.clock import SimulatedClock  # noqa: E402
from bot.core.daily.posting import DailyPostJob, DailyRevealJob  # noqa: E402
from bot.core.messages import Outgoing  # noqa: E402
from bot.db.models import ChannelRow, ChannelScheduleRow, DailyPromptRow, OutboxRow, WorkspaceRow  # noqa: E402
from bot.delivery import RetryLater  # noqa: E402

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class FakePlatform:
    """Slack as the notifier's sender sees it: accepts messages within its limits, after a
    simulated round trip."""

    def __init__(self, per_channel: float, global_rate: float, burst: int, latency: float) -> None:
        self.per_channel = per_channel
        self.global_rate = global_rate
        self.burst = burst
        self.latency = latency
        self.tokens = float(burst)
        self.refilled = time.monotonic()
        self.channel_last: dict[str, float] = {}
        self.accepted: list[str] = []
        self.violations = 0
        self.last_at = 0.0

    async def send(self, message: Outgoing) -> str | None:
        now = time.monotonic()
        self.tokens = min(float(self.burst), self.tokens + (now - self.refilled) * self.global_rate)
        self.refilled = now
        last = self.channel_last.get(message.to)
        # 1 ms of slack for the clock read between the sender's pacer and this check
        if self.tokens < 1.0 - 1e-3 or (
            last is not None and now - last < 1 / self.per_channel - 1e-3
        ):
            self.violations += 1
            raise RetryLater(1.0)
        self.tokens -= 1.0
        self.channel_last[message.to] = now
        await asyncio.sleep(self.latency)
        self.accepted.append(message.key or "")
        self.last_at = time.monotonic()
        return f"ts-{len(self.accepted)}"


def seed(app: App, count: int) -> None:
    with app.session_factory() as session, session.begin():
        workspace = WorkspaceRow(
            platform="slack", external_id="T1", name="", timezone="UTC", created_at=START
        )
        session.add(workspace)
        session.flush()
        ids = session.scalars(
            insert(ChannelRow).returning(ChannelRow.id),
            [
                {
                    "workspace_id": workspace.id,
                    "external_id": f"C{i:05d}",
                    "name": f"c{i}",
                    "created_at": START,
                }
                for i in range(count)
            ],
        ).all()
        session.execute(
            insert(ChannelScheduleRow),
            [
                {
                    "channel_id": cid,
                    "workspace_id": workspace.id,
                    "local_time": "09:00",
                    "timezone": "UTC",
                    "weekdays": "mon,tue,wed,thu,fri",
                    "topics": [],
                    "roles": [],
                    "difficulty_mix": {},
                    "reveal_delay_minutes": 480,
                    "paused": False,
                    "skip_dates": [],
                    "next_post_at": START,
                    "updated_at": START,
                }
                for cid in ids
            ],
        )


def build(url: str, notifiers: dict[str, object], batch: int) -> App:
    app = bootstrap(
        Settings(studybot_database_url=url),
        clock=SimulatedClock(START),
        notifiers=notifiers,  # type: ignore[arg-type]
        jobs=[DailyRevealJob(batch=batch), DailyPostJob(batch=batch)],
        auto_migrate=True,
    )
    app.runner.deliverer.batch = batch
    app.runner.deliverer.concurrency = 256
    return app


def fresh_url(base: str | None, tmp: Path, name: str) -> str:
    if base is None:
        return f"sqlite:///{tmp / name}"
    from sqlalchemy import create_engine, text

    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    from sqlalchemy.engine import make_url

    return make_url(base).set(database=name).render_as_string(hide_password=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=500)
    parser.add_argument("--workspace-rate", type=float, default=WORKSPACE_PER_SECOND)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument(
        "--db", help="a PostgreSQL server URL (a scratch database is created); default SQLite"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        # 1. the posting job alone
        job_app = build(fresh_url(args.db, tmp, "fanout_job"), {}, args.batch)
        seed(job_app, args.channels)
        job = DailyPostJob(batch=args.batch)
        started = time.perf_counter()
        while True:
            with job_app.uow() as uow:
                handled = job.run(uow, job_app.services, START)
                uow.commit()
            if handled < args.batch:
                break
        post_job_s = time.perf_counter() - started
        job_app.close()

        # 2. the whole fan-out: post, queue, claim, send within the limits, mark
        # Slack's side allows what the notifier is built to send: a workspace-wide bucket of
        # one second's worth and one message a second per channel (bursts of 3 do not bind:
        # each channel gets one post).
        rate = args.workspace_rate
        platform = FakePlatform(1.0, rate, int(rate), args.latency_ms / 1000)
        notifier = SlackNotifier(platform, workspace_per_second=rate)  # type: ignore[arg-type]
        app = build(fresh_url(args.db, tmp, "fanout_run"), {"slack": notifier}, args.batch)
        seed(app, args.channels)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        asyncio.run(app.runner.run_due_and_deliver())
        total_s = time.perf_counter() - wall0
        cpu_s = time.process_time() - cpu0
        with app.session_factory() as session:
            prompts = session.scalar(select(func.count()).select_from(DailyPromptRow))
            sent = session.scalar(
                select(func.count()).select_from(OutboxRow).where(OutboxRow.status == "sent")
            )
        dialect = app.engine.dialect.name
        app.close()

    posts = len(platform.accepted)
    floor_s = max(args.channels - rate, 0) / rate + args.latency_ms / 1000
    print(
        json.dumps(
            {
                "database": dialect,
                "channels": args.channels,
                "limits": {
                    "per_channel_per_s": 1.0,
                    "workspace_per_s": rate,
                    "latency_ms": args.latency_ms,
                },
                "pacing": "production SlackNotifier (aiolimiter)",
                "posts_delivered": posts,
                "duplicate_posts": posts - len(set(platform.accepted)),
                "prompts_created": prompts,
                "outbox_marked_sent": sent,
                "rate_limit_violations": platform.violations,
                "total_s": round(total_s, 3),
                "floor_s": round(floor_s, 3),
                "ratio": round(total_s / floor_s, 3),
                "overhead_ms_per_post": round(1000 * cpu_s / max(posts, 1), 3),
                "post_job_ms_per_channel": round(1000 * post_job_s / args.channels, 3),
                "clock": "bot calendar simulated; pacing, latency and timings on the real clock",
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

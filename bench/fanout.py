"""Fan-out: N channels across W workspaces due in the same minute, through what production runs.

Every post goes through the real ``SlackNotifier`` and ``SlackSender`` (Block Kit rendering,
slack-sdk's ``AsyncWebClient`` on one kept-alive HTTP session, as the adapter runs it) to
the fake Slack Web API of the suite (tests/adapters/slack/fake_slack.py) on loopback, and
is paced by delivery's shared per-workspace pacing (``bot.pacing``) at ``--workspace-rate``
messages a second. ``--workers N`` runs N workers (N Apps on one database, each with its
own client) that share each workspace's limit through their heartbeats.

Slack's side is checked after the run from the fake's record (when each call arrived):
per workspace, a bucket of one second's worth refilled at the rate; a post that found it
empty counts as a violation (a real Slack would have answered 429); ``rate_limit_violations``
allows one message of arrival jitter (requests overtaking each other on loopback), and
``strict_bucket_violations`` none.

The bot's calendar clock is simulated (so every channel is due at once); waiting for the
rate limit is real wall-clock time. Figures:

- ``total_s``: wall time from waking the scheduler until the last post was delivered
  and marked sent (posting the prompts, writing the outbox, claiming, sending, marking);
- ``floor_s``: the least time the limits allow: (channels per workspace - one second's
  burst) / workspace rate (workspaces are paced side by side);
- ``ratio``: total / floor;
- ``overhead_ms_per_post``: CPU time of the whole process during the run (every thread:
  choosing questions, SQL, claims, marks, pacing, heartbeats, rendering, slack-sdk, and
  the fake Slack itself) divided by the posts;
- ``heartbeats``: rows the workers wrote to ``delivery_worker`` meanwhile (the whole cost of
  sharing the limits: no statement per message);
- ``post_job_ms_per_channel``: wall time of the posting job alone on a second database
  (choose, insert prompts, queue the outbox), per channel.

Usage: python bench/fanout.py [--channels 500] [--workspaces 1] [--workers 1]
       [--workspace-rate 20] [--db URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import func, insert, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.adapters.slack.sender import WORKSPACE_PER_SECOND, SlackNotifier, SlackSender  # noqa: E402
from bot.bootstrap import App, bootstrap  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.core.clock import SimulatedClock  # noqa: E402
from bot.core.daily.posting import DailyPostJob, DailyRevealJob  # noqa: E402
from bot.db.models import ChannelRow, ChannelScheduleRow, DailyPromptRow, OutboxRow, WorkspaceRow  # noqa: E402
from bot.pacing import WorkerShare  # noqa: E402
from tests.adapters.slack.fake_slack import Call, FakeSlack  # noqa: E402

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def violations(calls: list[Call], rate: float, jitter: int = 0) -> int:
    """Posts that found their workspace's bucket (one second's worth and ``jitter`` more
    messages, refilled at ``rate``) empty, as Slack would count them; the workspace is the
    channel id's prefix."""
    by_workspace: dict[str, list[float]] = defaultdict(list)
    for call in calls:
        by_workspace[str(call.args["channel"])[:4]].append(call.at)
    over = 0
    for times in by_workspace.values():
        capacity = rate + jitter
        tokens, last = capacity, None
        for at in sorted(times):
            if last is not None:
                tokens = min(capacity, tokens + (at - last) * rate)
            last = at
            if tokens < 1.0 - 1e-3:
                over += 1
            else:
                tokens -= 1.0
    return over


def seed(app: App, count: int, workspaces: int) -> None:
    """``count`` channels spread evenly over ``workspaces``; channel ids start with their
    workspace's number (``C007…``), which is how the check finds a post's workspace."""
    with app.session_factory() as session, session.begin():
        rows = [
            WorkspaceRow(
                platform="slack", external_id=f"T{w:03d}", name="", timezone="UTC", created_at=START
            )
            for w in range(workspaces)
        ]
        session.add_all(rows)
        session.flush()
        ids = session.scalars(
            insert(ChannelRow).returning(ChannelRow.id),
            [
                {
                    "workspace_id": rows[i % workspaces].id,
                    "external_id": f"C{i % workspaces:03d}{i:06d}",
                    "name": f"c{i}",
                    "created_at": START,
                }
                for i in range(count)
            ],
        ).all()
        workspace_of = {
            cid: wid for cid, wid in session.execute(select(ChannelRow.id, ChannelRow.workspace_id))
        }
        session.execute(
            insert(ChannelScheduleRow),
            [
                {
                    "channel_id": cid,
                    "workspace_id": workspace_of[cid],
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


class CountingShare(WorkerShare):
    """The production heartbeat, counting its beats for the report."""

    beats = 0

    def beat(self) -> tuple[int, bool]:
        CountingShare.beats += 1
        return super().beat()


async def fan_out(args: argparse.Namespace, url: str) -> dict[str, object]:
    fake = FakeSlack()
    await fake.start()
    session = aiohttp.ClientSession()
    apps: list[App] = []
    try:
        for w in range(args.workers):
            client = AsyncWebClient(token=f"xoxb-w{w}", base_url=fake.api_url, session=session)
            notifier = SlackNotifier(SlackSender(client), workspace_per_second=args.workspace_rate)
            app = build(url, {"slack": notifier}, args.batch)
            app.runner.deliverer.share = CountingShare(app.session_factory)
            app.runner.deliverer.pacing.share = app.runner.deliverer.share
            apps.append(app)
        seed(apps[0], args.channels, args.workspaces)
        # the workers are up (as in production: they beat from the start), then 09:00 comes
        await asyncio.gather(*(app.runner.deliverer.share.refresh() for app in apps))
        await asyncio.sleep(
            1.5 * apps[0].runner.deliverer.share.beat_every if args.workers > 1 else 0
        )
        beats0 = CountingShare.beats
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(app.runner.run_due_and_deliver() for app in apps))
        total_s = time.perf_counter() - wall0
        cpu_s = time.process_time() - cpu0
        beats = CountingShare.beats - beats0
        with apps[0].session_factory() as db:
            prompts = db.scalar(select(func.count()).select_from(DailyPromptRow))
            sent = db.scalar(
                select(func.count()).select_from(OutboxRow).where(OutboxRow.status == "sent")
            )
        dialect = apps[0].engine.dialect.name
        for app in apps:
            await app.stop()
    finally:
        for app in apps:
            app.close()
        await session.close()
        await fake.stop()
    calls = fake.called("chat.postMessage")
    per_workspace = args.channels / args.workspaces
    rate = args.workspace_rate
    floor_s = max(per_workspace - rate, 0) / rate
    keys = [str(c.args["channel"]) for c in calls]
    by_worker: dict[str, int] = defaultdict(int)
    for c in calls:
        by_worker[c.headers.get("Authorization", "").removeprefix("Bearer xoxb-")] += 1
    return {
        "database": dialect,
        "channels": args.channels,
        "workspaces": args.workspaces,
        "workers": args.workers,
        "limits": {"per_channel_per_s": 1.0, "workspace_per_s": rate},
        "path": "SlackNotifier + SlackSender (Block Kit, AsyncWebClient) -> fake Slack over HTTP",
        "pacing": "bot.pacing: per workspace, shared between workers by heartbeats",
        "posts_delivered": len(calls),
        "posts_by_worker": dict(sorted(by_worker.items())),
        "duplicate_posts": len(keys) - len(set(keys)),
        "prompts_created": prompts,
        "outbox_marked_sent": sent,
        # arrivals on loopback jitter by a message or so (requests overtake each other)
        "rate_limit_violations": violations(calls, rate, jitter=1),
        "strict_bucket_violations": violations(calls, rate),
        "total_s": round(total_s, 3),
        "floor_s": round(floor_s, 3),
        "ratio": round(total_s / floor_s, 3) if floor_s else None,
        "overhead_ms_per_post": round(1000 * cpu_s / max(len(calls), 1), 3),
        "heartbeats": beats,
        "clock": "bot calendar simulated; pacing and timings on the real clock",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=500)
    parser.add_argument("--workspaces", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--workspace-rate", type=float, default=WORKSPACE_PER_SECOND)
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument(
        "--db", help="a PostgreSQL server URL (a scratch database is created); default SQLite"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        # 1. the posting job alone
        job_app = build(fresh_url(args.db, tmp, "fanout_job"), {}, args.batch)
        seed(job_app, args.channels, args.workspaces)
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

        # 2. the whole fan-out: post, queue, claim, pace, render, send over HTTP, mark
        report = asyncio.run(fan_out(args, fresh_url(args.db, tmp, "fanout_run")))
    report["post_job_ms_per_channel"] = round(1000 * post_job_s / args.channels, 3)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""kill -9 in the middle of a fan-out, then a restart: every channel has its post, and at
most the messages that were in flight (one per sending slot) are posted twice.

The worker is a real process (tests/outbox_worker.py) that SIGKILLs itself right after the
platform took its Nth post, so nothing of it runs after: no marking, no finally blocks.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import func, select

from bot.bootstrap import App
from bot.db.engine import make_engine
from bot.db.models import OutboxRow
from bot.delivery import CLAIM_FOR
from tests import outbox_worker
from tests.conftest import ROOT, START
from tests.test_delivery import post, queue

CHANNELS = 150
KILLED_AFTER = 70  # posts the platform took before the kill: more than a batch


def _posts(path: Path) -> Counter[str]:
    if not path.exists():
        return Counter()
    return Counter(line.split()[0] for line in path.read_text().splitlines() if line)


def test_a_kill_mid_fan_out_repeats_at_most_the_posts_in_flight(
    app: App, db_url: str, tmp_path: Path
) -> None:
    assert queue(app, [post(f"C{n:03}", 1) for n in range(CHANNELS)]) == CHANNELS
    posts = tmp_path / "posts.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.outbox_worker",
            db_url,
            str(posts),
            START.isoformat(),
            str(KILLED_AFTER),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert worker.returncode == -signal.SIGKILL, worker.stderr
    before = _posts(posts)
    assert sum(before.values()) >= KILLED_AFTER
    assert max(before.values()) == 1

    # The restart comes after the dead worker's claim lease ran out.
    restarted = START + CLAIM_FOR * 2
    engine = make_engine(db_url)
    try:
        asyncio.run(outbox_worker.deliverer(engine, str(posts), restarted, None).deliver_due())
    finally:
        engine.dispose()

    after = _posts(posts)
    assert set(after) == {f"C{n:03}" for n in range(CHANNELS)}, "a channel never got its post"
    twice = sorted(channel for channel, count in after.items() if count > 1)
    assert max(after.values()) <= 2
    assert len(twice) <= outbox_worker.CONCURRENCY, f"posted twice: {twice}"
    with app.session_factory() as session:
        pending = session.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.status != "sent")
        )
    assert pending == 0

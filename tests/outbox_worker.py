"""A delivery worker in a process of its own, for tests that kill it (``kill -9``) mid-batch.

``python -m tests.outbox_worker DB_URL POSTS_FILE CLOCK_ISO [KILL_AFTER]`` sends everything
due in the outbox to a fake platform that appends one line per post (``channel key``) to
POSTS_FILE, flushed to disk before the send returns: the file is what the platform shows.
With KILL_AFTER, the process SIGKILLs itself right after the platform took that many
posts, before delivery learns that the last one went out: no cleanup, no finally blocks,
exactly what ``kill -9`` leaves behind.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from datetime import datetime

from sqlalchemy import Engine

from bot.core.clock import SimulatedClock
from bot.core.messages import Outgoing
from bot.db.engine import make_engine, make_session_factory
from bot.delivery import OutboxDeliverer

BATCH = 50
CONCURRENCY = 4


class FilePlatform:
    """A platform whose channels are lines of a file; may kill its own process."""

    def __init__(self, path: str, kill_after: int | None = None) -> None:
        self.path = path
        self.kill_after = kill_after
        self.taken = 0

    async def send(self, message: Outgoing) -> str | None:
        await asyncio.sleep(0.002)  # the network: other slots send meanwhile
        with open(self.path, "a", encoding="utf-8") as posts:
            posts.write(f"{message.to} {message.key}\n")
            posts.flush()
            os.fsync(posts.fileno())
        self.taken += 1
        if self.kill_after is not None and self.taken >= self.kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return f"{message.to}:{self.taken}"


def deliverer(engine: Engine, posts: str, now: datetime, kill_after: int | None) -> OutboxDeliverer:
    return OutboxDeliverer(
        make_session_factory(engine),
        SimulatedClock(now),
        {"slack": FilePlatform(posts, kill_after)},
        batch=BATCH,
        concurrency=CONCURRENCY,
    )


def main(argv: list[str]) -> int:
    url, posts, now = argv[0], argv[1], datetime.fromisoformat(argv[2])
    kill_after = int(argv[3]) if len(argv) > 3 else None
    engine = make_engine(url)
    try:
        print(asyncio.run(deliverer(engine, posts, now, kill_after).deliver_due()))
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

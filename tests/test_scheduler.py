"""Due work: the grace rule, and several workers sharing one database without posting twice."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, text

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.daily.posting import DailyPostJob, DailyRevealJob
from bot.core.messages import Outgoing
from bot.db.models import (
    ChannelScheduleRow,
    DailyPromptRow,
    OutboxRow,
)
from tests.conftest import START
from tests.support import seed_channels

ROOT = Path(__file__).resolve().parents[1]


class RecordingNotifier:
    def __init__(self) -> None:
        self.sent: list[Outgoing] = []
        self._lock = threading.Lock()

    async def send(self, message: Outgoing) -> str | None:
        with self._lock:
            self.sent.append(message)
            return f"m{len(self.sent)}"


def worker(
    db_url: str, clock: SimulatedClock, bank: QuestionBank, batch: int = 25
) -> tuple[App, RecordingNotifier]:
    notifier = RecordingNotifier()
    app = bootstrap(
        Settings(studybot_database_url=db_url),
        clock=clock,
        bank=bank,
        notifiers={"slack": notifier},
        jobs=[DailyRevealJob(batch=batch), DailyPostJob(batch=batch)],
        auto_migrate=True,
    )
    app.runner.deliverer.batch = batch
    return app, notifier


Worker = Callable[..., tuple[App, RecordingNotifier]]


@pytest.fixture
def workers() -> Iterator[Worker]:
    """``worker`` whose apps are closed when the test ends, whether it passed or not."""
    apps: list[App] = []

    def make(*args: Any, **kwargs: Any) -> tuple[App, RecordingNotifier]:
        app, notifier = worker(*args, **kwargs)
        apps.append(app)
        return app, notifier

    yield make
    for app in apps:
        app.close()


def wait_until_no_schedule_is_locked(app: App) -> None:
    """Blocks until every schedule row can be locked, i.e. no other transaction holds one."""
    with app.session_factory() as session, session.begin():
        session.execute(text("SET LOCAL lock_timeout = '30s'"))
        session.execute(select(ChannelScheduleRow.channel_id).with_for_update()).all()


def count(app: App, table: type) -> int:
    with app.session_factory() as session:
        return session.scalar(select(func.count()).select_from(table)) or 0


def test_work_missed_within_the_grace_period_runs_once_and_older_is_skipped(
    app: App, clock: SimulatedClock, caplog: pytest.LogCaptureFixture
) -> None:
    notifier = RecordingNotifier()
    app.register_notifier("slack", notifier)
    seed_channels(app, 2, START)
    with app.session_factory() as session, session.begin():
        late, very_late = session.scalars(
            select(ChannelScheduleRow).order_by(ChannelScheduleRow.channel_id)
        )
        late.next_post_at = START - timedelta(minutes=50)
        very_late.next_post_at = START - timedelta(hours=2)
    with caplog.at_level(logging.WARNING):
        asyncio.run(app.runner.run_due_and_deliver())
        asyncio.run(app.runner.run_due_and_deliver())
    assert [m.to for m in notifier.sent] == ["C0000"]
    assert "missed by more than 1:00:00" in caplog.text
    with app.session_factory() as session:
        nexts = list(session.scalars(select(ChannelScheduleRow.next_post_at)))
    assert nexts == [datetime(2026, 12, 2, 9, tzinfo=START.tzinfo)] * 2


def test_one_worker_posts_500_due_channels_exactly_once(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, workers: Worker
) -> None:
    app, notifier = workers(db_url, clock, sample_bank, batch=100)
    seed_channels(app, 500, START)
    asyncio.run(app.runner.run_due_and_deliver())
    asyncio.run(app.runner.run_due_and_deliver())
    assert count(app, DailyPromptRow) == 500
    assert len(notifier.sent) == 500
    assert len({m.key for m in notifier.sent}) == 500


@pytest.mark.postgres
def test_two_workers_on_one_postgres_database_post_500_channels_exactly_once(
    postgres_url: str, clock: SimulatedClock, sample_bank: QuestionBank, workers: Worker
) -> None:
    first, sent_first = workers(postgres_url, clock, sample_bank)
    second, sent_second = workers(postgres_url, clock, sample_bank)
    seed_channels(first, 500, START)
    threads = [
        threading.Thread(target=lambda a=a: asyncio.run(a.runner.run_due_and_deliver()))
        for a in (first, second)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a worker did not finish"
    keys = [m.key for m in sent_first.sent + sent_second.sent]
    assert count(first, DailyPromptRow) == 500
    assert len(keys) == 500 and len(set(keys)) == 500
    assert len({m.to for m in sent_first.sent + sent_second.sent}) == 500


CHILD = """
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from bot.bootstrap import bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.core.daily.posting import DailyPostJob

url, start, pack = sys.argv[1], datetime.fromisoformat(sys.argv[2]), sys.argv[3]
app = bootstrap(Settings(studybot_database_url=url), clock=SimulatedClock(start),
                bank=QuestionBank.from_packs([load_pack(Path(pack))]), jobs=[], auto_migrate=False)
job = DailyPostJob(batch=100)
with app.uow() as uow:
    job.run(uow, app.services, start)
    uow.commit()
uow = app.uow().__enter__()
job.run(uow, app.services, start)  # the second round: rows locked, nothing committed
print("holding", flush=True)
sys.stdin.read()  # killed here
"""


@pytest.mark.postgres
def test_a_worker_killed_mid_run_leaves_the_rest_to_the_other(
    postgres_url: str, clock: SimulatedClock, sample_bank: QuestionBank, workers: Worker
) -> None:
    from tests.conftest import SAMPLE_PACK

    survivor, notifier = workers(postgres_url, clock, sample_bank, batch=100)
    seed_channels(survivor, 500, START)
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, postgres_url, START.isoformat(), str(SAMPLE_PACK)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == b"holding"
            # The survivor skips the 100 rows the child holds locked and does the rest.
            asyncio.run(survivor.runner.run_due_and_deliver())
            assert count(survivor, DailyPromptRow) == 400
        finally:
            child.kill()
            child.wait(timeout=30)
    # The child is dead, but its server session lets go of the rows only once PostgreSQL
    # notices the closed socket: wait for that rather than race it (SKIP LOCKED would skip).
    wait_until_no_schedule_is_locked(survivor)
    asyncio.run(survivor.runner.run_due_and_deliver())
    keys = [m.key for m in notifier.sent]
    assert count(survivor, DailyPromptRow) == 500
    assert len(keys) == 500 and len(set(keys)) == 500
    with survivor.session_factory() as session:
        pending = session.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.status != "sent")
        )
    assert pending == 0


class SlowJob:
    """A due job whose round takes a while (a big fan-out): it is in flight at the stop.
    (``batch``: a full round asks for another one, which a stopping run does not start.)"""

    batch = 1

    name = "slow"

    def __init__(self) -> None:
        self.runs = 0
        self.started = threading.Event()
        self.finished = threading.Event()

    def next_due(self, uow: Any) -> datetime | None:
        return None

    def run(self, uow: Any, services: Any, now: datetime) -> int:
        self.runs += 1
        if self.runs == 2:  # the first is serve()'s own at the start; the scheduler's is slow
            self.started.set()
            time.sleep(0.5)
            self.finished.set()
            return 1
        return 0


def test_a_stop_lets_the_due_run_in_flight_finish_and_logs_no_traceback(
    sqlite_url: str, clock: SimulatedClock, caplog: pytest.LogCaptureFixture, monkeypatch
) -> None:
    """SIGTERM while the scheduler's due run is in flight: its round in flight finishes
    (within the grace) and no other starts, and the log says nothing an operator should not
    read (the run was cancelled, and APScheduler logged its CancelledError with a
    traceback: test_run_stops' answer burst failed on it under load)."""
    from bot import runtime, scheduler

    monkeypatch.setattr(scheduler, "WAKE_EVERY", timedelta(seconds=0.1))
    job = SlowJob()
    app = bootstrap(Settings(studybot_database_url=sqlite_url), clock=clock, jobs=[job])

    async def scenario() -> None:
        stop = asyncio.Event()
        serving = asyncio.create_task(runtime.serve(app, [], stop))
        while not job.started.is_set():  # the scheduler's run is in its slow round
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(serving, 10)

    try:
        with caplog.at_level(logging.INFO):
            asyncio.run(scenario())
    finally:
        app.close()
    assert job.finished.is_set()
    assert job.runs == 2  # the round in flight finished; no other round started
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]

"""The unit of work's transaction: a rollback undoes everything, savepoints included; on
SQLite, a process's writers take turns."""

from __future__ import annotations

import threading
import time

from sqlalchemy import func, select, text

from bot.core.clock import SimulatedClock
from bot.core.model import WORKSPACES
from bot.db import migrate
from bot.db.engine import make_engine, make_session_factory
from bot.db.models import WorkspaceRow
from bot.db.uow import SqlUnitOfWork


def test_a_write_made_inside_a_savepoint_is_undone_by_the_rollback(
    db_url: str, clock: SimulatedClock
) -> None:
    engine = make_engine(db_url)
    migrate.upgrade(engine)
    factory = make_session_factory(engine)
    with SqlUnitOfWork(factory, clock) as uow:
        uow[WORKSPACES].ensure("console", "w1")  # the first write happens in a savepoint
        uow.rollback()
    with factory() as session:
        assert session.scalar(select(func.count()).select_from(WorkspaceRow)) == 0
    engine.dispose()


def test_a_committed_unit_of_work_keeps_its_writes(db_url: str, clock: SimulatedClock) -> None:
    engine = make_engine(db_url)
    migrate.upgrade(engine)
    factory = make_session_factory(engine)
    with SqlUnitOfWork(factory, clock) as uow:
        uow[WORKSPACES].ensure("console", "w1")
        uow.commit()
    with SqlUnitOfWork(factory, clock) as uow:
        assert uow[WORKSPACES].ensure("console", "w1").external_id == "w1"
    with factory() as session:
        assert session.scalar(select(func.count()).select_from(WorkspaceRow)) == 1
    engine.dispose()


def test_sqlite_writers_of_one_process_start_as_soon_as_the_one_before_them_ends(
    sqlite_url: str,
) -> None:
    """Five writers of 20 ms each, queued behind a long transaction, are done about 100 ms
    after its commit: each is handed the turn when the one before it ends, instead of
    sleeping in SQLite's busy handler, which after half a second of waiting tries again
    only every 100 ms (and so would take about half a second for the five)."""
    engine = make_engine(sqlite_url)
    holding, ended = threading.Event(), []

    def long_writer() -> None:
        with engine.begin() as connection:
            connection.execute(text("UPDATE workspace SET name = name"))
            holding.set()
            time.sleep(0.6)
            ended.append(time.perf_counter())

    def short_writer() -> None:
        with engine.begin() as connection:
            connection.execute(text("UPDATE workspace SET name = name"))
            time.sleep(0.02)

    first = threading.Thread(target=long_writer)
    first.start()
    assert holding.wait(10)
    waiting = [threading.Thread(target=short_writer) for _ in range(5)]
    for thread in waiting:
        thread.start()
    for thread in [first, *waiting]:
        thread.join(30)
    done = time.perf_counter()
    assert done - ended[0] < 0.25
    engine.dispose()

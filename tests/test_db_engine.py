"""The unit of work's transaction: a rollback undoes everything, savepoints included; on
SQLite, a process's writers take turns."""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

from sqlalchemy import func, select, text

from bot.bootstrap import App
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


def test_a_connection_still_in_use_when_the_app_closes_is_closed_when_it_is_given_back(
    app: App,
) -> None:
    # A handler thread the adapter stopped waiting for still holds a connection while the
    # app closes; once the thread is done with it, nothing of the app's is left open.
    holding, close_done = threading.Event(), threading.Event()
    held: list[Any] = []

    def late_handler() -> None:
        with app.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            held.append(conn.connection.dbapi_connection)
            holding.set()
            close_done.wait(10)

    worker = threading.Thread(target=late_handler)
    worker.start()
    assert holding.wait(10)
    app.close()
    close_done.set()
    worker.join(10)
    assert not worker.is_alive()
    assert _is_closed(held[0])


def test_the_app_closes_the_connections_it_pooled(app: App) -> None:
    with app.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
        pooled = conn.connection.dbapi_connection
    app.close()
    assert _is_closed(pooled)


def _is_closed(dbapi_connection: Any) -> bool:
    # psycopg says so with ``closed``; sqlite3 only by refusing to be used.
    closed = getattr(dbapi_connection, "closed", None)
    if closed is not None:
        return bool(closed)
    try:
        dbapi_connection.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False

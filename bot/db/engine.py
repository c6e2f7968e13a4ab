"""Engines and sessions. Nothing here runs at import time: callers build what they need."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite gets WAL mode, foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        kwargs.setdefault("connect_args", {"check_same_thread": False, "timeout": 30})
    engine = create_engine(url, future=True, **kwargs)
    if engine.dialect.name == "sqlite":
        in_memory = url in ("sqlite://", "sqlite:///:memory:")

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            # pysqlite opens transactions lazily and never before a SAVEPOINT, so a
            # transaction whose first write is in a savepoint would be committed when the
            # savepoint is released. Take transaction control from the driver instead.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            if not in_memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(connection: Any) -> None:
            # IMMEDIATE takes the write lock up front: a deferred transaction that read
            # first could not upgrade to a write after another connection committed
            # (SQLITE_BUSY_SNAPSHOT, with no busy wait). Writers queue on the busy timeout.
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)

"""Engines and sessions. Nothing here runs at import time: callers build what they need."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event, make_url, text
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker

from bot.core.errors import ConfigError
from bot.extras import missing_extra

POSTGRES_DRIVER = "postgresql+psycopg"  # the `postgres` extra installs psycopg 3
SQLITE_BUSY_SECONDS = 30  # how long a SQLite transaction waits for another to finish


class _QueuedWriter(sqlite3.Connection):
    """A SQLite connection whose transactions queue on one lock of this process (its
    engine's) before ``BEGIN IMMEDIATE``, and free it once their COMMIT or ROLLBACK is
    done.

    Every studybot transaction on SQLite takes the write lock up front, so they run one at
    a time anyway; without the queue, the threads of one process would wait for each other
    in SQLite's busy handler, which sleeps between tries (up to 100 ms each) while the
    database may long be free. Transactions of other processes still wait in it."""

    queue: threading.Lock  # set on the subclass that one engine makes
    _queued = False

    def take_turn(self) -> None:
        # Past the busy timeout, go on without the turn: BEGIN then waits in SQLite, and
        # fails there as it would have without the queue.
        self._queued = self.queue.acquire(timeout=SQLITE_BUSY_SECONDS)

    def end_turn(self) -> None:
        if self._queued:
            self._queued = False
            self.queue.release()

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.end_turn()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.end_turn()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.end_turn()


def parse_url(url: str) -> URL:
    """``url`` as SQLAlchemy reads it, ``postgresql://`` meaning psycopg 3; a ConfigError
    when it is no database URL at all."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise ConfigError(
            f"{url!r} is not a database URL; use e.g. sqlite:///studybot.db or "
            "postgresql+psycopg://USER:PASSWORD@HOST:5432/DATABASE"
        ) from exc
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername=POSTGRES_DRIVER)
    return parsed


def display_url(url: str | URL) -> str:
    """The URL without its password, for messages and logs."""
    try:
        return (url if isinstance(url, URL) else make_url(url)).render_as_string(hide_password=True)
    except ArgumentError:
        return "the database URL"


def sqlite_path(url: URL) -> Path | None:
    """The file behind a SQLite URL (None for an in-memory database or another database)."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite gets WAL mode, foreign keys and a busy timeout.

    Connects to nothing. Raises ConfigError, with what to do, when the URL cannot be used:
    not a URL, a database other than SQLite or PostgreSQL, the PostgreSQL driver not
    installed, or a SQLite file in a folder that does not exist.
    """
    parsed = parse_url(url)
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise ConfigError(
            f"studybot runs on SQLite and PostgreSQL, not on {backend} ({display_url(parsed)})"
        )
    path = sqlite_path(parsed)
    if path is not None and not path.parent.is_dir():
        raise ConfigError(
            f"cannot open the SQLite database {path}: the folder {path.parent} does not exist"
        )
    in_memory = backend == "sqlite" and path is None
    if backend == "sqlite":
        connect_args: dict[str, Any] = {
            "check_same_thread": False,
            "timeout": SQLITE_BUSY_SECONDS,
        }
        if not in_memory:
            connect_args["factory"] = type(
                "QueuedWriter", (_QueuedWriter,), {"queue": threading.Lock()}
            )
        kwargs.setdefault("connect_args", connect_args)
    try:
        engine = create_engine(parsed, future=True, **kwargs)
    except NoSuchModuleError as exc:
        raise ConfigError(
            f"studybot cannot use the database driver of {display_url(parsed)}"
        ) from exc
    except ImportError as exc:
        if backend == "postgresql":
            raise ConfigError(missing_extra("PostgreSQL support", "postgres")) from exc
        raise
    if engine.dialect.name == "sqlite":

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
            # (SQLITE_BUSY_SNAPSHOT, with no busy wait). A process's own writers queue in
            # turn (_QueuedWriter); other processes' on the busy timeout.
            dbapi = connection.connection.dbapi_connection
            if isinstance(dbapi, _QueuedWriter):
                dbapi.take_turn()
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            except BaseException:
                if isinstance(dbapi, _QueuedWriter):
                    dbapi.end_turn()
                raise

    return engine


def check_connection(engine: Engine) -> None:
    """Connect once; a ConfigError with the server's reason, on one line, when that fails
    (a PostgreSQL server that is down or refuses us, a database that does not exist)."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except DBAPIError as exc:
        raise ConfigError(
            f"cannot connect to the database at {display_url(engine.url)}: {reason(exc)} "
            "(check the URL, that the server is running and that the database exists)"
        ) from exc


def reason(exc: DBAPIError) -> str:
    """The driver's message on one line, without SQLAlchemy's background link."""
    lines = (re.sub(r"\s+", " ", line).strip() for line in str(exc.orig).splitlines())
    return "; ".join(line for line in lines if line) or type(exc.orig).__name__


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def dispose(engine: Engine) -> None:
    """Close every connection of ``engine``: the pooled ones now, and each one still in use
    (by a worker thread nobody waits for any more) as soon as it is given back.

    ``Engine.dispose`` alone leaves a connection that was checked out in the pool it
    replaced, open until the garbage collector happens on it (psycopg then warns that it
    was deleted while still open). The engine stays usable, with a new pool.
    """
    old = engine.pool
    engine.dispose()
    event.listen(old, "checkin", _close_on_checkin)
    old.dispose()  # whatever came back before the listener was there


def _close_on_checkin(_dbapi_connection: Any, record: Any) -> None:
    record.invalidate()

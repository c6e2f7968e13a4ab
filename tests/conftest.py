"""Shared fixtures: a database per test (SQLite always, PostgreSQL when configured),
a simulated clock, the wired app, and a console that reads like a chat transcript."""

from __future__ import annotations

import gc
import logging
import os
import queue
import shutil
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.pool import NullPool

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.db import migrate
from bot.db.engine import make_engine
from bot.db.models import Base
from tests import compiled_sql
from tests.network_guard import NetworkGuard
from tests.support import Transcript

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PACK = ROOT / "content" / "packs" / "sample.yaml"
POSTGRES_URL = os.environ.get("STUDYBOT_TEST_POSTGRES_URL", "")
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday
# Under pytest-xdist (``make test`` runs the suite on several workers) each worker is a
# process of its own with its own session fixtures: its own SQLite template (under its own
# temporary directory) and its own PostgreSQL template and databases, named after it.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")

# Property tests check what is true, not how fast: hypothesis' 200 ms per-example deadline
# and its too-slow health check fail them at random on a loaded CI machine.
settings.register_profile("studybot", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("studybot")

# Tests start from a cleared environment: nothing the developer exported leaks in.
for _name in list(os.environ):
    if _name.startswith(("SLACK_", "DISCORD_")) or (
        _name.startswith("STUDYBOT_") and _name != "STUDYBOT_TEST_POSTGRES_URL"
    ):
        del os.environ[_name]


# Installed for the whole run, session fixtures included; each test checks its own record.
NETWORK = NetworkGuard()
NETWORK.install()
compiled_sql.install()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What is alive once the tests are collected (every module imported, every test item)
    lives for the whole run: moved out of the garbage collector's sight, it is not walked
    again by every full collection, which the thousands of apps the tests make trigger
    often (12% of the CPU of test_disputes, test_mock and test_goal went into full
    collections; 7% after this)."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` run first: on pytest-xdist's workers a long test that started
    last would finish the run alone while the other workers wait."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable otherwise


@pytest.fixture(autouse=True)
def _loopback_only() -> Iterator[None]:
    """Fail any test that tried to reach a host other than this machine."""
    start = len(NETWORK.violations)
    yield
    tried = NETWORK.violations[start:]
    del NETWORK.violations[start:]
    if tried:
        pytest.fail(f"the test tried to leave loopback: {', '.join(tried)}", pytrace=False)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """Commands under test may set up logging on a stream pytest closes afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to the newest revision, once per test run."""
    path = tmp_path_factory.mktemp("template") / "studybot.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate.upgrade(engine)
    engine.dispose()
    # Fold the write-ahead log into the file, so that one file copy is the whole database.
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    return path


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Engine]:
    """An AUTOCOMMIT engine on the configured PostgreSQL server's maintenance database."""
    if not POSTGRES_URL:
        pytest.skip("STUDYBOT_TEST_POSTGRES_URL is not set")
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


def _create_database(admin: Engine, template: str | None = None) -> str:
    name = f"studybot_test_{WORKER}_{uuid.uuid4().hex[:12]}"
    # FILE_COPY copies the template's files instead of logging every page: much faster for
    # a small database.
    how = f' TEMPLATE "{template}" STRATEGY FILE_COPY' if template else ""
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"{how}'))
    return name


def _drop_database(admin: Engine, name: str) -> None:
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _url_of(admin: Engine, name: str) -> str:
    return admin.url.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_template(postgres_server: Engine) -> Iterator[str]:
    """A PostgreSQL database migrated to the newest revision, once per test run."""
    name = _create_database(postgres_server)
    engine = make_engine(_url_of(postgres_server, name))
    migrate.upgrade(engine)
    engine.dispose()  # a template must have no connections while it is copied
    yield name
    _drop_database(postgres_server, name)


# What makes two databases the same to a test, apart from their rows: the schema, the
# migration, and that connections are allowed.
_SCHEMA = text(
    """
    SELECT md5(string_agg(x, ';' ORDER BY x)) FROM (
        SELECT 'c:' || table_name || '.' || column_name || ':' || data_type || ':'
            || coalesce(column_default, '') || ':' || is_nullable AS x
        FROM information_schema.columns WHERE table_schema = 'public'
        UNION ALL SELECT 'i:' || indexdef FROM pg_indexes WHERE schemaname = 'public'
        UNION ALL SELECT 'k:' || conrelid::regclass || ':' || conname || ':'
            || pg_get_constraintdef(oid) FROM pg_constraint
            WHERE connamespace = 'public'::regnamespace
        UNION ALL SELECT 's:' || sequence_name FROM information_schema.sequences
        UNION ALL SELECT 't:' || tgname FROM pg_trigger WHERE NOT tgisinternal
        UNION ALL SELECT 'f:' || proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace
        UNION ALL SELECT 'n:' || nspname FROM pg_namespace
        UNION ALL SELECT 'v:' || version_num FROM alembic_version
    ) AS parts
    """
)


class DatabasePool:
    """Fresh copies of the template database, ready before the tests that take them.

    ``CREATE DATABASE … TEMPLATE`` takes most of a second (it checkpoints), so a thread of
    the pool's own makes a few ahead, and recycles each database a test gave back: its
    connections are cut, and when its schema is still the template's (and it allows
    connections) every row is deleted and every sequence restarted, which leaves it equal
    to a new copy; anything else is dropped and replaced by a new copy. Either way a test
    gets a database with the template's schema and no rows. A test that finds none ready
    waits for the next recycled one (a new copy is made only when none is on its way back),
    so the pool grows only to the number of databases in use at once. A failure to make one
    is raised in the test that asks for it."""

    def __init__(self, admin: Engine, template: str, ahead: int = 3) -> None:
        self._admin = admin
        self._ready: queue.Queue[str | BaseException] = queue.Queue()
        self._work: queue.Queue[str | None] = queue.Queue()  # "" makes one, a name recycles it
        self._template = template
        self._lock = threading.Lock()
        self._coming = 0  # databases being made or recycled: each will be ready
        self._schema = self._fingerprint(template)
        with closing(self._connect(template)) as conn:
            sequences = conn.execute(
                text("SELECT sequence_name FROM information_schema.sequences")
            ).scalars()
            # One round trip empties a database: every row deleted, every sequence restarted.
            self._reset = "; ".join(
                [f'DELETE FROM "{t.name}"' for t in reversed(Base.metadata.sorted_tables)]
                + [f'ALTER SEQUENCE "{name}" RESTART' for name in sequences]
            )
        self._thread = threading.Thread(target=self._run, name="test-databases", daemon=True)
        self._thread.start()
        for _ in range(ahead):
            self._order("")

    def _connect(self, name: str) -> Connection:
        return create_engine(_url_of(self._admin, name), poolclass=NullPool).connect()

    def _fingerprint(self, name: str) -> str:
        with closing(self._connect(name)) as conn:
            return str(conn.execute(_SCHEMA).scalar())

    def _order(self, name: str) -> None:
        with self._lock:
            self._coming += 1
        self._work.put(name)

    def _recycle(self, name: str) -> bool:
        """Empty ``name`` for the next test if it is still the template's; False if not."""
        with self._admin.connect() as conn:
            allowed = conn.execute(
                text(
                    "SELECT datallowconn, (SELECT count(pg_terminate_backend(pid))"
                    " FROM pg_stat_activity WHERE datname = :n AND pid <> pg_backend_pid())"
                    " FROM pg_database WHERE datname = :n"
                ),
                {"n": name},
            ).scalar()
        if allowed is not True:
            return False
        with closing(self._connect(name)) as conn:
            if str(conn.execute(_SCHEMA).scalar()) != self._schema:
                return False
            conn.exec_driver_sql(self._reset)
            conn.commit()
        return True

    def _run(self) -> None:
        while (name := self._work.get()) is not None:
            try:
                if not (name and self._recycle(name)):
                    if name:
                        _drop_database(self._admin, name)
                    name = _create_database(self._admin, self._template)
                got: str | BaseException = name
            except BaseException as exc:  # raised in the test that waits for a database
                got = exc
            with self._lock:
                self._coming -= 1
            self._ready.put(got)

    def take(self) -> str:
        """A database equal to a fresh copy of the template, for one test."""
        try:
            got = self._ready.get_nowait()
        except queue.Empty:
            with self._lock:
                make = self._coming == 0
            if make:
                self._order("")
            got = self._ready.get(timeout=120)
        if isinstance(got, BaseException):
            raise got
        return got

    def give_back(self, name: str) -> None:
        """The test is over: recycle its database (in the pool's thread)."""
        self._order(name)

    def close(self) -> None:
        self._work.put(None)
        self._thread.join(timeout=120)
        while not self._ready.empty():
            left = self._ready.get()
            if isinstance(left, str):
                _drop_database(self._admin, left)


@pytest.fixture(scope="session")
def postgres_pool(postgres_server: Engine, postgres_template: str) -> Iterator[DatabasePool]:
    pool = DatabasePool(postgres_server, postgres_template)
    yield pool
    pool.close()


@pytest.fixture
def postgres_url(postgres_server: Engine, postgres_pool: DatabasePool) -> Iterator[str]:
    """A migrated PostgreSQL database of this test's own, copied from the template."""
    name = postgres_pool.take()
    yield _url_of(postgres_server, name)
    postgres_pool.give_back(name)


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A migrated SQLite database of this test's own, copied from the template."""
    path = tmp_path / "studybot.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def empty_sqlite_url(tmp_path: Path) -> str:
    """A SQLite path with no database yet (for tests of migrating itself)."""
    return f"sqlite:///{tmp_path / 'empty.db'}"


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest) -> str:
    """A migrated database of this test's own: a SQLite file, or a PostgreSQL database."""
    fixture = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    url: str = request.getfixturevalue(fixture)
    return url


@pytest.fixture
def clock() -> SimulatedClock:
    return SimulatedClock(START)


@pytest.fixture(scope="session")
def sample_bank() -> QuestionBank:
    """The sample pack's questions, read and validated once per worker: a bank, its
    questions and their packs are immutable, so every test can be given the same one."""
    return QuestionBank.from_packs([load_pack(SAMPLE_PACK)])


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, sample_bank: QuestionBank) -> Iterator[App]:
    application = bootstrap(
        Settings(studybot_database_url=db_url), clock=clock, bank=sample_bank, auto_migrate=True
    )
    yield application
    application.close()


@pytest.fixture
def chat(app: App) -> Iterator[Transcript]:
    transcript = Transcript(app)
    transcript.start()
    yield transcript

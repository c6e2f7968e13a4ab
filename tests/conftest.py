"""Shared fixtures: a database per test (SQLite always, PostgreSQL when configured),
a simulated clock, the wired app, and a console that reads like a chat transcript."""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import create_engine, text

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from tests.support import Transcript

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PACK = ROOT / "content" / "packs" / "sample.yaml"
POSTGRES_URL = os.environ.get("STUDYBOT_TEST_POSTGRES_URL", "")
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday

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


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """Commands under test may set up logging on a stream pytest closes afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A database of its own for this test run on the configured PostgreSQL server."""
    if not POSTGRES_URL:
        pytest.skip("STUDYBOT_TEST_POSTGRES_URL is not set")
    name = f"studybot_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.url.set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _reset_postgres(url: str) -> None:
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: a SQLite file, or a clean schema on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'studybot.db'}"
    url: str = request.getfixturevalue("postgres_database")
    _reset_postgres(url)
    return url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'studybot.db'}"


@pytest.fixture
def clock() -> SimulatedClock:
    return SimulatedClock(START)


@pytest.fixture
def sample_bank() -> QuestionBank:
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
    asyncio.run(transcript.session.start())
    yield transcript

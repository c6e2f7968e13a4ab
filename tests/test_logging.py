"""A running bot logs what an operator needs (start, connections, each due job that did
something, errors once with the reason) and is quiet otherwise."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from datetime import datetime

import pytest

from bot.bootstrap import bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.context import Services
from bot.core.ports import UnitOfWork
from bot.logging_setup import CHATTY, OncePerOutage, setup_logging


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def reconnects() -> Iterator[tuple[logging.Logger, Records]]:
    logger = logging.getLogger("tests.reconnects")
    handler = Records()
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addFilter(
        OncePerOutage("Slack", "Failed to connect", ("has been established",), ("abandoned",))
    )
    yield logger, handler
    logger.removeHandler(handler)
    logger.filters.clear()


@pytest.mark.parametrize("name", CHATTY)
def test_at_the_default_level_the_chatty_libraries_say_only_warnings(name: str) -> None:
    setup_logging("INFO")
    library = logging.getLogger(f"{name}.inner")
    assert not library.isEnabledFor(logging.INFO)
    assert library.isEnabledFor(logging.WARNING)
    assert logging.getLogger("bot.runtime").isEnabledFor(logging.INFO)
    setup_logging("DEBUG")
    assert library.isEnabledFor(logging.DEBUG)


def test_a_run_of_failed_reconnections_is_one_warning_with_the_reason(
    reconnects: tuple[logging.Logger, Records],
) -> None:
    logger, handler = reconnects
    for _ in range(3):
        try:
            raise ConnectionRefusedError("Connect call failed ('127.0.0.1', 9)")
        except ConnectionRefusedError as exc:
            logger.exception(f"Failed to connect (error: {exc}); Retrying...")
    logger.info("A new session (s_1) has been established")
    logger.info("The current session (s_1) has been abandoned by disconnect() method call")
    logger.exception("Failed to connect (error: timeout); Retrying...")

    seen = [(r.levelname, r.getMessage(), r.exc_info) for r in handler.records]
    assert seen == [
        (
            "WARNING",
            "Slack: Failed to connect (error: Connect call failed ('127.0.0.1', 9)); Retrying... "
            "(ConnectionRefusedError: Connect call failed ('127.0.0.1', 9)); said once until it "
            "reconnects",
            None,
        ),
        ("INFO", "Slack: reconnected", None),
        ("WARNING", "Slack: Failed to connect (error: timeout); Retrying...; said once until "
         "it reconnects", None),
    ]  # fmt: skip


class CountingJob:
    """A due job that does ``todo`` items on its first run, then nothing."""

    name = "counting"

    def __init__(self, todo: int) -> None:
        self.todo = todo

    def next_due(self, uow: UnitOfWork) -> datetime | None:
        return None

    def run(self, uow: UnitOfWork, services: Services, now: datetime) -> int:
        done, self.todo = self.todo, 0
        return done


def test_a_due_job_that_did_something_is_logged_and_one_that_did_nothing_is_not(
    sqlite_url: str, clock: SimulatedClock, sample_bank: QuestionBank,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    app = bootstrap(
        Settings(studybot_database_url=sqlite_url), clock=clock, bank=sample_bank,
        jobs=[CountingJob(3)],
    )  # fmt: skip
    try:
        with caplog.at_level(logging.INFO, logger="bot.scheduler"):
            asyncio.run(app.runner.run_due())
            asyncio.run(app.runner.run_due())
    finally:
        app.close()
    assert [r.getMessage() for r in caplog.records if r.name == "bot.scheduler"] == [
        "due job counting: 3 done"
    ]

"""The console's edge: a line whose handling fails gets a short apology; the failure is
logged once with its traceback and counted, and its text is never shown."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.app import APOLOGY
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from tests.support import (
    SECRET_DETAIL,
    Transcript,
    event_errors,
    failing_grader,
    logged_failures,
    row_counts,
)


@pytest.fixture
def broken_app(db_url: str, clock: SimulatedClock, sample_bank: QuestionBank) -> Iterator[App]:
    app = bootstrap(
        Settings(studybot_database_url=db_url), clock=clock, bank=sample_bank, grade=failing_grader
    )
    yield app
    app.close()


def test_a_failing_line_gets_an_apology_and_is_logged_once_and_counted(
    broken_app: App, caplog: pytest.LogCaptureFixture
) -> None:
    chat = Transcript(broken_app)
    chat.send("/daily")
    before, counts = event_errors("console"), row_counts(broken_app)
    with caplog.at_level(logging.INFO):
        replies = chat.send("/answer A")
    assert [m.text for m in replies] == [APOLOGY]
    assert all(SECRET_DETAIL not in m.text for m in chat.messages)
    failures = logged_failures(caplog.records)
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert event_errors("console") == before + 1
    assert row_counts(broken_app) == counts  # the failed answer left nothing behind

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


def test_the_console_printer_gate_works_in_every_event_loop_it_is_used_in() -> None:
    """Piped input runs each line in an event loop of its own: a send that waited for the
    printer in one loop must not break every send of the next ("bound to a different event
    loop", which lost a mock's scorecard now and then)."""
    import asyncio

    from bot.adapters.console.session import ConsoleNotifier
    from bot.core.messages import say

    printed: list[str] = []
    notifier = ConsoleNotifier(lambda m: printed.append(m.text))

    async def a_line_that_ends_while_a_send_waits() -> None:
        notifier.hold()
        waiting = asyncio.ensure_future(notifier.send(say("alice", "queued")))
        await asyncio.sleep(0)
        assert not waiting.done()
        waiting.cancel()

    async def the_next_line() -> None:
        notifier.hold()
        later = asyncio.ensure_future(notifier.send(say("alice", "after the reply")))
        await asyncio.sleep(0)
        notifier.release()
        assert await later == "console-1"

    asyncio.run(a_line_that_ends_while_a_send_waits())
    asyncio.run(the_next_line())
    assert printed == ["after the reply"]

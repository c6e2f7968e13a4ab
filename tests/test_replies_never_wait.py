"""A user's reply goes out at once, whatever the outbox is doing: delivery runs beside it.

Each test holds a daily fan-out up on a slow platform and checks that a /help and an answer
sent meanwhile are answered while the fan-out is still held (a reply that waited for it would
never come), within 100 ms, then that the fan-out still completes. The bound is checked on the
fastest of three tries and scales with the same reply's time before the fan-out
(``tests.support.reply_bound``), so that a loaded machine does not fail it; bench/ measures the
figure itself.
"""

from __future__ import annotations

import asyncio
import time

from sqlalchemy import select

from bot.adapters.console.session import PLATFORM, WORKSPACE, ConsoleNotifier, ConsoleSession
from bot.bootstrap import App
from bot.core.clock import SimulatedClock
from bot.core.content import Question
from bot.core.messages import Delivery, Outgoing
from bot.db.models import DailyPromptRow
from tests.support import reply_bound, seed_channels

FAN_OUT = 60
TRIES = 3
IDLE_USERS = ("dave", "erin", "frank")


class HeldNotifier:
    """A slow platform: every send waits until ``release`` is set."""

    def __init__(self, inner: ConsoleNotifier) -> None:
        self.inner = inner
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()

    async def send(self, message: Outgoing) -> str | None:
        self.waiting.set()
        await self.release.wait()
        return await self.inner.send(message)


class TimedPrinter:
    """What the console printed, with when."""

    def __init__(self) -> None:
        self.printed: list[tuple[float, Outgoing]] = []

    def __call__(self, message: Outgoing) -> None:
        self.printed.append((time.perf_counter(), message))

    def since(self, started: float) -> list[tuple[float, Outgoing]]:
        return [(at - started, m) for at, m in self.printed if at >= started]


async def _answered_within(
    session: ConsoleSession, printer: TimedPrinter, line: str
) -> tuple[float, Outgoing]:
    """Type ``line`` while the fan-out is held; how long its private reply took to print."""
    started = time.perf_counter()
    typed = asyncio.create_task(session.handle_line(line))
    await asyncio.wait_for(typed, 5)  # it must not wait for the held fan-out at all
    private = [(s, m) for s, m in printer.since(started) if m.delivery is Delivery.PRIVATE]
    assert private, f"no reply to {line!r}"
    return private[0]


async def test_console_replies_do_not_wait_for_a_slow_fan_out(
    app: App, clock: SimulatedClock
) -> None:
    printer = TimedPrinter()
    session = ConsoleSession(app, user="alice", channel="general", tz=None, emit=printer)
    await session.start()
    await session.handle_line("/daily")
    await session.settle()
    question = app.services.bank.get(daily_question_id(app))
    assert question is not None

    idle_help = min([(await _answered_within(session, printer, "/help"))[0] for _ in range(TRIES)])
    idle_answer = min([await _answer_as(session, printer, name, question) for name in IDLE_USERS])
    held = HeldNotifier(app.notifiers[PLATFORM])  # type: ignore[arg-type]
    app.register_notifier(PLATFORM, held)
    seed_channels(app, FAN_OUT, clock.now(), platform=PLATFORM, workspace=WORKSPACE)
    assert await app.runner.run_due() == FAN_OUT  # the posts are queued, not yet sent
    await asyncio.wait_for(held.waiting.wait(), 10)

    helps = [await _answered_within(session, printer, "/help") for _ in range(TRIES)]
    assert all(reply.card.title == "studybot commands" for _, reply in helps)
    fastest = min(seconds for seconds, _ in helps)
    assert fastest < reply_bound(idle_help), (
        f"/help took {fastest * 1000:.0f} ms behind the fan-out"
    )
    answers = []
    for name in ("alice", "bob", "carol"):
        await session.handle_line(f"/as {name}")
        answers.append(await _answered_within(session, printer, f"/answer {question.answer_text}"))
    assert not held.release.is_set()  # every reply above came while the fan-out was held
    for _, grade in answers:
        assert "+" in grade.text and "points" in grade.text  # each one's scored answer
    fastest = min(seconds for seconds, _ in answers)
    assert fastest < reply_bound(idle_answer), f"an answer took {fastest * 1000:.0f} ms behind it"

    held.release.set()
    await session.settle()
    posts = [m for _, m in printer.printed if m.delivery is Delivery.CHANNEL]
    assert len(posts) == FAN_OUT + 1  # every channel's question went out after all
    await session.stop()


async def _answer_as(
    session: ConsoleSession, printer: TimedPrinter, name: str, question: Question
) -> float:
    """How long ``name``'s scored answer took to be graded, with nothing held."""
    await session.handle_line(f"/as {name}")
    seconds, grade = await _answered_within(session, printer, f"/answer {question.answer_text}")
    assert "+" in grade.text and "points" in grade.text
    return seconds


def daily_question_id(app: App) -> str:
    """The question of the one daily prompt posted so far."""
    with app.session_factory() as db:
        return db.scalars(select(DailyPromptRow.question_id)).one()

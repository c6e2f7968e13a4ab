"""A mock round on Slack, answered as people write in chat: several replies in the mock's
thread make one answer, and the round card's Done button (or a reply saying done) closes it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.bootstrap import bootstrap
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.content import load_pack
from bot.db.models import MockRoundRow, OutboxRow
from tests.adapters.slack.conftest import dispatch, slack_settings
from tests.adapters.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.adapters.slack.payloads import click, message_event, slash
from tests.test_mock import PACK


@pytest.fixture
async def slack(
    fake_slack: FakeSlack, db_url: str, clock: SimulatedClock, tmp_path: Path
) -> AsyncIterator[SlackAdapter]:
    path = tmp_path / "mocktest.yaml"
    path.write_text(PACK, encoding="utf-8")
    app = bootstrap(
        slack_settings(fake_slack, db_url),
        clock=clock,
        bank=QuestionBank.from_packs([load_pack(path)]),
        auto_migrate=True,
    )
    adapter = SlackAdapter(app, app.settings)
    yield adapter
    await adapter.stop()
    await app.stop()
    app.close()


def rounds(slack: SlackAdapter) -> list[tuple[str | None, str | None, float | None]]:
    """(answer, outcome, score) of each round."""
    with slack.app.session_factory() as session:
        rows = session.scalars(select(MockRoundRow).order_by(MockRoundRow.position))
        return [(r.answer, r.outcome, r.score) for r in rows]


async def running_mock(slack: SlackAdapter, fake: FakeSlack, clock: SimulatedClock) -> str:
    """A solo technical mock that has just started in the channel; its thread's ts."""
    await dispatch(slack, slash("/mock", "schedule in 1 hour technical"))
    await slack.settled()
    clock.advance(timedelta(hours=1))
    await slack.app.runner.run_due_and_deliver()
    with slack.app.session_factory() as session:
        ref = session.scalar(select(OutboxRow.message_ref).where(OutboxRow.key == "mock:1:open"))
    assert ref is not None
    return ref.split(":", 1)[1]


def reply(text: str, thread: str, n: int) -> str:
    return message_event(
        text,
        thread_ts=thread,
        parent_user_id=BOT_USER_ID,
        ts=f"1700000200.00000{n}",
        event_id=f"EvMock{n}",
    )


async def test_replies_in_the_thread_gather_into_one_answer_until_done_is_pressed(
    slack: SlackAdapter, fake_slack: FakeSlack, clock: SimulatedClock
) -> None:
    thread = await running_mock(slack, fake_slack, clock)
    (card,) = fake_slack.called("chat.postMessage", where=lambda c: "round 1 of 3" in str(c.args))
    assert "mock:1:0:done" in str(card.blocks())  # the round card has a Done button
    await dispatch(slack, reply("isolation", thread, 1))
    await slack.settled()  # the listener answers in the background: one message, then the next
    await dispatch(slack, reply("and also latency", thread, 2))
    await slack.settled()
    assert rounds(slack)[:2] == [("isolation\nand also latency", None, None), (None, None, None)]
    await dispatch(slack, click("mock:1:0:done"))
    await slack.settled()
    assert rounds(slack)[:2] == [
        ("isolation\nand also latency", "answered", 1.0),
        (None, None, None),  # round 2 starts empty: nothing of round 1 spills into it
    ]
    graded = fake_slack.called("chat.postEphemeral", where=lambda c: "covers" in str(c.args))
    assert "Round 1 answer recorded: it covers 100% of the rubric" in str(graded[-1].args)


async def test_a_reply_saying_done_closes_the_round_as_the_button_does(
    slack: SlackAdapter, fake_slack: FakeSlack, clock: SimulatedClock
) -> None:
    thread = await running_mock(slack, fake_slack, clock)
    await dispatch(slack, reply("isolation only", thread, 1))
    await slack.settled()
    await dispatch(slack, reply("Done.", thread, 2))
    await slack.settled()
    assert rounds(slack)[:2] == [("isolation only", "answered", 0.5), (None, None, None)]

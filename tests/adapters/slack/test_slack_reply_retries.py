"""A grade that Slack could not take at once (an HTTP 500, two 429s in a row) still reaches
the user: the outbox retries the private reply until it is stale, then drops it with a log
line. The first try is still immediate: nothing waits for the outbox when Slack answers."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.adapters.slack.sender import SlackNotifier
from bot.bootstrap import REPLY_STALE_AFTER
from bot.core.clock import SimulatedClock
from bot.db.models import OutboxRow
from tests.adapters.slack.conftest import dispatch
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import USER, click
from tests.adapters.slack.test_slack_app import answers, post_daily, shown_daily, text_of


def _reply_rows(slack: SlackAdapter) -> list[OutboxRow]:
    with slack.app.session_factory() as session:
        return list(session.scalars(select(OutboxRow).where(OutboxRow.key.like("reply:%"))))


async def _click_an_answer(slack: SlackAdapter, fake_slack: FakeSlack) -> None:
    post = await post_daily(slack, fake_slack)
    await dispatch(slack, click(post.buttons()[0]["value"]))
    await slack.settled()


async def test_a_grade_that_slack_answered_with_500_is_sent_again_by_the_outbox(
    slack: SlackAdapter, fake_slack: FakeSlack, clock: SimulatedClock
) -> None:
    fake_slack.server_error("chat.postEphemeral")
    await _click_an_answer(slack, fake_slack)
    assert await answers(slack) == ["A"]
    (row,) = _reply_rows(slack)
    assert row.status == "pending"
    clock.advance(timedelta(seconds=5))
    await slack.app.runner.deliverer.settle()
    calls = fake_slack.called("chat.postEphemeral")
    assert len(calls) == 2  # the refused one, then the outbox's
    assert calls[1].args["user"] == USER
    question = shown_daily(slack)
    right = question.choices.index(question.correct[0]) == 0  # A, the button clicked
    assert ("(100%)" if right else "(0%)") in text_of(calls[1])
    assert [r.status for r in _reply_rows(slack)] == ["sent"]


async def test_a_grade_rate_limited_twice_is_sent_when_slack_allows(
    slack: SlackAdapter, fake_slack: FakeSlack, clock: SimulatedClock
) -> None:
    fake_slack.rate_limit("chat.postEphemeral", retry_after=0, times=2)
    await _click_an_answer(slack, fake_slack)
    await slack.app.runner.deliverer.settle()
    calls = fake_slack.called("chat.postEphemeral")
    assert len(calls) == 3
    assert "%)" in text_of(calls[2])
    assert [r.status for r in _reply_rows(slack)] == ["sent"]


async def test_a_grade_slack_never_takes_is_dropped_when_stale_with_a_log_line(
    slack: SlackAdapter,
    fake_slack: FakeSlack,
    clock: SimulatedClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_slack.server_error("chat.postEphemeral", times=1000)
    # Each retry is paced in real time like any message to the channel (bursts of 3, then
    # one a second: test_slack_delivery.py), while the simulated clock jumps to the next
    # try: a larger burst spares the test a real second per try, and paces nothing else.
    assert isinstance(slack.notifier, SlackNotifier)
    slack.notifier.channel_burst = 100
    with caplog.at_level(logging.WARNING):
        await _click_an_answer(slack, fake_slack)
        deadline = clock.now() + REPLY_STALE_AFTER
        while (row := _reply_rows(slack)[0]).status == "pending":
            assert clock.now() <= deadline
            clock.set(max(row.next_attempt_at, clock.now()))
            await slack.app.runner.deliverer.settle()
    assert row.status == "failed"
    assert row.tries > 3
    logged = [r.getMessage() for r in caplog.records]
    assert any("the outbox retries it until" in m for m in logged)
    assert sum("dropped outbox message" in m and USER in m for m in logged) == 1


async def test_a_grade_slack_refuses_for_good_is_not_retried(
    slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("chat.postEphemeral", "invalid_blocks")
    await _click_an_answer(slack, fake_slack)
    assert _reply_rows(slack) == []

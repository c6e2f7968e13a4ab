"""PostgreSQL down while users act: every request is still acknowledged at once, each user
is told to try again shortly, the log says once what is wrong (not a traceback per request)
and once that it is back, and the bot recovers by itself."""

from __future__ import annotations

import logging
import time

import pytest
from sqlalchemy import Engine

from bot.adapters.slack import SlackAdapter
from bot.bootstrap import bootstrap
from bot.core.clock import SimulatedClock
from bot.db.outage import TRY_AGAIN
from tests.adapters.slack.conftest import bank_of, dispatch, slack_settings
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import click
from tests.adapters.slack.test_slack_app import answers, post_daily, text_of
from tests.support import database_down

pytestmark = pytest.mark.postgres
CLICKS = 12
ACK_WITHIN = 3.0  # Slack's deadline for the acknowledgement


async def test_while_the_database_is_down_users_are_told_to_try_again_and_it_is_logged_once(
    fake_slack: FakeSlack,
    postgres_url: str,
    postgres_server: Engine,
    clock: SimulatedClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = bootstrap(slack_settings(fake_slack, postgres_url), clock=clock, bank=bank_of("choice"))
    slack = SlackAdapter(app, app.settings)
    try:
        post = await post_daily(slack, fake_slack)
        value = post.buttons()[0]["value"]
        before = len(fake_slack.called("chat.postEphemeral"))
        with caplog.at_level(logging.INFO), database_down(postgres_server, postgres_url):
            for _ in range(CLICKS):
                started = time.monotonic()
                response = await dispatch(slack, click(value))
                assert response.status == 200
                assert time.monotonic() - started < ACK_WITHIN
            await slack.settled()
            told = fake_slack.called("chat.postEphemeral")[before:]
            during = list(caplog.records)
        assert [text_of(c) for c in told] == [TRY_AGAIN] * CLICKS
        said = [r for r in during if "database is not answering" in r.getMessage()]
        assert len(said) == 1
        assert not [r for r in during if r.exc_info is not None], "a traceback per request"

        # Back up: the next click is graded, and the log says the outage is over.
        with caplog.at_level(logging.INFO):
            await dispatch(slack, click(value))
            await slack.settled()
        assert await answers(slack) == ["A"]
        assert any("database answers again" in r.getMessage() for r in caplog.records)
    finally:
        await slack.stop()
        app.close()

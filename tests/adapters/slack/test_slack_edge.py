"""The Slack adapter's edge: a request whose handling fails still gets the user a short
apology; the failure is logged once with its traceback and counted, and its text is never
shown."""

from __future__ import annotations

import logging

import pytest

from bot.core.app import APOLOGY
from tests.adapters.slack.conftest import AdapterFactory, dispatch
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import CHANNEL, USER, click, slash
from tests.adapters.slack.test_slack_app import post_daily, text_of
from tests.support import SECRET_DETAIL, event_errors, failing_grader, logged_failures


@pytest.mark.parametrize("how", ["button", "slash command"])
async def test_a_failing_answer_gets_an_apology_and_is_logged_once_and_counted(
    how: str,
    make_adapter: AdapterFactory,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    slack = make_adapter("choice", grade=failing_grader)
    post = await post_daily(slack, fake_slack)
    before = event_errors("slack")
    body = click(post.buttons()[0]["value"]) if how == "button" else slash("/answer", "A")
    with caplog.at_level(logging.INFO):
        response = await dispatch(slack, body)
        apology = (await fake_slack.wait_for("chat.postEphemeral"))[0]
        await slack.settled()
    assert response.status == 200
    assert (apology.args["user"], apology.args["channel"]) == (USER, CHANNEL)
    assert text_of(apology) == APOLOGY
    assert SECRET_DETAIL not in json_of_every_call(fake_slack)
    failures = logged_failures(caplog.records)
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert event_errors("slack") == before + 1


def json_of_every_call(fake: FakeSlack) -> str:
    return " ".join(str(call.args) for call in fake.calls)

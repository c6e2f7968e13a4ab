"""The Discord adapter's edge: an interaction whose handling fails is still answered with a
short apology, privately; the failure is logged once with its traceback and counted, and
its text is never shown."""

from __future__ import annotations

import json
import logging

import pytest
from nacl.signing import SigningKey

from bot.core.app import APOLOGY
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import bank_of, running_adapter
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support import SECRET_DETAIL, event_errors, failing_grader, logged_failures


async def test_a_failing_click_gets_an_apology_and_is_logged_once_and_counted(
    db_url: str,
    clock: SimulatedClock,
    sample_bank: QuestionBank,
    fake: FakeDiscord,
    signing_key: SigningKey,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with running_adapter(db_url, clock, bank, fake, signing_key, grade=failing_grader) as (
        app,
        _,
    ):
        await fake.dispatch("INTERACTION_CREATE", p.command("daily"))
        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        await app.runner.deliverer.settle()
        custom_id = post.json["components"][0]["components"][0]["custom_id"]
        before = event_errors("discord")
        click = p.button(custom_id, fake.first_with_buttons())
        with caplog.at_level(logging.INFO):
            await fake.dispatch("INTERACTION_CREATE", click)
            callback = await fake.wait_call("POST", rf"^/interactions/{click['id']}/")
            await app.runner.deliverer.settle()
    assert callback.json["type"] == 4
    assert callback.json["data"]["flags"] & 64  # only the clicker sees it
    assert APOLOGY in json.dumps(callback.json)
    assert all(SECRET_DETAIL not in json.dumps(call.json) for call in fake.calls)
    failures = logged_failures(caplog.records)
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert event_errors("discord") == before + 1

"""PostgreSQL down while a Discord user clicks: the interaction is still answered, privately,
with "try again in a minute", the log says it once, and the next click after the database is
back is graded."""

from __future__ import annotations

import json
import logging

import pytest
from nacl.signing import SigningKey
from sqlalchemy import Engine, select

from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.db.models import AttemptRow
from bot.db.outage import TRY_AGAIN
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import bank_of, running_adapter
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support import database_down

pytestmark = pytest.mark.postgres
CLICKS = 5


async def test_a_click_while_the_database_is_down_is_told_to_try_again(
    postgres_url: str,
    postgres_server: Engine,
    clock: SimulatedClock,
    sample_bank: QuestionBank,
    fake: FakeDiscord,
    signing_key: SigningKey,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with running_adapter(postgres_url, clock, bank, fake, signing_key) as (app, adapter):
        await fake.dispatch("INTERACTION_CREATE", p.command("daily"))
        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        await app.runner.deliverer.settle()
        custom_id = post.json["components"][0]["components"][0]["custom_id"]
        with caplog.at_level(logging.INFO), database_down(postgres_server, postgres_url):
            callbacks = []
            for _ in range(CLICKS):
                click = p.button(custom_id, fake.first_with_buttons())
                await fake.dispatch("INTERACTION_CREATE", click)
                callbacks.append(await fake.wait_call("POST", rf"^/interactions/{click['id']}/"))
            await adapter.client.handler.drain()
            during = list(caplog.records)
        for callback in callbacks:
            assert callback.json["data"]["flags"] & 64
            assert TRY_AGAIN in json.dumps(callback.json)
        assert sum("database is not answering" in r.getMessage() for r in during) == 1
        assert not [r for r in during if r.exc_info is not None]

        click = p.button(custom_id, fake.first_with_buttons())
        await fake.dispatch("INTERACTION_CREATE", click)
        await fake.wait_call("POST", rf"^/interactions/{click['id']}/")
        await adapter.client.handler.drain()
        with app.session_factory() as session:
            assert len(session.scalars(select(AttemptRow)).all()) == 1

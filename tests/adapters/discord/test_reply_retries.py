"""A grade Discord did not take as the interaction's answer (a 429 from outside its rate
limiter, a 5xx) still reaches the user: the outbox sends it by DM, the one way Discord has
to reach a user privately later."""

from __future__ import annotations

from datetime import timedelta

from nacl.signing import SigningKey
from sqlalchemy import select

from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.db.models import AttemptRow, OutboxRow
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import bank_of, running_adapter
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_a_grade_discord_refused_as_the_answer_comes_by_dm(
    db_url: str,
    clock: SimulatedClock,
    sample_bank: QuestionBank,
    fake: FakeDiscord,
    signing_key: SigningKey,
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with running_adapter(db_url, clock, bank, fake, signing_key) as (app, adapter):
        await fake.dispatch("INTERACTION_CREATE", p.command("daily"))
        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        await app.runner.deliverer.settle()
        custom_id = post.json["components"][0]["components"][0]["custom_id"]
        click = p.button(custom_id, fake.first_with_buttons())
        fake.refuse("POST", rf"^/interactions/{click['id']}/", 429)
        await fake.dispatch("INTERACTION_CREATE", click)
        await fake.wait_call("POST", rf"^/interactions/{click['id']}/")
        await adapter.client.handler.drain()
        clock.advance(timedelta(seconds=5))  # the outbox's first retry
        await app.runner.deliverer.settle()
        dm = await fake.wait_call("POST", r"^/users/@me/channels$")
        dm_channel = p.dm_channel_id(p.USER_ID)
        sent = await fake.wait_call("POST", rf"^/channels/{dm_channel}/messages$")
        with app.session_factory() as session:
            rows = session.scalars(select(OutboxRow).where(OutboxRow.key.like("reply:%"))).all()
            attempts = session.scalars(select(AttemptRow.answer)).all()
    assert str(dm.json["recipient_id"]) == p.USER_ID
    assert "%)" in str(sent.json)
    assert [r.status for r in rows] == ["sent"]
    assert len(attempts) == 1

"""HTTP interactions: signed requests through the real ASGI app served by uvicorn."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import aiohttp
import pytest
from nacl.signing import SigningKey
from sqlalchemy import select

from bot.bootstrap import App
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.display import daily_seed, displayed
from bot.db.models import AttemptRow
from bot.web import MAX_BODY, create_web_app
from tests.adapters.discord import payloads as p
from tests.adapters.discord.conftest import bank_of, running_adapter, served
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support import raw_post, right_letter, row_counts


def signed(key: SigningKey, body: bytes, timestamp: int) -> dict[str, str]:
    """Headers as Discord sends them: Ed25519 over timestamp + body."""
    signature = key.sign(str(timestamp).encode() + body).signature.hex()
    return {
        "X-Signature-Ed25519": signature,
        "X-Signature-Timestamp": str(timestamp),
        "Content-Type": "application/json",
    }


class Endpoint:
    def __init__(self, url: str, key: SigningKey, clock: SimulatedClock, app: App) -> None:
        self.url = url + "/discord/interactions"
        self.key = key
        self.clock = clock
        self.app = app

    async def post(
        self,
        payload: dict[str, Any],
        *,
        key: SigningKey | None = None,
        age: timedelta = timedelta(0),
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        body = json.dumps(payload).encode()
        timestamp = int((self.clock.now() - age).timestamp())
        sent = headers if headers is not None else signed(key or self.key, body, timestamp)
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.url, data=body, headers=sent) as response,
        ):
            text = await response.text()
            return response.status, json.loads(text) if text else None


@asynccontextmanager
async def endpoint(
    db_url: str,
    clock: SimulatedClock,
    bank: QuestionBank,
    fake: FakeDiscord,
    key: SigningKey,
    **overrides: Any,
) -> AsyncIterator[Endpoint]:
    overrides.setdefault("studybot_discord_gateway", False)  # HTTP interactions mode
    async with (
        running_adapter(db_url, clock, bank, fake, key, **overrides) as (app, adapter),
        served(create_web_app(app, adapter.routes())) as url,
    ):
        yield Endpoint(url, key, clock, app)


async def test_ping_gets_pong(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with endpoint(db_url, clock, sample_bank, fake, signing_key) as ep:
        assert await ep.post(p.ping()) == (200, {"type": 1})
    assert fake.identify is None  # HTTP mode: no gateway connection


async def test_bad_missing_or_stale_signatures_get_401_and_change_nothing(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with endpoint(db_url, clock, sample_bank, fake, signing_key) as ep:
        before = row_counts(ep.app)
        command = p.command("tz", [{"type": 3, "name": "zone", "value": "Asia/Tokyo"}])
        body = json.dumps(command).encode()
        now = int(clock.now().timestamp())
        tampered = signed(signing_key, b"{}", now)
        cases = [
            await ep.post(command, key=SigningKey.generate()),  # someone else's key
            await ep.post(command, headers={"Content-Type": "application/json"}),  # unsigned
            await ep.post(command, age=timedelta(minutes=10)),  # stale
            await ep.post(command, headers=tampered),  # signature of another body
            await ep.post(
                command, headers={**signed(signing_key, body, now), **{"X-Signature-Ed25519": "zz"}}
            ),  # not hex
            await ep.post(p.ping(), key=SigningKey.generate()),
        ]
        assert [status for status, _ in cases] == [401] * len(cases)
        assert row_counts(ep.app) == before
    assert fake.callbacks() == []


async def test_daily_over_http_posts_buttons_and_a_click_is_graded_in_the_response(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    question = bank.all()[0]
    async with endpoint(db_url, clock, bank, fake, signing_key) as ep:
        command = p.command("daily")
        status, body = await ep.post(command)
        assert (status, body) == (200, {"type": 5, "data": {"flags": 64}})
        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        await fake.wait_call("DELETE", rf"^/webhooks/{p.APP_ID}/{command['token']}/messages/")
        buttons = [c for row in post.json["components"] for c in row["components"]]
        right = right_letter(displayed(question, daily_seed(1)))  # as the post shows it
        button = next(b for b in buttons if b["custom_id"].endswith(f":{right}"))

        status, body = await ep.post(p.button(button["custom_id"], fake.first_with_buttons()))
        with ep.app.session_factory() as session:
            attempts = session.scalars(select(AttemptRow)).all()
    assert status == 200 and body["type"] == 4
    assert body["data"]["flags"] == 64
    assert "Correct" in body["data"]["embeds"][0]["description"]
    assert [a.score for a in attempts] == [1.0]


async def test_a_form_button_answers_with_a_modal_and_the_submission_is_graded(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "numeric")
    async with endpoint(db_url, clock, bank, fake, signing_key) as ep:
        await ep.post(p.command("daily"))
        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        custom_id = post.json["components"][0]["components"][0]["custom_id"]

        status, modal = await ep.post(p.button(custom_id, fake.first_with_buttons()))
        assert status == 200 and modal["type"] == 9
        text_input = modal["data"]["components"][0]["components"][0]
        submit = p.modal_submit(modal["data"]["custom_id"], "8", input_id=text_input["custom_id"])
        status, graded = await ep.post(submit)
    assert graded["type"] == 4 and graded["data"]["flags"] == 64
    assert "Incorrect" in graded["data"]["embeds"][0]["description"]


async def test_slow_work_is_deferred_and_finished_by_editing_the_original_response(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with endpoint(
        db_url, clock, sample_bank, fake, signing_key, studybot_discord_defer_after=0
    ) as ep:
        command = p.command("help")
        assert await ep.post(command) == (200, {"type": 5, "data": {"flags": 64}})
        edit = await fake.wait_call(
            "PATCH", rf"^/webhooks/{p.APP_ID}/{command['token']}/messages/@original$"
        )
    assert edit.json["embeds"][0]["title"] == "studybot commands"


async def test_tz_autocomplete_suggests_matching_zones(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with endpoint(db_url, clock, sample_bank, fake, signing_key) as ep:
        status, body = await ep.post(p.autocomplete("tz", "zone", "berl"))
    assert status == 200 and body["type"] == 8
    assert {"name": "Europe/Berlin", "value": "Europe/Berlin"} in body["data"]["choices"]
    assert len(body["data"]["choices"]) <= 25


async def test_a_user_error_is_a_private_reply_and_writes_nothing(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with endpoint(db_url, clock, sample_bank, fake, signing_key) as ep:
        await ep.post(p.command("help"))  # the workspace, user and channel exist from here on
        before = row_counts(ep.app)
        status, body = await ep.post(
            p.command("tz", [{"type": 3, "name": "zone", "value": "Mars/Olympus"}])
        )
        after = row_counts(ep.app)
    assert status == 200 and body["type"] == 4 and body["data"]["flags"] == 64
    assert "is not a time zone" in body["data"]["content"]
    assert after == before


async def test_an_unreadable_payload_is_400(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    async with endpoint(db_url, clock, sample_bank, fake, signing_key) as ep:
        broken = p.command("help")
        del broken["token"]
        status, _ = await ep.post(broken)
        not_json_status, _ = await ep.post({"type": "x"})
    assert (status, not_json_status) == (400, 400)


async def test_an_oversized_or_oddly_stamped_request_is_refused_without_a_traceback(
    db_url: str,
    clock: SimulatedClock,
    sample_bank: QuestionBank,
    fake: FakeDiscord,
    signing_key: SigningKey,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with endpoint(db_url, clock, sample_bank, fake, signing_key) as ep:
        before = row_counts(ep.app)
        base = ep.url.removesuffix("/discord/interactions")
        now = int(clock.now().timestamp())
        huge = json.dumps({**p.ping(), "pad": "x" * MAX_BODY}).encode()
        with caplog.at_level(logging.DEBUG):
            oversized = await raw_post(
                base, "/discord/interactions", signed(signing_key, huge, now), huge
            )
            stamps = []
            for stamp in ("abc", "1e3", "²³", "9" * 40, ""):
                body = json.dumps(p.ping()).encode()
                head = {**signed(signing_key, body, now), "X-Signature-Timestamp": stamp}
                stamps.append((await raw_post(base, "/discord/interactions", head, body))[0])
        assert oversized[0] == 413
        assert stamps == [401] * len(stamps)
        assert row_counts(ep.app) == before
    assert [r.getMessage() for r in caplog.records if r.levelno > logging.INFO] == []
    assert fake.callbacks() == []


async def test_a_replayed_interaction_is_answered_once_and_refused_409_after(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank, fake: FakeDiscord, signing_key
) -> None:
    bank = bank_of(sample_bank, "choice")
    async with endpoint(db_url, clock, bank, fake, signing_key) as ep:
        await ep.post(p.command("daily"))
        post = await fake.wait_call("POST", rf"^/channels/{p.CHANNEL_ID}/messages$")
        buttons = [c for row in post.json["components"] for c in row["components"]]
        click = p.button(buttons[0]["custom_id"], fake.first_with_buttons())
        answers = [await ep.post(click) for _ in range(4)]  # one signed request, four times
        with ep.app.session_factory() as session:
            attempts = session.scalars(select(AttemptRow)).all()
    assert answers[0][0] == 200 and answers[0][1]["type"] == 4
    assert answers[1:] == [(409, {"error": "interaction already handled"})] * 3
    assert len(attempts) == 1

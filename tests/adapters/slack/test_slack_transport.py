"""Both ways Slack reaches the bot: HTTP at POST /slack/events on the one ASGI app (served by
uvicorn on 127.0.0.1), and Socket Mode (a websocket from apps.connections.open)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Callable

import aiohttp
import pytest
import uvicorn
from sqlalchemy import select

from bot.adapters.slack import SlackAdapter
from bot.core.display import daily_seed, displayed
from bot.db.models import DailyPromptRow
from bot.web import create_web_app
from tests.adapters.slack.conftest import AdapterFactory
from tests.adapters.slack.fake_slack import Call, FakeSlack
from tests.adapters.slack.payloads import CHANNEL, TEAM, USER, click, signed_headers, slash
from tests.support import reply_bound, right_letter, seed_channels

FAN_OUT = 60
TRIES = 3


@pytest.fixture
async def served(slack: SlackAdapter) -> AsyncIterator[str]:
    """The real ASGI app with the adapter's routes, served by uvicorn on a free port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()  # connections queue from here on, so there is no start-up to wait for
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_web_app(slack.app, slack.routes()), log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await task
    sock.close()


async def post(url: str, body: str, headers: dict[str, str]) -> tuple[int, str, float]:
    started = time.perf_counter()
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body.encode(), headers=headers) as response,
    ):
        return response.status, await response.text(), time.perf_counter() - started


async def test_a_signed_slash_command_over_http_is_acked_and_answered(
    served: str, slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    body = slash("/daily")
    status, text, seconds = await post(f"{served}/slack/events", body, signed_headers(body))
    assert (status, text) == (200, "")
    assert seconds < 3
    post_call = (await fake_slack.wait_for("chat.postMessage"))[0]
    assert post_call.args["channel"] == CHANNEL
    await slack.settled()

    button = post_call.buttons()[0]["value"]
    body = click(button)
    status, _, _ = await post(f"{served}/slack/events", body, signed_headers(body))
    assert status == 200
    grade = (await fake_slack.wait_for("chat.postEphemeral"))[0]
    assert grade.args["user"] == USER


async def test_replies_over_http_do_not_wait_for_a_slow_fan_out(
    served: str, slack: SlackAdapter, fake_slack: FakeSlack
) -> None:
    url = f"{served}/slack/events"
    body = slash("/daily")
    await post(url, body, signed_headers(body))
    daily = (await fake_slack.wait_for("chat.postMessage"))[0]
    await slack.settled()
    await slack.app.runner.deliverer.settle()
    right = right_button(slack, daily)

    idle_help = await fastest_reply(url, fake_slack, lambda: slash("/help"), "studybot commands")
    idle_answer = await fastest_reply(url, fake_slack, lambda: click(right), "Correct")
    release = fake_slack.hold("chat.postMessage")  # Slack is slow from here on
    seed_channels(slack.app, FAN_OUT, slack.app.clock.now(), platform="slack", workspace=TEAM)
    assert await slack.app.runner.run_due() == FAN_OUT
    await fake_slack.wait_for("chat.postMessage", count=2)  # the fan-out is under way, held

    started_calls = len(fake_slack.called("chat.postEphemeral"))
    seconds = await fastest_reply(url, fake_slack, lambda: slash("/help"), "studybot commands")
    assert seconds < reply_bound(idle_help), (
        f"/help took {seconds * 1000:.0f} ms behind the fan-out"
    )
    seconds = await fastest_reply(url, fake_slack, lambda: click(right), "Correct")
    assert seconds < reply_bound(idle_answer), f"an answer took {seconds * 1000:.0f} ms behind it"
    assert len(fake_slack.called("chat.postEphemeral")) == started_calls + 2 * TRIES
    assert len(fake_slack.called("chat.postMessage")) < FAN_OUT + 1  # still held meanwhile

    release.set()
    await slack.app.runner.deliverer.settle()
    assert len(fake_slack.called("chat.postMessage")) == FAN_OUT + 1


def right_button(slack: SlackAdapter, post_call: Call) -> str:
    """The value of the right choice's button on the daily post."""
    with slack.app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
        question_id, seed = prompt.question_id, daily_seed(prompt.id)
    question = displayed(slack.app.services.bank.get(question_id), seed)  # as the post shows it
    assert question is not None
    letter = right_letter(question)
    return next(str(b["value"]) for b in post_call.buttons() if b["text"]["text"] == letter)


async def test_forged_and_stale_requests_over_http_get_401(
    served: str, fake_slack: FakeSlack
) -> None:
    body = slash("/daily")
    forged = signed_headers(body, secret="wrong")
    stale = signed_headers(body, timestamp=int(time.time()) - 600)
    unsigned = {"content-type": "application/x-www-form-urlencoded"}
    for headers in (forged, stale, unsigned):
        status, _, _ = await post(f"{served}/slack/events", body, headers)
        assert status == 401
    assert fake_slack.calls == []


async def test_health_and_metrics_are_served_beside_slack(served: str) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{served}/healthz") as response:
            assert response.status == 200
            assert (await response.json())["database"] is True
        async with session.get(f"{served}/metrics") as response:
            assert response.status == 200


async def test_socket_mode_acks_the_envelope_and_answers(
    make_adapter: AdapterFactory, fake_slack: FakeSlack
) -> None:
    slack = make_adapter(slack_app_token="xapp-1-test", slack_signing_secret="")
    assert slack.routes() == []  # no HTTP endpoint in Socket Mode
    await slack.start()
    try:
        opened = (await fake_slack.wait_for("apps.connections.open"))[0]
        assert opened.headers["Authorization"] == "Bearer xapp-1-test"
        payload = dict(
            token="t",
            team_id="T111",
            channel_id=CHANNEL,
            user_id=USER,
            user_name="w",
            command="/help",
            text="",
            trigger_id="1.2.3",
            response_url="https://hooks.slack.com/commands/T111/1/x",
        )
        await fake_slack.send_envelope(
            {
                "envelope_id": "env-1",
                "type": "slash_commands",
                "accepts_response_payload": True,
                "payload": payload,
            }
        )
        ack = await fake_slack.wait_for_frame(lambda f: f.get("envelope_id") == "env-1")
        assert ack == {"envelope_id": "env-1"}
        reply = (await fake_slack.wait_for("chat.postEphemeral"))[0]
        assert "/daily" in reply.args["text"]
    finally:
        await slack.stop()


def _replied(title: str) -> Callable[[Call], bool]:
    return lambda call: title in json.dumps(call.blocks())


async def fastest_reply(
    url: str, fake_slack: FakeSlack, request: Callable[[], str], title: str
) -> float:
    """The fastest of a few private replies to fresh ``request()`` bodies (one load spike is
    not waiting; each is a new request, as a replay is handled once)."""
    times = []
    before = len(fake_slack.called("chat.postEphemeral", _replied(title)))
    for n in range(1, TRIES + 1):
        body = request()
        started = time.perf_counter()
        assert (await post(url, body, signed_headers(body)))[0] == 200
        await fake_slack.wait_for("chat.postEphemeral", count=before + n, where=_replied(title))
        times.append(time.perf_counter() - started)
    return min(times)

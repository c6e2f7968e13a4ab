"""``studybot run`` stops within a few seconds of SIGTERM or SIGINT in every mode, finishing the
work in flight (what ``docker stop`` needs), and logs what an operator needs, once.

Each test starts the real process, configured only through the environment, against a local
fake or an unreachable endpoint on 127.0.0.1, and sends it the signal.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest
from nacl.signing import SigningKey
from sqlalchemy import func, select

from bot.core.bank import QuestionBank
from bot.core.content import Question
from bot.db.engine import make_engine
from bot.db.models import AttemptRow, DailyPromptRow, OutboxRow
from tests.adapters.discord import payloads as dp
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.adapters.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.adapters.slack.payloads import SECRET, message_event, signed_headers, slash

#: Seconds from the signal to the exit. docker stop waits 10 s before it kills.
STOP_BOUND = 5.0
DEADLINE = 30.0  # for the process to get where a test wants it (a loaded machine is slow)
SIGNALS = [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGINT, id="SIGINT")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Run:
    """``studybot run`` as a process: its log lines as they come, and a timed stop."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._changed = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            async with self._changed:
                self.lines.append(line.decode(errors="replace").rstrip("\n"))
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    async def wait_for(self, text: str, count: int = 1) -> None:
        """Until ``count`` log lines contain ``text``; fails if the process ends first."""

        def seen() -> bool:
            return sum(text in line for line in self.lines) >= count or self._reader.done()

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(seen), DEADLINE)
        assert sum(text in line for line in self.lines) >= count, self.log

    async def stop(self, sig: signal.Signals = signal.SIGTERM) -> float:
        """Send ``sig``; return the seconds until the process exited."""
        started = time.monotonic()
        self.process.send_signal(sig)
        await asyncio.wait_for(self.process.wait(), DEADLINE)
        await self._reader
        return time.monotonic() - started

    async def ended(self) -> int:
        code = await asyncio.wait_for(self.process.wait(), DEADLINE)
        await self._reader
        return code


Start = Callable[..., Awaitable[Run]]


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    """Start ``studybot run`` in an empty directory with only the given settings."""
    runs: list[Run] = []

    async def start_run(**settings: str) -> Run:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SLACK_", "DISCORD_", "STUDYBOT_"))
        }
        env.update(STUDYBOT_DATABASE_URL=f"sqlite:///{tmp_path / 'studybot.db'}", **settings)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run",
            cwd=tmp_path, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        runs.append(Run(process))
        return runs[-1]

    yield start_run
    for run in runs:
        if run.process.returncode is None:  # a failed test: do not leave it running
            run.process.kill()
            await run.process.wait()
        await run.ended()


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = await FakeDiscord().start()
    yield fake
    await fake.close()


def assert_quiet(run: Run) -> None:
    """What an operator should never have to read."""
    assert "Traceback" not in run.log
    assert "apscheduler" not in run.log
    assert "alembic.runtime" not in run.log


@pytest.mark.parametrize("sig", SIGNALS)
async def test_socket_mode_stops_at_once_while_slack_is_unreachable(
    start: Start, sig: signal.Signals
) -> None:
    run = await start(
        SLACK_BOT_TOKEN="xoxb-test",
        SLACK_APP_TOKEN="xapp-test",
        STUDYBOT_SLACK_API_URL=f"http://127.0.0.1:{free_port()}/api/",
    )
    await run.wait_for("Slack: cannot open a Socket Mode connection")
    assert await run.stop(sig) < STOP_BOUND
    assert run.process.returncode == 0, run.log
    assert_quiet(run)
    assert "studybot stopped" in run.lines[-1]


async def test_socket_mode_says_an_outage_once_then_connects(
    start: Start, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("apps.connections.open", "internal_error", times=2)
    run = await start(
        SLACK_BOT_TOKEN="xoxb-test", SLACK_APP_TOKEN="xapp-test",
        STUDYBOT_SLACK_API_URL=fake_slack.api_url,
    )  # fmt: skip
    await run.wait_for("Slack: connected in Socket Mode")
    assert len(fake_slack.called("apps.connections.open")) == 3
    warnings = [line for line in run.lines if "cannot open a Socket Mode connection" in line]
    assert len(warnings) == 1 and "Slack answered internal_error" in warnings[0]
    assert await run.stop() < STOP_BOUND
    assert run.process.returncode == 0, run.log
    assert_quiet(run)
    assert any("Slack: disconnected" in line for line in run.lines)


async def test_socket_mode_with_a_refused_app_token_ends_with_one_line(
    start: Start, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("apps.connections.open", "invalid_auth")
    run = await start(
        SLACK_BOT_TOKEN="xoxb-test", SLACK_APP_TOKEN="xapp-test",
        STUDYBOT_SLACK_API_URL=fake_slack.api_url,
    )  # fmt: skip
    assert await run.ended() == 2
    assert run.lines[-1].startswith("studybot run: Slack refused SLACK_APP_TOKEN (invalid_auth)")
    assert_quiet(run)


async def wait_until_healthy(url: str, run: Run) -> None:
    deadline = time.monotonic() + DEADLINE
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            assert run.process.returncode is None, run.log
            try:
                async with session.get(f"{url}/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.05)
    raise AssertionError("studybot run did not serve /healthz in time:\n" + run.log)


@pytest.mark.parametrize("sig", SIGNALS)
async def test_slack_http_mode_answers_the_command_in_flight_then_stops(
    start: Start, fake_slack: FakeSlack, sig: signal.Signals
) -> None:
    port = free_port()
    run = await start(
        SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SECRET,
        STUDYBOT_SLACK_API_URL=fake_slack.api_url, STUDYBOT_HTTP_PORT=str(port),
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    await wait_until_healthy(url, run)
    body = slash("/daily")
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{url}/slack/events", data=body.encode(), headers=signed_headers(body)
        ) as ack,
    ):
        assert ack.status == 200
    seconds = await run.stop(sig)  # the command was acked; its reply may still be on its way
    assert fake_slack.called("chat.postMessage"), run.log  # and it was sent before the exit
    assert seconds < STOP_BOUND
    assert run.process.returncode == 0, run.log
    assert_quiet(run)


async def test_a_post_slack_is_slow_to_take_is_sent_once_and_marked_sent_before_the_exit(
    start: Start, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    """SIGTERM while the outbox waits for Slack to take a post: the adapter keeps its HTTP
    session open until the outbox's pass is done, so the post is marked sent (not failed
    and sent again after the restart) and the log stays quiet."""
    port = free_port()
    run = await start(
        SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SECRET,
        STUDYBOT_SLACK_API_URL=fake_slack.api_url, STUDYBOT_HTTP_PORT=str(port),
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    await wait_until_healthy(url, run)
    release = fake_slack.hold("chat.postMessage")
    body = slash("/daily")
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{url}/slack/events", data=body.encode(), headers=signed_headers(body)
        ) as ack,
    ):
        assert ack.status == 200
    await fake_slack.wait_for("chat.postMessage")  # Slack has it and has not answered yet
    run.process.send_signal(signal.SIGTERM)
    await asyncio.sleep(1.0)  # the adapter is stopping while the post is in flight
    release.set()
    assert await run.ended() == 0, run.log
    assert_quiet(run)
    engine = make_engine(f"sqlite:///{tmp_path / 'studybot.db'}")
    try:
        with engine.connect() as db:
            posts = db.execute(
                select(OutboxRow.status, OutboxRow.message_ref).where(
                    OutboxRow.key.like("daily:%:post")
                )
            ).all()
    finally:
        engine.dispose()
    assert [status for status, _ref in posts] == ["sent"], run.log
    assert posts[0][1]  # the message's ts, for the thread and the reveal
    assert len(fake_slack.called("chat.postMessage")) == 1


async def test_the_discord_gateway_stops_within_seconds(
    start: Start, fake_discord: FakeDiscord
) -> None:
    run = await start(
        DISCORD_BOT_TOKEN="fake-bot-token", DISCORD_APPLICATION_ID=dp.APP_ID,
        STUDYBOT_DISCORD_API_URL=fake_discord.api_url,
        STUDYBOT_DISCORD_GATEWAY_URL=fake_discord.gateway_url,
    )  # fmt: skip
    await run.wait_for("Discord gateway ready")
    assert await run.stop() < STOP_BOUND
    assert run.process.returncode == 0, run.log
    assert_quiet(run)


async def test_discord_stops_at_once_while_discord_is_unreachable(
    start: Start,
) -> None:
    port = free_port()
    run = await start(
        DISCORD_BOT_TOKEN="fake-bot-token",
        STUDYBOT_DISCORD_API_URL=f"http://127.0.0.1:{port}/api/v10",
        STUDYBOT_DISCORD_GATEWAY_URL=f"ws://127.0.0.1:{port}/",
    )
    await run.wait_for("Discord: cannot log in")
    assert await run.stop() < STOP_BOUND
    assert run.process.returncode == 0, run.log
    assert_quiet(run)


async def test_the_discord_gateway_finishes_the_interaction_in_flight(
    start: Start, fake_discord: FakeDiscord
) -> None:
    run = await start(
        DISCORD_BOT_TOKEN="fake-bot-token", DISCORD_APPLICATION_ID=dp.APP_ID,
        STUDYBOT_DISCORD_API_URL=fake_discord.api_url,
        STUDYBOT_DISCORD_GATEWAY_URL=fake_discord.gateway_url,
    )  # fmt: skip
    await run.wait_for("Discord gateway ready")
    command = dp.command("daily")
    await fake_discord.dispatch("INTERACTION_CREATE", command)
    await fake_discord.wait_call("POST", rf"^/interactions/{command['id']}/")  # taken: in flight
    seconds = await run.stop()
    assert fake_discord.channel_posts(), run.log  # the daily question went out before the exit
    assert seconds < STOP_BOUND
    assert run.process.returncode == 0, run.log
    assert_quiet(run)


async def test_discord_http_interactions_stop_within_seconds(
    start: Start, fake_discord: FakeDiscord
) -> None:
    key = SigningKey.generate()
    port = free_port()
    run = await start(
        DISCORD_BOT_TOKEN="fake-bot-token", DISCORD_APPLICATION_ID=dp.APP_ID,
        DISCORD_PUBLIC_KEY=key.verify_key.encode().hex(), STUDYBOT_DISCORD_GATEWAY="false",
        STUDYBOT_DISCORD_API_URL=fake_discord.api_url, STUDYBOT_HTTP_PORT=str(port),
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    await wait_until_healthy(url, run)
    body = json.dumps(dp.ping()).encode()
    timestamp = str(int(time.time()))
    headers = {
        "X-Signature-Ed25519": key.sign(timestamp.encode() + body).signature.hex(),
        "X-Signature-Timestamp": timestamp,
        "Content-Type": "application/json",
    }
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{url}/discord/interactions", data=body, headers=headers) as response,
    ):
        assert (response.status, await response.json()) == (200, {"type": 1})
    assert await run.stop() < STOP_BOUND
    assert run.process.returncode == 0, run.log
    assert_quiet(run)


BURST = 120
USERS_INFO_HELD = 7.0  # seconds: longer than the 5 s a stop used to give acknowledged events


def _an_answer_to(question: Question) -> str:
    """A real answer (graded, recorded) to ``question``, whatever its kind."""
    if question.choices:
        return question.choices[0]
    if question.accepted:
        return question.accepted[0]
    if question.value is not None:
        return f"{question.value:g}"
    return question.model_answer or (question.model_answers or ("isolation",))[0]


@pytest.mark.slow
async def test_sigterm_after_an_answer_burst_records_and_answers_every_acknowledged_answer(
    start: Start, fake_slack: FakeSlack, tmp_path: Path
) -> None:
    port = free_port()
    run = await start(
        SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SECRET,
        STUDYBOT_SLACK_API_URL=fake_slack.api_url, STUDYBOT_HTTP_PORT=str(port),
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    await wait_until_healthy(url, run)
    engine = make_engine(f"sqlite:///{tmp_path / 'studybot.db'}")
    try:
        # A connection of its own for each request: a kept-alive one that the server closes
        # as the client reuses it (a loaded machine is slow between requests) would fail a
        # send that never reached the bot.
        connector = aiohttp.TCPConnector(force_close=True)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def send(body: str) -> int:
                async with session.post(
                    f"{url}/slack/events", data=body.encode(), headers=signed_headers(body)
                ) as response:
                    return response.status

            assert await send(slash("/daily")) == 200
            await fake_slack.wait_for("chat.postMessage")
            ref: str | None = None
            deadline = time.monotonic() + DEADLINE
            while ref is None and time.monotonic() < deadline:
                with engine.connect() as db:
                    ref = db.scalar(
                        select(OutboxRow.message_ref).where(OutboxRow.key.like("daily:%:post"))
                    )
                    question_id = db.scalar(select(DailyPromptRow.question_id))
                await asyncio.sleep(0.05)
            assert ref is not None and question_id is not None, run.log
            question = QuestionBank.load().get(question_id)
            assert question is not None
            answer, post_ts = _an_answer_to(question), ref.split(":", 1)[1]
            # Slack is slow to say who the users are: each answer waits for users.info.
            users_info = fake_slack.hold("users.info")
            bodies = [
                message_event(
                    answer,
                    user=f"UB{i:04}",
                    ts=f"1700000200.{i:06}",
                    thread_ts=post_ts,
                    parent_user_id=BOT_USER_ID,
                    event_id=f"EvBurst{i}",
                )
                for i in range(BURST)
            ]
            statuses = await asyncio.gather(*(send(body) for body in bodies))
        assert statuses == [200] * BURST  # all acknowledged
        asyncio.get_running_loop().call_later(USERS_INFO_HELD, users_info.set)
        seconds = await run.stop(signal.SIGTERM)
        with engine.connect() as db:
            recorded = db.scalar(
                select(func.count()).select_from(AttemptRow).where(AttemptRow.answer == answer)
            )
    finally:
        engine.dispose()
    assert recorded == BURST, run.log
    graded = {c.args.get("user") for c in fake_slack.called("chat.postEphemeral")}
    assert graded >= {f"UB{i:04}" for i in range(BURST)}
    assert USERS_INFO_HELD <= seconds < USERS_INFO_HELD + 10
    assert run.process.returncode == 0, run.log
    assert_quiet(run)

"""Black-box: ``studybot run`` and ``studybot discord sync`` as subprocesses against the fake."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from nacl.signing import SigningKey

from bot.cli import main
from tests.adapters.discord import payloads as p
from tests.adapters.discord.fake_discord import FakeDiscord

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 30.0


def _env(fake: FakeDiscord, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DISCORD_", "STUDYBOT_"))
    }
    env.update(
        {
            "DISCORD_BOT_TOKEN": "fake-bot-token",
            "DISCORD_APPLICATION_ID": p.APP_ID,
            "STUDYBOT_DISCORD_API_URL": fake.api_url,
            "STUDYBOT_DISCORD_GATEWAY_URL": fake.gateway_url,
            **extra,
        }
    )
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _read_until(stream: asyncio.StreamReader, marker: str, seen: list[str]) -> None:
    while True:
        line = (await stream.readline()).decode(errors="replace")
        if not line:
            raise AssertionError("studybot run ended early:\n" + "".join(seen))
        seen.append(line)
        if marker in line:
            return


@asynccontextmanager
async def studybot_run(env: dict[str, str]) -> AsyncIterator[list[str]]:
    """`studybot run` until its web server is up (waits for uvicorn's start line)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run",
        cwd=ROOT, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    log: list[str] = []
    drain: asyncio.Task[None] | None = None
    try:
        await asyncio.wait_for(_read_until(proc.stderr, "Uvicorn running on", log), DEADLINE)
        drain = asyncio.create_task(_read_until(proc.stderr, "\0never\0", log))
        yield log
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), DEADLINE)
        if drain is not None:
            drain.cancel()
            with suppress(asyncio.CancelledError, AssertionError):
                await drain
        assert code == 0, "".join(log)


async def _post(url: str, key: SigningKey, payload: dict[str, Any]) -> tuple[int, Any]:
    body = json.dumps(payload).encode()
    timestamp = str(int(time.time()))
    headers = {
        "X-Signature-Ed25519": key.sign(timestamp.encode() + body).signature.hex(),
        "X-Signature-Timestamp": timestamp,
        "Content-Type": "application/json",
    }
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body, headers=headers) as response,
    ):
        text = await response.text()
        return response.status, json.loads(text) if text else None


async def test_studybot_run_answers_ping_quiz_with_buttons_and_a_click(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    key = SigningKey.generate()
    port = _free_port()
    env = _env(
        fake,
        DISCORD_PUBLIC_KEY=key.verify_key.encode().hex(),
        STUDYBOT_HTTP_PORT=str(port),
        STUDYBOT_DATABASE_URL=f"sqlite:///{tmp_path / 'run.db'}",
    )
    url = f"http://127.0.0.1:{port}/discord/interactions"
    async with studybot_run(env):
        assert fake.identify is not None  # the gateway is connected too
        assert await _post(url, key, p.ping()) == (200, {"type": 1})

        command = p.command("quiz", [{"type": 4, "name": "count", "value": 2}])
        status, first = await _post(url, key, command)
        assert status == 200
        if first["type"] == 5:  # the machine was slow: deferred, then the reply edits it in
            edit = await fake.wait_call(
                "PATCH", rf"^/webhooks/{p.APP_ID}/{command['token']}/messages/@original$", DEADLINE
            )
            reply = edit.json
        else:
            assert first["type"] == 4
            reply = first["data"]
            assert reply["flags"] == 64  # a personal quiz is private
        buttons = [c for row in reply["components"] for c in row["components"]]
        assert buttons and all(len(b["custom_id"]) <= 100 for b in buttons)
        assert all(b["custom_id"].startswith("quiz:") for b in buttons)

        status, answer = await _post(url, key, p.button(buttons[0]["custom_id"], p.snowflake()))
    assert status == 200
    if buttons[0]["custom_id"].endswith(":form"):
        assert answer["type"] == 9  # a free-text question: the click opens the answer modal
    else:
        assert answer["type"] in (4, 5)  # graded (or deferred on a slow machine)


async def test_discord_sync_uploads_every_command_to_one_guild(fake: FakeDiscord) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "discord", "sync", "--guild", p.GUILD_ID,
        cwd=ROOT, env=_env(fake), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), DEADLINE)
    assert proc.returncode == 0, err.decode()
    (put,) = [c for c in fake.calls if c.method == "PUT"]
    assert put.path == f"/applications/{p.APP_ID}/guilds/{p.GUILD_ID}/commands"
    names = {c["name"] for c in put.json}
    assert {"daily", "answer", "quiz", "leaderboard", "tz", "help"} <= names
    assert f"to guild {p.GUILD_ID}" in out.decode()


def test_discord_sync_refuses_a_guild_that_is_not_an_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["discord", "sync", "--guild", "my-server"]) == 2
    assert "guild id (a number)" in capsys.readouterr().err

"""Black box: ``studybot run`` as a process, configured only through the environment, against
the fake Slack; a slash command gets its buttons and a click on one is answered."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.adapters.slack.translate import FORM_CALLBACK_ID
from bot.core.commands import COMMANDS
from tests.adapters.slack.fake_slack import FakeSlack
from tests.adapters.slack.payloads import SECRET, USER, click, signed_headers, slash, trigger_of

ROOT = Path(__file__).resolve().parents[3]
# /quiz once its capability has landed (issue 6); until then /daily, a question with buttons
COMMAND = "quiz" if COMMANDS["quiz"].handler is not None else "daily"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
async def studybot_run(fake_slack: FakeSlack, tmp_path: Path) -> AsyncIterator[str]:
    port = free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_SIGNING_SECRET": SECRET,
        "STUDYBOT_SLACK_API_URL": fake_slack.api_url,
        "STUDYBOT_HTTP_PORT": str(port),
        "STUDYBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'studybot.db'}",
        "STUDYBOT_LOG_LEVEL": "WARNING",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", env=env, cwd=tmp_path
    )
    url = f"http://127.0.0.1:{port}"
    try:
        await wait_until_healthy(url, process)
        yield url
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.wait(), 10)
    assert process.returncode == 0


async def wait_until_healthy(url: str, process: asyncio.subprocess.Process) -> None:
    """Poll /healthz until it answers 200 (with a deadline), failing fast if the process dies."""
    deadline = time.monotonic() + 60  # a start on a loaded machine (xdist workers beside it)
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            assert process.returncode is None, "studybot run exited early"
            try:
                async with session.get(f"{url}/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.05)
    raise AssertionError("studybot run did not serve /healthz in time")


async def post(url: str, body: str) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{url}/slack/events", data=body.encode(), headers=signed_headers(body)
        ) as response,
    ):
        return response.status


async def test_studybot_run_serves_a_slash_command_with_buttons_and_answers_a_click(
    studybot_run: str, fake_slack: FakeSlack
) -> None:
    assert await post(studybot_run, slash(f"/{COMMAND}")) == 200
    posts = await fake_slack.wait_for(
        ("chat.postMessage", "chat.postEphemeral"), where=lambda c: bool(c.buttons())
    )
    buttons = posts[0].buttons()
    assert buttons

    value = str(buttons[0]["value"])
    clicked = click(value)
    assert await post(studybot_run, clicked) == 200
    if value.endswith(":form"):  # the question wants words: the click opens the answer form
        opened = (await fake_slack.wait_for("views.open"))[0]
        assert opened.args["trigger_id"] == trigger_of(clicked)
        assert opened.view()["callback_id"] == FORM_CALLBACK_ID
    else:  # a letter: the click is the answer, graded privately for the clicker
        graded = (
            await fake_slack.wait_for(
                "chat.postEphemeral", where=lambda c: "Question 1 of" in json.dumps(c.blocks())
            )
        )[0]
        assert graded.args["user"] == USER
        assert re.search(r"(Correct|Partial|Incorrect) \(\d+%\)", json.dumps(graded.blocks()))

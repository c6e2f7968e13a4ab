"""Memory of ``studybot run`` with Slack (HTTP mode) and Discord configured, idle and after
many answers, against the frameworks' floor.

What runs, all on 127.0.0.1:

- the real ``studybot run`` as a subprocess, with Slack in HTTP mode (bot token and
  signing secret, its Web API pointed at the suite's fake Slack) and Discord on the gateway
  *and* the HTTP interactions endpoint (bot token, application id and public key, REST
  and gateway pointed at the suite's fake Discord, which it logs in to and stays connected
  to throughout);
- in this process, those two fakes (tests/adapters/slack/fake_slack.py,
  tests/adapters/discord/fake_discord.py) and the load: ``/daily`` is sent, the button of
  the post that reaches the fake is read, then ``--answers`` signed ``block_actions`` clicks
  on it, each from a new user (each with its own ``trigger_id``), ``--connections`` at a
  time in a closed loop: a connection sends the next click once the previous one's grade
  reached the fake (``chat.postEphemeral``).

Memory is the bot process's ``VmRSS`` from ``/proc/PID/status`` (``VmHWM``: the most it
ever held): **idle**, the median of five samples a second apart once the web server
listens and the gateway is connected, then **after** the answers, sampled the same way
once the last grade has arrived, and again after one ``/leaderboard week`` (the process's first
chart: what drawing costs in memory); ``curve`` is RSS every ``--answers / 10`` answers, and
``growth_kb_per_1000_answers`` its slope over the second half (a cache without bounds
shows there as a slope that does not flatten). The **floor** is a bare Python process that
imports ``slack_bolt`` and ``discord`` (what any bot on these frameworks pays before doing
anything), measured in the same run. Every reply must be a grade, and every answer must be
stored once (the database is counted after the bot stops).

Run: ``.venv/bin/python bench/memory.py [--answers 25000] [--connections 50]
[--backends sqlite,postgres]`` (PostgreSQL when ``STUDYBOT_TEST_POSTGRES_URL`` is set).
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import aiohttp  # noqa: E402
from answer_path import (  # noqa: E402
    CHANNEL,
    VERDICT_MARKS,
    chosen_backends,
    click_body,
    free_port,
    machine,
    migrate,
    postgres_database,
    say,
    stored,
)
from nacl.signing import SigningKey  # noqa: E402

from tests.adapters.discord import payloads as discord_payloads  # noqa: E402
from tests.adapters.discord.fake_discord import FakeDiscord  # noqa: E402
from tests.adapters.slack.fake_slack import Call, FakeSlack  # noqa: E402
from tests.adapters.slack.payloads import SECRET, signed_headers, slash  # noqa: E402

STUDYBOT = str(Path(sys.executable).with_name("studybot"))
FLOOR = (
    "import slack_bolt, discord\n"
    "print(next(l for l in open('/proc/self/status') if l.startswith('VmRSS')).split()[1])"
)


class ReplyingSlack(FakeSlack):
    """The suite's fake Slack, handing each user's ephemeral reply to whoever waits for it
    (and not keeping tens of thousands of them in its record)."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting: dict[str, asyncio.Future[str]] = {}

    async def _record(self, call: Call) -> None:
        if call.method == "chat.postEphemeral":
            future = self.waiting.pop(str(call.args.get("user")), None)
            if future is not None and not future.done():
                future.set_result(f"{call.args.get('text', '')} {call.args.get('blocks', '')}")
            return
        await super()._record(call)


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid``, in kB."""
    found: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found


async def settled_rss(pid: int, samples: int = 5) -> int:
    """The median VmRSS (kB) of ``samples`` readings a second apart."""
    readings = []
    for _ in range(samples):
        await asyncio.sleep(1.0)
        readings.append(memory_kb(pid)["VmRSS"])
    return int(statistics.median(readings))


def mb(kb: float) -> float:
    return round(kb / 1024, 1)


def floor_kb() -> int:
    """VmRSS of a bare process that imports slack_bolt and discord."""
    out = subprocess.run(
        [sys.executable, "-c", FLOOR], capture_output=True, text=True, check=True
    ).stdout
    return int(out.strip())


def bot_env(db_url: str, slack: FakeSlack, discord: FakeDiscord, port: int) -> dict[str, str]:
    keep = {
        k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TZ", "PYTHONPATH")
    }
    return {
        **keep,
        "STUDYBOT_DATABASE_URL": db_url,
        "STUDYBOT_HTTP_PORT": str(port),
        "STUDYBOT_LOG_LEVEL": "INFO",  # the start lines are how the bench knows it is up
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": SECRET,
        "STUDYBOT_SLACK_API_URL": slack.api_url,
        "DISCORD_BOT_TOKEN": "fake-bot-token",
        "DISCORD_APPLICATION_ID": discord_payloads.APP_ID,
        "DISCORD_PUBLIC_KEY": SigningKey.generate().verify_key.encode().hex(),
        "STUDYBOT_DISCORD_API_URL": discord.api_url,
        "STUDYBOT_DISCORD_GATEWAY_URL": discord.gateway_url,
    }


async def read_until(stream: asyncio.StreamReader, marker: str | None, log: list[str]) -> None:
    """Keep the bot's log lines until one contains ``marker`` (None: until it ends)."""
    while line := (await stream.readline()).decode(errors="replace"):
        log.append(line)
        if marker is not None and marker in line:
            return
    if marker is not None:
        raise RuntimeError("studybot run ended early:\n" + "".join(log[-30:]))


async def open_daily(session: aiohttp.ClientSession, url: str, slack: FakeSlack) -> str:
    """Send ``/daily``; the value of the first choice button of the post that reaches Slack."""
    body = slash("/daily", user="WADMIN", channel=CHANNEL, response_url=slack.hook_url())
    async with session.post(url, data=body.encode(), headers=signed_headers(body)) as response:
        assert response.status == 200, response.status
    (post, *_) = await slack.wait_for(
        "chat.postMessage", where=lambda c: c.args.get("channel") == CHANNEL
    )
    choices = [
        b["value"]
        for b in post.buttons()
        if b["value"].startswith("daily:") and b["value"].count(":") == 2
    ]
    if not choices:
        raise SystemExit(f"the daily post has no choice buttons: {post.buttons()}")
    return str(choices[0])


async def answer_many(
    session: aiohttp.ClientSession,
    url: str,
    slack: ReplyingSlack,
    value: str,
    total: int,
    connections: int,
    on_answer: Any,
) -> dict[str, Any]:
    """``total`` clicks on ``value``, each from a new user, ``connections`` at a time; each
    connection sends its next click once the previous click's reply arrived."""
    loop = asyncio.get_running_loop()
    numbers = iter(range(total))
    errors: dict[str, int] = {}
    unsure: list[str] = []  # clicks whose request failed in transport: stored or not
    done = 0
    hook = slack.hook_url()

    def error(kind: str) -> None:
        errors[kind] = errors.get(kind, 0) + 1

    async def connection() -> None:
        nonlocal done
        for n in numbers:
            user = f"WMEM{n:06d}"
            body = click_body(value, user, hook)
            future: asyncio.Future[str] = loop.create_future()
            slack.waiting[user] = future
            try:
                async with session.post(
                    url, data=body.encode(), headers=signed_headers(body)
                ) as response:
                    await response.read()
                    status = response.status
            except aiohttp.ClientError as exc:  # a kept-alive connection the server closed
                error(type(exc).__name__)
                unsure.append(user)
                slack.waiting.pop(user, None)
                continue
            if status != 200:
                error(f"http {status}")
                slack.waiting.pop(user, None)
                continue
            try:
                text = await asyncio.wait_for(future, 30)
            except TimeoutError:
                error("no reply in 30 s")
                slack.waiting.pop(user, None)
                continue
            if not any(mark in text for mark in VERDICT_MARKS):
                error("reply is not a grade")
            done += 1
            on_answer(done)

    started = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(connections)))
    seconds = time.perf_counter() - started
    return {
        "answers": done,
        "seconds": round(seconds, 1),
        "per_second": round(done / seconds, 1),
        "errors": errors,
        "unsure": len(unsure),
    }


async def leaderboard(
    session: aiohttp.ClientSession, url: str, slack: ReplyingSlack
) -> dict[str, Any]:
    """One ``/leaderboard week`` from the first user who answered: its reply, and the chart
    it uploads (the first chart the process draws)."""
    user = "WMEM000000"
    body = slash("/leaderboard", "week", user=user, channel=CHANNEL, response_url=slack.hook_url())
    future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    slack.waiting[user] = future
    sent = time.perf_counter()
    async with session.post(url, data=body.encode(), headers=signed_headers(body)) as response:
        assert response.status == 200, response.status
    text = await asyncio.wait_for(future, 60)
    replied = time.perf_counter() - sent
    (upload, *_) = await slack.wait_for("upload", timeout=60)
    return {
        "is_the_board": "Leaderboard" in text,
        "reply_ms": round(replied * 1000),
        "chart_bytes": upload.args["size"],
    }


async def measure(db_url: str, answers: int, connections: int) -> dict[str, Any]:
    slack = ReplyingSlack()
    await slack.start()
    discord = await FakeDiscord().start()
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        STUDYBOT, "run",
        env=bot_env(db_url, slack, discord, port), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    log: list[str] = []
    drain: asyncio.Task[None] | None = None
    url = f"http://127.0.0.1:{port}/slack/events"
    try:
        await asyncio.wait_for(read_until(process.stderr, "Uvicorn running on", log), 120)
        drain = asyncio.create_task(read_until(process.stderr, None, log))
        if discord.identify is None:
            raise SystemExit("studybot run is up but not connected to the Discord gateway")
        idle = await settled_rss(process.pid)
        say(f"idle: {mb(idle)} MB")
        curve: list[dict[str, float]] = []
        step = max(1, answers // 10)

        def on_answer(count: int) -> None:
            if count % step == 0:
                curve.append({"answers": count, "rss_mb": mb(memory_kb(process.pid)["VmRSS"])})
                say(f"{count} answers: {curve[-1]['rss_mb']} MB")

        connector = aiohttp.TCPConnector(limit=connections)
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            value = await open_daily(session, url, slack)
            load = await answer_many(session, url, slack, value, answers, connections, on_answer)
            say(f"after: {mb(memory_kb(process.pid)['VmRSS'])} MB; then one /leaderboard week")
            after = await settled_rss(process.pid)
            board = await leaderboard(session, url, slack)
        after_board = await settled_rss(process.pid)
        peak = memory_kb(process.pid)["VmHWM"]
        still_connected = bool(discord._sockets)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 60)
        if drain is not None:
            await drain
        await discord.close()
        await slack.stop()
    half = [p for p in curve if p["answers"] >= answers / 2]
    growth = None
    if len(half) >= 2 and half[-1]["answers"] > half[0]["answers"]:
        growth = round(
            (half[-1]["rss_mb"] - half[0]["rss_mb"])
            * 1024
            / ((half[-1]["answers"] - half[0]["answers"]) / 1000),
            1,
        )
    found = stored(db_url)
    return {
        "idle_rss_mb": mb(idle),
        "after_rss_mb": mb(after),
        "after_leaderboard_rss_mb": mb(after_board),
        "leaderboard": board,
        "peak_rss_mb": mb(peak),
        "growth_kb_per_1000_answers": growth,
        "load": load,
        "curve": curve,
        "gateway_connected_throughout": still_connected,
        "exit_code": code,
        "stored": found,
        # every graded click once; a click lost in transport may have been taken or not
        "stored_exactly_once": found["attempts"] == found["users"]
        and load["answers"] <= found["attempts"] <= load["answers"] + load["unsure"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=25_000)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--backends", default="sqlite,postgres", help="sqlite,postgres")
    args = parser.parse_args()
    backends, postgres, notes = chosen_backends(args.backends)
    report: dict[str, Any] = {"machine": machine(), "answers": args.answers, "notes": notes}
    floors = [floor_kb()]
    tmp = Path(tempfile.mkdtemp(prefix="studybot-memory-"))
    try:
        for backend in backends:
            with contextlib.ExitStack() as stack:
                if backend == "sqlite":
                    db_url = f"sqlite:///{tmp}/memory.db"
                else:
                    assert postgres is not None
                    db_url = stack.enter_context(postgres_database(postgres))
                migrate(db_url)
                say(f"studybot run on {backend}")
                result = asyncio.run(measure(db_url, args.answers, args.connections))
                floors.append(floor_kb())
                report[backend] = result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    floor = statistics.median(floors)
    report["floor_import_slack_bolt_discord_rss_mb"] = mb(floor)
    for backend in backends:
        entry = report[backend]
        entry["idle_ratio_to_floor"] = round(entry["idle_rss_mb"] / mb(floor), 2)
        entry["after_ratio_to_floor"] = round(entry["after_rss_mb"] / mb(floor), 2)
    report["machine"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

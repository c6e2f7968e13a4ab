"""The answer path over Slack HTTP, measured from outside against the framework's floor.

Processes, all on 127.0.0.1:

- **load**: a load generator *and* a fast fake Slack Web API (aiohttp) in one process of its
  own. Each of N connections, in a closed loop, sends a signed ``block_actions`` click on a
  choice button of the daily question from a new user, waits for the ack (HTTP 200), then waits for
  that user's reply to arrive at the fake Web API (``chat.postEphemeral``), then sends the next.
- **studybot**: the real ``studybot run`` in HTTP mode (SQLite, and PostgreSQL when
  ``STUDYBOT_TEST_POSTGRES_URL`` is set), its Web API pointed at the fake.
- **floors**: two bare slack-bolt ``AsyncApp``\\s behind the same server (uvicorn, same
  options as ``studybot run``): one that only acks (``noop``) and one that acks and posts one
  ephemeral message (``ephemeral``), as the least any Bolt app does for a click.

Phases are interleaved (every target at every connection count, then again for the next
round) so that a noisy, shared machine slows all of them alike; figures are medians over
rounds, and ratios are taken within a round. Before the load, ``/daily`` is sent to studybot
and the button's value is read from the post that reaches the fake, so each click answers a
real open question; the bench counts every reply that is not a grade (``That question is no
longer open``, an apology) as an error, and checks in the database that every acked click
was stored as exactly one attempt.

CPU per answer is the bot process's user+system CPU (``/proc``) over a phase divided by the
answers in it; SQL statements per answer are counted in this process on the same path
(``SlackAdapter`` driven with the same signed bodies, a SQLAlchemy ``before_cursor_execute``
counter), since the server's statements cannot be counted from outside.

Paced (``--rate 100``): instead of the closed loop, clicks go out at a fixed rate in all
(open loop), at most ``--connections`` at once, and each click's ack and reply times run from
the instant it was due, so a server that falls behind shows it in its p99s rather than in a
slower offered load. Several workers (``--workers 1,2``): PostgreSQL is also run with that many
``studybot run`` processes on one database (as docs/deploy.md runs them), each on its own
port, the clicks spread over them in turn as a balancer would; CPU is the workers' sum.

SQL statements are counted for a wrong answer and for a right one (which also adds its points
to the boards).

Run: ``.venv/bin/python bench/answer_path.py`` (under 2 minutes on an idle 2-core machine);
bigger runs: ``--duration 20 --rounds 3 --connections 50,200,1000``, ``--connections 200
--rate 100``, ``--workers 1,2``. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.adapters.slack.payloads import (  # noqa: E402
    SECRET,
    TEAM,
    fixture,
    signed_headers,
    trigger_id,
)

CHANNEL = "CBENCH"
TICKS = os.sysconf("SC_CLK_TCK")
VERDICT_MARKS = ("✅", "❌", "🟡")


def say(text: str) -> None:
    """Progress on stderr (stdout is the JSON)."""
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def click_body(value: str, user: str, response_url: str) -> str:
    body = fixture("block_actions.json")
    body["user"] = {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM}
    body["team"]["id"] = TEAM
    # Slack gives each click its own trigger_id, and studybot handles a trigger once (a
    # replay is dropped): the fixture's one id would make every click after the first a replay.
    body["trigger_id"] = trigger_id()
    body["actions"][0].update(action_id=value, value=value)
    body["channel"]["id"] = CHANNEL
    body["container"].update(channel_id=CHANNEL, message_ts="1700000000.000001")
    body["response_url"] = response_url
    return "payload=" + quote(json.dumps(body))


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 2) if present else None


# --- the load generator and fake Slack Web API (one process) -------------------------------


async def load_main(port: int) -> None:
    """Serve the fake Web API on ``port`` and run the phases the driver asks for on stdin
    (one JSON object a line), answering each with one JSON line on stdout."""
    import aiohttp
    from aiohttp import web

    waiting: dict[str, asyncio.Future[str]] = {}
    posts: list[dict[str, Any]] = []
    replies: dict[str, str] = {}
    ts = iter(range(1, 10**9))

    async def api(request: web.Request) -> web.Response:
        method = request.match_info["method"]
        raw = await request.read()
        if request.content_type == "application/json":
            args: dict[str, Any] = json.loads(raw or b"{}")
        else:
            args = dict(parse_qsl(raw.decode()))
        args.update(request.query)
        if method == "chat.postEphemeral":
            user = str(args.get("user"))
            text = f"{args.get('text', '')} {args.get('blocks', '')}"
            replies[user] = text
            future = waiting.pop(user, None)
            if future is not None and not future.done():
                future.set_result(text)
            return web.json_response({"ok": True, "message_ts": f"1700000000.{next(ts):06d}"})
        if method == "chat.postMessage":
            posts.append(args)
            return web.json_response(
                {"ok": True, "channel": args.get("channel"), "ts": f"1700000000.{next(ts):06d}"}
            )
        if method == "users.info":
            user_id = str(args.get("user"))
            return web.json_response(
                {
                    "ok": True,
                    "user": {
                        "id": user_id,
                        "name": user_id.lower(),
                        "real_name": f"Person {user_id}",
                        "tz": "Europe/Berlin",
                        "is_admin": False,
                        "is_owner": False,
                        "profile": {"display_name": "", "real_name": f"Person {user_id}"},
                    },
                }
            )
        if method == "auth.test":
            return web.json_response(
                {
                    "ok": True,
                    "url": "https://bench.slack.com/",
                    "team": "Bench",
                    "user": "studybot",
                    "team_id": TEAM,
                    "user_id": "UBOT",
                    "bot_id": "BBOT",
                }
            )
        if method == "conversations.open":
            return web.json_response({"ok": True, "channel": {"id": f"D{args.get('users')}"}})
        return web.json_response({"ok": True})

    async def hook(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    server = web.Application()
    server.router.add_route("*", "/api/{method}", api)
    server.router.add_post("/hooks/{path:.*}", hook)
    runner = web.AppRunner(server, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    hook_url = f"http://127.0.0.1:{port}/hooks/T/1/x"

    async def phase(order: dict[str, Any]) -> dict[str, Any]:
        urls, value, prefix = order["urls"], order["value"], order["prefix"]
        connections, duration = int(order["connections"]), float(order["duration"])
        expect_reply = bool(order["expect_reply"])
        rate = float(order.get("rate") or 0)
        counter = iter(range(10**9))
        acks: list[float] = []
        totals: list[float] = []
        acked_users: list[str] = []
        errors: dict[str, int] = {}
        loop = asyncio.get_running_loop()

        def error(kind: str) -> None:
            errors[kind] = errors.get(kind, 0) + 1

        connector = aiohttp.TCPConnector(limit=connections, force_close=False)
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            started = time.perf_counter()
            deadline = started + duration

            async def one_click(n: int, sent: float) -> None:
                """One click by a new user, timed from ``sent`` (when it was due to go)."""
                user = f"{prefix}{n}"
                url = urls[n % len(urls)]  # several workers: spread as a balancer would
                body = click_body(value, user, hook_url)
                future: asyncio.Future[str] = loop.create_future()
                if expect_reply:
                    waiting[user] = future
                try:
                    async with session.post(
                        url, data=body.encode(), headers=signed_headers(body)
                    ) as response:
                        await response.read()
                        status = response.status
                except (aiohttp.ClientError, TimeoutError) as exc:
                    error(type(exc).__name__)
                    waiting.pop(user, None)
                    return
                acked = time.perf_counter()
                if status != 200:
                    error(f"http {status}")
                    waiting.pop(user, None)
                    return
                acks.append(acked - sent)
                acked_users.append(user)
                if expect_reply:
                    try:
                        text = await asyncio.wait_for(future, 30)
                    except TimeoutError:
                        error("no reply in 30 s")
                        waiting.pop(user, None)
                        return
                    if "no longer open" in text:
                        error("question no longer open")
                    elif not any(mark in text for mark in VERDICT_MARKS):
                        error("reply is not a grade")
                totals.append(time.perf_counter() - sent)

            async def worker() -> None:
                while time.perf_counter() < deadline:
                    await one_click(next(counter), time.perf_counter())

            async def paced() -> None:
                """Open loop: a click every 1/rate s, whatever the answers before it are
                doing (at most ``connections`` at once: the connector's limit; a click that
                waits for a connection counts that wait in its ack time)."""
                clicks: list[asyncio.Task[None]] = []
                for n in range(int(rate * duration)):
                    due = started + n / rate
                    await asyncio.sleep(max(0.0, due - time.perf_counter()))
                    clicks.append(asyncio.create_task(one_click(n, due)))
                await asyncio.gather(*clicks)

            if rate:
                await paced()
            else:
                await asyncio.gather(*(worker() for _ in range(connections)))
            elapsed = time.perf_counter() - started
        done = len(totals)
        return {
            "answers": done,
            "acked": len(acked_users),
            "paced_at_per_s": rate or None,
            "seconds": round(elapsed, 2),
            "per_second": round(done / elapsed, 1),
            "ack_p50_ms": ms(percentile(acks, 0.5)),
            "ack_p99_ms": ms(percentile(acks, 0.99)),
            "reply_p50_ms": ms(percentile(totals, 0.5)) if expect_reply else None,
            "reply_p99_ms": ms(percentile(totals, 0.99)) if expect_reply else None,
            "errors": errors,
        }

    async def latest_post(order: dict[str, Any]) -> dict[str, Any]:
        deadline = time.perf_counter() + float(order.get("timeout", 30))
        while time.perf_counter() < deadline:
            for post in reversed(posts):
                if post.get("channel") == order["channel"]:
                    blocks = post.get("blocks") or "[]"
                    return {"blocks": json.loads(blocks) if isinstance(blocks, str) else blocks}
            await asyncio.sleep(0.05)
        return {"blocks": None}

    print(json.dumps({"ready": True}), flush=True)
    reader = asyncio.StreamReader()
    await loop_connect_stdin(reader)
    while line := await reader.readline():
        order = json.loads(line)
        if order["do"] == "phase":
            answer = await phase(order)
        elif order["do"] == "post":
            answer = await latest_post(order)
        else:
            break
        print(json.dumps(answer), flush=True)
    await runner.cleanup()


async def loop_connect_stdin(reader: asyncio.StreamReader) -> None:
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)


# --- the floors: bare slack-bolt apps behind the same server -------------------------------


def floor_main(port: int, api_url: str, ephemeral: bool) -> None:
    import uvicorn
    from slack_bolt.adapter.starlette.async_handler import AsyncSlackRequestHandler
    from slack_bolt.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    bolt = AsyncApp(
        client=AsyncWebClient(token="xoxb-bench", base_url=api_url),
        signing_secret=SECRET,
        process_before_response=False,
    )

    @bolt.action(re.compile(".*"))
    async def on_click(ack: Any, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        if ephemeral:
            await client.chat_postEphemeral(
                channel=body["channel"]["id"], user=body["user"]["id"], text="✅ Correct (100%)"
            )

    handler = AsyncSlackRequestHandler(bolt)

    async def endpoint(request: Request) -> Response:
        return await handler.handle(request)

    app = Starlette(routes=[Route("/slack/events", endpoint, methods=["POST"])])
    uvicorn.run(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off"
    )


# --- the driver ------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def wait_listening(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on {port}")


class Load:
    def __init__(self, port: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--role", "load", "--port", str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert json.loads(self.ask_raw())["ready"]

    def ask_raw(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode()
        if not line:
            raise SystemExit("the load generator exited")
        return line

    def ask(self, **order: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(order) + "\n").encode())
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.ask_raw())
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        with contextlib.suppress(OSError):
            self.process.stdin.write(b'{"do": "stop"}\n')
            self.process.stdin.close()
        self.process.wait(10)


class Target:
    """One server under load: a studybot (``backend`` set) or a floor; ``workers`` processes
    of it on ports of their own (``ports`` from ``command_for(port)`` and ``env_for(port)``),
    which the load spreads clicks over."""

    def __init__(
        self,
        name: str,
        command_for: Any,
        env_for: Any,
        workers: int = 1,
    ) -> None:
        self.name = name
        ports = [free_port() for _ in range(workers)]
        self.urls = [f"http://127.0.0.1:{port}/slack/events" for port in ports]
        self.url = self.urls[0]
        self.processes: list[subprocess.Popen[bytes]] = []
        for port in ports:
            # one after another: workers that start in the same instant on a new database
            # both insert the question bank, and the second exits on the unique key
            process = subprocess.Popen(
                command_for(port), env=env_for(port), stdout=subprocess.DEVNULL
            )
            self.processes.append(process)
            wait_listening(port, process, name)
        self.value = "any"
        self.db_url: str | None = None
        self.expect_reply = name != "floor_noop"

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(process.pid) for process in self.processes)

    def running(self) -> bool:
        return any(process.poll() is None for process in self.processes)

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


def studybot_env(db_url: str, api_url: str, port: int, tmp: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TZ")}
    return {
        **keep,
        "STUDYBOT_DATABASE_URL": db_url,
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": SECRET,
        "STUDYBOT_SLACK_API_URL": api_url,
        "STUDYBOT_HTTP_PORT": str(port),
        "STUDYBOT_LOG_LEVEL": "WARNING",
    }


def open_daily(load: Load, target: Target) -> str:
    """Send ``/daily`` to studybot and return the value of its first choice's button (a
    wrong answer is graded and stored like a right one)."""
    import urllib.request

    body = "&".join(
        f"{k}={quote(v)}"
        for k, v in {
            "command": "/daily",
            "text": "",
            "user_id": "WADMIN",
            "user_name": "admin",
            "channel_id": CHANNEL,
            "team_id": TEAM,
            "response_url": "http://127.0.0.1:9/hooks",
            "trigger_id": "1.2.3",
        }.items()
    )
    request = urllib.request.Request(
        target.url, data=body.encode(), headers=signed_headers(body), method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
    post = load.ask(do="post", channel=CHANNEL)
    blocks = post["blocks"] or []
    values = [
        e.get("value", "")
        for b in blocks
        if b.get("type") == "actions"
        for e in b.get("elements", [])
    ]
    choice = [v for v in values if v.startswith("daily:") and v.count(":") == 2]
    if not choice:
        raise SystemExit(f"the daily post has no choice buttons: {values}")
    return choice[0]


def stored(db_url: str) -> dict[str, int]:
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT count(*), count(DISTINCT user_id) FROM attempt "
                "WHERE daily_prompt_id IS NOT NULL"
            )
        ).one()
    engine.dispose()
    return {"attempts": int(rows[0]), "users": int(rows[1])}


@contextlib.contextmanager
def postgres_database(base_url: str) -> Iterator[str]:
    from sqlalchemy import create_engine, make_url, text

    name = f"studybot_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(base_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(base_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def migrate(db_url: str) -> None:
    subprocess.run(
        [str(Path(sys.executable).with_name("studybot")), "db", "upgrade"],
        env={**os.environ, "STUDYBOT_DATABASE_URL": db_url},
        check=True,
        stdout=subprocess.DEVNULL,
    )


def sql_per_answer(runs: int) -> dict[str, Any]:
    """Statements (and savepoints) one click costs, counted in process on the same path."""
    from slack_bolt.request.async_request import AsyncBoltRequest
    from sqlalchemy import event

    from bot.adapters.slack import SlackAdapter
    from bot.bootstrap import bootstrap
    from tests.adapters.slack.conftest import bank_of, slack_settings
    from tests.adapters.slack.fake_slack import FakeSlack
    from tests.adapters.slack.payloads import click, slash
    from tests.adapters.slack.test_slack_transport import right_button

    async def measure() -> dict[str, Any]:
        fake = FakeSlack()
        await fake.start()
        with tempfile.TemporaryDirectory() as tmp:
            app = bootstrap(slack_settings(fake, f"sqlite:///{tmp}/sql.db"), bank=bank_of("choice"))
            adapter = SlackAdapter(app, app.settings)
            counts = {"statements": 0, "savepoints": 0}

            def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
                counts["statements"] += 1

            def savepoint(*_args: Any) -> None:
                counts["savepoints"] += 1

            async def send(body: str) -> None:
                response = await adapter.bolt.async_dispatch(
                    AsyncBoltRequest(body=body, headers=signed_headers(body))
                )
                assert response.status == 200
                await adapter.settled()

            await send(slash("/daily"))
            await app.runner.deliverer.settle()
            post = fake.called("chat.postMessage")[-1]
            right = right_button(adapter, post)
            wrong = next(
                b["value"]
                for b in post.buttons()
                if b["value"].startswith("daily:") and b["value"] != right
            )
            await send(click(wrong, user="WWARM"))
            event.listen(app.engine, "before_cursor_execute", count)
            event.listen(app.engine, "savepoint", savepoint)
            before = len(fake.called("chat.postEphemeral"))
            figures: dict[str, float] = {}
            # a right answer also adds its points to the boards: two statements more
            for kind, value in (("wrong", wrong), ("right", right)):
                counts.update(statements=0, savepoints=0)
                for i in range(runs):
                    await send(click(value, user=f"WSQL{kind}{i}"))
                figures[f"statements_per_{kind}_answer"] = round(counts["statements"] / runs, 1)
                figures[f"savepoints_per_{kind}_answer"] = round(counts["savepoints"] / runs, 1)
            graded = [
                c
                for c in fake.called("chat.postEphemeral")[before:]
                if any(m in json.dumps(c.args, ensure_ascii=False) for m in VERDICT_MARKS)
            ]
            app.close()
        await fake.stop()
        return {"answers": 2 * runs, "graded_replies": len(graded), **figures}

    return asyncio.run(measure())


def driver(args: argparse.Namespace) -> dict[str, Any]:
    connections = [int(c) for c in args.connections.split(",")]
    workers = [int(w) for w in args.workers.split(",") if w]
    backends, postgres, notes = chosen_backends(args.backends)
    tmp = Path(tempfile.mkdtemp(prefix="studybot-bench-"))
    api_port = free_port()
    api_url = f"http://127.0.0.1:{api_port}/api/"
    load = Load(api_port)
    targets: list[Target] = []
    stack = contextlib.ExitStack()
    studybot = str(Path(sys.executable).with_name("studybot"))
    try:
        for ephemeral in (False, True):

            def floor_command(port: int, ephemeral: bool = ephemeral) -> list[str]:
                command = [sys.executable, __file__, "--role", "floor", "--port", str(port)]
                return command + ["--api", api_url] + (["--ephemeral"] if ephemeral else [])

            name = "floor_ephemeral" if ephemeral else "floor_noop"
            targets.append(Target(name, floor_command, lambda _port: dict(os.environ)))
        runs = [(backend, 1) for backend in backends]
        if "postgres" in backends:
            runs += [("postgres", n) for n in workers if n > 1]
        for backend, count in runs:
            if backend == "sqlite":
                db_url = f"sqlite:///{tmp}/bench.db"
            else:
                assert postgres is not None
                db_url = stack.enter_context(postgres_database(postgres))
            say(f"migrating {backend}")
            migrate(db_url)
            say(f"starting {count} studybot worker(s) on {backend}")
            suffix = f"_{count}_workers" if count > 1 else ""
            target = Target(
                f"studybot_{backend}{suffix}",
                lambda _port: [studybot, "run"],
                lambda port, db_url=db_url: studybot_env(db_url, api_url, port, tmp),
                count,
            )
            target.db_url = db_url
            target.value = open_daily(load, target)
            say(f"studybot on {backend}: answering {target.value}")
            targets.append(target)
        acked = {t.name: 0 for t in targets}
        for target in targets:  # warm-up: imports, connections, the first users
            acked[target.name] += load.ask(
                do="phase",
                urls=target.urls,
                value=target.value,
                prefix=f"Wwarm{target.name}",
                connections=10,
                duration=args.warmup,
                expect_reply=target.expect_reply,
            )["acked"]
        results: dict[str, dict[int, list[dict[str, Any]]]] = {
            t.name: {c: [] for c in connections} for t in targets
        }
        for round_ in range(args.rounds):
            for conns in connections:
                for target in targets:
                    say(f"round {round_ + 1}: {target.name} at {conns} connections")
                    cpu_before = target.cpu_seconds()
                    figure = load.ask(
                        do="phase",
                        urls=target.urls,
                        rate=args.rate,
                        value=target.value,
                        prefix=f"W{target.name[:3]}{target.name[-2:]}r{round_}c{conns}u",
                        connections=conns,
                        duration=args.duration,
                        expect_reply=target.expect_reply,
                    )
                    cpu = target.cpu_seconds() - cpu_before
                    figure["cpu_ms_per_answer"] = (
                        round(cpu / figure["answers"] * 1000, 2) if figure["answers"] else None
                    )
                    results[target.name][conns].append(figure)
                    acked[target.name] += figure["acked"]
        report: dict[str, Any] = {
            "machine": machine(),
            "paced_at_per_s": args.rate or None,
            "duration_s": args.duration,
            "rounds": args.rounds,
            "notes": notes,
        }
        for conns in connections:
            per_round = {name: [r["per_second"] for r in results[name][conns]] for name in results}
            section: dict[str, Any] = {}
            for target in targets:
                figures = results[target.name][conns]
                entry: dict[str, Any] = {
                    "answers_per_s": median([f["per_second"] for f in figures]),
                    "ack_p50_ms": median([f["ack_p50_ms"] for f in figures]),
                    "ack_p99_ms": median([f["ack_p99_ms"] for f in figures]),
                    "reply_p50_ms": median([f["reply_p50_ms"] for f in figures]),
                    "reply_p99_ms": median([f["reply_p99_ms"] for f in figures]),
                    "cpu_ms_per_answer": median([f["cpu_ms_per_answer"] for f in figures]),
                    "errors": merge_errors(figures),
                }
                if target.name.startswith("studybot"):
                    floor_cpu = section["floor_ephemeral"]["cpu_ms_per_answer"]
                    if entry["cpu_ms_per_answer"] and floor_cpu:
                        entry["cpu_ratio_to_floor_ephemeral"] = round(
                            entry["cpu_ms_per_answer"] / floor_cpu, 2
                        )
                    for floor in ("floor_ephemeral", "floor_noop"):
                        entry[f"ratio_to_{floor}"] = median(
                            [
                                mine / theirs if theirs else None
                                for mine, theirs in zip(
                                    per_round[target.name], per_round[floor], strict=True
                                )
                            ]
                        )
                section[target.name] = entry
            report[f"connections_{conns}"] = section
        for target in targets:
            target.stop()
        checks: dict[str, Any] = {}
        for target in targets:
            if target.db_url is None:
                continue
            found = stored(target.db_url)
            checks[target.name] = {
                **found,
                "acked_clicks": acked[target.name],
                "stored_exactly_once": found["attempts"] == found["users"] == acked[target.name],
            }
        report["storage"] = checks
        if not args.no_sql:
            report["sql_per_answer_sqlite"] = sql_per_answer(20)
        return report
    finally:
        for target in targets:
            if target.running():
                target.stop()
        load.close()
        stack.close()
        shutil.rmtree(tmp, ignore_errors=True)


def merge_errors(figures: list[dict[str, Any]]) -> dict[str, int]:
    merged: dict[str, int] = {}
    for figure in figures:
        for kind, count in figure["errors"].items():
            merged[kind] = merged.get(kind, 0) + count
    return merged


def chosen_backends(text: str) -> tuple[list[str], str | None, list[str]]:
    """The backends ``--backends`` asks for ("sqlite,postgres"), the PostgreSQL server's URL
    (``STUDYBOT_TEST_POSTGRES_URL``), and a note when PostgreSQL is skipped for want of it."""
    backends = [b for b in text.split(",") if b]
    postgres = os.environ.get("STUDYBOT_TEST_POSTGRES_URL")
    notes: list[str] = []
    if "postgres" in backends and not postgres:
        backends.remove("postgres")
        notes.append("PostgreSQL skipped: STUDYBOT_TEST_POSTGRES_URL is not set")
    return backends, postgres, notes


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "python": sys.version.split()[0],
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per phase")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    parser.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per target")
    parser.add_argument("--connections", default="50,200", help="comma-separated")
    parser.add_argument("--backends", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--no-sql", action="store_true", help="skip the SQL statement count")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="paced: clicks per second in all (open loop), at most --connections at once; "
        "0: closed loop, each connection clicking again once answered",
    )
    parser.add_argument(
        "--workers",
        default="1",
        help="comma-separated counts of studybot workers on one PostgreSQL, e.g. 1,2",
    )
    parser.add_argument("--role", default="driver", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--api", default="", help=argparse.SUPPRESS)
    parser.add_argument("--ephemeral", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "load":
        asyncio.run(load_main(args.port))
    elif args.role == "floor":
        floor_main(args.port, args.api, args.ephemeral)
    else:
        print(json.dumps(driver(args), indent=1))


if __name__ == "__main__":
    main()

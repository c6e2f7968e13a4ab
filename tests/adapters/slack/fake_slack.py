"""A fake Slack Web API on 127.0.0.1 (aiohttp, port 0) that records every call.

It answers the methods the adapter uses, can be told to fail a method or to
answer 429 with ``Retry-After``, serves uploads and ``response_url`` webhooks,
and plays Slack's side of Socket Mode (``apps.connections.open`` and a
websocket at ``/link``). Tests wait on its record with :meth:`FakeSlack.wait_for`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web

BOT_USER_ID = "UBOT"
BOT_ID = "BBOT"
TEAM_ID = "T111"


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    at: float = field(default_factory=time.monotonic)  # when it arrived

    def blocks(self) -> list[dict[str, Any]]:
        value = self.args.get("blocks") or []
        return json.loads(value) if isinstance(value, str) else list(value)

    def view(self) -> dict[str, Any]:
        value = self.args.get("view") or {}
        return json.loads(value) if isinstance(value, str) else dict(value)

    def buttons(self) -> list[dict[str, Any]]:
        return [
            element
            for block in self.blocks()
            if block.get("type") == "actions"
            for element in block["elements"]
        ]


class FakeSlack:
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.users: dict[str, dict[str, Any]] = {}
        self.socket_frames: list[dict[str, Any]] = []
        self._failures: dict[str, list[tuple[int, dict[str, Any], dict[str, str]]]] = {}
        self._held: dict[str, asyncio.Event] = {}
        self._changed = asyncio.Condition()
        self._ts = itertools.count(1)
        self._ids = itertools.count(1)
        self._socket: web.WebSocketResponse | None = None
        self._socket_ready = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # --- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_post("/hooks/{path:.*}", self._hook)
        app.router.add_get("/link", self._link)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        if self._socket is not None:
            await self._socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/"

    def hook_url(self, name: str = "T111/1/x") -> str:
        return f"{self.url}/hooks/{name}"

    # --- steering -------------------------------------------------------------------------

    def rate_limit(self, method: str, retry_after: int = 0, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 and ``Retry-After``."""
        answer = (429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(retry_after)})
        self._failures.setdefault(method, []).extend([answer] * times)

    def hold(self, method: str) -> asyncio.Event:
        """Keep every call of ``method`` waiting (a slow platform) until the returned event
        is set; the calls are recorded as they arrive."""
        release = self._held.setdefault(method, asyncio.Event())
        return release

    def server_error(self, method: str, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with HTTP 500."""
        self._failures.setdefault(method, []).extend(
            [(500, {"ok": False, "error": "internal_error"}, {})] * times
        )

    def fail(self, method: str, error: str, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with ``{"ok": false, "error": …}``."""
        self._failures.setdefault(method, []).extend(
            [(200, {"ok": False, "error": error}, {})] * times
        )

    # --- waiting on the record ------------------------------------------------------------

    def called(
        self, method: str | tuple[str, ...], where: Callable[[Call], bool] | None = None
    ) -> list[Call]:
        methods = (method,) if isinstance(method, str) else method
        return [c for c in self.calls if c.method in methods and (where is None or where(c))]

    async def wait_for(
        self,
        method: str | tuple[str, ...],
        count: int = 1,
        where: Callable[[Call], bool] | None = None,
        timeout: float = 30.0,
    ) -> list[Call]:
        """The calls of ``method`` once at least ``count`` were made (fails after ``timeout``)."""
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: len(self.called(method, where)) >= count), timeout
            )
        return self.called(method, where)

    async def wait_for_frame(self, where: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: any(where(f) for f in self.socket_frames)), 5.0
            )
        return next(f for f in self.socket_frames if where(f))

    async def _record(self, call: Call) -> None:
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    # --- the Web API ----------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            if request.content_type == "application/json":
                args.update(await request.json())
            else:
                args.update(parse_qsl((await request.read()).decode()))
        await self._record(Call(method, args, dict(request.headers)))
        held = self._held.get(method)
        if held is not None:
            await held.wait()
        queued = self._failures.get(method)
        if queued:
            status, body, headers = queued.pop(0)
            return web.json_response(body, status=status, headers=headers)
        return web.json_response(self._answer(method, args))

    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://test.slack.com/",
                "team": "Test",
                "user": "studybot",
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "bot_id": BOT_ID,
            }
        if method == "chat.postMessage":
            return {"ok": True, "channel": args.get("channel"), "ts": self._next_ts()}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": self._next_ts()}
        if method == "chat.update":
            return {"ok": True, "channel": args.get("channel"), "ts": args.get("ts")}
        if method in ("views.open", "views.publish"):
            return {"ok": True, "view": {"id": f"V{next(self._ids)}"}}
        if method == "users.info":
            user_id = str(args.get("user"))
            user = {
                "id": user_id,
                "name": user_id.lower(),
                "real_name": f"Person {user_id}",
                "tz": "Europe/Berlin",
                "is_admin": False,
                "is_owner": False,
                "profile": {"display_name": "", "real_name": f"Person {user_id}"},
            }
            user.update(self.users.get(user_id, {}))
            return {"ok": True, "user": user}
        if method == "conversations.open":
            return {"ok": True, "channel": {"id": f"D{args.get('users')}"}}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._ids)}"
            return {"ok": True, "upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}
        if method == "files.completeUploadExternal":
            files = json.loads(args.get("files") or "[]")
            return {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in files]}
        if method == "apps.connections.open":
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link"}
        return {"ok": True}

    def _next_ts(self) -> str:
        """Message timestamps in posting order: the first message is 1700000000.000001."""
        return f"1700000000.{next(self._ts):06d}"

    async def _upload(self, request: web.Request) -> web.Response:
        body = await request.read()
        await self._record(
            Call("upload", {"file_id": request.match_info["file_id"], "size": len(body)})
        )
        return web.Response(text="OK")

    async def _hook(self, request: web.Request) -> web.Response:
        await self._record(Call("response_url", await request.json()))
        return web.Response(text="ok")

    # --- Socket Mode ----------------------------------------------------------------------

    async def _link(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._socket = ws
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": 1,
                "debug_info": {"host": "fake", "approximate_connection_time": 3600},
                "connection_info": {"app_id": "A111"},
            }
        )
        self._socket_ready.set()
        async for message in ws:
            if message.type is WSMsgType.TEXT:
                async with self._changed:
                    self.socket_frames.append(json.loads(message.data))
                    self._changed.notify_all()
        return ws

    async def send_envelope(self, envelope: dict[str, Any]) -> None:
        """Push one Socket Mode envelope to the connected app."""
        await asyncio.wait_for(self._socket_ready.wait(), 5.0)
        assert self._socket is not None
        await self._socket.send_json(envelope)

"""A small fake of Discord on 127.0.0.1: the REST API and the gateway, recording every call.

The real discord.py client connects to it: login (``GET /users/@me``,
``GET /oauth2/applications/@me``), the gateway (HELLO, IDENTIFY, READY,
GUILD_CREATE, heartbeat ACKs, dispatched events), interaction callbacks,
webhook follow-ups, channel messages and DMs. Responses carry
``Content-Type: application/json`` exactly, as discord.py requires; a 429
carries a ``Via`` header and a JSON ``retry_after``, as Discord's do.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.adapters.discord import payloads as p


@dataclass
class Call:
    method: str
    path: str
    json: Any = None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    query: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Call({self.method} {self.path} {json.dumps(self.json)[:300]})"


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        body=json.dumps(body).encode(),
        status=status,
        content_type="application/json",
        headers=headers,
    )


class FakeDiscord:
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.identify: dict[str, Any] | None = None
        self.heartbeats = 0
        self._ids = itertools.count(1_300_000_000_000_000_000)
        self._seq = itertools.count(1)
        self._changed = asyncio.Condition()
        self._sockets: list[web.WebSocketResponse] = []
        self._rate_limits: list[tuple[str, re.Pattern[str], float]] = []
        self._refusals: list[tuple[str, re.Pattern[str], int]] = []
        self.guilds: list[dict[str, Any]] = [p.guild()]
        self.port = 0
        self._runner: web.AppRunner | None = None

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> FakeDiscord:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def close(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def snowflake(self) -> str:
        return str(next(self._ids))

    # -- recording --------------------------------------------------------------------------

    async def _record(self, call: Call) -> None:
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    async def wait_for(
        self, predicate: Callable[[Call], bool], timeout: float = 30.0, count: int = 1
    ) -> list[Call]:
        """The first ``count`` recorded calls matching ``predicate``, waiting up to ``timeout``."""

        def found() -> list[Call]:
            return [c for c in self.calls if predicate(c)]

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: len(found()) >= count), timeout)
            return found()[:count]

    async def wait_call(self, method: str, pattern: str, timeout: float = 30.0) -> Call:
        regex = re.compile(pattern)
        calls = await self.wait_for(
            lambda c: c.method == method and regex.search(c.path) is not None, timeout
        )
        return calls[0]

    def rate_limit(self, method: str, pattern: str, retry_after: float) -> None:
        """Answer the next matching request with 429 and ``retry_after`` seconds."""
        self._rate_limits.append((method, re.compile(pattern), retry_after))

    def refuse(self, method: str, pattern: str, status: int, times: int = 1) -> None:
        """Answer the next ``times`` matching requests with ``status`` and no ``Via`` header
        (a 429 from Cloudflare rather than from Discord's rate limiter, a 5xx)."""
        self._refusals.extend([(method, re.compile(pattern), status)] * times)

    # -- gateway ----------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            frame = json.loads(msg.data)
            op = frame.get("op")
            if op == 1:
                self.heartbeats += 1
                await ws.send_str(json.dumps({"op": 11}))
            elif op == 2:
                self.identify = frame["d"]
                await self._record(Call("GATEWAY", "IDENTIFY", frame["d"]))
                shard = frame["d"].get("shard") or [0, 1]
                await self._send(ws, "READY", p.ready(self.gateway_url, self.guilds, shard))
                for guild in self.guilds:
                    await self._send(ws, "GUILD_CREATE", guild)
        self._sockets.remove(ws)
        return ws

    async def _send(self, ws: web.WebSocketResponse, event: str, data: Any) -> None:
        await ws.send_str(json.dumps({"op": 0, "t": event, "s": next(self._seq), "d": data}))

    async def dispatch(self, event: str, data: Any) -> None:
        """Send a DISPATCH event to every connected client."""
        assert self._sockets, "no client is connected to the fake gateway"
        for ws in self._sockets:
            await self._send(ws, event, data)

    # -- REST -------------------------------------------------------------------------------

    async def _body(self, request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            body: Any = None
            files: list[tuple[str, bytes]] = []
            while (part := await reader.next()) is not None:
                data = await part.read()  # type: ignore[union-attr]
                if part.name == "payload_json":  # type: ignore[union-attr]
                    body = json.loads(data)
                else:
                    files.append((part.filename or "", bytes(data)))  # type: ignore[union-attr]
            return body, files
        raw = await request.read()
        return (json.loads(raw) if raw else None), []

    def first_with_buttons(self) -> str:
        """The id of the first message posted with components (a daily post, a question)."""
        return next(mid for mid, m in self.messages.items() if m.get("components"))

    def _message(self, channel_id: str, body: dict[str, Any] | None, files: list[Any]) -> dict:
        body = body or {}
        message = p.message(
            self.snowflake(),
            channel_id,
            content=body.get("content") or "",
            embeds=body.get("embeds") or [],
            components=body.get("components") or [],
            flags=int(body.get("flags") or 0),
            attachments=[
                {
                    "id": self.snowflake(),
                    "filename": name,
                    "size": len(blob),
                    "url": f"http://127.0.0.1/{name}",
                    "proxy_url": f"http://127.0.0.1/{name}",
                }
                for name, blob in files
            ],
        )
        self.messages[message["id"]] = message
        return message

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        method = request.method
        body, files = await self._body(request)
        await self._record(Call(method, path, body, files, dict(request.query)))
        for i, (m, regex, status) in enumerate(self._refusals):
            if m == method and regex.search(path):
                del self._refusals[i]
                return _json({"message": "refused by the fake", "code": 0}, status=status)
        for i, (m, regex, retry_after) in enumerate(self._rate_limits):
            if m == method and regex.search(path):
                del self._rate_limits[i]
                return _json(
                    {
                        "message": "You are being rate limited.",
                        "retry_after": retry_after,
                        "global": False,
                    },
                    status=429,
                    headers={"Via": "1.1 google", "Retry-After": str(retry_after)},
                )
        return self._answer(method, path, body, files)

    def _answer(self, method: str, path: str, body: Any, files: list[Any]) -> web.Response:
        if (method, path) == ("GET", "/users/@me"):
            return _json(p.BOT_USER)
        if (method, path) == ("GET", "/oauth2/applications/@me"):
            return _json(p.application())
        if (method, path) == ("GET", "/gateway/bot"):
            return _json(
                {
                    "url": self.gateway_url,
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 999,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            )
        if (method, path) == ("GET", "/gateway"):
            return _json({"url": self.gateway_url})
        if method == "PUT" and (
            m := re.fullmatch(r"/applications/(\d+)(/guilds/(\d+))?/commands", path)
        ):
            return _json([p.app_command(self.snowflake(), c, m.group(3)) for c in body])
        if method == "POST" and (m := re.fullmatch(r"/interactions/(\d+)/([^/]+)/callback", path)):
            return self._callback(m.group(1), body, files)
        if m := re.fullmatch(r"/webhooks/(\d+)/([^/]+)(/messages/(@original|\d+))?", path):
            if method == "DELETE":
                return web.Response(status=204)
            return _json(self._message(p.CHANNEL_ID, body, files))
        if m := re.fullmatch(r"/channels/(\d+)/messages(/(\d+))?", path):
            channel_id, message_id = m.group(1), m.group(3)
            if method == "POST":
                return _json(self._message(channel_id, body, files))
            found = self.messages.get(message_id or "")
            if found is None:
                return _json({"message": "Unknown Message", "code": 10008}, status=404)
            if method == "PATCH":
                found.update(
                    {
                        k: v
                        for k, v in (body or {}).items()
                        if k in ("content", "embeds", "components")
                    }
                )
            return _json(found)
        if (method, path) == ("POST", "/users/@me/channels"):
            return _json(p.dm_channel(p.dm_channel_id(body["recipient_id"]), body["recipient_id"]))
        return _json({"message": f"404: not in the fake ({method} {path})", "code": 0}, 404)

    def _callback(self, interaction_id: str, body: Any, files: list[Any]) -> web.Response:
        kind = int(body["type"])
        data = body.get("data") or {}
        result: dict[str, Any] = {
            "interaction": {
                "id": interaction_id,
                "type": 2,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(int(data.get("flags") or 0) & 64),
            },
            "resource": {"type": kind},
        }
        if kind in (4, 5, 7):
            message = self._message(p.CHANNEL_ID, data, files)
            result["interaction"]["response_message_id"] = message["id"]
            result["resource"]["message"] = message
        return _json(result)

    # -- helpers for tests ------------------------------------------------------------------

    def callbacks(self) -> list[Call]:
        return [c for c in self.calls if c.path.endswith("/callback")]

    def channel_posts(self, channel_id: str = p.CHANNEL_ID) -> list[Call]:
        return [
            c
            for c in self.calls
            if c.method == "POST" and c.path == f"/channels/{channel_id}/messages"
        ]

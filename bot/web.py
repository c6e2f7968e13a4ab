"""The one ASGI app: platform endpoints from the adapters, plus /healthz and /metrics.

Every request body is bounded (``MAX_BODY``): a larger one gets 413 as soon as its
``Content-Length`` says so, or as soon as the bytes read pass the bound, before the rest is
read, so nobody can make a worker hold (or a library log) a large unauthenticated body.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot import __version__
from bot.bootstrap import App
from bot.metrics import REGISTRY

#: The largest request body any route takes. Slack's biggest payloads (a view submission
#: carrying its whole modal, at most 100 blocks) and Discord's (an interaction with its
#: resolved users, or a message context menu with a 2,000-character message and 6,000
#: characters of embeds) are tens of kilobytes; 256 KiB leaves room and bounds the harm.
MAX_BODY = 256 * 1024


class BodyLimit:
    """ASGI middleware: refuse a request body over ``limit`` bytes with 413, before reading
    it; the body of an accepted request is read once here and replayed to the app."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is None:
            await _refuse(send, 400, "bad Content-Length")
            return
        if declared > self.limit:
            await _refuse(send, 413, f"request body over {self.limit} bytes")
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _refuse(send, 413, f"request body over {self.limit} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # the disconnect, when the app waits for one
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _content_length(scope: Scope) -> int | None:
    """The declared length (0 when none is declared), or None when it is not a number."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            if not (text.isascii() and text.isdigit()) or len(text) > 18:
                return None
            return int(text)
    return 0


async def _refuse(send: Send, status: int, error: str) -> None:
    body = json.dumps({"error": error}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_web_app(app: App, routes: Sequence[BaseRoute] = ()) -> Starlette:
    """Serve ``routes`` (the adapters' endpoints) beside the health and metrics endpoints."""

    def database_answers() -> bool:
        try:
            with app.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    async def healthz(_request: Request) -> Response:
        ok = await asyncio.to_thread(database_answers)
        body = {"status": "ok" if ok else "unavailable", "database": ok, "version": __version__}
        return JSONResponse(body, status_code=200 if ok else 503)

    async def metrics(_request: Request) -> Response:
        return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)

    web = Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            *routes,
        ]
    )
    web.add_middleware(BodyLimit)
    return web

"""``POST /discord/interactions``: Discord's HTTP interactions endpoint.

Every request is checked with the application's Ed25519 public key (PyNaCl)
over ``X-Signature-Timestamp + body``; a bad or missing signature, or a
timestamp more than five minutes off, gets 401 (Discord sends bad signatures
on purpose to check). PING gets ``{"type": 1}``; autocomplete gets its choices;
commands, components and modal submits go through the same handler as the
gateway, their first response being the body of the answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from datetime import timedelta
from typing import Any

import discord
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.adapters.discord.client import StudybotClient
from bot.adapters.discord.commands import autocomplete_choices
from bot.adapters.discord.interactions import HttpResponder
from bot.core.clock import Clock
from bot.core.errors import ConfigError

log = logging.getLogger(__name__)
MAX_SKEW = timedelta(minutes=5)
_TIMESTAMP = re.compile(r"[0-9]{1,12}")  # ASCII digits only: str.isdigit() takes "²"
PING, COMMAND, COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
DEFAULT_ATTACHMENT_LIMIT = 8 * 1024 * 1024


def verify_key(public_key: str) -> VerifyKey:
    """The application's public key (hex, from the Developer Portal)."""
    try:
        return VerifyKey(bytes.fromhex(public_key.strip()))
    except (ValueError, TypeError) as exc:
        raise ConfigError(
            "DISCORD_PUBLIC_KEY must be the 64 hex characters shown in the Developer Portal"
        ) from exc


def parse_interaction(client: discord.Client, payload: dict[str, Any]) -> discord.Interaction:
    """A verified HTTP payload as a discord.py ``Interaction`` of the logged-in ``client``.

    discord.py parses it with the client's state, as it does INTERACTION_CREATE, so
    follow-ups use its own webhook routes. The raw channel id is kept in ``extras`` for
    payloads without a ``channel`` object. Raises KeyError/ValueError/TypeError.
    """
    payload.setdefault("version", 1)
    payload.setdefault("attachment_size_limit", DEFAULT_ATTACHMENT_LIMIT)
    interaction: discord.Interaction = discord.Interaction(
        data=payload,  # type: ignore[arg-type]
        state=client._connection,
    )
    if payload.get("channel_id"):
        interaction.extras["channel_id"] = str(payload["channel_id"])
    return interaction


class HttpInteractions:
    """The endpoint; interactions run on the client's handler as background tasks."""

    def __init__(self, client: StudybotClient, public_key: str, clock: Clock) -> None:
        self.client = client
        self.key = verify_key(public_key)
        self.clock = clock
        self._tasks: set[asyncio.Task[None]] = set()

    def routes(self) -> list[Route]:
        return [Route("/discord/interactions", self.endpoint, methods=["POST"])]

    def _signed(self, request: Request, body: bytes) -> bool:
        signature = request.headers.get("X-Signature-Ed25519", "")
        timestamp = request.headers.get("X-Signature-Timestamp", "")
        if (
            not signature
            or not (timestamp.isascii() and timestamp.isdigit())
            or len(timestamp) > 12
        ):
            return False
        try:
            self.key.verify(timestamp.encode() + body, bytes.fromhex(signature))
        except (BadSignatureError, ValueError):
            return False
        age = abs(self.clock.now().timestamp() - int(timestamp))
        return age <= MAX_SKEW.total_seconds()

    async def endpoint(self, request: Request) -> Response:
        body = await request.body()  # bounded by bot.web.BodyLimit
        if not self._signed(request, body):
            return JSONResponse({"error": "invalid request signature"}, status_code=401)
        try:
            payload: dict[str, Any] = json.loads(body)
            kind = int(payload["type"])
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": "not an interaction"}, status_code=400)
        if kind == PING:
            return JSONResponse({"type": 1})
        if kind == AUTOCOMPLETE:
            choices = autocomplete_choices(payload.get("data") or {}, self.client.topics)
            return JSONResponse({"type": 8, "data": {"choices": choices}})
        if kind not in (COMMAND, COMPONENT, MODAL_SUBMIT):
            return JSONResponse({"error": f"unsupported interaction type {kind}"}, status_code=400)
        return await self._interaction(payload)

    async def _interaction(self, payload: dict[str, Any]) -> Response:
        try:
            interaction = parse_interaction(self.client, payload)
        except (KeyError, ValueError, TypeError):
            log.warning("an interaction payload discord.py could not read", exc_info=True)
            return JSONResponse({"error": "malformed interaction"}, status_code=400)
        try:
            first = await self.client.handler.first_delivery(interaction)
        except Exception:  # the database is down: the handler's edge says so to the user
            first = True
        if not first:
            log.info("Discord: interaction %s came again; it was handled once", interaction.id)
            return JSONResponse({"error": "interaction already handled"}, status_code=409)
        responder = HttpResponder()
        task = asyncio.create_task(self.client.handler.run(interaction, responder, recorded=True))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        waiting: set[asyncio.Future[Any]] = {task, responder.body}
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if not responder.body.done():
            return JSONResponse({"error": "no response"}, status_code=500)
        return JSONResponse(responder.body.result(), background=BackgroundTask(responder.sent))

    async def drain(self) -> None:
        """Let interactions still being answered finish (on shutdown)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=10)

"""Fixtures for the Discord adapter: the fake Discord, signing keys, the wired adapter."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import discord
import pytest
import uvicorn
from nacl.signing import SigningKey

from bot.adapters.discord import DiscordAdapter
from bot.adapters.discord.client import configure_endpoints
from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.context import Grader
from tests.adapters.discord import payloads as p
from tests.adapters.discord.fake_discord import FakeDiscord

UNHURRIED = 60.0  # seconds: the handler's deferral deadline in tests not about deferral


@pytest.fixture(autouse=True)
def _restore_discord_endpoints() -> Iterator[None]:
    """discord.py keeps its REST base and gateway as class attributes: put them back."""
    base = discord.http.Route.BASE
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    yield
    discord.http.Route.BASE = base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord().start()
    yield server
    await server.close()


@pytest.fixture
async def client(fake: FakeDiscord) -> AsyncIterator[discord.Client]:
    """A client logged in (REST only) to the fake, as in HTTP interactions mode."""
    configure_endpoints(fake.api_url, None)
    bot = discord.Client(intents=discord.Intents.none())
    await bot.login("fake-bot-token")
    yield bot
    await bot.close()


@pytest.fixture
def signing_key() -> SigningKey:
    """A fresh Ed25519 key per test: Discord's side of the HTTP interactions endpoint."""
    return SigningKey.generate()


def discord_settings(db_url: str, fake: FakeDiscord, key: SigningKey, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "studybot_database_url": db_url,
        "discord_bot_token": "fake-bot-token",
        "discord_public_key": key.verify_key.encode().hex(),
        "discord_application_id": p.APP_ID,
        "studybot_discord_api_url": fake.api_url,
        "studybot_discord_gateway_url": fake.gateway_url,
        "studybot_admins": "",
    }
    values.update(overrides)
    return Settings(**values)


def bank_of(bank: QuestionBank, kind: str) -> QuestionBank:
    """The sample pack's questions of one kind, so the daily question is known."""
    return QuestionBank(q for q in bank if q.kind == kind)


@asynccontextmanager
async def running_adapter(
    db_url: str,
    clock: SimulatedClock,
    bank: QuestionBank,
    fake: FakeDiscord,
    key: SigningKey,
    grade: Grader | None = None,
    **overrides: Any,
) -> AsyncIterator[tuple[App, DiscordAdapter]]:
    """The app and a started adapter (gateway connected to the fake), as `studybot run` wires
    them; ``grade`` replaces the grader."""
    settings = discord_settings(db_url, fake, key, **overrides)
    app = bootstrap(settings, clock=clock, bank=bank, auto_migrate=True, grade=grade)
    adapter = DiscordAdapter(app, settings, guild_ready_timeout=0.01)
    if "studybot_discord_defer_after" not in overrides:
        # Whether the core answers within Discord's 2 s window depends on how loaded the
        # machine is; tests of the immediate answer must not turn into tests of deferral
        # (which have their own, with defer_after=0).
        adapter.client.handler.defer_after = UNHURRIED
    try:
        await adapter.start()
        yield app, adapter
    finally:
        await adapter.stop()
        app.close()


@asynccontextmanager
async def served(asgi_app: Any) -> AsyncIterator[str]:
    """Serve ``asgi_app`` with uvicorn on a free loopback port; yields its base URL.

    The socket is bound and listening before the server starts, so requests made
    at once wait in the backlog instead of failing.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    config = uvicorn.Config(asgi_app, lifespan="off", log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()

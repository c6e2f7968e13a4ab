"""Discord: discord.py client (gateway), HTTP interactions endpoint, embeds and components.

``build_discord_adapter(app, settings)`` is what ``studybot run`` uses.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from typing import Any

import aiohttp
import discord
from starlette.routing import BaseRoute

from bot.adapters.discord.client import (
    ShardedStudybotClient,
    StudybotClient,
    SyncTarget,
    make_client,
)
from bot.adapters.discord.http import HttpInteractions
from bot.adapters.discord.notifier import DiscordNotifier
from bot.bootstrap import App
from bot.config import Settings
from bot.core.errors import ConfigError
from bot.delivery import Notifier
from bot.logging_setup import OncePerOutage

__all__ = [
    "DiscordAdapter",
    "DiscordNotifier",
    "ShardedStudybotClient",
    "StudybotClient",
    "SyncTarget",
    "build_discord_adapter",
]

log = logging.getLogger(__name__)
READY_TIMEOUT = 60.0
LOGIN_RETRY_FIRST, LOGIN_RETRY_MAX = 1.0, 60.0  # seconds between attempts to log in
# discord.py logs each failed reconnection with a traceback (discord.client, discord.shard)
# and each new session (discord.gateway): one filter on the three says an outage once.
_RECONNECTS = OncePerOutage(
    "Discord",
    failure="Attempting a reconnect",
    recovered=("has connected to Gateway", "RESUMED"),
    dropped=("voice will NOT be supported",),  # studybot has no voice
)
for _name in ("discord.client", "discord.shard", "discord.gateway"):
    logging.getLogger(_name).addFilter(_RECONNECTS)


class DiscordAdapter:
    """The gateway connection (when a bot token is set) and the HTTP endpoint (when a
    public key is set) around one client."""

    name = "discord"

    def __init__(self, app: App, settings: Settings, **client_options: Any) -> None:
        if settings.discord_bot_token is None:
            raise ConfigError(
                "Discord needs DISCORD_BOT_TOKEN, also in HTTP interactions mode (channel posts, "
                "DMs and follow-ups use it); set STUDYBOT_DISCORD_GATEWAY=false to skip the gateway"
            )
        self.token = settings.discord_bot_token.get_secret_value()
        self.gateway = settings.studybot_discord_gateway
        sync = None
        if settings.studybot_discord_sync_on_start:
            guild = settings.studybot_discord_guild_id
            sync = SyncTarget(int(guild) if guild and guild.isdigit() else None)
        self.client = make_client(app, settings, sync, **client_options)
        self._deliverer = app.runner.deliverer
        self.notifier: Notifier = self.client.notifier
        app.register_notifier(self.name, self.notifier)
        self.http: HttpInteractions | None = (
            HttpInteractions(self.client, settings.discord_public_key, app.clock)
            if settings.discord_public_key is not None
            else None
        )
        self._connection: asyncio.Task[None] | None = None

    def routes(self) -> list[BaseRoute]:
        return list(self.http.routes()) if self.http is not None else []

    async def start(self) -> None:
        """Log in (REST), retrying while Discord cannot be reached; with the gateway on,
        connect and return once READY. A ConfigError, with what to do, when Discord refuses
        the token or the intents, or the gateway is not ready in READY_TIMEOUT seconds."""
        await self._login()
        if not self.gateway:
            log.info("Discord: REST only (HTTP interactions mode)")
            return
        self._connection = asyncio.create_task(self.client.connect(reconnect=True))
        ready = asyncio.create_task(self.client.wait_until_ready())
        try:
            done, _ = await asyncio.wait(
                {self._connection, ready},
                timeout=READY_TIMEOUT,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            ready.cancel()
        if ready not in done:
            if self._connection in done:
                _raise_refusal(self._connection.exception())
            raise ConfigError(f"Discord gateway not ready after {READY_TIMEOUT:.0f}s")
        user = self.client.user
        log.info("Discord gateway ready as %s", user.name if user else "?")

    async def _login(self) -> None:
        delay, warned = LOGIN_RETRY_FIRST, False
        while True:
            try:
                await self.client.login(self.token)
                return
            except discord.LoginFailure as exc:
                raise ConfigError(
                    "Discord refused DISCORD_BOT_TOKEN: copy the bot token again from the "
                    "Developer Portal (Bot → Reset Token)"
                ) from exc
            except discord.HTTPException as exc:
                reason = f"Discord answered {exc.status}"
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                reason = str(exc) or type(exc).__name__
            if not warned:
                log.warning("Discord: cannot log in (%s); retrying until it can", reason)
                warned = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, LOGIN_RETRY_MAX)

    async def stop(self) -> None:
        """Answer the interactions in flight, then disconnect; the app (and its database)
        may be closed once this returns."""
        if self.http is not None:
            await self.http.drain()
        await self.client.handler.drain()
        await self._deliverer.flush()  # their replies leave while the client is still open
        await self.client.close()
        if self._connection is not None:
            with suppress(asyncio.CancelledError, Exception):
                await self._connection
        await self.client.handler.drain()  # any that arrived while disconnecting


def _raise_refusal(error: BaseException | None) -> None:
    """Say what ended the gateway connection before READY, as a ConfigError."""
    if isinstance(error, discord.PrivilegedIntentsRequired):
        raise ConfigError(
            "Discord refused the Message Content intent: turn it on in the Developer Portal "
            "(Bot → Privileged Gateway Intents), or set STUDYBOT_DISCORD_MESSAGE_CONTENT=false"
        ) from error
    if isinstance(error, discord.ConnectionClosed) and error.code == 4004:
        raise ConfigError("Discord refused DISCORD_BOT_TOKEN on the gateway") from error
    raise ConfigError(f"the Discord gateway closed before it was ready: {error}") from error


def build_discord_adapter(app: App, settings: Settings) -> DiscordAdapter:
    """The Discord adapter for ``studybot run``."""
    return DiscordAdapter(app, settings)

"""Discord: discord.py client (gateway), HTTP interactions endpoint, embeds and components.

``build_discord_adapter(app, settings)`` is what ``studybot run`` uses.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from typing import Any

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
        """Log in (REST); with the gateway on, connect and return once READY."""
        await self.client.login(self.token)
        if not self.gateway:
            log.info("Discord: REST only (HTTP interactions mode)")
            return
        self._connection = asyncio.create_task(self.client.connect(reconnect=True))
        ready = asyncio.create_task(self.client.wait_until_ready())
        done, _ = await asyncio.wait(
            {self._connection, ready}, timeout=READY_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if self._connection in done:
                self._connection.result()  # raises what stopped the connection
            raise ConfigError(f"Discord gateway not ready after {READY_TIMEOUT:.0f}s")
        user = self.client.user
        log.info("Discord gateway ready as %s", user.name if user else "?")

    async def stop(self) -> None:
        """Answer the interactions in flight, then disconnect; the app (and its database)
        may be closed once this returns."""
        if self.http is not None:
            await self.http.drain()
        await self.client.handler.drain()
        await self.client.close()
        if self._connection is not None:
            with suppress(asyncio.CancelledError, Exception):
                await self._connection
        await self.client.handler.drain()  # any that arrived while disconnecting


def build_discord_adapter(app: App, settings: Settings) -> DiscordAdapter:
    """The Discord adapter for ``studybot run``."""
    return DiscordAdapter(app, settings)

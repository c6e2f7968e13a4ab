"""The discord.py client: app commands in ``setup_hook``, interactions and thread replies.

``StudybotClient`` takes its dependencies as arguments (the wired app, the
topics for ``/quiz``, the admin list, the sync target) and builds its own
notifier and interaction handler. ``ShardedStudybotClient`` is the same bot on
discord.py's ``AutoShardedClient``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
import yarl
from discord import app_commands

from bot.adapters.discord.commands import build_commands
from bot.adapters.discord.interactions import GatewayResponder, InteractionHandler
from bot.adapters.discord.notifier import DiscordNotifier
from bot.bootstrap import App
from bot.config import Settings
from bot.core.errors import ConfigError

log = logging.getLogger(__name__)


def configure_endpoints(api_url: str, gateway_url: str | None) -> None:
    """Point discord.py's REST base and default gateway at ``api_url`` / ``gateway_url``.

    Must run before any route is built; discord.py keeps both as class attributes.
    """
    discord.http.Route.BASE = api_url.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def intents_for(message_content: bool) -> discord.Intents:
    """Only what studybot uses.

    ``guilds`` for channels and threads; ``guild_messages`` for replies to daily
    posts; ``message_content`` (privileged, enabled in the Developer Portal) only
    to read replies that do not mention the bot. Interactions need no intent.
    """
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    intents.message_content = message_content
    return intents


@dataclass(frozen=True, slots=True)
class SyncTarget:
    """Where ``setup_hook`` syncs the commands: everywhere, or one guild (fast, for testing)."""

    guild_id: int | None = None


async def sync_commands(
    tree: app_commands.CommandTree[discord.Client], target: SyncTarget
) -> list[app_commands.AppCommand]:
    """Upload the registered commands globally or to one guild; returns what Discord holds."""
    if target.guild_id is None:
        return await tree.sync()
    guild = discord.Object(id=target.guild_id)
    tree.copy_global_to(guild=guild)
    return await tree.sync(guild=guild)


class StudybotClient(discord.Client):
    """studybot on Discord: slash commands, buttons, selects, modals, thread replies."""

    def __init__(
        self,
        app: App,
        *,
        topics: Sequence[str],
        admin_ids: frozenset[str] = frozenset(),
        intents: discord.Intents | None = None,
        application_id: int | None = None,
        sync: SyncTarget | None = None,
        defer_after: float = 2.0,
        sends_per_second: float = 40.0,
        max_ratelimit_timeout: float | None = 30.0,
        **client_options: Any,
    ) -> None:
        options: dict[str, Any] = dict(client_options)
        if application_id is not None:
            options["application_id"] = application_id  # else learnt at login
        super().__init__(
            intents=intents or intents_for(message_content=False),
            max_ratelimit_timeout=max_ratelimit_timeout,
            **options,
        )
        self.app = app
        self.topics = list(topics)
        self.sync_target = sync
        self.tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(self)
        self.notifier = DiscordNotifier(self, sends_per_second)
        self.handler = InteractionHandler(app, self.notifier, admin_ids, defer_after)
        self.synced: list[app_commands.AppCommand] = []

    async def _dispatch_command(self, interaction: discord.Interaction) -> None:
        await self.handler.run(interaction, GatewayResponder(interaction))

    async def setup_hook(self) -> None:
        """Register one app command per core command; sync them if asked to."""
        for command in build_commands(self._dispatch_command, self.topics):
            self.tree.add_command(command)
        if self.sync_target is not None:
            self.synced = await sync_commands(self.tree, self.sync_target)
            where = self.sync_target.guild_id or "every guild"
            log.info("synced %d Discord commands to %s", len(self.synced), where)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        # Commands and autocomplete go through the command tree; components and modals here.
        if interaction.type in (
            discord.InteractionType.component,
            discord.InteractionType.modal_submit,
        ):
            await self.handler.run(interaction, GatewayResponder(interaction))

    async def on_message(self, message: discord.Message) -> None:
        await self.handler.on_message(self, message)


class ShardedStudybotClient(StudybotClient, discord.AutoShardedClient):
    """The same bot on discord.py's AutoShardedClient (Discord requires shards at 2,500
    guilds; discord.py suggests them from about 1,000)."""


def make_client(
    app: App, settings: Settings, sync: SyncTarget | None = None, **client_options: Any
) -> StudybotClient:
    """The client ``settings`` describe (sharded or not), after pointing discord.py at the
    configured REST and gateway URLs. ``client_options`` go to discord.py's client (tests
    shorten ``guild_ready_timeout``)."""
    configure_endpoints(settings.studybot_discord_api_url, settings.studybot_discord_gateway_url)
    cls = ShardedStudybotClient if settings.studybot_discord_sharded else StudybotClient
    app_id = settings.discord_application_id
    if app_id is not None and not app_id.isdigit():
        raise ConfigError(f"DISCORD_APPLICATION_ID must be a number, not {app_id!r}")
    return cls(
        app,
        topics=app.services.bank.topics(),
        admin_ids=settings.admin_ids,
        intents=intents_for(settings.studybot_discord_message_content),
        application_id=int(app_id) if app_id is not None else None,
        sync=sync,
        defer_after=settings.studybot_discord_defer_after,
        sends_per_second=settings.studybot_discord_sends_per_second,
        max_ratelimit_timeout=settings.studybot_discord_max_ratelimit_wait,
        **client_options,
    )


class CommandSyncClient(discord.Client):
    """A client that only logs in over REST and uploads the commands (``studybot discord
    sync``): no gateway, so it never receives an interaction."""

    def __init__(self, topics: Sequence[str], target: SyncTarget, application_id: int | None):
        options: dict[str, Any] = {}
        if application_id is not None:
            options["application_id"] = application_id
        super().__init__(intents=discord.Intents.none(), **options)
        self.tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(self)
        self.topics = list(topics)
        self.target = target
        self.synced: list[app_commands.AppCommand] = []

    async def _unreachable(self, interaction: discord.Interaction) -> None:
        raise RuntimeError("the sync client is never connected to the gateway")

    async def setup_hook(self) -> None:
        for command in build_commands(self._unreachable, self.topics):
            self.tree.add_command(command)
        self.synced = await sync_commands(self.tree, self.target)


async def sync_now(settings: Settings, topics: Sequence[str], target: SyncTarget) -> list[str]:
    """Log in with the bot token, upload every command, log out; returns the names synced."""
    if settings.discord_bot_token is None:
        raise ConfigError("DISCORD_BOT_TOKEN is not set")
    configure_endpoints(settings.studybot_discord_api_url, settings.studybot_discord_gateway_url)
    app_id = settings.discord_application_id
    if app_id is not None and not app_id.isdigit():
        raise ConfigError(f"DISCORD_APPLICATION_ID must be a number, not {app_id!r}")
    client = CommandSyncClient(topics, target, int(app_id) if app_id is not None else None)
    try:
        await client.login(settings.discord_bot_token.get_secret_value())
    finally:
        await client.close()
    return [command.name for command in client.synced]

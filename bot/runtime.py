"""``studybot run``: the adapters whose credentials are set, the scheduler, the web server.

One event loop runs everything. Adapters are imported only when configured,
so a deployment needs only the extras of the platforms it uses.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from contextlib import suppress

import uvicorn

from bot.adapters.base import PlatformAdapter
from bot.bootstrap import App
from bot.config import Settings
from bot.core.errors import ConfigError
from bot.scheduler import start_scheduler
from bot.web import create_web_app

log = logging.getLogger(__name__)


def build_adapters(app: App, settings: Settings) -> list[PlatformAdapter]:
    """One adapter per configured platform; a ConfigError if its extra is not installed."""
    adapters: list[PlatformAdapter] = []
    if settings.slack_enabled:
        try:
            from bot.adapters.slack import build_slack_adapter
        except ImportError as exc:
            raise ConfigError(
                "Slack credentials are set but Slack support is not installed: "
                "pip install 'studybot[slack]'"
            ) from exc
        adapters.append(build_slack_adapter(app, settings))
    if settings.discord_gateway_enabled or settings.discord_http_enabled:
        try:
            from bot.adapters.discord import build_discord_adapter
        except ImportError as exc:
            raise ConfigError(
                "Discord credentials are set but Discord support is not installed: "
                "pip install 'studybot[discord]'"
            ) from exc
        adapters.append(build_discord_adapter(app, settings))
    return adapters


async def serve(app: App, adapters: list[PlatformAdapter], stop: asyncio.Event) -> None:
    """Run until ``stop`` is set: adapters, scheduler, and the web server when an adapter
    serves HTTP or STUDYBOT_HTTP_PORT is set (for /healthz and /metrics alone)."""
    routes = [route for adapter in adapters for route in adapter.routes()]
    app.runner.deliverer.start()
    scheduler = start_scheduler(app.runner)
    server: uvicorn.Server | None = None
    server_task: asyncio.Task[None] | None = None
    try:
        for adapter in adapters:
            await adapter.start()
        if routes or "studybot_http_port" in app.settings.model_fields_set:
            config = uvicorn.Config(
                create_web_app(app, routes),
                host=app.settings.studybot_http_host,
                port=app.settings.studybot_http_port,
                log_level=app.settings.studybot_log_level.lower(),
                lifespan="off",
            )
            server = uvicorn.Server(config)
            server_task = asyncio.create_task(server.serve())
            log.info(
                "web server on http://%s:%s",
                app.settings.studybot_http_host,
                app.settings.studybot_http_port,
            )
        await app.runner.run_due()
        await stop.wait()
    finally:
        if server is not None and server_task is not None:
            server.should_exit = True
            with suppress(Exception):
                await server_task
        for adapter in adapters:
            with suppress(Exception):
                await adapter.stop()
        scheduler.shutdown(wait=False)
        await app.stop()  # the outbox's background delivery, after its pass in flight


async def run_forever(app: App, adapters: list[PlatformAdapter]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await serve(app, adapters, stop)

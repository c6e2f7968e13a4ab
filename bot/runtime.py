"""``studybot run``: the adapters whose credentials are set, the scheduler, the web server.

One event loop runs everything. Adapters are imported only when configured,
so a deployment needs only the extras of the platforms it uses.

Stopping (SIGTERM from ``docker stop``, or Ctrl-C) is prompt in every state: while an
adapter is still connecting (Slack unreachable, say) the connecting is abandoned; once
running, the web server stops taking requests and finishes those in flight, then each
adapter finishes the events it took and disconnects, all within :data:`STOP_GRACE`
seconds or so. A second signal stops at once.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Generator
from contextlib import contextmanager, suppress

import uvicorn

from bot.adapters.base import PlatformAdapter
from bot.bootstrap import App
from bot.config import Settings
from bot.core.errors import ConfigError
from bot.extras import missing_extra
from bot.scheduler import start_scheduler
from bot.web import create_web_app

log = logging.getLogger(__name__)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: Seconds the web server waits for requests in flight when stopping.
STOP_GRACE = 5


def build_adapters(app: App, settings: Settings) -> list[PlatformAdapter]:
    """One adapter per configured platform; a ConfigError if its extra is not installed."""
    adapters: list[PlatformAdapter] = []
    if settings.slack_enabled:
        try:
            from bot.adapters.slack import build_slack_adapter
        except ImportError as exc:
            raise ConfigError(
                "Slack credentials are set, but " + missing_extra("Slack support", "slack")
            ) from exc
        adapters.append(build_slack_adapter(app, settings))
    if settings.discord_gateway_enabled or settings.discord_http_enabled:
        try:
            from bot.adapters.discord import build_discord_adapter
        except ImportError as exc:
            raise ConfigError(
                "Discord credentials are set, but " + missing_extra("Discord support", "discord")
            ) from exc
        adapters.append(build_discord_adapter(app, settings))
    return adapters


class WebServer(uvicorn.Server):
    """uvicorn's server without its own signal handlers, which would replace run_forever's:
    a signal stops everything in order, the web server first."""

    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


async def unless_stopped(work: Awaitable[object], stop: asyncio.Event) -> bool:
    """Run ``work`` until it ends (True) or ``stop`` is set first (False: it is cancelled).
    Whatever ``work`` raised is raised here."""
    task = asyncio.ensure_future(work)
    stopped = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        return False
    task.result()
    return True


async def _start(adapters: list[PlatformAdapter]) -> None:
    for adapter in adapters:
        await adapter.start()


async def serve(app: App, adapters: list[PlatformAdapter], stop: asyncio.Event) -> None:
    """Run until ``stop`` is set: adapters, scheduler, and the web server when an adapter
    serves HTTP or STUDYBOT_HTTP_PORT is set (for /healthz and /metrics alone)."""
    routes = [route for adapter in adapters for route in adapter.routes()]
    app.runner.deliverer.start()
    scheduler = start_scheduler(app.runner)
    server: uvicorn.Server | None = None
    server_task: asyncio.Task[None] | None = None
    try:
        if not await unless_stopped(_start(adapters), stop):
            return
        if routes or "studybot_http_port" in app.settings.model_fields_set:
            config = uvicorn.Config(
                create_web_app(app, routes),
                host=app.settings.studybot_http_host,
                port=app.settings.studybot_http_port,
                log_level=app.settings.studybot_log_level.lower(),
                log_config=None,  # our handler and format (tokens redacted), not uvicorn's
                access_log=False,  # a line per request (health checks every 30 s) is noise
                lifespan="off",
                timeout_graceful_shutdown=STOP_GRACE,
            )
            server = WebServer(config)
            server_task = asyncio.create_task(server.serve())
            log.info(
                "web server on http://%s:%s",
                app.settings.studybot_http_host,
                app.settings.studybot_http_port,
            )
        if await unless_stopped(app.runner.run_due(), stop):
            await stop.wait()
    finally:
        log.info("stopping: finishing the work in flight")
        if server is not None and server_task is not None:
            server.should_exit = True
            with suppress(Exception):
                await server_task
        for adapter in adapters:
            try:
                await adapter.stop()
            except Exception:
                log.exception("stopping %s failed", adapter.name)
        scheduler.pause()  # no new due run starts; the one in flight ends after its round
        await app.runner.finish_runs(STOP_GRACE)
        scheduler.shutdown(wait=False)
        await app.stop()  # the outbox's background delivery, after its pass in flight


async def run_forever(app: App, adapters: list[PlatformAdapter]) -> None:
    """Serve until SIGTERM or SIGINT; a second signal cancels what is still stopping."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()

    def on_signal(sig: signal.Signals) -> None:
        if not stop.is_set():
            log.info("%s received: stopping", sig.name)
            stop.set()
        elif main is not None:
            log.warning("%s received again: stopping now", sig.name)
            main.cancel()

    for sig in STOP_SIGNALS:
        with suppress(NotImplementedError):
            loop.add_signal_handler(sig, on_signal, sig)
    try:
        await serve(app, adapters, stop)
    except asyncio.CancelledError:
        if not stop.is_set():
            raise
    finally:
        for sig in STOP_SIGNALS:
            with suppress(NotImplementedError):
                loop.remove_signal_handler(sig)

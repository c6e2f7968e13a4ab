"""What ``studybot run`` needs from a platform adapter, and the one way an adapter's edge
reports a failure."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Protocol

from bot.core.app import APOLOGY
from bot.db.outage import OUTAGE, TRY_AGAIN, is_outage
from bot.delivery import Notifier
from bot.metrics import EVENT_ERRORS

if TYPE_CHECKING:  # the web server's types; the console does not load Starlette
    from starlette.routing import BaseRoute

#: Seconds a stopping adapter gives the events it acknowledged to be recorded and answered
#: (an answer burst just before SIGTERM), before it disconnects. With the web server's own
#: grace before it and the outbox's last pass after it, a stop takes at most about 25 s;
#: docker-compose.yml's ``stop_grace_period`` is 30 s.
STOP_DRAIN = 15.0


class PlatformAdapter(Protocol):
    """A connected platform: its notifier for the outbox (the adapter registers it with
    ``App.register_notifier`` when it is built), its HTTP routes, its connections.

    ``routes`` are served by the one web server (HTTP modes); ``start`` opens
    long-lived connections (Slack Socket Mode, the Discord gateway) and returns
    once they are running; ``stop`` closes them.
    """

    name: str
    notifier: Notifier

    def routes(self) -> list[BaseRoute]: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def report_failure(log: logging.Logger, platform: str, what: str) -> str:
    """An adapter's edge, in its ``except`` block: log the exception being handled once,
    with its traceback, and count it in ``studybot_event_errors_total``; returns what the
    caller tells the user: a short apology (``bot.core.app.APOLOGY``), never the exception
    text. When the database did not answer, the outage is logged once (not a traceback per
    request) and the user is told to try again shortly (``bot.db.outage.TRY_AGAIN``)."""
    EVENT_ERRORS.labels(platform).inc()
    exc = sys.exc_info()[1]
    if exc is not None and is_outage(exc):
        OUTAGE.failed(exc)
        return TRY_AGAIN
    log.exception("%s: handling %s failed", platform, what)
    return APOLOGY

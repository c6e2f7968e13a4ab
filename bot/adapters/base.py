"""What ``studybot run`` needs from a platform adapter."""

from __future__ import annotations

from typing import Protocol

from starlette.routing import BaseRoute

from bot.delivery import Notifier


class PlatformAdapter(Protocol):
    """A connected platform: its notifier for the outbox, its HTTP routes, its connections.

    ``routes`` are served by the one web server (HTTP modes); ``start`` opens
    long-lived connections (Slack Socket Mode, the Discord gateway) and returns
    once they are running; ``stop`` closes them.
    """

    name: str
    notifier: Notifier

    def routes(self) -> list[BaseRoute]: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

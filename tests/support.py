"""Test helpers that read like chat transcripts (after errbot's test backend)."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from bot.adapters.console.session import ConsoleSession
from bot.bootstrap import App
from bot.core.messages import Delivery, Outgoing
from bot.db.models import Base


class Transcript:
    """Drives a console session and keeps every message it printed."""

    def __init__(
        self, app: App, user: str = "alice", channel: str = "general", tz: str | None = None
    ) -> None:
        self.app = app
        self.messages: list[Outgoing] = []
        self.session = ConsoleSession(
            app, user=user, channel=channel, tz=tz, emit=self.messages.append
        )

    def send(self, line: str) -> list[Outgoing]:
        """Type one line; return what the bot printed in answer."""
        start = len(self.messages)
        asyncio.run(self.session.handle_line(line))
        return self.messages[start:]

    def say(self, line: str) -> str:
        """Type one line; return all printed text joined, for simple assertions."""
        return "\n".join(m.text for m in self.send(line))

    def posts(self) -> list[Outgoing]:
        return [m for m in self.messages if m.delivery is Delivery.CHANNEL]


def row_counts(app: App) -> dict[str, int]:
    """How many rows each table holds: to show that bad input wrote nothing."""
    counts: dict[str, int] = {}
    with app.session_factory() as session:
        for table in Base.metadata.sorted_tables:
            counts[table.name] = session.scalar(select(func.count()).select_from(table)) or 0
    return counts

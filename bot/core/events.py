"""Neutral events: what an adapter hands the core, whatever the platform."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.core.ports import Port


class EventKind(StrEnum):
    COMMAND = "command"  # a slash command or a console line starting with "/"
    MESSAGE = "message"  # free text: an answer in a thread, or a console line
    ACTION = "action"  # a button click or a form submission


@dataclass(frozen=True, slots=True)
class Event:
    """One thing a user did.

    ``workspace`` is a Slack team id, a Discord guild id or ``console``;
    ``channel`` and ``user`` are platform ids within it. For COMMAND events
    ``command`` is the name without the slash and ``args`` the rest of the
    line; for ACTION events ``action`` is the button or form id and ``text``
    any value typed into a form. ``thread`` is the message the event replies
    to, when it is a thread reply. ``user_tz`` is the IANA zone the platform
    reports for the user, if any; ``is_admin`` is the platform's own verdict.
    ``delivery`` is the platform's own id of the request that carried the event (a trigger,
    an event or an interaction id): the core handles a delivery once, however often the
    platform retries or replays it, and on any number of workers (:data:`DELIVERIES`).
    Empty when the platform gives none: then the event is always handled.
    """

    kind: EventKind
    platform: str
    workspace: str
    channel: str
    user: str
    user_name: str = ""
    command: str = ""
    args: str = ""
    text: str = ""
    action: str = ""
    thread: str | None = None
    user_tz: str | None = None
    is_admin: bool = False
    is_dm: bool = False
    delivery: str = ""


class Deliveries(Protocol):
    """The platform deliveries already taken, shared by every worker on one store."""

    def first(self, platform: str, key: str) -> bool:
        """Take delivery ``key`` of ``platform`` in this unit of work: True the first time
        (the key is kept when the unit of work commits), False when a committed unit of
        work took it before. Two units of work that take the same key at once: one gets
        True; the other waits for it and gets False once it commits (True if it rolls
        back)."""
        ...


DELIVERIES = Port[Deliveries]("deliveries")

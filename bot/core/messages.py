"""Neutral outgoing messages. Adapters render them; the core never sends.

A :class:`Card` is data: a title, text blocks, fields, buttons, an image and a
footer. An :class:`Outgoing` says where it goes: to a channel, privately to one
user inside a channel (Slack ephemeral, Discord flag 64, a console line), as a
direct message, as an update of an earlier message, or as a form (modal).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from bot.core.model import Workspace
from bot.core.ports import Port


class Delivery(StrEnum):
    CHANNEL = "channel"
    PRIVATE = "private"
    DM = "dm"
    UPDATE = "update"
    MODAL = "modal"


class ButtonStyle(StrEnum):
    DEFAULT = "default"
    PRIMARY = "primary"
    DANGER = "danger"


@dataclass(frozen=True, slots=True)
class Button:
    """A button whose ``action`` travels back as an event (``daily:42:B``, at most 100 chars)."""

    label: str
    action: str
    style: ButtonStyle = ButtonStyle.DEFAULT

    def __post_init__(self) -> None:
        if len(self.action) > 100:
            raise ValueError(f"button action too long ({len(self.action)} > 100): {self.action!r}")


@dataclass(frozen=True, slots=True)
class Field:
    label: str
    value: str
    inline: bool = True


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file to attach, such as a PNG chart or an .ics invitation."""

    filename: str
    content: bytes
    mime_type: str


@dataclass(frozen=True, slots=True)
class Card:
    title: str = ""
    blocks: tuple[str, ...] = ()
    fields: tuple[Field, ...] = ()
    buttons: tuple[Button, ...] = ()
    image_url: str | None = None
    footer: str | None = None

    def as_text(self) -> str:
        """The card as plain text, for the console and for platform fallbacks."""
        lines: list[str] = []
        if self.title:
            lines.append(self.title)
        lines.extend(self.blocks)
        lines.extend(f"{f.label}: {f.value}" for f in self.fields)
        if self.buttons:
            lines.append("  ".join(f"[{b.label}]" for b in self.buttons))
        if self.footer:
            lines.append(self.footer)
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Form:
    """A modal with one free-text input; its submission comes back as ``action``."""

    title: str
    label: str
    action: str
    placeholder: str = ""
    multiline: bool = True


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message to deliver.

    ``to`` is a channel id for CHANNEL and UPDATE, a user id for PRIVATE and DM.
    PRIVATE also carries ``channel`` (where the user is). UPDATE carries ``ref``,
    the platform id of the message to replace. ``key`` makes delivery idempotent.
    """

    delivery: Delivery
    to: str
    card: Card
    channel: str | None = None
    ref: str | None = None
    thread: str | None = None
    form: Form | None = None
    attachments: tuple[Attachment, ...] = ()
    key: str | None = None
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.card.as_text()


def say(to: str, text: str, *, channel: str | None = None) -> Outgoing:
    """A private one-line reply to ``to``: the most common answer to a command."""
    return Outgoing(Delivery.PRIVATE, to, Card(blocks=(text,)), channel=channel)


#: The tag that says until when a queued message is worth sending (an ISO 8601 instant):
#: the outbox retries a failing send until then, and drops it with a log line after.
STALE_AT = "stale_at"


def until(message: Outgoing, when: datetime) -> Outgoing:
    """``message``, worth sending only until ``when`` (a daily post until its reveal, a
    reminder until its mock starts); the outbox drops it, with a log line, after that."""
    return replace(message, tags={**message.tags, STALE_AT: when.astimezone(UTC).isoformat()})


def stale_at(message: Outgoing) -> datetime | None:
    """Until when ``message`` is worth sending (see :func:`until`); None when it does not say."""
    value = message.tags.get(STALE_AT)
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def to_payload(message: Outgoing) -> dict[str, object]:
    """A JSON-safe form of ``message`` for the outbox."""
    card = message.card
    return {
        "delivery": message.delivery.value,
        "to": message.to,
        "channel": message.channel,
        "ref": message.ref,
        "thread": message.thread,
        "key": message.key,
        "tags": dict(message.tags),
        "card": {
            "title": card.title,
            "blocks": list(card.blocks),
            "fields": [[f.label, f.value, f.inline] for f in card.fields],
            "buttons": [[b.label, b.action, b.style.value] for b in card.buttons],
            "image_url": card.image_url,
            "footer": card.footer,
        },
        "form": None
        if message.form is None
        else [
            message.form.title,
            message.form.label,
            message.form.action,
            message.form.placeholder,
            message.form.multiline,
        ],
        "attachments": [
            [a.filename, base64.b64encode(a.content).decode("ascii"), a.mime_type]
            for a in message.attachments
        ],
    }


def from_payload(data: dict[str, Any]) -> Outgoing:
    """The inverse of :func:`to_payload`."""
    c = data["card"]
    card = Card(
        title=c["title"],
        blocks=tuple(c["blocks"]),
        fields=tuple(Field(lbl, val, bool(inl)) for lbl, val, inl in c["fields"]),
        buttons=tuple(Button(lbl, act, ButtonStyle(sty)) for lbl, act, sty in c["buttons"]),
        image_url=c["image_url"],
        footer=c["footer"],
    )
    form = data.get("form")
    return Outgoing(
        delivery=Delivery(data["delivery"]),
        to=data["to"],
        card=card,
        channel=data.get("channel"),
        ref=data.get("ref"),
        thread=data.get("thread"),
        form=None if form is None else Form(form[0], form[1], form[2], form[3], bool(form[4])),
        attachments=tuple(
            Attachment(name, base64.b64decode(blob), mime)
            for name, blob, mime in data.get("attachments") or ()
        ),
        key=data.get("key"),
        tags=dict(data.get("tags") or {}),
    )


class Outbox(Protocol):
    """Where the core queues what it sends later (channel posts, DMs, updates); the
    background delivery sends it."""

    def add(
        self, workspace: Workspace, platform: str, message: Outgoing, key: str, due_at: datetime
    ) -> bool:
        """Queue ``message`` for delivery; False if a message with ``key`` exists already."""
        ...


OUTBOX = Port[Outbox]("outbox")

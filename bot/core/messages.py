"""Neutral outgoing messages. Adapters render them; the core never sends.

A :class:`Card` is data: a title, text blocks, fields, buttons, an image and a
footer. An :class:`Outgoing` says where it goes: to a channel, privately to one
user inside a channel (Slack ephemeral, Discord flag 64, a console line), as a
direct message, as an update of an earlier message, or as a form (modal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


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

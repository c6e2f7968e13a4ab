"""Outgoing messages as terminal text or as JSON lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.core.messages import Delivery, Outgoing

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def save_attachments(message: Outgoing, directory: Path) -> list[Path]:
    """Write the message's attachments (charts) into ``directory``; their paths."""
    paths: list[Path] = []
    for attachment in message.attachments:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / (_UNSAFE.sub("_", attachment.filename).lstrip(".") or "attachment")
        path.write_bytes(attachment.content)
        paths.append(path)
    return paths


def as_json(message: Outgoing, channel_name: str, paths: list[Path] | None = None) -> str:
    """One JSON line: at least ``kind``, ``to`` and ``text`` (the console contract)."""
    data: dict[str, object] = {
        "kind": message.delivery.value,
        "to": message.to,
        "text": message.text,
    }
    if message.delivery is Delivery.PRIVATE:
        data["channel"] = message.channel or channel_name
    if message.card.title:
        data["title"] = message.card.title
    if message.card.buttons:
        data["buttons"] = [{"label": b.label, "action": b.action} for b in message.card.buttons]
    if paths:
        data["attachments"] = [str(p) for p in paths]
    elif message.attachments:
        data["attachments"] = [a.filename for a in message.attachments]
    return json.dumps(data, ensure_ascii=False)


def without_fences(text: str) -> list[str]:
    """The lines of ``text`` without code fences: those are for the chat platforms'
    monospace blocks, and a terminal is monospace."""
    return [line for line in text.splitlines() if line.strip() != "```"]


def as_text(message: Outgoing, paths: list[Path] | None = None) -> str:
    """A message as plain lines, prefixed with where it went."""
    body = message.text
    if message.delivery is Delivery.CHANNEL:
        head = f"[#{message.to}]"
    elif message.delivery is Delivery.PRIVATE:
        head = f"[to {message.to}, only you]"
    elif message.delivery is Delivery.DM:
        head = f"[DM to {message.to}]"
    elif message.delivery is Delivery.UPDATE:
        head = f"[#{message.to}, updated]"
    else:
        head = f"[form for {message.to}]"
        if message.form is not None:
            body = f"{message.form.label}: type /answer TEXT to fill it in"
    for path in paths or ():
        body += f"\nfile: {path}"
    lines = without_fences(body)
    indented = "\n".join("  " + line if line else "" for line in lines)
    return f"{head}\n{indented}"

"""Neutral outgoing messages as Discord objects: embeds, buttons and selects, modals, files.

Everything is built as real ``discord.Embed`` / ``discord.ui`` objects so that
discord.py enforces its own limits; :func:`message_json` and :func:`modal_json`
give the wire form (HTTP interaction responses, golden snapshots).

Views and modals need a running event loop (discord.py creates futures in their
constructors), so render inside the loop.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.core.messages import Button, ButtonStyle, Card, Form, Outgoing

EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
EMBED_TOTAL = 6000
CONTENT = 2000
BUTTON_LABEL = 80
ROWS = 5
PER_ROW = 5
SELECT_OPTIONS = 25
OPTION_LABEL = 100
MODAL_TITLE = 45
INPUT_LABEL = 45
INPUT_PLACEHOLDER = 100
INPUT_MAX = 4000
EPHEMERAL = 64
SELECT_PREFIX = "studybot-select:"  # a select's own id; the chosen option carries the action
MODAL_INPUT_ID = "text"

STYLES = {
    ButtonStyle.DEFAULT: discord.ButtonStyle.secondary,
    ButtonStyle.PRIMARY: discord.ButtonStyle.primary,
    ButtonStyle.DANGER: discord.ButtonStyle.danger,
}


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class DiscordMessage:
    """One message ready for discord.py: pass :meth:`kwargs` to ``send``/``edit``."""

    content: str | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    view: discord.ui.View | None = None
    files: list[discord.File] = field(default_factory=list)
    ephemeral: bool = False

    def kwargs(self, *, edit: bool = False) -> dict[str, Any]:
        """Keyword arguments for discord.py's send (or, with ``edit``, edit) methods."""
        args: dict[str, Any] = {
            "content": self.content,
            "embeds": self.embeds,
            "allowed_mentions": discord.AllowedMentions.none(),
        }
        if self.view is not None:
            args["view"] = self.view
        elif edit:
            args["view"] = None  # an edit with no view removes the old buttons
        if self.files:
            args["attachments" if edit else "files"] = self.files
        return args


def _is_plain(card: Card) -> bool:
    """A card that is only text reads best as plain message content."""
    text = "\n\n".join(card.blocks)
    return (
        not card.title
        and not card.fields
        and card.image_url is None
        and not card.footer
        and len(text) <= CONTENT
    )


def card_embed(card: Card) -> discord.Embed:
    """A card as an embed, clipped to Discord's limits (6,000 characters in all)."""
    embed = discord.Embed(
        title=clip(card.title, EMBED_TITLE) or None,
        description=clip("\n\n".join(card.blocks), EMBED_DESCRIPTION) or None,
    )
    for f in card.fields[:EMBED_FIELDS]:
        embed.add_field(
            name=clip(f.label, FIELD_NAME) or "\u200b",
            value=clip(f.value, FIELD_VALUE) or "\u200b",
            inline=f.inline,
        )
    if card.image_url:
        embed.set_image(url=card.image_url)
    if card.footer:
        embed.set_footer(text=clip(card.footer, FOOTER))
    return _within_total(embed)


def _within_total(embed: discord.Embed) -> discord.Embed:
    """Trim the description, then drop fields from the end, then the footer, to 6,000."""
    overflow = len(embed) - EMBED_TOTAL
    if overflow > 0 and embed.description:
        keep = len(embed.description) - overflow
        embed.description = clip(embed.description, keep) if keep > 0 else None
    while len(embed) > EMBED_TOTAL and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    overflow = len(embed) - EMBED_TOTAL
    if overflow > 0 and embed.footer.text:
        keep = len(embed.footer.text) - overflow
        embed.set_footer(text=clip(embed.footer.text, keep)) if keep > 0 else embed.remove_footer()
    return embed


def buttons_view(buttons: tuple[Button, ...]) -> discord.ui.View | None:
    """Buttons in rows of five; more than 25 become selects of up to 25 options each.

    The view is stopped at once: studybot routes every click through its own
    interaction handler, so discord.py must not keep the view in its store.
    """
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    if len(buttons) <= ROWS * PER_ROW:
        for i, b in enumerate(buttons):
            view.add_item(
                discord.ui.Button(
                    label=clip(b.label, BUTTON_LABEL),
                    custom_id=b.action,
                    style=STYLES[b.style],
                    row=i // PER_ROW,
                )
            )
    else:
        chunks = [buttons[i : i + SELECT_OPTIONS] for i in range(0, len(buttons), SELECT_OPTIONS)]
        for row, chunk in enumerate(chunks[:ROWS]):
            view.add_item(
                discord.ui.Select(
                    custom_id=f"{SELECT_PREFIX}{row}",
                    placeholder="Choose…",
                    options=[
                        discord.SelectOption(label=clip(b.label, OPTION_LABEL), value=b.action)
                        for b in chunk
                    ],
                    row=row,
                )
            )
    view.stop()
    return view


def _files(message: Outgoing) -> list[discord.File]:
    return [
        discord.File(io.BytesIO(a.content), filename=a.filename, spoiler=False)
        for a in message.attachments
    ]


def render(message: Outgoing, *, ephemeral: bool = False) -> DiscordMessage:
    """``message`` as Discord content, embeds, components and files."""
    card = message.card
    files = _files(message)
    view = buttons_view(card.buttons)
    first_png = next((a for a in message.attachments if a.mime_type == "image/png"), None)
    if _is_plain(card) and first_png is None:
        return DiscordMessage(
            content="\n\n".join(card.blocks) or None,
            view=view,
            files=files,
            ephemeral=ephemeral,
        )
    embed = card_embed(card)
    if first_png is not None and not card.image_url:
        embed.set_image(url=f"attachment://{first_png.filename}")  # the chart inside the card
    return DiscordMessage(embeds=[embed], view=view, files=files, ephemeral=ephemeral)


def render_modal(form: Form) -> discord.ui.Modal:
    """A form as a modal with one text input (up to 4,000 characters)."""
    modal = discord.ui.Modal(
        title=clip(form.title, MODAL_TITLE), custom_id=form.action, timeout=None
    )
    modal.add_item(
        discord.ui.TextInput(
            label=clip(form.label, INPUT_LABEL),
            custom_id=MODAL_INPUT_ID,
            style=discord.TextStyle.paragraph if form.multiline else discord.TextStyle.short,
            placeholder=clip(form.placeholder, INPUT_PLACEHOLDER) or None,
            max_length=INPUT_MAX,
            required=True,
        )
    )
    modal.stop()
    return modal


def message_json(message: DiscordMessage) -> dict[str, Any]:
    """The wire form of a message (without files): an interaction response's ``data``."""
    data: dict[str, Any] = {
        "content": message.content or "",
        "embeds": [e.to_dict() for e in message.embeds],
        "components": message.view.to_components() if message.view is not None else [],
        "allowed_mentions": {"parse": []},
    }
    if message.ephemeral:
        data["flags"] = EPHEMERAL
    return data


def modal_json(modal: discord.ui.Modal) -> dict[str, Any]:
    """The wire form of a modal: a type 9 interaction response's ``data``."""
    return modal.to_dict()

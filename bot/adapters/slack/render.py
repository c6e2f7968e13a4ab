"""Cards → Block Kit, built with ``slack_sdk.models`` so that the SDK checks Slack's limits.

Text longer than a block allows is split at line or word boundaries over
several sections; labels and titles are shortened with an ellipsis; buttons
and fields are spread over as many blocks as needed. A message keeps at most
50 blocks (a modal or Home tab 100): when a card would need more, the text is
cut and a note says so, but its buttons and fields are kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    ImageBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.adapters.slack.translate import FORM_CALLBACK_ID, form_metadata
from bot.core.messages import Button, ButtonStyle, Card, Form

MESSAGE_BLOCKS = 50
VIEW_BLOCKS = 100
SECTION_TEXT = 3000
FIELDS_PER_SECTION = 10
FIELD_TEXT = 2000
BUTTONS_PER_BLOCK = 25
BUTTON_TEXT = 75
HEADER_TEXT = 150
FALLBACK_TEXT = 3000
MODAL_TITLE = 24
INPUT_LABEL = 2000
PLACEHOLDER = 150
ANSWER_CHARS = 3000
ELLIPSIS = "…"
CUT_NOTE = "… (shortened: the rest did not fit in one Slack message)"


def escape(text: str) -> str:
    """Escape what Slack's mrkdwn treats as markup (links, mentions such as <!channel>)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def split_text(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at a newline, else a space."""
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit + 1)
        if cut < limit // 2:
            cut = rest.rfind(" ", 0, limit + 1)
        if cut < limit // 2:
            cut = limit
        head, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if head:
            pieces.append(head)
    if rest.strip():
        pieces.append(rest)
    return pieces


def _escaped_pieces(text: str, limit: int) -> list[str]:
    """Pieces whose escaped form fits ``limit`` (escaping lengthens ``<``, ``>`` and ``&``)."""
    out: list[str] = []
    for piece in split_text(text, limit):
        escaped = escape(piece)
        if len(escaped) <= limit:
            out.append(escaped)
        else:
            out.extend(escape(p) for p in split_text(piece, limit // 5))
    return out


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _button_style(style: ButtonStyle) -> str | None:
    return None if style is ButtonStyle.DEFAULT else style.value


def button_elements(buttons: Sequence[Button]) -> list[ButtonElement]:
    """One Slack button per card button; the value carries our action back."""
    seen: set[str] = set()
    elements: list[ButtonElement] = []
    for index, button in enumerate(buttons):
        action_id = button.action
        if action_id in seen:  # Slack rejects repeated action ids within a message
            action_id = f"{button.action}#{index}"
        seen.add(action_id)
        elements.append(
            ButtonElement(
                text=PlainTextObject(text=shorten(button.label, BUTTON_TEXT) or "·", emoji=True),
                action_id=action_id,
                value=button.action,
                style=_button_style(button.style),
            )
        )
    return elements


def card_blocks(card: Card, max_blocks: int = MESSAGE_BLOCKS) -> list[Block]:
    """The card as Block Kit blocks: header, text sections, fields, image, buttons, footer."""
    head: list[Block] = []
    if card.title.strip():
        head.append(HeaderBlock(text=PlainTextObject(text=shorten(card.title, HEADER_TEXT))))
    text: list[Block] = [
        SectionBlock(text=MarkdownTextObject(text=piece))
        for block in card.blocks
        for piece in _escaped_pieces(block, SECTION_TEXT)
    ]
    tail: list[Block] = []
    field_texts = [
        shorten(f"*{escape(f.label)}*\n{escape(f.value)}", FIELD_TEXT) for f in card.fields
    ]
    for group in _chunks(field_texts, FIELDS_PER_SECTION):
        tail.append(SectionBlock(fields=[MarkdownTextObject(text=t) for t in group]))
    if card.image_url:
        tail.append(
            ImageBlock(image_url=card.image_url, alt_text=shorten(card.title or "chart", 2000))
        )
    for group in _chunks(button_elements(card.buttons), BUTTONS_PER_BLOCK):
        tail.append(ActionsBlock(elements=list(group)))
    if card.footer and card.footer.strip():
        footer = shorten(escape(card.footer), SECTION_TEXT)
        tail.append(ContextBlock(elements=[MarkdownTextObject(text=footer)]))
    room = max_blocks - len(head) - len(tail)
    if len(text) > room:
        text = [*text[: max(room - 1, 0)], ContextBlock(elements=[PlainTextObject(text=CUT_NOTE)])]
    blocks = [*head, *text, *tail][:max_blocks]
    if not blocks:  # an empty card still needs one block (views need at least one)
        blocks = [SectionBlock(text=MarkdownTextObject(text=fallback_text(card)))]
    for block in blocks:
        block.validate_json()
    return blocks


def fallback_text(card: Card) -> str:
    """The plain text Slack shows in notifications and where blocks cannot be shown."""
    return shorten(escape(card.as_text().strip()), FALLBACK_TEXT) or "studybot"


def message_payload(card: Card) -> dict[str, Any]:
    """``text`` and ``blocks`` for chat.postMessage, chat.postEphemeral and chat.update."""
    return {
        "text": fallback_text(card),
        "blocks": [block.to_dict() for block in card_blocks(card)],
    }


def modal_view(form: Form, channel: str, thread: str | None) -> View:
    """A modal with one text input; its submission carries ``form.action`` back."""
    view = View(
        type="modal",
        callback_id=FORM_CALLBACK_ID,
        title=PlainTextObject(text=shorten(form.title, MODAL_TITLE) or "studybot"),
        submit=PlainTextObject(text="Submit"),
        close=PlainTextObject(text="Cancel"),
        private_metadata=form_metadata(form.action, channel, thread),
        blocks=[
            InputBlock(
                block_id="answer",
                label=PlainTextObject(text=shorten(form.label, INPUT_LABEL) or "Your answer"),
                element=PlainTextInputElement(
                    action_id="text",
                    multiline=form.multiline,
                    max_length=ANSWER_CHARS,
                    placeholder=PlainTextObject(text=shorten(form.placeholder, PLACEHOLDER))
                    if form.placeholder
                    else None,
                ),
            )
        ],
    )
    view.validate_json()
    return view


def home_view(card: Card) -> View:
    """The App Home tab showing ``card``."""
    view = View(type="home", blocks=card_blocks(card, max_blocks=VIEW_BLOCKS))
    view.validate_json()
    return view

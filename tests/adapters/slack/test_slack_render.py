"""Block Kit rendering: built with slack_sdk.models (the SDK checks Slack's limits), compared
with golden JSON files, and safe for any card."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.adapters.slack import render
from bot.core.messages import Button, ButtonStyle, Card, Field, Form

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

DAILY = Card(
    title="Daily question · 2026-12-01",
    blocks=(
        "Which isolation does time-slicing give between workloads?",
        "A) Memory and fault isolation\nB) Memory isolation only\nC) None",
    ),
    buttons=(Button("A", "daily:1:A"), Button("B", "daily:1:B"), Button("C", "daily:1:C")),
    footer="Pick a letter: /answer TEXT or reply in the thread · time-slicing · difficulty 1",
)
OPEN_QUESTION = Card(
    title="Daily question · 2026-12-02",
    blocks=("Why does MIG give stronger isolation than MPS?",),
    buttons=(Button("Answer", "daily:2:form", ButtonStyle.PRIMARY),),
    footer="Answer in a few sentences",
)
STATS = Card(
    title="Your streak",
    blocks=("Keep going: answer today's question to make it 8.",),
    fields=(Field("Current", "7 days"), Field("Longest", "12 days"), Field("Freezes", "1")),
    image_url="https://example.com/chart.png",
)
HOSTILE = Card(blocks=("<!channel> & <https://evil.example|click> *bold*",))
FORM = Form(title="Your answer", label="Why does MIG isolate better?", action="daily:2:submit")


def golden(name: str, data: Any) -> None:
    path = GOLDEN / f"{name}.json"
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if UPDATE:
        path.write_text(text)
    assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1 and review it"
    assert json.loads(path.read_text()) == json.loads(text), f"{path.name} differs"


@pytest.mark.parametrize(
    ("name", "card"),
    [
        ("daily_choice", DAILY),
        ("daily_open", OPEN_QUESTION),
        ("stats", STATS),
        ("escaped", HOSTILE),
    ],
)
def test_cards_render_as_their_golden_block_kit(name: str, card: Card) -> None:
    golden(name, render.message_payload(card))


def test_the_answer_form_renders_as_a_modal_with_one_text_input() -> None:
    view = render.modal_view(FORM, "C111", "C111:1.2").to_dict()
    golden("answer_modal", view)
    assert json.loads(view["private_metadata"]) == {
        "action": "daily:2:submit",
        "channel": "C111",
        "thread": "C111:1.2",
    }


def test_the_home_card_renders_as_a_home_view() -> None:
    card = Card(
        title="Your studybot, Ada",
        blocks=("Your progress in this workspace.",),
        fields=(Field("Answers", "3"), Field("Points", "20")),
        footer="Type /help in any channel to see every command.",
    )
    golden("home", render.home_view(card).to_dict())


def test_mentions_and_links_in_card_text_are_escaped() -> None:
    payload = render.message_payload(HOSTILE)
    for text in (payload["blocks"][0]["text"]["text"], payload["text"]):
        assert "<" not in text
        assert "&lt;!channel&gt; &amp;" in text


def test_a_long_text_is_split_over_sections_at_line_breaks() -> None:
    lines = [f"line {i}: " + "x" * 90 for i in range(100)]  # about 10,000 characters
    blocks = render.card_blocks(Card(blocks=("\n".join(lines),)))
    texts = [b.to_dict()["text"]["text"] for b in blocks]
    assert len(texts) >= 4
    assert all(len(t) <= render.SECTION_TEXT for t in texts)
    assert "\n".join(texts).splitlines() == lines


def test_a_card_too_big_for_one_message_keeps_its_buttons_and_says_it_was_cut() -> None:
    card = Card(
        title="t" * 500,
        blocks=tuple(f"paragraph {i}" for i in range(80)),
        fields=tuple(Field(f"f{i}", str(i)) for i in range(25)),
        buttons=tuple(Button("x" * 100, f"b:{i}") for i in range(30)),
    )
    blocks = [b.to_dict() for b in render.card_blocks(card)]
    assert len(blocks) == render.MESSAGE_BLOCKS
    assert len(blocks[0]["text"]["text"]) == render.HEADER_TEXT
    actions = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert [e["value"] for e in actions] == [f"b:{i}" for i in range(30)]
    assert all(len(e["text"]["text"]) <= render.BUTTON_TEXT for e in actions)
    assert sum(len(b.get("fields", [])) for b in blocks) == 25
    assert any(b["type"] == "context" and "shortened" in json.dumps(b) for b in blocks)


def test_buttons_with_the_same_action_get_distinct_action_ids() -> None:
    elements = render.button_elements([Button("A", "x:1"), Button("A again", "x:1")])
    assert [e.action_id for e in elements] == ["x:1", "x:1#1"]
    assert [e.value for e in elements] == ["x:1", "x:1"]


# what matters to Slack: markup characters, line breaks, spaces, wide characters
short_texts = st.text(st.sampled_from("ab1 <>&*_~`\n\t🙂éß"), max_size=120)
# long texts are built by repetition: cheap to generate, yet past every Slack limit
texts = st.one_of(short_texts, st.builds(lambda s, n: s * n, short_texts, st.integers(1, 60)))


@settings(max_examples=50, deadline=None)
@given(
    title=texts,
    blocks=st.lists(texts, max_size=12),
    fields=st.lists(st.tuples(texts, texts), max_size=15),
    labels=st.lists(short_texts, max_size=30),
    footer=st.one_of(st.none(), texts),
)
def test_any_card_renders_within_slacks_limits(
    title: str,
    blocks: list[str],
    fields: list[tuple[str, str]],
    labels: list[str],
    footer: str | None,
) -> None:
    card = Card(
        title=title,
        blocks=tuple(blocks),
        fields=tuple(Field(k, v) for k, v in fields),
        buttons=tuple(Button(label, f"a:{i}") for i, label in enumerate(labels)),
        footer=footer,
    )
    payload = render.message_payload(card)  # validate_json raises on any broken limit
    assert len(payload["blocks"]) <= render.MESSAGE_BLOCKS
    assert 0 < len(payload["text"]) <= render.FALLBACK_TEXT
    values = [
        e["value"] for b in payload["blocks"] if b["type"] == "actions" for e in b["elements"]
    ]
    assert values == [f"a:{i}" for i in range(len(labels))]
    render.home_view(card)

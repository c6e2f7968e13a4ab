"""Renderers build real discord.py objects; their wire JSON is kept as golden snapshots.

Set UPDATE_GOLDEN=1 to rewrite the snapshots after a deliberate change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.adapters.discord.commands import build_commands
from bot.adapters.discord.render import message_json, modal_json, render, render_modal
from bot.core.commands import COMMANDS, CommandSpec
from bot.core.messages import (
    Attachment,
    Button,
    ButtonStyle,
    Card,
    Delivery,
    Field,
    Form,
    Outgoing,
    say,
)

GOLDEN = Path(__file__).parent / "golden"
# The command table as the snapshot knows it: the core's summaries change as commands land.
# "notes" stands for a command without Discord options of its own (one free text option).
FIXED_SPECS = {
    spec.name: spec
    for spec in (
        CommandSpec("daily", "/daily", "show today's daily question"),
        CommandSpec("answer", "/answer TEXT", "answer the open question"),
        CommandSpec("quiz", "/quiz [TOPIC] [N] [DIFFICULTY] | live | resume", "a quiz"),
        CommandSpec("review", "/review [TOPIC] [N]", "review what is due"),
        CommandSpec("streak", "/streak", "your streak"),
        CommandSpec("leaderboard", "/leaderboard [week|month|all] [team NAME]", "the board"),
        CommandSpec("team", "/team create|join|leave NAME | list", "study groups"),
        CommandSpec("stats", "/stats [@USER]", "accuracy by topic"),
        CommandSpec("mock", "/mock schedule WHEN | list | cancel ID", "mock interviews"),
        CommandSpec("tz", "/tz ZONE", "set your time zone"),
        CommandSpec("studybot", "/studybot schedule ...", "channel settings"),
        CommandSpec("as", "/as NAME", "act as another user", console_only=True),
        CommandSpec("help", "/help", "every command"),
        CommandSpec("notes", "/notes [TEXT]", "a command without Discord options of its own"),
    )
}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def check_golden(name: str, data: Any) -> None:
    path = GOLDEN / f"{name}.json"
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text)
    assert json.loads(path.read_text()) == data, f"{path.name} differs from the rendering"


DAILY = Card(
    title="Daily question · 2026-12-01",
    blocks=(
        "Two pods share a GPU with time-slicing. What do they not get?",
        "A) Memory isolation\nB) Their own CUDA context\nC) Scheduling\nD) Drivers",
    ),
    buttons=tuple(Button(ch, f"daily:42:{ch}") for ch in "ABCD"),
    footer="Pick a letter: /answer TEXT or reply in the thread · time-slicing · difficulty 2",
)


async def test_a_daily_card_is_an_embed_with_one_row_of_letter_buttons() -> None:
    data = message_json(render(Outgoing(Delivery.CHANNEL, "645027906669510667", DAILY)))
    check_golden("daily_post", data)
    (row,) = data["components"]
    assert [b["custom_id"] for b in row["components"]] == [f"daily:42:{c}" for c in "ABCD"]
    assert "flags" not in data  # a channel post is public


async def test_a_private_reply_is_ephemeral_plain_text() -> None:
    data = message_json(render(say("u1", "Time zone set to Asia/Tokyo."), ephemeral=True))
    check_golden("private_reply", data)
    assert data["flags"] == 64 and data["content"] == "Time zone set to Asia/Tokyo."
    assert data["embeds"] == []


async def test_a_grade_card_has_fields_and_a_footer() -> None:
    card = Card(
        title="",
        blocks=("✅ Correct (100%)", "Time-slicing shares memory."),
        fields=(Field("Streak", "3 days"), Field("Points", "+20", inline=False)),
        footer="Source: https://docs.nvidia.com/",
    )
    data = message_json(render(Outgoing(Delivery.PRIVATE, "u1", card), ephemeral=True))
    check_golden("grade_card", data)
    assert [f["name"] for f in data["embeds"][0]["fields"]] == ["Streak", "Points"]


async def test_seven_buttons_take_two_rows_of_at_most_five() -> None:
    buttons = tuple(Button(f"Option {i}", f"quiz:7:{i}") for i in range(7))
    data = message_json(
        render(Outgoing(Delivery.CHANNEL, "c", Card(title="Pick", buttons=buttons)))
    )
    check_golden("seven_buttons", data)
    assert [len(row["components"]) for row in data["components"]] == [5, 2]


async def test_more_than_25_choices_become_selects_of_at_most_25_options() -> None:
    buttons = tuple(Button(f"Team {i}", f"team:join:{i}") for i in range(30))
    data = message_json(
        render(Outgoing(Delivery.CHANNEL, "c", Card(title="Teams", buttons=buttons)))
    )
    check_golden("thirty_choices", data)
    selects = [row["components"][0] for row in data["components"]]
    assert [s["type"] for s in selects] == [3, 3]
    assert [len(s["options"]) for s in selects] == [25, 5]
    assert selects[1]["options"][0]["value"] == "team:join:25"


async def test_a_form_is_a_modal_with_one_text_input_of_up_to_4000_characters() -> None:
    form = Form(
        title="Your answer", label="How many MIG instances on an A100?", action="daily:9:submit"
    )
    data = modal_json(render_modal(form))
    check_golden("answer_modal", data)
    text_input = data["components"][0]["components"][0]
    assert data["custom_id"] == "daily:9:submit"
    assert text_input["max_length"] == 4000 and text_input["style"] == 2
    assert len(text_input["label"]) <= 45


async def test_a_png_chart_is_attached_and_shown_inside_the_card() -> None:
    message = Outgoing(
        Delivery.CHANNEL,
        "c",
        Card(title="Leaderboard · week"),
        attachments=(Attachment("board.png", PNG, "image/png"),),
    )
    rendered = render(message)
    data = message_json(rendered)
    check_golden("chart_card", data)
    assert data["embeds"][0]["image"]["url"] == "attachment://board.png"
    assert [f.filename for f in rendered.files] == ["board.png"]


async def test_button_styles_map_to_discord_styles() -> None:
    card = Card(
        buttons=(
            Button("Answer", "daily:1:form", ButtonStyle.PRIMARY),
            Button("Cancel", "mock:cancel:1", ButtonStyle.DANGER),
            Button("Later", "x:1"),
        )
    )
    data = message_json(render(Outgoing(Delivery.CHANNEL, "c", card)))
    styles = [b["style"] for b in data["components"][0]["components"]]
    assert styles == [
        discord.ButtonStyle.primary.value,
        discord.ButtonStyle.danger.value,
        discord.ButtonStyle.secondary.value,
    ]


async def test_every_app_command_payload_matches_its_snapshot() -> None:
    async def never(_interaction: discord.Interaction) -> None:
        raise AssertionError("not called while building payloads")

    client = discord.Client(intents=discord.Intents.none())
    tree: discord.app_commands.CommandTree[discord.Client] = discord.app_commands.CommandTree(
        client
    )
    commands = build_commands(never, ["cuda", "mig", "mps", "time-slicing"], FIXED_SPECS)
    payloads = sorted((c.to_dict(tree) for c in commands), key=lambda c: c["name"])
    check_golden("app_commands", payloads)
    by_name = {c["name"]: c for c in payloads}
    period = by_name["leaderboard"]["options"][0]
    assert [c["value"] for c in period["choices"]] == ["week", "month", "all"]
    mode, topic, _count, difficulty = by_name["quiz"]["options"]
    assert [c["value"] for c in mode["choices"]] == ["live", "resume", "abandon"]
    assert [c["value"] for c in topic["choices"]] == ["cuda", "mig", "mps", "time-slicing"]
    assert [c["value"] for c in difficulty["choices"]] == ["easy", "medium", "hard"]
    assert by_name["review"]["options"][0]["choices"] == topic["choices"]
    assert by_name["tz"]["options"][0]["autocomplete"] is True
    # /studybot is open to everyone (nudges); its schedule changes check admin rights in the core
    assert by_name["studybot"]["default_member_permissions"] is None
    assert [o["name"] for o in by_name["team"]["options"]] == ["create", "join", "leave", "list"]
    assert [o["name"] for o in by_name["mock"]["options"]] == [
        "schedule",
        "list",
        "cancel",
        "reschedule",
        "available",
        "pair",
        "accept",
        "decline",
        "vote",
        "note",
        "history",
        "remind",
    ]
    (user,) = by_name["stats"]["options"]
    assert (user["name"], user["type"], user["required"]) == ("user", 6, False)  # a user picker
    schedule = by_name["mock"]["options"][0]["options"]
    assert [(o["name"], o["type"]) for o in schedule] == [
        ("when", 3),
        ("peer", 6),
        ("format", 3),
        ("box", 4),
        ("focus", 3),
    ]
    assert (schedule[3]["min_value"], schedule[3]["max_value"]) == (3, 30)
    assert "as" not in by_name
    assert [o["name"] for o in by_name["notes"]["options"]] == ["arguments"]
    await client.close()


async def test_every_command_of_the_core_table_but_console_ones_is_an_app_command() -> None:
    async def never(_interaction: discord.Interaction) -> None:
        raise AssertionError("not called")

    names = {c.name for c in build_commands(never, ["mig"])}
    assert names == {name for name, spec in COMMANDS.items() if not spec.console_only}


async def test_more_than_25_topics_become_an_autocomplete() -> None:
    async def never(_interaction: discord.Interaction) -> None:
        raise AssertionError("not called")

    client = discord.Client(intents=discord.Intents.none())
    tree: discord.app_commands.CommandTree[discord.Client] = discord.app_commands.CommandTree(
        client
    )
    (quiz,) = [c for c in build_commands(never, [f"t{i}" for i in range(30)]) if c.name == "quiz"]
    topic = quiz.to_dict(tree)["options"][1]
    assert topic["name"] == "topic"
    assert topic["autocomplete"] is True and "choices" not in topic
    await client.close()


long_text = st.builds(
    lambda ch, n: ch * n, st.characters(blacklist_categories=("Cs",)), st.integers(0, 5000)
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    title=st.one_of(st.text(max_size=20), long_text),
    blocks=st.lists(st.one_of(st.text(max_size=50), long_text), max_size=3),
    fields=st.lists(st.tuples(st.one_of(st.text(max_size=10), long_text), long_text), max_size=30),
    footer=st.one_of(st.none(), st.text(max_size=20), long_text),
)
def test_any_card_renders_within_discords_embed_limits(
    title: str, blocks: list[str], fields: list[tuple[str, str]], footer: str | None
) -> None:
    import asyncio

    card = Card(
        title=title,
        blocks=tuple(blocks),
        fields=tuple(Field(label, value) for label, value in fields),
        footer=footer,
    )

    async def build() -> dict[str, Any]:
        return message_json(render(Outgoing(Delivery.CHANNEL, "c", card)))

    data = asyncio.run(build())
    assert len(data["content"]) <= 2000
    for embed in data["embeds"]:
        assert len(embed.get("title", "")) <= 256
        assert len(embed.get("description", "")) <= 4096
        assert len(embed.get("fields", [])) <= 25
        fields_out = embed.get("fields", [])
        assert all(len(f["name"]) <= 256 and len(f["value"]) <= 1024 for f in fields_out)
        assert len(embed.get("footer", {}).get("text", "")) <= 2048
        total = (
            len(embed.get("title", ""))
            + len(embed.get("description", ""))
            + sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields", []))
            + len(embed.get("footer", {}).get("text", ""))
        )
        assert total <= 6000


@pytest.mark.parametrize("count", [1, 5, 6, 25, 26, 125])
async def test_components_stay_within_five_rows_of_five(count: int) -> None:
    buttons = tuple(Button(f"b{i}", f"x:{i}") for i in range(count))
    data = message_json(render(Outgoing(Delivery.CHANNEL, "c", Card(title="t", buttons=buttons))))
    rows = data["components"]
    assert len(rows) <= 5
    assert all(len(row["components"]) <= 5 for row in rows)
    ids = [c["custom_id"] for row in rows for c in row["components"]]
    assert len(ids) == len(set(ids)) and all(len(i) <= 100 for i in ids)

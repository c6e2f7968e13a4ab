"""Interaction payloads (the recorded fixtures, parsed by discord.py) as neutral events."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.adapters.discord.commands import command_line, zone_choices
from bot.adapters.discord.http import parse_interaction
from bot.adapters.discord.translate import event_from_interaction
from bot.core.events import EventKind
from tests.adapters.discord import payloads as p


def parse(client: discord.Client, payload: dict[str, Any]) -> discord.Interaction:
    return parse_interaction(client, payload)


async def test_a_slash_command_fixture_is_a_command_event_with_its_options(client) -> None:
    payload = p.fixture("type2_application_command_slash_chat_input")
    payload["application_id"] = p.APP_ID  # the recorded fixture lacks it
    payload["member"]["flags"] = 0
    event = event_from_interaction(parse(client, payload), frozenset())
    assert event.kind is EventKind.COMMAND
    assert (event.command, event.args) == ("cardsearch", "The Gitrog Monster")
    assert (event.platform, event.workspace) == ("discord", payload["guild_id"])
    assert (event.channel, event.user, event.user_name) == (
        payload["channel_id"],
        "53908232506183680",
        "Mason",
    )
    assert event.is_admin  # the fixture's member holds every permission
    assert not event.is_dm


async def test_a_select_fixture_is_an_action_with_the_chosen_value(client) -> None:
    payload = p.select("studybot-select:0", "team:join:3", p.snowflake())
    event = event_from_interaction(parse(client, payload), frozenset())
    assert (event.kind, event.action) == (EventKind.ACTION, "team:join:3")


async def test_a_modal_fixture_is_an_action_with_the_typed_text(client) -> None:
    payload = p.fixture("type5_modal_submit_text_input_actionrow_legacy")
    payload["member"]["flags"] = 0
    event = event_from_interaction(parse(client, payload), frozenset())
    assert (event.kind, event.action, event.text) == (EventKind.ACTION, "cool_modal", "John")


async def test_a_modal_in_the_label_layout_gives_the_typed_text_too(client) -> None:
    payload = p.modal_submit("daily:3:submit", "ignored")
    payload["data"]["components"] = [
        {"type": 18, "id": 1, "component": {"type": 4, "custom_id": "text", "value": "MPS"}}
    ]
    event = event_from_interaction(parse(client, payload), frozenset())
    assert (event.action, event.text) == ("daily:3:submit", "MPS")


async def test_admin_comes_from_manage_server_or_the_configured_list(client) -> None:
    member = event_from_interaction(parse(client, p.command("help")), frozenset())
    manager = event_from_interaction(
        parse(client, p.command("help", permissions=str(1 << 5))), frozenset()
    )
    listed = event_from_interaction(parse(client, p.command("help")), frozenset({p.USER_ID}))
    assert (member.is_admin, manager.is_admin, listed.is_admin) == (False, True, True)


async def test_a_command_in_a_dm_has_a_workspace_of_its_own(client) -> None:
    payload = p.command("streak")
    del payload["guild_id"], payload["member"]
    payload["user"] = p.user()
    payload["channel"] = p.dm_channel("777", p.USER_ID)
    payload["channel_id"] = "777"
    event = event_from_interaction(parse(client, payload), frozenset())
    assert event.is_dm and event.workspace == f"dm-{p.USER_ID}" and not event.is_admin


def _opt(name: str, value: Any, kind: int = 3) -> dict[str, Any]:
    return {"name": name, "type": kind, "value": value}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"name": "daily"}, ("daily", "")),
        ({"name": "quiz", "options": [_opt("count", 3, 4), _opt("topic", "mig")]}, "mig 3"),
        (
            {"name": "quiz", "options": [_opt("difficulty", "hard"), _opt("mode", "live")]},
            "live hard",
        ),
        (
            {"name": "leaderboard", "options": [_opt("team", "infra"), _opt("period", "week")]},
            "week team infra",
        ),
        ({"name": "leaderboard", "options": [_opt("team", "infra")]}, "team infra"),
        (
            {
                "name": "team",
                "options": [{"name": "join", "type": 1, "options": [_opt("name", "gpu")]}],
            },
            "join gpu",
        ),
        ({"name": "mock", "options": [{"name": "list", "type": 1}]}, "list"),
        (
            {
                "name": "mock",
                "options": [{"name": "cancel", "type": 1, "options": [_opt("id", "12")]}],
            },
            "cancel 12",
        ),
        ({"name": "tz", "options": [_opt("zone", " Asia/Tokyo ")]}, "Asia/Tokyo"),
    ],
)
def test_options_join_in_the_console_grammar(data: dict[str, Any], expected: Any) -> None:
    name, args = command_line(data)
    assert name == data["name"]
    assert args == (expected[1] if isinstance(expected, tuple) else expected)


@given(st.lists(st.text(min_size=1, max_size=20).filter(str.strip), min_size=1, max_size=5))
def test_no_option_value_is_lost(values: list[str]) -> None:
    data = {"name": "x", "options": [_opt(f"o{i}", v) for i, v in enumerate(values)]}
    _, args = command_line(data)
    assert args == " ".join(v.strip() for v in values)


def test_zone_suggestions_are_at_most_25_and_prefix_matches_come_first() -> None:
    assert len(zone_choices("a")) <= 25
    assert zone_choices("europe/ber")[0] == ("Europe/Berlin", "Europe/Berlin")
    assert zone_choices("")[0] == ("UTC", "UTC")
    assert zone_choices("no such place") == []

"""Every slash command and subcommand, filled in as a member would, is the console line the
core parses: realistic interaction payloads → discord.py → the event's command and args."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.adapters.discord.commands import (
    ARG_ORDER,
    DAY_SUGGESTIONS,
    MOCK_FORMATS,
    autocomplete_choices,
    build_commands,
    command_line,
)
from bot.adapters.discord.http import parse_interaction
from bot.adapters.discord.translate import event_from_interaction
from bot.core.commands import COMMANDS
from bot.core.leaderboard import BoardQuery, parse_query
from bot.core.mock.model import FORMATS, LOOP
from bot.core.mock.parsing import DEFAULT_BOX, MAX_BOX, MIN_BOX, ScheduleRequest, parse_schedule
from bot.core.stats import _MENTION as STATS_MENTION
from tests.adapters.discord import payloads as p

o, sub, peer = p.option, p.subcommand, p.user_option
PEER = p.OTHER_USER_ID
STRING, INTEGER, BOOLEAN, USER = 3, 4, 5, 6

# (command, options as Discord sends them, the console arguments the core gets)
CASES: list[tuple[str, list[dict[str, Any]], str]] = [
    ("daily", [], ""),
    (
        "answer",
        [o("text", "  MIG gives each instance its own memory  ")],
        "MIG gives each instance its own memory",
    ),
    ("quiz", [], ""),
    ("quiz", [o("difficulty", "hard"), o("count", 3, INTEGER), o("topic", "mig")], "mig 3 hard"),
    ("quiz", [o("count", 5, INTEGER), o("topic", "mps"), o("mode", "live")], "live mps 5"),
    ("quiz", [o("mode", "resume")], "resume"),
    ("quiz", [o("mode", "abandon")], "abandon"),
    ("review", [], ""),
    ("review", [o("count", 10, INTEGER), o("topic", "cuda")], "cuda 10"),
    ("review", [o("limit", 20, INTEGER), o("action", "limit")], "limit 20"),
    ("review", [o("action", "limit")], "limit"),
    ("review", [o("question", "mig-iso"), o("action", "unsuspend")], "unsuspend mig-iso"),
    ("review", [o("action", "bury")], "bury"),
    ("streak", [], ""),
    ("leaderboard", [], ""),
    ("leaderboard", [o("period", "month")], "month"),
    ("leaderboard", [o("team", "GPU Gang"), o("period", "all")], "all team GPU Gang"),
    ("leaderboard", [o("teams", True, BOOLEAN), o("period", "week")], "week teams"),
    ("leaderboard", [o("teams", False, BOOLEAN)], ""),
    ("team", [sub("create", o("name", "GPU Gang"))], "create GPU Gang"),
    ("team", [sub("join", o("name", "GPU Gang"))], "join GPU Gang"),
    ("team", [sub("leave", o("name", "infra"))], "leave infra"),
    ("team", [sub("list")], "list"),
    ("away", [], ""),
    ("away", [o("end", "2027-01-03"), o("start", "2026-12-20")], "2026-12-20 to 2027-01-03"),
    ("away", [o("start", "friday")], "friday"),
    ("away", [o("action", "off")], "off"),
    ("away", [o("id", 3, INTEGER), o("action", "cancel")], "cancel 3"),
    ("goal", [], ""),
    ("goal", [o("format", "technical"), o("date", "2027-02-10")], "2027-02-10 technical"),
    ("goal", [o("action", "off")], "off"),
    ("stats", [], ""),
    ("stats", [peer("user", PEER)], f"<@{PEER}>"),
    ("mock", [sub("schedule", o("when", "tomorrow 15:00"))], "schedule tomorrow 15:00"),
    (
        "mock",
        [
            sub(
                "schedule",
                o("box", 10, INTEGER),
                o("format", "technical"),
                peer("peer", PEER),
                o("when", "Fri 3pm"),
            )
        ],
        f"schedule Fri 3pm with <@{PEER}> technical box=10m",
    ),
    (
        "mock",
        [sub("schedule", o("focus", "weak"), o("when", "tomorrow 15:00"))],
        "schedule tomorrow 15:00 focus=weak",
    ),
    ("mock", [sub("list")], "list"),
    ("mock", [sub("cancel", o("id", 12, INTEGER))], "cancel 12"),
    (
        "mock",
        [sub("reschedule", o("when", "2026-12-04 09:30"), o("id", 12, INTEGER))],
        "reschedule 12 2026-12-04 09:30",
    ),
    ("mock", [sub("available")], "available"),
    (
        "mock",
        [sub("available", o("hours", "18:00-20:00"), o("days", "weekdays"))],
        "available weekdays 18:00-20:00",
    ),
    ("mock", [sub("available", o("clear", True, BOOLEAN))], "available clear"),
    ("mock", [sub("pair")], "pair"),
    (
        "mock",
        [sub("pair", o("box", 5, INTEGER), o("format", "behavioral"))],
        "pair behavioral box=5m",
    ),
    ("mock", [sub("accept", o("id", 7, INTEGER))], "accept 7"),
    ("mock", [sub("decline", o("id", 7, INTEGER))], "decline 7"),
    (
        "mock",
        [
            sub(
                "vote",
                o("note", "clear trade-offs"),
                o("vote", "strong-yes"),
                o("round", 2, INTEGER),
                o("id", 7, INTEGER),
            )
        ],
        "vote 7 2 strong-yes clear trade-offs",
    ),
    (
        "mock",
        [sub("vote", o("id", 7, INTEGER), o("round", 1, INTEGER), o("vote", "no"))],
        "vote 7 1 no",
    ),
    (
        "mock",
        [sub("note", o("text", "good on MIG"), o("round", 1, INTEGER), o("id", 7, INTEGER))],
        "note 7 1 good on MIG",
    ),
    ("mock", [sub("history")], "history"),
    ("mock", [sub("history", o("id", 7, INTEGER))], "history 7"),
    ("mock", [sub("remind")], "remind"),
    ("mock", [sub("remind", o("times", "24h 1h"))], "remind 24h 1h"),
    ("mock", [sub("remind", o("times", "off"))], "remind off"),
    ("dispute", [], ""),
    ("dispute", [o("reason", "  I named MPS in other words ")], "I named MPS in other words"),
    ("dispute", [o("reason", "status")], "status"),
    ("tz", [], ""),
    ("tz", [o("zone", "Europe/Berlin")], "Europe/Berlin"),
    ("help", [], ""),
    (
        "studybot",
        [o("arguments", "schedule 09:30 Europe/Berlin weekdays")],
        "schedule 09:30 Europe/Berlin weekdays",
    ),
]


def _path(name: str, options: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    if options and options[0]["type"] == 1:
        return f"{name} {options[0]['name']}", list(options[0].get("options") or [])
    return name, options


def _schema() -> dict[str, dict[str, dict[str, Any]]]:
    """Every leaf command path of the real command set → its options (as uploaded)."""

    async def never(_interaction: discord.Interaction) -> None:
        raise AssertionError("not called")

    client = discord.Client(intents=discord.Intents.none())
    tree: discord.app_commands.CommandTree[discord.Client] = discord.app_commands.CommandTree(
        client
    )
    paths: dict[str, dict[str, dict[str, Any]]] = {}
    for command in build_commands(never, ["cuda", "mig", "mps"]):
        data = command.to_dict(tree)
        subs = [x for x in data["options"] if x["type"] == 1]
        for leaf in subs or [data]:
            path = data["name"] if leaf is data else f"{data['name']} {leaf['name']}"
            paths[path] = {x["name"]: x for x in leaf.get("options", [])}
    return paths


SCHEMA = _schema()


@pytest.mark.parametrize(("name", "options", "expected"), CASES)
async def test_each_command_payload_is_the_console_line_the_core_parses(
    client: discord.Client, name: str, options: list[dict[str, Any]], expected: str
) -> None:
    payload = p.command(name, options)
    event = event_from_interaction(parse_interaction(client, payload), frozenset())
    assert (event.command, event.args) == (name, expected)
    # the payload only uses options the uploaded command has, with their types
    path, used = _path(name, options)
    for option in used:
        declared = SCHEMA[path][option["name"]]
        assert declared["type"] == option["type"], f"/{path} {option['name']}"
        if "choices" in declared:
            assert option["value"] in [c["value"] for c in declared["choices"]]


def test_the_cases_cover_every_command_and_subcommand() -> None:
    assert {_path(name, options)[0] for name, options, _ in CASES} == set(SCHEMA)


def test_every_option_has_its_place_in_the_console_grammar() -> None:
    for path, options in SCHEMA.items():
        placed = [name for name, _template in ARG_ORDER.get(path, ())]
        assert sorted(placed) == sorted(options), f"/{path}: ARG_ORDER and the options differ"
        for name, template in ARG_ORDER.get(path, ()):
            flag = "{}" not in template
            assert flag == (options[name]["type"] == BOOLEAN), f"/{path} {name}"
    assert set(ARG_ORDER) <= set(SCHEMA)


_NAME = re.compile(r"^[-_\w]{1,32}$")


def _check_limits(entry: dict[str, Any], where: str) -> None:
    assert _NAME.match(entry["name"]) and entry["name"] == entry["name"].lower(), where
    assert 1 <= len(entry["description"]) <= 100, where
    options = entry.get("options", [])
    assert len(options) <= 25, where
    required = [x.get("required", False) for x in options if x["type"] not in (1, 2)]
    assert required == sorted(required, reverse=True), f"{where}: required options go first"
    for option in options:
        assert len(option.get("choices", [])) <= 25, where
        _check_limits(option, f"{where} {option['name']}")


async def test_the_command_set_keeps_within_discords_limits() -> None:
    async def never(_interaction: discord.Interaction) -> None:
        raise AssertionError("not called")

    client = discord.Client(intents=discord.Intents.none())
    tree: discord.app_commands.CommandTree[discord.Client] = discord.app_commands.CommandTree(
        client
    )
    commands = [c.to_dict(tree) for c in build_commands(never, [f"t{i}" for i in range(40)])]
    assert len(commands) <= 100
    for data in commands:
        _check_limits(data, f"/{data['name']}")
    await client.close()


def test_the_mock_schedule_line_reads_back_as_the_options_given() -> None:
    _, args = command_line(
        {
            "name": "mock",
            "options": [
                sub(
                    "schedule",
                    o("when", "Fri 3pm"),
                    peer("peer", PEER),
                    o("format", "product"),
                    o("box", 12, INTEGER),
                )
            ],
        }
    )
    head, _, rest = args.partition(" ")
    assert head == "schedule"
    assert parse_schedule(rest) == ScheduleRequest("Fri 3pm", f"<@{PEER}>", "product", 12)


_when = st.lists(
    st.from_regex(r"[a-z0-9:\-]{1,10}", fullmatch=True).filter(
        lambda w: w not in FORMATS and w != "with"
    ),
    min_size=1,
    max_size=4,
).map(" ".join)


@given(
    when=_when,
    user=st.none() | st.integers(10**16, 10**19).map(str),
    fmt=st.none() | st.sampled_from(MOCK_FORMATS),
    box=st.none() | st.integers(MIN_BOX, MAX_BOX),
)
def test_any_mock_schedule_options_read_back_the_same_in_the_core(
    when: str, user: str | None, fmt: str | None, box: int | None
) -> None:
    options = [o("when", when)]
    if user is not None:
        options.append(peer("peer", user))
    if fmt is not None:
        options.append(o("format", fmt))
    if box is not None:
        options.append(o("box", box, INTEGER))
    _, args = command_line({"name": "mock", "options": [sub("schedule", *options)]})
    assert parse_schedule(args.removeprefix("schedule ")) == ScheduleRequest(
        when, f"<@{user}>" if user else None, fmt or LOOP, box or DEFAULT_BOX
    )


def test_the_leaderboard_line_reads_back_as_the_options_given() -> None:
    def query(*options: dict[str, Any]) -> BoardQuery:
        return parse_query(command_line({"name": "leaderboard", "options": list(options)})[1])

    assert query(o("period", "month"), o("team", "GPU Gang")) == BoardQuery("month", "GPU Gang")
    assert query(o("teams", True, BOOLEAN)) == BoardQuery("week", teams=True)


def test_a_user_option_is_the_mention_the_core_reads() -> None:
    _, args = command_line({"name": "stats", "options": [peer("user", PEER)]})
    match = STATS_MENTION.match(args)
    assert match is not None and match.group(1) == PEER


def test_every_command_of_the_core_table_has_a_case() -> None:
    shown = {name for name, spec in COMMANDS.items() if not spec.console_only}
    assert shown == {name for name, _, _ in CASES}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (p.autocomplete("mock", "days", "we", sub="available"), ["weekdays", "weekends", "wed"]),
        (p.autocomplete("mock", "times", "1h", sub="remind"), ["1h", "1h 15m"]),
        (p.autocomplete("mock", "days", "", sub="available"), list(DAY_SUGGESTIONS)),
        (p.autocomplete("quiz", "topic", "m"), ["mig", "mps"]),
        (p.autocomplete("mock", "when", "fri", sub="schedule"), []),
    ],
)
def test_autocomplete_suggests_by_command_path_and_option(
    payload: dict[str, Any], expected: list[str]
) -> None:
    choices = autocomplete_choices(payload["data"], ["cuda", "mig", "mps"])
    assert [c["value"] for c in choices] == expected

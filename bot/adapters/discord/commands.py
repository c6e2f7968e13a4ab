"""Slash commands: one per command of the core's table, with options, choices and autocomplete.

The commands are real ``app_commands`` objects, so discord.py validates names,
descriptions and limits and builds the payload that ``sync`` uploads. Their
callbacks only hand the interaction to the shared handler: the arguments are
read back from the raw options by :func:`command_line`, which joins them in the
order of the console's grammar (``/leaderboard week team gpu``), so the gateway
and the HTTP endpoint produce the same event.

No ``from __future__ import annotations`` here: discord.py reads the callbacks'
annotations at runtime.
"""

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any
from zoneinfo import available_timezones

import discord
from discord import app_commands

from bot.core.commands import COMMANDS, CommandSpec

log = logging.getLogger(__name__)

Dispatch = Callable[[discord.Interaction], Awaitable[None]]
AnyCommand = app_commands.Command[Any, ..., None] | app_commands.Group

MAX_CHOICES = 25
DESCRIPTION = 100
PERIODS = ("week", "month", "all")
QUIZ_MODES = ("live", "resume", "abandon")
DIFFICULTIES = ("easy", "medium", "hard")
COMMON_ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Shanghai",
    "Asia/Singapore",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Australia/Sydney",
)

# How the options of each command (or "command subcommand") join into console arguments:
# (option name, text put before its value). Options not listed follow in the order received.
ARG_ORDER: Mapping[str, Sequence[tuple[str, str]]] = {
    "answer": (("text", ""),),
    "quiz": (("mode", ""), ("topic", ""), ("count", ""), ("difficulty", "")),
    "review": (("topic", ""), ("count", "")),
    "leaderboard": (("period", ""), ("team", "team ")),
    "team join": (("name", ""),),
    "team leave": (("name", ""),),
    "mock schedule": (("when", ""),),
    "mock cancel": (("id", ""),),
    "tz": (("zone", ""),),
    "studybot": (("arguments", ""),),
}


def _description(spec: CommandSpec) -> str:
    text = spec.summary or spec.usage
    return text if len(text) <= DESCRIPTION else text[: DESCRIPTION - 1] + "…"


def _value(option: Mapping[str, Any]) -> str:
    value = option.get("value")
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value).strip()


def command_line(data: Mapping[str, Any]) -> tuple[str, str]:
    """The command name and its console arguments from an interaction's ``data``.

    Subcommands come first (``team join gpu``); option values follow in the
    order of :data:`ARG_ORDER`.
    """
    name = str(data.get("name", ""))
    options: list[Mapping[str, Any]] = list(data.get("options") or ())
    words: list[str] = []
    key = name
    while options and options[0].get("type") in (1, 2):  # SUB_COMMAND, SUB_COMMAND_GROUP
        sub = options[0]
        words.append(str(sub["name"]))
        key = f"{key} {sub['name']}"
        options = list(sub.get("options") or ())
    by_name = {str(o.get("name")): o for o in options}
    ordered: list[str] = []
    for option_name, before in ARG_ORDER.get(key, ()):
        option = by_name.pop(option_name, None)
        if option is not None and _value(option):
            ordered.append(before + _value(option))
    ordered.extend(_value(o) for o in by_name.values() if _value(o))
    return name, " ".join(words + ordered).strip()


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(z for z in available_timezones() if "/" in z or z == "UTC"))


def zone_choices(current: str) -> list[tuple[str, str]]:
    """Up to 25 IANA zones for what the user has typed so far (prefix matches first)."""
    typed = current.strip().casefold()
    if not typed:
        return [(z, z) for z in COMMON_ZONES]
    prefix = [z for z in _zones() if z.casefold().startswith(typed)]
    inner = [z for z in _zones() if typed in z.casefold() and z not in prefix]
    return [(z, z) for z in (prefix + inner)[:MAX_CHOICES]]


def topic_choices(topics: Iterable[str], current: str) -> list[tuple[str, str]]:
    """Up to 25 topics containing what the user has typed."""
    typed = current.strip().casefold()
    return [(t, t) for t in topics if typed in t.casefold()][:MAX_CHOICES]


def _choices(pairs: Iterable[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


def build_commands(
    dispatch: Dispatch, topics: Sequence[str], specs: Mapping[str, CommandSpec] = COMMANDS
) -> list[AnyCommand]:
    """One app command per command of the core's table that is not console-only.

    Topics become the choices of ``/quiz topic`` when there are at most 25 of
    them, else an autocomplete. Admin commands are hidden from members without
    Manage Server (the core still gets ``is_admin`` on every event).
    """
    built: dict[str, AnyCommand] = {}

    async def zone_autocomplete(
        _interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return _choices(zone_choices(current))

    async def topic_autocomplete(
        _interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return _choices(topic_choices(topics, current))

    def spec_of(name: str) -> CommandSpec | None:
        spec = specs.get(name)
        return spec if spec is not None and not spec.console_only else None

    if spec := spec_of("daily"):

        async def daily(interaction: discord.Interaction) -> None:
            await dispatch(interaction)

        built["daily"] = app_commands.Command(
            name="daily", description=_description(spec), callback=daily
        )

    if spec := spec_of("answer"):

        @app_commands.describe(text="your answer")
        async def answer(interaction: discord.Interaction, text: str) -> None:
            await dispatch(interaction)

        built["answer"] = app_commands.Command(
            name="answer", description=_description(spec), callback=answer
        )

    def with_topics(callback: Any) -> Any:
        if len(topics) <= MAX_CHOICES:
            return app_commands.choices(topic=_choices((t, t) for t in topics))(callback)
        return app_commands.autocomplete(topic=topic_autocomplete)(callback)

    if spec := spec_of("quiz"):

        @app_commands.describe(
            mode="a live round in the channel, or your open quiz (default: a new personal quiz)",
            topic="a topic (default: all)",
            count="how many questions",
            difficulty="only questions of this difficulty",
        )
        @app_commands.choices(
            mode=_choices((m, m) for m in QUIZ_MODES),
            difficulty=_choices((d, d) for d in DIFFICULTIES),
        )
        async def quiz(
            interaction: discord.Interaction,
            mode: str | None = None,
            topic: str | None = None,
            count: app_commands.Range[int, 1, 20] | None = None,
            difficulty: str | None = None,
        ) -> None:
            await dispatch(interaction)

        built["quiz"] = app_commands.Command(
            name="quiz", description=_description(spec), callback=with_topics(quiz)
        )

    if spec := spec_of("review"):

        @app_commands.describe(topic="a topic (default: all)", count="how many questions")
        async def review(
            interaction: discord.Interaction,
            topic: str | None = None,
            count: app_commands.Range[int, 1, 20] | None = None,
        ) -> None:
            await dispatch(interaction)

        built["review"] = app_commands.Command(
            name="review", description=_description(spec), callback=with_topics(review)
        )

    if spec := spec_of("streak"):

        async def streak(interaction: discord.Interaction) -> None:
            await dispatch(interaction)

        built["streak"] = app_commands.Command(
            name="streak", description=_description(spec), callback=streak
        )

    if spec := spec_of("leaderboard"):

        @app_commands.describe(period="this week, this month or all time", team="a study group")
        @app_commands.choices(period=_choices((p, p) for p in PERIODS))
        async def leaderboard(
            interaction: discord.Interaction, period: str | None = None, team: str | None = None
        ) -> None:
            await dispatch(interaction)

        built["leaderboard"] = app_commands.Command(
            name="leaderboard", description=_description(spec), callback=leaderboard
        )

    if spec := spec_of("team"):
        team_group = app_commands.Group(name="team", description=_description(spec))

        @app_commands.describe(name="the study group")
        async def team_join(interaction: discord.Interaction, name: str) -> None:
            await dispatch(interaction)

        @app_commands.describe(name="the study group")
        async def team_leave(interaction: discord.Interaction, name: str) -> None:
            await dispatch(interaction)

        team_group.add_command(
            app_commands.Command(name="join", description="join a study group", callback=team_join)
        )
        team_group.add_command(
            app_commands.Command(
                name="leave", description="leave a study group", callback=team_leave
            )
        )
        built["team"] = team_group

    if spec := spec_of("mock"):
        mock_group = app_commands.Group(name="mock", description=_description(spec))

        @app_commands.describe(when="when, e.g. 'tomorrow 15:00' or '2026-12-03 09:30'")
        async def mock_schedule(interaction: discord.Interaction, when: str) -> None:
            await dispatch(interaction)

        async def mock_list(interaction: discord.Interaction) -> None:
            await dispatch(interaction)

        @app_commands.describe(id="the interview's id, from /mock list")
        async def mock_cancel(interaction: discord.Interaction, id: str) -> None:
            await dispatch(interaction)

        for sub_name, summary, callback in (
            ("schedule", "schedule a mock interview", mock_schedule),
            ("list", "your mock interviews", mock_list),
            ("cancel", "cancel a mock interview", mock_cancel),
        ):
            mock_group.add_command(
                app_commands.Command(name=sub_name, description=summary, callback=callback)
            )
        built["mock"] = mock_group

    if spec := spec_of("tz"):

        @app_commands.describe(zone="an IANA zone such as Europe/Berlin (empty: show yours)")
        @app_commands.autocomplete(zone=zone_autocomplete)
        async def tz(interaction: discord.Interaction, zone: str | None = None) -> None:
            await dispatch(interaction)

        built["tz"] = app_commands.Command(name="tz", description=_description(spec), callback=tz)

    if spec := spec_of("help"):

        async def help_(interaction: discord.Interaction) -> None:
            await dispatch(interaction)

        built["help"] = app_commands.Command(
            name="help", description=_description(spec), callback=help_
        )

    for name, spec in specs.items():
        if name in built or spec.console_only:
            continue

        @app_commands.describe(arguments=spec.usage[:DESCRIPTION])
        async def generic(interaction: discord.Interaction, arguments: str | None = None) -> None:
            await dispatch(interaction)

        if name not in ARG_ORDER:
            log.debug("command /%s has no Discord options of its own: one free text option", name)
        built[name] = app_commands.Command(
            name=name, description=_description(spec), callback=generic
        )

    for name, command in built.items():
        spec = specs[name]
        if spec.admin:
            command.default_permissions = discord.Permissions(manage_guild=True)
    return list(built.values())


def autocomplete_choices(data: Mapping[str, Any], topics: Sequence[str]) -> list[dict[str, str]]:
    """Choices for an autocomplete interaction's focused option (HTTP interactions mode)."""
    name = str(data.get("name", ""))
    options: list[Mapping[str, Any]] = list(data.get("options") or ())
    while options and options[0].get("type") in (1, 2):
        options = list(options[0].get("options") or ())
    focused = next((o for o in options if o.get("focused")), None)
    if focused is None:
        return []
    current = str(focused.get("value") or "")
    if name == "tz" and focused.get("name") == "zone":
        pairs = zone_choices(current)
    elif name in ("quiz", "review") and focused.get("name") == "topic":
        pairs = topic_choices(topics, current)
    else:
        pairs = []
    return [{"name": n, "value": v} for n, v in pairs]

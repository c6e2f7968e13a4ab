"""Slash commands: one per command of the core's table, with subcommands, typed options,
choices and autocomplete.

The commands are real ``app_commands`` objects, so discord.py validates names,
descriptions and limits and builds the payload that ``sync`` uploads. Their
callbacks only hand the interaction to the shared handler: the arguments are
read back from the raw options by :func:`command_line`, which writes them as the
console line the core parses (``/mock schedule when:Fri 15:00 peer:@bob box:10``
→ ``/mock schedule Fri 15:00 with <@ID> box=10m``), so the gateway and the HTTP
endpoint produce the same event.

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
from bot.core.mock.model import FORMATS, LOOP, WEAK
from bot.core.mock.parsing import MAX_BOX, MIN_BOX
from bot.core.mock.times import DAY_NAMES
from bot.core.quiz.common import MAX_N
from bot.core.reviews import SUBCOMMANDS as REVIEW_SUBCOMMANDS
from bot.core.srs import MAX_DAILY_LIMIT
from bot.core.teams import MAX_NAME

log = logging.getLogger(__name__)

Dispatch = Callable[[discord.Interaction], Awaitable[None]]
AnyCommand = app_commands.Command[Any, ..., None] | app_commands.Group
Suggest = Callable[[str, Sequence[str]], list[tuple[str, str]]]

MAX_CHOICES = 25
DESCRIPTION = 100
SUB_COMMAND, SUB_COMMAND_GROUP, USER = 1, 2, 6
PERIODS = ("week", "month", "all")
QUIZ_MODES = ("live", "resume", "abandon")
DIFFICULTIES = ("easy", "medium", "hard")
MOCK_FORMATS = (LOOP, *(f for f in FORMATS if f != LOOP))
VOTE_WORDS = ("strong-no", "no", "yes", "strong-yes")
MAX_ROUNDS = max(len(rounds) for rounds in FORMATS.values())
MAX_ID = 999_999_999_999  # the core reads mock ids of up to 12 digits
DAY_SUGGESTIONS = ("weekdays", "weekends", "daily", *DAY_NAMES, "mon,wed,fri", "tue-thu")
REMIND_SUGGESTIONS = ("24h 1h", "24h", "1h", "1h 15m", "2d 24h 1h", "off")
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

# How the options of each command (or "command subcommand") become console arguments, in
# the order of the console's grammar: (option name, template). ``{}`` in a template is the
# option's value (a user option's value is the mention ``<@ID>``, as the core reads it); a
# template without ``{}`` is a flag word, written when the boolean option is true. Options
# not listed follow in the order received.
ARG_ORDER: Mapping[str, Sequence[tuple[str, str]]] = {
    "answer": (("text", "{}"),),
    "quiz": (("mode", "{}"), ("topic", "{}"), ("count", "{}"), ("difficulty", "{}")),
    "review": (
        ("action", "{}"),
        ("question", "{}"),
        ("limit", "{}"),
        ("topic", "{}"),
        ("count", "{}"),
    ),
    "stats": (("user", "{}"),),
    "leaderboard": (("period", "{}"), ("teams", "teams"), ("team", "team {}")),
    "team create": (("name", "{}"),),
    "team join": (("name", "{}"),),
    "team leave": (("name", "{}"),),
    "mock schedule": (
        ("when", "{}"),
        ("peer", "with {}"),
        ("format", "{}"),
        ("box", "box={}m"),
        ("focus", "focus={}"),
    ),
    "mock cancel": (("id", "{}"),),
    "mock reschedule": (("id", "{}"), ("when", "{}")),
    "mock available": (("clear", "clear"), ("days", "{}"), ("hours", "{}")),
    "mock pair": (("format", "{}"), ("box", "box={}m")),
    "mock accept": (("id", "{}"),),
    "mock decline": (("id", "{}"),),
    "mock vote": (("id", "{}"), ("round", "{}"), ("vote", "{}"), ("note", "{}")),
    "mock note": (("id", "{}"), ("round", "{}"), ("text", "{}")),
    "mock history": (("id", "{}"),),
    "mock remind": (("times", "{}"),),
    "dispute": (("reason", "{}"),),
    "tz": (("zone", "{}"),),
    "away": (("action", "{}"), ("id", "{}"), ("start", "{}"), ("end", "to {}")),
    "goal": (("action", "{}"), ("date", "{}"), ("format", "{}")),
    "studybot": (("arguments", "{}"),),
}

Count = app_commands.Range[int, 1, MAX_N]
ReviewLimit = app_commands.Range[int, 1, MAX_DAILY_LIMIT]
TeamName = app_commands.Range[str, 1, MAX_NAME]
MockId = app_commands.Range[int, 1, MAX_ID]
Round = app_commands.Range[int, 1, MAX_ROUNDS]
Box = app_commands.Range[int, MIN_BOX, MAX_BOX]


def _description(spec: CommandSpec) -> str:
    text = spec.summary or spec.usage
    return text if len(text) <= DESCRIPTION else text[: DESCRIPTION - 1] + "…"


def _value(option: Mapping[str, Any]) -> str:
    value = option.get("value")
    if option.get("type") == USER and value:
        return f"<@{str(value).strip()}>"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value).strip()


def _argument(option: Mapping[str, Any], template: str) -> str:
    if "{}" not in template:  # a flag
        return template if option.get("value") is True else ""
    value = _value(option)
    return template.replace("{}", value) if value else ""


def _path(data: Mapping[str, Any]) -> tuple[list[str], list[Mapping[str, Any]]]:
    """The subcommand names under the command (``["join"]``) and the options they carry."""
    options: list[Mapping[str, Any]] = list(data.get("options") or ())
    words: list[str] = []
    while options and options[0].get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
        sub = options[0]
        words.append(str(sub["name"]))
        options = list(sub.get("options") or ())
    return words, options


def command_line(data: Mapping[str, Any]) -> tuple[str, str]:
    """The command name and its console arguments from an interaction's ``data``.

    Subcommands come first (``team join gpu``); option values follow in the
    order of :data:`ARG_ORDER`, each written with its template.
    """
    name = str(data.get("name", ""))
    words, options = _path(data)
    key = " ".join([name, *words])
    by_name = {str(o.get("name")): o for o in options}
    arguments: list[str] = []
    for option_name, template in ARG_ORDER.get(key, ()):
        option = by_name.pop(option_name, None)
        if option is not None:
            arguments.append(_argument(option, template))
    arguments.extend(_value(o) for o in by_name.values())
    return name, " ".join(w for w in words + arguments if w).strip()


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(z for z in available_timezones() if "/" in z or z == "UTC"))


def zone_choices(current: str, _topics: Sequence[str] = ()) -> list[tuple[str, str]]:
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


def _suggestions(examples: Sequence[str]) -> Suggest:
    """Autocomplete from fixed examples that start with what the user typed (the option
    stays free text: Discord accepts a value that is not among the suggestions)."""

    def suggest(current: str, _topics: Sequence[str]) -> list[tuple[str, str]]:
        typed = " ".join(current.split()).casefold()
        return [(e, e) for e in examples if e.startswith(typed)][:MAX_CHOICES]

    return suggest


def _topic_suggestions(current: str, topics: Sequence[str]) -> list[tuple[str, str]]:
    return topic_choices(topics, current)


# Autocompleted options: (command path, option) → suggestions for what is typed so far.
AUTOCOMPLETE: Mapping[tuple[str, str], Suggest] = {
    ("tz", "zone"): zone_choices,
    ("quiz", "topic"): _topic_suggestions,
    ("review", "topic"): _topic_suggestions,
    ("mock available", "days"): _suggestions(DAY_SUGGESTIONS),
    ("mock remind", "times"): _suggestions(REMIND_SUGGESTIONS),
}


def _choices(pairs: Iterable[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


def _same(values: Iterable[str]) -> list[app_commands.Choice[str]]:
    return _choices((v, v) for v in values)


def build_commands(
    dispatch: Dispatch, topics: Sequence[str], specs: Mapping[str, CommandSpec] = COMMANDS
) -> list[AnyCommand]:
    """One app command per command of the core's table that is not console-only.

    Topics become the choices of ``/quiz topic`` when there are at most 25 of
    them, else an autocomplete. Admin commands are hidden from members without
    Manage Server (the core still gets ``is_admin`` on every event). A command
    without options of its own here gets one free text option, ``arguments``.
    """
    built: dict[str, AnyCommand] = {}

    def autocomplete(path: str, option: str) -> Any:
        suggest = AUTOCOMPLETE[(path, option)]

        async def callback(
            _interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            return _choices(suggest(current, topics))

        return app_commands.autocomplete(**{option: callback})

    def spec_of(name: str) -> CommandSpec | None:
        spec = specs.get(name)
        return spec if spec is not None and not spec.console_only else None

    def command(name: str, description: str, callback: Any) -> AnyCommand:
        return app_commands.Command(name=name, description=description, callback=callback)

    def with_topics(path: str, callback: Any) -> Any:
        if len(topics) <= MAX_CHOICES:
            return app_commands.choices(topic=_same(topics))(callback)
        return autocomplete(path, "topic")(callback)

    if spec := spec_of("daily"):

        async def daily(interaction: discord.Interaction) -> None:
            await dispatch(interaction)

        built["daily"] = command("daily", _description(spec), daily)

    if spec := spec_of("answer"):

        @app_commands.describe(text="your answer")
        async def answer(interaction: discord.Interaction, text: str) -> None:
            await dispatch(interaction)

        built["answer"] = command("answer", _description(spec), answer)

    if spec := spec_of("quiz"):

        @app_commands.describe(
            mode="a live round in the channel, or your open quiz (default: a new personal quiz)",
            topic="a topic (default: all)",
            count="how many questions",
            difficulty="only questions of this difficulty",
        )
        @app_commands.choices(mode=_same(QUIZ_MODES), difficulty=_same(DIFFICULTIES))
        async def quiz(
            interaction: discord.Interaction,
            mode: str | None = None,
            topic: str | None = None,
            count: Count | None = None,
            difficulty: str | None = None,
        ) -> None:
            await dispatch(interaction)

        built["quiz"] = command("quiz", _description(spec), with_topics("quiz", quiz))

    if spec := spec_of("review"):

        @app_commands.describe(
            topic="a topic (default: all)",
            count="how many questions",
            action="limit (show or set), leeches, suspend, unsuspend, bury",
            question="the question id to suspend, unsuspend or bury (default: the last one)",
            limit="with action limit: reviews a day",
        )
        @app_commands.choices(action=_same(REVIEW_SUBCOMMANDS))
        async def review(
            interaction: discord.Interaction,
            topic: str | None = None,
            count: Count | None = None,
            action: str | None = None,
            question: str | None = None,
            limit: ReviewLimit | None = None,
        ) -> None:
            await dispatch(interaction)

        built["review"] = command("review", _description(spec), with_topics("review", review))

    if spec := spec_of("streak"):

        async def streak(interaction: discord.Interaction) -> None:
            await dispatch(interaction)

        built["streak"] = command("streak", _description(spec), streak)

    if spec := spec_of("leaderboard"):

        @app_commands.describe(
            period="this week (default), this month or all time",
            teams="rank the study groups instead of people",
            team="only the members of this study group",
        )
        @app_commands.choices(period=_same(PERIODS))
        async def leaderboard(
            interaction: discord.Interaction,
            period: str | None = None,
            teams: bool | None = None,
            team: TeamName | None = None,
        ) -> None:
            await dispatch(interaction)

        built["leaderboard"] = command("leaderboard", _description(spec), leaderboard)

    if spec := spec_of("team"):
        built["team"] = _team_group(spec, dispatch)

    if spec := spec_of("stats"):

        @app_commands.describe(user="whose stats (default: yours)")
        async def stats(interaction: discord.Interaction, user: discord.User | None = None) -> None:
            await dispatch(interaction)

        built["stats"] = command("stats", _description(spec), stats)

    if spec := spec_of("mock"):
        built["mock"] = _mock_group(spec, dispatch, autocomplete)

    if spec := spec_of("dispute"):

        @app_commands.describe(
            reason="why the grade of your latest answer is wrong, or 'status' for your disputes"
        )
        async def dispute(interaction: discord.Interaction, reason: str | None = None) -> None:
            await dispatch(interaction)

        built["dispute"] = command("dispute", _description(spec), dispute)

    if spec := spec_of("tz"):

        @app_commands.describe(zone="an IANA zone such as Europe/Berlin (empty: show yours)")
        async def tz(interaction: discord.Interaction, zone: str | None = None) -> None:
            await dispatch(interaction)

        built["tz"] = command("tz", _description(spec), autocomplete("tz", "zone")(tz))

    if spec := spec_of("away"):

        @app_commands.describe(
            start="the first day away: 2026-12-20, dec 20, friday (your time zone)",
            end="the last day away (leave out for one day)",
            action="list (the default without dates), off (you are back), cancel (with id)",
            id="the period to cancel (see /away list)",
        )
        @app_commands.choices(action=_same(("list", "off", "cancel")))
        async def away(
            interaction: discord.Interaction,
            start: str | None = None,
            end: str | None = None,
            action: str | None = None,
            id: MockId | None = None,
        ) -> None:
            await dispatch(interaction)

        built["away"] = command("away", _description(spec), away)

    if spec := spec_of("goal"):

        @app_commands.describe(
            date="the interview's date: 2027-02-10, feb 10 (your time zone)",
            format=f"what it is like (default: {LOOP}, the full loop)",
            action="off: end it (leave everything out to see it)",
        )
        @app_commands.choices(format=_same(MOCK_FORMATS), action=_same(("off",)))
        async def goal(
            interaction: discord.Interaction,
            date: str | None = None,
            format: str | None = None,
            action: str | None = None,
        ) -> None:
            await dispatch(interaction)

        built["goal"] = command("goal", _description(spec), goal)

    if spec := spec_of("help"):

        async def help_(interaction: discord.Interaction) -> None:
            await dispatch(interaction)

        built["help"] = command("help", _description(spec), help_)

    for name, spec in specs.items():
        if name in built or spec.console_only:
            continue

        @app_commands.describe(arguments=spec.usage[:DESCRIPTION])
        async def generic(interaction: discord.Interaction, arguments: str | None = None) -> None:
            await dispatch(interaction)

        if name not in ARG_ORDER:
            log.debug("command /%s has no Discord options of its own: one free text option", name)
        built[name] = command(name, _description(spec), generic)

    return list(built.values())


def _team_group(spec: CommandSpec, dispatch: Dispatch) -> app_commands.Group:
    """``/team create|join|leave NAME`` and ``/team list``."""
    group = app_commands.Group(name="team", description=_description(spec))

    @app_commands.describe(name="the new study group's name, e.g. GPU Gang")
    async def team_create(interaction: discord.Interaction, name: TeamName) -> None:
        await dispatch(interaction)

    @app_commands.describe(name="the study group (see /team list)")
    async def team_join(interaction: discord.Interaction, name: TeamName) -> None:
        await dispatch(interaction)

    @app_commands.describe(name="the study group")
    async def team_leave(interaction: discord.Interaction, name: TeamName) -> None:
        await dispatch(interaction)

    async def team_list(interaction: discord.Interaction) -> None:
        await dispatch(interaction)

    for name, description, callback in (
        ("create", "start a study group (you are its first member)", team_create),
        ("join", "join a study group", team_join),
        ("leave", "leave a study group", team_leave),
        ("list", "every study group, with its members", team_list),
    ):
        group.add_command(
            app_commands.Command(name=name, description=description, callback=callback)
        )
    return group


def _mock_group(
    spec: CommandSpec, dispatch: Dispatch, autocomplete: Callable[[str, str], Any]
) -> app_commands.Group:
    """Every ``/mock`` subcommand of the console, with typed options."""
    group = app_commands.Group(name="mock", description=_description(spec))
    formats = _same(MOCK_FORMATS)
    when_help = "when, in your time zone: 'tomorrow 15:00', 'Fri 3pm' or '2026-12-03 09:30'"

    @app_commands.describe(
        when=when_help,
        peer="who interviews you (leave out for a solo mock)",
        format=f"the rounds (default: {LOOP}, the full loop)",
        box=f"minutes per round (default: 8; {MIN_BOX} to {MAX_BOX})",
        focus="weak: the questions come from your weakest topics",
    )
    @app_commands.choices(format=formats, focus=_same((WEAK,)))
    async def schedule(
        interaction: discord.Interaction,
        when: str,
        peer: discord.User | None = None,
        format: str | None = None,
        box: Box | None = None,
        focus: str | None = None,
    ) -> None:
        await dispatch(interaction)

    async def list_(interaction: discord.Interaction) -> None:
        await dispatch(interaction)

    @app_commands.describe(id="the mock's number, from /mock list")
    async def cancel(interaction: discord.Interaction, id: MockId) -> None:
        await dispatch(interaction)

    @app_commands.describe(id="the mock's number, from /mock list", when=when_help)
    async def reschedule(interaction: discord.Interaction, id: MockId, when: str) -> None:
        await dispatch(interaction)

    @app_commands.describe(
        days="weekdays, weekends, daily, or days such as mon,wed or tue-thu",
        hours="from-to in your time zone, e.g. 18:00-20:00 or 6pm-8pm",
        clear="remove all your windows",
    )
    async def available(
        interaction: discord.Interaction,
        days: str | None = None,
        hours: str | None = None,
        clear: bool | None = None,
    ) -> None:
        await dispatch(interaction)

    @app_commands.describe(
        format=f"the rounds (default: {LOOP}, the full loop)",
        box=f"minutes per round (default: 8; {MIN_BOX} to {MAX_BOX})",
    )
    @app_commands.choices(format=formats)
    async def pair(
        interaction: discord.Interaction, format: str | None = None, box: Box | None = None
    ) -> None:
        await dispatch(interaction)

    @app_commands.describe(id="the mock's number, from /mock list")
    async def accept(interaction: discord.Interaction, id: MockId) -> None:
        await dispatch(interaction)

    @app_commands.describe(id="the mock's number, from /mock list")
    async def decline(interaction: discord.Interaction, id: MockId) -> None:
        await dispatch(interaction)

    @app_commands.describe(
        id="the mock's number",
        round="the round you interviewed",
        vote="your hiring vote for that round",
        note="a note for the debrief",
    )
    @app_commands.choices(vote=_same(VOTE_WORDS))
    async def vote(
        interaction: discord.Interaction,
        id: MockId,
        round: Round,
        vote: str,
        note: str | None = None,
    ) -> None:
        await dispatch(interaction)

    @app_commands.describe(
        id="the mock's number", round="the round", text="your note for the debrief"
    )
    async def note(interaction: discord.Interaction, id: MockId, round: Round, text: str) -> None:
        await dispatch(interaction)

    @app_commands.describe(id="a mock's number, for its scorecard (default: the list)")
    async def history(interaction: discord.Interaction, id: MockId | None = None) -> None:
        await dispatch(interaction)

    @app_commands.describe(times="when, before each mock: e.g. '24h 1h', or 'off' (empty: show)")
    async def remind(interaction: discord.Interaction, times: str | None = None) -> None:
        await dispatch(interaction)

    for name, description, callback in (
        ("schedule", "schedule a mock interview, solo or with a peer", schedule),
        ("list", "your upcoming mock interviews", list_),
        ("cancel", "cancel a mock interview", cancel),
        ("reschedule", "move a mock interview", reschedule),
        (
            "available",
            "your weekly windows for pairing: add one, clear them, or list them",
            autocomplete("mock available", "days")(available),
        ),
        ("pair", "propose a mock with someone free when you are", pair),
        ("accept", "accept a proposed mock interview", accept),
        ("decline", "decline a proposed mock interview", decline),
        ("vote", "vote on a round you interviewed", vote),
        ("note", "add a note on a round you interviewed", note),
        ("history", "your past mock interviews, or one's scorecard", history),
        (
            "remind",
            "when reminders come before your mocks",
            autocomplete("mock remind", "times")(remind),
        ),
    ):
        group.add_command(
            app_commands.Command(name=name, description=description, callback=callback)
        )
    return group


def autocomplete_choices(data: Mapping[str, Any], topics: Sequence[str]) -> list[dict[str, str]]:
    """Choices for an autocomplete interaction's focused option (HTTP interactions mode)."""
    words, options = _path(data)
    path = " ".join([str(data.get("name", "")), *words])
    focused = next((o for o in options if o.get("focused")), None)
    if focused is None:
        return []
    suggest = AUTOCOMPLETE.get((path, str(focused.get("name"))))
    if suggest is None:
        return []
    pairs = suggest(str(focused.get("value") or ""), topics)
    return [{"name": n, "value": v} for n, v in pairs]

"""The command table: every command of the contract, its usage, and who handles it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.core import home, season_board, stats, teams
from bot.core.away import away_command
from bot.core.context import Context
from bot.core.daily.answering import daily_action
from bot.core.daily.posting import show_daily
from bot.core.daily.studybot import studybot_command
from bot.core.disputes import dispute_action, dispute_command, review_action
from bot.core.errors import UserError
from bot.core.goal import goal_command
from bot.core.messages import Card, Delivery, Outgoing, say
from bot.core.mock.commands import mock_action, mock_command
from bot.core.mock.rounds import pairing_action
from bot.core.model import USERS
from bot.core.quiz.live import live_action
from bot.core.quiz.personal import quiz_action, quiz_command, review_command
from bot.core.reviews import card_action
from bot.core.router import route_answer
from bot.core.streaks import show_streak
from bot.core.timezones import parse_zone, zone_warning

Handler = Callable[[Context, str], list[Outgoing]]


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """A command: its name, a short usage and summary (the platforms' own command lists),
    the lines ``/help`` shows for it (each a usage and what it does, grouped as the README's
    table of commands groups them), and its handler."""

    name: str
    usage: str
    summary: str
    handler: Handler | None = None
    console_only: bool = False
    help: tuple[tuple[str, str], ...] = ()


def _daily(ctx: Context, args: str) -> list[Outgoing]:
    if args.strip():
        raise UserError(
            "/daily takes no arguments. To answer, type /answer followed by your answer."
        )
    return show_daily(ctx)


def _answer(ctx: Context, args: str) -> list[Outgoing]:
    return route_answer(ctx, args)


def _tz(ctx: Context, args: str) -> list[Outgoing]:
    if not args.strip():
        current = ctx.user.timezone or f"{ctx.workspace.timezone} (the workspace's)"
        return [
            say(
                ctx.user.external_id,
                f"Your time zone is {current}. Change it with /tz ZONE.",
                channel=ctx.channel.external_id,
            )
        ]
    name = parse_zone(args)
    ctx.user = ctx.uow[USERS].set_timezone(ctx.user, name)
    local = ctx.now.astimezone(ctx.user_zone).strftime("%a %d %b %H:%M")
    warning = zone_warning(name, ctx.now)
    return [
        say(
            ctx.user.external_id,
            f"Time zone set to {name}. It is {local} there." + (f" {warning}" if warning else ""),
            channel=ctx.channel.external_id,
        )
    ]


def _help(ctx: Context, _args: str) -> list[Outgoing]:
    groups = tuple(
        "\n".join(f"{usage} — {does}" for usage, does in spec.help)
        for spec in COMMANDS.values()
        if not spec.console_only or ctx.event.platform == "console"
    )
    return [
        Outgoing(
            Delivery.PRIVATE,
            ctx.user.external_id,
            Card(title="studybot commands", blocks=groups),
            channel=ctx.channel.external_id,
        )
    ]


_SPECS = [
    CommandSpec(
        "daily",
        "/daily",
        "show today's daily question (posts it if not yet posted)",
        _daily,
        help=(("/daily", "show today's daily question (posts it if not yet posted)"),),
    ),
    CommandSpec(
        "answer",
        "/answer TEXT",
        "answer the open question: your mock round, the channel's live round, your quiz, "
        "else today's daily",
        _answer,
        help=(
            (
                "/answer TEXT or plain text",
                "answer the open question: your mock round, the channel's live round, your quiz, "
                "else today's daily",
            ),
        ),
    ),
    CommandSpec(
        "quiz",
        "/quiz [TOPIC] [N] [DIFFICULTY] | live [TOPIC] [N] | resume | abandon",
        "a personal quiz of N questions (default 5), or a live round in the channel",
        quiz_command,
        help=(
            (
                "/quiz [TOPIC] [N] [easy|medium|hard]",
                "a personal quiz (default 5, 1–20 questions): due reviews, weak topics, new "
                "questions",
            ),
            ("/quiz resume · /quiz abandon", "pick up or drop your open quiz"),
            (
                "/quiz live [TOPIC] [N]",
                "a live round in the channel: the first correct answer scores",
            ),
        ),
    ),
    CommandSpec(
        "review",
        "/review [TOPIC] [N] | limit [N] | leeches | suspend [ID] | unsuspend ID | bury [ID]",
        "review what is due, within your daily limit; leeches, suspend or bury a card",
        review_command,
        help=(
            ("/review [TOPIC] [N]", "the spaced-repetition cards that are due, most overdue first"),
            ("/review limit [N]", "show or set how many reviews a day you get"),
            (
                "/review leeches · /review unsuspend ID",
                "the cards you keep missing, and bring one back",
            ),
            (
                "/review suspend [ID] · /review bury [ID]",
                "take a card out of reviews, for good or until tomorrow",
            ),
        ),
    ),
    CommandSpec(
        "streak",
        "/streak",
        "your current and longest streak, and freezes held",
        show_streak,
        help=(("/streak", "your current and longest streak, freezes held, the last four weeks"),),
    ),
    CommandSpec(
        "leaderboard",
        "/leaderboard [week|month|all] [team NAME | teams] | season [YYYY-MM] | seasons",
        "the leaderboard: people, one team, or teams; a season's board; the seasons",
        season_board.leaderboard_command,
        help=(
            (
                "/leaderboard [week|month|all] [team NAME | teams]",
                "people, one team's members, or teams",
            ),
            (
                "/leaderboard season [YYYY-MM] [team NAME | teams] · /leaderboard seasons",
                "a season's board, and the seasons with their winners",
            ),
        ),
    ),
    CommandSpec(
        "team",
        "/team create|join|leave NAME | list",
        "study groups: create, join, leave, list",
        teams.team_command,
        help=(("/team create|join|leave NAME · /team list", "study groups"),),
    ),
    CommandSpec(
        "stats",
        "/stats [@USER]",
        "accuracy by topic, weakest topics, streak, reviews due",
        stats.stats_command,
        help=(("/stats [@USER]", "accuracy by topic, weakest topics, streak, reviews due"),),
    ),
    CommandSpec(
        "mock",
        "/mock schedule WHEN [with @PEER] | list | cancel ID | reschedule ID WHEN | pair | "
        "pairing | …",
        "mock interviews: schedule, pair up (now or weekly), vote, scorecards "
        "(/mock alone lists all)",
        mock_command,
        help=(
            (
                "/mock schedule WHEN [with @PEER] [loop|technical|product|behavioral] [box=Nm] "
                "[focus=weak] [anyway]",
                "schedule a mock interview",
            ),
            (
                "/mock list · /mock cancel ID · /mock reschedule ID WHEN · /mock history [ID]",
                "manage your mocks; their scorecards",
            ),
            (
                "/mock available weekdays 18:00-20:00 · /mock pair [FORMAT] · /mock accept ID · "
                "/mock decline ID",
                "find a peer by overlapping availability",
            ),
            (
                "/mock pairing join|leave|status · /mock pairing happened ID yes|no",
                "the channel's weekly pairing round",
            ),
            (
                "/mock vote ID ROUND strong-no|no|yes|strong-yes [NOTE] · /mock note ID ROUND TEXT",
                "the interviewer's verdicts and notes",
            ),
            ("/mock remind 24h 1h | off", "when your mock reminders come"),
        ),
    ),
    CommandSpec(
        "dispute",
        "/dispute [REASON] | status",
        "dispute the grade of your latest graded answer (admins review it); status: yours",
        dispute_command,
        help=(
            (
                "/dispute [REASON] · /dispute status",
                "dispute the grade of your latest graded answer (admins review it); yours and "
                "what was decided",
            ),
        ),
    ),
    CommandSpec(
        "away",
        "/away FROM TO | off | list | cancel ID",
        "time away: your streak pauses (no freeze spent) and reminders stop",
        away_command,
        help=(
            (
                "/away FROM TO · /away off · /away list · /away cancel ID",
                "time away: your streak pauses (no freeze spent), nudges and reminders stop",
            ),
        ),
    ),
    CommandSpec(
        "goal",
        "/goal DATE [loop|technical|product|behavioral] | off",
        "an interview date: reviews tighten as it nears, /stats shows the days left",
        goal_command,
        help=(
            (
                "/goal DATE [loop|technical|product|behavioral] · /goal · /goal off",
                "an interview date: reviews and quizzes work back from it",
            ),
        ),
    ),
    CommandSpec(
        "tz",
        "/tz ZONE",
        "set your time zone (IANA name, e.g. Europe/Berlin)",
        _tz,
        help=(("/tz ZONE", "set your time zone (IANA name, e.g. Europe/Berlin)"),),
    ),
    CommandSpec(
        "studybot",
        "/studybot schedule [TIME] [ZONE] [DAYS] | schedule show|pause|resume|skip | disputes "
        "| live | season | pairing on|off",
        "admins: the schedule, live rounds, disputes, seasons, pairing; your nudges and data",
        studybot_command,
        help=(
            (
                "/studybot schedule [TIME] [ZONE] [DAYS] [topics=A,B] [roles=eng|pm|any] "
                "[mix=1:2,2:2,3:1] [reveal=8h]",
                "the channel's daily schedule (admins)",
            ),
            (
                "/studybot schedule show|pause|resume|skip [DATE] · /studybot nudges on|off",
                "show or pause the schedule, skip a day; your evening streak nudge",
            ),
            (
                "/studybot live [SECONDS|default]",
                "how long a live-round question stays open here (admins set it)",
            ),
            (
                "/studybot season · /studybot season length 1m|3m|2w · /studybot season start DATE",
                "the current season; how long seasons last (admins)",
            ),
            (
                "/studybot pairing on [DAY] [HH:MM] · /studybot pairing off · /studybot pairing",
                "the channel's weekly pairing round (admins)",
            ),
            ("/studybot disputes [open|accepted|rejected|all]", "the dispute queue (admins)"),
            (
                "/studybot disputes accept ID [correct|partial] [NOTE] · /studybot disputes "
                "reject ID NOTE",
                "decide a dispute (admins)",
            ),
            (
                "/studybot export-me · /studybot forget-me [confirm]",
                "your data: all of it as a file, or deleted",
            ),
            (
                "/studybot forget-workspace [confirm]",
                "delete everything stored for the workspace (admins)",
            ),
        ),
    ),
    CommandSpec(
        "as",
        "/as NAME",
        "act as another user (console only)",
        console_only=True,
        help=(("/as NAME", "act as another user (console only)"),),
    ),
    CommandSpec(
        "advance",
        "/advance DURATION",
        "move the simulated clock (90m, 1d) and run what is due",
        console_only=True,
        help=(
            (
                "/advance DURATION",
                "move the simulated clock (90m, 1d) and run what falls due (console only)",
            ),
        ),
    ),
    CommandSpec(
        "help",
        "/help",
        "every command, one line each",
        _help,
        help=(("/help", "every command, one line each"),),
    ),
]

COMMANDS: dict[str, CommandSpec] = {spec.name: spec for spec in _SPECS}


def command_for(name: str) -> CommandSpec:
    """The spec of command ``name``; raises UserError for an unknown one."""
    spec = COMMANDS.get(name)
    if spec is None or spec.handler is None:
        raise UserError(f"Unknown command /{name[:40]}. Type /help to see every command.")
    return spec


def run_command(ctx: Context, name: str, args: str) -> list[Outgoing]:
    """Run command ``name`` for the acting user (a command checks admin rights itself where
    a part of it needs them, as ``/studybot schedule`` does)."""
    spec = command_for(name)
    assert spec.handler is not None  # command_for returns only commands with a handler
    return spec.handler(ctx, args)


ACTIONS: dict[str, Callable[[Context, list[str], str], list[Outgoing]]] = {
    "mock": mock_action,
    "daily": daily_action,
    "quiz": quiz_action,
    "live": live_action,
    "home": home.home_action,
    "dispute": dispute_action,
    "disputes": review_action,
    "pairing": pairing_action,
    "review": card_action,
}

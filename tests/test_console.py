"""The console contract, read as chat transcripts."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select

from bot.adapters.console.run import run_console
from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.commands import COMMANDS
from bot.core.events import Event, EventKind
from bot.core.messages import Delivery
from bot.db.models import AttemptRow, ChannelScheduleRow, DailyPromptRow, UserRow
from tests.support import ANY_KIND, Transcript, row_counts

ROOT = Path(__file__).resolve().parents[1]


def test_daily_posts_todays_question_in_the_channel(chat: Transcript) -> None:
    replies = chat.send("/daily")
    assert [m.delivery for m in replies] == [Delivery.CHANNEL]
    assert replies[0].to == "general"
    assert replies[0].card.title == "Daily question · 2026-12-01"


def test_daily_twice_shows_the_same_question_privately_and_posts_once(chat: Transcript) -> None:
    first = chat.send("/daily")[0]
    again = chat.send("/daily")
    assert [m.delivery for m in again] == [Delivery.PRIVATE]
    assert again[0].card.blocks[0] == first.card.blocks[0]
    assert len(chat.posts()) == 1


def test_an_answer_is_graded_privately_and_stored(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    replies = chat.send("/answer 7")
    assert [m.delivery for m in replies] == [Delivery.PRIVATE]
    assert replies[0].to == "alice"
    with app.session_factory() as session:
        attempts = list(session.scalars(select(AttemptRow)))
    assert len(attempts) == 1
    assert attempts[0].answer == "7"
    assert attempts[0].scored_prompt_id is not None


def test_plain_text_answers_the_daily_question(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    chat.send(ANY_KIND)
    with app.session_factory() as session:
        assert session.scalar(select(AttemptRow.answer)) == ANY_KIND


def test_second_answer_to_the_same_daily_prompt_scores_nothing(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    chat.send(f"/answer {ANY_KIND}")
    text = chat.say("/answer A, 8")
    assert "practice" in text
    with app.session_factory() as session:
        rows = list(session.scalars(select(AttemptRow).order_by(AttemptRow.id)))
    assert [r.scored_prompt_id is not None for r in rows] == [True, False]
    assert rows[1].points == 0


def test_two_users_share_one_question_a_day_and_get_a_new_one_the_next_day(
    chat: Transcript, app: App
) -> None:
    chat.send("/daily")
    chat.send("/answer B, 6")
    chat.send("/as bob")
    bob_view = chat.send("/daily")
    assert [m.delivery for m in bob_view] == [Delivery.PRIVATE]
    chat.send(f"/answer {ANY_KIND}")
    chat.send("/advance 1d")
    next_day = chat.send("/daily")
    assert next_day[0].card.title == "Daily question · 2026-12-02"
    assert next_day[0].card.blocks[0] != chat.posts()[0].card.blocks[0]
    with app.session_factory() as session:
        prompts = list(session.scalars(select(DailyPromptRow)))
        users = {u.id: u.external_id for u in session.scalars(select(UserRow))}
        attempts = [(users[a.user_id], a.answer) for a in session.scalars(select(AttemptRow))]
    assert len(prompts) == 2
    assert sorted(attempts) == [("alice", "B, 6"), ("bob", ANY_KIND)]


def test_help_lists_every_command_of_the_contract(chat: Transcript) -> None:
    text = chat.say("/help")
    for command in (
        "/daily",
        "/answer",
        "/quiz",
        "/streak",
        "/leaderboard",
        "/team",
        "/mock",
        "/tz",
        "/as",
        "/advance",
        "/help",
    ):
        assert command in text


def test_tz_sets_the_acting_users_zone(chat: Transcript, app: App) -> None:
    assert "Time zone set to Asia/Tokyo" in chat.say("/tz asia/tokyo")
    with app.session_factory() as session:
        assert session.scalar(select(UserRow.timezone)) == "Asia/Tokyo"


def test_bad_input_gets_a_clear_message_and_writes_nothing(chat: Transcript, app: App) -> None:
    chat.send("/daily")
    before = row_counts(app)
    cases = {
        "/bogus": "Type /help",
        "/answer": "empty",
        "/answer    ": "empty",
        "/advance banana": "not a duration",
        "/advance -1d": "not a duration",
        "/tz Mars/Olympus": "not a time zone",
        "/as": "Usage: /as NAME",
        "x" * 1_000_000: "too long",
        "/answer " + "y" * 20_000: "too long",
    }
    for line, expected in cases.items():
        text = chat.say(line)
        assert expected in text, (line[:30], text)
        assert "Traceback" not in text
    assert row_counts(app) == before


def test_advance_needs_a_simulated_clock(app: App) -> None:
    from bot.core.clock import SystemClock

    app.clock = SystemClock()
    transcript = Transcript(app)
    assert "--clock" in transcript.say("/advance 1d")


def test_script_mode_survives_invalid_utf8(app: App) -> None:
    stdin = io.BytesIO(b"/daily\n\xff\xfe bad bytes\n/help\n")
    out = io.StringIO()
    assert (
        run_console(
            app,
            user="alice",
            channel="general",
            tz=None,
            json_lines=True,
            stdin=stdin,
            stdout=out,
            interactive=False,
        )
        == 0
    )
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["kind"] == "channel"
    assert "not valid UTF-8" in lines[1]["text"]
    assert lines[2]["title"] == "studybot commands"
    assert row_counts(app)["attempt"] == 0


def test_json_lines_carry_kind_to_and_text(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    script = f"/daily\n/answer {ANY_KIND}\n/as bob\n/daily\n/advance 1d\n/daily\n"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.cli",
            "console",
            "--json",
            "--db",
            f"sqlite:///{db}",
            "--user",
            "alice",
            "--clock",
            "2026-12-01T09:00:00+00:00",
        ],
        input=script.encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert all({"kind", "to", "text"} <= set(line) for line in lines)
    posts = [line for line in lines if line["kind"] == "channel"]
    assert [p["title"] for p in posts] == [
        "Daily question · 2026-12-01",
        "Daily question · 2026-12-02",
    ]


def test_plain_script_mode_shows_question_grade_and_help(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "console", "--db", f"sqlite:///{db}"],
        input=f"/daily\n/answer {ANY_KIND}\n/help\n".encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    out = result.stdout.decode()
    assert "Daily question" in out
    assert "correct" in out.lower()
    assert "/leaderboard" in out


def test_an_admin_only_change_is_refused_to_others_and_writes_nothing(app: App) -> None:
    from bot.core.events import Event, EventKind

    def studybot(user: str, *, is_admin: bool) -> Event:
        return Event(
            EventKind.COMMAND,
            "slack",
            "T1",
            "C1",
            user,
            command="studybot",
            args="schedule pause",
            is_admin=is_admin,
        )

    before = row_counts(app)
    replies = app.bot.handle(studybot("U1", is_admin=False))
    assert replies[0].text == "Only workspace admins can change a channel's schedule."
    assert row_counts(app) == before
    assert app.bot.handle(studybot("U2", is_admin=True))[0].text.startswith("Paused")


def _readme_commands() -> list[str]:
    """The first column of the README's table of commands, as a user types it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| command | does |") : readme.index("**Dates**")]
    rows = [line for line in table.splitlines() if line.startswith("| `/")]
    cells = [re.split(r"(?<!\\)\|", row)[1] for row in rows]
    return [cell.strip().replace("`", "").replace("\\|", "|") for cell in cells]


def test_help_shows_every_row_of_the_readmes_command_table_in_its_order(chat: Transcript) -> None:
    """One table in the code, one in the README: neither lists a command the other lacks."""
    (reply,) = chat.send("/help")
    shown = [line.split(" — ")[0] for block in reply.card.blocks for line in block.splitlines()]
    assert shown == _readme_commands()
    groups = [[line.split(" — ")[0] for line in b.splitlines()] for b in reply.card.blocks]
    assert [g[0].split()[0] for g in groups] == [f"/{name}" for name in COMMANDS]


def test_help_on_a_platform_leaves_out_the_console_only_commands(app: App) -> None:
    event = Event(EventKind.COMMAND, "slack", "T1", "C1", "U1", command="help")
    (reply,) = app.bot.handle(event)
    shown = {line.split()[0] for block in reply.card.blocks for line in block.splitlines()}
    assert "/as" not in shown and "/advance" not in shown and "/studybot" in shown


def test_studybot_admins_names_the_consoles_admins_as_on_the_platforms(
    db_url: str, clock: SimulatedClock, sample_bank: QuestionBank
) -> None:
    settings = Settings(studybot_database_url=db_url, studybot_admins="alice")
    app = bootstrap(settings, clock=clock, bank=sample_bank, auto_migrate=True)
    try:
        chat = Transcript(app)
        chat.start()
        assert "Only workspace admins" not in chat.say("/studybot schedule 10:00")
        chat.send("/as bob")
        assert "Only workspace admins can change a channel's schedule." in chat.say(
            "/studybot schedule 11:00"
        )
        with app.session_factory() as session:
            assert session.scalar(select(ChannelScheduleRow.local_time)) == "10:00"
    finally:
        app.close()


def test_without_studybot_admins_whoever_sits_at_the_console_is_an_admin(chat: Transcript) -> None:
    chat.send("/as bob")
    assert "Only workspace admins" not in chat.say("/studybot schedule 10:00")

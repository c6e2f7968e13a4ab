"""Errors a person can read: each bad setup gets one line that says what to do, exit 2, no
traceback, and nothing written."""

from __future__ import annotations

import socket
import sys
import uuid
from pathlib import Path

import pytest
from sqlalchemy import make_url

from bot.cli import main
from tests.conftest import POSTGRES_URL

MISSING_DIR_DB = "sqlite:////nonexistent/dir/x.db"


def one_line(capsys: pytest.CaptureFixture[str], prefix: str) -> str:
    """The one error line a command printed (and it printed nothing else)."""
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # closed again: nothing listens there


@pytest.fixture(autouse=True)
def _in_an_empty_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def nothing_written(tmp_path: Path) -> bool:
    return list(tmp_path.iterdir()) == []


def test_console_on_postgresql_without_the_postgres_extra_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the extra were not installed
    for url in ("postgresql://studybot@127.0.0.1/studybot", "postgresql+psycopg://x@h/db"):
        assert main(["console", "--db", url]) == 2
        line = one_line(capsys, "studybot console: PostgreSQL support is not installed")
        assert "postgres extra" in line and "pip install '.[postgres]'" in line
    assert nothing_written(tmp_path)


@pytest.mark.parametrize(
    ("argv", "prefix"),
    [
        (["console", "--db", MISSING_DIR_DB], "studybot console: "),
        (["db", "upgrade", "--db", MISSING_DIR_DB], "studybot db upgrade: "),
        (["regrade", "--db", MISSING_DIR_DB], "studybot regrade: "),
    ],
)
def test_a_sqlite_file_in_a_missing_folder_is_named(
    argv: list[str], prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    line = one_line(capsys, prefix)
    assert "/nonexistent/dir/x.db" in line and "folder /nonexistent/dir does not exist" in line


def test_db_upgrade_to_an_unknown_revision_lists_the_known_ones_and_creates_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert (
        main(["db", "upgrade", "--db", f"sqlite:///{tmp_path / 'new.db'}", "--revision", "banana"])
        == 2
    )
    line = one_line(capsys, "studybot db upgrade: there is no migration 'banana'")
    assert "0001_initial" in line and "head" in line
    assert nothing_written(tmp_path)


def test_db_upgrade_when_postgresql_refuses_the_connection(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"postgresql+psycopg://studybot@127.0.0.1:{closed_port()}/studybot"
    assert main(["db", "upgrade", "--db", url]) == 2
    line = one_line(capsys, "studybot db upgrade: cannot connect to the database at ")
    assert "refused" in line.lower() and "that the server is running" in line


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="STUDYBOT_TEST_POSTGRES_URL is not set")
def test_db_upgrade_to_a_postgresql_database_that_does_not_exist(
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = f"studybot_missing_{uuid.uuid4().hex[:8]}"
    url = make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    assert main(["db", "upgrade", "--db", url]) == 2
    line = one_line(capsys, "studybot db upgrade: cannot connect to the database at ")
    assert f'database "{name}" does not exist' in line


@pytest.mark.parametrize(
    "url", ["banana", "mysql://user@127.0.0.1/studybot"], ids=["not-a-url", "not-supported"]
)
def test_a_url_that_is_no_database_studybot_runs_on(
    url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["db", "upgrade", "--db", url]) == 2
    line = one_line(capsys, "studybot db upgrade: ")
    assert "SQLite" in line or "sqlite:///" in line
    assert nothing_written(tmp_path)


def test_regrade_dry_run_on_a_new_database_path_creates_no_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for argv in (["--dry-run"], []):
        assert main(["regrade", "--db", f"sqlite:///{tmp_path / 'new.db'}", *argv]) == 2
        assert "there is no database at" in one_line(capsys, "studybot regrade: ")
    assert nothing_written(tmp_path)


def test_regrade_on_a_database_that_was_never_migrated_says_to_upgrade(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "empty.db").touch()
    assert main(["regrade", "--db", f"sqlite:///{tmp_path / 'empty.db'}"]) == 2
    assert "studybot db upgrade" in one_line(capsys, "studybot regrade: ")


def test_discord_invite_refuses_an_application_id_that_is_not_a_number(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISCORD_APPLICATION_ID", "abc")
    assert main(["discord", "invite"]) == 2
    line = one_line(capsys, "studybot discord: DISCORD_APPLICATION_ID is a number")
    assert "'abc'" in line


def test_discord_invite_prints_the_url_without_the_discord_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "discord", None)  # as if discord.py were not installed
    monkeypatch.setenv("DISCORD_APPLICATION_ID", "123456789012345678")
    assert main(["discord", "invite"]) == 0
    assert capsys.readouterr().out.strip() == (
        "https://discord.com/oauth2/authorize?client_id=123456789012345678"
        "&scope=bot+applications.commands&permissions=274878024704"
    )


def test_the_invite_asks_for_what_discord_py_would(monkeypatch: pytest.MonkeyPatch) -> None:
    discord = pytest.importorskip("discord")
    from bot.cli.discord import INVITE_PERMISSIONS, INVITE_SCOPES, invite_url

    expected = discord.utils.oauth_url(
        "42", permissions=discord.Permissions(**dict.fromkeys(INVITE_PERMISSIONS, True)),
        scopes=INVITE_SCOPES,
    )  # fmt: skip
    assert invite_url("42") == expected


@pytest.mark.parametrize(
    ("argv", "prefix"),
    [
        (["run"], "studybot run: "),
        (["console"], "studybot console: "),
        (["db", "upgrade"], "studybot db upgrade: "),
        (["content", "lint"], "studybot content lint: "),
        (["regrade"], "studybot regrade: "),
    ],
)
def test_a_setting_the_bot_cannot_use_is_named_on_one_line(
    argv: list[str], prefix: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("STUDYBOT_HTTP_PORT", "seventy")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-test")
    assert main(argv) == 2
    line = one_line(capsys, prefix + "invalid setting STUDYBOT_HTTP_PORT='seventy': ")
    assert "xoxb" not in line
    assert nothing_written(tmp_path)

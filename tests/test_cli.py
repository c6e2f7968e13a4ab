"""The studybot command line: every sub-command has help, bad input exits 2 with one line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot import __version__
from bot.cli import main
from bot.db import migrate

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "content" / "packs" / "sample.yaml"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"studybot {__version__}"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["console"],
        ["run"],
        ["db"],
        ["db", "upgrade"],
        ["content"],
        ["content", "lint"],
        ["grade"],
    ],
)
def test_every_command_has_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    assert "usage: studybot" in capsys.readouterr().out


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "console" in capsys.readouterr().out


def test_db_upgrade_says_which_migrations_it_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    scripts = migrate.scripts()
    heads = scripts.get_heads()
    every = len(list(scripts.walk_revisions()))
    assert main(["db", "upgrade", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "up to date" not in out
    assert f"applied {every} migrations" in out
    assert "0001_initial (initial schema)" in out
    assert out.index("0001_initial") < out.index("0002_quiz_leaderboard") < out.index(heads[0])
    assert main(["db", "upgrade", "--db", url]) == 0
    again = capsys.readouterr().out
    assert "already up to date" in again and "applied" not in again


def test_db_upgrade_to_a_revision_applies_only_up_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert main(["db", "upgrade", "--db", url, "--revision", "0002_quiz_leaderboard"]) == 0
    out = capsys.readouterr().out
    assert "applied 2 migrations" in out and "0003" not in out
    assert main(["db", "upgrade", "--db", url]) == 0
    rest = capsys.readouterr().out
    later = len(list(migrate.scripts().walk_revisions())) - 2
    assert f"applied {later} migration" in rest and "0001_initial" not in rest


def test_run_without_credentials_points_to_the_console(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run"]) == 2
    assert "studybot console" in capsys.readouterr().err


def test_console_refuses_a_bad_clock_or_zone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    assert main(["console", "--db", db, "--clock", "tomorrow-ish"]) == 2
    assert "ISO 8601" in capsys.readouterr().err
    assert main(["console", "--db", db, "--tz", "Mars/Olympus"]) == 2
    assert "not a time zone" in capsys.readouterr().err


def test_grade_prints_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "--pack", str(SAMPLE), "--id", "sample-mig-max-instances", "7"]) == 0
    assert capsys.readouterr().out.startswith("correct")


def test_grade_refuses_unknown_ids_and_empty_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "--pack", str(SAMPLE), "--id", "no-such-id", "7"]) == 2
    assert "no question" in capsys.readouterr().err
    assert main(["grade", "--pack", str(SAMPLE), "--id", "sample-mig-max-instances", " "]) == 2
    assert main(["grade", "--pack", "/nonexistent/pack.yaml", "--id", "x", "7"]) == 2


def test_content_lint_passes_on_the_shipped_packs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "lint"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("ok: ")  # what CI greps for
    assert [line.split()[0] for line in lines[:-1]][:2] == ["behavioral", "cuda"]


def test_each_commands_overview_line_is_what_its_module_registers() -> None:
    import argparse
    import importlib

    from bot.cli import COMMANDS

    for name, help_text in COMMANDS.items():
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(f"bot.cli.{name}").register(sub)
        registered = {action.dest: action.help for action in sub._choices_actions}
        assert registered == {name: help_text}


def test_the_overview_imports_no_command_module() -> None:
    import subprocess

    probe = (
        "import sys, contextlib, io\n"
        "from bot.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert 'regrade' in out.getvalue()\n"
        "heavy = [m for m in ('sqlalchemy', 'yaml', 'slack_bolt', 'discord', 'bot.cli.console')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_a_command_gets_its_full_parser_and_the_others_stay_listed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    assert "--pack" in capsys.readouterr().out

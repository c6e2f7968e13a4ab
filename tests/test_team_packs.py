"""A team's own packs: STUDYBOT_PACKS adds directories of packs to the bank that ships inside
the package; lint checks them, import writes there, and the bot refuses an empty bank."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.bootstrap import bootstrap
from bot.cli import main
from bot.config import Settings, load_settings
from bot.core import content
from bot.core.bank import QuestionBank
from bot.core.content import PACKS_DIR, load_pack, pack_files
from bot.core.errors import ConfigError, ContentError

TEAM_PACK = """\
pack: team-cluster
title: Our cluster
questions:
  - id: team-cluster-queue
    topic: onboarding
    role: [eng]
    difficulty: 1
    kind: choice
    prompt: "Which Kueue LocalQueue do interns submit their training jobs to?"
    choices: ["interns", "research", "prod"]
    answer: "interns"
    explanation: "Interns share the interns LocalQueue, borrowing from research when it is idle."
    sources: ["https://wiki.example.org/cluster/queues"]
"""
RED_LIST = "What is the answer to everything?:\n  - 42\n"


@pytest.fixture(autouse=True)
def _in_an_empty_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def team_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "team-packs"
    directory.mkdir()
    (directory / "team-cluster.yaml").write_text(TEAM_PACK)
    return directory


def bundled_count() -> int:
    return sum(len(load_pack(p).questions) for p in pack_files(PACKS_DIR))


def test_the_setting_is_a_list_of_directories_like_path(tmp_path: Path) -> None:
    value = os.pathsep.join([str(tmp_path / "a"), " ", str(tmp_path / "b")])
    assert Settings(studybot_packs=value).pack_dirs == (tmp_path / "a", tmp_path / "b")
    assert Settings().pack_dirs == ()


def test_the_bank_is_the_bundled_packs_plus_the_teams(team_dir: Path) -> None:
    bank = QuestionBank.load((team_dir,))
    assert len(bank) == bundled_count() + 1
    assert bank.get("team-cluster-queue") is not None
    assert "onboarding" in bank.topics()
    assert bank.get("sample-mig-max-instances") is not None


def test_the_running_bot_asks_the_teams_questions_too(
    team_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("STUDYBOT_PACKS", str(team_dir))
    monkeypatch.setenv("STUDYBOT_DATABASE_URL", f"sqlite:///{tmp_path / 'bot.db'}")
    app = bootstrap(load_settings())
    try:
        assert app.services.bank.get("team-cluster-queue") is not None
    finally:
        app.close()


def test_a_directory_that_does_not_exist_is_named(tmp_path: Path) -> None:
    with pytest.raises(ContentError) as info:
        QuestionBank.load((tmp_path / "nope",))
    assert info.value.problems == [
        f"{tmp_path / 'nope'}: no such directory (named in STUDYBOT_PACKS)"
    ]


def test_a_team_pack_may_not_reuse_a_bundled_id(team_dir: Path) -> None:
    text = TEAM_PACK.replace("id: team-cluster-queue", "id: sample-mig-max-instances")
    (team_dir / "team-cluster.yaml").write_text(text)
    with pytest.raises(ContentError, match="sample-mig-max-instances"):
        QuestionBank.load((team_dir,))


def test_the_bot_refuses_to_start_with_an_empty_bank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-packs"
    empty.mkdir()
    monkeypatch.setattr(content, "PACKS_DIR", empty)  # an install whose packs went missing
    with pytest.raises(ConfigError, match="no questions to ask"):
        QuestionBank.load()
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-test")
    for argv, prefix in ((["run"], "studybot run: "), (["console"], "studybot console: ")):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1, captured.err
        assert captured.err.startswith(prefix + "there are no questions to ask: no pack in ")
        assert "STUDYBOT_PACKS" in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["no-packs"]  # no database either


def test_lint_checks_the_team_packs_with_the_bundled_ones(
    team_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STUDYBOT_PACKS", str(team_dir))
    assert main(["content", "lint"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith(f"ok: {bundled_count() + 1} questions")
    assert lines[-2].split()[0] == "team-cluster"  # each pack checked is named, the team's too
    assert lines[-2].endswith("team-cluster.yaml: 1 question, no examples")

    (team_dir / "broken.yaml").write_text(TEAM_PACK.replace('answer: "interns"', 'answer: "x"'))
    assert main(["content", "lint"]) == 1
    err = capsys.readouterr().err
    assert f"{team_dir / 'broken.yaml'}: question 'team-cluster-queue': answer 'x'" in err


def test_lint_names_a_team_directory_that_does_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STUDYBOT_PACKS", str(tmp_path / "nope"))
    assert main(["content", "lint"]) == 1
    assert "nope: no such directory (named in STUDYBOT_PACKS)" in capsys.readouterr().err


def test_import_writes_into_the_first_team_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    monkeypatch.setenv("STUDYBOT_PACKS", os.pathsep.join([str(first), str(second)]))
    (tmp_path / "trivia.yaml").write_text(RED_LIST)
    argv = ["content", "import", "--from", "red", str(tmp_path / "trivia.yaml"), "--pack", "fun"]
    assert main(argv) == 0
    assert f"into {first / 'fun.yaml'}" in capsys.readouterr().out
    assert load_pack(first / "fun.yaml").pack == "fun"
    assert not second.exists()
    bank = QuestionBank.load((first,))
    assert len(bank) == bundled_count() + 1


def test_import_without_a_team_directory_or_out_says_where_to_put_packs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "trivia.yaml").write_text(RED_LIST)
    argv = ["content", "import", "--from", "red", str(tmp_path / "trivia.yaml"), "--pack", "fun"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert "Set STUDYBOT_PACKS" in captured.err and "--out PATH" in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trivia.yaml"]
    assert not (PACKS_DIR / "fun.yaml").exists()


def test_import_refuses_a_pack_that_reuses_an_id_of_the_bank(
    team_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("STUDYBOT_PACKS", str(team_dir))
    (tmp_path / "trivia.yaml").write_text(RED_LIST)
    argv = ["content", "import", "--from", "red", str(tmp_path / "trivia.yaml"), "--pack", "sample"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "pack id 'sample' is also used by" in err and "nothing was written" in err
    assert sorted(p.name for p in team_dir.iterdir()) == ["team-cluster.yaml"]


def test_export_covers_the_team_packs(
    team_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STUDYBOT_PACKS", str(team_dir))
    assert main(["content", "export", "--to", "csv", "--pack", "team-cluster"]) == 0
    assert "team-cluster-queue" in capsys.readouterr().out

"""``studybot grade`` with the judge configured: the same output, plus ``grader`` and
``model`` where the judge took part; a bad judge setting is bad input (exit 2)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from bot.cli.grade import run_grade
from bot.core.grading import GRADER_VERSION
from bot.core.grading.judge import JUDGE_VERSION
from tests.fake_judge import closed_port, fake_judge
from tests.test_grading_cli import parse
from tests.test_judge import BORDERLINE, GOOD, MODEL

PACK = str(Path(__file__).parent / "data" / "judge" / "pack.yaml")
KEYS = {"score", "verdict", "feedback", "matched", "missed"}


def _configure(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("STUDYBOT_JUDGE_URL", url)
    monkeypatch.setenv("STUDYBOT_JUDGE_MODEL", MODEL)


def test_json_adds_the_grader_and_model_when_the_judge_took_part(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_judge(lambda body: GOOD) as fake:
        _configure(monkeypatch, fake.url)
        code = run_grade(parse("--pack", PACK, "--id", "judge-mig-vs-ts", "--json", BORDERLINE))
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(data) == KEYS | {"grader", "model"}
    assert (data["verdict"], data["grader"], data["model"]) == (
        "correct",
        f"{GRADER_VERSION}+{JUDGE_VERSION}",
        MODEL,
    )


def test_jsonl_asks_once_per_distinct_unsure_answer_and_keeps_the_rest_as_before(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        {"id": "judge-mig-vs-ts", "answer": BORDERLINE, "n": 1},
        {"id": "judge-mig-vs-ts", "answer": BORDERLINE, "n": 2},
        {"id": "judge-mps-max-clients", "answer": "48", "n": 3},
    ]
    stdin = io.StringIO("".join(json.dumps(line) + "\n" for line in lines))
    with fake_judge(lambda body: GOOD) as fake:
        _configure(monkeypatch, fake.url)
        monkeypatch.setattr(sys, "stdin", stdin)
        assert run_grade(parse("--pack", PACK, "--jsonl", "-")) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(fake.requests) == 1
    assert [(o["n"], o["verdict"], o.get("model")) for o in out] == [
        (1, "correct", MODEL),
        (2, "correct", MODEL),
        (3, "correct", None),
    ]


def test_with_the_judge_down_the_output_is_the_rules_own(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _configure(monkeypatch, f"http://127.0.0.1:{closed_port()}/v1")
    code = run_grade(parse("--pack", PACK, "--id", "judge-mig-vs-ts", "--json", BORDERLINE))
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and set(data) == KEYS and data["verdict"] == "partial"


def test_a_bad_judge_setting_exits_two_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STUDYBOT_JUDGE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("STUDYBOT_JUDGE_KEY", "sk-never-shown")
    code = run_grade(parse("--pack", PACK, "--id", "judge-mig-vs-ts", BORDERLINE))
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and "STUDYBOT_JUDGE_MODEL" in captured.err
    assert "sk-never-shown" not in captured.err

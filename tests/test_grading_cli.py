"""``studybot grade``: one answer, --json, and --jsonl streams, as the grading contract says."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest

from bot.cli.grade import grade_lines, register, run_grade
from bot.core.content import load_pack

PACK_PATH = Path(__file__).parent / "data" / "grading" / "questions.yaml"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser.parse_args(["grade", *argv])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run_grade(parse(*argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_one_answer_prints_the_verdict_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--pack", str(PACK_PATH), "--id", "gl-short-mps", "MPS")
    assert code == 0
    assert out.startswith("correct (1.00): ")


def test_json_has_score_verdict_and_feedback(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--pack", str(PACK_PATH), "--id", "gl-num-a100-instances", "--json", "70"
    )
    data = json.loads(out)
    assert code == 0
    assert data["verdict"] == "incorrect" and data["score"] == 0
    assert "matched" not in data and data["feedback"]


def test_json_of_an_open_question_has_matched_and_missed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        "--pack",
        str(PACK_PATH),
        "--id",
        "gl-open-nvlink-myth",
        "--json",
        "900",
        "GB/s",
        "per",
        "GPU",
    )
    data = json.loads(out)
    assert code == 0
    assert data["matched"] == ["Each H100 has 900 GB/s of NVLink 4 (18 links)"]
    assert len(data["missed"]) == 2
    assert set(data) == {"score", "verdict", "feedback", "matched", "missed"}


@pytest.mark.parametrize(
    "argv",
    [
        ("--pack", "no/such/pack.yaml", "--id", "x", "y"),
        ("--pack", str(PACK_PATH), "--id", "no-such-id", "y"),
        ("--pack", str(PACK_PATH), "--id", "gl-short-mps", "   "),
        ("--pack", str(PACK_PATH), "--id", "gl-short-mps"),
        ("--pack", str(PACK_PATH), "MPS"),
    ],
)
def test_bad_input_exits_two_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("studybot grade: ")


def test_jsonl_grades_every_line_and_passes_other_fields_through() -> None:
    pack = load_pack(PACK_PATH)
    lines = [
        {"id": "gl-short-mps", "answer": "MPS", "user": "ada", "n": 1},
        {"id": "gl-open-gang", "answer": "Use Kueue."},
        {"id": "nope", "answer": "x"},
        {"id": "gl-short-mps", "answer": ""},
    ]
    stream = io.StringIO("\n".join(json.dumps(x) for x in lines) + "\n\nnot json\n[1]\n")
    out = io.StringIO()
    assert grade_lines(pack, stream, out) == 0
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(rows) == 6
    assert rows[0]["user"] == "ada" and rows[0]["n"] == 1 and rows[0]["verdict"] == "correct"
    assert "matched" in rows[1] and "missed" in rows[1]
    assert "error" in rows[2] and "error" in rows[3]
    assert all("error" in r for r in rows[4:])


def test_jsonl_reads_standard_input_with_a_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        sys, "stdin", io.StringIO('{"id": "gl-num-a100-instances", "answer": "seven"}\n')
    )
    code, out, _ = run(capsys, "--pack", str(PACK_PATH), "--jsonl", "-")
    assert code == 0
    assert json.loads(out)["verdict"] == "correct"


def test_jsonl_reads_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "gl-short-mps", "answer": "MSP"}\n', encoding="utf-8")
    code, out, _ = run(capsys, "--pack", str(PACK_PATH), "--jsonl", str(path))
    assert code == 0
    assert json.loads(out)["verdict"] == "incorrect"


def test_jsonl_of_a_missing_file_exits_two(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "--pack", str(PACK_PATH), "--jsonl", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in err


def test_the_studybot_command_line_reaches_grade(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    assert main(["grade", "--pack", str(PACK_PATH), "--id", "gl-short-mps", "--json", "MPS"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "correct"


def test_grade_honours_the_reference_backend_setting_as_run_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.core.grading import reference

    monkeypatch.setenv("STUDYBOT_REFERENCE_BACKEND", "lexical")
    try:
        code, out, _ = run(capsys, "--pack", str(PACK_PATH), "--id", "gl-short-mps", "MPS")
        assert code == 0 and out.startswith("correct")
        assert reference.reference_backend() == "lexical"
    finally:
        reference.set_reference_backend("auto")

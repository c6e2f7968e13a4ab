"""``studybot grade``: one answer, --json, and --jsonl streams, as the grading contract says."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli.grade import grade_lines, register, run_grade
from bot.core.content import PACKS_DIR, load_pack

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


def test_a_bundled_pack_is_named_by_its_id_as_content_lint_names_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    by_id = run(capsys, "--pack", "mig", "--id", "mig-first-architecture", "--json", "Ampere")
    by_file = run(
        capsys,
        "--pack",
        str(PACKS_DIR / "mig.yaml"),
        "--id",
        "mig-first-architecture",
        "--json",
        "Ampere",
    )
    assert by_id == by_file
    assert by_id[0] == 0 and json.loads(by_id[1])["verdict"] == "correct"


def test_a_pack_of_studybot_packs_is_named_by_its_id_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "ours.yaml").write_text(
        PACK_PATH.read_text(encoding="utf-8").replace("pack: grading-labelled", "pack: ours"),
        encoding="utf-8",
    )
    monkeypatch.setenv("STUDYBOT_PACKS", str(tmp_path))
    code, out, _ = run(capsys, "--pack", "ours", "--id", "gl-short-mps", "MPS")
    assert code == 0 and out.startswith("correct")


def test_an_unknown_pack_id_is_one_line_listing_the_pack_ids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "--pack", "mgi", "--id", "mig-first-architecture", "Ampere")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("studybot grade: unknown pack mgi: name a pack id (")
    assert all(f" {pack}," in err or f"({pack}," in err for pack in ("behavioral", "mig", "myths"))


def test_jsonl_lines_without_an_answer_or_an_id_name_their_line_and_the_rest_are_graded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pack = load_pack(PACK_PATH)
    stream = io.StringIO(
        '{"id": "gl-short-mps"}\n'
        "\n"
        '{"answer": "MPS", "user": "ada"}\n'
        '{"id": "gl-short-mps", "answer": "MPS"}\n'
        "{}\n"
    )
    out = io.StringIO()
    assert grade_lines(pack, stream, out) == 0
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rows[0] == {"id": "gl-short-mps", "error": "line 1: no answer field"}
    assert rows[1] == {"answer": "MPS", "user": "ada", "error": "line 3: no id field"}
    assert rows[2]["verdict"] == "correct"
    assert rows[3] == {"error": "line 5: no id and no answer field"}
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "studybot grade: line 1: no answer field",
        "studybot grade: line 3: no id field",
        "studybot grade: line 5: no id and no answer field",
    ]


def test_jsonl_grades_a_disputes_export_and_keeps_its_own_score_under_given() -> None:
    pack = load_pack(PACK_PATH)
    exported = {
        "id": "gl-short-mps",
        "answer": "MSP",
        "label": "correct",
        "score": 1.0,
        "graded": "incorrect",
        "graded_score": 0.0,
        "grader": "1.3",
    }
    out = io.StringIO()
    grade_lines(pack, io.StringIO(json.dumps(exported) + "\n"), out)
    row = json.loads(out.getvalue())
    assert row["score"] == 0 and row["verdict"] == "incorrect" and row["feedback"]
    assert row["given"] == {"score": 1.0}
    assert {k: row[k] for k in exported if k != "score"} == {
        k: v for k, v in exported.items() if k != "score"
    }


_FIELD_NAMES = st.sampled_from(
    [
        "score",
        "verdict",
        "feedback",
        "matched",
        "missed",
        "answered",
        "grade",
        "given",
        "error",
        "user",
        "n",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_FIELD_NAMES, st.one_of(st.integers(), st.text(max_size=5), st.none())))
def test_jsonl_output_is_the_input_plus_the_grade_losing_nothing(extra: dict[str, object]) -> None:
    pack = load_pack(PACK_PATH)
    item = {**extra, "id": "gl-open-nvlink-myth", "answer": "900 GB/s per GPU"}
    out = io.StringIO()
    grade_lines(pack, io.StringIO(json.dumps(item) + "\n"), out)
    row = json.loads(out.getvalue())
    grade_fields = {"score", "verdict", "feedback", "matched", "missed"}
    assert grade_fields <= set(row) and row["verdict"] in {"correct", "partial", "incorrect"}
    replaced = {k: v for k, v in item.items() if k in grade_fields}
    kept = {k: v for k, v in item.items() if k not in grade_fields}
    assert {k: row[k] for k in kept} == kept
    given = [k for k in row if k not in item and k.startswith("given")]
    if replaced:
        assert len(given) == 1 and row[given[0]] == replaced
    else:
        assert not given and set(row) == set(item) | grade_fields

"""Export to Anki text and CSV; CSV export then import gives the same questions."""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path

import pytest
import yaml

from bot.content_io import ImportOptions, export_packs, import_file, select_packs
from bot.content_io.anki import parse_anki_text
from bot.content_io.common import assemble
from bot.content_io.csv_io import COLUMNS, join_list, parse_csv, split_list, write_csv
from bot.content_io.export import ANKI_HEADERS, anki_note, write_anki_text
from bot.core.content import (
    PACKS_DIR,
    Pack,
    Question,
    load_pack,
    load_packs,
    pack_files,
    parse_pack,
)
from bot.core.errors import ContentError, UserError
from bot.core.lint import lint_paths

EVERY_KIND = {
    "pack": "kinds",
    "title": "Every kind",
    "questions": [
        {
            "id": "kinds-choice",
            "topic": "mig",
            "role": ["pm", "eng"],
            "difficulty": 1,
            "kind": "choice",
            "prompt": 'Which one, "quoted", with a comma?',
            "choices": ["MIG | slices", "MPS, shared", "time\\slicing"],
            "answer": "MPS, shared",
            "explanation": "A multi-line\nexplanation, with\ttab.",
            "sources": ["https://example.org/a", "https://example.org/b"],
            "tags": ["tag one", "two"],
        },
        {
            "id": "kinds-multi",
            "topic": "mps",
            "role": ["eng"],
            "difficulty": 2,
            "kind": "multi",
            "prompt": "Which two?",
            "choices": ["a", "b", "c"],
            "answer": ["a", "c"],
            "explanation": "a and c.",
            "sources": ["https://example.org/m"],
        },
        {
            "id": "kinds-numeric",
            "topic": "interconnect",
            "role": ["pm"],
            "difficulty": 3,
            "kind": "numeric",
            "prompt": "How fast is NVLink 4 per GPU?",
            "answer": 900.5,
            "tolerance": 0.05,
            "unit": "GB/s",
            "units": ["TB/s"],
            "explanation": "About 900 GB/s.",
            "sources": ["https://example.org/n"],
        },
        {
            "id": "kinds-short",
            "topic": "mps",
            "role": ["pm", "eng"],
            "difficulty": 1,
            "kind": "short",
            "prompt": "MPS stands for?",
            "answers": ["Multi-Process Service", "multi|process service"],
            "explanation": "MPS.",
            "sources": ["https://example.org/s"],
        },
        {
            "id": "kinds-open",
            "topic": "system-design",
            "role": ["eng"],
            "difficulty": 3,
            "kind": "open",
            "prompt": "Line one\nline two: design it.",
            "rubric": [
                {"point": "Isolation", "weight": 2, "any": ["isolation", "re:noisy\\s+neighbou?r"]},
                {"point": "Cost", "weight": 1.5, "any": ["cost"], "none": ["no cost"]},
            ],
            "model_answer": "Isolation, and cost.",
            "pass_score": 0.7,
            "explanation": "Both.",
            "sources": ["https://example.org/o"],
        },
        {
            "id": "kinds-open-reference",
            "topic": "product",
            "role": ["pm"],
            "difficulty": 2,
            "kind": "open",
            "prompt": "Explain MIG to a customer.",
            "model_answer": "It splits one GPU into isolated slices.",
            "explanation": "Reference only.",
            "sources": ["https://example.org/r"],
        },
    ],
}


def _comparable(q: Question) -> Question:
    return dataclasses.replace(q, pack="", content_hash="")


def _reimport_csv(text: str) -> list[Question]:
    imported = parse_csv(text, "export.csv")
    data, _origins = assemble(imported, ImportOptions("roundtrip"))
    return list(parse_pack(data, "roundtrip").questions)


def _every_kind_pack() -> Pack:
    return parse_pack(EVERY_KIND, "kinds")


def test_csv_round_trip_keeps_every_kind_and_field() -> None:
    pack = _every_kind_pack()
    text = export_packs([pack], "csv")
    assert text.splitlines()[0] == ",".join(COLUMNS)
    again = _reimport_csv(text)
    assert [_comparable(q) for q in again] == [_comparable(q) for q in pack.questions]


def test_csv_round_trip_of_every_shipped_pack() -> None:
    packs = load_packs(pack_files(PACKS_DIR))
    questions = [q for p in packs for q in p.questions]
    assert questions
    again = _reimport_csv(write_csv(questions))
    assert [_comparable(q) for q in again] == [_comparable(q) for q in questions]


def test_csv_round_trip_through_the_importer_writes_a_pack_that_passes_lint(
    tmp_path: Path,
) -> None:
    sample = load_pack(PACKS_DIR / "sample.yaml")
    exported = tmp_path / "sample.csv"
    exported.write_text(export_packs([sample], "csv"), encoding="utf-8")
    out = tmp_path / "packs"
    result = import_file("csv", exported, ImportOptions("sample-copy"), packs_dir=out)
    assert result.path == out / "sample-copy.yaml"
    assert lint_paths([result.path]) == ([], len(sample.questions))
    copy = load_pack(result.path)
    assert [_comparable(q) for q in copy.questions] == [_comparable(q) for q in sample.questions]


def test_list_cells_escape_the_separator_and_backslashes() -> None:
    items = ["a|b", "c\\d", " e ", "f\\|g"]
    assert split_list(join_list(items)) == ["a|b", "c\\d", "e", "f\\|g"]
    assert split_list("C:\\temp|x") == ["C:\\temp", "x"]
    assert split_list("") == []


def test_anki_text_has_anki_headers_and_quotes_multi_line_fields() -> None:
    pack = _every_kind_pack()
    text = write_anki_text(pack.questions)
    lines = text.splitlines()
    assert lines[: len(ANKI_HEADERS)] == [
        "#separator:tab",
        "#html:false",
        "#columns:Front\tBack\tTags",
        "#tags column:3",
    ]
    body = "\n".join(lines[len(ANKI_HEADERS) :]) + "\n"
    rows = list(csv.reader(io.StringIO(body, newline=""), delimiter="\t"))
    assert len(rows) == len(pack.questions)
    assert all(len(row) == 3 for row in rows)
    front, back, tags = rows[0]
    assert (
        front
        == 'Which one, "quoted", with a comma?\n\nA) MIG | slices\nB) MPS, shared\nC) time\\slicing'
    )
    assert back.startswith("B) MPS, shared\n\nA multi-line\nexplanation, with\ttab.")
    assert back.endswith("Sources: https://example.org/a https://example.org/b")
    assert tags == "kinds mig tag_one two"
    numeric_back = rows[2][1]
    assert numeric_back.startswith("900.5 GB/s")
    short_back = rows[3][1]
    assert short_back.startswith("Multi-Process Service\n(also accepted: multi|process service)")
    open_back = rows[4][1]
    assert open_back.startswith("Isolation, and cost.\n\nKey points: Isolation; Cost")


def test_anki_text_export_reads_back_with_the_anki_importer() -> None:
    pack = _every_kind_pack()
    imported = parse_anki_text(write_anki_text(pack.questions), "export.txt")
    assert len(imported.drafts) == len(pack.questions)
    for draft, q in zip(imported.drafts, pack.questions, strict=True):
        front, back, tags = anki_note(q)
        assert draft.fields["prompt"] == front
        assert draft.fields["model_answer"] == back.replace("\t", " ")  # tabs read as spaces
        assert draft.fields["tags"] == tags.split()


def _packs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "packs"
    folder.mkdir()
    (folder / "kinds.yaml").write_text(yaml.safe_dump(EVERY_KIND), encoding="utf-8")
    (folder / "broken.yaml").write_text("pack: broken\n", encoding="utf-8")
    return folder


def test_select_packs_by_id_or_file_and_unknown_names(tmp_path: Path) -> None:
    folder = _packs_dir(tmp_path)
    assert [p.pack for p in select_packs(["kinds"], folder)] == ["kinds"]
    by_file = select_packs([str(PACKS_DIR / "sample.yaml")], folder)
    assert [p.pack for p in by_file] == ["sample"]
    with pytest.raises(
        UserError, match=r"unknown pack nope: name a pack id \(kinds\) or a pack file"
    ):
        select_packs(["nope"], folder)
    with pytest.raises(ContentError):  # every pack, and one of them is broken
        select_packs([], folder)


def test_cli_export_to_a_file_and_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    folder = _packs_dir(tmp_path)
    out = tmp_path / "kinds.csv"
    code = main(
        [
            "content",
            "export",
            "--to",
            "csv",
            "--pack",
            "kinds",
            "--out",
            str(out),
            "--packs-dir",
            str(folder),
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.strip() == f"exported 6 questions from 1 pack to {out} (CSV)"
    assert len(_reimport_csv(out.read_text(encoding="utf-8"))) == 6

    code = main(
        ["content", "export", "--to", "anki", "--pack", "kinds", "--packs-dir", str(folder)]
    )
    assert code == 0
    assert capsys.readouterr().out.startswith("#separator:tab\n#html:false\n")

    code = main(["content", "export", "--to", "anki", "--pack", "nope", "--packs-dir", str(folder)])
    assert code == 2
    assert "studybot content export: unknown pack nope" in capsys.readouterr().err

    code = main(["content", "export", "--to", "csv", "--packs-dir", str(folder)])
    err = capsys.readouterr().err
    assert code == 2
    assert "the packs do not load" in err and "broken.yaml" in err

"""Question packs as CSV, one question per row; the same layout is read and written.

Columns (a header row names them; order is free; only ``prompt`` and
``answer`` are required, empty cells take the import defaults):

============  =================================================================
id            question id ``[a-z0-9-]+``; empty: made from the pack and prompt
topic         topic id; empty: ``--topic`` or the pack name
role          ``pm``, ``eng`` or ``pm|eng``; empty: ``pm|eng``
difficulty    1, 2, 3 (or easy, medium, hard); empty: 2
kind          choice, multi, numeric, short, open; empty: choice when there
              are choices, else short
prompt        the question
choices       choice/multi: the choices, ``|``-separated
answer        choice: the right choice (or its letter A, B, …);
              multi: the right choices, ``|``-separated;
              numeric: the number; short: accepted answers, ``|``-separated;
              open: the model answer (may be empty when there is a rubric)
explanation   shown with the answer; empty: "Imported from CSV file …"
sources       http(s) URLs, ``|``-separated; empty: ``--source URL``
tolerance     numeric: relative tolerance (0.05 = 5%); empty: 0
unit          numeric: the unit
units         numeric: other accepted units, ``|``-separated
rubric        open: the rubric as JSON, ``[{"point": …, "weight": …, "any": […]}]``
pass_score    open: 0..1; empty: 0.6
tags          free tags, ``|``-separated
============  =================================================================

In ``|``-separated cells a literal ``|`` is written ``\\|`` and a backslash
``\\\\``. Files are UTF-8 (a byte-order mark is fine), comma-separated,
quoted as spreadsheets do (``"`` doubled inside quoted cells).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bot.content_io.common import Draft, Imported, read_text, short_text
from bot.core.content import DEFAULT_PASS_SCORE, Question
from bot.core.errors import ContentError

LABEL = "CSV"
COLUMNS: tuple[str, ...] = (
    "id",
    "topic",
    "role",
    "difficulty",
    "kind",
    "prompt",
    "choices",
    "answer",
    "explanation",
    "sources",
    "tolerance",
    "unit",
    "units",
    "rubric",
    "pass_score",
    "tags",
)
REQUIRED: tuple[str, ...] = ("prompt", "answer")
_DIFFICULTY_WORDS = {"easy": 1, "medium": 2, "hard": 3}


def join_list(items: Iterable[str]) -> str:
    """``|``-join, escaping ``\\`` and ``|`` inside items."""
    return "|".join(i.replace("\\", "\\\\").replace("|", "\\|") for i in items)


def split_list(cell: str) -> list[str]:
    """Split a ``|``-separated cell (``\\|``, ``\\\\`` escaped); items stripped, empties dropped."""
    items: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(cell):
        ch = cell[i]
        if ch == "\\" and i + 1 < len(cell) and cell[i + 1] in "\\|":
            current.append(cell[i + 1])
            i += 2
            continue
        if ch == "|":
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def _number(text: str) -> int | float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text!r} is not a finite number")
    whole = value.is_integer() and "." not in text and "e" not in text.lower()
    return int(value) if whole else value


def format_number(value: float) -> str:
    """A number as short text that reads back to the same value."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _row_fields(row: dict[str, str], where: str, problems: list[str]) -> dict[str, Any] | None:
    def cell(key: str) -> str:
        return (row.get(key) or "").strip()

    before = len(problems)
    f: dict[str, Any] = {}
    if cell("id"):
        f["id"] = cell("id")
    if cell("topic"):
        f["topic"] = cell("topic")
    if cell("role"):
        f["role"] = [r for r in re.split(r"[|,\s]+", cell("role").lower()) if r]
    if cell("difficulty"):
        text = cell("difficulty").lower()
        if text in _DIFFICULTY_WORDS:
            f["difficulty"] = _DIFFICULTY_WORDS[text]
        elif text in ("1", "2", "3"):
            f["difficulty"] = int(text)
        else:
            problems.append(f"{where}: difficulty {text!r} must be 1, 2 or 3")
    choices = split_list(row.get("choices") or "")
    answer = cell("answer")
    kind = cell("kind").lower() or ("choice" if choices else "short")
    f["kind"] = kind
    f["prompt"] = cell("prompt")
    if choices:
        f["choices"] = choices
    if kind == "choice":
        if len(answer) == 1 and answer.upper().isalpha() and answer not in choices:
            index = ord(answer.upper()) - ord("A")
            if 0 <= index < len(choices):
                answer = choices[index]
        f["answer"] = answer
    elif kind == "multi":
        f["answer"] = split_list(answer)
    elif kind == "numeric":
        try:
            f["answer"] = _number(answer)
        except ValueError:
            problems.append(f"{where}: answer {short_text(answer)!r} is not a number")
        try:
            f["tolerance"] = _number(cell("tolerance")) if cell("tolerance") else 0
        except ValueError:
            problems.append(f"{where}: tolerance {cell('tolerance')!r} is not a number")
        f["unit"] = cell("unit")
        if cell("units"):
            f["units"] = split_list(cell("units"))
    elif kind == "short":
        f["answers"] = split_list(answer)
    elif kind == "open":
        if answer:
            f["model_answer"] = answer
        if cell("rubric"):
            try:
                f["rubric"] = json.loads(cell("rubric"))
            except (json.JSONDecodeError, RecursionError) as exc:
                problems.append(f"{where}: rubric is not valid JSON: {exc}")
        elif not answer:
            problems.append(f"{where}: an open question needs a model answer or a rubric")
        if cell("pass_score"):
            try:
                f["pass_score"] = _number(cell("pass_score"))
            except ValueError:
                problems.append(f"{where}: pass_score {cell('pass_score')!r} is not a number")
    else:
        problems.append(f"{where}: kind {kind!r} is not choice, multi, numeric, short or open")
    if kind in ("choice", "multi", "short") and not answer:
        problems.append(f"{where}: the answer is empty")
    if cell("explanation"):
        f["explanation"] = cell("explanation")
    if cell("sources"):
        f["sources"] = [s for s in re.split(r"[|\s]+", cell("sources")) if s]
    if cell("tags"):
        f["tags"] = split_list(cell("tags"))
    return f if len(problems) == before else None


def parse_csv(text: str, name: str) -> Imported:
    """Read questions from CSV text in the documented layout; ContentError listing every problem."""
    imported = Imported(label=LABEL, file_name=name, default_source=None)
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    problems: list[str] = []
    header: list[str] | None = None
    try:
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if header is None:
                header = [c.strip().lower() for c in cells]
                unknown = [c for c in header if c not in COLUMNS]
                if unknown:
                    problems.append(
                        f"{name}: unknown column(s) {', '.join(map(repr, unknown))}; "
                        f"the columns are {', '.join(COLUMNS)}"
                    )
                dupes = sorted({c for c in header if header.count(c) > 1 and c})
                if dupes:
                    problems.append(f"{name}: column(s) {', '.join(dupes)} appear twice")
                missing = [c for c in REQUIRED if c not in header]
                if missing:
                    problems.append(f"{name}: missing column(s) {', '.join(missing)}")
                if problems:
                    raise ContentError(problems)
                continue
            where = f"{name}: line {reader.line_num}"
            if len(cells) > len(header):
                problems.append(
                    f"{where}: {len(cells)} cells but the header names {len(header)} columns"
                )
                continue
            row = dict(zip(header, cells, strict=False))
            if row.get("prompt", "").strip():
                where = f"{where} ({short_text(row['prompt'], 40)!r})"
            else:
                problems.append(f"{where}: the prompt is empty")
                continue
            fields = _row_fields(row, where, problems)
            if fields is not None:
                imported.drafts.append(Draft(origin=where, fields=fields))
    except csv.Error as exc:
        problems.append(f"{name}: line {reader.line_num}: cannot read the row: {exc}")
    if header is None:
        problems.append(f"{name}: empty: expected a header row ({', '.join(COLUMNS)})")
    elif not problems and not imported.drafts:
        problems.append(f"{name}: no questions below the header row")
    if problems:
        raise ContentError(problems)
    return imported


def read_csv(path: Path) -> Imported:
    """Read a CSV file in the documented layout."""
    return parse_csv(read_text(path), path.name)


def question_row(q: Question) -> dict[str, str]:
    """One question as a CSV row (column -> cell) that :func:`parse_csv` reads back."""
    answer = ""
    if q.kind == "choice":
        answer = q.correct[0] if q.correct else ""
    elif q.kind == "multi":
        answer = join_list(q.correct)
    elif q.kind == "numeric":
        answer = format_number(q.value) if q.value is not None else ""
    elif q.kind == "short":
        answer = join_list(q.accepted)
    else:
        answer = q.model_answer or ""
    rubric = ""
    if q.rubric:
        points: list[dict[str, Any]] = []
        for p in q.rubric:
            point: dict[str, Any] = {"point": p.point, "weight": p.weight, "any": list(p.any)}
            if float(p.weight).is_integer():
                point["weight"] = int(p.weight)
            if p.none:
                point["none"] = list(p.none)
            points.append(point)
        rubric = json.dumps(points, ensure_ascii=False)
    numeric = q.kind == "numeric"
    return {
        "id": q.id,
        "topic": q.topic,
        "role": "|".join(q.roles),
        "difficulty": str(q.difficulty),
        "kind": q.kind,
        "prompt": q.prompt,
        "choices": join_list(q.choices),
        "answer": answer,
        "explanation": q.explanation,
        "sources": "|".join(q.sources),
        "tolerance": format_number(q.tolerance) if numeric else "",
        "unit": q.unit if numeric else "",
        "units": join_list(q.units),
        "rubric": rubric,
        "pass_score": format_number(q.pass_score)
        if q.kind == "open" and q.pass_score != DEFAULT_PASS_SCORE
        else "",
        "tags": join_list(q.tags),
    }


def write_csv(questions: Iterable[Question]) -> str:
    """Questions as CSV text: a header row with every column, then one row per question."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for q in questions:
        writer.writerow(question_row(q))
    return out.getvalue()

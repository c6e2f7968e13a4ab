"""Export question packs for other tools: Anki's plain-text import format, and CSV.

The Anki text has the headers Anki reads (``#separator:tab``, ``#html:false``,
``#columns:Front<tab>Back<tab>Tags``, ``#tags column:3``), then one note per
line: the front is the prompt (with lettered choices), the back the answer and
the explanation; tags are the pack, the topic and the question's own tags.
Fields holding tabs, quotes or newlines are quoted, as Anki expects.
The CSV is the layout :mod:`bot.content_io.csv_io` reads back.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

from bot.content_io.csv_io import write_csv
from bot.core.content import Pack, Question, load_packs, pack_files, packs_named
from bot.core.errors import UserError

FORMATS = ("anki", "csv")
ANKI_HEADERS = ("#separator:tab", "#html:false", "#columns:Front\tBack\tTags", "#tags column:3")


def _tag(text: str) -> str:
    return "_".join(text.split())


def anki_note(q: Question) -> tuple[str, str, str]:
    """(front, back, tags) of one question as an Anki note."""
    front = q.prompt
    if q.choices:
        letters = "\n".join(f"{chr(ord('A') + i)}) {c}" for i, c in enumerate(q.choices))
        front = f"{front}\n\n{letters}"
    back = q.answer_text
    if q.kind == "short" and len(q.accepted) > 1:
        back += f"\n(also accepted: {'; '.join(q.accepted[1:])})"
    if q.kind == "open" and q.rubric and q.model_answer:
        back += "\n\nKey points: " + "; ".join(p.point for p in q.rubric)
    if q.explanation and q.explanation != back:
        back = f"{back}\n\n{q.explanation}"
    if q.sources:
        back += "\n\nSources: " + " ".join(q.sources)
    tags = list(dict.fromkeys(_tag(t) for t in (q.pack, q.topic, *q.tags) if t.strip()))
    return front, back, " ".join(tags)


def write_anki_text(questions: Iterable[Question]) -> str:
    """Questions as Anki's plain-text notes format, headers first."""
    out = io.StringIO()
    out.write("\n".join(ANKI_HEADERS) + "\n")
    writer = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    for q in questions:
        writer.writerow(anki_note(q))
    return out.getvalue()


def select_packs(names: Sequence[str], directory: Path | Sequence[Path]) -> list[Pack]:
    """The packs to export: every pack of ``directory`` (one, or several: the bank's), or
    those named by id or file path (:func:`bot.core.content.packs_named`, whose errors
    it raises)."""
    directories = [directory] if isinstance(directory, Path) else list(directory)
    if not names:
        return load_packs(path for d in directories for path in pack_files(d))
    return packs_named(names, directories)


def export_packs(packs: Iterable[Pack], fmt: str) -> str:
    """Every question of ``packs`` in ``fmt`` (``anki`` or ``csv``)."""
    questions = [q for p in packs for q in p.questions]
    if fmt == "anki":
        return write_anki_text(questions)
    if fmt == "csv":
        return write_csv(questions)
    raise UserError(f"cannot export to {fmt!r}: choose one of {', '.join(FORMATS)}")

"""Anki decks: ``.apkg`` packages and Anki's "Notes in Plain Text" export.

Every note becomes an ``open`` question with only a ``model_answer``, graded
against that reference: the front (first field) is the prompt, the back
(second field) the model answer, HTML and media references removed. Cloze
notes (``{{c1::answer::hint}}``) become a prompt with blanks and a model
answer made of the deleted text.

An ``.apkg`` is a zip holding an SQLite collection: ``collection.anki21``
(Anki 2.1) or ``collection.anki2`` (older). Newer Anki writes a zstd-compressed
``collection.anki21b`` (and a placeholder ``collection.anki2``); that one is
not supported: export again with "Support older Anki versions" ticked.

The text export starts with ``#key:value`` header lines (``#separator:tab``,
``#html:true``, ``#columns:Front<tab>Back<tab>Tags``, ``#tags column:3``, …);
fields may be quoted, with doubled quotes and embedded newlines.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import sqlite3
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from bot.content_io.common import (
    MAX_INPUT_BYTES,
    Draft,
    Imported,
    decode,
    read_bytes,
    short_text,
    strip_html,
    tidy,
)
from bot.core.errors import ContentError

LABEL = "Anki deck"
DEFAULT_SOURCE = "https://apps.ankiweb.net/"
NEWER_FORMAT = (
    "this package uses the newer Anki format (collection.anki21b), which studybot cannot read: "
    'in Anki, export the deck again with "Support older Anki versions" ticked'
)
_PLACEHOLDER = "Please update to the latest Anki version"
_CLOZE = re.compile(r"\{\{c\d+::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
_SEPARATORS = {
    "tab": "\t",
    "comma": ",",
    "semicolon": ";",
    "space": " ",
    "pipe": "|",
    "colon": ":",
}
_HEADER = re.compile(r"^#([a-z ]+):(.*)$", re.IGNORECASE)


def note_to_fields(
    front: str, back: str, *, html: bool, origin: str, problems: list[str]
) -> dict[str, Any] | None:
    """The contract fields of one note (prompt, model answer, explanation) or None, noting why."""
    clean = strip_html if html else tidy
    extra = ""
    if _CLOZE.search(front):
        deleted = [clean(m.group(1)) for m in _CLOZE.finditer(front)]
        prompt = clean(_CLOZE.sub(lambda m: f"[{m.group(2)}]" if m.group(2) else "[...]", front))
        answer = "; ".join(d for d in dict.fromkeys(deleted) if d)
        extra = clean(_CLOZE.sub(lambda m: m.group(1), front))
        back_text = clean(back)
        if back_text:
            extra = f"{extra}\n\n{back_text}"
    else:
        prompt, answer = clean(front), clean(back)
    if not prompt:
        problems.append(f"{origin}: the front is empty once HTML and media are removed")
        return None
    if not answer:
        problems.append(f"{origin}: the back is empty: write the answer on the card")
        return None
    fields: dict[str, Any] = {"kind": "open", "prompt": prompt, "model_answer": answer}
    if extra:
        fields["explanation"] = extra
    return fields


# --- .apkg -----------------------------------------------------------------


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _note_types(db: sqlite3.Connection) -> dict[int, list[str]]:
    """Field names of every note type, from ``col.models`` or the newer ``fields`` table."""
    types: dict[int, list[str]] = {}
    raw = db.execute("SELECT models FROM col").fetchone()
    models = json.loads(raw[0]) if raw and raw[0] else {}
    if isinstance(models, dict):
        for mid, model in models.items():
            flds = model.get("flds", []) if isinstance(model, dict) else []
            ordered = sorted(flds, key=lambda f: f.get("ord", 0))
            types[int(mid)] = [str(f.get("name", "")) for f in ordered]
    if not types and "fields" in _tables(db):
        query = "SELECT ntid, ord, name FROM fields ORDER BY ntid, ord"
        for ntid, _ord, fname in db.execute(query):
            types.setdefault(int(ntid), []).append(str(fname))
    return types


def _deck_names(db: sqlite3.Connection) -> dict[int, str]:
    names: dict[int, str] = {}
    raw = db.execute("SELECT decks FROM col").fetchone()
    decks = json.loads(raw[0]) if raw and raw[0] else {}
    if isinstance(decks, dict):
        for did, deck in decks.items():
            if isinstance(deck, dict):
                names[int(did)] = str(deck.get("name", ""))
    if not names and "decks" in _tables(db):
        for did, name in db.execute("SELECT id, name FROM decks"):
            names[int(did)] = str(name)
    return names


def _read_collection(db: sqlite3.Connection, name: str, member: str) -> Imported:
    imported = Imported(label=LABEL, file_name=name, default_source=DEFAULT_SOURCE)
    types = _note_types(db)
    decks = _deck_names(db)
    note_deck: dict[int, int] = {}
    for nid, did in db.execute("SELECT nid, did FROM cards ORDER BY ord, id"):
        note_deck.setdefault(int(nid), int(did))
    problems: list[str] = []
    rows = db.execute("SELECT id, mid, tags, flds FROM notes ORDER BY id").fetchall()
    if member == "collection.anki2" and any(_PLACEHOLDER in str(r[3]) for r in rows):
        raise ContentError([f"{name}: {NEWER_FORMAT}"])
    for nid, mid, tags, flds in rows:
        fields = str(flds).split("\x1f")
        origin = f"{name}: note {nid} ({short_text(strip_html(fields[0]), 40)!r})"
        if int(mid) not in types:
            problems.append(f"{origin}: its note type {mid} is missing from the collection")
            continue
        back = fields[1] if len(fields) > 1 else ""
        mapped = note_to_fields(fields[0], back, html=True, origin=origin, problems=problems)
        if mapped is None:
            continue
        note_tags = str(tags or "").split()
        if note_tags:
            mapped["tags"] = note_tags
        imported.drafts.append(Draft(origin=origin, fields=mapped))
    used = {note_deck[n] for n in note_deck}
    named = sorted({decks[d] for d in used if decks.get(d)})
    if len(named) == 1:
        imported.title = named[0]
        imported.description = f"Anki deck {named[0]!r}, imported from {name}."
    if not problems and not imported.drafts:
        problems.append(f"{name}: the deck has no notes")
    if problems:
        raise ContentError(problems)
    return imported


def parse_apkg(raw: bytes, name: str) -> Imported:
    """Read the notes of an ``.apkg`` (or ``.colpkg``) package; ContentError on any problem."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ContentError([f"{name}: not an Anki package (not a zip file)"]) from exc
    with archive:
        names = set(archive.namelist())
        if "collection.anki21" in names:
            member = "collection.anki21"
        elif "collection.anki21b" in names:
            raise ContentError([f"{name}: {NEWER_FORMAT}"])
        elif "collection.anki2" in names:
            member = "collection.anki2"
        else:
            raise ContentError(
                [f"{name}: not an Anki package: no collection.anki2 or collection.anki21 inside"]
            )
        if archive.getinfo(member).file_size > MAX_INPUT_BYTES:
            raise ContentError([f"{name}: {member} is too big to import"])
        try:
            blob = archive.read(member)
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, ValueError) as exc:
            raise ContentError([f"{name}: cannot unpack {member}: {exc}"]) from exc
    with tempfile.TemporaryDirectory(prefix="studybot-anki-") as tmp:
        db_path = Path(tmp) / "collection.sqlite"
        db_path.write_bytes(blob)
        try:
            with contextlib.closing(sqlite3.connect(db_path)) as db:
                return _read_collection(db, name, member)
        except (sqlite3.Error, ValueError, TypeError, AttributeError, KeyError) as exc:
            raise ContentError(
                [f"{name}: {member} is not a readable Anki collection: {exc}"]
            ) from exc


# --- text export -------------------------------------------------------------


def _split_headers(text: str, name: str) -> tuple[dict[str, str], str, int]:
    """The ``#key:value`` headers, the body after them, and how many lines they took."""
    headers: dict[str, str] = {}
    lines = text.splitlines(keepends=True)
    count = 0
    for line in lines:
        if not line.startswith("#"):
            break
        count += 1
        match = _HEADER.match(line.rstrip("\r\n"))
        if match:
            headers[" ".join(match.group(1).lower().split())] = match.group(2)
    return headers, "".join(lines[count:]), count


def _column(headers: dict[str, str], key: str, name: str, problems: list[str]) -> int | None:
    value = headers.get(key)
    if value is None:
        return None
    value = value.strip()
    if not value.isdigit() or int(value) < 1:
        problems.append(f"{name}: header #{key}:{value} must be a column number (1, 2, …)")
        return None
    return int(value) - 1


def _guess_separator(body: str) -> str:
    first = next((line for line in body.splitlines() if line.strip()), "")
    for sep in ("\t", "|", ";", ","):
        if sep in first:
            return sep
    return "\t"


def parse_anki_text(text: str, name: str) -> Imported:
    """Read Anki's plain-text notes export; raise ContentError listing every problem."""
    headers, body, header_lines = _split_headers(text, name)
    problems: list[str] = []
    sep_value = headers.get("separator")
    if sep_value is None:
        separator = _guess_separator(body)
    else:
        key = sep_value.strip().lower()
        separator = _SEPARATORS.get(key) or (sep_value if len(sep_value) == 1 else "")
        if not separator or separator in '"\r\n':
            problems.append(
                f"{name}: #separator:{sep_value} is not one of tab, comma, semicolon, space, "
                "pipe, colon or a single character"
            )
    html_value = headers.get("html", "true").strip().lower()
    if html_value not in ("true", "false"):
        problems.append(f"{name}: #html:{html_value} must be true or false")
    html = html_value != "false"
    special = {
        key: _column(headers, f"{key} column", name, problems)
        for key in ("guid", "notetype", "deck", "tags")
    }
    if problems:
        raise ContentError(problems)
    names = [n.strip().lower() for n in headers.get("columns", "").split(separator)]
    if special["tags"] is None and "tags" in names:
        special["tags"] = names.index("tags")
    taken = {i for i in special.values() if i is not None}
    global_tags = headers.get("tags", "").split()

    imported = Imported(label=LABEL, file_name=name, default_source=DEFAULT_SOURCE)
    reader = csv.reader(io.StringIO(body, newline=""), delimiter=separator, strict=False)
    line = header_lines + 1
    try:
        for row in reader:
            start, line = line, header_lines + reader.line_num + 1
            if not any(cell.strip() for cell in row):
                continue
            field_cols = [i for i in range(len(row)) if i not in taken]
            front_col = names.index("front") if "front" in names else None
            back_col = names.index("back") if "back" in names else None
            if front_col is None or front_col in taken:
                front_col = field_cols[0] if field_cols else None
            if back_col is None or back_col in taken:
                rest = [i for i in field_cols if i != front_col]
                back_col = rest[0] if rest else None
            front = row[front_col] if front_col is not None and front_col < len(row) else ""
            back = row[back_col] if back_col is not None and back_col < len(row) else ""
            origin = f"{name}: line {start} ({short_text(strip_html(front), 40)!r})"
            mapped = note_to_fields(front, back, html=html, origin=origin, problems=problems)
            if mapped is None:
                continue
            tags = list(global_tags)
            tag_col = special["tags"]
            if tag_col is not None and tag_col < len(row):
                tags.extend(row[tag_col].split())
            if tags:
                mapped["tags"] = list(dict.fromkeys(tags))
            imported.drafts.append(Draft(origin=origin, fields=mapped))
    except csv.Error as exc:
        problems.append(f"{name}: line {line}: cannot read the row: {exc}")
    if not problems and not imported.drafts:
        problems.append(f"{name}: no notes found (expected one note per line: front, back)")
    if problems:
        raise ContentError(problems)
    return imported


def looks_like_zip(raw: bytes) -> bool:
    """True when ``raw`` starts like a zip archive (an ``.apkg``)."""
    return raw[:4] in (b"PK\x03\x04", b"PK\x05\x06")


def read_anki(path: Path) -> Imported:
    """Read an ``.apkg``/``.colpkg`` package or an Anki text export, whichever ``path`` holds."""
    raw = read_bytes(path)
    if looks_like_zip(raw) or path.suffix.lower() in (".apkg", ".colpkg"):
        return parse_apkg(raw, path.name)
    return parse_anki_text(decode(raw, path.name), path.name)

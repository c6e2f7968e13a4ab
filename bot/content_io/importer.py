"""Import a foreign file as a question pack: read, fill defaults, validate, lint, then write.

Nothing is written unless the pack passes ``parse_pack`` and the content lint
(alone, and beside the packs already in the destination folder, so that ids do
not collide). Every problem is reported at once, each pointing back to where
the question came from in the source file.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bot.content_io.anki import read_anki
from bot.content_io.common import Imported, ImportOptions, assemble
from bot.content_io.csv_io import read_csv
from bot.content_io.opentdb import read_opentdb
from bot.content_io.red import read_red
from bot.core.content import PACKS_DIR, TOPICS, Pack, load_pack, pack_files, parse_pack
from bot.core.errors import ContentError, UserError
from bot.core.lint import lint_paths, problems_beside

READERS: dict[str, Callable[[Path], Imported]] = {
    "red": read_red,
    "anki": read_anki,
    "opentdb": read_opentdb,
    "csv": read_csv,
}
FORMATS: tuple[str, ...] = tuple(READERS)
_QUESTION_ID = re.compile(r"question '([a-z0-9-]+)'")


@dataclass(frozen=True, slots=True)
class ImportResult:
    """A validated pack, its YAML text, and where it was written (None: not written)."""

    pack: Pack
    text: str
    path: Path | None
    source_label: str


class _PackDumper(yaml.SafeDumper):
    """Readable pack YAML: multi-line strings as ``|`` blocks, short scalar lists inline."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    inline = all(isinstance(v, str) and "\n" not in v for v in value) and (
        sum(len(str(v)) for v in value) < 60
    )
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=inline)


_PackDumper.add_representer(str, _str)
_PackDumper.add_representer(list, _list)


def dump_pack(data: dict[str, Any], comment: str = "") -> str:
    """Pack data as YAML text, with an optional ``#`` comment line first."""
    body = yaml.dump(
        data, Dumper=_PackDumper, sort_keys=False, allow_unicode=True, width=100, indent=2
    )
    return (f"# {comment}\n" if comment else "") + body


def read_source(fmt: str, path: Path) -> Imported:
    """Read ``path`` with the importer for ``fmt``; UserError for an unknown format."""
    reader = READERS.get(fmt)
    if reader is None:
        raise UserError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    return reader(path)


def _explain(problems: list[str], origins: dict[str, str]) -> list[str]:
    """Point each problem about a question back to where it came from in the source file."""
    out = []
    for line in problems:
        ids = [m.group(1) for m in _QUESTION_ID.finditer(line)]
        origin = next((origins[i] for i in ids if i in origins), None)
        out.append(f"{line} [from {origin}]" if origin else line)
    return list(dict.fromkeys(out))


def is_shipped(target: Path) -> bool:
    """True when ``target`` is a pack file of ``content/packs`` (where the stricter rules apply)."""
    try:
        return target.resolve().parent == PACKS_DIR.resolve()
    except OSError:
        return False


def shipped_problems(pack: Pack, target: Path, options: ImportOptions) -> list[str]:
    """The rules the lint adds for packs shipped in ``content/packs``, said as what to pass.

    The lint only applies them to files in ``content/packs``, and the pack is
    linted from a temporary copy, so they are checked here too.
    """
    problems: list[str] = []
    if target.stem != pack.pack:
        problems.append(
            f"{target}: the file name must match the pack id {pack.pack!r}: "
            f"name it {pack.pack}.yaml or leave out --out"
        )
    bad_topics = sorted({q.topic for q in pack.questions if q.topic not in TOPICS})
    if bad_topics:
        hint = "pass --topic TOPIC" if options.topic is None else "use another --topic"
        problems.append(
            f"{target}: topic {', '.join(bad_topics)} is not a shipped topic; {hint} "
            f"({', '.join(TOPICS)}), or --out PATH to write the pack outside {PACKS_DIR}"
        )
    for q in pack.questions:
        if not q.id.startswith(pack.pack + "-"):
            problems.append(f"{target}: question {q.id!r}: id should start with {pack.pack}-")
        if q.kind == "open" and not q.model_answer:
            problems.append(f"{target}: question {q.id!r}: open question has no model answer")
    return problems


def _lint(text: str, target: Path, packs_dir: Path | None) -> list[str]:
    """Lint problems of the pack text as if it were at ``target``, beside the packs of packs_dir."""
    with tempfile.TemporaryDirectory(prefix="studybot-import-") as tmp:
        candidate = Path(tmp) / (target.stem + ".yaml")
        candidate.write_text(text, encoding="utf-8")
        problems, _count = lint_paths([candidate])
        new = _loaded(candidate)
        if new is not None and packs_dir is not None and packs_dir.is_dir():
            others = [
                pack
                for path in pack_files(packs_dir)
                if path.resolve() != target.resolve() and (pack := _loaded(path)) is not None
            ]
            problems += problems_beside(new, others)
        return [p.replace(str(candidate), str(target)) for p in problems]


def _loaded(path: Path) -> Pack | None:
    """The pack at ``path``, or None when it does not load (its problems are its own lint's)."""
    try:
        return load_pack(path)
    except ContentError:
        return None


def bank_clashes(pack: Pack, target: Path, bank: Sequence[Path]) -> list[str]:
    """Ids of ``pack`` already used by a pack of the bank (other than ``target`` itself): the
    bot loads every pack of the bank together and refuses two packs or questions of one id."""
    problems: list[str] = []
    ids = {q.id for q in pack.questions}
    for path in bank:
        if path.resolve() == target.resolve():
            continue
        other = _loaded(path)
        if other is None:
            continue
        if other.pack == pack.pack:
            problems.append(f"{target}: pack id {pack.pack!r} is also used by {path}")
        problems.extend(
            f"{target}: question {q.id!r}: id is also used in {path}"
            for q in other.questions
            if q.id in ids
        )
    return problems


def build(
    imported: Imported,
    options: ImportOptions,
    target: Path,
    packs_dir: Path | None,
    bank: Sequence[Path] = (),
) -> tuple[Pack, str]:
    """Assemble, validate and lint the pack; return it and its YAML text, or raise ContentError.

    ``bank`` is the pack files the bot loads (its own and STUDYBOT_PACKS'): the new pack may
    reuse none of their ids."""
    data, origins = assemble(imported, options)
    try:
        pack = parse_pack(data, str(target), target)
    except ContentError as exc:
        raise ContentError(_explain(exc.problems, origins)) from exc
    comment = f"Imported from {imported.label} file {imported.file_name} (studybot content import)."
    text = dump_pack(data, comment)
    problems = _lint(text, target, packs_dir) + bank_clashes(pack, target, bank)
    if is_shipped(target):
        problems = shipped_problems(pack, target, options) + problems
    if problems:
        raise ContentError(_explain(problems, origins))
    return pack, text


def _write(text: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)  # a STUDYBOT_PACKS folder not made yet
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def import_file(
    fmt: str,
    path: Path,
    options: ImportOptions,
    *,
    out: Path | None = None,
    force: bool = False,
    write: bool = True,
    packs_dir: Path | None = PACKS_DIR,
    bank: Sequence[Path] = (),
) -> ImportResult:
    """Import ``path`` (format ``fmt``) as a pack; write it to ``out`` or ``packs_dir/<pack>.yaml``
    (``packs_dir`` None, with ``write=False``: a pack checked for no folder, as for printing).

    Raises UserError for bad options or an existing file without ``force``,
    and ContentError listing every problem when the input is malformed or the
    pack would not pass lint or reuses an id of a pack in ``bank``. In both cases nothing
    is written. With ``write=False`` the pack is checked and returned but not written.
    """
    if out is not None:
        target = out
    elif packs_dir is not None:
        target = packs_dir / f"{options.pack_id}.yaml"
    elif not write:  # checked to be printed, for no folder: no folder's rules apply
        target = Path(f"{options.pack_id}.yaml")
    else:
        raise UserError("where should the pack go? name a file or a packs directory")
    if target.is_dir():
        raise UserError(f"{target} is a directory: name the pack file, e.g. {target / 'NAME.yaml'}")
    if target.suffix not in (".yaml", ".yml"):
        raise UserError(f"{target}: a pack file must end in .yaml")
    if write and out is not None and not target.parent.is_dir():  # a typo, more likely than not
        raise UserError(f"{target.parent}: no such directory (create it first)")
    if write and target.exists() and not force:
        raise UserError(f"{target} already exists: pass --force to replace it")
    if path.is_dir():
        raise UserError(f"{path} is a directory, not a file to import")
    if not path.exists():
        raise UserError(f"{path}: no such file")
    imported = read_source(fmt, path)
    lint_dir = target.parent if out is not None else packs_dir
    pack, text = build(imported, options, target, lint_dir, bank)
    if write:
        _write(text, target)
    return ImportResult(
        pack=pack, text=text, path=target if write else None, source_label=imported.label
    )

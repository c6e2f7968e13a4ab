"""What every importer shares: drafts, options, slugs, HTML stripping, pack assembly.

An importer reads a foreign file into :class:`Imported`: a list of
:class:`Draft` questions that carry only what the source knows (kind, prompt,
answers, perhaps a difficulty or tags). :func:`assemble` fills in what the
content contract requires and the source lacks (id, topic, role, difficulty,
explanation, sources) and returns raw pack data, ready for ``parse_pack``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core.errors import ContentError, UserError

ROLES = ("pm", "eng")
DEFAULT_ROLES: tuple[str, ...] = ("pm", "eng")
DEFAULT_DIFFICULTY = 2
MAX_ID_LENGTH = 64
MAX_INPUT_BYTES = 256 * 1024 * 1024
URL_RE = re.compile(r"^https?://\S+$")
_ID_RE = re.compile(r"^[a-z0-9-]+$")


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """What the person importing says about the pack; ``None`` means "use the default"."""

    pack: str
    title: str | None = None
    topic: str | None = None
    source: str | None = None
    roles: tuple[str, ...] = DEFAULT_ROLES
    difficulty: int = DEFAULT_DIFFICULTY

    def __post_init__(self) -> None:
        if not slugify(self.pack):
            raise UserError(f"pack name {self.pack!r} has no letters or digits to make an id from")
        if self.topic is not None and not _ID_RE.match(self.topic):
            raise UserError(f"topic {self.topic!r} is not valid: use a-z, 0-9 and '-'")
        if self.source is not None and not URL_RE.match(self.source):
            raise UserError(f"source {self.source!r} is not an http(s) URL")
        bad = [r for r in self.roles if r not in ROLES]
        if bad or not self.roles:
            raise UserError(f"role must be pm, eng or both (got {', '.join(self.roles) or 'none'})")
        if self.difficulty not in (1, 2, 3):
            raise UserError(f"difficulty must be 1, 2 or 3 (got {self.difficulty})")

    @property
    def pack_id(self) -> str:
        """The pack name as a valid pack id (``Spanish Small`` -> ``spanish-small``)."""
        return slugify(self.pack)


@dataclass(slots=True)
class Draft:
    """One question read from a foreign file.

    ``fields`` holds content-contract fields the source knows (``kind``,
    ``prompt``, ``answers``, ``choices``, ``answer``, ``model_answer``, and
    perhaps ``id``, ``topic``, ``difficulty``, ``explanation``, ``sources``,
    ``tags``); ``origin`` says where the question came from, for error messages.
    """

    origin: str
    fields: dict[str, Any]


@dataclass(slots=True)
class Imported:
    """What an importer read: drafts plus pack-level hints and per-format defaults."""

    label: str  # "Red trivia list", "Anki deck", ...
    file_name: str
    default_source: str | None
    drafts: list[Draft] = field(default_factory=list)
    title: str | None = None
    description: str | None = None


def read_bytes(path: Path) -> bytes:
    """The bytes of an input file; ContentError if it is missing, unreadable or too big."""
    try:
        size = path.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise ContentError(
                [f"{path.name}: {size} bytes is too big to import (limit {MAX_INPUT_BYTES})"]
            )
        return path.read_bytes()
    except OSError as exc:
        raise ContentError([f"{path}: cannot read: {exc.strerror or exc}"]) from exc


def decode(raw: bytes, name: str) -> str:
    """UTF-8 text (a byte-order mark is dropped); ContentError if it is not UTF-8."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ContentError(
            [f"{name}: not UTF-8 text (byte {exc.start}): save the file as UTF-8"]
        ) from exc


def read_text(path: Path) -> str:
    """An input file as UTF-8 text; ContentError when it cannot be read or decoded."""
    return decode(read_bytes(path), path.name)


def slugify(text: str, max_length: int = MAX_ID_LENGTH) -> str:
    """Lower-case ASCII words joined by ``-``, cut at a word boundary to ``max_length``."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    if len(slug) <= max_length:
        return slug
    cut = slug[: max_length + 1]
    if "-" in cut:
        cut = cut[: cut.rindex("-")]
    return cut[:max_length].strip("-")


_DROP_BLOCKS = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_BREAKS = re.compile(r"<\s*/?\s*(?:br|hr|div|p|li|ul|ol|h[1-6]|tr|blockquote)\b[^>]*>", re.I)
_TAGS = re.compile(r"<[^>]*>")
_SOUND = re.compile(r"\[sound:[^\]]*\]")
_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]+")


def strip_html(text: str) -> str:
    """Anki field HTML to plain text: tags removed, breaks kept as newlines, entities decoded.

    Line breaks come from ``<br>`` and block elements; blank lines are dropped,
    since in HTML they carry no meaning.
    """
    text = _DROP_BLOCKS.sub("", text)
    text = _BREAKS.sub("\n", text)
    text = _TAGS.sub("", text)
    text = _SOUND.sub("", text)
    text = html.unescape(text)
    return "\n".join(line for line in tidy(text).split("\n") if line)


def tidy(text: str) -> str:
    """Collapse runs of spaces, strip every line, keep at most one blank line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def short_text(text: str, limit: int = 60) -> str:
    """A one-line excerpt of ``text`` for error messages."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def unique_ids(prefix: str, prompts: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """Ids ``<prefix>-<slug of the prompt>``, numbered when the slug is empty, never repeated."""
    used = set(taken)
    ids: list[str] = []
    prefix = slugify(prefix, 30)
    room = MAX_ID_LENGTH - len(prefix) - 4  # room for "-" and a "-99" suffix
    for n, prompt in enumerate(prompts, start=1):
        slug = slugify(prompt, min(room, 48))
        base = f"{prefix}-{slug}" if slug else f"{prefix}-{n}"
        candidate, k = base, 2
        while candidate in used:
            candidate, k = f"{base}-{k}", k + 1
        used.add(candidate)
        ids.append(candidate)
    return ids


def assemble(imported: Imported, options: ImportOptions) -> tuple[dict[str, Any], dict[str, str]]:
    """Fill the contract's required fields and return (pack data, origin of each question id).

    What the source gives wins over the options; the options win over the
    per-format defaults. Only missing sources are reported here (ContentError);
    everything else is left to ``parse_pack``.
    """
    pack_id = options.pack_id
    topic = options.topic or slugify(options.pack)
    source = options.source or imported.default_source
    explicit = [str(d.fields["id"]) for d in imported.drafts if d.fields.get("id")]
    generated = iter(
        unique_ids(
            pack_id,
            [str(d.fields.get("prompt", "")) for d in imported.drafts if not d.fields.get("id")],
            explicit,
        )
    )
    questions: list[dict[str, Any]] = []
    origins: dict[str, str] = {}
    missing: list[str] = []
    note = f"Imported from {imported.label} file {imported.file_name}."
    for draft in imported.drafts:
        f = dict(draft.fields)
        qid = str(f.pop("id", "") or next(generated))
        q: dict[str, Any] = {
            "id": qid,
            "topic": f.pop("topic", None) or topic,
            "role": list(f.pop("role", None) or options.roles),
            "difficulty": f.pop("difficulty", None) or options.difficulty,
        }
        kind = f.pop("kind")
        q["kind"] = kind
        q["prompt"] = f.pop("prompt")
        for key in ("choices", "answer", "answers", "tolerance", "unit", "units"):
            if key in f:
                q[key] = f.pop(key)
        for key in ("rubric", "model_answer", "pass_score"):
            if key in f:
                q[key] = f.pop(key)
        q["explanation"] = f.pop("explanation", None) or note
        sources = f.pop("sources", None) or ([source] if source else [])
        q["sources"] = list(sources)
        if not sources:
            missing.append(f"{draft.origin}: no source URL: fill its sources or pass --source URL")
        tags = f.pop("tags", None)
        if tags:
            q["tags"] = list(tags)
        q.update(f)  # anything left is passed through, so the schema reports it
        questions.append(q)
        origins.setdefault(qid, draft.origin)
    if missing:
        raise ContentError(missing)
    data: dict[str, Any] = {
        "pack": pack_id,
        "title": options.title or imported.title or options.pack,
        "description": imported.description or note,
        "questions": questions,
    }
    return data, origins

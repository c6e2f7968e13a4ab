"""Question packs: the content contract, loaded into frozen questions.

A pack is a YAML file validated by ``content/schema.json``. Loading checks the
schema and the rules a schema cannot say (the choice answer is one of the
choices, ids are unique across packs) and reports every problem at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml

from bot.core.errors import ContentError, UserError
from bot.resources import PACKS_DIR as PACKS_DIR  # the bundled packs, for their readers
from bot.resources import SCHEMA_PATH

if TYPE_CHECKING:
    import jsonschema

Kind = Literal["choice", "multi", "numeric", "short", "open"]
KINDS: tuple[Kind, ...] = ("choice", "multi", "numeric", "short", "open")
TOPICS: tuple[str, ...] = (
    "mig",
    "mps",
    "time-slicing",
    "vgpu",
    "cuda",
    "interconnect",
    "kubernetes",
    "llm-training",
    "inference-sharing",
    "product",
    "system-design",
    "behavioral",
    "myths",
)
DEFAULT_PASS_SCORE = 0.6
# libyaml's safe loader is several times faster where PyYAML was built with it.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class RubricPoint:
    """One thing a good open answer says; matched when any phrase appears, cancelled by ``none``."""

    point: str
    weight: float
    any: tuple[str, ...]
    none: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Examples:
    """Answers the real grader must grade a given way: ``correct``, ``incorrect``, ``partial``.

    They are the question's own tests (``studybot content lint`` grades each one), not part
    of what grades an answer.
    """

    passing: tuple[str, ...] = ()
    failing: tuple[str, ...] = ()
    partial: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.passing) + len(self.failing) + len(self.partial)


NO_EXAMPLES = Examples()


@dataclass(frozen=True, slots=True)
class Question:
    """One question of a pack, as the content contract defines it.

    ``correct`` holds the right choice texts (one for ``choice``, several for
    ``multi``); ``accepted`` the accepted answers of a ``short`` question;
    ``value``, ``tolerance``, ``unit`` and ``units`` a ``numeric`` one.
    ``content_hash`` changes whenever anything that affects grading changes; ``examples``
    (see :class:`Examples`) do not, so they take no part in the hash or in comparisons.
    """

    id: str
    pack: str
    topic: str
    roles: tuple[str, ...]
    difficulty: int
    kind: Kind
    prompt: str
    explanation: str
    sources: tuple[str, ...]
    choices: tuple[str, ...] = ()
    correct: tuple[str, ...] = ()
    accepted: tuple[str, ...] = ()
    value: float | None = None
    tolerance: float = 0.0
    unit: str = ""
    units: tuple[str, ...] = ()
    rubric: tuple[RubricPoint, ...] = ()
    model_answer: str | None = None
    model_answers: tuple[str, ...] = ()
    pass_score: float = DEFAULT_PASS_SCORE
    tags: tuple[str, ...] = ()
    content_hash: str = ""
    examples: Examples = field(default=NO_EXAMPLES, compare=False)

    @property
    def answer_text(self) -> str:
        """The right answer as a person would read it in a reveal."""
        if self.kind in ("choice", "multi"):
            # by letter, as the choices are listed above it ("B) L40S, D) A10, E) T4")
            letters = {c: chr(ord("A") + i) for i, c in enumerate(self.choices)}
            right = sorted(self.correct, key=lambda c: letters.get(c, "?"))
            return ", ".join(f"{letters.get(c, '?')}) {c}" for c in right)
        if self.kind == "numeric":
            number = f"{self.value:g}" if self.value is not None else "?"
            return f"{number} {self.unit}".strip()
        if self.kind == "short":
            return self.accepted[0]
        return self.model_answer or "; ".join(p.point for p in self.rubric)


@dataclass(frozen=True, slots=True)
class Pack:
    pack: str
    title: str
    path: Path | None
    questions: tuple[Question, ...]


@cache
def _validator() -> jsonschema.protocols.Validator:
    import jsonschema  # only where a pack is validated: a start with known packs skips it

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def _where(path: Sequence[Any], data: Mapping[str, Any]) -> str:
    parts = list(path)
    if len(parts) >= 2 and parts[0] == "questions" and isinstance(parts[1], int):
        questions = data.get("questions") or []
        qid = "?"
        if 0 <= parts[1] < len(questions) and isinstance(questions[parts[1]], Mapping):
            qid = str(questions[parts[1]].get("id", "?"))
        rest = ".".join(str(p) for p in parts[2:])
        return f"question {qid!r}" + (f" field {rest}" if rest else "")
    return ".".join(str(p) for p in parts) or "pack"


def schema_problems(data: Any, source: str) -> list[str]:
    """Every schema violation in ``data``, each as one readable line."""
    if not isinstance(data, Mapping):
        return [f"{source}: a pack must be a mapping with pack, title and questions"]
    problems = []
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path)):
        problems.append(f"{source}: {_where(err.absolute_path, data)}: {_short(err)}")
    return problems


def _short(err: jsonschema.ValidationError) -> str:
    if err.validator == "additionalProperties":
        return str(err.message).replace("Additional properties are not allowed", "unknown field")
    if err.validator == "pattern" and err.absolute_path and err.absolute_path[-1] == "id":
        return f"{err.instance!r} is not a valid id (use a-z, 0-9 and '-')"
    return str(err.message)


#: Fields that do not change how an answer is graded, left out of ``content_hash``.
_UNHASHED = frozenset({"examples"})


def _hash(raw: Mapping[str, Any]) -> str:
    graded = {k: v for k, v in raw.items() if k not in _UNHASHED}
    blob = json.dumps(graded, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value)
    return (str(value),)


def question_from_dict(raw: Mapping[str, Any], pack: str) -> Question:
    """Build a :class:`Question` from one schema-valid mapping."""
    kind: Kind = raw["kind"]
    correct: tuple[str, ...] = ()
    value: float | None = None
    if kind in ("choice", "multi"):
        correct = _as_tuple(raw.get("answer"))
    elif kind == "numeric":
        value = float(raw["answer"])
    models = tuple(m.strip() for m in _as_tuple(raw.get("model_answer")) if m.strip())
    rubric = tuple(
        RubricPoint(
            point=str(p["point"]),
            weight=float(p.get("weight", 1)),
            any=_as_tuple(p["any"]),
            none=_as_tuple(p.get("none")),
        )
        for p in raw.get("rubric") or ()
    )
    return Question(
        id=str(raw["id"]),
        pack=pack,
        topic=str(raw["topic"]),
        roles=_as_tuple(raw["role"]),
        difficulty=int(raw["difficulty"]),
        kind=kind,
        prompt=str(raw["prompt"]).strip(),
        explanation=str(raw["explanation"]).strip(),
        sources=_as_tuple(raw["sources"]),
        choices=_as_tuple(raw.get("choices")),
        correct=correct,
        accepted=_as_tuple(raw.get("answers")),
        value=value,
        tolerance=float(raw.get("tolerance", 0.0)),
        unit=str(raw.get("unit", "")),
        units=_as_tuple(raw.get("units")),
        rubric=rubric,
        model_answer=models[0] if models else None,
        model_answers=models,
        pass_score=float(raw.get("pass_score", DEFAULT_PASS_SCORE)),
        tags=_as_tuple(raw.get("tags")),
        content_hash=_hash(raw),
        examples=_examples(raw.get("examples")),
    )


def _examples(raw: Any) -> Examples:
    if not raw:
        return NO_EXAMPLES
    return Examples(
        passing=_as_tuple(raw.get("pass")),
        failing=_as_tuple(raw.get("fail")),
        partial=_as_tuple(raw.get("partial")),
    )


def _rule_problems(data: Mapping[str, Any], source: str) -> list[str]:
    """Rules the schema cannot express, checked on schema-valid data."""
    problems = []
    seen: set[str] = set()
    for q in data["questions"]:
        where = f"{source}: question {q['id']!r}"
        if q["id"] in seen:
            problems.append(f"{where}: duplicate id in this pack")
        seen.add(q["id"])
        choices = [str(c) for c in q.get("choices") or []]
        if q["kind"] in ("choice", "multi"):
            for ans in _as_tuple(q["answer"]):
                if ans not in choices:
                    problems.append(f"{where}: answer {ans!r} is not one of the choices")
        if q["kind"] == "open":
            for point in q.get("rubric") or []:
                for phrase in list(point["any"]) + list(point.get("none") or []):
                    if str(phrase).startswith("re:"):
                        try:
                            re.compile(str(phrase)[3:])
                        except re.error as exc:
                            problems.append(f"{where}: bad regular expression {phrase!r}: {exc}")
    return problems


def parse_pack(data: Any, source: str, path: Path | None = None) -> Pack:
    """Validate raw pack data and build a Pack; raise ContentError listing every problem."""
    problems = schema_problems(data, source)
    if not problems:
        problems = _rule_problems(data, source)
    if problems:
        raise ContentError(problems)
    return _build_pack(data, path)


def _build_pack(data: Mapping[str, Any], path: Path | None) -> Pack:
    """A Pack from data that passed :func:`parse_pack`'s checks."""
    pack_id = str(data["pack"])
    questions = tuple(question_from_dict(q, pack_id) for q in data["questions"])
    return Pack(pack=pack_id, title=str(data["title"]), path=path, questions=questions)


#: Bounds on a YAML file, before anything is built from it: its size, and the number of nodes
#: it holds once aliases are expanded (a 700-byte "billion laughs" file expands to billions;
#: the largest shipped pack to about 20,000).
MAX_YAML_BYTES = 8 * 1024 * 1024
MAX_YAML_NODES = 1_000_000


def yaml_bounds_problem(node: yaml.Node, name: str, limit: int = MAX_YAML_NODES) -> str | None:
    """Why the composed document ``node`` is too big to build (more than ``limit`` nodes
    with every alias expanded, or an alias that contains itself), or None. Linear in the
    distinct nodes: each one's expanded size is computed once."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, children_done = stack.pop()
        key = id(current)
        if key in sizes:
            continue
        children = _children(current)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > limit:
                return f"{name}: too large once its aliases are expanded (over {limit} nodes)"
            continue
        if key in open_nodes:
            return f"{name}: an alias refers to a node that contains it"
        open_nodes.add(key)
        stack.append((current, True))
        for child in children:
            if id(child) in open_nodes:
                return f"{name}: an alias refers to a node that contains it"
            stack.append((child, False))
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def read_yaml(path: Path) -> Any:
    """Read a YAML file, turning unreadable, oversized or alias-bombed files into
    ContentError."""
    return _yaml_of(_read_bytes(path), path)


def _read_bytes(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            raise ContentError([f"{path}: larger than {MAX_YAML_BYTES // (1024 * 1024)} MiB"])
        return path.read_bytes()
    except OSError as exc:
        raise ContentError([f"{path}: cannot read: {exc}"]) from exc


def _yaml_of(raw: bytes, path: Path, *, bounded: bool = True) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ContentError([f"{path}: cannot read: {exc}"]) from exc
    loader = _SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        problem = yaml_bounds_problem(node, str(path)) if bounded else None
        if problem is not None:
            raise ContentError([problem])
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ContentError([f"{path}: not valid YAML: {exc}"]) from exc
    finally:
        loader.dispose()


def load_pack(path: Path, validated: ValidatedPacks | None = None) -> Pack:
    """Load and validate one pack file. With ``validated``, a file whose exact bytes passed
    validation before (against the same schema and rules) is read without validating it
    again, and a file that passes now is remembered there."""
    if validated is None:
        return parse_pack(read_yaml(path), str(path), path)
    raw = _read_bytes(path)
    key = validated.key_of(raw)
    if key in validated:  # these very bytes passed every check, the YAML bounds included
        return _build_pack(_yaml_of(raw, path, bounded=False), path)
    pack = parse_pack(_yaml_of(raw, path), str(path), path)
    validated.add(key)
    return pack


#: Bumped whenever the checks of :func:`parse_pack` change, so that packs validated under the
#: old rules are validated again.
VALIDATION_RULES = "1"
_VALIDATED_KEEP = 4096  # digests kept in the cache file, newest last


@cache
def _schema_digest() -> bytes:
    return hashlib.sha256(SCHEMA_PATH.read_bytes()).digest()


class ValidatedPacks:
    """Digests of pack files that passed validation: of their bytes, the schema's bytes and
    :data:`VALIDATION_RULES`, one hex digest a line in ``path``. A start of the bot then reads,
    but does not validate again, packs that did not change; a changed byte, a changed schema
    or changed rules make a new digest, so the pack is validated. ``studybot content lint``
    does not use it: it always validates fully.

    The file is only a cache: a missing, unreadable or unwritable one means validating (the
    bot starts as it did without it), and ``None`` as ``path`` keeps it in memory.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._known: list[str] = []
        self._added: list[str] = []
        if path is not None:
            try:
                self._known = path.read_text(encoding="ascii").split()
            except (OSError, UnicodeDecodeError):
                self._known = []
        self._set = set(self._known)

    @staticmethod
    def key_of(raw: bytes) -> str:
        digest = hashlib.sha256(_schema_digest())
        digest.update(VALIDATION_RULES.encode("ascii"))
        digest.update(raw)
        return digest.hexdigest()

    def __contains__(self, key: object) -> bool:
        return key in self._set

    def add(self, key: str) -> None:
        if key not in self._set:
            self._set.add(key)
            self._added.append(key)

    def save(self) -> None:
        """Write the digests added since this was read, keeping the newest; errors are
        ignored (the cache only saves time)."""
        if self.path is None or not self._added:
            return
        keep = (self._known + self._added)[-_VALIDATED_KEEP:]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".validated-")
            try:
                with os.fdopen(fd, "w", encoding="ascii") as out:
                    out.write("".join(f"{k}\n" for k in keep))
                os.replace(tmp, self.path)
            except OSError:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return
        self._known, self._added = keep, []


def pack_files(directory: Path = PACKS_DIR) -> list[Path]:
    return sorted(p for p in directory.glob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def bank_files(extra_dirs: Sequence[Path] = (), bundled: Path | None = None) -> list[Path]:
    """The pack files of the question bank: the packs that ship with studybot (``bundled``,
    default :data:`PACKS_DIR`), then those of each extra directory (``STUDYBOT_PACKS``).

    Raises ContentError naming every extra directory that does not exist.
    """
    files = pack_files(bundled if bundled is not None else PACKS_DIR)
    missing = [
        f"{d}: no such directory (named in STUDYBOT_PACKS)" for d in extra_dirs if not d.is_dir()
    ]
    if missing:
        raise ContentError(missing)
    for directory in extra_dirs:
        files.extend(pack_files(directory))
    return files


def load_packs(paths: Iterable[Path], validated: ValidatedPacks | None = None) -> list[Pack]:
    """Load many packs, checking ids across them; every problem is reported together.
    ``validated``: see :func:`load_pack`; the digests of packs that passed are saved there."""
    packs: list[Pack] = []
    problems: list[str] = []
    for path in paths:
        try:
            packs.append(load_pack(path, validated))
        except ContentError as exc:
            problems.extend(exc.problems)
    if validated is not None:
        validated.save()
    owner: dict[str, str] = {}
    pack_ids: dict[str, str] = {}
    for pack in packs:
        where = str(pack.path) if pack.path else pack.pack
        if pack.pack in pack_ids:
            problems.append(f"{where}: pack id {pack.pack!r} is also used by {pack_ids[pack.pack]}")
        pack_ids[pack.pack] = where
        for q in pack.questions:
            if q.id in owner and owner[q.id] != where:
                problems.append(f"{where}: question id {q.id!r} is also used in {owner[q.id]}")
            owner.setdefault(q.id, where)
    if problems:
        raise ContentError(problems)
    return packs


def packs_named(names: Sequence[str], directories: Sequence[Path]) -> list[Pack]:
    """The packs ``names`` name, each by its pack id (a pack of ``directories``: the bank's,
    bundled first) or by the path of a pack file, in the order named.

    Raises UserError naming what names no pack, with the pack ids there are, and
    ContentError when a named pack does not load (broken packs nobody named are ignored).
    """
    by_id: dict[str, Pack] = {}
    for path in (path for d in directories for path in pack_files(d)):
        try:
            pack = load_pack(path)
        except ContentError:
            continue
        by_id.setdefault(pack.pack, pack)
    chosen: list[Pack] = []
    unknown: list[str] = []
    for name in dict.fromkeys(names):
        path = Path(name)
        if name in by_id:
            chosen.append(by_id[name])
        elif path.suffix in (".yaml", ".yml") and path.is_file():
            chosen.append(load_pack(path))
        else:
            unknown.append(name)
    if unknown:
        known = ", ".join(sorted(by_id)) or "none"
        raise UserError(
            f"unknown pack {', '.join(unknown)}: name a pack id ({known}) or a pack file"
        )
    return chosen


def find_question(pack: Pack, question_id: str) -> Question | None:
    return next((q for q in pack.questions if q.id == question_id), None)

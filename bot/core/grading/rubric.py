"""Open questions with a rubric: which points does an answer make?

A point is made when one of its phrases appears in a clause of the answer
(after normalisation; ``re:`` phrases are regular expressions) and is not
negated in that clause ("time-slicing does not isolate memory" does not make
the point "isolates memory"). A ``none`` phrase that appears un-negated
cancels the point. Matchers are compiled once per question and cached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bot.core.content import Question, RubricPoint
from bot.core.grading.normalize import fold, normalize

# Clause boundaries: sentence punctuation (not inside numbers) and contrast words.
_CLAUSE = re.compile(
    r"[.;:!?](?!\d)|,(?!\d)|\n|\(|\)|\s[-–—]\s"
    r"|\b(?:but|while|whereas|although|though|however|unlike|except|yet|instead|rather than)\b"
)
_CUES = frozenset(
    {
        "not", "no", "never", "without", "cannot", "cant", "doesnt", "dont", "isnt", "arent",
        "wont", "wasnt", "werent", "didnt", "lacks", "lack", "lacking", "neither", "nor",
        "nothing", "hardly", "fails", "zero", "nt",
    }
)  # fmt: skip
# "not only", "no matter", "not just": the cue does not deny what follows.
_NOT_CUES = frozenset({("not", "only"), ("not", "just"), ("no", "matter"), ("not", "merely")})
_WINDOW_BEFORE = 6
_WINDOW_AFTER = 3


@dataclass(frozen=True, slots=True)
class PointMatcher:
    """One rubric point's compiled phrases."""

    point: RubricPoint
    any_: tuple[re.Pattern[str], ...]
    none: tuple[re.Pattern[str], ...]
    quantities: tuple[tuple[float, str], ...] = ()


# A quantity with its unit: "450 GB/s", "0.45 TB/s", "7.2TB/s", "80 GB".
_QUANTITY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([a-zµμ%]+(?:\s*/\s*s(?:ec)?\b)?)")


def _quantity(text: str) -> tuple[float, str] | None:
    """``text`` as (value in the base unit, dimension) when it is a number with a unit."""
    from bot.core.grading.numeric import UNITS, _canonical_unit

    m = _QUANTITY.fullmatch(fold(text).replace(",", "").strip(" ~"))
    if m is None:
        return None
    unit = UNITS.get(_canonical_unit(m.group(2)))
    if unit is None or unit.dimension in ("ratio",):
        return None
    return float(m.group(1)) * unit.factor, unit.dimension


def _quantities_in(folded: str) -> list[tuple[int, float, str]]:
    out = []
    for m in _QUANTITY.finditer(folded.replace(",", "")):
        q = _quantity(m.group(0))
        if q is not None:
            out.append((m.start(), *q))
    return out


def _phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    if phrase.startswith("re:"):
        try:
            return re.compile(phrase[3:], re.IGNORECASE)
        except re.error:
            return None
    words = normalize(phrase).split()
    if not words:
        return None
    parts = [re.escape(w) + (r"(?:e?s)?" if w.isalpha() and len(w) >= 3 else "") for w in words]
    return re.compile(r"(?<![\w.])" + r"\s?".join(parts) + r"(?![\w])")


@lru_cache(maxsize=4096)
def compile_rubric(question: Question) -> tuple[PointMatcher, ...]:
    """Compile ``question``'s rubric phrases (cached per question)."""
    out = []
    for point in question.rubric:
        any_ = tuple(p for p in map(_phrase_pattern, point.any) if p is not None)
        none = tuple(p for p in map(_phrase_pattern, point.none) if p is not None)
        quantities = tuple(
            q for q in (_quantity(p) for p in point.any if not p.startswith("re:")) if q
        )
        out.append(PointMatcher(point, any_, none, quantities))
    return tuple(out)


# What people type for the words rubrics use, spelt out before matching.
SHORTHANDS = {
    "prio": "priority", "prios": "priorities", "err": "error", "errs": "errors",
    "cust": "customer", "custs": "customers", "mem": "memory", "perf": "performance",
    "util": "utilization", "utilisation": "utilization", "ctx": "context", "ctxs": "contexts",
    "proc": "process", "procs": "processes", "gen": "generation", "cfg": "config",
    "std": "standard", "approx": "approximately", "fw": "firmware", "sched": "scheduler",
    "alloc": "allocation", "k8s": "kubernetes", "env": "environment", "b/c": "because",
    "w/o": "without", "w/": "with", "bc": "because", "mgmt": "management",
    "infra": "infrastructure",
    "iso": "isolation", "perms": "permissions", "reqs": "requests", "req": "request",
}  # fmt: skip
_SHORTHAND = re.compile(
    r"(?<![\w/])("
    + "|".join(sorted(map(re.escape, SHORTHANDS), key=len, reverse=True))
    + r")(?![\w/])"
)


def spell_out(folded: str) -> str:
    """``folded`` with the shorthands people type spelt out ("prio" -> "priority")."""
    return _SHORTHAND.sub(lambda m: SHORTHANDS[m.group(1)] + " ", folded)


def clauses(answer: str) -> list[tuple[str, str]]:
    """Split ``answer`` into clauses, each as (folded text, normalised text)."""
    out = []
    for piece in _CLAUSE.split(spell_out(fold(answer))):
        if piece and piece.strip():
            normal = normalize(piece)
            if normal:
                out.append((piece, normal))
    return out


def _negated(normal: str, start: int, end: int) -> bool:
    """Whether the words just before ``start`` (or just after ``end``) deny the match."""
    before = normal[:start].split()[-_WINDOW_BEFORE:]
    for i, word in enumerate(before):
        if word in _CUES:
            rest = before[i + 1 :] or normal[start:end].split() or [""]
            following = rest[0]
            if (word, following) not in _NOT_CUES:
                return True
    after = normal[end:].split()[:_WINDOW_AFTER]
    for i, word in enumerate(after):
        if word in _CUES:
            following = after[i + 1] if i + 1 < len(after) else ""
            if (word, following) not in _NOT_CUES:
                return True
    return False


def _found(patterns: tuple[re.Pattern[str], ...], parts: list[tuple[str, str]]) -> bool:
    for pattern in patterns:
        for folded, normal in parts:
            for m in pattern.finditer(normal):
                if m.end() > m.start() and not _negated(normal, m.start(), m.end()):
                    return True
            if not pattern.flags & re.IGNORECASE:
                continue
            # A ``re:`` phrase may rely on punctuation: try the folded clause too.
            for m in pattern.finditer(folded):
                if m.end() <= m.start():
                    continue
                head = normalize(folded[: m.start()])
                body = normalize(m.group()) or "x"
                text = f"{head} {body} {normalize(folded[m.end() :])}"
                if not _negated(text, len(head) + 1, len(head) + 1 + len(body)):
                    return True
    return False


def _same_quantity(wanted: tuple[tuple[float, str], ...], parts: list[tuple[str, str]]) -> bool:
    """Whether a clause states one of ``wanted`` in any unit ("0.45 TB/s" for "450 GB/s")."""
    if not wanted:
        return False
    for folded, _ in parts:
        for start, value, dimension in _quantities_in(folded):
            head = normalize(folded[:start]).split()[-_WINDOW_BEFORE:]
            if _CUES.intersection(head):
                continue
            if any(d == dimension and abs(value - v) <= 0.01 * abs(v) for v, d in wanted):
                return True
    return False


def match_rubric(question: Question, answer: str) -> tuple[list[RubricPoint], list[RubricPoint]]:
    """Return the rubric points ``answer`` makes and those it misses (never raises)."""
    parts = clauses(answer)
    matched: list[RubricPoint] = []
    missed: list[RubricPoint] = []
    for pm in compile_rubric(question):
        said = _found(pm.any_, parts) or _same_quantity(pm.quantities, parts)
        made = said and not _found(pm.none, parts)
        (matched if made else missed).append(pm.point)
    return matched, missed

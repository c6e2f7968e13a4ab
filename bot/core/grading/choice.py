"""Choice and multi questions: which choices does an answer name?

An answer names a choice by its letter (``B``, ``b)``, ``(b)``, ``option b``)
or by its text, in any case and punctuation, with small typos forgiven. A
choice named only to be denied ("not memory isolation only") does not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from bot.core.content import Question
from bot.core.grading.normalize import fold, normalize

_NEGATIONS = frozenset({"not", "never", "isnt", "arent", "nor"})
# Words that carry no choice in a terse answer: "A and C", "options b, d".
_FILLER = frozenset(
    {
        "and", "or", "plus", "also", "both", "option", "options", "answer", "answers",
        "choice", "choices", "is", "are", "its", "it", "i", "think", "pick", "say",
        "would", "go", "with", "correct", "right", "ones", "one", "letter", "letters",
        "maybe", "probably", "definitely", "final", "only", "my", "of", "them", "those",
    }
)  # fmt: skip
_LETTER_MARKS = re.compile(r"\(([a-j])\)|\b([a-j])\)|\b(?:option|answer|choice)s?\s*:?\s*([a-j])\b")
_FUZZY_MIN = 85.0
_FUZZY_MARGIN = 8.0


@dataclass(frozen=True, slots=True)
class ChoiceKey:
    """A question's choices, prepared once: normal forms and letters."""

    normals: tuple[str, ...]
    letters: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]


@lru_cache(maxsize=4096)
def choice_key(question: Question) -> ChoiceKey:
    """Prepare ``question``'s choices for matching (cached per question)."""
    normals = tuple(normalize(c) for c in question.choices)
    letters = tuple(chr(ord("a") + i) for i in range(len(question.choices)))
    patterns = tuple(
        re.compile(r"(?<![\w])" + r"\s?".join(map(re.escape, n.split())) + r"(?![\w])")
        if n
        else re.compile(r"(?!x)x")
        for n in normals
    )
    return ChoiceKey(normals, letters, patterns)


def _letters_named(raw: str, key: ChoiceKey) -> tuple[set[int], bool]:
    """Letters in ``raw`` (original case); the flag says the answer is letters only."""
    folded = fold(raw)
    valid = "".join(key.letters)
    named: set[int] = set()
    bare = re.sub(r"[^\w]+", " ", folded).split()
    rest = [t for t in bare if t not in _FILLER]
    # Terse answers: "b", "A, C", "a and d", "ACD".
    if rest and all(len(t) == 1 and t in valid for t in rest):
        return {valid.index(t) for t in rest}, True
    compact = rest[0] if len(rest) == 1 else ""
    if (
        1 < len(compact) <= len(valid)
        and set(compact) <= set(valid)
        and len(set(compact)) == len(compact)
    ):
        return {valid.index(t) for t in rest[0]}, True
    # Letters inside a sentence: "B)", "(b)", "option c", or a capital standing alone.
    for m in _LETTER_MARKS.finditer(folded):
        letter = next(g for g in m.groups() if g)
        if letter in valid:
            named.add(valid.index(letter))
    shouting = raw == raw.upper() and len(bare) > 3
    for m in re.finditer(r"(?<![\w'’])([A-J])(?![\w'’])", raw):
        if shouting and raw[: m.start()].strip():
            break  # in ALL CAPS only a leading letter is a letter: "C - NO MEMORY ISOLATION ..."
        letter = m.group(1).lower()
        # "A" and "I" are also words: "A shared fault domain" names no choice.
        if letter in "ai" and re.match(r"\s+[^\W\d_]", raw[m.end() :]):
            continue
        if letter in valid:
            named.add(valid.index(letter))
    return named, False


def _texts_named(normal: str, key: ChoiceKey) -> set[int]:
    """Choices whose text appears in ``normal``, longest first, not negated."""
    named: set[int] = set()
    taken: list[tuple[int, int]] = []
    order = sorted(range(len(key.normals)), key=lambda i: -len(key.normals[i]))
    for i in order:
        for m in key.patterns[i].finditer(normal):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            before = normal[: m.start()].split()[-2:]
            taken.append((m.start(), m.end()))
            if not _NEGATIONS.intersection(before):
                named.add(i)
    return named


def _fuzzy_named(normal: str, key: ChoiceKey) -> set[int]:
    """The one choice that ``normal`` is a close misspelling or rewording of, if any."""
    if len(normal) < 4:
        return set()
    scores = sorted(
        (
            (max(fuzz.ratio(normal, n), fuzz.token_sort_ratio(normal, n)), i)
            for i, n in enumerate(key.normals)
        ),
        reverse=True,
    )
    best, index = scores[0]
    runner_up = scores[1][0] if len(scores) > 1 else 0.0
    if best >= _FUZZY_MIN and best - runner_up >= _FUZZY_MARGIN:
        return {index}
    return set()


def named_choices(question: Question, answer: str) -> set[int]:
    """Return the indexes of the choices that ``answer`` names.

    Takes a choice or multi question and a non-empty answer; never raises.
    """
    key = choice_key(question)
    normal = normalize(answer)
    named = _texts_named(normal, key)
    letters, terse = _letters_named(answer, key)
    if terse:
        return letters
    named |= letters
    if not named:
        named = _fuzzy_named(normal, key)
    if not named and len(key.normals) and ("," in answer or ";" in answer or " and " in normal):
        for part in re.split(r"[,;]|\band\b|\bor\b", normal):
            named |= _fuzzy_named(part.strip(), key)
    return named

"""Choice and multi questions: which choices does an answer name?

An answer names a choice by its letter (``B``, ``b)``, ``(b)``, ``option b``), by its
place ("the second one", "option three"), by its text in any case and punctuation with
small typos forgiven, or by a distinctive fragment of it ("about 3.35 TB/s", "the one
with media engines"). Only words that no other choice has count for a fragment, and the
choice the fragment fits best is the one named, right or wrong. A choice named only to
be denied ("not memory isolation only", "except the L4", "the L4 can't do it" beside
another choice) does not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from bot.core.content import Question
from bot.core.grading.normalize import fold, normalize
from bot.core.grading.overlap import STOPWORDS, stem

_NEGATIONS = frozenset(
    {"not", "never", "isnt", "arent", "nor", "except", "excluding", "unlike", "without", "besides"}
)
# Words just after a choice that deny it: "the L4 can't do it", "T4 doesn't".
_DENIED_AFTER = frozenset(
    {"cant", "cannot", "doesnt", "dont", "isnt", "wont", "lacks", "not", "no", "never"}
)
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


_CLAUSE_END = re.compile(r"[,;.!?:()](?!\d)")


def clause_normal(answer: str) -> tuple[str, tuple[int, ...]]:
    """``normalize(answer)`` built clause by clause, with the offsets where clauses end."""
    parts = [n for n in (normalize(c) for c in _CLAUSE_END.split(fold(answer))) if n]
    ends: list[int] = []
    offset = 0
    for part in parts:
        offset += len(part)
        ends.append(offset)
        offset += 1
    return " ".join(parts), tuple(ends)


def _texts_named(normal: str, key: ChoiceKey, ends: tuple[int, ...] = ()) -> set[int]:
    """Choices whose text appears in ``normal``, longest first, not denied.

    A choice denied only by the words after it ("MIG does not share memory") still counts
    when no other choice is named: the words may describe it rather than deny it."""
    named: set[int] = set()
    after_denied: set[int] = set()
    taken: list[tuple[int, int]] = []
    order = sorted(range(len(key.normals)), key=lambda i: -len(key.normals[i]))
    for i in order:
        for m in key.patterns[i].finditer(normal):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            if _NEGATIONS.intersection(normal[: m.start()].split()[-2:]):
                continue
            stop = next((e for e in ends if e >= m.end()), len(normal))
            if _DENIED_AFTER.intersection(normal[m.end() : stop].split()[:2]):
                after_denied.add(i)
            else:
                named.add(i)
    return named or after_denied


_ORDINALS = {
    "first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3,
    "fifth": 4, "5th": 4, "sixth": 5, "6th": 5, "one": 0, "two": 1, "three": 2, "four": 3,
    "five": 4, "six": 5, "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5,
}  # fmt: skip
_PLACE_WORDS = "first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th|last"
_PLACE = re.compile(
    rf"\b(?:the\s+)?({_PLACE_WORDS})\s+(?:one|option|choice|answer|statement|item)\b"
    r"|\b(?:option|choice|answer|number|no|item)\s*#?\s*(one|two|three|four|five|six|[1-6])\b"
    r"|#\s*([1-6])\b"
    rf"|^\s*(?:the\s+)?({_PLACE_WORDS})\s*$"
)


def _places_named(folded: str, count: int) -> set[int]:
    """Choices named by place: "the second one", "option three", "#2", "the last one"."""
    named: set[int] = set()
    for m in _PLACE.finditer(folded):
        word = next(g for g in m.groups() if g)
        before = folded[: m.start()].split()[-2:]
        if _NEGATIONS.intersection(w.strip(",.;:") for w in before):
            continue
        index = count - 1 if word == "last" else _ORDINALS.get(word, -1)
        if 0 <= index < count:
            named.add(index)
    return named


_SPLIT_NUMBER = re.compile(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)")
_TIMES = re.compile(r"(\d)\s*(?:x|×|times)\b")
_DENY_CUES = frozenset({"not", "never", "nor", "no", "except", "excluding", "unlike", "without"})


def content_words(text: str) -> list[str]:
    """Stems of ``text``'s meaningful words; numbers apart from their units, "5x" as "5x"."""
    from bot.core.grading.numeric import words_to_digits

    normal = normalize(words_to_digits(fold(text)))
    normal = _TIMES.sub(r"\1x", normal)
    out: list[str] = []
    for word in normal.split():
        if re.fullmatch(r"\d+(?:\.\d+)?x", word):
            out.append(word)
            continue
        for part in _SPLIT_NUMBER.sub(" ", word).split():
            if part not in STOPWORDS and part not in _FILLER:
                out.append(stem(part))
    return out


@dataclass(frozen=True, slots=True)
class FragmentKey:
    """Each choice's distinctive words (those no other choice has), with their weights."""

    words: tuple[frozenset[str], ...]
    weights: dict[str, float]


@lru_cache(maxsize=4096)
def fragment_key(question: Question) -> FragmentKey:
    """The distinctive words of ``question``'s choices (cached per question)."""
    sets = [frozenset(content_words(c)) for c in question.choices]
    counts: dict[str, int] = {}
    for words in sets:
        for w in words:
            counts[w] = counts.get(w, 0) + 1
    distinct = tuple(frozenset(w for w in words if counts[w] == 1) for words in sets)
    # Numbers and acronyms say more than ordinary words.
    weights = {
        w: 2.0 if any(ch.isdigit() for ch in w) else 1.0 for words in distinct for w in words
    }
    return FragmentKey(distinct, weights)


def _undenied_words(text: str) -> set[str]:
    """``content_words`` of ``text`` without those a cue denies ("not X", "unlike Y")."""
    kept: set[str] = set()
    for clause in re.split(r"[,;.!?()]|\bbut\b|\bwhile\b|\bwhereas\b", fold(text)):
        words = normalize(clause).split()
        cut = next((i for i, w in enumerate(words) if w in _DENY_CUES), len(words))
        kept.update(content_words(" ".join(words[:cut])))
    return kept


def _fragment_named(text: str, question: Question) -> int | None:
    """The one choice a fragment of ``text`` points to, by the distinctive words it uses."""
    key = fragment_key(question)
    given = _undenied_words(text)
    if not given:
        return None
    scored = []
    for i, words in enumerate(key.words):
        hit = words & given
        weight = sum(key.weights[w] for w in hit)
        total = sum(key.weights[w] for w in words) or 1.0
        scored.append((weight, weight / total, i))
    scored.sort(reverse=True)
    weight, share, index = scored[0]
    runner = scored[1][0] if len(scored) > 1 else 0.0
    if weight >= 2.0 and (share >= 0.25 or weight >= 3.0) and weight >= 2 * runner:
        return index
    return None


_ALL = re.compile(
    r"^\s*(?:all|every)(?:\s+(?:of\s+)?(?:them|the\s+above|four|five|choices|options))?\s*$"
)
_NONE = re.compile(r"^\s*(?:none|neither)(?:\s+(?:of\s+)?(?:them|the\s+above|these))?\s*$")


def names_none(answer: str) -> bool:
    """Whether ``answer`` says that no choice is right ("none of the above")."""
    return bool(_NONE.match(normalize(answer)))


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
    normal, ends = clause_normal(answer)
    if question.kind == "multi" and _ALL.match(normal):
        return set(range(len(key.normals)))
    named = _texts_named(normal, key, ends)
    letters, terse = _letters_named(answer, key)
    if terse:
        return letters
    named |= letters | _places_named(fold(answer), len(key.normals))
    if named:
        return named
    named = _fuzzy_named(normal, key)
    parts = [p for p in re.split(r"[,;/\n]|\band\b|\bplus\b|\bor\b", fold(answer)) if p.strip()]
    if not named and len(parts) > 1:
        for part in parts:
            named |= _fuzzy_named(normalize(part), key)
    if named:
        return named
    if question.kind == "multi" and len(parts) > 1:
        for part in parts:
            index = _fragment_named(part, question)
            if index is not None:
                named.add(index)
        if named:
            return named
    index = _fragment_named(answer, question)
    return {index} if index is not None else set()

"""One normalisation for every grader, so an answer and a key are compared alike.

``normalize`` folds Unicode (NFKC), case, apostrophes, hyphens and other
punctuation, and drops the articles *a*, *an* and *the*: ``"The Multi-Process
Service!"`` and ``"multi process service"`` normalise to the same text.
``fold`` is the lighter form (NFKC, case, spacing) for parsers that need the
punctuation, such as numbers and letters.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

ARTICLES = frozenset({"a", "an", "the"})

# Apostrophes vanish ("doesn't" -> "doesnt"); every other non-word character
# becomes a space. Dots and commas inside numbers survive ("1.8", "1,555").
_APOSTROPHES = re.compile(r"['’‘`´]")
_NUMBER_PUNCT = re.compile(r"(?<=\d)[.,](?=\d)")
_NON_WORD = re.compile(r"[^\w\x00]+")
_UNDERSCORE = re.compile(r"_+")
_SPACES = re.compile(r"\s+")
_DOT_PLACEHOLDER = "\x00"


DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63", "-"))


def fold(text: str) -> str:
    """Return ``text`` in NFKC form, case-folded, without accents ("Ampère" is "ampere"),
    dashes as "-", whitespace runs as one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not folded.isascii():
        decomposed = unicodedata.normalize("NFKD", folded)
        bare = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
        folded = unicodedata.normalize("NFKC", bare)
    return _SPACES.sub(" ", folded.translate(DASHES)).strip()


@lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Return the comparable form of ``text``: folded, no punctuation, no articles.

    Takes any string, never raises; the result is a space-separated run of
    word tokens (possibly empty). Numbers keep their decimal point.
    """
    folded = fold(text)
    folded = _APOSTROPHES.sub("", folded)
    folded = _NUMBER_PUNCT.sub(_DOT_PLACEHOLDER, folded)
    folded = _UNDERSCORE.sub(" ", _NON_WORD.sub(" ", folded))
    folded = folded.replace(_DOT_PLACEHOLDER, ".")
    return " ".join(t for t in folded.split() if t not in ARTICLES)


def tokens(text: str) -> list[str]:
    """Return the word tokens of ``normalize(text)``."""
    return normalize(text).split()


def compact(text: str) -> str:
    """Return ``normalize(text)`` without spaces: ``"time slicing"`` -> ``"timeslicing"``."""
    return normalize(text).replace(" ", "")


# Ways of saying the same thing that people type, each group's first member the plain form.
# Rubric phrases with one of them also match the others; choices and answers are read with
# the first in place of any of them.
PARAPHRASES = (
    ("concurrently", "at the same time", "simultaneously", "side by side"),
    ("workload dependent", "depends on the workload", "varies with the workload",
     "varies by workload", "varies per workload", "varies with the job", "depends on the job"),
    ("cannot be preempted", "cant be preempted", "cannot be interrupted", "cant be interrupted",
     "not preemptible", "non preemptible", "runs to completion", "run to completion"),
    ("eighths", "8 slices", "eight slices", "8 parts", "eight parts"),
    ("sevenths", "7 slices", "seven slices", "7 parts", "seven parts"),
    ("mutually exclusive", "either or", "one or other", "one or another", "not both",
     "cannot be combined", "cant be combined", "cannot be mixed", "cant be mixed",
     "cant mix them", "cannot mix them"),
)  # fmt: skip
_PLAIN = {member: group[0] for group in PARAPHRASES for member in map(normalize, group[1:])}
_PLAIN_PATTERN = re.compile(
    r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(_PLAIN, key=len, reverse=True))) + r")(?!\w)"
)


def plain_paraphrases(normal: str) -> str:
    """``normal`` (a ``normalize`` result) with each paraphrase in its group's plain form:
    "either or per node" -> "mutually exclusive per node"."""
    return _PLAIN_PATTERN.sub(lambda m: _PLAIN[m.group(0)], normal)

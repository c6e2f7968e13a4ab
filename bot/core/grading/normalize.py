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
    """Return ``text`` in NFKC form, case-folded, dashes as "-", whitespace runs as one space."""
    return _SPACES.sub(
        " ", unicodedata.normalize("NFKC", text).casefold().translate(DASHES)
    ).strip()


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

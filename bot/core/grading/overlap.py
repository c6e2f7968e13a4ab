"""Content words: the stopwords and the light stemmer that the choice, short-answer,
rubric and judge graders share."""

from __future__ import annotations

import re

from bot.core.grading.normalize import normalize

STOPWORDS = frozenset(
    {
        "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for",
        "with", "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its",
        "this", "that", "these", "those", "there", "their", "they", "them", "he", "she", "we",
        "you", "i", "me", "my", "our", "your", "his", "her", "so", "than", "then", "too",
        "very", "can", "could", "should", "would", "will", "shall", "may", "might", "must",
        "do", "does", "did", "done", "has", "have", "had", "having", "not", "no", "into",
        "onto", "over", "under", "about", "after", "before", "between", "through", "each",
        "any", "all", "some", "such", "only", "own", "same", "other", "more", "most", "also",
        "just", "what", "which", "who", "whom", "when", "where", "why", "how", "up", "down",
        "out", "off", "again", "further", "once", "here", "both", "few", "nor", "s", "t",
    }
)  # fmt: skip
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ed", "es", "ly", "s")


def stem(word: str) -> str:
    """A light suffix-stripping stem: "isolates", "isolated" -> "isolat"."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return re.sub(r"e$", "", word) if len(word) > 4 else word


def content_stems(text: str) -> frozenset[str]:
    """The stems of the words of ``text`` that carry meaning."""
    return frozenset(stem(w) for w in normalize(text).split() if w not in STOPWORDS)

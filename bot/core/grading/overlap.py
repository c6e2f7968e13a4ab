"""A plain word-overlap grade against a model answer.

The fallback for open questions without a rubric when the semantic reference
grader (``bot.core.grading.reference``) is not installed: the share of the
model answer's content words that the answer uses, halved when the answer
denies what the model answer asserts.
"""

from __future__ import annotations

import re
from functools import lru_cache

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
_NEGATIONS = frozenset({"not", "no", "never", "without", "cannot", "cant", "doesnt", "dont",
                        "isnt", "arent", "wont", "lacks", "none", "neither", "nor"})  # fmt: skip
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


@lru_cache(maxsize=4096)
def _model_stems(model_answer: str) -> tuple[frozenset[str], bool]:
    words = normalize(model_answer).split()
    return content_stems(model_answer), bool(_NEGATIONS.intersection(words))


def overlap_score(model_answer: str, answer: str) -> float:
    """Share (0..1) of ``model_answer``'s content stems found in ``answer``."""
    key, model_negates = _model_stems(model_answer)
    if not key:
        return 0.0
    words = normalize(answer).split()
    given = frozenset(stem(w) for w in words if w not in STOPWORDS)
    recall = len(key & given) / len(key)
    if not model_negates and _NEGATIONS.intersection(words):
        recall /= 2
    return recall

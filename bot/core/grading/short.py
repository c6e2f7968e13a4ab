"""Short-answer questions: accepted answers, acronyms, and typos in proportion.

An answer is right when, after normalisation, it is an accepted answer or its
acronym, contains one (a verbose answer), or is a close misspelling of one.
Typo tolerance grows with length and never applies to short acronyms (MSP is
not MPS), to answers whose digits differ (H100 is not H200), or to a different
real term of the field (HBM2 is not HBM2e, MIG is not MPS).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from bot.core.content import Question
from bot.core.grading.normalize import compact, normalize
from bot.core.grading.numeric import words_to_digits
from bot.core.grading.overlap import stem

# Terms of the field that are close in spelling but mean different things.
KNOWN_TERMS = frozenset(
    compact(t)
    for t in (
        "mig", "mps", "msp", "vgpu", "gpu", "cpu", "dpu", "tpu", "sr-iov", "mdev", "nvlink",
        "nvswitch", "pcie", "hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6", "gddr6x", "cuda",
        "dcgm", "nvml", "nccl", "mpi", "kueue", "volcano", "dra", "gfd", "nfd", "fsdp", "zero",
        "zero-1", "zero-2", "zero-3", "tensor parallelism", "pipeline parallelism",
        "data parallelism", "context parallelism", "expert parallelism", "time-slicing",
        "time slicing", "passthrough", "best effort", "equal share", "fixed share",
        "compute instance", "gpu instance", "a100", "a30", "h100", "h200", "b200", "gb200",
        "gh200", "t4", "l40s", "a10", "a40", "sm", "sms", "tp", "pp", "dp", "cp", "ep",
        "hami", "imex", "sharp", "infiniband", "ethernet", "roce", "rdma", "gpudirect",
        "mixed", "single", "none", "replicas", "coscheduling", "gang scheduling",
        "device plugin", "gpu operator", "mig manager", "mps server", "mps daemon",
        "green contexts", "streams", "priority", "preemption", "lora", "qlora",
    )
)  # fmt: skip
_NEGATION = re.compile(r"\b(?:not|never|isnt|arent|no)\s+$")
_HEDGE = re.compile(r"\b(?:or|maybe|either)\b")
_CONDITION = re.compile(r"\b(?:unless|except|other than|instead of|rather than)\b")
_ACRONYM_MAX = 4
_ORDINALS = {
    "first": "1st",
    "second": "2nd",
    "third": "3rd",
    "fourth": "4th",
    "fifth": "5th",
    "sixth": "6th",
    "seventh": "7th",
    "eighth": "8th",
    "ninth": "9th",
    "tenth": "10th",
}
_ABBREVIATIONS = {"gen": "generation", "gens": "generations"}


@lru_cache(maxsize=8192)
def prepare(text: str) -> str:
    """``normalize`` plus number words as digits, ordinals as 1st/2nd, and "gen" spelt out."""
    normal = normalize(words_to_digits(normalize(text)))
    words = [_ABBREVIATIONS.get(w, _ORDINALS.get(w, w)) for w in normal.split()]
    return " ".join(words)


def _stems(text: str) -> str:
    return " ".join(stem(w) for w in text.split())


@dataclass(frozen=True, slots=True)
class ShortKey:
    """A short question's accepted forms, prepared once."""

    normals: tuple[str, ...]
    compacts: frozenset[str]
    patterns: tuple[re.Pattern[str], ...]
    terms: frozenset[str]
    stemmed: tuple[re.Pattern[str], ...]


def _acronym(normal: str) -> str:
    words = normal.split()
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


_LETTER_DIGIT_LETTER = re.compile(r"([a-z])([0-9])([a-z])")


def _spelt_acronym(form: str) -> re.Pattern[str] | None:
    """``form`` with its letter-digit-letter acronyms spelt out: "nvlink c2c" is also
    "nvlink chip-2-chip" and "nvlink chip to chip", "p2p" is "peer to peer"."""
    words = form.split()
    if not any(_LETTER_DIGIT_LETTER.fullmatch(w) for w in words):
        return None
    parts = []
    for word in words:
        m = _LETTER_DIGIT_LETTER.fullmatch(word)
        if m is None:
            parts.append(re.escape(word))
            continue
        middle = f"(?:{m.group(2)}|to)" if m.group(2) == "2" else m.group(2)
        parts.append(rf"{m.group(1)}[a-z]+\s{middle}\s{m.group(3)}[a-z]+")
    return re.compile(r"(?<!\w)" + r"\s?".join(parts) + r"(?!\w)")


@lru_cache(maxsize=4096)
def short_key(question: Question) -> ShortKey:
    """Prepare ``question``'s accepted answers for matching (cached per question)."""
    normals = [prepare(a) for a in question.accepted]
    normals = [n for n in normals if n]
    acronyms = [a for a in (_acronym(n) for n in normals) if len(a) >= 2]
    # An acronym answers the question, unless the prompt asks what that acronym stands for.
    prompt_text = prepare(question.prompt)
    prompt_words = set(prompt_text.split())
    extra = [a for a in acronyms if a not in prompt_words]
    forms = tuple(dict.fromkeys(normals + extra))
    patterns = tuple(
        re.compile(r"(?<!\w)" + r"\s?".join(map(re.escape, f.split())) + r"(?:s|es)?(?!\w)")
        for f in forms
    ) + tuple(  # spelt out, unless the prompt spells it out itself
        p for p in map(_spelt_acronym, forms) if p is not None and not p.search(prompt_text)
    )
    compacts = frozenset(f.replace(" ", "") for f in forms)
    stemmed = tuple(
        re.compile(r"(?<!\w)" + re.escape(_stems(f)) + r"(?!\w)") for f in forms if " " in f
    )
    return ShortKey(forms, compacts, patterns, frozenset(KNOWN_TERMS - compacts), stemmed)


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _typo_budget(length: int) -> int:
    """Edits forgiven for an answer of ``length`` characters: 0 up to 4, then 1, 2, 3."""
    if length <= _ACRONYM_MAX:
        return 0
    if length <= 8:
        return 1
    if length <= 15:
        return 2
    return max(3, length // 7)


def _close(given: str, form: str, key: ShortKey) -> bool:
    """Whether ``given`` is a misspelling of ``form``: same number of words, few edits, and
    the words that hold digits (model names, sizes) exactly the same."""
    if len(given.split()) != len(form.split()):
        return False
    if [w for w in given.split() if _digits(w)] != [w for w in form.split() if _digits(w)]:
        return False
    given, form = given.replace(" ", ""), form.replace(" ", "")
    if given in key.terms or _digits(given) != _digits(form):
        return False
    budget = _typo_budget(len(form))
    if budget == 0:
        return False
    return Levenshtein.distance(given, form, score_cutoff=budget) <= budget


def _mentions_other_term(normal: str, key: ShortKey, span: tuple[int, int]) -> bool:
    rest = (normal[: span[0]] + " " + normal[span[1] :]).split()
    return any(w in key.terms for w in rest) or any(
        " ".join(rest[i : i + 2]) in key.terms for i in range(len(rest) - 1)
    )


_IDENTIFIER = re.compile(r"[\w.\-/]*[a-z][\w\-]*[._/][\w.\-/]*")
_TOKEN_EDGE = ".,;:'\"`()[]{}<>"


@lru_cache(maxsize=4096)
def identifiers(question: Question) -> frozenset[str]:
    """The accepted answers that are identifiers (labels, resource names, variables):
    ``nvidia.com/mig.config``, ``CUDA_MPS_PIPE_DIRECTORY``. They are matched exactly."""
    return frozenset(
        a.casefold() for a in question.accepted if _IDENTIFIER.fullmatch(a.casefold().strip())
    )


def _identifier_verdict(question: Question, answer: str) -> bool | None:
    """True when the answer holds an accepted identifier exactly, False when it holds a
    near miss of one ("nvidia.com/mig.config.state", "…_THREADS_…"), else None."""
    forms = identifiers(question)
    if not forms:
        return None
    tokens = [t.strip(_TOKEN_EDGE) for t in re.split(r"[^\w.\-/]+", answer.casefold())]
    found = [t for t in tokens if t and _IDENTIFIER.fullmatch(t)]
    if any(t in forms for t in found):
        return True
    for token in found:
        flat = compact(token)
        if any(compact(f) in flat or fuzz.ratio(compact(f), flat) >= 85 for f in forms):
            return False
    return None


def check_short(question: Question, answer: str) -> bool:
    """Whether ``answer`` gives one of ``question``'s accepted answers (never raises)."""
    key = short_key(question)
    normal = prepare(answer)
    if not normal:
        return False
    if answer.casefold().strip() in {a.casefold() for a in question.accepted}:
        return True
    exact = _identifier_verdict(question, answer)
    if exact is not None:
        return exact
    if normal.replace(" ", "") in key.compacts:
        return True
    if any(_close(normal, form, key) for form in key.normals):
        return True
    # "or" in an aside ("unless you pick single or mixed") is no hedge about the answer.
    condition = _CONDITION.search(normal)
    head = normal[: condition.start()] if condition else normal
    hedged = bool(_HEDGE.search(head))
    for pattern in key.patterns:
        for m in pattern.finditer(normal):
            if _NEGATION.search(normal[: m.start()]):
                continue
            after = condition is not None and m.start() >= condition.start()
            if after and _mentions_other_term(head, key, (0, 0)):
                continue  # "single, unless it is none" answers "single"
            return not (hedged and _mentions_other_term(normal, key, m.span()))
    # "time-sliced sharing" for "time-slicing": the same words, other endings.
    stems = _stems(normal)
    for pattern in key.stemmed:
        found = pattern.search(stems)
        if found and not _NEGATION.search(stems[: found.start()]) and not hedged:
            return True
    # A verbose answer with a typo: "its the multi proces service".
    if len(normal) <= 400:
        for form in key.normals:
            if len(form) < 9 or len(normal) <= len(form):
                continue
            align = fuzz.partial_ratio_alignment(form, normal, score_cutoff=88)
            if align is None:
                continue
            # Widen the aligned piece to whole words: "multi instance g" is not a match.
            start = normal.rfind(" ", 0, align.dest_start) + 1
            end = normal.find(" ", max(align.dest_end - 1, start))
            end = len(normal) if end < 0 else end
            piece = normal[start:end]
            if _close(piece, form, key) and not _NEGATION.search(normal[:start]):
                return True
    return False

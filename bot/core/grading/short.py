"""Short-answer questions: accepted answers, acronyms, and typos in proportion.

An answer is right when, after normalisation, it is an accepted answer or its
acronym, contains one (a verbose answer), or is a close misspelling of one.
Typo tolerance grows with length and never applies to short acronyms (MSP is
not MPS), to answers whose digits differ (H100 is not H200), or to a different
real term of the field (HBM2 is not HBM2e, MIG is not MPS). An answer that offers
another term beside the right one ("MIG or MPS") is a hedge, not an answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from bot.core.content import Question
from bot.core.grading.normalize import compact, fold, normalize
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
_ABBREVIATIONS = {
    "gen": "generation", "gens": "generations", "ctx": "context", "ctxs": "contexts",
}  # fmt: skip


def _slips(form: str) -> set[str]:
    """Every slip of ``form``: one letter left out, or two neighbouring letters swapped ("non"
    for "none", "thrid" for "third"): the slips of a hand, which, unlike a changed or added
    letter, seldom spell another word."""
    drops = {form[:i] + form[i + 1 :] for i in range(len(form))}
    swaps = {form[:i] + form[i + 1] + form[i] + form[i + 2 :] for i in range(len(form) - 1)}
    return (drops | swaps) - {form}


# Ordinals and their slips ("thrid", "eigth", "forth"), as 1st/2nd/3rd; "eight" stays 8.
_ORDINAL_FORMS = {
    typed: n for w, n in _ORDINALS.items() for typed in _slips(w) if words_to_digits(typed) == typed
} | _ORDINALS


@lru_cache(maxsize=8192)
def prepare(text: str) -> str:
    """``normalize`` plus number words as digits, ordinals (and their slips: "thrid") as
    1st/2nd/3rd, and "gen" and "ctx" spelt out."""
    normal = normalize(words_to_digits(normalize(text)))
    words = [_ABBREVIATIONS.get(w) or _ORDINAL_FORMS.get(w, w) for w in normal.split()]
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
    words: frozenset[str] = frozenset()  # four-letter words ("none"), not acronyms ("NVLS")


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
    words = frozenset(
        a for a in question.accepted if len(a) == _ACRONYM_MAX and a.isalpha() and a.islower()
    )
    return ShortKey(forms, compacts, patterns, frozenset(KNOWN_TERMS - compacts), stemmed, words)


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
        # A word, not an acronym, may lose or swap a letter: "non" for "none".
        return form in key.words and given in _slips(form)
    # A swap of two neighbouring letters is one slip ("cohrot" for "cohort").
    return OSA.distance(given, form, score_cutoff=budget) <= budget


def _mentions_other_term(normal: str, key: ShortKey) -> bool:
    words = normal.split()
    return any(w in key.terms for w in words) or any(
        "".join(words[i : i + 2]) in key.terms for i in range(len(words) - 1)
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


_SEPARATORS = re.compile(r"[./_]")
_SEGMENT_EDGE = re.compile(r"[./_\-]")


def _identifier_slip(token: str, form: str) -> bool:
    """Whether ``token`` is the identifier ``form`` with one slip of the hand ("nvida.com/…",
    "…_PRIORTY", "gpu.prodcut", "pod-group" run together): one letter left out, added,
    changed, or two swapped, inside a word of at least three letters that holds no digit,
    with every dot, slash and underscore in place, and not a plural ("…_THREADS_…") or
    another term of the field."""
    if OSA.distance(token, form, score_cutoff=1) != 1:
        return False
    if _SEPARATORS.findall(token) != _SEPARATORS.findall(form):
        return False
    head = 0
    while head < min(len(token), len(form)) and token[head] == form[head]:
        head += 1
    tail = 0
    while tail < min(len(token), len(form)) - head and token[-1 - tail] == form[-1 - tail]:
        tail += 1
    # The words the slip touched, in the form and in the answer (a hyphen's two words).
    start = max((m.end() for m in _SEGMENT_EDGE.finditer(form, 0, head)), default=0)
    stop = next((m.start() for m in _SEGMENT_EDGE.finditer(form, len(form) - tail)), len(form))
    stop = max(stop, len(form) - tail)
    meant = form[start:stop]
    typed = token[start : stop + len(token) - len(form)]
    if _digits(meant) or sum(ch.isalpha() for ch in meant) < 3 or compact(typed) in KNOWN_TERMS:
        return False
    return typed.rstrip("s") != meant.rstrip("s")


# A profile name with its "GB" written "G": "1g.18g" (not a resource name, which must be exact).
_GIGS = re.compile(r"^\d+g\.\d+g$")


def _identifier_verdict(question: Question, answer: str) -> bool | None:
    """True when the answer holds an accepted identifier exactly or with one slip of the
    hand, False when it holds a near miss of one ("nvidia.com/mig.config.state",
    "…_THREADS_…"), else None."""
    forms = identifiers(question)
    if not forms:
        return None
    tokens = [t.strip(_TOKEN_EDGE) for t in re.split(r"[^\w.\-/]+", answer.casefold())]
    found = [t for t in tokens if t and _IDENTIFIER.fullmatch(t)]
    if any(t in forms or (_GIGS.search(t) and f"{t}b" in forms) for t in found):
        return True  # "1g.18g" for 1g.18gb, as "20G" is 20 GB
    if any(_identifier_slip(t, f) for t in found for f in forms):
        return True
    for token in found:
        flat = compact(token)
        if any(compact(f) in flat or fuzz.ratio(compact(f), flat) >= 85 for f in forms):
            return False
    return None


# Where a clause ends: punctuation (not a dot, comma or colon inside a name or a number), a
# dash between spaces.
_CLAUSE = re.compile(r"[;!?()\[\]{}]|:(?=\s|$)|(?<!\d),|,(?!\d)|\s-+\s|\.(?=\s|$)")
# "X or Y", "X / Y", and "X/Y" between two plain words (not "nvidia.com/gpu", not "TB/s").
_OR = re.compile(r"\s+(?:or|/)\s+")
_SLASHED = re.compile(r"(?<![\w./:=-])([\w-]{2,})/([\w-]{2,})(?![\w./:=-])")
# A clause that offers an alternative to what came before: ", or Y", ", maybe Y".
_OFFER = re.compile(
    r"(?:but\s+)?(?:or\s+)?(?:maybe|perhaps|possibly|probably|(?:it\s+)?(?:could|might)"
    r"\s+(?:also\s+)?be|or)\s+"
)
# What follows these words is not an alternative answer: a condition, a denial, a contrast.
_CUT = re.compile(
    r"\b(?:unless|except|other than|instead of|rather than|not|never|neither|nor|but|vs|versus"
    r"|whether|if)\b"
)
# No second term after the "or": a vague tail ("or whatever", "or so", "or later"), or
# another name for the same thing ("or just …", "or … for short").
_NO_RIVAL = frozenset(
    {"whatever", "whichever", "so", "similar", "something", "thereabouts", "equivalent",
     "later", "newer", "above", "higher", "more", "not", "anything", "like", "such", "other",
     "others", "whatnot", "else", "otherwise", "just", "simply", "equivalently", "aka",
     "called", "known", "short", "formally", "officially", "in"}
)  # fmt: skip
_OFFER_MAX_WORDS = 4  # ", maybe HBM3e on newer parts", not a sentence
_NEAR = 2  # words between the accepted term and the "or" ("best effort one or ...")
_HEDGE_WORD = re.compile(r"\b(?:or|maybe|perhaps|possibly|probably|could|might)\b|/")


def _rival(text: str) -> bool:
    """Whether ``text`` reads as a second term: a few words (a name with dots is one), not a
    vague tail or an alias; beyond two words, it must name a term of the field ("HBM3e on
    newer parts", not "the scheduler skips them")."""
    words = prepare(text).split()
    typed = len(text.split())
    if not words or words[0] in _NO_RIVAL or typed > _OFFER_MAX_WORDS:
        return False
    return typed <= 2 or bool(KNOWN_TERMS.intersection(words))


def _vague(text: str) -> bool:
    words = prepare(text).split()
    return not words or words[0] in _NO_RIVAL


def _beside(question: Question, text: str, *, at_end: bool) -> bool:
    """Whether the accepted term in ``text`` stands next to its end (or start), where an "or"
    joins it: "it's best effort | or equal share", not "mixed because single hides them |
    or lumps them"."""
    normal = prepare(text)
    ends = [m.end() if at_end else m.start() for p in short_key(question).patterns
            for m in p.finditer(normal)]  # fmt: skip
    if not ends:
        return True  # named by a typo or an identifier: the whole piece is the term
    gap = normal[max(ends) :] if at_end else normal[: min(ends)]
    return len(gap.split()) <= _NEAR


def _hedges(question: Question, answer: str) -> bool:
    """Whether ``answer`` offers another term beside an accepted one: "MIG or MPS", "3rd or
    4th", "HBM3, maybe HBM3e". Another name of the same thing ("…Range, or cuCtx…Range in the
    driver API"), a vague tail ("or whatever"), and an "or" after a condition or a denial
    ("unless you pick single or mixed", "a hint, not preemption or priority") are no hedge."""
    named = False
    rival = False  # the answer opened with another term on its own ("Equal Share, or …")
    for n, clause in enumerate(_CLAUSE.split(fold(answer))):
        clause = _SLASHED.sub(r"\1 / \2", clause.strip())
        if not clause:
            continue
        offer = _OFFER.match(clause)
        if offer is not None:
            clause = clause[offer.end() :]
        cut = _CUT.search(clause)
        head = clause[: cut.start()] if cut else clause
        parts = [a.removeprefix("either ") for a in _OR.split(head) if a.strip()]
        gives = [_gives(question, a) for a in parts]
        if offer is not None and (
            (named and _rival(head) and not any(gives)) or (rival and gives[:1] == [True])
        ):
            return True
        rival = n == 0 and len(parts) == 1 and not gives[0] and _rival(head)
        for i, part in enumerate(parts):
            if gives[i] or _vague(part):
                continue
            before = i > 0 and gives[i - 1] and _beside(question, parts[i - 1], at_end=True)
            after = i + 1 < len(parts) and gives[i + 1]
            if before or (after and _beside(question, parts[i + 1], at_end=False)):
                return True
        named = named or any(gives)
    return False


def check_short(question: Question, answer: str) -> bool:
    """Whether ``answer`` gives one of ``question``'s accepted answers, and no other term
    beside it (never raises)."""
    if not _gives(question, answer):
        return False
    return not (_HEDGE_WORD.search(fold(answer)) and _hedges(question, answer))


def _gives(question: Question, answer: str) -> bool:
    """Whether ``answer`` names one of ``question``'s accepted answers."""
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
    # A term named only in a condition ("single, unless it is none") is not the answer.
    condition = _CONDITION.search(normal)
    head = normal[: condition.start()] if condition else normal
    for pattern in key.patterns:
        for m in pattern.finditer(normal):
            if _NEGATION.search(normal[: m.start()]):
                continue
            if m.group(0).replace(" ", "") in key.terms:
                continue  # a plural that spells another term: "MP" + "s" is MPS
            after = condition is not None and m.start() >= condition.start()
            if after and _mentions_other_term(head, key):
                continue
            return True
    # "time-sliced sharing" for "time-slicing": the same words, other endings.
    stems = _stems(normal)
    for pattern in key.stemmed:
        found = pattern.search(stems)
        if found and not _NEGATION.search(stems[: found.start()]):
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

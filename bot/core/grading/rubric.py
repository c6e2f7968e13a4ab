"""Open questions with a rubric: which points does an answer make?

A point is made when one of its phrases appears in a clause of the answer
(after normalisation; ``re:`` phrases are regular expressions) and is not
negated in that clause ("time-slicing does not isolate memory" does not make
the point "isolates memory"). A ``none`` phrase that appears un-negated
cancels the point. A point worded unlike all its phrases is still made when one
sentence of the answer holds at least half of the words of the point's own text (see
``_in_other_words``). Matchers are compiled once per question and cached.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import Stemmer
from rapidfuzz.distance import OSA

from bot.core.content import Question, RubricPoint
from bot.core.grading.normalize import PARAPHRASES, fold, normalize
from bot.core.grading.overlap import STOPWORDS

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
# "all or nothing" is a policy, not a denial of what follows it.
_NOT_DENIALS = frozenset({("or", "nothing")})
_WINDOW_BEFORE = 6
_STEM = Stemmer.Stemmer("english")
_WINDOW_AFTER = 3
# Cues that open a claim of their own rather than deny what came before them: "best effort,
# max utilisation, no guarantee", "time-slicing with no isolation".
_NEW_CLAIM = frozenset({"no", "zero", "nothing", "without", "lack", "lacking", "lacks"})
# Words that open a claim of their own after a phrase: a denial after them is that claim's
# ("find where it came from so it doesn't happen again" does not deny "came from").
_JOINERS = frozenset({"so", "and", "because", "since", "then", "when", "if", "unless", "hence"})


@dataclass(frozen=True, slots=True)
class PointMatcher:
    """One rubric point's compiled phrases."""

    point: RubricPoint
    any_: tuple[re.Pattern[str], ...]
    none: tuple[re.Pattern[str], ...]
    quantities: tuple[tuple[float, str], ...] = ()
    denied: tuple[re.Pattern[str], ...] = ()  # phrases that count only where denied
    loose_none: tuple[re.Pattern[str], ...] = ()  # ``none`` phrases with words between


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
    parts = [
        _BE if 0 < i < len(words) - 1 and w in _BE_WORDS else _word_pattern(w)
        for i, w in enumerate(words)
    ]
    return re.compile(r"(?<![\w.])" + _JOIN.join(parts) + r"(?![\w])")


# Between two words of a phrase, the answer may put a possessive or a demonstrative, as it
# may put an article: "stays inside its instance" is "inside the instance".
# So may an adverb that only softens or stresses ("can still grab nearly all of it").
_FILLERS = ("its", "their", "this", "that", "each", "every", "still", "also", "even", "really",
            "actually", "just", "nearly", "almost", "basically", "simply")  # fmt: skip
_JOIN = r"\s?(?:(?:" + "|".join(_FILLERS) + r")\s)?"
# A "to be" inside a phrase may be left out or put in another tense, as terse answers do:
# "faults are contained" is also "faults contained", "faults were contained".
_BE_WORDS = frozenset({"is", "are", "was", "were", "be", "been", "being", "gets", "get"})
_BE = r"(?:(?:" + "|".join(sorted(_BE_WORDS)) + r")\s)?"


_DETERMINERS = frozenset({"its", "their", "his", "her", "your", "our", "my", "this", "that"})
_INFLECTION = re.compile(r"(?<=[a-z]{3})(?:ing|ed|es|s)$")


# Words that rubric phrases and answers use for one another: a phrase word matches each
# of its group's words in their forms ("splits the batch" is "divides the batch").
SYNONYMS = (
    ("inside", "within"),
    ("split", "divide", "cut", "shard"),
    ("whole", "entire", "full"),
    ("restart", "reboot", "relaunch"),
    ("large", "big", "huge"),
    ("small", "tiny"),
    ("fast", "quick"),
    ("guarantee", "promise"),
)
_SYNONYM = {word: group for group in SYNONYMS for word in group}


def _word_pattern(word: str) -> str:
    """One word of a phrase in its other forms: "stays" is also "stay", "stayed",
    "staying"; "contained" is "contains"; a possessive ("its") may be any or none, and an
    object pronoun ("them") any word or none; a word of a synonym group, any of the group's."""
    group = _SYNONYM.get(word) or _SYNONYM.get(_INFLECTION.sub("", word))
    if group:
        return "(?:" + "|".join(_forms(w) for w in group) + ")"
    return _forms(word)


def _forms(word: str) -> str:
    """``word`` in its other forms (see :func:`_word_pattern`)."""
    if word in ("them", "it"):  # "won't kick them out" is also "won't kick out kernels"
        return _ANY_OBJECT
    if word in _DETERMINERS:
        return r"(?:(?:" + "|".join(sorted(_DETERMINERS)) + r")\s)?"
    if not word.isalpha() or len(word) < 3:
        return re.escape(word)
    if len(word) < 5:
        if len(word) == 4 and word.endswith("s") and not word.endswith("ss"):
            return re.escape(word[:-1]) + r"(?:e?s)?"  # "gpus" is also "gpu", as in "8-gpu"
        return re.escape(word) + r"(?:e?s)?"
    if word.endswith("ss"):  # "bypass": "bypasses", "bypassed", "bypassing", "bypassable"
        return re.escape(word) + r"(?:es|ed|ing|able)?"
    base = _INFLECTION.sub("", word)
    return re.escape(base) + r"(?:e|es|s|ed|d|ing|able)?"


# An object pronoun of a phrase stands for any one word but a denial: "it preempts" is not
# made by "doesn't preempt".
_ANY_OBJECT = (
    r"(?:(?!(?:"
    + "|".join(sorted(_CUES, key=len, reverse=True))
    + r")\s)\w+\s)?"
)


_AUXILIARIES = frozenset(
    {"does", "do", "did", "will", "is", "are", "was", "be", "been", "can", "could", "would",
     "it", "they", "get", "gets", "got", "any", "ever", "being"}
)  # fmt: skip
_CUE_WORDS = "|".join(sorted(_CUES - {"nt", "zero", "fails", "hardly"}, key=len, reverse=True))


def _negative_fact(phrase: str) -> re.Pattern[str] | None:
    """A phrase that states a negative fact ("does not preempt", "no preemption") as any
    denial of its word: "running kernels aren't preempted", "nothing is preempted"."""
    if phrase.startswith("re:"):
        return None
    words = normalize(phrase).split()
    cues = [w for w in words if w in _CUES]
    rest = [w for w in words if w not in _CUES and w not in _AUXILIARIES]
    if not cues or len(rest) != 1 or len(rest[0]) < 5 or not rest[0].isalpha():
        return None
    root = _root(rest[0])
    return re.compile(rf"(?<![\w])(?:{_CUE_WORDS})(?:\s+\w+){{0,2}}?\s+{re.escape(root)}\w*")


def _denied_phrase(phrase: str) -> re.Pattern[str] | None:
    """A phrase that opens with a denial ("not exactly half", "no memory limit") as the
    rest of its words, to be made where the answer denies them: "neither is exactly half",
    "there's no hard memory limit"."""
    if phrase.startswith("re:"):
        return None
    words = normalize(phrase).split()
    at = 0
    while at < len(words) and words[at] in _AUXILIARIES:
        at += 1
    if at == len(words) or words[at] not in _CUES:
        return None
    while at < len(words) and (words[at] in _CUES or words[at] in _AUXILIARIES):
        at += 1
    rest = words[at:]
    return _phrase_pattern(" ".join(rest)) if len(rest) >= 2 else None


def _found_denied(patterns: tuple[re.Pattern[str], ...], parts: list[tuple[str, str]]) -> bool:
    """Whether one of ``patterns`` appears denied in a clause of ``parts``."""
    for pattern in patterns:
        for _, normal in parts:
            for m in pattern.finditer(normal):
                if m.end() > m.start() and _negated(normal, m.start(), m.end()):
                    return True
    return False


def _unprefixed_fact(phrase: str) -> re.Pattern[str] | None:
    """A one-word phrase with the prefix "un-" ("untrusted", "unhealthy") as any denial of
    its root: "tenants don't trust each other", "not healthy"."""
    if phrase.startswith("re:"):
        return None
    words = [w for w in normalize(phrase).split() if w not in _AUXILIARIES]
    if len(words) != 1 or not words[0].startswith("un") or words[0].startswith(_NOT_UN):
        return None
    rest = words[0][2:]
    if len(rest) < 4 or not rest.isalpha() or rest in _NOT_UN_ROOTS:
        return None
    root = _root(rest)
    return re.compile(rf"(?<![\w])(?:{_CUE_WORDS})(?:\s+\w+){{0,2}}?\s+{re.escape(root)}\w*")


# Words that begin with "un" but are not a denial of the rest ("under", "unit", "until").
_NOT_UN = ("under", "uni", "unle", "unti")
_NOT_UN_ROOTS = frozenset({"even", "like", "less"})


def _root(word: str) -> str:
    """``word``'s stem, a "-tion" noun as its verb: "preemption" -> "preempt"."""
    root: str = _STEM.stemWord(word)
    return root[:-3] if root.endswith("tion") else root


_PARAPHRASE_GROUPS = tuple(tuple(normalize(p) for p in group) for group in PARAPHRASES)


def _paraphrased(phrases: tuple[str, ...]) -> list[re.Pattern[str]]:
    """Patterns for ``phrases`` with each paraphrase of a part of them put in its place."""
    out = []
    for phrase in phrases:
        if phrase.startswith("re:"):
            continue
        normal = normalize(phrase)
        for group in _PARAPHRASE_GROUPS:
            for member in group:
                if not re.search(rf"(?<!\w){re.escape(member)}(?!\w)", normal):
                    continue
                for other in group:
                    if other != member:
                        pattern = _phrase_pattern(normal.replace(member, other))
                        if pattern is not None:
                            out.append(pattern)
    return out


@lru_cache(maxsize=4096)
def compile_rubric(question: Question) -> tuple[PointMatcher, ...]:
    """Compile ``question``'s rubric phrases (cached per question)."""
    out = []
    for point in question.rubric:
        any_ = tuple(p for p in map(_phrase_pattern, point.any) if p is not None)
        facts = {f.pattern: f for f in map(_negative_fact, point.any) if f is not None}
        facts |= {f.pattern: f for f in map(_unprefixed_fact, point.any) if f is not None}
        facts |= {f.pattern: f for f in _paraphrased(point.any) if f.pattern not in facts}
        any_ += tuple(facts.values())
        # Plain ``none`` phrases are read loosely (below); ``re:`` ones as written.
        regexes = tuple(p for p in point.none if p.startswith("re:"))
        none = tuple(p for p in map(_phrase_pattern, regexes) if p is not None)
        quantities = tuple(
            q for q in (_quantity(p) for p in point.any if not p.startswith("re:")) if q
        )
        denied = tuple(p for p in map(_denied_phrase, point.any) if p is not None)
        loose = _loose_none(point.none)
        out.append(PointMatcher(point, any_, none, quantities, denied, loose))
    return tuple(out)


# A myth is said in other words than its ``none`` phrase: up to this many words may stand
# between the phrase's words ("MPS runs kernels concurrently and isolates faults" says "MPS
# isolates faults").
_NONE_GAP = 4
# Words that report or refute a claim: an answer that uses them may be telling the myth in
# order to correct it, so a myth it says in other words cancels nothing.
_REPORTING = re.compile(
    r"\b(?:myths?|wrong|false|untrue|not true|isnt true|incorrect|misconception|misleading"
    r"|nonsense|people (?:think|believe|say)|some (?:people|say)|they say|(?:claim|belief|idea"
    r"|think|thinks|assume|assumes|believe|claims|claimed) that|assumption|tempting)\b"
)


def _loose_none(phrases: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Plain ``none`` phrases, those of two words or more with up to ``_NONE_GAP`` words
    between their words; none of them a denial, nor the first word of another ``none``
    phrase (its subject: "time slicing ... concurrently" is not said by "time slicing mps
    runs concurrently")."""
    plain = [normalize(p).split() for p in phrases if not p.startswith("re:")]
    leads = {words[0] for words in plain if words}
    out = []
    for words in plain:
        exact = _phrase_pattern(" ".join(words))
        out.extend([exact] if exact is not None else [])
        if len(words) < 2 or words[0] in ("it", "them") or set(words) & _DETERMINERS:
            continue
        banned = "|".join(sorted(map(re.escape, (leads - set(words)) | _CUES), key=len)[::-1])
        gap = rf"(?:\s+(?!(?:{banned})\b)\w+){{0,{_NONE_GAP}}}\s+"
        out.append(
            re.compile(r"(?<![\w.])" + gap.join(map(_word_pattern, words)) + r"(?![\w])")
        )
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
    "ckpt": "checkpoint", "ckpts": "checkpoints", "hw": "hardware", "sw": "software",
    "diff": "different", "mgr": "manager", "xfer": "transfer", "bw": "bandwidth",
    "w": "with", "u": "you",
}  # fmt: skip
_SHORTHAND = re.compile(
    r"(?<![\w/])("
    + "|".join(sorted(map(re.escape, SHORTHANDS), key=len, reverse=True))
    + r")(?![\w/])"
)


def spell_out(folded: str) -> str:
    """``folded`` with the shorthands people type spelt out ("prio" -> "priority")."""
    return _SHORTHAND.sub(lambda m: SHORTHANDS[m.group(1)] + " ", folded)


@lru_cache(maxsize=4096)
def _spellings(question: Question) -> tuple[frozenset[str], frozenset[str]]:
    """The long words of ``question``'s phrases, and every word its text uses."""
    phrases = [p for point in question.rubric for p in point.any if not p.startswith("re:")]
    long_words = frozenset(
        w for p in phrases for w in normalize(p).split() if w.isalpha() and len(w) >= 7
    )
    texts = [question.prompt, question.explanation, *(p.point for p in question.rubric)]
    return long_words, frozenset(normalize(" ".join(texts + phrases)).split())


def _respelt(parts: list[tuple[str, str]], question: Question) -> list[tuple[str, str]]:
    """``parts`` with one-letter typos of the rubric's long words put right ("homogenous",
    "isloation"), when the word typed is not itself a word of the question nor another form
    of the same word ("isolates" stays: phrases match a word's forms already, and a
    ``none:`` pattern may spell the form out)."""
    long_words, known = _spellings(question)
    if not long_words:
        return parts
    out = []
    for folded, normal in parts:
        words = normal.split()
        for i, word in enumerate(words):
            if len(word) < 7 or word in known or not word.isalpha():
                continue
            near = [
                w
                for w in long_words
                if w[0] == word[0] and abs(len(w) - len(word)) <= 1 and OSA.distance(w, word) == 1
            ]
            if len(near) == 1 and not _inflected(near[0], word):
                words[i] = near[0]
        out.append((folded, " ".join(words)))
    return out


def _inflected(one: str, other: str) -> bool:
    """Whether one word is the other with an inflection: "isolates" and "isolate"."""
    short, long_ = sorted((one, other), key=len)
    return long_.startswith(short) and long_[len(short) :] in ("s", "es", "d", "ed")


def fold_lines(answer: str) -> str:
    """``answer`` folded line by line: a line break, which ``fold`` would make a space,
    still ends a clause ("DP: splits the batch\nTP: ..." is two claims, not one)."""
    return "\n".join(f for f in map(fold, answer.splitlines()) if f)


def clauses(answer: str) -> list[tuple[str, str]]:
    """Split ``answer`` into clauses, each as (folded text, normalised text)."""
    out: list[tuple[str, str]] = []
    for piece in _CLAUSE.split(_unlabel(spell_out(fold_lines(answer)))):
        if piece and piece.strip():
            normal = normalize(piece)
            if normal and out and _RELATIVE.match(normal):
                # "data parallelism, which splits the batch": the relative clause goes on.
                folded, before = out.pop()
                out.append((f"{folded} {piece}", f"{before} {normal}"))
            elif normal:
                out.append((piece, normal))
    return out


_RELATIVE = re.compile(r"(?:which|who|whose)\b")
# A short label that opens a line or a sentence is read with what follows it: "DP: splits
# the batch" is one clause about data parallelism, not a bare "DP" and a bare "splits".
_LABEL = re.compile(
    r"(^|\n|[.;!?]\s|\s[-–—]\s)\s*[-*•]?\s*([^\W\d_][\w/+.-]*(?: [\w/+.-]+){0,2}):\s"
)
# Notes put a dash after a label that opens a line: "DP - splits the batch".
_DASH_LABEL = re.compile(r"^(\s*[-*•]?\s*[^\W\d_][\w/+.]*(?: [\w/+.]+){0,2})\s+[-–—]+>?\s", re.M)


def _unlabel(folded: str) -> str:
    """``folded`` with each label read with what follows it: its colon or dash goes."""
    return _DASH_LABEL.sub(r"\1 ", _LABEL.sub(r"\1\2 ", folded))


def _negated(normal: str, start: int, end: int) -> bool:
    """Whether the words just before ``start`` (or just after ``end``) deny the match."""
    before = normal[:start].split()[-_WINDOW_BEFORE:]
    for i, word in enumerate(before):
        if word in _CUES and not (i and (before[i - 1], word) in _NOT_DENIALS):
            rest = before[i + 1 :] or normal[start:end].split() or [""]
            following = rest[0]
            if (word, following) not in _NOT_CUES:
                return True
    after = normal[end:].split()[:_WINDOW_AFTER]
    for i, word in enumerate(after):
        if word in _JOINERS:  # "... where it came from, so it doesn't happen again"
            break
        if word in _CUES and word not in _NEW_CLAIM:
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


# A point's subject: the name before its colon ("MIG: hardware partitions ...", "Best
# Effort: ..."), when it names a thing (an acronym, a hyphenated or Title Case name, or a
# word of the prompt) rather than a step ("Resolve: ...").
_SUBJECT = re.compile(r"^\s*([^:()]{1,30}?)\s*:\s")
_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9]*[A-Z]|[a-z][A-Z]{2,}")


def _subject_pattern(name: str) -> re.Pattern[str]:
    """``name`` as it may be typed: "Time-slicing" is also "time sliced", "timeslicing",
    and a name of several words its initials ("ts", "FS" for Fixed Share) unless they
    spell a common word ("be" for Best Effort)."""
    from bot.core.grading.overlap import STOPWORDS

    words = normalize(name).split()
    parts = [re.escape(w[:-3] if len(w) >= 6 else w) + r"\w*" for w in words]
    typed = r"\s?".join(parts)
    initials = "".join(w[0] for w in words)
    if len(words) > 1 and initials.isalpha() and initials not in STOPWORDS:
        typed = f"(?:{typed}|{initials})"
    return re.compile(r"(?<![\w.])" + typed + r"(?![\w])")


@dataclass(frozen=True, slots=True)
class Subjects:
    """Which points are about which named thing, and which phrases only describe it."""

    patterns: tuple[re.Pattern[str] | None, ...]  # per point, its subject's name
    describing: tuple[tuple[re.Pattern[str], ...], ...]  # per point, phrases without a name
    words: tuple[frozenset[str], ...]  # per point, the stems of its text and phrases
    names: frozenset[str]  # the stems of every subject's name
    naming: tuple[tuple[re.Pattern[str], ...], ...]  # per point, phrases that are a name


@lru_cache(maxsize=4096)
def subjects(question: Question) -> Subjects | None:
    """The subjects of ``question``'s points, when at least two points name different ones."""
    prompt = set(normalize(question.prompt).split())
    names: list[str | None] = []
    for point in question.rubric:
        m = _SUBJECT.match(point.point)
        name = m.group(1) if m else ""
        words = normalize(name).split()
        named = 0 < len(words) <= 3 and (
            bool(_ACRONYM.search(name))
            or "-" in name
            or (len(words) > 1 and name.istitle())
            or set(words) <= prompt
        )
        names.append(normalize(name) if named else None)
    for i, name in enumerate(names):  # "MIG trade-off" is about MIG
        shorter = [n for n in names if n and name and n != name and name.startswith(n + " ")]
        if shorter:
            names[i] = min(shorter, key=len)
    if len({n for n in names if n}) < 2:
        return None
    patterns = tuple(_subject_pattern(n) if n else None for n in names)
    every = [p for p in patterns if p is not None]
    describing = []
    naming = []
    for pm in compile_rubric(question):
        pairs = list(
            zip([p for p in pm.point.any if _phrase_pattern(p) is not None], pm.any_, strict=False)
        )
        named_by = [pattern for phrase, pattern in pairs if _names(phrase, every)]
        facts = pm.any_[len(pairs) :]  # the negative facts, which describe
        describing.append(tuple(p for _, p in pairs if p not in named_by) + facts)
        naming.append(tuple(named_by))
    named = frozenset(_stems(" ".join(n for n in names if n)))
    vocabulary: list[frozenset[str]] = []
    for point in question.rubric:
        text = point.point.split(":", 1)[-1]
        plain = " ".join(p for p in point.any if not p.startswith("re:"))
        vocabulary.append(frozenset(_stems(f"{text} {plain}")) - named)
    return Subjects(patterns, tuple(describing), tuple(vocabulary), named, tuple(naming))


def _names(phrase: str, every: list[re.Pattern[str]]) -> bool:
    return any(s.search(normalize(phrase)) for s in every)


def _stems(text: str) -> list[str]:
    from bot.core.grading.overlap import STOPWORDS

    return [_STEM.stemWord(w) for w in normalize(text).split() if w not in STOPWORDS]


def _about(normal: str, index: int, subj: Subjects) -> bool | None:
    """Whether clause ``normal`` is about point ``index``'s subject (True), about another
    point's subject only (False), or names none of them (None)."""
    own = subj.patterns[index]
    if own is not None and own.search(normal):
        return True
    if any(p is not None and p != own and p.search(normal) for p in subj.patterns):
        return False
    return None


def match_rubric(question: Question, answer: str) -> tuple[list[RubricPoint], list[RubricPoint]]:
    """Return the rubric points ``answer`` makes and those it misses (never raises).

    Who a claim is about counts: when points are about named things ("MIG: ...", "MPS:
    ..."), a phrase in a clause about another of them does not make the point, and a point
    whose subject is given another point's property ("MIG shares one memory pool in
    turns") is not made."""
    parts = _respelt(clauses(answer), question)
    sentences: list[_Sentence] | None = None
    wordings = _wordings(question)
    matchers = compile_rubric(question)
    subj = subjects(question)
    matched: list[RubricPoint] = []
    missed: list[RubricPoint] = []
    reporting: bool | None = None  # whether the answer reports or refutes a claim
    for index, pm in enumerate(matchers):
        here, own = parts, False
        if subj is not None and subj.patterns[index] is not None:
            here = [c for c in parts if _about(c[1], index, subj) is not False]
            # A bare name ("MIG, MPS and time-slicing") lists a subject, it says nothing of it.
            said = _found(subj.describing[index], here) or _found(
                subj.naming[index], _saying(parts, here, subj)
            )
            said = said or _same_quantity(pm.quantities, here) or _found_denied(pm.denied, here)
            own = _found(subj.describing[index], here)
        else:
            said = _found(pm.any_, here) or _same_quantity(pm.quantities, here)
            said = said or _found_denied(pm.denied, here)
        if not said and wordings[index]:
            sentences = _sentences(answer) if sentences is None else sentences
            said = _in_other_words(wordings[index], index, sentences, subj)
        made = said and not _found(pm.none, parts)
        if made and pm.loose_none:
            if reporting is None:
                reporting = bool(_REPORTING.search(normalize(answer)))
            made = reporting or not _found(pm.loose_none, parts)
        if made and subj is not None and subj.patterns[index] is not None and not own:
            # A subject given another point's property is a swap, unless the answer also
            # says its own ("MPS: also one fault domain: ... hits every client").
            made = not _swapped(index, parts, subj)
        (matched if made else missed).append(pm.point)
    return matched, missed


def _saying(
    parts: list[tuple[str, str]], here: list[tuple[str, str]], subj: Subjects
) -> list[tuple[str, str]]:
    """The clauses of ``here`` that say something besides subjects' names, or that the next
    clause, naming no subject, goes on about ("MIG (hardware partitions)")."""
    out = []
    for clause in here:
        at = parts.index(clause)
        nxt = parts[at + 1] if at + 1 < len(parts) else None
        goes_on = nxt is not None and not any(
            p is not None and p.search(nxt[1]) for p in subj.patterns
        )
        if _says(clause[1], subj) or (goes_on and nxt is not None and _says(nxt[1], subj)):
            out.append(clause)
    return out


def _says(normal: str, subj: Subjects) -> bool:
    return bool(set(_stems(normal)) - subj.names)


def _swapped(index: int, parts: list[tuple[str, str]], subj: Subjects) -> bool:
    """Whether a clause about point ``index``'s subject alone gives it another point's
    property (and none of its own)."""
    mine = subj.patterns[index]
    same = [i for i, p in enumerate(subj.patterns) if p == mine]
    own = tuple(p for i in same for p in subj.describing[i])
    vocabulary = frozenset().union(*(subj.words[i] for i in same))
    for clause in parts:
        if _about(clause[1], index, subj) is not True:
            continue
        if any(p is not None and p != mine and p.search(clause[1]) for p in subj.patterns):
            continue  # "MIG and MPS both ..." compares, it does not swap
        if own and _found(own, [clause]):
            continue
        said = frozenset(_stems(clause[1])) - subj.names
        for other, phrases in enumerate(subj.describing):
            theirs = subj.patterns[other]
            if theirs is None or theirs == mine:
                continue
            if _found(phrases, [clause]):
                return True
            # In other words: the clause uses their point's words, not its own.
            given = len(said & (subj.words[other] - vocabulary))
            if (
                given >= _SWAP_WORDS
                and given >= len(said & (vocabulary - subj.words[other])) + _SWAP_MARGIN
            ):
                return True
    return False


# A clause gives its subject another point's property when it uses at least two words
# that only that point has, two more than words only its own point has.
_SWAP_WORDS = 2
_SWAP_MARGIN = 2


# A point said in other words: at least half of the point's own words (the stems of its
# text less the prompt's and the subjects' names), two at least, in one sentence of the
# answer. Sentences end at sentence punctuation, brackets, dashes and contrast words, not at
# commas: "compute, memory and cache per instance" is one claim.
_SENTENCE = re.compile(
    r"[.;!?](?!\d)|\n|\(|\)|\s[-–—]\s"
    r"|\b(?:but|while|whereas|although|though|however|unlike|except|yet|instead|rather than)\b"
)
_OWN_SHARE = 0.5
_OWN_LEAST = 2  # words at least, and words no other point's text has
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ASIDE = re.compile(r"\([^()]*\)")  # "(own SMs, L2 share)": details a paraphrase may leave out


def _stem_set(words: str) -> frozenset[str]:
    return frozenset(_STEM.stemWord(w) for w in words.split())


# Words too light to show that a sentence says a point: they count in the point's words,
# but a sentence does not make the point with them.
_LIGHT = _stem_set("put use make give get take let go do say tell know want need mean like")
_LIGHT |= _stem_set("thing way well good per")
# Verbs that pass over what follows them, as a denial does: "I'd skip likelihood and impact".
_PASS_OVER = _stem_set("skip omit ignore forget neglect disregard")
# Words and their opposites: a sentence with the opposite of one of the point's words does
# not make it in other words ("outside one region" is not "inside one region").
_OPPOSITES = (
    ("inside", "outside"), ("within", "outside"), ("shared", "dedicated"), ("shared", "own"),
    ("static", "dynamic"), ("fixed", "dynamic"), ("high", "low"), ("higher", "lower"),
    ("more", "less"), ("same", "different"), ("before", "after"), ("hard", "soft"),
    ("strong", "weak"), ("isolated", "shared"), ("spatial", "temporal"), ("whole", "partial"),
)  # fmt: skip


def _opposite_table() -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    for pair in _OPPOSITES:
        one, other = (_STEM.stemWord(w) for w in pair)
        table[one] = table.get(one, frozenset()) | {other}
        table[other] = table.get(other, frozenset()) | {one}
    return table


_OPPOSITE = _opposite_table()
# Ways of saying one thing, read as the first before the words are counted: "how likely and
# how bad each risk is" has the words of "likelihood and impact".
_SAME_THING = (
    ("crash", "crashes", "fatal error", "fatal errors", "failure", "failures", "fault", "faults"),
    ("kill", "kills", "take down", "takes down", "bring down", "brings down", "knock out"),
    ("everyone", "everybody", "every client", "all clients", "every tenant", "all tenants",
     "all sharers", "all others", "all the others"),
    ("likelihood", "likely", "probability", "probable", "chance"),
    ("impact", "severity", "how bad"),
    ("reserve", "reserved", "carve out", "set aside"),
    ("small", "smaller", "short", "shorter", "tiny"),
    ("split", "splits", "divide", "divides", "cut", "cuts", "break up", "breaks up"),
    ("whole", "entire", "full", "as a unit", "as units"),
    ("guarantee", "guarantees", "promise", "promises", "ensure", "ensures"),
    ("stay", "stays", "remain", "remains", "contained", "confined"),
)  # fmt: skip
_PLAIN_WORD = {normalize(member): group[0] for group in _SAME_THING for member in group[1:]}


def _starts() -> dict[str, int]:
    """The longest way of saying a thing that opens with a word, in words ("take" -> 2)."""
    out: dict[str, int] = {}
    for way in _PLAIN_WORD:
        first, *rest = way.split()
        if rest:
            out[first] = max(out.get(first, 0), len(rest) + 1)
    return out


_STARTS = _starts()


def _meaning(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words, each way of saying a thing as its first."""
    words = normalize(text).split()
    plain: list[str] = []
    at = 0
    while at < len(words):
        word, size = words[at], 1
        for longer in range(min(_STARTS.get(word, 0), len(words) - at), 1, -1):
            first = _PLAIN_WORD.get(" ".join(words[at : at + longer]))
            if first is not None:
                word, size = first, longer
                break
        else:
            word = _PLAIN_WORD.get(word, word)
        plain.append(word)
        at += size
    return frozenset(_STEM.stemWords([w for w in plain if w not in STOPWORDS]))


@dataclass(frozen=True, slots=True)
class _Wording:
    """What one sentence must hold to make a point in other words."""

    words: frozenset[str]  # the point's words: half of them, two at least
    own: frozenset[str]  # those no other point's text has: two of them (or all there are)
    numbers: frozenset[str]  # the numbers its text states: every one
    negative: bool  # whether the point denies something: the sentence must as well
    opposites: frozenset[str]  # opposites of its words: none of them


@lru_cache(maxsize=4096)
def _wordings(question: Question) -> tuple[tuple[_Wording, ...], ...]:
    """Per point, the ways one sentence can make it in other words: with its text, and with
    its text less its asides in brackets. Empty when the text has too few words of its own."""
    prompt = _meaning(question.prompt)
    given = frozenset(normalize(question.prompt).split())
    subj = subjects(question)
    names = subj.names if subj is not None else frozenset()
    texts = [_meaning(p.point) - prompt - names for p in question.rubric]
    out: list[tuple[_Wording, ...]] = []
    for index, point in enumerate(question.rubric):
        others = frozenset().union(*(t for i, t in enumerate(texts) if i != index))
        variants = [point.point]
        if _ASIDE.search(point.point):
            variants.append(_ASIDE.sub(" ", point.point))
        wordings = []
        for text in variants:
            stems = _meaning(text)
            words = stems - prompt - names
            if len(words) < _OWN_LEAST or not words - others:
                continue
            normal = normalize(text).split()
            numbers = frozenset(w for w in normal if _NUMBER.fullmatch(w) and w not in given)
            opposites = frozenset().union(*(_OPPOSITE.get(w, frozenset()) for w in stems))
            negative = bool(_CUES.intersection(normal))
            wordings.append(_Wording(words, words - others, numbers, negative, opposites - stems))
        out.append(tuple(wordings))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Sentence:
    normal: str
    stems: frozenset[str]
    words: frozenset[str]
    denies: bool  # a denial or a verb that passes over what follows


def _sentences(answer: str) -> list[_Sentence]:
    out = []
    for piece in _SENTENCE.split(spell_out(fold_lines(answer))):
        normal = normalize(piece) if piece else ""
        if normal:
            words = frozenset(normal.split())
            stems = _meaning(normal)
            out.append(_Sentence(normal, stems, words, bool(_CUES & words or _PASS_OVER & stems)))
    return out


def _in_other_words(
    wordings: tuple[_Wording, ...], index: int, sentences: list[_Sentence], subj: Subjects | None
) -> bool:
    """Whether one of ``sentences`` makes point ``index`` in one of its ``wordings`` (see
    ``_Wording``); with subjects, not a sentence about another point's subject only."""
    about = subj is not None and subj.patterns[index] is not None
    for wording in wordings:
        need = max(_OWN_LEAST, math.ceil(_OWN_SHARE * len(wording.words) - 1e-9))
        own = min(_OWN_LEAST, len(wording.own))
        for sentence in sentences:
            if sentence.denies != wording.negative or wording.opposites & sentence.stems:
                continue
            if not wording.numbers <= sentence.words:
                continue
            if about and subj is not None and _about(sentence.normal, index, subj) is False:
                continue
            got = (wording.words & sentence.stems) - _LIGHT
            if len(got) >= need and len(got & wording.own) >= own:
                return True
    return False

"""Choice and multi questions: which choices does an answer name?

An answer names a choice by its letter (``B``, ``b)``, ``(b)``, ``option b``), by its
place ("the second one", "option three"), by its text in any case and punctuation with
small typos forgiven, or by a distinctive fragment of it ("about 3.35 TB/s", "the one
with media engines"). Against each rival only the words that tell the two apart count for
a fragment, and the choice the fragment fits best is the one named, right or wrong. A
choice named only to be denied ("not memory isolation only", "except the L4", "the L4
can't do it" beside another choice) does not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import Stemmer
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from bot.core.content import Question
from bot.core.grading.correction import last_correction
from bot.core.grading.normalize import fold, normalize, plain_paraphrases
from bot.core.grading.overlap import STOPWORDS

# Snowball's English stemmer (PyStemmer): "isolated" and "isolation" are one word.
_STEMMER = Stemmer.Stemmer("english")


def _stem(word: str) -> str:
    """Snowball's stem, with the plurals it keeps folded ("vgpus", "vms") and a "-tion"
    noun as its verb ("preemption" is "preempt")."""
    stem: str = _STEMMER.stemWord(word)
    if stem.endswith("tion"):
        return stem[:-3]
    if len(stem) > 2 and stem.endswith("s") and not stem.endswith("ss"):
        return stem[:-1]
    return stem


_NEGATIONS = frozenset(
    {
        "not", "no", "never", "isnt", "arent", "nor", "except", "excluding", "unlike",
        "without", "besides",
    }
)  # fmt: skip
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
# Words around letters in a terse answer that name no choice: "the answer is b", "it's a",
# "pretty sure c", "b for sure" (apostrophes dropped: "it's" is "its").
_TERSE_FILLER = frozenset(
    {
        "the", "its", "thats", "id", "im", "ill", "say", "guess", "prob", "pretty", "sure",
        "for", "obviously", "clearly", "surely", "def", "definitely", "going", "gonna",
        "must", "be", "has", "to", "should", "was", "imo", "tbh", "hmm", "ok", "okay", "so",
        "well", "yes", "yeah", "that", "this", "am", "fairly", "quite", "confident",
        "believe", "reckon", "we", "choose", "select", "mine", "obvs", "here", "guessing",
    }
)  # fmt: skip
# Where a lower-case letter inside a sentence is a pick: "the answer is b", "it's a, since".
_PICKED_LETTER = re.compile(
    r"\b(?:answer(?:'?s|\s+is|\s+would\s+be)?|it'?s|i'?d\s+(?:say|go\s+with|pick|choose)"
    r"|go(?:ing)?\s+with|pick(?:ing)?|choos(?:e|ing)|guess|must\s+be|has\s+to\s+be"
    r"|should\s+be|would\s+be|is)\s*:?\s*([a-j])"
    r"(?=\s*$|\s*[,.;:!?)](?!\w)|\s+-|\s+(?:because|since|as|i\s+think|imo|for\s+sure)\b)"
)
_LETTER_MARKS = re.compile(r"\(([a-j])\)|\b([a-j])\)|\b(?:option|answer|choice)s?\s*:?\s*([a-j])\b")
_LETTER = r"[a-j](?![\w'’])"
_JOIN = r"\s*(?:[+&/,]|\band\b)\s*"
_LEAD_LETTERS = re.compile(
    rf"^\s*(?:(?:options?|answers?|choices?)\s*:?\s*)?({_LETTER}(?:(?:{_JOIN}|\s+){_LETTER})*)"
    r"(?:\s*(?:[,.]|-+\s)\s*(?!" + _LETTER + r")\S"  # "A, B, C, D but not E" is no lead "A, B, C"
    r"|\s*[:;]\s*\S"  # "A, B and C; D is the old wording"
    r"|\s+(?:because|since|cause|as)\b)"  # "B because the others ..."
)
# Words after "A" that show it is the letter, not the article: "A is the answer", "A for sure".
_AFTER_LETTER = re.compile(
    r"\s+(?:is|was|and|or|nor|not|isn'?t|because|since|cause|vs|versus|plus|over|obviously|"
    r"definitely|probably|clearly|surely|i|i'?m|i'?d|it|it'?s|imo|tbh|then|too|also|seems|"
    r"looks|sounds|fits|works|holds|applies|counts|matches|might|may|could|does|did|has|had|"
    r"would|should|will|"
    r"second|first|for\s+sure|rather\s+than|instead\s+of|as\s+well|[b-j])(?![\w'’])",
    re.IGNORECASE,
)
_ONE_LETTER = re.compile(rf"(?<![\w'’]){_LETTER}")
_JOINED_LETTERS = re.compile(rf"(?<![\w'’]){_LETTER}(?:\s*[+&/]\s*{_LETTER})+")
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


def _letters_named(raw: str, key: ChoiceKey, *, lead: bool = True) -> tuple[set[int], bool]:
    """Letters in ``raw`` (original case); the flag says the answer is letters only (or,
    with ``lead``, letters that lead an explanation)."""
    folded = fold(raw)
    valid = "".join(key.letters)
    named: set[int] = set()
    bare = re.sub(r"[^\w'’]+", " ", folded).split()  # "i'd" is no letter d
    rest = [t for t in bare if t not in _FILLER]
    # Terse answers: "b", "A, C", "a and d", "ACD", "the answer is b", "it's a".
    letters_only = [t for t in rest if re.sub(r"['’]", "", t) not in _TERSE_FILLER]
    if letters_only and all(len(t) == 1 and t in valid for t in letters_only):
        return {valid.index(t) for t in letters_only}, True
    # A run of letters that leads an aside or a remark: "abcd (not e, activations are extra)".
    run = _LETTER_RUN_LEAD.match(folded) if lead else None
    if run and _is_letter_run(run.group(1), valid):
        return {valid.index(t) for t in run.group(1)}, True
    # Letters that lead an explanation: "a+b, the others are optional", "A & C: because ...",
    # "a b e - the T4, L40S and A10 have no MIG".
    leading = _LEAD_LETTERS.match(folded) if lead else None
    if leading and set(_ONE_LETTER.findall(leading.group(1))) <= set(valid):
        return {valid.index(t) for t in _ONE_LETTER.findall(leading.group(1))}, True
    for m in _JOINED_LETTERS.finditer(folded):  # "I'd go with a+b", "a/b/d"
        if set(_ONE_LETTER.findall(m.group(0))) <= set(valid):
            named |= {valid.index(t) for t in _ONE_LETTER.findall(m.group(0))}
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
    for m in _PICKED_LETTER.finditer(folded):
        if m.group(1) in valid:
            named.add(valid.index(m.group(1)))
    shouting = raw == raw.upper() and len(bare) > 3
    for m in re.finditer(r"(?<![\w'’])([A-J])(?![\w'’])", raw):
        if shouting and raw[: m.start()].strip():
            break  # in ALL CAPS only a leading letter is a letter: "C - NO MEMORY ISOLATION ..."
        letter = m.group(1).lower()
        # "A" and "I" are also words: "A shared fault domain" names no choice.
        after = raw[m.end() :]
        if letter in "ai" and re.match(r"\s+[^\W\d_]", after) and not _AFTER_LETTER.match(after):
            continue
        if letter in valid:
            named.add(valid.index(letter))
    return named, False


_LETTER_RUN_LEAD = re.compile(r"^\s*([a-j]{2,10})(?=\s*(?:[(,.;:!?]|[-—–]+\s))")
# Words that are also runs of letters in order.
_RUN_WORDS = frozenset({"ad", "be", "ace", "hi", "bi", "def", "fgh"})


def _is_letter_run(run: str, valid: str) -> bool:
    """Whether ``run`` is choice letters written together, in order ("abcd", "acd")."""
    return set(run) <= set(valid) and list(run) == sorted(set(run)) and run not in _RUN_WORDS


def _denied_after(words: list[str]) -> bool:
    """Whether the words just after a choice deny it ("the L4 can't do it"). "B200 but not
    the A30" denies the A30, not the B200: a denial after "but" is of what follows."""
    return bool(words) and words[0] != "but" and bool(_DENIED_AFTER.intersection(words[:2]))


_CLAUSE_END = re.compile(r"[,;.!?:()](?!\d)|\s-+\s")
# Where the words that may deny a choice just named end: "B200 - not the A30" denies the A30.
_AFTER_END = re.compile(r"[,;.!?:()](?!\d)|\s-+\s")


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


def _texts_named(
    normal: str, key: ChoiceKey, ends: tuple[int, ...] = (), *, strict: bool = False
) -> set[int]:
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
            if _denied_after(normal[m.end() : stop].split()):
                after_denied.add(i)
            else:
                named.add(i)
    return named if strict else named or after_denied


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


def _ordinal_in_choices(word: str, normals: tuple[str, ...]) -> bool:
    """Whether a choice's text holds the ordinal ``word`` ("third" or "3rd")."""
    index = _ORDINALS.get(word, -1)
    forms = {w for w, i in _ORDINALS.items() if i == index and not w.isdigit()}
    forms -= {"one", "two", "three", "four", "five", "six"}
    return any(forms.intersection(n.split()) for n in normals)


def _places_named(folded: str, count: int, normals: tuple[str, ...] = ()) -> set[int]:
    """Choices named by place: "the second one", "option three", "#2", "the last one"."""
    named: set[int] = set()
    for m in _PLACE.finditer(folded):
        word = next(g for g in m.groups() if g)
        before = folded[: m.start()].split()[-2:]
        if _NEGATIONS.intersection(w.strip(",.;:") for w in before):
            continue
        if m.group(4) and _ordinal_in_choices(word, normals):
            continue  # "3rd" alone, when a choice is "Third generation", names it by text
        index = count - 1 if word == "last" else _ORDINALS.get(word, -1)
        if 0 <= index < count:
            named.add(index)
    return named


_SPLIT_NUMBER = re.compile(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)")
_TIMES = re.compile(r"(\d)\s*(?:x|×|times)\b")
# Cues that deny the words after them in a clause ("not memory copies", "unlike MPS").
_DENY_CUES = frozenset(
    {
        "not", "never", "nor", "no", "except", "excluding", "unlike", "without", "isnt",
        "arent", "doesnt", "dont", "cant", "cannot", "wont", "lacks", "nothing", "none",
    }
)  # fmt: skip
# Cues that deny the subject before them when little follows: "memcpy isn't affected".
_DENY_SUBJECT = frozenset({"isnt", "arent", "doesnt", "dont", "cant", "cannot", "wont", "not"})
# What people type for the words choices use.
ABBREVIATIONS = {
    "gen": "generation", "prio": "priority", "util": "utilization", "utilisation": "utilization",
    "mem": "memory", "perf": "performance", "params": "parameters", "param": "parameter",
    "grads": "gradients", "grad": "gradient",
    "cfg": "config", "configuration": "config", "std": "standard", "ram": "memory",
    "memcpy": "memory copy", "memcpys": "memory copies", "fw": "framework", "ctx": "context",
    "w": "with", "fb": "framebuffer", "vf": "virtual function", "vfs": "virtual functions",
    "pf": "physical function", "mdev": "mediated device", "vram": "memory", "gpus": "gpu",
    "approx": "about", "bidir": "bidirectional", "bidi": "bidirectional",
    "fp16": "half precision",
    "1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth",
    "optimiser": "optimizer", "behaviour": "behavior",
    # Words with one meaning for a choice: "integers" are whole numbers, work that runs
    # "concurrently" overlaps, "smaller" is less; "smallest" and "greatest" compare as "smaller" and
    # "greater" do.
    "integer": "whole number", "integers": "whole numbers", "concurrent": "overlap",
    "concurrently": "overlap", "concurrency": "overlap", "simultaneous": "overlap",
    "simultaneously": "overlap", "smaller": "lower", "fewer": "lower", "less": "lower",
    "bigger": "higher", "larger": "higher", "greater": "higher", "zero": "0",
    "smallest": "lower", "largest": "higher", "biggest": "higher", "greatest": "higher",
    # Participles the stemmer leaves apart from their verbs: "grown" is "grows".
    "grown": "grow", "shown": "show", "known": "know", "given": "give", "taken": "take",
    "written": "write", "chosen": "choose", "hidden": "hide", "broken": "break",
    "frozen": "freeze", "driven": "drive", "thrown": "throw", "drawn": "draw",
    # units spelt out: "mebibytes" is MiB
    "kibibyte": "kib", "kibibytes": "kib", "mebibyte": "mib", "mebibytes": "mib",
    "gibibyte": "gib", "gibibytes": "gib", "tebibyte": "tib", "tebibytes": "tib",
    "megabyte": "mb", "megabytes": "mb", "gigabyte": "gb", "gigabytes": "gb",
    "terabyte": "tb", "terabytes": "tb",
}  # fmt: skip
# A denial ends where a complement starts: "no sharing of an allocated device" denies the
# sharing, not the device; "not shared between containers" keeps the containers. ("For"
# starts none: "not used for MIG devices" denies MIG.)
_COMPLEMENT = frozenset({"of", "between", "across", "among", "to", "from", "on", "with"})
_ORDINAL_NUMBERS = {
    "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
    "seventh": "7", "eighth": "8",
}  # fmt: skip
# Words whose meanings exclude each other: a choice with one is denied by an answer
# with the other ("same VM" against "different VMs").
_OPPOSITES = [
    ("same", "different"), ("shared", "private"), ("shared", "separate"), ("shared", "own"),
    ("higher", "lower"), ("fixed", "dynamic"), ("static", "dynamic"), ("more", "less"),
    ("always", "never"), ("all", "only"), ("before", "after"), ("lower", "highest"),
    ("higher", "lowest"), ("isolated", "shared"), ("increase", "decrease"),
    ("highest", "lowest"), ("valid", "invalid"), ("accept", "refuse"), ("accept", "reject"),
]  # fmt: skip
OPPOSITE: dict[str, frozenset[str]] = {}
for _pair in _OPPOSITES:
    _x, _y = map(_stem, _pair)
    OPPOSITE[_x] = OPPOSITE.get(_x, frozenset()) | {_y}
    OPPOSITE[_y] = OPPOSITE.get(_y, frozenset()) | {_x}


def _word_stems(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        word = _QUANTIFIERS.get(word, word)
        if word in ABBREVIATIONS and _MODEL.fullmatch(word):  # "fp16" is half precision
            out.extend(_stem(w) for w in ABBREVIATIONS[word].split())
            continue
        if re.fullmatch(r"\d+(?:\.\d+)?x", word):
            out.append(word)
            continue
        if _MODEL.fullmatch(word):  # "A100" and "H100" are not both "100"
            out.append(_stem(word))  # "the A100's" is the A100
        if _VERSION.fullmatch(word):  # "R580.82.07" is also the 580 branch
            out.append(word.split(".")[0].lstrip("r"))
        for part in _SPLIT_NUMBER.sub(" ", word).split():
            glued = _GLUED.sub(r"\1 \2", part).split()  # "gpumem" is the GPU's memory
            for piece in (p for w in glued for p in ABBREVIATIONS.get(w, w).split()):
                piece = _ORDINAL_NUMBERS.get(piece, piece)
                if piece in _KEPT or (
                    piece not in STOPWORDS and piece not in _FILLER and piece not in _LIGHT
                ):
                    out.append(_stem(piece))
    return out


# Resource names glued to "gpu": "gpumem" and "gpucores" are the memory and the cores.
_GLUED = re.compile(r"^(v?gpu)([a-z]{3,})$")
# "per" says nothing alone; what it is per does: "per node" is not "per GPU".
_PER = re.compile(r"\bper ([^\W\d_]+)")
# Verbs that say nothing of a choice: "it gets clamped" is "it is clamped".
_LIGHT = frozenset({"get", "gets", "got", "getting", "gotten"})
# Common words kept because their opposite says the reverse: "the same VM", "different VMs";
# and the words that say how many or which: "restarts all workers", "only the failed one",
# "on that GPU" (against "on every GPU").
_KEPT = frozenset({"same", "before", "after", "all", "only", "both", "that"})
_KEPT_STEMS = frozenset(map(_stem, _KEPT))
# Words that say "all" or "only" in other words.
_QUANTIFIERS = {
    "every": "all", "everybody": "all", "everyone": "all", "everything": "all",
    "just": "only", "solely": "only", "exclusively": "only",
}  # fmt: skip
_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_SCIENTIFIC = re.compile(
    r"(?<![\w.])(?:(\d+(?:\.\d+)?)\s*(?:e|[x×*]\s*10\s*(?:\^|\*\*))|10\s*(?:\^|\*\*))\s*(\d{1,2})\b",
    re.IGNORECASE,
)


def _written_out(m: re.Match[str]) -> str:
    """A number in scientific notation written out, when it is whole ("1e9", "2.5 x 10^3")."""
    value = float(m.group(1) or 1) * 10 ** int(m.group(2))
    return str(int(value)) if value.is_integer() else m.group(0)


_BE = frozenset({"be", "been", "being"})
# A verdict after the words it judges: "kernels yes, copies no".
_VERDICT_WORDS = frozenset({"no", "nope"})
# A product or model name: letters then digits ("H100", "A100", "L40S", "T4", "r580").
_MODEL = re.compile(r"[a-z]+\d+[a-z]*")
_VERSION = re.compile(r"r?\d+\.\d+\.\d+")


# "one" standing for a choice is no number: "the memory one", "the 580 branch one".
_PRONOUN_ONE = re.compile(
    r"\b([^\W\d_][\w.-]*)\s+ones?\b(?=\s*(?:$|[,;:.!?)/—-]|(?:and|or|nor|but|not|too)\b))"
    r"|\b((?:the|that|this)\s+[^\W\d_][\w.-]*)\s+ones?\b"  # "the failed one restarts"
)


def content_words(text: str) -> list[str]:
    """Stems of ``text``'s meaningful words; numbers apart from their units, "5x" as "5x"."""
    return [w for w, _ in polar_words(text)]


# Where a claim ends for a denial: punctuation, contrast words, and a colon that a claim
# of its own follows ("No memory or fault isolation: one tenant can crash the others"),
# not one that a verdict or an instruction follows ("copies: no", "Not planned: use X").
_POLAR_CLAUSES = re.compile(
    r"[,;!?()|]+(?!\d)|\.+(?!\w)|\bbut\b|\bwhile\b|\bwhereas\b"
    r"|:(?=[^,;:.!?()|]*\b(?:can|cannot|cant|will|wont|may|might|must|is|are|does|do)\b)"
)


@lru_cache(maxsize=8192)
def polar_words(text: str) -> tuple[tuple[str, bool], ...]:
    """``text``'s meaningful word stems, each with its polarity (False when denied).

    Abbreviations are spelt out ("prio", "mem"), ordinals are numbers ("third" is "3"), and
    in each clause the words after a denying cue are denied, as is a short subject before
    one ("memcpy isn't affected" denies memcpy)."""
    from bot.core.grading.numeric import words_to_digits

    out: list[tuple[str, bool]] = []
    text = _CAMEL.sub(lambda m: " ".join(_CAMEL_PARTS.findall(m.group(0))), text)
    # CUDA_MPS_CLIENT_PRIORITY is one name, not four words (optim_grads_params is three).
    text = _CONSTANT.sub(lambda m: m.group(0).replace("_", ""), text)
    text = _SCIENTIFIC.sub(_written_out, text)  # "1e9" and "10^9" are 1000000000
    # A dot inside a name ("gpu.shared", "nvidia.com") ends no clause.
    carried = False
    # "|" ends a clause too: an aside kept in its list item ("kernels only | not memcpys").
    for clause in _POLAR_CLAUSES.split(fold(text)):
        clause = _PRONOUN_ONE.sub(lambda m: m.group(1) or m.group(2), clause)
        plain = _PER.sub(r"per\1 \1", plain_paraphrases(normalize(clause)))
        normal = _TIMES.sub(r"\1x", normalize(words_to_digits(plain)))
        words = normal.split()
        if carried and words:  # "never, only within a ClusterQueue" as "Never: ..."
            words = ["not", *words]
        carried = len(words) == 1 and words[0] in _DENY_CUES
        if (
            len(words) > 1
            and words[-1] in _VERDICT_WORDS
            and not _DENY_CUES.intersection(words[:-1])
        ):
            words = ["not", *words[:-1]]  # a verdict after the words: "copies no"
        cut = next((i for i, w in enumerate(words) if w in _DENY_CUES), len(words))
        head, tail = words[:cut], words[cut + 1 :]
        # "MIG can't be time-sliced" denies MIG: little is said after the cue.
        short_subject = 0 < len(head) <= 3 and len([w for w in tail if w not in _BE]) <= 2
        # "memcpy not affected" denies memcpy; "kernels only not memcpy" denies memcpy.
        verb = cut < len(words) and (
            words[cut] != "not" or not tail or bool(re.search(r"(?:ed|en|ble)$", tail[0]))
        )
        if verb and words[cut] in _DENY_SUBJECT and short_subject:
            head, tail = [], head + tail
        stop = next((i for i, w in enumerate(tail) if i and w in _COMPLEMENT), len(tail))
        out.extend((w, True) for w in _word_stems(head))
        out.extend((w, False) for w in _word_stems(tail[:stop]))
        out.extend((w, True) for w in _word_stems(tail[stop:]))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class FragmentKey:
    """Each choice's words with their polarity, and what each (word, polarity) is worth:
    a pair that one choice alone has is worth most, one that every choice has nothing."""

    words: tuple[frozenset[tuple[str, bool]], ...]
    plain: tuple[frozenset[str], ...]
    worth: dict[tuple[str, bool], float]
    # Two neighbouring words of a choice written as one ("sriov" for "SR-IOV", "prestart"
    # for "PreStartContainer"), by the stem of the joined word.
    joined: dict[str, tuple[str, ...]]


@lru_cache(maxsize=4096)
def fragment_key(question: Question) -> FragmentKey:
    """The words of ``question``'s choices, weighed by how few choices share them (cached)."""
    sets = tuple(frozenset(polar_words(c)) for c in question.choices)
    plain = tuple(frozenset(w for w, _ in words) for words in sets)
    joined: dict[str, tuple[str, ...]] = {}
    for choice in question.choices:
        spelt = normalize(_CAMEL.sub(lambda m: " ".join(_CAMEL_PARTS.findall(m.group(0))), choice))
        for a, b in pairwise(spelt.split()):
            parts = tuple(_word_stems([a]) + _word_stems([b]))
            if a.isalpha() and b.isalpha() and len(parts) == 2:
                joined[_stem(a + b)] = parts
    return FragmentKey(sets, plain, _weighed(sets), joined)


def _weighed(sets: tuple[frozenset[tuple[str, bool]], ...]) -> dict[tuple[str, bool], float]:
    """What each (word, polarity) of the choices ``sets`` is worth (an empty set is a choice
    out of the running): the fewer choices have it, the more; every choice, nothing."""
    counts: dict[tuple[str, bool], int] = {}
    for words in sets:
        for w in words:
            counts[w] = counts.get(w, 0) + 1
    many = sum(1 for words in sets if words)
    worth = {}
    for w, n in counts.items():
        base = 2.0 if any(ch.isdigit() for ch in w[0]) else 1.0  # numbers say more
        if w[0] in _KEPT_STEMS:
            base = 0.5  # "only", "all", "same": light words that tip, not decide
        worth[w] = 0.0 if n >= many and many > 1 else base / n
    return worth


def _without(key: FragmentKey, out: set[int]) -> FragmentKey:
    """``key`` with the choices ``out`` out of the running, and the others' words weighed
    again among themselves."""
    sets = tuple(frozenset() if i in out else words for i, words in enumerate(key.words))
    plain = tuple(frozenset() if i in out else words for i, words in enumerate(key.plain))
    return FragmentKey(sets, plain, _weighed(sets), key.joined)


def _clashing(said: list[str], choice: str, opposites: set[str]) -> set[str]:
    """The opposites that clash with an answer of the words ``said``: an answer that says
    both words of a pair, in the choice's order, agrees with it ("lower number = higher
    priority"); in the other order it is a swap ("higher number = lower priority")."""
    if not opposites:
        return opposites
    meant = content_words(choice)
    clash = set()
    for o in opposites:
        if o not in said and all(
            said.count(w) <= meant.count(w) for w in OPPOSITE.get(o, ()) if w in said
        ):
            continue  # the choice says both, the answer one as often: "time-sliced only"
        pairs = [w for w in OPPOSITE.get(o, ()) if w in said and w in meant and o in said]
        if not pairs or any(
            (said.index(w) < said.index(o)) != (meant.index(w) < meant.index(o)) for w in pairs
        ):
            clash.add(o)
    return clash


def _fragment_named(text: str, question: Question, lone_share: float = 0.34) -> int | None:
    """The one choice a fragment of ``text`` points to, by the words it uses.

    A word the answer denies where the choice asserts it (or the reverse), or the opposite
    of one of the choice's words, counts against that choice."""
    key = fragment_key(question)
    given, said = _echo_dropped(_unprefixed(frozenset(polar_words(text)), key), text, question, key)
    if not given:
        return None
    flipped = {(w, not p) for w, p in given}
    # A choice the answer denies part of is out, and the words it shares with another tell
    # that one from the rest: "only on Linux, not Windows" against "Linux and Windows".
    out = {
        i
        for i, words in enumerate(key.words)
        if sum(key.worth[w] for w in words & flipped) > sum(key.worth[w] for w in words & given)
    }
    if out and len(out) < len(key.words):
        key = _without(key, out)
    opposites = {o for w, p in given if p for o in OPPOSITE.get(w, ())}
    scored = []
    for i, words in enumerate(key.words):
        weight = sum(key.worth[w] for w in words & given)
        against = sum(max(key.worth[w], 0.5) for w in words & flipped)
        against += 2.0 * len(_clashing(said, question.choices[i], opposites & key.plain[i]))
        total = sum(key.worth[w] for w in words) or 1.0
        scored.append((weight - against, (weight - against) / total, i, against))
    scored.sort(reverse=True)
    weight, share, index, contradicted = scored[0]
    runner = max(scored[1][0], 0.0) if len(scored) > 1 else 0.0
    if contradicted and runner > 0:
        return None  # the answer denies part of its best fit and fits another too
    strong = weight >= 2.0 and (share >= 0.25 or weight >= 3.0)
    # A good share of one choice's words; rivals are weighed below.
    lone = weight >= 1.0 and share >= lone_share
    # A short answer whose every word that any choice has is in this one, one of them in
    # no other: "still alpha in 1.35", "via host RAM", "pack it in one NVLink box".
    alone = weight >= 1.0 and not contradicted and _only_fit(given, key, index)
    if not (strong or lone or alone):
        return None
    # Against each rival, only the words that tell the two apart count: "all pool workers on
    # the same host" fits "every pool worker on that host" over "every worker on every host
    # of the rack" by "pool", whatever the two share.
    denied = {i: a for _, _, i, a in scored}
    if _other_said_whole(given, key, index):
        return None  # "a binary-compatible hardware partitioning into isolated instances"
    for j in range(len(key.words)):
        mine = sum(key.worth[w] for w in (key.words[index] - key.words[j]) & given)
        theirs = sum(key.worth[w] for w in (key.words[j] - key.words[index]) & given) - denied[j]
        if j != index and (mine < 2 * theirs or (not mine and key.words[j] & given)):
            return None  # nothing tells them apart: "one node" fits two choices alike
    return index


def _other_said_whole(given: frozenset[tuple[str, bool]], key: FragmentKey, index: int) -> bool:
    """Whether the answer also says, undenied, most (three fifths, two words' worth at least)
    of the words by which another choice differs from choice ``index``: it then describes
    that choice too."""
    for j, words in enumerate(key.words):
        own = {w for w in words - key.words[index] if key.worth[w] > 0}
        said = sum(key.worth[w] for w in own & given)
        if j != index and said >= 2.0 and said >= 0.6 * sum(key.worth[w] for w in own):
            return True
    return False


@lru_cache(maxsize=4096)
def _prompt_pairs(question: Question) -> frozenset[tuple[str, str]]:
    """The question's pairs of neighbouring meaningful words ("higher priority")."""
    words = content_words(question.prompt)
    return frozenset(pairwise(words))


def _echo_dropped(
    given: frozenset[tuple[str, bool]], text: str, question: Question, key: FragmentKey
) -> tuple[frozenset[tuple[str, bool]], list[str]]:
    """``given`` without the words the answer repeats from the question in its order ("lower
    number = higher priority" to "which value means the higher priority?"): they restate the
    question, not a choice. Kept when nothing else in the answer is a choice's word. Also
    the answer's words in order, less the repeated ones."""
    pairs = _prompt_pairs(question)
    words = content_words(text)
    spans = [i for i in range(len(words) - 1) if (words[i], words[i + 1]) in pairs]
    places = {j for i in spans for j in (i, i + 1)}
    said = [w for j, w in enumerate(words) if j not in places]
    if not places:
        return given, words
    rest = frozenset(w for w in given if w[0] in said)
    known = frozenset().union(*key.plain)
    return (rest, said) if any(w in known for w, _ in rest) else (given, words)


def _unprefixed(
    given: frozenset[tuple[str, bool]], key: FragmentKey
) -> frozenset[tuple[str, bool]]:
    """``given`` with "un-" words read as denials of a word the choices use ("unsourced"
    is "without sources", "unbounded" is "not bounded"), and a choice's two words written
    as one read as the two ("sriov" is "SR-IOV")."""
    known = frozenset().union(*key.plain)
    out = set(given)
    for word, polar in given:
        if word in known:
            continue
        if word in key.joined:
            out.discard((word, polar))
            out.update((part, polar) for part in key.joined[word])
        elif word.startswith("un") and len(word) >= 6:
            rest = _stem(word[2:])
            if rest in known:
                out.discard((word, polar))
                out.add((rest, not polar))
    return frozenset(out)


def _only_fit(given: frozenset[tuple[str, bool]], key: FragmentKey, index: int) -> bool:
    """Whether the words of ``given`` that any choice has are all in choice ``index``, with
    the same polarity there, one of them in no other choice, and no other choice has all of
    them ("pack it in one NVLink box": "one" is in several choices, "NVLink" in this one)."""
    every = frozenset.intersection(*key.plain) if len(key.plain) > 1 else frozenset()
    seen = {w for w in given if w[0] not in every and any(w[0] in p for p in key.plain)}
    if not seen or len(given) > 8 or not seen <= key.words[index]:
        return False
    words = {w for w, _ in seen}
    others = [p for j, p in enumerate(key.plain) if j != index]
    # A word another choice has only denied ("None: MPS restarts ...") is still this one's.
    polar = [ws for j, ws in enumerate(key.words) if j != index]
    return any(all(w not in ws for ws in polar) for w in seen) and all(
        not words <= p for p in others
    )


_ALL = re.compile(
    r"^\s*(?:all|every)(?:\s+(?:of\s+)?(?:them|the\s+above|four|five|choices|options))?\s*$"
)
_NONE = re.compile(r"^\s*(?:none|neither)(?:\s+(?:of\s+)?(?:them|the\s+above|these))?\s*$")


def names_none(answer: str) -> bool:
    """Whether ``answer`` says that no choice is right ("none of the above")."""
    return bool(_NONE.match(normalize(answer)))


_HAS_DIGIT = re.compile(r"\d")


def _fuzzy_named(normal: str, key: ChoiceKey) -> set[int]:
    """The one choice that ``normal`` is a close misspelling of, if any.

    Words may be misspelt, added or dropped, but a word replaced by a different word (not a
    typo of it) is not a misspelling: "sevenths" for "eighths" names another claim, and
    neither is a name or figure with digits written otherwise ("HBM2" for "HBM3" or "HBM2e"),
    though it may be spaced otherwise ("HBM 2" for "HBM2")."""
    if len(normal) < 4:
        return set()
    scores = sorted(((fuzz.ratio(normal, n), i) for i, n in enumerate(key.normals)), reverse=True)
    best, index = scores[0]
    runner_up = scores[1][0] if len(scores) > 1 else 0.0
    if best < _FUZZY_MIN or best - runner_up < _FUZZY_MARGIN:
        return set()
    given, choice = normal.split(), key.normals[index].split()
    for op in Levenshtein.editops(given, choice):
        if op.tag != "replace":
            continue
        said, meant = given[op.src_pos], choice[op.dest_pos]
        if fuzz.ratio(said, meant) < 75 or (_HAS_DIGIT.search(said) and _HAS_DIGIT.search(meant)):
            return set()
    return {index}


# A slash lists choices ("a/b"), except in a unit: "TB/s", "GPU/h".
_PARTS = re.compile(
    r"[,\n+&]|/(?!(?:s|sec|h|hr|hour|day)\b)|\band\b|\bplus\b|\bor\b|\bnor\b|\balso\b"
)
# A dot inside a name ("gpu.shared") ends no segment.
_SEGMENTS = re.compile(r"[;!?()\[\]]+|\.+(?![\w])|\s-+\s|\bbut\b|\bwhile\b")
_ALL_BUT = re.compile(
    r"^\s*(?:(?:i'?d\s+(?:say|pick|go\s+with)|it'?s)\s+)?"
    r"(?:all|every\w*|any\w*)(?:\s+(?:of\s+)?(?:them|these|the\s+above|the\s+options|the\s+choices))?"
    r"(?:\s+(?:options?|choices?|answers?|ones?|statements?))?"
    r"\s*,?\s+(?:except(?:\s+for)?|but|besides|apart\s+from|other\s+than|bar|minus|excluding|save)"
    r"\s+(.+)$"
)
# Where the choices an "all but" leaves out end: "all except E (it is wrong)".
_LEFT_OUT_END = re.compile(
    r"[;:()\[\]!?]|\.(?!\w)|\s[-—–]+\s|\b(?:because|since|as|which|they|it)\b"
)
_LEFT_OUT_WORDS = re.compile(
    r"^\s*(?:(?:the|options?|choices?|answers?|letters?)\s+)*|\s+(?:ones?|options?)\s*$"
)
_FIRST_N = re.compile(r"\b(?:the\s+)?(?:first|top)\s+(two|three|four|five|[2-5])\b")
# "the first three", "last two", "bottom 2": a run of places from one end.
_END_N = re.compile(r"\b(?:the\s+)?(first|top|last|bottom|final)\s+(two|three|four|five|[2-5])\b")


def _end_run(match: re.Match[str], count: int) -> set[int]:
    """The places of an ``_END_N`` match among ``count`` choices."""
    size = min(count, int(_ORDINALS[match.group(2)]) + 1)
    return (
        set(range(size)) if match.group(1) in ("first", "top") else set(range(count - size, count))
    )


_DENYING_PART = re.compile(r"^\s*(?:not|nor|no|never|except|excluding|without|but\s+not)\b")


def _part_named(
    part: str, question: Question, key: ChoiceKey, lone_share: float = 0.25
) -> set[int]:
    """Choices one part of a list names: by text, by place, by spelling, or by fragment."""
    normal, ends = clause_normal(part)
    named = _texts_named(normal, key, ends, strict=True) | _places_named(
        fold(part), len(key.normals), key.normals
    )
    if named:
        return named
    named = _fuzzy_named(normal, key) or _core_named(normal, key)
    if named:
        return named
    index = _fragment_named(part, question, lone_share)
    return {index} if index is not None else _quantity_named(part, question)


@lru_cache(maxsize=4096)
def _cores(key: ChoiceKey) -> tuple[str, ...]:
    """Each choice's text without the words every choice has: "time sliced" for "Time-sliced
    vGPU" among "MIG-backed vGPU", "Time-sliced MIG-backed vGPU", ..."""
    common = frozenset.intersection(*(frozenset(n.split()) for n in key.normals))
    return tuple(" ".join(w for w in n.split() if w not in common) for n in key.normals)


def _core_named(normal: str, key: ChoiceKey) -> set[int]:
    """The choice whose text, less the words every choice has, is all of ``normal``."""
    cores = _cores(key)
    return {cores.index(normal)} if normal and cores.count(normal) == 1 else set()


@lru_cache(maxsize=4096)
def _choice_quantities(question: Question) -> tuple[tuple[tuple[float, str], ...], ...]:
    """Each choice's figures with units, in base units ("900 GB/s" as 9e11 bytes/s)."""
    from bot.core.grading.rubric import _quantities_in

    return tuple(tuple((v, d) for _, v, d in _quantities_in(fold(c))) for c in question.choices)


def _quantity_named(answer: str, question: Question) -> set[int]:
    """The one choice that holds every figure the answer gives, in whatever unit: "0.9
    TB/s each" names "Each H100 has 900 GB/s ..."."""
    from bot.core.grading.rubric import _quantities_in

    given = [(v, d) for _, v, d in _quantities_in(fold(answer))]
    if not given:
        return set()

    def holds(figures: tuple[tuple[float, str], ...]) -> bool:
        return all(
            any(d == e and abs(v - w) <= 0.01 * max(abs(v), abs(w)) for w, e in figures)
            for v, d in given
        )

    fits = [i for i, figures in enumerate(_choice_quantities(question)) if holds(figures)]
    return set(fits) if len(fits) == 1 else set()


@lru_cache(maxsize=4096)
def _folded_patterns(question: Question) -> tuple[tuple[int, re.Pattern[str]], ...]:
    """Each choice's whole text as it may be written, punctuation aside, longest first."""
    out = []
    for i, normal in enumerate(choice_key(question).normals):
        if normal:
            # The articles normalize drops may stand between the words: "on the GPU".
            body = r"[\W_]*(?:(?:the|an|a)[\W_]+)?".join(
                map(re.escape, normal.replace(".", " ").split())
            )
            out.append((len(normal), i, re.compile(r"(?<!\w)" + body + r"(?!\w)")))
    return tuple((i, p) for _, i, p in sorted(out, key=lambda t: -t[0]))


_DENY_WORD = re.compile(r"\b(?:not|nor|no|never|except|excluding|without)\b")


def _denial_runs(before: str, question: Question, key: ChoiceKey) -> bool:
    """Whether a denial earlier in the same segment reaches this point ("not the A30 or").

    A part that starts with "no" but asserts a choice ("no overcommit") denies nothing."""
    segment = _SEGMENTS.split(before)[-1]
    if not _DENY_WORD.search(segment):
        return False
    for part in _PARTS.split(segment):
        if _DENYING_PART.match(part) and not _part_named(part, question, key):
            return True
    return False


_NOR = re.compile(r"\bnor\b")
# A verdict written after a choice: "Filter - no", "D: false", "E = wrong", "C -> x".
_VERDICT_NO = (
    r"[ \t]*(?:[-:=—–]+>?|->)[ \t]*(?:no|nope|false|wrong|incorrect|x|✗|✘|❌)"
    r"(?=[ \t]*(?:$|[\n,;.!)(]))"
)  # on the line of the choice, and all of the verdict: "- No context switching" is a bullet
_MARKED_NO = re.compile(_VERDICT_NO, re.IGNORECASE)


# Verbs a denial may follow: "cpu and hugepages aren't", "A30 and H100 are not".
_AUXILIARY = frozenset({"are", "is", "do", "does", "can", "will", "be"})


def _denied_verb(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` denies a verb: "aren't", "can't", "are not" (not a bare "not")."""
    word = normalize(words[i])
    if word == "not":
        return i > 0 and normalize(words[i - 1]) in _AUXILIARY
    return word in _DENY_SUBJECT


def _subjects_denied(answer: str, question: Question, key: ChoiceKey) -> str:
    """``answer`` with each sentence whose subject is a list of choices and whose verb is
    denied written as denials of them: "cpu and hugepages aren't the plugin's business" is
    "not cpu, not hugepages ; ...". (When the question asks what does not hold, "the kiwi
    and the emu can't" picks them, as one denied subject does.)"""
    if asks_negative(question):
        return answer
    out: list[str] = []
    for piece in re.split(r"([;!?\n]+|\.(?!\w))", answer):
        words = piece.split()
        cut = next((i for i, w in enumerate(words) if _denied_verb(words, i)), 0)
        subject = words[:cut]
        while subject and normalize(subject[-1]) in _AUXILIARY:
            subject.pop()
        parts = [p for p in _PARTS.split(" ".join(subject)) if p.strip()]
        if len(parts) > 1 and all(len(_part_named(p, question, key)) == 1 for p in parts):
            piece = " not " + ", not ".join(parts) + " ; " + " ".join(words[cut + 1 :])
        out.append(piece)
    return "".join(out)


def _listed(answer: str, question: Question, key: ChoiceKey) -> tuple[set[int], set[int]]:
    """The choices a list answer names and those it denies ("not the A30 or the L4").

    Whole choice texts are taken first (they may hold commas), then the rest part by part."""
    named: set[int] = set()
    denied: set[int] = set()
    text = _NOR.sub(", not ", fold(answer))  # "nor the mig one" denies it, after an aside too
    for i, pattern in _folded_patterns(question):
        for m in pattern.finditer(text):
            before = normalize(text[: m.start()]).split()[-2:]
            after = normalize(_AFTER_END.split(text[m.end() :], maxsplit=1)[0]).split()[:2]
            denied_before = bool(_NEGATIONS.intersection(before))
            deny = denied_before or _denial_runs(text[: m.start()], question, key)
            if not deny and _denied_after(after):
                # Asked what does not hold, "the kiwi can't" picks the kiwi.
                deny = not (asks_negative(question) and _DENY_SUBJECT.intersection(after[:2]))
            if not deny and not asks_negative(question):
                deny = bool(_MARKED_NO.match(text, m.end()))  # "<text> - no", "<text>: false"
            (denied if deny else named).add(i)
        # A comma, not a full stop, keeps a denial going: "not the A30 or the RTX".
        text = pattern.sub(" , ", text)
    for segment in _SEGMENTS.split(text):
        denying = False
        for part in _PARTS.split(segment):
            if not part.strip() or re.fullmatch(r"\W*(?:just|only)?\s*[a-j]\W*", part):
                continue  # a letter is read as a letter ("just A"), not as a word of "B200"
            cue = _DENYING_PART.match(part)
            if cue and not denying:
                # "no overcommit" asserts "They cannot be overcommitted": a part whose
                # denied words fit a choice that denies them too names that choice.
                asserted = _part_named(part, question, key)
                if asserted:
                    named |= asserted
                    continue
            denying = denying or bool(cue)
            run = _END_N.search(part)
            if run and not denying:
                named |= _end_run(run, len(key.normals))
                continue
            if cue:
                part = part[cue.end() :]  # what "not cpu" denies is "cpu"
            found = _part_named(part, question, key, 0.1 if denying else 0.25)
            (denied if denying else named).update(found)
    return named - denied, denied


_ASIDE = re.compile(r"\(([^()]*)\)")
_HEDGE = re.compile(r"\bor\b|\bmaybe\b|\bperhaps\b|\?|\bactually\b|\bunsure\b")


def _aside_dropped(answer: str, key: ChoiceKey) -> set[int]:
    """The one choice an answer names outside its asides: "HBM2e (the SXM one is HBM3)".

    An aside that hedges ("(or HBM3?)") is not dropped: the answer then names two."""
    asides = _ASIDE.findall(answer)
    if not asides or any(_HEDGE.search(fold(a)) for a in asides):
        return set()
    rest = _ASIDE.sub(" ; ", answer)
    normal, ends = clause_normal(rest)
    letters, _ = _letters_named(rest, key)
    named = (
        _texts_named(normal, key, ends)
        | letters
        | _places_named(fold(rest), len(key.normals), key.normals)
    )
    return named if len(named) == 1 else set()


_CAMEL = re.compile(r"\b[A-Z]?[a-z]+(?:[A-Z][a-z]+)+\b")
_CAMEL_PARTS = re.compile(r"[A-Z]?[a-z]+")


@lru_cache(maxsize=4096)
def _spelt_identifiers(question: Question) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Patterns for the choices' CamelCase names spelt as words: "list and watch" or
    "list-and-watch" is ListAndWatch, "get preferred allocation" GetPreferredAllocation."""
    out = []
    for name in sorted({m.group(0) for c in question.choices for m in _CAMEL.finditer(c)}):
        parts = re.findall(r"[A-Z]?[a-z]+", name)
        body = r"[\s_-]*".join(map(re.escape, parts))
        out.append((re.compile(r"(?<![\w.])" + body + r"(?![\w])", re.IGNORECASE), name))
    return tuple(out)


def _identifiers_joined(question: Question, answer: str) -> str:
    """``answer`` with the choices' CamelCase names it spells as words joined again."""
    for pattern, name in _spelt_identifiers(question):
        answer = pattern.sub(name, answer)
    return answer


# Letters in a row ("D, E", "d or e", "B D"), none of them the start of "e.g.".
_LETTER_RUN = (
    r"[a-j](?:\s*(?:[,/&]|\bor\b|\band\b|\bnor\b)?\s*[a-j](?![\w'’]|\.\w))*(?![\w'’]|\.\w)"
)
# A letter denied by the words before it: "not D or E", "except C", "A rather than B".
_DENIED_LETTERS = re.compile(
    r"\b(?:not|nor|except|excluding|never|rather\s+than|instead\s+of|over|vs\.?|versus)"
    r"\s+(?:(?:options?|choices?|answers?)\s+)?(" + _LETTER_RUN + ")",
    re.IGNORECASE,
)
_WRONG = (
    r"wrong|incorrect|false|untrue|invalid|bogus|nonsense|out|(?:an?\s+)?(?:trap|distractor|red\s+herring)s?"
    r"|not\s+(?:right|correct|true|valid|it)|n[’']?t\s+(?:right|correct|true|valid|it)"
)
# A letter denied by the words after it: "B is wrong", "D and E are traps", "C isn't right".
_LETTERS_WRONG = re.compile(
    r"(?<![\w'’])(" + _LETTER_RUN + r")\s*(?:(is|are|was|were|[’']s)\s*)?"
    r"(?:(?:definitely|clearly|obviously|just|both|all|also|simply)\s+)?"
    rf"({_WRONG})(?![\w'’])",
    re.IGNORECASE,
)
_LETTER_MARKED_NO = re.compile(r"(?<![\w'’])([a-j])" + _VERDICT_NO, re.IGNORECASE)
# What a question that asks for what does not hold reads as a pick: "B is false".
_UNTRUE = frozenset({"wrong", "incorrect", "false", "untrue", "invalid", "bogus", "nonsense"})


_RUN_LETTER = re.compile(r"(?<![\w'’])[a-j](?![\w'’])", re.IGNORECASE)


def _run_letters(run: str, after: str, key: ChoiceKey) -> set[int]:
    """The choices of a run of letters ("D or E"), unless its one "a" is the article
    ("not a good fit")."""
    found = _RUN_LETTER.findall(run)
    alone = found == [run.strip()] and run.strip() in "aA"
    if alone and re.match(r"\s+[^\W\d_]", after) and not _AFTER_LETTER.match(after):
        return set()
    return {key.letters.index(t.lower()) for t in found if t.lower() in key.letters}


def _letters_denied(
    answer: str, key: ChoiceKey, negative: bool = False, *, single: bool = False
) -> set[int]:
    """The letters an answer denies: "not D or E", "except C", "B is wrong" (when
    ``negative``, the question asks for what does not hold, and "B is false" is a pick).
    With ``single`` (a question with one right choice) a comma ends a denial: "not B, A"."""
    out: set[int] = set()
    for m in _DENIED_LETTERS.finditer(answer):
        run = m.group(1).split(",")[0] if single else m.group(1)
        out |= _run_letters(run, answer[m.start(1) + len(run) :], key)
    if not negative:
        for m in _LETTER_MARKED_NO.finditer(answer):
            out |= _run_letters(m.group(1), "", key)
    for m in _LETTERS_WRONG.finditer(answer):
        word = m.group(3).split()[0].lower()
        if negative and word in _UNTRUE:
            continue
        if not m.group(2) and m.group(1).strip() in "aA":
            continue  # "a wrong answer" is no letter
        run = _RUN_LETTER.findall(m.group(1))
        if (m.group(2) or "").lower() not in ("are", "were"):
            run = run[-1:]  # "A, B is wrong" denies B alone
        out |= {key.letters.index(t.lower()) for t in run if t.lower() in key.letters}
    return out


# The choices an answer did not deny, when it says so: "not D or E, the rest yes".
_THE_REST = re.compile(r"\b(?:the rest|the others|all others|all the others|everything else)\b")
_RANGE = re.compile(r"(?<![\w'’])([a-j])\s*(?:-|–|to|through|thru)\s*([a-j])(?![\w'’])", re.I)
_PLACES_ONLY = re.compile(
    r"^\s*(?:(options?|choices?|answers?|numbers?|nos?\.|#)\s*)?"
    r"#?[1-9]\)?(?:\s*(?:,|and|&|\+|/|-|–|to|through)?\s*#?[1-9]\)?)*\s*[.!]?\s*$",
    re.IGNORECASE,
)
_PLACE_LIST = re.compile(
    rf"^\s*(?:the\s+)?(?:{_PLACE_WORDS})(?:\s*(?:,|and|&|\+)\s*(?:the\s+)?(?:{_PLACE_WORDS}))+"
    r"\s*(?:ones|options|choices|answers|statements|items)?\s*[.!]?\s*$",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def _holds_digits(question: Question) -> bool:
    """Whether a choice of ``question`` holds a digit (a bare number may then be a figure)."""
    return any(ch.isdigit() for c in question.choices for ch in c)


def _places_spelt(answer: str, question: Question, key: ChoiceKey) -> str:
    """``answer`` as letters when it is only places: "2", "options 1 and 3", "no. 2" (a
    bare number only when no choice holds a digit), "first and third ones"."""
    places = _PLACES_ONLY.match(answer)
    if places and (places.group(1) or not _holds_digits(question)):
        body = answer[places.end(1) :] if places.group(1) else answer
        spelt = {str(i + 1): letter for i, letter in enumerate(key.letters)}
        return re.sub(r"[1-9]", lambda m: spelt.get(m.group(0), m.group(0)), body.replace("#", " "))
    if not _PLACE_LIST.match(answer):
        return answer

    def letter(m: re.Match[str]) -> str:
        index = len(key.letters) - 1 if m.group(0) == "last" else _ORDINALS[m.group(0)]
        return key.letters[index] if index < len(key.letters) else m.group(0)

    return re.sub(_PLACE_WORDS, letter, fold(answer))


def _ranges_spelt(answer: str, question: Question, key: ChoiceKey) -> str:
    """``answer`` with letter ranges written out ("A-C", "a through c" -> "a, b, c")."""

    def spelt(m: re.Match[str]) -> str:
        start, stop = ord(m.group(1).lower()), ord(m.group(2).lower())
        if not (start < stop and chr(stop) in key.letters):
            return m.group(0)
        upper = m.group(1).isupper()
        return ", ".join(chr(c).upper() if upper else chr(c) for c in range(start, stop + 1))

    return _RANGE.sub(spelt, answer)


def named_choices(question: Question, answer: str) -> set[int]:
    """Return the indexes of the choices that ``answer`` names.

    Takes a choice or multi question and a non-empty answer; never raises. A choice
    question's one pick whose figures the answer's figures all miss ("1200 GB/s" for
    "Each port has 400 GB/s ...") is no pick: the figure names a choice, not a unit word.
    """
    named = _named(question, answer)
    if question.kind == "choice":
        named = _as_yes_or_no(question, answer, named)
    if (
        question.kind == "choice"
        and len(named) == 1
        and _figures_miss(answer, question, *named)
        and not _letters_named(answer, choice_key(question))[0]  # a letter is a pick
    ):
        return set()
    return named


# A reply or a choice that opens with a bare yes or no: "nope, time-slicing only", "No: ...".
_YES_NO = re.compile(r"\s*(no+|nope|nah|yes|yep|yeah|yup)\s*(?:[,.:;!?]|[-—–]+|$)", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _openings(question: Question) -> tuple[bool | None, ...]:
    """For each choice, True when it opens with a bare yes, False with a bare no, else None."""
    out: list[bool | None] = []
    for choice in question.choices:
        m = _YES_NO.match(fold(choice))
        out.append(None if m is None else not m.group(1).startswith("n"))
    return tuple(out)


def _as_yes_or_no(question: Question, answer: str, named: set[int]) -> set[int]:
    """An answer that opens with a bare "no" (or "yes") to a question whose choices open so
    names no choice that opens the other way, and when it names nothing else, the one choice
    that opens as it does: "nope, model state alone is bigger than the slice" picks "No:
    model state alone is about 16–20 GB ..." among "Yes, easily ..." and "Yes, if ..."."""
    m = _YES_NO.match(fold(answer))
    openings = _openings(question)
    if m is None or all(o is None for o in openings):
        return named
    says_yes = not m.group(1).startswith("n")
    against = {i for i, o in enumerate(openings) if o is (not says_yes)}
    kept = named - against
    same = [i for i, o in enumerate(openings) if o is says_yes]
    if not kept and len(same) == 1:
        return {same[0]}
    return kept


def _figures_miss(answer: str, question: Question, index: int) -> bool:
    """Whether the answer gives figures of a kind choice ``index`` has, and none of them
    is one of its figures (in any unit)."""
    from bot.core.grading.rubric import _quantities_in

    given = [(v, d) for _, v, d in _quantities_in(fold(answer))]
    figures = _choice_quantities(question)[index]
    kinds = {d for _, d in figures} & {d for _, d in given}
    if not kinds:
        return False
    return not any(
        d == e and abs(v - w) <= 0.01 * max(abs(v), abs(w))
        for v, d in given
        for w, e in figures
        if d in kinds
    )


# Where an answer's opening pick ends and its remarks start: "HBM2e — HBM3 is the SXM's".
# (A dash between words on one line, not a bullet; for a choice question also a new line
# or a semicolon, which in a multi answer separate the items of a list.)
_LEAD_END = re.compile(r"(?<=\S) [-—–]+ |\.+(?:\s+|$)")
_LEAD_END_ONE = re.compile(r"(?<=\S) [-—–]+ |\.+(?:\s+|$)|;|\n|,\s+")
# Words in a remark that add to the pick, doubt it or change it: "B. C is right too".
_UNSURE = re.compile(
    r"\b(?:or|maybe|perhaps|actually|unsure|not\s+sure|either|might|possibly|guess|wait|"
    r"too(?![\w-])(?=\s*(?:$|[^\w\s]|(?:i|imo|tbh|though|probably|maybe|btw|honestly|and|but|or)\b))"
    r"|also|as\s+well|both(?!\s+(?:directions?|ways)\b)|plus|and\s+also|correct|right|true|valid|applies|apply|works?|"
    r"counts?|yes|fine|answer|rather|instead|hmm|nvm|sorry|mean|scratch|ok|okay|better|best|"
    r"needed|required|necessary|must|good|likely|close[rs]?t?|add|include|holds?|what|one\s+of|"
    r"plausible|possib\w*|could|alternativ\w*|second|tempt\w*|consider\w*|torn|"
    r"(?<!split)(?<!splits)(?<!shared)(?<!divided)\s+between|"
    r"almost|nearly|partly|partially|similar|probably|prob|unless|"
    r"(?:is|s)\s+it|the\s+one(?!\s+(?:with|w|that|for|where|which|on|in|from)\b))\b"
    r"|\?|^\s*(?:and|&|\+)",
    re.IGNORECASE,
)
# A rest that goes on with the opening claim rather than remarking on another choice:
# "a fixed minimum set at creation, which then grows on demand".
_GOES_ON = re.compile(r"\s*(?:which|where|that|then|and\s+then|but)\b")
# Words that say nothing of a choice named in a remark: "A, B. D, obviously" lists D.
_EMPHASIS = frozenset(
    _stem(w)
    for w in (
        "obviously", "definitely", "probably", "clearly", "surely", "certainly", "sure",
        "think", "guess", "imo", "tbh", "just", "only", "course", "really", "ofc", "obv",
        "defo", "def", "yeah", "yep", "pick", "picks", "choose", "option", "options",
        "letter", "choice", "choices", "say", "go", "with", "thats", "that",
    )
)  # fmt: skip


def _lead_kept(question: Question, answer: str, key: ChoiceKey) -> set[int]:
    """The choices an answer's opening part names, when the rest only remarks on others:
    "A. B is MIG, C is vGPU", "r580 — R570.133.20 is the B200's", "clamped — it quietly
    becomes the greatest the device supports".

    The rest may elaborate, or say what other choices are ("SXM is the one with HBM3"),
    but not add to, doubt or change the pick ("B. Or C?", "A and B. C is right too"), and
    what it says of another choice must not be in the words of the question (it would then
    be an answer too: "gpu.shared is used by HAMi as well")."""
    ends = _LEAD_END_ONE if question.kind == "choice" else _LEAD_END
    lead_end = ends.search(answer)
    if not lead_end or not answer[lead_end.end() :].strip():
        return set()
    folded = fold(answer)
    folded_end = ends.search(folded)
    if folded_end and any(
        m.start() <= folded_end.start() < m.end()
        for _, pattern in _folded_patterns(question)
        for m in pattern.finditer(folded)
    ):
        return set()  # the break is inside a choice's text: "HBM2 (~1,555 GB/s); HBM2e is ..."
    lead, rest = answer[: lead_end.start()], answer[lead_end.end() :]
    said = _without_choices(rest, question)
    unsure = _UNSURE.search(said)
    if unsure and not _conceded(said[unsure.end() :]):
        return set()
    remark = _own_words(rest, question) - _EMPHASIS
    if question.kind == "multi" and not remark:
        return set()  # "A, B. D, obviously" lists D
    picked = _named(question, lead)
    if not picked or (question.kind == "choice" and len(picked) != 1):
        return set()
    if question.kind == "choice" and _contradicted(answer, question, next(iter(picked))):
        return set()  # the rest says the pick's opposite: "least and greatest, greatest largest"
    rest_normal, rest_ends = clause_normal(rest)
    letters, _ = _letters_named(rest, key)
    others = _texts_named(rest_normal, key, rest_ends) | letters
    others |= _places_named(fold(rest), len(key.normals), key.normals)
    if question.kind == "multi":
        others |= _listed(rest, question, key)[0]
        if not others:
            return set()  # "overlap. less memory": the list goes on
    elif not others and _names_asked_gist(question, rest, picked):
        return set()  # "context switches are free, the loss is that time-slicing lowers the clock"
    if others & picked:
        return set()  # the rest takes up a pick again: "A, B. Not B though"
    if question.kind == "choice" and not others and not _letters_named(lead, key)[0]:
        goes_on = bool(_GOES_ON.match(fold(rest)))
        if goes_on and _contradicted(answer, question, *picked):
            return set()  # "least and greatest, where the greatest is the largest number"
        other = _fragment_named(rest, question) if goes_on else None
        own = set(key.normals[other].split()) if other is not None else set()
        if other is not None and not (_DISMISSING - own).intersection(normalize(rest).split()):
            return set()  # the claim goes on to another choice: "a fixed minimum, which grows"
    if others:
        if not remark:
            return set()  # "A. D, obviously" names D too; so does "A. <the text of D>"
        asked = _prompt_words(question) & remark
        saying = _SAYING.intersection(normalize(rest).split())
        dismissing = _DISMISSING.intersection(normalize(rest).split())
        if (len(asked) > 1 or (asked and saying)) and not dismissing:
            return set()  # "A. D is what the PCIe H100 uses", "A, B. the kiwi can fly"
        if asks_negative(question) and _DENY_CUES.intersection(normalize(rest).split()):
            return set()  # asked what cannot fly, "A, B. the kiwi can't" adds the kiwi
    return picked


def _conceded(after: str) -> bool:
    """Whether a remark's doubt is taken back by a "but" that denies: "D sounds close but
    it's not just privileged pods", "C is tempting but wrong"."""
    but = re.search(r"\bbut\b(.*)", after)
    if but is None:
        return False
    return bool((_DENY_CUES | _UNTRUE).intersection(normalize(but.group(1)).split()))


def _names_asked_gist(question: Question, rest: str, picked: set[int]) -> bool:
    """Whether the remark ``rest`` after a pick gives the gist of another choice as the answer
    to the question, in the question's own words and without dismissing it: "context switches
    are free, the loss is that time-slicing lowers the clock" (asked where time-slicing loses
    throughput) answers with the lower clock."""
    gist = _fragment_named(rest, question)
    if gist is None or gist in picked:
        return False
    words = set(normalize(rest).split())
    asked = _prompt_words(question) & _own_words(rest, question)
    return len(asked) > 1 and not _DISMISSING & words


def _plain_stems(text: str) -> set[str]:
    return {_stem(w) for w in normalize(text).split() if w not in STOPWORDS and len(w) > 1}


@lru_cache(maxsize=4096)
def _choice_stems(question: Question) -> frozenset[str]:
    return frozenset().union(*(_plain_stems(c) for c in question.choices))


@lru_cache(maxsize=4096)
def _prompt_words(question: Question) -> frozenset[str]:
    """The stems of the question's words that no choice uses ("b300", "hami")."""
    return frozenset(_plain_stems(question.prompt) - _choice_stems(question))


def _without_choices(text: str, question: Question) -> str:
    """``text`` folded, without the choices' whole texts."""
    text = fold(text)
    for _, pattern in _folded_patterns(question):
        text = pattern.sub(" ; ", text)
    return text


def _own_words(remark: str, question: Question) -> set[str]:
    """The stems of ``remark``'s words that are not the choices' words."""
    return _plain_stems(_without_choices(remark, question)) - _choice_stems(question) - _SAYING


def _corrected(question: Question, answer: str) -> str:
    """What an answer says after the last place where it takes back what it said before,
    or "" when it takes nothing back. A bare "actually" takes back only when a short pick
    follows ("A... actually B"), not a remark ("A. Actually B is a common mistake")."""
    last = last_correction(answer)
    if last is None:
        return ""
    after = answer[last.end() :]
    if last.group(2) and not (
        _letters_named(after, choice_key(question))[1] or len(normalize(after).split()) <= 4
    ):
        return ""
    return after


def _named(question: Question, answer: str) -> set[int]:
    """:func:`named_choices` before the figures are checked; an opening pick followed by
    remarks on other choices is the pick (see :func:`_lead_kept`), and a pick taken back is
    no pick ("B. no wait, C" names C)."""
    after = _corrected(question, answer)
    if after:
        named = _named(question, after)
        if named:
            return named
    if question.kind == "choice":
        hedged = _hedged(question, answer, choice_key(question))
        if hedged:
            return hedged
    named = _named_whole(question, answer)
    lead = _lead_kept(question, answer, choice_key(question))
    return lead or named


# An answer that leaves the pick open: "requests or limits, either works".
_EITHER = re.compile(
    r"\b(?:either\s+(?:one\s+|way\s+)?(?:works?|is\s+fine|is\s+ok|will\s+do)|both\s+work|"
    r"same\s+thing|(?:does\s*n[o']?t|doesnt)\s+matter)\b"
)


def _hedged(question: Question, answer: str, key: ChoiceKey) -> set[int]:
    """The choices a hedge offers, when it offers two: "3 SMs or 3 compute slices", sides
    of one "or" that each name another choice and deny neither, or a list that says either
    of its choices will do ("requests or limits, either works")."""
    folded = fold(answer)
    opening = _LEAD_END_ONE.split(folded, maxsplit=1)[0]  # a later "or" is a remark's
    sides = re.split(r"\bor\b", opening)
    if len(sides) == 2 and not _DENY_CUES.intersection(normalize(opening).split()):
        left, right = (_part_named(side, question, key) for side in sides)
        if len(left) == 1 and len(right) == 1 and left != right:
            return left | right
    if _EITHER.search(folded):
        # The sides need fit their choices only loosely: the answer offers them all.
        words = fragment_key(question).plain
        parts = [set(content_words(part)) for part in re.split(r"\bor\b|/", folded)]
        offered = [{i for i, own in enumerate(words) if own & part} for part in parts]
        if len(offered) > 1 and all(offered) and len(set().union(*offered)) > 1:
            return set().union(*offered)
    return set()


def _lead_letters_reopened(
    answer: str, question: Question, key: ChoiceKey, letters: set[int]
) -> bool:
    """Whether the explanation after leading letters names other choices ("A. I'd also add
    B", "A. <the text of B>"): the answer is then read as a whole, remarks and all. After
    a multi answer's letters only a remark that adds or doubts ("A, B. C too") reopens."""
    lead = _LEAD_LETTERS.match(fold(answer))
    if not lead:
        return False
    folded = fold(answer)
    # The rest in its own case where folding kept the length: "A. I'd also add B".
    rest = (answer if len(answer) == len(folded) else folded)[lead.end(1) :]
    if (
        question.kind == "multi"
        and not _UNSURE.search(_without_choices(rest, question))
        and _own_words(rest, question) - _EMPHASIS
    ):
        return False  # a list's remarks that add nothing: "A+B+C. D wrong (...), E wrong"
    normal, ends = clause_normal(rest)
    named = _texts_named(normal, key, ends) | _letters_named(rest, key)[0]
    return bool(named - letters)


def _left_out(answer: str, question: Question, key: ChoiceKey) -> set[int]:
    """The choices an "all but" answer leaves out: "all except D, E", "anything but the
    2nd and 4th", "every option apart from D (it is wrong)"."""
    but = _ALL_BUT.match(re.sub(r"\(([a-j])\)", r"\1", fold(answer)))
    if not but:
        return set()
    text = _LEFT_OUT_END.split(but.group(1), maxsplit=1)[0]
    left_out: set[int] = set()
    for part in _PARTS.split(text):
        part = _LEFT_OUT_WORDS.sub("", part).strip()
        run = _END_N.search(part)
        if not part:
            continue
        if part in key.letters:  # "all except D and E"
            left_out.add(key.letters.index(part))
        elif run:  # "all but the last two"
            left_out |= _end_run(run, len(key.letters))
        elif part.isdigit() and not _holds_digits(question):  # "all except 4 and 5"
            if 0 < int(part) <= len(key.letters):
                left_out.add(int(part) - 1)
        elif part in _PLACE_WORDS.split("|"):  # "all but the 2nd", "all but the last"
            index = len(key.letters) - 1 if part == "last" else _ORDINALS[part]
            if index < len(key.letters):
                left_out.add(index)
        else:
            left_out |= _part_named(part, question, key, 0.1)
    return left_out


def _named_whole(question: Question, answer: str) -> set[int]:
    """The choices ``answer`` names, read as a whole."""
    key = choice_key(question)
    answer = _places_spelt(_identifiers_joined(question, answer), question, key)
    if question.kind == "multi":
        answer = _ranges_spelt(answer, question, key)
    normal, ends = clause_normal(answer)
    every = set(range(len(key.normals)))
    if question.kind == "multi" and _ALL.match(normal):
        return every
    letters, terse = _letters_named(answer, key)
    reopened = terse and _lead_letters_reopened(answer, question, key, letters)
    if terse and not reopened:
        return letters
    if reopened:
        letters |= _letters_named(answer, key, lead=False)[0]
    if question.kind == "multi":
        left_out = _left_out(answer, question, key)
        if left_out:
            return every - left_out
    named = _texts_named(normal, key, ends)
    if question.kind == "choice":
        letters -= _letters_denied(answer, key, asks_negative(question), single=True)
    named |= letters | _places_named(fold(answer), len(key.normals), key.normals)
    if question.kind == "multi":
        kept = _comments_dropped(answer, question, key)
        if kept != answer:
            # "A, B, C. D too": a remark that adds a letter adds it to the list
            adds = bool(_ADDING.intersection(normalize(kept).split()))
            letters, _ = _letters_named(kept, key, lead=not (reopened or adds))
            rest = [t for t in re.sub(r"[^\w'’]+", " ", fold(kept)).split() if t not in _FILLER]
            if rest and all(t in key.letters for t in rest):  # "A and B (C, D are optional)"
                return letters
        listed, denied = _listed(_subjects_denied(kept, question, key), question, key)
        denied |= _letters_denied(kept, key, asks_negative(question))
        found = (listed | letters) - denied  # "A, B and C. D is wrong because <D's words>"
        if denied and not found - denied and _THE_REST.search(fold(answer)):
            return every - denied  # "not D or E, the rest yes"
        return found or named - denied  # "not A, B, C" names nothing
    if len(named) > 1:
        named = _aside_dropped(answer, key) or _exceptions_dropped(answer, question, key) or named
    if named:
        return named
    named = _fuzzy_named(normal, key) or _core_named(normal, key)
    parts = [p for p in _PARTS.split(fold(answer)) if p.strip()]
    if not named and len(parts) > 1:
        for part in parts:
            named |= _fuzzy_named(normalize(part), key)
    if named:
        return named
    # Outside its asides first: "VF via SR-IOV (Turing used mdev)".
    asides = _ASIDE.findall(answer)
    bare = _ASIDE.sub(" ; ", answer) if asides and not _HEDGE.search(fold(" ".join(asides))) else ""
    index = _fragment_named(bare, question) if bare else None
    if index is None:
        index = _fragment_named(answer, question)
    if index is not None:
        return {index}
    # Part by part, as a list: "dcgm, nvidia-smi doesn't show it" names one choice.
    listed, _ = _listed(answer, question, key)
    if len(listed) != 1:
        listed = _exceptions_dropped(answer, question, key)
    if (
        len(listed) == 1
        and not _contradicted(answer, question, *listed)
        and not _says_other(answer, question, *listed)
    ):
        return listed
    return _quantity_named(answer, question)


# Words that add a later remark's choices to the list: "(the A30 too)", "A10 can't either".
_ADDING = frozenset({"too", "also", "either", "well", "plus", "likewise", "same"})
_REMARK = re.compile(
    r"\(([^()]*)\)|(?:[;!?]+|\.+(?!\w))\s*((?:[^;.!?()]|\.(?=\w))*)"
    r"|\s[-—–]+\s((?:[^;.!?()]|\.(?=\w))*)"
)


def _comments_dropped(answer: str, question: Question, key: ChoiceKey) -> str:
    """``answer`` without the remarks about choices it did not list: "T4, L40S, A10 (A30
    and H100 do MIG)" lists three and remarks on two others.

    A remark is an aside in brackets, or (when the question asks what does *not* hold) a
    later sentence that says something of its choices without denying it ("the A30 and
    H100 support it"): it names only choices the list before it does not, says something
    besides their names, and has no word that adds them ("too", "also", "either"). When the
    question asks what does not hold, a remark that denies ("A10 has no MIG") adds its
    choices."""
    text = answer
    first = _REMARK.search(text)
    if not first:
        return answer

    def names(part: str) -> set[int]:
        return _listed(part, question, key)[0] | _letters_named(part, key)[0]

    lead = names(text[: first.start()])
    if not lead:
        return answer
    negative = asks_negative(question)
    kept: list[str] = [text[: first.start()]]
    end = first.start()
    for m in _REMARK.finditer(text, first.start()):
        kept.append(text[end : m.start()])
        lead |= names(text[end : m.start()])  # "A (likelihood), B (owners)" glosses B
        end = m.end()
        aside = m.group(1) is not None
        remark = next((g for g in m.groups() if g is not None), "")
        named = names(remark)
        words = normalize(remark).split()
        said = _remark_words(remark, question)
        denies = bool(_DENY_CUES.intersection(words))
        # Words the choices themselves use ("only to time-sliced") say nothing against them;
        # a denial ("isn't required") is read by the list itself.
        own = {w for i in named for w in key.normals[i].split()}
        # A leading "only" says what the item is ("only kernels, not memcpys"), not that
        # the choices it names fall short ("the A30 only goes to 4").
        limits = bool(_LIMITING.intersection(words[1:] if words[:1] == ["only"] else words) - own)
        comment = (
            bool(named)
            and not named & lead
            and not _ADDING.intersection(words)
            and bool(said)
            and (aside or negative or limits)
            and not (negative and denies)
        )
        if aside and _glosses(text[: m.start()], remark, question, key):
            kept.append(f" | {remark} | ")  # "kernels only (not memcpys)" is one item
            continue
        kept.append(" ; " if comment else " ; " + remark)
    kept.append(text[end:])
    return "".join(kept)


def _glosses(before: str, aside: str, question: Question, key: ChoiceKey) -> bool:
    """Whether an aside in brackets tells what the list item before it means: the item
    alone names no choice ("kernels only" fits two), with the aside it names one ("kernels
    only (not memcpys)")."""
    items = [p for p in _PARTS.split(before) if p.strip()]
    if not items or _part_named(items[-1], question, key) or _letters_named(items[-1], key)[0]:
        return False
    return len(_part_named(f"{items[-1]} {aside}", question, key)) == 1


# Words that say a later sentence's choices fall short: "PreStartContainer is optional",
# "the A30 only goes to 4".
_LIMITING = frozenset({"optional", "only", "max", "maxes", "limited", "unsupported"})
# Words that dismiss the choice a remark is about, whatever words of the question it uses:
# "Best Effort would hand idle time to others", "1g.10gb is too small for 14 GB".
_DISMISSING = _DENY_CUES | {"would", "too", "only", "just", "was", "were", "old"}
# Verbs that say something of a choice in a remark: "the eagle and the sparrow can".
_SAYING = frozenset({"can", "do", "does", "did", "has", "have", "is", "are", "will"})


def _remark_words(remark: str, question: Question) -> list[str]:
    """What ``remark`` says besides naming choices: its meaningful words once the
    choices' texts and words are taken out, and the verbs that affirm ("can", "do")."""
    text = fold(remark)
    for _, pattern in _folded_patterns(question):
        text = pattern.sub(" ", text)
    known = frozenset().union(*fragment_key(question).plain)
    saying = [w for w in normalize(text).split() if w in _SAYING or w in _DENY_CUES]
    return [w for w in content_words(text) if w not in known] + saying


def _contradicted(answer: str, question: Question, index: int) -> bool:
    """Whether the answer as a whole uses the opposite of one of choice ``index``'s words
    ("time-sliced only, and they can sit in different VMs" against "... in the same VM")."""
    key = fragment_key(question)
    given = frozenset(polar_words(answer))
    opposites = {o for w, p in given if p for o in OPPOSITE.get(w, ())}
    clashing = _clashing(
        content_words(answer), question.choices[index], opposites & key.plain[index]
    )
    return bool(clashing)


def _says_other(answer: str, question: Question, index: int) -> bool:
    """Whether the answer as a whole also says most of what another choice says apart from
    choice ``index`` ("registers over gRPC with the kube-scheduler, which advertises ...")."""
    key = fragment_key(question)
    given, _ = _echo_dropped(
        _unprefixed(frozenset(polar_words(answer)), key), answer, question, key
    )
    return _other_said_whole(given, key, index)


@lru_cache(maxsize=4096)
def asks_negative(question: Question) -> bool:
    """Whether ``question`` asks what does *not* hold ("Which cannot fly?"); a denial in
    brackets ("Which must be implemented (not the optional ones)?") is no such question."""
    return bool(_NEGATIVE_PROMPT.intersection(normalize(_ASIDE.sub(" ", question.prompt)).split()))


_NEGATIVE_PROMPT = frozenset(
    {"not", "cannot", "cant", "doesnt", "isnt", "never", "wont", "fails", "least", "except"}
)


_FINE = frozenset({"fine", "ok", "okay", "work", "works", "allowed", "supported"})


def _exceptions_dropped(answer: str, question: Question, key: ChoiceKey) -> set[int]:
    """The one choice named in a part that the answer asserts, when the other choices it
    names are in parts that deny them: "dcgm, nvidia-smi doesn't show it". When the question
    asks for what does not hold ("which cannot be used?"), the denied part is the answer:
    "fixed share can't; the others are fine"."""
    asserted: set[int] = set()
    denied: set[int] = set()
    fine: set[int] = set()
    for segment in _SEGMENTS.split(fold(answer)):
        said = normalize(segment).split()
        # "best effort and equal share can": a verb whose complement is left out affirms.
        approved = bool(_FINE.intersection(said)) or bool(said and said[-1] in _SAYING)
        for part in _PARTS.split(segment):
            if not part.strip():
                continue
            words = normalize(part).split()
            deny = bool(_DENY_CUES.intersection(words))
            if deny:  # what "fixed share can't" denies is "fixed share"
                part = " ".join(w for w in words if w not in _DENY_CUES)
            found = _part_named(part, question, key)
            if approved and not deny:
                fine.update(found)
            else:
                (denied if deny else asserted).update(found)
    if asks_negative(question):
        # Asked what does not hold: the choices said to be fine are the exceptions.
        asserted, denied = asserted | denied, fine
    else:
        asserted |= fine
    named = asserted - denied
    return named if len(named) == 1 and denied - asserted else set()

"""Numeric questions: read the number and unit a person wrote, convert, compare.

Understands digits (``1,555``, ``1.8``, ``7.2k``), number words (``seven``,
``nine hundred``, ``twenty-five``), approximations (``~900``, ``about 20``),
ranges (``16-20``) and units with conversion inside a family (GB/s <-> TB/s,
ms <-> s). GB <-> GiB and bits <-> bytes convert only when the question lists
such a unit in ``unit``/``units``. A number in a unit of another family or
dimension is wrong, whatever its value: MB is not GB, and 70 is never 7.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache

from bot.core.content import Question
from bot.core.grading.normalize import DASHES, fold, normalize


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit of the table: its dimension, its size in the base unit, its prefix family."""

    name: str
    dimension: str
    factor: float
    family: str


def _build_units() -> dict[str, Unit]:
    table: dict[str, Unit] = {}

    def add(names: tuple[str, ...], dimension: str, factor: float, family: str) -> None:
        for n in names:
            table[n] = Unit(names[0], dimension, factor, family)

    dec = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15, "e": 1e18, "z": 1e21}
    words = {
        "": "", "k": "kilo", "m": "mega", "g": "giga", "t": "tera", "p": "peta", "e": "exa",
        "z": "zetta",
    }  # fmt: skip
    binary = {"ki": 2.0**10, "mi": 2.0**20, "gi": 2.0**30, "ti": 2.0**40, "pi": 2.0**50}
    bin_words = {"ki": "kibi", "mi": "mebi", "gi": "gibi", "ti": "tebi", "pi": "pebi"}
    for p, f in dec.items():
        w = words[p]
        add((f"{p}b", f"{w}byte", f"{w}bytes"), "data", f, "dec")
        add((f"{p}bit", f"{w}bit", f"{w}bits", f"{p}bits"), "data", f / 8, "bit")
        add((f"{p}b/s", f"{p}bps", f"{w}byte/s", f"{w}bytes/s"), "rate", f, "dec")
        add((f"{p}bit/s", f"{w}bit/s", f"{w}bits/s", f"{p}bits/s"), "rate", f / 8, "bit")
        add((f"{p}flops", f"{w}flops", f"{p}flop", f"{w}flop"), "flops", f, "dec")
        add((f"{p}flop/s", f"{w}flop/s", f"{p}flops/s", f"{w}flops/s"), "flops", f, "dec")
        add((f"{p}w", f"{w}watt", f"{w}watts"), "power", f, "dec")
        add((f"{p}wh", f"{w}watt-hour", f"{w}watt-hours"), "energy", f * 3600, "dec")
        add((f"{p}j", f"{w}joule", f"{w}joules"), "energy", f, "dec")
    for p, f in binary.items():
        w = bin_words[p]
        add((f"{p}b", f"{w}byte", f"{w}bytes"), "data", f, "bin")
        add((f"{p}b/s", f"{w}byte/s", f"{w}bytes/s"), "rate", f, "bin")
    for names, f in (
        (("ns", "nanosecond", "nanoseconds", "nsec"), 1e-9),
        (("us", "µs", "μs", "microsecond", "microseconds", "usec"), 1e-6),
        (("ms", "millisecond", "milliseconds", "msec"), 1e-3),
        (("s", "sec", "secs", "second", "seconds"), 1.0),
        (("min", "mins", "minute", "minutes"), 60.0),
        (("h", "hr", "hrs", "hour", "hours"), 3600.0),
        (("day", "days"), 86400.0),
    ):
        add(names, "time", f, "")
    add(("%", "percent", "pct"), "ratio", 1.0, "")
    return table


UNITS = _build_units()
_RATE_SUFFIX = frozenset({"s", "sec", "second", "seconds"})
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9,
                "trillion": 1e12}  # fmt: skip
_ONE_MARK = "\u2063"  # after a "one" written as a word: often "one GPU", not a count
_NEGATIONS = frozenset({"not", "never", "isnt", "arent", "no"})
_HEDGES = frozenset({"or", "maybe", "either", "perhaps"})

_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:e([-+]?\d+))?"
)
_AFTER = re.compile(  # "2+ nodes": at least 2, of nodes
    r"\+?\s*(k\b|thousand\b|million\b|mn\b|billion\b|bn\b|trillion\b)?"
    r"(\s*(?:-|–|—|to)\s*(\d+(?:\.\d+)?))?"
    r"\s*(%|[^\W\d_]+(?:-[^\W\d_]+)?(?:\s*(?:/|per|a|an)\s*[^\W\d_]+)?)?",
    re.UNICODE,
)


def _continues(current: int, word: str) -> bool:
    """Whether number ``word`` extends a number whose last part so far is ``current``:
    "twenty" + "five", "hundred" + "five", "two" + "hundred"; not "three" + "four"."""
    if word not in _NUMBER_WORDS:
        return True  # a scale: "hundred", "thousand"
    value = _NUMBER_WORDS[word]
    if current == 0:
        return True  # right after a scale: "two thousand five"
    if current % 100 == 0:
        return value < 100
    return current % 10 == 0 and current % 100 >= 20 and value < 10


def words_to_digits(text: str) -> str:
    """Replace runs of number words with digits: "nine hundred" -> "900"."""
    parts = re.split(r"(\s+|-)", text)
    out: list[str] = []
    run_total = 0
    current = 0
    in_run = False
    pending_sep: list[str] = []

    def flush() -> None:
        nonlocal run_total, current, in_run
        if in_run:
            total = run_total + current
            out.append(str(total) + (_ONE_MARK if total == 1 else ""))
        run_total = current = 0
        in_run = False

    for part in parts:
        word = part.strip(".,;:!?()").lower()
        if word in _NUMBER_WORDS or (word in _SCALES and in_run) or (word == "and" and in_run):
            if word == "and":
                pending_sep.append(part)
                continue
            leading = part[: len(part) - len(part.lstrip(".,;:!?()"))]
            if in_run and (leading or not _continues(current, word)):
                # "seven (one per …)", "three four": two numbers, not one.
                flush()
                out.extend(pending_sep)
            pending_sep.clear()
            out.append(leading)
            if word in _NUMBER_WORDS:
                current += _NUMBER_WORDS[word]
            elif word == "hundred":
                current = max(current, 1) * 100
            else:
                run_total += max(current, 1) * _SCALES[word]
                current = 0
            in_run = True
            trailing = part[len(part.rstrip(".,;:!?()")) :]
            if trailing:
                flush()
                out.append(trailing)
            continue
        if not part.strip() or part == "-":
            if in_run:
                pending_sep.append(part)
            else:
                out.append(part)
            continue
        if word in ("a",) and not in_run:
            out.append(part)
            continue
        flush()
        out.extend(pending_sep)
        pending_sep.clear()
        out.append(part)
    flush()
    out.extend(pending_sep)
    return "".join(out)


def _canonical_unit(raw: str) -> str:
    """A unit as written ("GB / sec", "gigabytes per second") in table-key form."""
    text = re.sub(r"\s+", " ", raw.strip())
    m = re.fullmatch(r"([^\s/]+)\s*(?:/|\bper\b|\ban?\b)\s*(\S+)", text, re.IGNORECASE)
    base, per = (m.group(1), m.group(2)) if m else (text, "")
    # Bits vs bytes: "Gb", "Gbps", "Gbit" are bits; "GB", "gb", "GBps" are bytes.
    key = base.lower()
    upper_prefix_bits = bool(re.fullmatch(r"[KMGTP]b", base))
    bps_bits = bool(re.fullmatch(r"[kmgtp]?bps", base, re.IGNORECASE)) and not re.fullmatch(
        r"[KMGTP]Bps", base
    )
    is_bits = upper_prefix_bits or bps_bits
    if is_bits:
        key = key.replace("bps", "bit/s") if key.endswith("bps") else key + "it"
    elif key.endswith("bps"):
        key = key[:-3] + "b/s"
    if per and per.lower() in _RATE_SUFFIX:
        key += "/s"
    return key


@dataclass(frozen=True, slots=True)
class NumericKey:
    """A numeric question prepared for grading: its unit and the units it allows."""

    value: float
    tolerance: float
    unit: Unit | None
    allowed: tuple[Unit, ...]
    synonyms: frozenset[str]
    counted: bool = False  # an amount of work ("FLOPs"), not a rate ("FLOP/s")


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


# "FLOPs", "PFLOP": an amount of work. "FLOPS" in capitals is also written for a rate.
_COUNTED_WORK = re.compile(r"[kKMGTPEZ]?FLOPs?|(?:kilo|mega|giga|tera|peta|exa|zetta)?FLOPs?")


@lru_cache(maxsize=4096)
def numeric_key(question: Question) -> NumericKey:
    """Prepare ``question``'s value, tolerance and allowed units (cached per question)."""
    names = (question.unit, *question.units)
    units = [UNITS.get(_canonical_unit(_GPU_TIME.sub("", n))) for n in names if n.strip()]
    allowed = tuple(u for u in units if u is not None)
    synonyms = frozenset(
        " ".join(_singular(w) for w in normalize(n).split()) for n in names if normalize(n)
    )
    return NumericKey(
        value=float(question.value or 0.0),
        tolerance=question.tolerance,
        unit=UNITS.get(_canonical_unit(_GPU_TIME.sub("", question.unit)))
        if question.unit.strip()
        else None,
        allowed=allowed,
        synonyms=synonyms,
        counted=bool(_COUNTED_WORK.fullmatch(question.unit.strip())),
    )


class Fit(Enum):
    """How a written unit fits the question."""

    EXPLICIT = 1  # a unit the question allows, converted
    BARE = 2  # no unit, or a word that is not a unit ("7 instances" on a bare question)
    WRONG = 3  # a unit of another family or dimension


@dataclass(frozen=True, slots=True)
class Reading:
    """One number found in an answer, converted to the question's unit when it can be."""

    low: float
    high: float
    fit: Fit
    negated: bool
    hedged: bool
    start: int
    word_one: bool
    unit_text: str
    version: bool = False  # just after a product name: "NVLink 4", "PCIe 5", "Gen 5"


def _fit(unit_text: str, key: NumericKey) -> tuple[Fit, float]:
    """How ``unit_text`` fits, and the factor that converts into the question's unit."""
    if not unit_text:
        return Fit.BARE, 1.0
    canonical = _canonical_unit(unit_text)
    unit = UNITS.get(canonical)
    if unit is None and "/" not in canonical:
        unit = UNITS.get(_canonical_unit(unit_text.split()[0]))
    target = key.unit
    if key.counted and unit is not None and unit.name.endswith("/s"):
        return Fit.WRONG, 1.0  # "4.2e22 FLOP/s" is a rate, not the work a job takes
    if unit is not None and target is not None and unit.dimension != target.dimension:
        return Fit.WRONG, 1.0  # "141 GB/s" is a rate, not a size; "1000 Wh" is energy
    words = f" {' '.join(_singular(w) for w in normalize(unit_text).split())} "
    if any(f" {s} " in words for s in key.synonyms):
        if unit is not None and target is not None and unit.dimension == target.dimension:
            return Fit.EXPLICIT, unit.factor / target.factor
        return Fit.EXPLICIT, 1.0
    if unit is None:
        return Fit.BARE, 1.0
    if target is None or unit.dimension != target.dimension:
        return Fit.WRONG, 1.0
    allowed = any(a.name == unit.name for a in key.allowed)
    same_family = unit.family == target.family
    family_listed = any(a.family == unit.family for a in key.allowed)
    # Bits and bytes convert exactly (128 bits are 16 bytes; 128 Gb/s is not 128 GB/s).
    bits_and_bytes = {unit.family, target.family} == {"dec", "bit"}
    if allowed or same_family or family_listed or bits_and_bytes:
        return Fit.EXPLICIT, unit.factor / target.factor
    return Fit.WRONG, 1.0


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_POWER = re.compile(r"((?:\^|\*\*)[-+]?\d+|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
# "3.1 × 10^19", "3.1x10^19", "3.1·10¹⁹", "3.1 * 10**19", "3.1 x 10e19"; and a bare "10^22".
_SCIENTIFIC = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:[x×*·⋅]|\bx\b)\s*10\s*(?:\^|\*\*|e)\s*([-+]?\d+)", re.IGNORECASE
)
_BARE_POWER = re.compile(r"(?<![\w.])10\s*(?:\^|\*\*)\s*([-+]?\d+)")
# "GPU-hours", "GPU seconds", "GPU-s": time spent on GPUs is time.
_GPU_TIME = re.compile(
    r"\bgpus?[- ](?=(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?)\b)", re.IGNORECASE
)
# "zero" is a number; "ZeRO" (the optimizer) and "zero-copy" are not.
_ZERO = re.compile(r"(?<![\w-])(?:zero|Zero|ZERO)(?![\w-])")
_FRACTIONS = {
    "half": "0.5", "third": "0.3333", "quarter": "0.25", "fifth": "0.2", "tenth": "0.1",
    "eighth": "0.125", "sixth": "0.1667", "seventh": "0.1429",
}  # fmt: skip
_FRACTION = re.compile(
    r"\b(?:(a|an|one|two|three|four)\s+)?(half|thirds?|quarters?|fifths?|tenths?|eighths?|"
    r"sixths?|sevenths?)\b",
    re.IGNORECASE,
)
# Working before a result: "80/4 = 20", "8 × 900 GB/s = 7.2 TB/s" (an operator after a digit).
_ARITHMETIC = re.compile(
    r"\d\s*[×*/+]\s*\d|\s[x×*+-]\s*\d"
    r"|\b(?:half|twice|double|triple|times|divided|minus|plus|multiplied|quarter)\b"
)
# A product or generation name just before a number makes it a version, not a quantity.
_PRODUCT = re.compile(
    r"(?:\b(?:[Gg]en|[Gg]eneration|[Vv]ersion)|\b[A-Z]{2,}[a-z]+|\b[a-z]+[A-Z][A-Za-z]*)\s*$"
)
_DATA_PREFIX = re.compile(r"[GTP]i?", re.IGNORECASE)
# Two scopes a figure can be stated for, each one way or the other: a link's direction (each
# way, or both directions) and its share (per GPU, each, or in total). When an answer gives a
# figure and restates it, the one for the scope the question asks wins.
_WAYS = {
    "one": re.compile(
        r"\b(?:each|per|one|either|a|in each)\s+(?:way|direction)\b|\buni-?directional|\bone-way"
    ),
    "all": re.compile(r"\bboth\b|\bbi-?directional|\btwo-way|\bduplex\b"),
}
_ANY_WAY = re.compile("|".join(p.pattern for p in _WAYS.values()))
_SHARE_ONE = frozenset({"each", "per", "one", "single", "apiece"})
# "total" is the share (all GPUs) or the direction (both ways), by what it is set against.
_TOTAL = frozenset({"total", "aggregate", "combined", "overall", "altogether"})
_SCOPE_WINDOW = re.compile(r"(?:[^,;:.()]|(?<=\d)[,.](?=\d)){0,40}")
_QUESTION = re.compile(r"[^.?!]*\?")


def _one_side(sides: set[str]) -> str | None:
    return next(iter(sides)) if len(sides) == 1 else None


@dataclass(frozen=True, slots=True)
class _Scope:
    """The scopes a piece of text names: each a set of "one" and "all"."""

    ways: frozenset[str]
    shares: frozenset[str]
    total: bool

    @staticmethod
    def of(text: str) -> _Scope:
        folded = fold(text)
        ways = frozenset(side for side, cue in _WAYS.items() if cue.search(folded))
        words = set(normalize(_ANY_WAY.sub(" ", folded)).split())
        shares = frozenset({"one"}) if _SHARE_ONE & words else frozenset()
        return _Scope(ways, shares, bool(_TOTAL & words))

    def resolved(self, *, ways_against: bool) -> tuple[str | None, str | None]:
        """The direction and share named, one side each or None, with "total" read as
        both directions when set against a direction or beside a share ("total per GPU")."""
        ways, shares = set(self.ways), set(self.shares)
        if self.total:
            if ways_against or shares:
                ways.add("all")
            else:
                shares.add("all")
        return _one_side(ways), _one_side(shares)


def _asked(question: Question) -> tuple[str | None, str | None]:
    """The direction and the share the prompt asks for; its question sentence decides an
    axis it names ("quoted as 900 GB/s bidirectional. How much in each direction?")."""
    whole = _Scope.of(question.prompt).resolved(ways_against=False)
    asking = _QUESTION.findall(question.prompt)
    if not asking:
        return whole
    last = _Scope.of(asking[-1]).resolved(ways_against=False)
    return (last[0] or whole[0], last[1] or whole[1])


def _as_asked(question: Question, text: str, readings: list[Reading]) -> Reading | None:
    """The one of ``readings`` whose scope fits the prompt's best: a point for each scope it
    names as asked, a point off for each it names otherwise ("900 GB/s each way" when the
    question asks for the total)."""
    asked = _asked(question)
    if asked == (None, None):
        return None
    scopes = []
    for r in readings:
        window = _SCOPE_WINDOW.match(text, r.start)
        scopes.append(_Scope.of(window.group(0) if window else ""))
    scores = []
    for i, scope in enumerate(scopes):
        against = any(o.ways and not o.shares for j, o in enumerate(scopes) if j != i)
        named = scope.resolved(ways_against=against)
        scores.append(
            sum((n == a) - (n != a) for n, a in zip(named, asked, strict=True) if n and a)
        )
    best = max(scores)
    return readings[scores.index(best)] if scores.count(best) == 1 else None


_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}
# Where a restatement starts: "= 7.2 TB/s", "≈ 42", "i.e. 450", "-> 2".
_RESULT = re.compile(r"=|\bi\.?\s?e\.?(?=\W)|->|→|\bso\b|\bthat'?s\b|\bwhich is\b")


def _as_fraction(m: re.Match[str]) -> str:
    count = _COUNTS.get((m.group(1) or "a").lower(), 1)
    word = m.group(2).lower()
    base = _FRACTIONS.get(word.rstrip("s"), _FRACTIONS.get(word, ""))
    if not base or (m.group(1) is None and word != "half"):
        return m.group(0)
    return f"{round(count * float(base), 4):g}"


# A share written as a fraction where a percentage is asked: "1/10", "1 in 10", "one out of
# four". Only a proper fraction: "80/4" is working, not a share.
_SHARE = re.compile(r"(?<![\w./])(\d+)\u2063?\s*(?:/|\bin\b|\bout of\b)\s*(\d+)(?:th)?(?![\w./])")


def _as_share(m: re.Match[str]) -> str:
    top, bottom = int(m.group(1)), int(m.group(2))
    return f"{top / bottom:.4g}" if 0 < top < bottom else m.group(0)


def _spell_out(text: str, fractions: bool) -> str:
    """Powers of ten as ``e`` notation, GPU time as time, fraction words (and, where a share
    is asked, fractions such as "1/10") as numbers."""
    text = _POWER.sub(lambda m: m.group(0) if m.group(0)[0] in "^*" else "^" + m.group(0), text)
    text = text.translate(_SUPERSCRIPTS).replace("≈", " = ")
    text = _SCIENTIFIC.sub(r"\1e\2", text)
    text = _BARE_POWER.sub(r"1e\1", text)
    text = _GPU_TIME.sub("", text)
    text = _ZERO.sub("0", text)
    if not fractions:
        return text
    return _SHARE.sub(_as_share, words_to_digits(_FRACTION.sub(_as_fraction, text)))


@lru_cache(maxsize=8192)
def prepared(answer: str, fractions: bool) -> tuple[str, str, int]:
    """The answer folded and spelt out, the same with its case kept, and where its last
    restatement starts (-1 if none)."""
    answer = _spell_out(answer, fractions)
    text = words_to_digits(fold(answer))
    # Keep the original case of units (Gb vs GB): fold changed only case and spacing.
    cased = words_to_digits(
        re.sub(r"\s+", " ", unicodedata.normalize("NFKC", answer)).strip()
    ).translate(DASHES)
    if len(cased) != len(text):
        cased = text
    marks = [m.end() for m in _RESULT.finditer(text) if _NUMBER.search(text, m.end())]
    return text, cased, marks[-1] if marks else -1


def read_numbers(answer: str, key: NumericKey) -> list[Reading]:
    """Every number in ``answer``, with its unit fit and value in the question's unit."""
    fractions = key.unit is not None and key.unit.dimension == "ratio"
    text, cased, _ = prepared(answer, fractions)
    readings: list[Reading] = []
    for m in _NUMBER.finditer(text):
        digits = m.group(1).replace(",", "")
        try:
            value = float(digits) * (10.0 ** int(m.group(2)) if m.group(2) else 1.0)
        except (ValueError, OverflowError):
            continue
        after = _AFTER.match(text, m.end())
        multiplier = 1.0
        high = value
        unit_text = ""
        if after:
            if after.group(1):
                multiplier = _MULTIPLIERS[after.group(1)]
            if after.group(3):
                try:
                    high = float(after.group(3))
                except ValueError:
                    high = value
            if after.group(4):
                unit_text = cased[after.start(4) : after.end(4)]
                attached = after.start(4) == m.end()
                lone = not re.match(r"[.\w]", text[after.end(4) : after.end(4) + 1])
                data = key.unit is not None and key.unit.dimension == "data"
                if lone and data and _DATA_PREFIX.fullmatch(unit_text):
                    unit_text += "B"  # "20G": a memory size as Kubernetes writes it
                if attached and _canonical_unit(unit_text.split()[0]) not in UNITS:
                    # "1g.5gb", "7x": an identifier, not a quantity.
                    continue
        fit, factor = _fit(unit_text, key)
        if not math.isfinite(value * multiplier * factor):
            continue
        before = text[: m.start()].replace("~", " ").split()[-3:]
        negated = bool(_NEGATIONS.intersection(w.strip(",.;:") for w in before[-2:]))
        hedged = bool(_HEDGES.intersection(w.strip(",.;:") for w in before[-1:]))
        word_one = text.startswith(_ONE_MARK, m.end())
        version = bool(_PRODUCT.search(cased[: m.start()]))
        # "-4": a minus sign (not a range's dash, not a hyphen inside a word).
        sign = -1.0 if _minus_before(text, m.start()) else 1.0
        readings.append(
            Reading(
                low=sign * value * multiplier * factor,
                high=sign * high * multiplier * factor,
                fit=fit,
                negated=negated,
                hedged=hedged,
                start=m.start(),
                word_one=word_one,
                unit_text=unit_text,
                version=version,
            )
        )
    return readings


def _minus_before(text: str, start: int) -> bool:
    if start < 1 or text[start - 1] != "-":
        return False
    return start < 2 or text[start - 2] in " (~:=,;\u2063"


def _close(x: float, key: NumericKey) -> bool:
    return abs(x - key.value) <= abs(key.value) * key.tolerance + 1e-9 * max(1.0, abs(key.value))


@dataclass(frozen=True, slots=True)
class NumericResult:
    """The outcome for one numeric answer: right or not, and why."""

    correct: bool
    found: bool
    wrong_unit: bool
    given: str


def _scoped(reading: Reading) -> bool:
    """Whether ``reading`` has no unit of its own, only a scope ("450 each way")."""
    words = normalize(reading.unit_text).split()
    return not words or words[0] in _SHARE_ONE | _TOTAL | {"both", "in", "bidirectional"}


def _carried(reading: Reading, before: Reading, key: NumericKey) -> Reading:
    """``reading`` in the unit of the figure ``before`` it ("0.9 TB/s, i.e. 0.45 each way")."""
    _, factor = _fit(before.unit_text, key)
    return replace(reading, low=reading.low * factor, high=reading.high * factor)


@lru_cache(maxsize=4096)
def _prompt_words(question: Question) -> frozenset[str]:
    return frozenset(_singular(w) for w in normalize(question.prompt).split())


def _elsewhere(question: Question, reading: Reading) -> bool:
    """Whether ``reading`` counts something the question does not ask about: a bare number
    with a word that is no unit and not in the prompt ("10 lost" when SMs are asked)."""
    words = normalize(reading.unit_text).split()
    return (
        reading.fit is Fit.BARE
        and bool(words)
        and _singular(words[0]) not in _prompt_words(question)
    )


# A figure stated for a named product: "7 on an A100", "28 with A100s", "4 for the A30".
_FOR_PRODUCT = re.compile(
    r"[^,;:()=]{0,25}?\b(?:on|for|with|in|of)\s+(?:an?\s+|the\s+)?([a-z]+\d+[a-z]*)\b"
)
_PRODUCT_NAME = re.compile(r"\b[a-z]+\d+[a-z]*\b")


@lru_cache(maxsize=4096)
def _prompt_products(question: Question) -> frozenset[str]:
    return frozenset(_PRODUCT_NAME.findall(fold(question.prompt)))


def _about_the_asked(question: Question, text: str, readings: list[Reading]) -> list[Reading]:
    """``readings`` less those stated for a product the prompt does not name: "up to 4, or
    7 on an A100" to a question about an A30 is 4, not a hedge."""
    asked = _prompt_products(question)
    if not asked:
        return readings
    kept = []
    for r in readings:
        m = _FOR_PRODUCT.match(text, r.start)
        name = m.group(1) if m else ""
        if not name or name in asked or name.removesuffix("s") in asked:
            kept.append(r)
    return kept or readings


def check_numeric(question: Question, answer: str) -> NumericResult:
    """Decide whether ``answer`` gives ``question``'s number (never raises)."""
    key = numeric_key(question)
    readings = [r for r in read_numbers(answer, key) if not r.negated]
    if not readings:
        return NumericResult(False, False, False, "")
    if len(readings) > 1:
        readings = [r for r in readings if not r.word_one] or readings
        readings = [r for r in readings if not r.version] or readings
        scoped_text, _, _ = prepared(answer, key.unit is not None and key.unit.dimension == "ratio")
        readings = _about_the_asked(question, scoped_text, readings)
    if key.unit is not None and key.unit.dimension == "ratio" and abs(key.value) > 1:
        # "0.85" where a percentage is asked: a fraction of one.
        readings = [
            replace(r, low=r.low * 100, high=r.high * 100)
            if r.fit is Fit.BARE and 0 < r.low <= 1 and 0 < r.high <= 1
            else r
            for r in readings
        ]
    explicit = [r for r in readings if r.fit is Fit.EXPLICIT]
    bare = [r for r in readings if r.fit is Fit.BARE]
    candidates = explicit or bare
    if not candidates:
        return NumericResult(False, True, True, readings[0].unit_text)
    # The number in the unit asked wins; among those, a restatement ("= 7.2 TB/s", "i.e.
    # 450") wins over the working before it.
    text, _, mark = prepared(answer, key.unit is not None and key.unit.dimension == "ratio")
    restated = [r for r in candidates if r.start >= mark] if mark >= 0 else []
    worked = mark >= 0 and bool(_ARITHMETIC.search(text[:mark]))
    if not worked:
        # "ninety-eight, so ~10 lost": a figure after "so" with a word of its own that the
        # question does not use counts something else.
        restated = [r for r in restated if not _elsewhere(question, r)]
    if worked and not restated:
        # "4 GPUs × 4 instances = 16 tenants": the result of the working is the answer.
        restated = [r for r in bare if r.start >= mark]
    first = candidates[0]
    if not restated and not worked and first.fit is Fit.EXPLICIT and first.start < mark:
        # "900 GB/s bidirectional, i.e. 450 each way": the unit carries over.
        restated = [_carried(r, first, key) for r in bare if r.start >= mark and _scoped(r)]
        if restated and _as_asked(question, text, [first, restated[0]]) is not restated[0]:
            restated = []
    if restated and not worked and first.start < mark:
        # "128 GB/s total, i.e. ~64 GB/s each way": per-GPU or aggregate, as asked.
        scoped = _as_asked(question, text, [first, restated[0]])
        if scoped is not None:
            restated = [scoped]
    if restated and first.start < mark and "(" in text[first.start : mark]:
        # "2 GPUs (112/80 = 1.4, round up)": the working in brackets explains the answer.
        opened = text.rindex("(", first.start, mark)
        if ")" not in text[opened:mark]:
            restated = []
    primary = (restated or candidates)[0]
    ok = _close(primary.low, key) and _close(primary.high, key)
    # "7 or 8", "600 or 900 GB/s": a hedge between different numbers is not an answer.
    values = {round(r.low, 9) for r in readings if r.fit is not Fit.WRONG}
    if any(r.hedged for r in readings[1:]) and len(values) > 1:
        ok = False
    return NumericResult(ok, True, False, primary.unit_text)

"""Content lint: everything wrong with a set of packs, in one readable report.

``lint_paths`` loads every pack it is given, keeps going past broken files, and
returns one line per problem, each naming the file and the question id. The
rules, on top of the schema and the loader's own checks:

- ids are unique across every pack linted together, and pack ids too;
- a choice answer is one of the choices; multi answers are a subset of the
  choices, and not all of them (a question where every box is right teaches
  nothing and is almost always an authoring slip);
- a numeric question has a non-empty unit and a relative tolerance in
  0..``MAX_TOLERANCE``;
- every source is an http(s) URL with a host;
- no two prompts, in any packs, are near-duplicates (see ``DUPLICATE_THRESHOLD``);
- the right answer, given as an answer, grades ``correct`` (the first choice
  text, the letters of a multi, every accepted short answer, the numeric value
  with its unit): this catches answers the grader cannot read;
- an open question's rubric has 3 to 6 points, and its model answer grades
  ``correct`` against it;
- the prompt itself, graded as an answer to an open or short question, must not
  pass: a rubric whose phrases the prompt already contains rewards repeating
  the question;
- every example holds: graded by the real grader, a ``pass`` example grades
  ``correct``, a ``fail`` example ``incorrect`` and a ``partial`` example
  ``partial``; each that does not is reported with its score and the rubric
  points it matched.

Shipped packs (files in ``content/packs``) must use the topics of
``bot.core.content.TOPICS``, a pack id equal to the file name, ids that start
with the pack id, and on every open question a model answer and at least
``MIN_PASS_EXAMPLES`` pass and ``MIN_FAIL_EXAMPLES`` fail examples. Packs linted
from anywhere else (imported decks, drafts) may use their own topics and ids,
and open questions graded against a model answer alone. All grading goes
through ``bot.core.grading.grade``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from urllib.parse import urlparse

from bot.core.content import PACKS_DIR, TOPICS, Pack, Question, load_pack, pack_files
from bot.core.errors import ContentError

#: Relative tolerance above which a numeric question accepts almost anything.
MAX_TOLERANCE = 0.25
#: rapidfuzz ``token_sort_ratio`` (0..100) at or above which two prompts are
#: near-duplicates. Token-sort ignores word order and compares characters, so
#: rewordings such as "How many X can Y have?" / "Y can have how many X?" and
#: one-word edits score 90+, while distinct questions that share a topic's
#: vocabulary stay well below: across the shipped bank, the closest pair of
#: genuinely different prompts scores under 80. ``token_set_ratio`` was
#: rejected: it scores 100 whenever one prompt's words are a subset of the
#: other's, which flags every short prompt that a longer one extends.
DUPLICATE_THRESHOLD = 88.0
MIN_RUBRIC_POINTS = 3
MAX_RUBRIC_POINTS = 6
#: Examples every shipped open question carries: answers that must pass, and must not.
MIN_PASS_EXAMPLES = 2
MIN_FAIL_EXAMPLES = 3
#: How an example's label maps to the verdict the grader must give it.
EXAMPLE_VERDICTS = (("pass", "correct"), ("fail", "incorrect"), ("partial", "partial"))
#: Characters of an example quoted in a problem line.
QUOTE_CHARS = 80


@dataclass(frozen=True, slots=True)
class PackChecked:
    """One pack a lint run loaded and checked: its id, its file, its figures."""

    pack: str
    path: Path | None
    questions: int
    examples: int
    examples_held: int


@dataclass(frozen=True, slots=True)
class LintReport:
    """What a lint run found: problems, questions checked, and examples that hold; and
    each pack that loaded (a pack that does not load is one of the problems)."""

    problems: list[str]
    questions: int
    examples: int = 0
    examples_held: int = 0
    packs: tuple[PackChecked, ...] = ()


def expand(paths: list[Path]) -> list[Path]:
    """Pack files named directly or found in named folders; content/packs when none."""
    if not paths:
        return pack_files(PACKS_DIR)
    files: list[Path] = []
    for path in paths:
        files.extend(pack_files(path) if path.is_dir() else [path])
    return files


def lint_paths(paths: list[Path]) -> tuple[list[str], int]:
    """Return (problems, number of questions checked) for the packs at ``paths``."""
    report = lint_report(paths)
    return (report.problems, report.questions)


def lint_report(paths: list[Path]) -> LintReport:
    """Lint the packs at ``paths`` (default ``content/packs``): every problem, and the counts."""
    files = expand(paths)
    if not files:
        return LintReport([f"no pack files found in {', '.join(map(str, paths)) or PACKS_DIR}"], 0)
    problems: list[str] = []
    examples = held = 0
    packs: list[Pack] = []
    for path in files:
        try:
            packs.append(load_pack(path))
        except ContentError as exc:
            problems.extend(exc.problems)
    problems.extend(_cross_pack_problems(packs))
    checked: list[PackChecked] = []
    for pack in packs:
        shipped = _is_shipped(pack.path)
        pack_examples = pack_held = 0
        for question in pack.questions:
            where = f"{_name(pack)}: question {question.id!r}"
            problems.extend(f"{where}: {p}" for p in question_problems(question, shipped=shipped))
            wrong = example_problems(question)
            problems.extend(f"{where}: {p}" for p in wrong)
            pack_examples += len(question.examples)
            pack_held += len(question.examples) - len(wrong)
        if shipped:
            problems.extend(_shipped_pack_problems(pack))
        checked.append(
            PackChecked(pack.pack, pack.path, len(pack.questions), pack_examples, pack_held)
        )
        examples += pack_examples
        held += pack_held
    problems.extend(duplicate_prompt_problems(packs))
    return LintReport(
        problems, sum(len(p.questions) for p in packs), examples, held, tuple(checked)
    )


def problems_beside(pack: Pack, others: Iterable[Pack]) -> list[str]:
    """What ``pack`` would add to the lint of the packs ``others`` (a pack of one id, a
    question id used twice, a near-duplicate prompt), without linting ``others`` again."""
    together = [*others, pack]
    mine = _name(pack)
    clashes = [p for p in _cross_pack_problems(together) if p.startswith(f"{mine}:")]
    return clashes + duplicate_prompt_problems(together, among=pack)


def _name(pack: Pack) -> str:
    return str(pack.path) if pack.path else pack.pack


def _is_shipped(path: Path | None) -> bool:
    if path is None:
        return False
    try:
        return path.resolve().parent == PACKS_DIR.resolve()
    except OSError:  # pragma: no cover - unreadable paths never load
        return False


def _cross_pack_problems(packs: list[Pack]) -> list[str]:
    problems: list[str] = []
    pack_ids: dict[str, str] = {}
    owner: dict[str, str] = {}
    for pack in packs:
        where = _name(pack)
        if pack.pack in pack_ids:
            problems.append(f"{where}: pack id {pack.pack!r} is also used by {pack_ids[pack.pack]}")
        pack_ids.setdefault(pack.pack, where)
        for q in pack.questions:
            if q.id in owner and owner[q.id] != where:
                problems.append(f"{where}: question {q.id!r}: id is also used in {owner[q.id]}")
            owner.setdefault(q.id, where)
    return problems


def _shipped_pack_problems(pack: Pack) -> list[str]:
    problems: list[str] = []
    where = _name(pack)
    if pack.path is not None and pack.path.stem != pack.pack:
        problems.append(f"{where}: pack id {pack.pack!r} should match the file name")
    for q in pack.questions:
        at = f"{where}: question {q.id!r}"
        if q.topic not in TOPICS:
            problems.append(
                f"{at}: topic {q.topic!r} is not one of the shipped topics ({', '.join(TOPICS)})"
            )
        if not q.id.startswith(pack.pack + "-"):
            problems.append(f"{at}: id should start with the pack id {pack.pack + '-'!r}")
        if q.kind == "open" and not q.model_answer:
            problems.append(f"{at}: open question has no model_answer")
        if q.kind == "open":
            have = (len(q.examples.passing), len(q.examples.failing))
            if have[0] < MIN_PASS_EXAMPLES or have[1] < MIN_FAIL_EXAMPLES:
                problems.append(
                    f"{at}: open question has {have[0]} pass and {have[1]} fail example(s); "
                    f"give at least {MIN_PASS_EXAMPLES} pass and {MIN_FAIL_EXAMPLES} fail"
                )
    return problems


def question_problems(q: Question, *, shipped: bool = False) -> list[str]:
    """Problems of one loaded question (without file or id: the caller adds them)."""
    problems: list[str] = []
    for source in q.sources:
        parsed = urlparse(source)
        if parsed.scheme not in ("http", "https") or "." not in parsed.netloc:
            problems.append(f"source {source!r} is not an http(s) URL")
    if q.kind == "multi":
        if set(q.correct) >= set(q.choices):
            problems.append(
                "every choice of this multi question is marked correct; "
                "add a wrong choice or make it another kind"
            )
    elif q.kind == "numeric":
        if not q.unit.strip():
            problems.append('numeric question has no unit (give one, e.g. "GB/s" or "GPUs")')
        if not 0 <= q.tolerance <= MAX_TOLERANCE:
            problems.append(
                f"tolerance {q.tolerance:g} is outside 0..{MAX_TOLERANCE:g} (it is relative)"
            )
    elif q.kind == "open" and q.rubric:
        n = len(q.rubric)
        if not MIN_RUBRIC_POINTS <= n <= MAX_RUBRIC_POINTS:
            problems.append(
                f"rubric has {n} point(s); give {MIN_RUBRIC_POINTS} to {MAX_RUBRIC_POINTS}"
            )
    problems.extend(_grading_problems(q))
    return problems


def _reference_answers(q: Question) -> list[str]:
    if q.kind == "choice":
        return list(q.correct[:1])
    if q.kind == "multi":
        letters = [chr(ord("A") + q.choices.index(c)) for c in q.correct if c in q.choices]
        return [", ".join(letters)] if letters else []
    if q.kind == "numeric" and q.value is not None:
        return [f"{q.value:g} {q.unit}".strip()]
    if q.kind == "short":
        return list(q.accepted)
    if q.kind == "open" and q.model_answer and q.rubric:
        return [q.model_answer]
    return []


def _grading_problems(q: Question) -> list[str]:
    # Imported here so that a broken grading package shows up as lint problems,
    # and so that loading the lint module never drags in the grading engine.
    from bot.core.grading import grade

    problems: list[str] = []
    for answer in _reference_answers(q):
        label = "model answer" if q.kind == "open" else f"right answer {answer!r}"
        try:
            result = grade(q, answer)
        except Exception as exc:  # any grader failure is a content problem to report
            problems.append(f"grading the {label} failed: {type(exc).__name__}: {exc}")
            continue
        if result.verdict != "correct":
            missed = f"; missed: {'; '.join(result.missed)}" if result.missed else ""
            problems.append(
                f"the {label} grades {result.verdict} (score {result.score:.2f}){missed}"
            )
    if q.kind in ("open", "short"):
        try:
            result = grade(q, q.prompt)
        except Exception as exc:
            problems.append(f"grading the prompt as an answer failed: {type(exc).__name__}: {exc}")
        else:
            if result.verdict == "correct":
                what = "rubric phrases are" if q.kind == "open" else "an accepted answer is"
                matched = f" (matched: {'; '.join(result.matched)})" if result.matched else ""
                problems.append(
                    f"the prompt itself, graded as an answer, passes: {what} too generic"
                    f" or given away by the prompt{matched}"
                )
    return problems


def example_problems(q: Question) -> list[str]:
    """One line for each of ``q``'s examples that the real grader does not grade as labelled.

    Each line names the label and position, the verdict and score it got, the rubric points
    it matched (for open questions) and the start of the answer.
    """
    from bot.core.grading import grade

    problems: list[str] = []
    lists = {"pass": q.examples.passing, "fail": q.examples.failing, "partial": q.examples.partial}
    for label, wanted in EXAMPLE_VERDICTS:
        for number, answer in enumerate(lists[label], start=1):
            what = f"{label} example {number} ({_quote(answer)})"
            try:
                result = grade(q, answer)
            except Exception as exc:  # any grader failure is a content problem to report
                problems.append(f"{what}: grading failed: {type(exc).__name__}: {exc}")
                continue
            if result.verdict != wanted:
                matched = "; ".join(result.matched) or "none"
                points = f"; matched: {matched}" if q.kind == "open" and q.rubric else ""
                problems.append(
                    f"{what} grades {result.verdict}, not {wanted} "
                    f"(score {result.score:.2f}, pass score {q.pass_score:g}{points})"
                )
    return problems


def _quote(answer: str) -> str:
    flat = " ".join(answer.split())
    return repr(flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1] + "…")


def duplicate_prompt_problems(
    packs: Iterable[Pack], threshold: float = DUPLICATE_THRESHOLD, *, among: Pack | None = None
) -> list[str]:
    """Pairs of prompts, in any of ``packs``, that are near-duplicates of each other.

    With ``among``, only pairs with a question of that pack are reported (an import checks
    its one new pack against the bank). The work is near-linear in the number of prompts:
    see ``near_duplicate_pairs``.
    """
    located = [(_name(p), q, p is among) for p in packs for q in p.questions]
    prompts = [q.prompt for _, q, _ in located]
    problems: list[str] = []
    for i, j, score in near_duplicate_pairs(prompts, threshold):
        (file_a, qa, a_new), (file_b, qb, b_new) = located[i], located[j]
        if among is not None and not (a_new or b_new):
            continue
        problems.append(
            f"{file_a}: question {qa.id!r}: prompt is a near-duplicate "
            f"(similarity {score:.0f}) of question {qb.id!r} in {file_b}"
        )
    return problems


#: A prompt is compared with the prompts that hold two of its rarest words, among the ones
#: some other prompt has too (a word of one prompt only, a typo say, finds nothing). Two
#: prompts scoring ``DUPLICATE_THRESHOLD`` or more share most of their words, so one of the
#: two finds the other; common words ("the", "GPU") are looked up only by a prompt made of
#: nothing else.
BLOCKING_WORDS = 4


def near_duplicate_pairs(
    texts: Sequence[str], threshold: float = DUPLICATE_THRESHOLD
) -> list[tuple[int, int, float]]:
    """``(i, j, score)`` with ``i < j`` for the texts whose token-sort similarity is at least
    ``threshold``, in order.

    Instead of scoring every pair (20,000 prompts are 200 million pairs and a 1.6 GB matrix),
    each text is compared only with the texts that hold two of its ``BLOCKING_WORDS`` rarest
    shared words, and only when their lengths allow the threshold at all (an indel
    similarity of ``t`` needs the shorter text to be at least ``t / (200 - t)`` of the
    longer one). On the bench (bench/near_duplicates.py) it finds every pair the all-pairs
    matrix finds on 4,000 prompts, in a fiftieth of the time; a pair can only be missed when
    each of the two texts differs from the other in most of its rare words.
    """
    from rapidfuzz import fuzz, utils

    processed = [utils.default_process(text) for text in texts]
    words = [set(text.split()) for text in processed]
    sorted_texts = [" ".join(sorted(text.split())) for text in processed]
    shortest_share = threshold / (200.0 - threshold)
    holders: dict[str, set[int]] = {}
    for index, text_words in enumerate(words):
        for word in text_words:
            holders.setdefault(word, set()).add(index)
    postings = {word: frozenset(indexes) for word, indexes in holders.items()}
    candidates: set[tuple[int, int]] = set()
    for i, text_words in enumerate(words):
        shared = [word for word in text_words if len(postings[word]) > 1]
        rarest = sorted(shared, key=lambda word: (len(postings[word]), word))[:BLOCKING_WORDS]
        if len(rarest) < 2:
            found = postings[rarest[0]] if rarest else frozenset()
        else:
            found = frozenset().union(
                *(postings[a] & postings[b] for a, b in combinations(rarest, 2))
            )
        candidates.update((min(i, j), max(i, j)) for j in found if j != i)
    pairs: list[tuple[int, int, float]] = []
    for i, j in sorted(candidates):
        shorter, longer = sorted((len(sorted_texts[i]), len(sorted_texts[j])))
        if shorter < shortest_share * longer:
            continue
        score = fuzz.ratio(sorted_texts[i], sorted_texts[j], score_cutoff=threshold)
        if score >= threshold:
            pairs.append((i, j, float(score)))
    return pairs

"""The shipped question bank: every pack loads, lints clean, and covers the syllabus."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.core.content import KINDS, PACKS_DIR, TOPICS, Question, load_pack, pack_files
from bot.core.errors import ContentError
from bot.core.grading import grade
from bot.core.lint import lint_paths

MIN_PER_TOPIC = 12
MIN_TOTAL = 250
MIN_KINDS = {"choice": 40, "multi": 10, "numeric": 20, "short": 30, "open": 50}
MIN_PER_ROLE = 80
MIN_PER_DIFFICULTY = 30


def _bank() -> list[Question]:
    questions: list[Question] = []
    for path in pack_files(PACKS_DIR):
        questions.extend(load_pack(path).questions)
    return questions


@pytest.fixture(scope="module")
def bank() -> list[Question]:
    return _bank()


def test_every_shipped_pack_loads_and_all_failures_are_reported_together() -> None:
    failures: list[str] = []
    paths = pack_files(PACKS_DIR)
    for path in paths:
        try:
            load_pack(path)
        except ContentError as exc:
            failures.extend(exc.problems)
    assert paths, f"no packs in {PACKS_DIR}"
    assert not failures, f"{len(failures)} pack problem(s):\n" + "\n".join(failures)


def test_lint_finds_no_problem_in_the_shipped_content() -> None:
    problems, count = lint_paths([PACKS_DIR])
    assert not problems, f"{len(problems)} lint problem(s):\n" + "\n".join(problems)
    assert count >= MIN_TOTAL


def test_every_topic_has_its_own_pack_with_enough_questions(bank: list[Question]) -> None:
    per_topic = Counter(q.topic for q in bank)
    short = {t: per_topic[t] for t in TOPICS if per_topic[t] < MIN_PER_TOPIC}
    assert not short, f"topics under {MIN_PER_TOPIC} questions: {short}"
    missing = [t for t in TOPICS if not (PACKS_DIR / f"{t}.yaml").exists()]
    assert not missing, f"topics without a pack file: {missing}"


def test_the_bank_has_enough_questions_of_each_kind(bank: list[Question]) -> None:
    per_kind = Counter(q.kind for q in bank)
    assert set(MIN_KINDS) == set(KINDS)
    short = {k: per_kind[k] for k, n in MIN_KINDS.items() if per_kind[k] < n}
    assert not short, f"kinds under their minimum {MIN_KINDS}: {short}"
    assert len(bank) >= MIN_TOTAL


def test_the_bank_serves_both_roles_and_all_difficulties(bank: list[Question]) -> None:
    per_role = Counter(role for q in bank for role in q.roles)
    per_difficulty = Counter(q.difficulty for q in bank)
    problems = [f"role {r}: {per_role[r]}" for r in ("pm", "eng") if per_role[r] < MIN_PER_ROLE]
    problems += [
        f"difficulty {d}: {per_difficulty[d]}"
        for d in (1, 2, 3)
        if per_difficulty[d] < MIN_PER_DIFFICULTY
    ]
    assert not problems, "under the minimum: " + ", ".join(problems)


def test_open_questions_have_rubrics_of_three_to_six_points_and_a_model_answer(
    bank: list[Question],
) -> None:
    bad = [
        q.id
        for q in bank
        if q.kind == "open" and (not 3 <= len(q.rubric) <= 6 or not q.model_answer)
    ]
    assert not bad, f"open questions without a 3–6 point rubric and model answer: {bad}"


def test_every_open_model_answer_makes_every_rubric_point(bank: list[Question]) -> None:
    # Stricter than the lint (which only needs a pass): a model answer shows a full answer.
    incomplete = {}
    for q in bank:
        if q.kind == "open" and q.model_answer and q.rubric:
            missed = grade(q, q.model_answer).missed
            if missed:
                incomplete[q.id] = list(missed)
    assert not incomplete, f"model answers missing rubric points: {incomplete}"


def test_numeric_questions_give_a_unit_and_a_sensible_tolerance(bank: list[Question]) -> None:
    bad = [
        q.id
        for q in bank
        if q.kind == "numeric" and (not q.unit.strip() or not 0 <= q.tolerance <= 0.1)
    ]
    assert not bad, f"numeric questions without unit or with tolerance over 10%: {bad}"


def test_every_question_cites_a_web_source_and_explains_itself(bank: list[Question]) -> None:
    bad = [
        q.id
        for q in bank
        if not q.sources
        or not all(s.startswith(("https://", "http://")) for s in q.sources)
        or len(q.explanation) < 20
    ]
    assert not bad, f"questions without a web source or a real explanation: {bad}"


def test_question_ids_are_prefixed_with_their_topic_pack(bank: list[Question]) -> None:
    bad = [q.id for q in bank if q.pack != "sample" and not q.id.startswith(q.topic + "-")]
    assert not bad, f"ids not of the form <topic>-<slug>: {bad}"


def test_myths_are_corrected_never_given_as_the_right_answer() -> None:
    # The wrong figures of the fact sheet's section 8 must never be the answer to learn.
    wrong = ("1.5 tb/s", "0.5 ms", "96%", "hbm3e", "7 mig instances on every")
    myths = load_pack(PACKS_DIR / "myths.yaml").questions
    repeated = [
        q.id for q in myths if any(w in " ".join(q.correct + q.accepted).casefold() for w in wrong)
    ]
    assert not repeated, f"myth questions whose right answer repeats the myth: {repeated}"

"""The labelled set: agreement with an expert, and how often a wrong answer passes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bot.core.content import load_pack
from bot.core.grading import grade

DATA = Path(__file__).parent / "data" / "grading"


def test_the_labelled_set_covers_every_kind_with_enough_answers() -> None:
    pack = load_pack(DATA / "questions.yaml")
    rows = [json.loads(line) for line in (DATA / "answers.jsonl").read_text("utf-8").splitlines()]
    kinds = Counter(q.kind for q in pack.questions)
    assert len(pack.questions) >= 40
    assert set(kinds) == {"choice", "multi", "numeric", "short", "open"}
    assert any(q.kind == "open" and q.rubric for q in pack.questions)
    assert any(q.kind == "open" and not q.rubric for q in pack.questions)
    assert len(rows) >= 300
    ids = {q.id for q in pack.questions}
    assert {r["id"] for r in rows} == ids
    assert {r["expected"] for r in rows} <= {"correct", "partial", "incorrect"}


def test_the_grader_agrees_with_the_expert_and_rarely_passes_a_wrong_answer() -> None:
    pack = load_pack(DATA / "questions.yaml")
    questions = {q.id: q for q in pack.questions}
    rows = [json.loads(line) for line in (DATA / "answers.jsonl").read_text("utf-8").splitlines()]
    agree = false_pass = wrong = 0
    by_kind: Counter[str] = Counter()
    agree_by_kind: Counter[str] = Counter()
    disagreements = []
    for row in rows:
        question = questions[row["id"]]
        kind = question.kind if question.kind != "open" or question.rubric else "reference"
        expected = row["expected"] == "correct"
        got = grade(question, row["answer"]).verdict.value == "correct"
        by_kind[kind] += 1
        if expected == got:
            agree += 1
            agree_by_kind[kind] += 1
        else:
            disagreements.append(f"  {row['id']}: {row['answer']!r} expected {row['expected']}")
        if not expected:
            wrong += 1
            false_pass += got
    agreement = agree / len(rows)
    false_pass_rate = false_pass / wrong
    per_kind = {k: round(agree_by_kind[k] / n, 3) for k, n in sorted(by_kind.items())}
    print(
        f"\nlabelled set: {len(rows)} answers, binary agreement {agreement:.3f}, "
        f"false-pass rate {false_pass_rate:.3f} ({false_pass} of {wrong}); per kind {per_kind}"
    )
    print("\n".join(disagreements))
    assert agreement >= 0.95
    assert false_pass_rate <= 0.02

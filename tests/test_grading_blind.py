"""The blind set: answers written by people who never saw the grader or a rubric.

The tune half is what the grader was tuned on; the report half is the measurement (see
tests/data/grading/blind/README.md). Both print their figures; the report half must stay
above the floors below, which record what it measured when they were set: raise them as the
grader improves, never lower them to let a change in.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.core.content import Question, bank_files, load_packs
from bot.core.errors import UserError
from bot.core.grading import grade

BLIND = Path(__file__).parent / "data" / "grading" / "blind"
LABELS = {"correct", "partial", "incorrect"}

# The report half's floors (binary: partial counts as not correct), set 2026-12-02 from a
# measured 0.963 agreement, 0.014 false-correct and 0.061 false-reject (grader 1.6, every
# one of whose questions was tuned on other writers' answers, never these; 1.5 had 0.957,
# 0.017 and 0.071; 1.4 0.940, 0.017 and 0.100; 1.1 0.925, 0.017 and 0.131). The issue's
# targets are 0.95, 0.02 and 0.05.
AGREEMENT_AT_LEAST = 0.958
FALSE_CORRECT_AT_MOST = 0.02
FALSE_REJECT_AT_MOST = 0.065

# Two writers who came after everything was tuned (fresh-wt10 on the tune half's questions,
# fresh-wt11 on the report half's), scored together once grader 1.6 was final, 2026-12-02:
# 0.962 agreement, 0.032 false-correct, 0.044 false-reject (1.5: 0.956, 0.040, 0.049).
FRESH_SETS = ("fresh-wt10", "fresh-wt11")
FRESH_AGREEMENT_AT_LEAST = 0.957
FRESH_FALSE_CORRECT_AT_MOST = 0.035
FRESH_FALSE_REJECT_AT_MOST = 0.048


@dataclass
class Figures:
    answers: Counter[str] = field(default_factory=Counter)
    agree: Counter[str] = field(default_factory=Counter)
    wrong: Counter[str] = field(default_factory=Counter)
    false_correct: Counter[str] = field(default_factory=Counter)
    right: Counter[str] = field(default_factory=Counter)
    false_reject: Counter[str] = field(default_factory=Counter)

    def rate(self, part: Counter[str], whole: Counter[str], kind: str = "all") -> float:
        return part[kind] / whole[kind] if whole[kind] else 0.0

    def line(self, kind: str) -> str:
        return (
            f"{kind:8s} {self.answers[kind]:5d}"
            f"  agreement {self.rate(self.agree, self.answers, kind):.3f}"
            f"  false-correct {self.rate(self.false_correct, self.wrong, kind):.3f}"
            f"  false-reject {self.rate(self.false_reject, self.right, kind):.3f}"
        )


def bank() -> dict[str, Question]:
    return {q.id: q for pack in load_packs(bank_files()) for q in pack.questions}


def rows(name: str) -> list[dict[str, str]]:
    text = (BLIND / f"{name}.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def graded_as_correct(question: Question, answer: str) -> bool:
    try:
        return grade(question, answer).verdict.value == "correct"
    except UserError:  # an empty reply: the user is asked to type an answer
        return False


def measure(*names: str) -> Figures:
    questions = bank()
    figures = Figures()
    for row in (row for name in names for row in rows(name)):
        question = questions[row["id"]]
        said_correct = row["label"] == "correct"
        graded_correct = graded_as_correct(question, row["answer"])
        for kind in ("all", question.kind):
            figures.answers[kind] += 1
            figures.agree[kind] += said_correct == graded_correct
            figures.right[kind] += said_correct
            figures.false_reject[kind] += said_correct and not graded_correct
            figures.wrong[kind] += row["label"] == "incorrect"
            figures.false_correct[kind] += row["label"] == "incorrect" and graded_correct
    print(f"\nblind {' + '.join(names)}:")
    for kind in sorted(figures.answers, key=lambda k: (k != "all", k)):
        print(figures.line(kind))
    return figures


@pytest.mark.parametrize("name", ["tune", "report"])
def test_each_half_answers_its_own_questions_with_fixed_labels(name: str) -> None:
    halves = json.loads((BLIND / "halves.json").read_text("utf-8"))
    questions = bank()
    answered = [row["id"] for row in rows(name)]
    assert set(answered) == set(halves[name]) <= set(questions)
    assert not set(halves["tune"]) & set(halves["report"])
    assert {row["label"] for row in rows(name)} <= LABELS
    assert all(
        row["label"] != "partial" or questions[row["id"]].kind == "open" for row in rows(name)
    )
    assert len(answered) >= 400 and {questions[i].kind for i in answered} == {
        "choice",
        "multi",
        "numeric",
        "short",
        "open",
    }


def test_the_tune_half_is_measured() -> None:
    figures = measure("tune")
    assert figures.answers["all"] == len(rows("tune"))


def test_the_report_half_stays_above_its_floors() -> None:
    figures = measure("report")
    assert figures.rate(figures.agree, figures.answers) >= AGREEMENT_AT_LEAST
    assert figures.rate(figures.false_correct, figures.wrong) <= FALSE_CORRECT_AT_MOST
    assert figures.rate(figures.false_reject, figures.right) <= FALSE_REJECT_AT_MOST


@pytest.mark.parametrize("name", ["tune-wt8", "report-wt9", *FRESH_SETS])
def test_each_later_writer_answers_every_question_of_a_half_with_fixed_labels(name: str) -> None:
    halves = json.loads((BLIND / "halves.json").read_text("utf-8"))
    half = "tune" if name in ("tune-wt8", "fresh-wt10") else "report"
    answered = {row["id"] for row in rows(name)}
    assert answered == set(halves[half])
    assert {row["label"] for row in rows(name)} <= LABELS
    assert len({row["writer"] for row in rows(name)}) == 1


def test_the_fresh_writers_stay_above_their_floors() -> None:
    figures = measure(*FRESH_SETS)
    assert figures.rate(figures.agree, figures.answers) >= FRESH_AGREEMENT_AT_LEAST
    assert figures.rate(figures.false_correct, figures.wrong) <= FRESH_FALSE_CORRECT_AT_MOST
    assert figures.rate(figures.false_reject, figures.right) <= FRESH_FALSE_REJECT_AT_MOST

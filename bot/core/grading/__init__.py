"""Grading: one function, ``grade(question, answer)``, for every kind of question.

The grade is explainable: a score in 0..1, a verdict, feedback in words, and
for open questions the rubric points matched and missed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.core.content import Question
from bot.core.errors import UserError

GRADER_VERSION = "0.1"
MAX_ANSWER_CHARS = 4000


class Verdict(StrEnum):
    CORRECT = "correct"
    PARTIAL = "partial"
    INCORRECT = "incorrect"


@dataclass(frozen=True, slots=True)
class Grade:
    score: float
    verdict: Verdict
    feedback: str
    matched: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()

    def as_dict(self, *, with_points: bool) -> dict[str, object]:
        out: dict[str, object] = {
            "score": round(self.score, 4),
            "verdict": self.verdict.value,
            "feedback": self.feedback,
        }
        if with_points:
            out["matched"] = list(self.matched)
            out["missed"] = list(self.missed)
        return out


def _normal(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .!?")


def grade(question: Question, answer: str) -> Grade:
    """Grade ``answer`` against ``question``.

    Raises UserError for an empty answer. A first, exact-match grader: the
    grading engine replaces it with per-kind graders.
    """
    if not answer or not answer.strip():
        raise UserError("The answer is empty: type what you think the answer is.")
    given = _normal(answer[:MAX_ANSWER_CHARS])
    if question.kind == "choice":
        letters = {chr(ord("a") + i): c for i, c in enumerate(question.choices)}
        chosen = letters.get(given, given)
        ok = _normal(chosen) == _normal(question.correct[0])
    elif question.kind == "numeric":
        try:
            ok = question.value is not None and abs(float(given.split()[0]) - question.value) <= (
                abs(question.value) * question.tolerance
            )
        except ValueError:
            ok = False
    elif question.kind == "short":
        ok = given in {_normal(a) for a in question.accepted}
    elif question.kind == "multi":
        ok = {_normal(p) for p in given.split(",")} == {_normal(c) for c in question.correct}
    else:
        ok = question.model_answer is not None and given == _normal(question.model_answer)
    if ok:
        return Grade(1.0, Verdict.CORRECT, f"Correct. {question.explanation}")
    return Grade(0.0, Verdict.INCORRECT, f"Not quite: the answer is {question.answer_text}.")

"""Grading: one function, ``grade(question, answer)``, for every kind of question.

The grade is explainable: a score in 0..1, a verdict, feedback in words, and
for open questions the rubric points matched and missed. Each kind has its
module (``choice``, ``numeric``, ``short``, ``rubric``); open questions with
only a model answer go to the reference grader
(``bot.core.grading.reference.grade_against_reference``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from bot.core.content import Question, RubricPoint
from bot.core.errors import UserError
from bot.core.grading.correction import corrected

GRADER_VERSION = "1.6"  # 1.1: not-an-answer, choices as text, numbers, identifiers
# 1.2: choice gist and exceptions, who a rubric claim is about, negative facts, shorthands
# 1.3: choices in words (spelt CamelCase names, remarks, "but not", paraphrases, "per X"),
# terse rubric answers (labels, "to be" left out, possessives)
# 1.4: choice letters in sentences, denied ("A, C is wrong") and taken back; places, "all but" and
# remarks on other choices after an opening pick
# and rubric points said in other words (half of a point's own words in one sentence)
# 1.5: short-answer hedges and slips, units of another kind, restated scopes; choice words
# weighed by what tells rivals apart; rubric notes read line by line, short notes make every point
# 1.6: choice letters ("b", "A, C") to a short question, which has no choices, are not an answer
# 1.6: self-corrections ("Ampere? no wait, Hopper", "7, no wait, 4"), fractions for shares ("1/10"),
# figures for another product ("4, or 7 on an A100"), a bare yes/no, remarks that undo or add to a
# pick, myths in other words than their none: phrases, "all-or-nothing" denies nothing
MAX_ANSWER_CHARS = 4000
_TERM_WORDS = 4  # a short answer's correction names a term of at most this many words
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]+")


class Verdict(StrEnum):
    CORRECT = "correct"
    PARTIAL = "partial"
    INCORRECT = "incorrect"


@dataclass(frozen=True, slots=True)
class Grade:
    """A graded answer: score 0..1, verdict, feedback, and for open questions the points.

    ``answered`` is False when the reply is not an answer at all (it names no choice,
    holds no number, or cannot be read): the feedback is then a hint that gives nothing
    away, and callers record nothing, so the next real answer still scores. ``grader``
    names what produced the grade (the rules engine's version, or with the optional judge
    ``<version>+judge-1``), and ``model`` the judge's model ("" when no judge took part).
    """

    score: float
    verdict: Verdict
    feedback: str
    matched: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    answered: bool = True
    grader: str = GRADER_VERSION
    model: str = ""

    def as_dict(self, *, with_points: bool) -> dict[str, object]:
        """The grade as JSON-ready data; ``with_points`` adds ``matched`` and ``missed``,
        a reply that is not an answer says ``"answered": false``, and a grade a judge took
        part in adds ``grader`` and ``model``."""
        out: dict[str, object] = {
            "score": round(self.score, 4),
            "verdict": self.verdict.value,
            "feedback": self.feedback,
        }
        if not self.answered:
            out["answered"] = False
        if with_points:
            out["matched"] = list(self.matched)
            out["missed"] = list(self.missed)
        if self.model:  # a judge took part: say which grader and model
            out["grader"] = self.grader
            out["model"] = self.model
        return out


def rules_version(grader: str) -> str:
    """The rules engine's version in a grade's ``grader`` ("1.1+judge-1" -> "1.1")."""
    return grader.split("+", 1)[0]


def verdict_for(score: float, pass_score: float) -> Verdict:
    """The verdict for ``score``: correct from ``pass_score``, partial from half of it."""
    if score >= pass_score - 1e-9:
        return Verdict.CORRECT
    if score > 0 and score >= pass_score / 2 - 1e-9:
        return Verdict.PARTIAL
    return Verdict.INCORRECT


def see_also(question: Question) -> str:
    """The closing pointer of every feedback: the explanation's source."""
    return f"See: {question.sources[0]}" if question.sources else ""


def _feedback(head: str, question: Question, *, explain: bool = True) -> str:
    parts = [head]
    if explain and question.explanation:
        parts.append(question.explanation)
    parts.append(see_also(question))
    return " ".join(p for p in parts if p)


def _clean(answer: str) -> str:
    return _CONTROL.sub(" ", answer[:MAX_ANSWER_CHARS])


_READABLE = re.compile(r"[^\W_]")  # a letter or a digit, in any script
_JUNK = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")


def hint(question: Question) -> str:
    """How to answer ``question``: the reply to something that is not an answer.

    It gives nothing away, so the person can still answer for real."""
    last = chr(ord("A") + max(0, len(question.choices) - 1))
    if question.kind == "choice":
        return f"Answer with a letter A–{last} or a choice's words."
    if question.kind == "multi":
        return f'Answer with letters A–{last} (for example "A, C") or the choices\' words.'
    if question.kind == "numeric":
        unit = f" in {question.unit}" if question.unit.strip() else ""
        return f'Answer with a number{unit}, for example "about 7".'
    if question.kind == "short":
        return "Answer in a word or two of your own."
    return "Answer in a few words or sentences of your own."


def not_an_answer(question: Question, why: str = "") -> Grade:
    """The grade of a reply that is not an answer: nothing to record, a hint to show."""
    head = f"{why} " if why else "That doesn't look like an answer yet. "
    return Grade(0.0, Verdict.INCORRECT, head + hint(question), answered=False)


def _unreadable(question: Question, answer: str) -> Grade | None:
    """``not_an_answer`` for a reply no grader can read (too long, junk, emoji only)."""
    if len(answer) > MAX_ANSWER_CHARS:
        why = f"That is too long to grade ({len(answer):,} characters; the limit is "
        return not_an_answer(question, why + f"{MAX_ANSWER_CHARS:,}).")
    junk = len(_JUNK.findall(answer))
    if junk and junk * 5 >= len(answer.strip()):
        return not_an_answer(question, "I couldn't read that: type your answer as plain text.")
    if not _READABLE.search(answer):
        return not_an_answer(question)
    return None


def grade(question: Question, answer: str) -> Grade:
    """Grade ``answer`` against ``question``.

    Takes any question of a pack and the answer as typed; returns a :class:`Grade`,
    a pure function of the two. A reply that is not an answer (longer than
    ``MAX_ANSWER_CHARS``, unreadable, emoji or punctuation only, naming no choice,
    holding no number) gets ``answered=False`` and a hint that gives nothing away.
    Raises UserError for an empty or whitespace-only answer; never anything else.
    """
    if not isinstance(answer, str) or not answer.strip():
        raise UserError("The answer is empty: type what you think the answer is.")
    unreadable = _unreadable(question, answer)
    if unreadable is not None:
        return unreadable
    text = _clean(answer)
    if question.kind in ("choice", "multi"):
        if len(text) <= KEPT_CHOICE_CHARS:
            return _kept_choice_grade(question, text)
        return _grade_choice(question, text)
    if question.kind in ("numeric", "short"):
        # "7, no wait, 4" answers 4, when what follows answers at all, and "MSP, I mean MPS"
        # MPS, when what follows is a term rather than a remark (the choice grader reads its
        # own corrections: "Ampere? no wait, Hopper").
        grader = _grade_numeric if question.kind == "numeric" else _grade_short
        tail = corrected(text)
        if tail is not None and question.kind == "short" and len(tail.split()) > _TERM_WORDS:
            tail = None
        graded = grader(question, tail) if tail is not None else None
        return graded if graded is not None and graded.answered else grader(question, text)
    if question.rubric:
        return _grade_rubric(question, text)
    return _grade_reference(question, text)


def _letter_list(question: Question, indexes: list[int]) -> str:
    return ", ".join(f"{chr(ord('A') + i)}) {question.choices[i]}" for i in sorted(indexes))


#: A choice answer this short (a click's letter, a typed "b and d") has its grade kept: the
#: grade is a pure function of the question and the answer, and a daily question's clicks
#: name the same few choices all day.
KEPT_CHOICE_CHARS = 40


@lru_cache(maxsize=4096)
def _kept_choice_grade(question: Question, answer: str) -> Grade:
    return _grade_choice(question, answer)


def _grade_choice(question: Question, answer: str) -> Grade:
    from bot.core.grading.choice import named_choices, names_none

    named = named_choices(question, answer)
    if not named and not names_none(answer):
        return not_an_answer(question, "I couldn't tell which choice you mean.")
    right = {question.choices.index(c) for c in question.correct if c in question.choices}
    if question.kind == "choice":
        if named == right:
            return Grade(1.0, Verdict.CORRECT, _feedback("Correct!", question))
        head = "Pick one choice: your answer names several." if len(named) > 1 else "Not quite."
        head += f" The answer is {question.answer_text}."
        return Grade(0.0, Verdict.INCORRECT, _feedback(head, question))
    hits, wrong = named & right, named - right
    if named == right:
        return Grade(1.0, Verdict.CORRECT, _feedback("Correct: all the right choices.", question))
    if hits and not wrong:
        score = len(hits) / len(right)
        missing = _letter_list(question, sorted(right - hits))
        head = f"Partly right: you found {len(hits)} of {len(right)}; also right: {missing}."
        return Grade(score, Verdict.PARTIAL, _feedback(head, question))
    if wrong:
        head = f"Not quite: {_letter_list(question, sorted(wrong))} is not right."
    else:
        head = "Not quite: at least one of them is right."
    head += f" The right choices are {question.answer_text}."
    return Grade(0.0, Verdict.INCORRECT, _feedback(head, question))


def _grade_numeric(question: Question, answer: str) -> Grade:
    from bot.core.grading.numeric import check_numeric

    result = check_numeric(question, answer)
    if not result.found:
        return not_an_answer(question, "I couldn't find a number in that.")
    if result.correct:
        return Grade(1.0, Verdict.CORRECT, _feedback("Correct!", question))
    head = f"That unit doesn't fit ({result.given})." if result.wrong_unit else "Not quite."
    head += f" The answer is {question.answer_text}."
    return Grade(0.0, Verdict.INCORRECT, _feedback(head, question))


# Choice letters and nothing else: "b", "(B)", "a, c", "A and D".
_LETTERS_ONLY = re.compile(r"\W*[a-z](?:(?:\W+|\W*\band\b\W*)[a-z])*\W*", re.IGNORECASE)


def _grade_short(question: Question, answer: str) -> Grade:
    from bot.core.grading.short import check_short

    if check_short(question, answer):
        return Grade(1.0, Verdict.CORRECT, _feedback("Correct!", question))
    if _LETTERS_ONLY.fullmatch(answer):  # a choice's letter, where there are no choices
        return not_an_answer(question, "This question has no choices to pick by letter.")
    head = f"Not quite: the answer is {question.answer_text}."
    return Grade(0.0, Verdict.INCORRECT, _feedback(head, question))


def _grade_rubric(question: Question, answer: str) -> Grade:
    from bot.core.grading.rubric import match_rubric

    matched, missed = match_rubric(question, answer)
    return rubric_grade(question, matched, missed, terse=len(answer.split()) <= TERSE_WORDS)


# An open answer of this many words or fewer passes only when it makes every point: a few
# words that leave a point out name the points rather than explain them, and interviewers
# call such notes partial (on the blind sets, 6 of the 7 the weights alone passed). Longer
# notes are left to the weights: the regression set's authors pass 13 to 15 words that
# leave a minor point out, and so do some blind writers.
TERSE_WORDS = 12


def rubric_grade(
    question: Question,
    matched: Sequence[RubricPoint],
    missed: Sequence[RubricPoint],
    *,
    terse: bool = False,
) -> Grade:
    """The grade of an answer to ``question`` that makes the rubric points ``matched`` and
    misses ``missed``: the weighted share, its verdict, and feedback naming what is missing.
    A ``terse`` answer (``TERSE_WORDS`` words or fewer) that misses a point is at most
    partial: its score stops just under the pass score."""
    total = sum(p.weight for p in question.rubric) or 1.0
    score = sum(p.weight for p in matched) / total
    short = terse and bool(missed) and score >= question.pass_score - 1e-9
    if short:
        score = max(0.0, round(question.pass_score - 0.01, 4))
    verdict = verdict_for(score, question.pass_score)
    missing = "; ".join(p.point for p in missed)
    if verdict is Verdict.CORRECT:
        head = "Good answer!" + (f" To make it complete, also: {missing}." if missed else "")
    elif verdict is Verdict.PARTIAL:
        count = f"{len(matched)} of {len(question.rubric)}"
        head = f"Partly there ({count} points). Missing: {missing}."
        if short:
            head += " A note this short has to cover every point."
    else:
        head = f"Not yet. A strong answer covers: {missing}."
    return Grade(
        score,
        verdict,
        _feedback(head, question, explain=verdict is not Verdict.CORRECT),
        matched=tuple(p.point for p in matched),
        missed=tuple(p.point for p in missed),
    )


def _grade_reference(question: Question, answer: str) -> Grade:
    """Grade against the model answer; with alternatives, against each, and the best wins."""
    # imported here: the reference grader imports this module's Grade and Verdict
    from bot.core.grading.reference import grade_against_reference

    if len(question.model_answers) <= 1:
        return grade_against_reference(question, answer)
    grades = [
        grade_against_reference(replace(question, model_answer=alt, model_answers=(alt,)), answer)
        for alt in question.model_answers
    ]
    return max(grades, key=lambda g: g.score)

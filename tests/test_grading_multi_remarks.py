"""Multi answers that list their picks and say something of the rest.

- Letters that lead an answer up to a semicolon or a colon are its list; what follows
  remarks on the others ("A, B and C; D is the old wording and E is wrong").
- A sentence whose subject is a list of choices and whose verb is denied denies them all
  ("mars and venus don't have any"); when the question asks what does not hold, it picks
  them, as one denied subject does.
- An aside in brackets that tells what the list item before it means belongs to that item
  ("kernels only (not memcpys)"), when the item alone fits no single choice.
"""

from __future__ import annotations

import pytest

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question

PRIORITIES = choice_question(
    "multi",
    [
        "Lower numbers mean higher priority",
        "Out-of-range values are clamped",
        "They affect kernels, not memory copies",
        "They preempt running kernels",
        "They order work across processes",
    ],
    [
        "Lower numbers mean higher priority",
        "Out-of-range values are clamped",
        "They affect kernels, not memory copies",
    ],
)
RINGS = choice_question(
    "multi",
    ["Saturn", "Jupiter", "Uranus", "Mars", "Venus"],
    ["Saturn", "Jupiter", "Uranus"],
    prompt="Which of these planets have ring systems? Select all that apply.",
)
FLIGHTLESS = choice_question(
    "multi",
    ["Penguin", "Ostrich", "Eagle", "Kiwi", "Sparrow"],
    ["Penguin", "Ostrich", "Kiwi"],
    prompt="Which of these birds cannot fly? Select all that apply.",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A, B and C; D is the old wording and E is wrong", Verdict.CORRECT),
        ("A; B; C", Verdict.CORRECT),
        ("A, B; C", Verdict.CORRECT),
        ("A, B and C; D too", Verdict.INCORRECT),
        ("A, B and C; D is right as well", Verdict.INCORRECT),
        ("A, B: C and D", Verdict.INCORRECT),
    ],
)
def test_letters_up_to_a_semicolon_are_the_list(answer: str, expected: Verdict) -> None:
    assert grade(PRIORITIES, answer).verdict is expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (RINGS, "saturn, jupiter, uranus; mars and venus don't have any", Verdict.CORRECT),
        (RINGS, "the first three. mars and venus aren't ringed", Verdict.CORRECT),
        (RINGS, "saturn, jupiter and uranus; mars and venus are not ringed", Verdict.CORRECT),
        (RINGS, "saturn and jupiter; uranus and mars don't", Verdict.PARTIAL),
        # A bare "not" after a list denies what follows it, not the list.
        (RINGS, "saturn, jupiter and uranus, not mars or venus", Verdict.CORRECT),
        # Asked what cannot, a denied list is picked.
        (FLIGHTLESS, "penguin. the ostrich and the kiwi can't either", Verdict.CORRECT),
        (FLIGHTLESS, "penguin, ostrich and kiwi; eagle and sparrow do fly", Verdict.CORRECT),
    ],
)
def test_a_denied_verb_after_a_list_of_choices_denies_them_all(
    question: Question, answer: str, expected: Verdict
) -> None:
    assert grade(question, answer).verdict is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("lower = higher, clamped, kernels only (not memcpys)", Verdict.CORRECT),
        ("lower = higher, clamped, only kernels (not memcpy) are affected", Verdict.CORRECT),
        ("lower = higher, clamped, kernels only", Verdict.PARTIAL),
        ("lower = higher, clamped, kernels only (and memcpys)", Verdict.PARTIAL),
        ("lower = higher, clamped, kernels only (the preempting ones)", Verdict.INCORRECT),
        # An aside after letters is a remark on them, not a gloss of a list item.
        ("A+B+C; D and E are false (no 0.5 GPUs, kernels only)", Verdict.CORRECT),
    ],
)
def test_an_aside_that_tells_what_a_list_item_means_belongs_to_it(
    answer: str, expected: Verdict
) -> None:
    assert grade(PRIORITIES, answer).verdict is expected

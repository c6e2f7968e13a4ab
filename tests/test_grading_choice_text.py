"""Choice and multi answers written as text: a choice is named when the answer clearly
points to it and to no other; words shared between choices do not count, a fragment that
fits a wrong choice better names the wrong one, and a choice mentioned as an exception is
not named."""

from __future__ import annotations

import pytest

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question

MEMORY = choice_question(
    "choice",
    [
        "HBM2e at about 2 TB/s",
        "HBM3 at about 3.35 TB/s",
        "GDDR6X at about 1 TB/s",
        "HBM3e at about 4.8 TB/s",
    ],
    "HBM3 at about 3.35 TB/s",
)
COPIES = choice_question(
    "choice",
    [
        "Only compute kernels, not memory copies",
        "Only memory copies, not kernels",
        "Kernels and copies alike",
        "Only host callbacks",
    ],
    "Only compute kernels, not memory copies",
)
GPUS = choice_question("multi", ["H100", "L4", "B200", "T4"], ["H100", "B200"])
GENERATION = choice_question(
    "choice",
    ["Third generation", "Fourth generation", "Fifth generation", "Second generation"],
    "Third generation",
)


def verdict(question: Question, answer: str) -> Verdict:
    return grade(question, answer).verdict


@pytest.mark.parametrize(
    "answer",
    ["the second one", "option two", "Option 2", "#2", "2nd option", "3.35 TB/s", "about 3.35TB/s"],
)
def test_a_choice_named_by_its_place_or_its_figure_is_named(answer: str) -> None:
    assert verdict(MEMORY, answer) is Verdict.CORRECT


@pytest.mark.parametrize("answer", ["the last one", "option four", "4.8 TB/s", "the third choice"])
def test_another_place_or_figure_names_another_choice(answer: str) -> None:
    result = grade(MEMORY, answer)
    assert result.answered and result.verdict is Verdict.INCORRECT


def test_words_every_choice_shares_name_no_choice() -> None:
    result = grade(MEMORY, "at about TB/s")
    assert not result.answered


@pytest.mark.parametrize(
    "answer", ["kernels only, copies aren't affected", "compute kernels, no copies"]
)
def test_a_fragment_with_its_denial_names_the_choice_it_fits(answer: str) -> None:
    assert verdict(COPIES, answer) is Verdict.CORRECT


def test_the_same_words_with_the_denial_swapped_name_the_other_choice() -> None:
    result = grade(COPIES, "copies only, kernels aren't affected")
    assert result.answered and result.verdict is Verdict.INCORRECT


@pytest.mark.parametrize("answer", ["third gen", "gen 3, not 4", "3rd generation"])
def test_ordinals_and_abbreviations_name_a_choice(answer: str) -> None:
    assert verdict(GENERATION, answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "H100 and B200; the L4 can't do it",
        "H100, B200, not the T4",
        "all except L4 and T4",
        "everything but the L4 and the T4",
    ],
)
def test_choices_mentioned_as_exceptions_are_not_named(answer: str) -> None:
    assert verdict(GPUS, answer) is Verdict.CORRECT


def test_an_exception_that_leaves_a_wrong_choice_in_is_wrong() -> None:
    assert verdict(GPUS, "all except the T4") is Verdict.INCORRECT


def test_all_of_them_names_every_choice() -> None:
    assert verdict(GPUS, "all of them") is Verdict.INCORRECT
    assert grade(GPUS, "all of them").answered


MEMORY_KIND = choice_question(
    "choice",
    [
        "The 40 GB card uses HBM2; HBM2e is the 80 GB card",
        "Both cards use HBM2e",
        "The 40 GB card uses HBM3",
        "The 40 GB card uses GDDR6",
    ],
    "The 40 GB card uses HBM2; HBM2e is the 80 GB card",
)


@pytest.mark.parametrize("answer", ["the 40 GB card uses HBM2", "40gb card uses hbm2", "HBM2"])
def test_a_name_with_digits_is_not_read_as_a_typo_of_another_choice(answer: str) -> None:
    # "HBM2" is one letter off "HBM3", but a different name: the answer names the right choice.
    assert verdict(MEMORY_KIND, answer) is Verdict.CORRECT


@pytest.mark.parametrize("answer", ["the 40 GB card uses HBM4", "The 40 GB card uses HBM3e"])
def test_a_name_with_other_digits_is_no_misspelling_of_a_choice(answer: str) -> None:
    assert verdict(MEMORY_KIND, answer) is not Verdict.CORRECT

"""Choice answers that name their pick by letter or place, as people type them: in a
sentence ("the answer is b", "it's a", "A for sure"), as a bare number ("2", "no. 2"),
next to denied letters ("not B, it's A", "A, C is wrong", "A rather than B"), and taken
back ("B. no wait, A"). A denied letter is no pick: "not A" alone names nothing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question

# The right choice is A (the letter that is also an article) or C.
STEPS = ["Gather usage data first", "Give the louder team more", "Split it in half", "Escalate"]
FIRST = choice_question("choice", STEPS, STEPS[0])
THIRD = choice_question("choice", STEPS, STEPS[2])
FIGURES = choice_question("choice", ["4 TB/s", "1 TB/s", "2 TB/s", "3 TB/s"], "2 TB/s")


def verdict(question: Question, answer: str) -> Verdict:
    return grade(question, answer).verdict


@pytest.mark.parametrize(
    "answer",
    [
        "the answer is a", "it's a", "i'd say a", "pretty sure it's a", "A is the answer",
        "A for sure", "A obviously", "A because the others skip the data", "1", "no. 1",
        "option 1", "1st",
    ],
)  # fmt: skip
def test_the_letter_a_in_a_sentence_is_a_pick_not_an_article(answer: str) -> None:
    assert verdict(FIRST, answer) is Verdict.CORRECT


@pytest.mark.parametrize("answer", ["the answer is c", "i'd go with c", "c i think", "3", "#3"])
def test_a_lower_case_letter_or_a_place_in_a_short_sentence_is_a_pick(answer: str) -> None:
    assert verdict(THIRD, answer) is Verdict.CORRECT
    assert verdict(FIRST, answer) is Verdict.INCORRECT


def test_an_article_before_a_word_is_still_no_letter() -> None:
    assert verdict(THIRD, "a split in half") is Verdict.CORRECT


def test_a_bare_number_is_a_figure_when_the_choices_hold_figures() -> None:
    assert verdict(FIGURES, "2") is Verdict.CORRECT  # the figure of the third choice
    assert verdict(FIGURES, "option 2") is Verdict.INCORRECT  # the second choice


@pytest.mark.parametrize(
    "answer",
    [
        "not B, it's A", "definitely not B, A", "A not B", "A, B is wrong", "A. D is a trap",
        "A rather than B", "A over C", "A (C is wrong)", "not B or C, it's A",
    ],
)  # fmt: skip
def test_denied_letters_beside_a_pick_are_no_picks(answer: str) -> None:
    assert verdict(FIRST, answer) is Verdict.CORRECT


@pytest.mark.parametrize("answer", ["not A", "not a, not c", "A is wrong"])
def test_a_denied_right_letter_is_never_correct(answer: str) -> None:
    assert verdict(FIRST, answer) is not Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "A or B", "A, maybe B", "A/B", "A (or B)", "A. or B?", "A, B also works", "A; B is close",
        "A, possibly B", "A. Could also be B.", "A (B also ok)", "A — or possibly B",
        "B. A works too", "B. A holds", "A, B second",
    ],
)  # fmt: skip
def test_two_letters_in_doubt_are_not_correct(answer: str) -> None:
    assert verdict(FIRST, answer) is Verdict.INCORRECT


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["no wait", "wait, no", "actually", "scratch that", "on second thought"]),
    st.sampled_from("ABCD"),
    st.sampled_from("ABCD"),
)
def test_a_pick_taken_back_is_replaced_by_the_one_after(cue: str, first: str, last: str) -> None:
    answer = f"{first}. {cue}, {last}"
    assert (verdict(FIRST, answer) is Verdict.CORRECT) is (last == "A")

"""Replies that correct themselves, and figures stated for something else: "Ampere? no wait,
Hopper" names Hopper (whichever is right), "7, no wait, 4" is 4, "MSP, I mean MPS" is MPS;
"1/10" is 10% where a share is asked; "up to 4, or 7 on an A100" to a question about an
A30 is the A30 figure 4, not a hedge between two numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question
from tests.test_grading_identifiers import short
from tests.test_grading_kinds import numeric

ARCHITECTURES = ["Volta", "Turing", "Ampere", "Hopper"]
FIRST_MIG = choice_question("choice", ARCHITECTURES, "Ampere", prompt="MIG came with?")
SERVICE = short("MPS", "multi-process service")
A30 = replace(
    numeric(4, "instances"),
    prompt="An A30 is partitioned with MIG. What is the largest number of GPU instances?",
)
A30_NODE = replace(
    numeric(16, "instances"),
    prompt="A node has 4 A30 GPUs, each split into the most MIG instances. How many tenants?",
)
SHARE = numeric(10, "%", tolerance=0.1)
THREADS = numeric(25, "%")


def verdict(question: Question, answer: str) -> Verdict:
    return grade(question, answer).verdict


# -- a reply that takes back what it said ------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a question mark before the correction ends the first try, like a full stop
        ("Ampere? no wait, Hopper", Verdict.INCORRECT),
        ("Hopper? no wait, Ampere", Verdict.CORRECT),
        ("Turing?? scratch that: Ampere", Verdict.CORRECT),
        ("Ampere, oops, Volta", Verdict.INCORRECT),
        # what follows names no choice: the reply as a whole is read
        ("Ampere, I mean the A100 generation", Verdict.CORRECT),
    ],
)
def test_a_choice_answer_that_corrects_itself_names_its_last_pick(
    answer: str, expected: Verdict
) -> None:
    assert verdict(FIRST_MIG, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("7, no wait, 4", Verdict.CORRECT),
        ("7? no wait, 4", Verdict.CORRECT),
        ("4, no wait, 7", Verdict.INCORRECT),
        ("seven... scratch that, four", Verdict.CORRECT),
        # nothing after the correction holds a number: the reply as a whole
        ("4, no wait, I'm sure", Verdict.CORRECT),
    ],
)
def test_a_number_that_corrects_itself_is_the_last_number(answer: str, expected: Verdict) -> None:
    assert verdict(A30, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("MSP, I mean MPS", Verdict.CORRECT),
        ("MIG? no wait, MPS", Verdict.CORRECT),
        ("MPS? no wait, MIG", Verdict.INCORRECT),
        # a remark after "I mean" is no new term: the answer stands
        ("MPS, I mean the daemon that lets processes share one GPU", Verdict.CORRECT),
    ],
)
def test_a_short_answer_that_corrects_itself_is_the_last_term(
    answer: str, expected: Verdict
) -> None:
    assert verdict(SERVICE, answer) is expected


@settings(max_examples=60, deadline=None)
@given(
    first=st.sampled_from(ARCHITECTURES),
    marker=st.sampled_from(["? no wait,", ", scratch that,", " - wait, no,"]),
)
def test_the_last_pick_decides_whatever_came_first(first: str, marker: str) -> None:
    assert verdict(FIRST_MIG, f"{first}{marker} Ampere") is Verdict.CORRECT
    assert verdict(FIRST_MIG, f"{first}{marker} Turing") is Verdict.INCORRECT


# -- a fraction where a share is asked ---------------------------------------------------


@pytest.mark.parametrize("answer", ["1/10", "about 1/10 of it", "1 in 10", "one in ten", "1/10th"])
def test_a_fraction_answers_a_share(answer: str) -> None:
    assert verdict(SHARE, answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("1/4", Verdict.CORRECT),
        ("one out of four", Verdict.CORRECT),
        ("100/4 = 25%", Verdict.CORRECT),
        ("1/3", Verdict.INCORRECT),
        ("1/40", Verdict.INCORRECT),
        # an improper fraction is working, not a share: 80/4 is 20
        ("80/4", Verdict.INCORRECT),
    ],
)
def test_only_a_proper_fraction_is_a_share(answer: str, expected: Verdict) -> None:
    assert verdict(THREADS, answer) is expected


def test_a_fraction_is_no_share_where_a_count_is_asked() -> None:
    assert verdict(A30, "1/4") is Verdict.INCORRECT


# -- a figure stated for another product -------------------------------------------------


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (A30, "up to 4, or 7 on an A100"),
        (A30, "7 on an A100, 4 on the A30"),
        (A30, "4 (7 with the H100)"),
        (A30_NODE, "16, or 28 with A100s"),
    ],
)
def test_a_figure_for_a_product_the_question_is_not_about_is_a_remark(
    question: Question, answer: str
) -> None:
    assert verdict(question, answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (A30, "7 or 4"),
        (A30, "up to 7, or 4 on an A100"),
        # the figure offered beside the A30's is unscoped: still a hedge
        (A30, "7, or 4 on an A30"),
        (A30_NODE, "28, or 16 with A30s"),
        (A30, "7 on an A30"),
    ],
)
def test_an_unscoped_second_figure_or_a_wrong_figure_for_the_product_is_wrong(
    question: Question, answer: str
) -> None:
    assert verdict(question, answer) is Verdict.INCORRECT


GPUS = replace(numeric(14, "GPUs"), prompt="How many 80 GB GPUs hold 1.12 TB of state?")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a real blind answer (wt4), labelled correct: "2+ nodes" counts nodes, not GPUs
        ("fourteen, so in practice 2+ nodes", Verdict.CORRECT),
        ("14+", Verdict.CORRECT),
        ("2+", Verdict.INCORRECT),
    ],
)
def test_at_least_a_number_is_that_number_of_its_unit(answer: str, expected: Verdict) -> None:
    assert verdict(GPUS, answer) is expected

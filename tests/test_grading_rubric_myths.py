"""A myth said in other words than its ``none`` phrase still cancels the point: up to four
words may stand between the phrase's words ("MPS runs kernels concurrently and isolates
faults between clients" says "MPS isolates faults"), though not a denial ("MPS never
isolates faults") nor another myth's subject ("compared to time-slicing MPS runs
concurrently" is not "time-slicing ... concurrently"); and an answer that reports or
refutes a myth ("people think ..., but that's false") is not cancelled by it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.grading import Verdict, grade
from tests.support import points_made, rubric_question

MYTHS = ["mps isolates faults", "mps own fault domain", "time slicing concurrently"]
SHARING = rubric_question(
    "Compare MPS with plain time-slicing.",
    [
        {"point": "MPS runs clients concurrently", "any": ["concurrently"], "none": MYTHS},
        {"point": "One fatal error hits every client", "any": ["all clients"], "none": MYTHS},
    ],
)
BOTH = ["MPS runs clients concurrently", "One fatal error hits every client"]


@pytest.mark.parametrize(
    "answer",
    [
        "MPS runs kernels concurrently and isolates faults between clients, so a crash "
        "spares all clients",
        "MPS gives each client its own fault domain and runs them concurrently, all clients",
        "time-slicing also runs them concurrently; all clients share one fault domain",
    ],
)
def test_a_myth_in_other_words_cancels_the_points(answer: str) -> None:
    assert points_made(SHARING, answer) == []


@pytest.mark.parametrize(
    "answer",
    [
        # a denial between the myth's words is its correction
        "MPS runs kernels concurrently but never isolates faults: a crash hits all clients",
        # the other subject between "time slicing" and "concurrently"
        "compared to time slicing MPS runs kernels concurrently; a crash hits all clients",
        # reported in order to refute it
        "People think MPS isolates faults, but that's false: one crash hits all clients, "
        "even though MPS runs kernels concurrently.",
        # too far apart to be one claim
        "MPS runs all clients concurrently, and if you want something that isolates faults use MIG",
    ],
)
def test_a_correction_a_report_or_distant_words_say_no_myth(answer: str) -> None:
    assert points_made(SHARING, answer) == BOTH


@settings(max_examples=40, deadline=None)
@given(filler=st.lists(st.sampled_from(["really", "kernels", "clients", "then"]), max_size=4))
def test_up_to_four_words_between_still_say_the_myth(filler: list[str]) -> None:
    answer = f"MPS {' '.join(filler)} isolates faults; it runs concurrently, all clients"
    assert grade(SHARING, answer).verdict is Verdict.INCORRECT

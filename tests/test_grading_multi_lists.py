"""Multi answers written as lists: a part that starts with "no" or "not" may assert a
choice that is itself a denial ("no overcommit" for "They cannot be overcommitted"), and
a denial carries on through a list ("not the A30 or the RTX"), but not back across a
dash to the choice before it ("B200 - not the A30")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question, question_from_dict
from bot.core.grading import Verdict, grade


def make(choices: list[str], answer: Any) -> Question:
    return question_from_dict(
        {
            "id": "q",
            "topic": "mig",
            "role": ["eng"],
            "difficulty": 1,
            "kind": "multi",
            "prompt": "Which?",
            "choices": choices,
            "answer": answer,
            "explanation": "Because.",
            "sources": ["https://example.com"],
        },
        "t",
    )


RULES = make(
    [
        "Quantities are whole numbers",
        "They cannot be overcommitted",
        "One allocated device is not shared between containers",
        "A pod may request half of a GPU",
        "Requests may exceed limits",
    ],
    [
        "Quantities are whole numbers",
        "They cannot be overcommitted",
        "One allocated device is not shared between containers",
    ],
)
SEVEN = make(["A100", "H100", "B200", "A30", "RTX PRO 6000 Blackwell"], ["A100", "H100", "B200"])
SLICEABLE = make(["nvidia.com/gpu", "Shared memory", "cpu", "hugepages-2Mi"], ["nvidia.com/gpu"])


@pytest.mark.parametrize(
    "answer",
    [
        "whole numbers, no overcommit, not shared between containers",
        "whole numbers; no overcommit; not shared between containers",
    ],
)
def test_a_part_that_denies_what_a_choice_denies_names_that_choice(answer: str) -> None:
    assert grade(RULES, answer).verdict is Verdict.CORRECT


def test_a_denied_part_still_leaves_a_choice_out() -> None:
    assert grade(RULES, "whole numbers, no overcommit").verdict is Verdict.PARTIAL


@pytest.mark.parametrize(
    "answer",
    [
        "A100, H100 and B200; not the A30 or RTX PRO 6000 (they max at 4)",
        "A100, H100 and B200 — not A30 or RTX PRO 6000 (4)",
        "A100, H100 and B200 - not the A30, nor the RTX PRO 6000",
    ],
)
def test_a_denial_runs_through_the_list_after_a_whole_choice(answer: str) -> None:
    assert grade(SEVEN, answer).verdict is Verdict.CORRECT


def test_a_denied_part_names_no_choice_to_count() -> None:
    assert grade(SLICEABLE, "nvidia.com/gpu, not cpu/hugepages").verdict is Verdict.CORRECT
    assert grade(SLICEABLE, "nvidia.com/gpu, cpu, not hugepages").verdict is Verdict.INCORRECT


@settings(max_examples=60, deadline=None)
@given(st.permutations(["A30", "RTX PRO 6000 Blackwell"]), st.sampled_from(["not", "never", "no"]))
def test_denied_choices_in_any_order_are_never_counted(denied: list[str], cue: str) -> None:
    answer = f"A100, H100 and B200; {cue} the {denied[0]} or the {denied[1]}"
    assert grade(SEVEN, answer).verdict is Verdict.CORRECT
    # the same list with a denied choice asserted instead is not correct
    wrong = f"A100, H100, B200 and {denied[0]}; {cue} the {denied[1]}"
    assert grade(SEVEN, wrong).verdict is Verdict.INCORRECT

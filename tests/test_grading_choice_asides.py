"""Choice answers written as text: an aside in parentheses that mentions another choice
does not make the answer name two, unless it hedges; and an answer written as a list of
fragments names the one choice its parts point to."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question


def make(choices: list[str], answer: str) -> Question:
    return choice_question("choice", choices, answer)


MEMORY = make(["HBM2e", "HBM3", "HBM3e", "GDDR6X"], "HBM2e")
MODES = make(
    [
        "They are mutually exclusive, and the chosen mode applies to all GPUs of a node",
        "They can be mixed per GPU on one node",
        "They can be stacked: MPS inside each time slice",
        "Time-slicing is for MIG devices only and MPS for whole GPUs only",
    ],
    "They are mutually exclusive, and the chosen mode applies to all GPUs of a node",
)


@pytest.mark.parametrize(
    "answer", ["HBM2e, about 2 TB/s (the SXM one is HBM3)", "HBM2e (unlike the HBM3 of the SXM)"]
)
def test_an_aside_naming_another_choice_is_dropped(answer: str) -> None:
    assert grade(MEMORY, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer", ["HBM2e (or HBM3?)", "HBM2e (maybe HBM3)", "HBM3 (the PCIe one is HBM2e)"]
)
def test_a_hedging_aside_or_a_wrong_lead_is_not_correct(answer: str) -> None:
    assert grade(MEMORY, answer).verdict is not Verdict.CORRECT


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["HBM3", "HBM3e", "GDDR6X"]), st.sampled_from(["HBM3", "HBM3e", "GDDR6X"]))
def test_whatever_the_aside_the_answer_outside_it_decides(lead: str, other: str) -> None:
    assert grade(MEMORY, f"HBM2e (the other card has {lead})").verdict is Verdict.CORRECT
    assert grade(MEMORY, f"{lead} (the other card has {other})").verdict is Verdict.INCORRECT


def test_a_list_of_fragments_names_the_one_choice_it_points_to() -> None:
    assert grade(MODES, "mutually exclusive, one mode for all GPUs on the node").verdict is (
        Verdict.CORRECT
    )
    assert grade(MODES, "mixed per GPU, stacked MPS inside a slice").verdict is not (
        Verdict.CORRECT
    )


MPS = choice_question(
    "choice",
    [
        "A binary-compatible CUDA API that lets cooperative processes share one GPU",
        "A hardware partitioning of the GPU into isolated instances",
        "A hypervisor component that gives each VM a slice of GPU memory",
        "A Kubernetes scheduler plugin for gang scheduling",
    ],
    "A binary-compatible CUDA API that lets cooperative processes share one GPU",
    prompt="Which description of CUDA MPS is accurate?",
)
CARD = choice_question(
    "choice",
    ["HBM2e", "HBM3", "HBM3e", "GDDR6X"],
    "HBM2e",
    prompt="Which memory does the PCIe H100 use?",
)


@pytest.mark.parametrize(
    "answer",
    [
        "A. B is MIG, C is vGPU, D is kueue",
        "A — B is MIG and C is vGPU",
    ],
)
def test_an_opening_pick_with_remarks_on_what_the_others_are_is_the_pick(answer: str) -> None:
    assert grade(MPS, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "hbm2e, ~2 TB/s. SXM is the one w/ HBM3",
        "The PCIe card has HBM2e — HBM3e came with the H200",
    ],
)
def test_remarks_after_the_pick_that_place_other_choices_elsewhere_are_dropped(answer: str) -> None:
    assert grade(CARD, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "HBM2e. Or HBM3?", "HBM2e. HBM3 is right too", "HBM2e — maybe HBM3",
        "HBM3. HBM2e is the SXM's", "HBM2e. HBM3 is what the PCIe H100 uses",
    ],
)  # fmt: skip
def test_remarks_that_doubt_add_to_or_answer_for_another_choice_are_not_dropped(
    answer: str,
) -> None:
    assert grade(CARD, answer).verdict is Verdict.INCORRECT


SCHEDULERS = choice_question(
    "choice",
    ["Fixed Share", "Equal Share", "Best Effort", "Round Robin Burst"],
    "Fixed Share",
    prompt="Which vGPU scheduler keeps a VM's reserved share even while the other VMs are idle?",
)


@pytest.mark.parametrize(
    "answer",
    [
        "A. Equal Share just splits among running VMs",
        "Fixed Share — not Equal Share, that one splits among running VMs",
    ],
)
def test_a_remark_on_what_another_choice_does_leaves_the_pick(answer: str) -> None:
    assert grade(SCHEDULERS, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "A. I'd also add B", "A. Equal Share", "A — B is better", "A. B is the one", "A. B is it",
        "A. no, B", "Fixed Share. Equal Share is the one",
    ],
)  # fmt: skip
def test_a_remark_that_names_another_choice_as_the_answer_keeps_it(answer: str) -> None:
    assert grade(SCHEDULERS, answer).verdict is Verdict.INCORRECT


DRIVERS = choice_question(
    "choice",
    ["R580.82.07", "R570.133.20", "R550.90.07", "R525.85.12"],
    "R580.82.07",
    prompt="Which is the minimum driver for MIG on the B300?",
)


def test_an_opening_pick_by_a_fragment_wins_over_a_whole_choice_in_a_remark() -> None:
    assert grade(DRIVERS, "r580 — R570.133.20 is the B200's").verdict is Verdict.CORRECT
    assert grade(DRIVERS, "r570 — R580.82.07 is the B200's").verdict is Verdict.INCORRECT
    assert grade(DRIVERS, "r580 — R570.133.20 could be it").verdict is Verdict.INCORRECT


def test_a_choice_whose_own_text_has_a_break_and_names_another_is_still_named() -> None:
    question = choice_question(
        "choice",
        ["The 40GB card uses HBM2; HBM2e is the 80GB card", "HBM2e", "HBM3", "GDDR6"],
        "The 40GB card uses HBM2; HBM2e is the 80GB card",
    )
    assert grade(question, "The 40GB card uses HBM2; HBM2e is the 80GB card").verdict is (
        Verdict.CORRECT
    )


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # A comma ends the pick as a full stop does; the rest remarks on another choice.
        ("HBM2e, the SXM is the one with HBM3", Verdict.CORRECT),
        ("HBM2e, HBM3 was the older one", Verdict.CORRECT),
        ("HBM2e, not HBM3", Verdict.CORRECT),
        # A second choice with nothing said of it, or added, doubted or said to answer.
        ("HBM2e, HBM3", Verdict.INCORRECT),
        ("HBM2e, HBM3 too", Verdict.INCORRECT),
        ("HBM2e, HBM3 is right too", Verdict.INCORRECT),
        ("HBM2e, or HBM3", Verdict.INCORRECT),
        ("HBM2e, HBM3 is what the PCIe H100 uses", Verdict.INCORRECT),
        ("HBM3, the PCIe one is HBM2e", Verdict.INCORRECT),
    ],
)
def test_a_remark_after_a_comma_leaves_the_pick(answer: str, expected: Verdict) -> None:
    assert grade(CARD, answer).verdict is expected


SIZES = choice_question(
    "choice",
    ["1g.10gb", "1g.20gb", "3g.40gb", "7g.80gb"],
    "1g.20gb",
    prompt="Which is the smallest MIG profile that can hold 14 GB of weights with room to spare?",
)


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # A remark that dismisses another choice may use the question's words.
        (SCHEDULERS, "Fixed Share. Best Effort would hand idle time to others", Verdict.CORRECT),
        (SCHEDULERS, "Fixed Share, Equal Share would split it among running VMs", Verdict.CORRECT),
        (SIZES, "1g.20gb — 1g.10gb is too small for 14 GB", Verdict.CORRECT),
        (SIZES, "1g.20gb, 3g.40gb would waste compute", Verdict.CORRECT),
        # One that says the other choice answers the question too is a second pick.
        (
            SCHEDULERS,
            "Fixed Share. Best Effort keeps the share while others are idle",
            (Verdict.INCORRECT),
        ),
        (SIZES, "1g.20gb - 1g.10gb also holds 14 GB", Verdict.INCORRECT),
        # "too" before a word is "very", not "also"; the pick still decides.
        (SIZES, "1g.10gb — 1g.20gb is too big", Verdict.INCORRECT),
        (SCHEDULERS, "Best Effort. Fixed Share would hand idle time to others", Verdict.INCORRECT),
    ],
)
def test_a_remark_that_dismisses_another_choice_in_the_questions_words_leaves_the_pick(
    question: Question, answer: str, expected: Verdict
) -> None:
    assert grade(question, answer).verdict is expected

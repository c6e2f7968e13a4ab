"""Multi answers written as lists: a part that starts with "no" or "not" may assert a
choice that is itself a denial ("no overcommit" for "They cannot be overcommitted"), and
a denial carries on through a list ("not the A30 or the RTX"), but not back across a
dash to the choice before it ("B200 - not the A30")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question


def make(choices: list[str], answer: Any) -> Question:
    return choice_question("multi", choices, answer)


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


RPCS = make(
    ["ListAndWatch", "Allocate", "GetPreferredAllocation", "PreStartContainer", "Filter"],
    ["ListAndWatch", "Allocate"],
)


@pytest.mark.parametrize(
    "answer",
    [
        "a+b, others optional / filter is a scheduler thing",
        "A & B: the rest are optional",
        "a/b - Filter belongs to the scheduler",
        "options a and b; PreStartContainer is optional",
        "I'd go with a+b",
        "AB",
    ],
)
def test_letters_joined_or_leading_an_explanation_are_the_answer(answer: str) -> None:
    assert grade(RPCS, answer).verdict is Verdict.CORRECT


def test_joined_letters_with_one_missing_or_one_extra_are_not_correct() -> None:
    assert grade(RPCS, "a+b+e, the rest are optional").verdict is Verdict.INCORRECT
    assert grade(RPCS, "a, because the others are optional").verdict is Verdict.PARTIAL
    assert grade(RPCS, "I'd say a+c").verdict is Verdict.INCORRECT


def test_an_article_or_a_contraction_is_no_letter() -> None:
    # "A shared ..." is a word, not the letter A; "I'd" holds no letter d
    assert grade(SEVEN, "A shared answer: A100, H100, B200").verdict is Verdict.CORRECT
    assert grade(RPCS, "I'd go with a/b").verdict is Verdict.CORRECT


@settings(max_examples=80, deadline=None)
@given(
    st.sets(st.sampled_from("abcde"), min_size=1),
    st.sampled_from(["+", " & ", "/", ", ", " and "]),
    st.sampled_from(
        ["", ", the rest are optional", ": Filter is the scheduler's", " - see the docs"]
    ),
    st.booleans(),
)
def test_any_joined_letters_name_exactly_those_choices(
    letters: set[str], joiner: str, tail: str, upper: bool
) -> None:
    written = joiner.join(sorted(letters))
    answer = (written.upper() if upper else written) + tail
    right = letters == {"a", "b"}
    assert (grade(RPCS, answer).verdict is Verdict.CORRECT) is right


SCHEDULER = make(
    [
        "They apply only to time-sliced vGPUs",
        "Changing the policy needs a restart of the vGPU Manager",
        "Best Effort guarantees no minimum share",
        "Each VM can change its own policy at run time",
    ],
    [
        "They apply only to time-sliced vGPUs",
        "Changing the policy needs a restart of the vGPU Manager",
        "Best Effort guarantees no minimum share",
    ],
)


def test_a_fragment_names_the_choice_it_mostly_fits_despite_a_weak_rival() -> None:
    # "time" is also in "at run time", but "sliced" is only in the first choice
    answer = "time-sliced only, needs a manager restart, best effort no minimum"
    assert grade(SCHEDULER, answer).verdict is Verdict.CORRECT
    assert grade(SCHEDULER, "time-sliced only, needs a manager restart").verdict is (
        Verdict.PARTIAL
    )
    assert grade(SCHEDULER, answer + ", each VM changes it at run time").verdict is (
        Verdict.INCORRECT
    )


PRIORITY = make(
    [
        "Lower numbers mean higher priority",
        "Out-of-range values are clamped",
        "They affect compute kernels, not memory copies",
        "A high-priority stream preempts running kernels",
    ],
    [
        "Lower numbers mean higher priority",
        "Out-of-range values are clamped",
        "They affect compute kernels, not memory copies",
    ],
)


def test_both_words_of_an_opposite_pair_in_the_choices_order_agree_with_it() -> None:
    answer = "lower number = higher prio, clamped, kernels only not memcpy"
    assert grade(PRIORITY, answer).verdict is Verdict.CORRECT


def test_both_words_of_an_opposite_pair_swapped_do_not_name_the_choice() -> None:
    answer = "higher number = lower prio, clamped, kernels only not memcpy"
    assert grade(PRIORITY, answer).verdict is not Verdict.CORRECT


@settings(max_examples=40, deadline=None)
@given(st.booleans(), st.sampled_from(["give", "mean", "=", "->", "means"]))
def test_an_opposite_pair_is_read_in_order(swap: bool, link: str) -> None:
    first, second = ("higher", "lower") if swap else ("lower", "higher")
    answer = f"{first} numbers {link} {second} priority, clamped, kernels not memory copies"
    assert (grade(PRIORITY, answer).verdict is Verdict.CORRECT) is not swap


NARRATIVE = make(
    [
        "Likelihood and impact of each risk",
        "Mitigations and who owns them",
        "Early-warning metrics",
        "Who to blame if it fails",
        "Figures quoted without sources",
    ],
    [
        "Likelihood and impact of each risk",
        "Mitigations and who owns them",
        "Early-warning metrics",
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "all except D, E", "all of them except D, E", "every option apart from D and E",
        "anything but D and E", "all but the 4th and 5th", "all but (d) and (e)",
        "everything except D and E (they are wrong)", "options 1, 2 and 3", "1st, 2nd and 3rd",
        "first, second and third ones", "A-C", "a through c", "A B C not D E",
        "A, B, C; D and E are wrong", "A, B, C. D is wrong, E is a trap.", "just A, B and C",
        "I'd pick A, B and C",
    ],
)  # fmt: skip
def test_letters_places_and_exceptions_written_any_way_name_their_choices(answer: str) -> None:
    assert grade(NARRATIVE, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    ["all except E", "all but the last one", "A, B, C, D; E is wrong", "options 1 and 2",
     "all but one", "A, B, C; D or E"],
)  # fmt: skip
def test_the_same_forms_with_a_choice_too_many_or_too_few_are_not_correct(answer: str) -> None:
    assert grade(NARRATIVE, answer).verdict is not Verdict.CORRECT


HAMI = make(
    ["nvidia.com/gpumem", "nvidia.com/gpucores", "nvidia.com/gpu.shared", "nvidia.com/mig-1g.10gb"],
    ["nvidia.com/gpumem", "nvidia.com/gpucores"],
)


def test_a_later_sentence_saying_what_other_choices_are_does_not_list_them() -> None:
    answer = "nvidia.com/gpumem + nvidia.com/gpucores. gpu.shared is the device plugin's rename"
    assert grade(HAMI, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "tail",
    [
        "gpu.shared is right too", "gpu.shared as well", "maybe gpu.shared",
        "nvidia.com/gpu.shared", "gpu.shared is also used for fractional GPUs",
    ],
)  # fmt: skip
def test_a_later_sentence_that_adds_or_doubts_a_choice_keeps_it(tail: str) -> None:
    question = choice_question(
        "multi",
        list(HAMI.choices),
        list(HAMI.correct),
        prompt="Which extended resources does HAMi use for fractional GPUs?",
    )
    answer = f"nvidia.com/gpumem + nvidia.com/gpucores. {tail}"
    assert grade(question, answer).verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "A, B, C. D: no. E: no.",
        "A, B, C. Who to blame if it fails - no; Figures quoted without sources - no",
        "A, B, C. D wrong (blame is no plan), E wrong (unsourced)",
    ],
)
def test_verdicts_written_after_left_out_choices_deny_them(answer: str) -> None:
    assert grade(NARRATIVE, answer).verdict is Verdict.CORRECT


def test_a_bullet_that_starts_with_no_is_no_verdict_on_the_bullet_before() -> None:
    question = make(
        [
            "Kernels from different processes can overlap",
            "No context switching between clients",
            "Full fault isolation",
        ],
        ["Kernels from different processes can overlap", "No context switching between clients"],
    )
    answer = (
        "- Kernels from different processes can overlap\n- No context switching between clients"
    )
    assert grade(question, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "A, B, C. Who to blame if it fails",
        "A, B, C. Who to blame if it fails too",
        "A, B, C. I'd also add D",
        "not A, B, C",
        "A, B, C. D: yes",
    ],
)
def test_a_later_sentence_that_names_or_adds_a_wrong_choice_keeps_it(answer: str) -> None:
    assert grade(NARRATIVE, answer).verdict is not Verdict.CORRECT


BIRDS = choice_question(
    "multi",
    ["penguin", "ostrich", "kiwi", "eagle"],
    ["penguin", "ostrich"],
    prompt="Which can swim?",
)


def test_a_later_sentence_saying_the_asked_thing_of_a_choice_adds_it() -> None:
    assert grade(BIRDS, "penguin and ostrich. the kiwi can swim").verdict is not Verdict.CORRECT
    assert grade(BIRDS, "penguin and ostrich. the kiwi is a night bird").verdict is (
        Verdict.CORRECT
    )


@pytest.mark.parametrize(
    "answer",
    ["1) 2) 3)", "all but the last two", "everything except the last two", "all except 4 and 5"],
)
def test_runs_of_places_from_either_end_name_their_choices(answer: str) -> None:
    assert grade(NARRATIVE, answer).verdict is Verdict.CORRECT


def test_a_run_from_the_end_names_the_last_choices() -> None:
    tail = make(list(NARRATIVE.choices), list(NARRATIVE.choices[2:]))
    for answer in ["the last three", "last 3", "all but the first two"]:
        assert grade(tail, answer).verdict is Verdict.CORRECT
    for answer in ["the last two", "the first three", "all but the last three"]:
        assert grade(tail, answer).verdict is not Verdict.CORRECT

"""Choice answers in the writer's own words: which words point to a choice.

- Against each rival, only the words that tell the two choices apart count: words a
  choice shares with another neither help nor hurt it against that one.
- "all", "every", "only", "just", "both" say which; "A100" and "H100" are two names, not
  "100" twice; CUDA_MPS_CLIENT_PRIORITY is one name; a CamelCase name is its words.
- Words the answer repeats from the question, in the question's order ("higher priority"
  for "which value means the higher priority?"), restate the question, not a choice.
- A verdict after the words ("copies no") denies them; a lone "never," denies what follows,
  as "Never: ..." does in a choice; "smaller", "fewer" and "less" are "lower", "bigger",
  "larger" and "greater" are "higher", "zero" is 0.
- An answer that says one of a pair of opposites more often than the choice, where the
  choice has the other, has swapped them ("higher numbers are higher priority").
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question
from tests.test_grading_choice_text import COPIES


def verdict(question: Question, answer: str) -> Verdict:
    return grade(question, answer).verdict


def answered(question: Question, answer: str) -> bool:
    return grade(question, answer).answered


RESTART = choice_question(
    "choice",
    [
        "Restarts all workers from the last checkpoint",
        "Restarts only the failed worker",
        "Continues with one worker fewer",
        "Moves the worker to a spare node",
    ],
    "Restarts all workers from the last checkpoint",
    prompt="One worker of a job crashes. What does the launcher do?",
)
CRASH = choice_question(
    "choice",
    [
        "Only the tenant that caused it",
        "Every pool tenant on that card",
        "Every tenant on every card of the rack",
        "None: the pool replays the work transparently",
    ],
    "Every pool tenant on that card",
    prompt="One tenant of a shared pool hits a fatal fault. Which tenants are affected?",
)
RATIO = choice_question(
    "choice",
    [
        "The generation gain: the H100's 900 GB/s is 1.5x the A100's 600 GB/s",
        "The PCIe Gen6 bandwidth",
        "The C2C link figure",
        "The H100's memory bandwidth",
    ],
    "The generation gain: the H100's 900 GB/s is 1.5x the A100's 600 GB/s",
    prompt="Where does the wrong 1.5 TB/s figure come from?",
)
SCOPE = choice_question(
    "choice",
    [
        "Only work inside each process's context; between clients CUDA_MPS_CLIENT_PRIORITY decides",
        "All work of both processes, globally",
        "Nothing at all",
        "Only copies between the processes",
    ],
    "Only work inside each process's context; between clients CUDA_MPS_CLIENT_PRIORITY decides",
    prompt="Two processes share a GPU and each makes a high-priority stream. What is ordered?",
)
DIRECTION = choice_question(
    "choice",
    [
        "The numerically lower value; 0 is the default",
        "The numerically higher value; 0 is the lowest",
        "Any non-zero value",
        "A string such as 'high'",
    ],
    "The numerically lower value; 0 is the default",
    prompt="Which value means the higher priority?",
)
QUEUES = choice_question(
    "choice",
    [
        "When the victim's queue borrowed over its quota",
        "Whenever the preemptor has a higher priority",
        "Never: preemption is only within a queue",
        "Only when the victim has no pods",
    ],
    "When the victim's queue borrowed over its quota",
    prompt="When can one queue preempt another queue's workload?",
)
RPCS = choice_question(
    "choice",
    ["ListAndWatch", "GetPreferredAllocation", "PreStartContainer", "Filter"],
    "GetPreferredAllocation",
    prompt="Which optional call lets a device plugin suggest a set of devices?",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("all workers restart", Verdict.CORRECT),
        ("everybody restarts, not just the failed one", Verdict.CORRECT),
        ("every worker restarts", Verdict.CORRECT),
        ("only the failed one restarts", Verdict.INCORRECT),
        ("just the failed worker", Verdict.INCORRECT),
    ],
)
def test_all_and_only_say_which_choice(answer: str, expected: Verdict) -> None:
    assert verdict(RESTART, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("a ratio against the A100, not a bandwidth", Verdict.CORRECT),
        ("it's H100 vs A100", Verdict.CORRECT),
        ("the H100's bandwidth", Verdict.INCORRECT),
        ("the H100 memory", Verdict.INCORRECT),
    ],
)
def test_model_names_are_names_not_their_number(answer: str, expected: Verdict) -> None:
    assert verdict(RATIO, answer) is expected


def test_an_environment_variable_is_one_name() -> None:
    # The variable is one word of the right choice; the pick is the wrong one.
    wrong = "Both processes globally, and CUDA_MPS_CLIENT_PRIORITY only affects copies"
    assert verdict(SCOPE, wrong) is not Verdict.CORRECT
    right = "within each process; across clients it's CUDA_MPS_CLIENT_PRIORITY"
    assert verdict(SCOPE, right) is Verdict.CORRECT


def test_a_camel_case_name_is_read_as_its_words() -> None:
    assert verdict(RPCS, "the preferred allocation one") is Verdict.CORRECT
    assert verdict(RPCS, "the list and watch one") is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("kernels yes, copies no", Verdict.CORRECT),
        ("kernels: yes. copies: no", Verdict.CORRECT),
        ("copies yes, kernels no", Verdict.INCORRECT),
        ("kernels no", Verdict.INCORRECT),
    ],
)
def test_a_verdict_after_the_words_denies_them(answer: str, expected: Verdict) -> None:
    assert verdict(COPIES, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("lower number = higher priority, 0 is default", Verdict.CORRECT),
        ("numerically lower = higher priority", Verdict.CORRECT),
        ("the smaller number wins; zero is the default priority", Verdict.CORRECT),
        ("smaller numbers", Verdict.CORRECT),
        ("higher number = higher priority", Verdict.INCORRECT),
        ("higher value means higher priority", Verdict.INCORRECT),
        ("the bigger number", Verdict.INCORRECT),
    ],
)
def test_words_repeated_from_the_question_name_no_choice(answer: str, expected: Verdict) -> None:
    assert verdict(DIRECTION, answer) is expected


def test_a_lone_never_denies_what_follows_it() -> None:
    assert verdict(QUEUES, "never, only within a queue") is Verdict.INCORRECT
    assert verdict(QUEUES, "only to reclaim borrowed quota") is Verdict.CORRECT


def test_an_opposite_said_more_often_than_the_choice_says_it_is_a_swap() -> None:
    checklist = choice_question(
        "multi",
        [
            "Lower numbers mean higher priority",
            "Out-of-range values are clamped",
            "They preempt running kernels",
        ],
        ["Lower numbers mean higher priority", "Out-of-range values are clamped"],
    )
    assert verdict(checklist, "lower = higher, clamped") is Verdict.CORRECT
    assert verdict(checklist, "clamped, and higher numbers are higher priority") is not (
        Verdict.CORRECT
    )
    rules = choice_question(
        "choice",
        [
            "Time-sliced vGPUs only, and every peer must be in the same VM",
            "MIG-backed vGPUs only",
            "Any vGPUs in any VMs",
        ],
        "Time-sliced vGPUs only, and every peer must be in the same VM",
    )
    assert verdict(rules, "time-sliced only, same VM") is Verdict.CORRECT


SHARED = ["tenant", "tenants", "every", "all", "card", "on that card", "affected"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(SHARED), max_size=4), st.booleans())
def test_words_two_choices_share_do_not_decide_between_them(extra: list[str], first: bool) -> None:
    """The word "pool" tells the right choice from the rack-wide one: whatever words both
    of them have are added, the answer keeps pointing where "pool" points."""
    words = " ".join(extra)
    answer = f"the pool {words}" if first else f"{words} in the pool"
    assert verdict(CRASH, answer) is Verdict.CORRECT
    rack = f"the rack {words}" if first else f"{words} across the rack"
    assert verdict(CRASH, rack) is not Verdict.CORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("all tenants on that card, other cards are fine", Verdict.CORRECT),
        ("all the pool tenants on that card; other cards are fine", Verdict.CORRECT),
        ("all tenants on every card", Verdict.INCORRECT),
        ("only the one that caused it", Verdict.INCORRECT),
    ],
)
def test_that_and_every_tell_one_card_from_all_of_them(answer: str, expected: Verdict) -> None:
    assert verdict(CRASH, answer) is expected


def test_words_two_choices_have_alike_name_neither() -> None:
    placement = choice_question(
        "choice",
        [
            "All 8 GPUs on one node, so traffic stays on NVLink",
            "One GPU on each of 8 nodes",
            "Any 8 free GPUs",
        ],
        "All 8 GPUs on one node, so traffic stays on NVLink",
    )
    assert not answered(placement, "one node")
    assert verdict(placement, "one node, NVLink") is Verdict.CORRECT


PRESENTED = choice_question(
    "choice",
    [
        "As an SR-IOV virtual function",
        "As a mediated device, as on older parts",
        "As a full PCIe physical function per VM",
        "As a CUDA MPS client",
    ],
    "As an SR-IOV virtual function",
    prompt="How is a vGPU presented to the hypervisor on newer GPUs?",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("sriov", Verdict.CORRECT),
        ("a VF", Verdict.CORRECT),
        ("as a VF (sriov), mdev on older parts", Verdict.CORRECT),
        # Outside its aside first: the aside's words are a remark.
        ("VF via SR-IOV (older parts used mdev)", Verdict.CORRECT),
        ("mdev", Verdict.INCORRECT),
        ("mdev (not sriov)", Verdict.INCORRECT),
        ("a PF per VM", Verdict.INCORRECT),
    ],
)
def test_two_words_written_as_one_and_known_shorthands_are_read(
    answer: str, expected: Verdict
) -> None:
    assert verdict(PRESENTED, answer) is expected


def test_a_verb_whose_complement_is_left_out_affirms_when_the_question_asks_what_cannot() -> None:
    schedulers = choice_question(
        "choice",
        ["Fixed Share", "Equal Share", "Best Effort", "All three work"],
        "Fixed Share",
        prompt="Which scheduler cannot be used for vGPUs of different sizes?",
    )
    assert verdict(schedulers, "fixed share can't, best effort and equal share can") is (
        Verdict.CORRECT
    )
    assert verdict(schedulers, "fixed share doesn't, the others do") is Verdict.CORRECT
    assert verdict(schedulers, "equal share can't, fixed share and best effort can") is (
        Verdict.INCORRECT
    )


PLATFORMS = choice_question(
    "choice",
    [
        "Linux only: bare metal, passthrough to Linux VMs, and vGPU",
        "Linux and Windows bare metal",
        "Only inside Kubernetes",
        "Only with vGPU",
    ],
    "Linux only: bare metal, passthrough to Linux VMs, and vGPU",
    prompt="Where can MIG be used?",
)


def test_a_choice_the_answer_denies_leaves_its_shared_words_to_the_others() -> None:
    # "Windows" is denied, so "Linux" now tells the first choice from the rest.
    assert verdict(PLATFORMS, "only on Linux, not Windows") is Verdict.CORRECT
    assert verdict(PLATFORMS, "Linux and Windows") is Verdict.INCORRECT
    assert not answered(PLATFORMS, "not windows")


def test_not_before_a_noun_denies_the_noun_not_the_words_before_it() -> None:
    assert verdict(COPIES, "kernels only not memcpy") is Verdict.CORRECT
    assert verdict(COPIES, "copies only not kernels") is Verdict.INCORRECT


CEILING = choice_question(
    "choice",
    [
        "One billion (1,000,000,000)",
        "Two billion (2,000,000,000)",
        "2,000,001,000",
        "The int32 maximum, 2,147,483,647",
    ],
    "One billion (1,000,000,000)",
    prompt="What is the highest value a user-defined PriorityClass may have?",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("1e9", Verdict.CORRECT),
        ("10^9", Verdict.CORRECT),
        ("1 x 10^9", Verdict.CORRECT),
        ("1e9 — the 2 billion-ish values are reserved for the system classes", Verdict.CORRECT),
        ("2e9", Verdict.INCORRECT),
    ],
)
def test_a_number_in_scientific_notation_is_the_number(answer: str, expected: Verdict) -> None:
    assert verdict(CEILING, answer) is expected


MODES = choice_question(
    "multi",
    ["Time-sliced vGPU", "MIG-backed vGPU", "Time-sliced MIG-backed vGPU", "MPS-backed vGPU"],
    ["Time-sliced vGPU", "MIG-backed vGPU", "Time-sliced MIG-backed vGPU"],
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("time-sliced, MIG-backed, and time-sliced MIG-backed", Verdict.CORRECT),
        ("time-sliced and MIG-backed", Verdict.PARTIAL),
        ("time-sliced, MIG-backed, MPS-backed", Verdict.INCORRECT),
    ],
)
def test_a_choice_without_the_words_every_choice_has_is_that_choice(
    answer: str, expected: Verdict
) -> None:
    assert verdict(MODES, answer) is expected


def test_a_denial_runs_on_past_for() -> None:
    right = "Prefers a topology-aligned set, such as NVLink-connected GPUs (not used for MIG)"
    preferred = choice_question(
        "choice",
        [
            right,
            "Chooses the 4 least-loaded GPUs in the cluster",
            "Splits each GPU into 4 MIG instances",
            "Nothing: the call is reserved",
        ],
        right,
    )
    assert verdict(preferred, "prefers NVLink-connected GPUs") is Verdict.CORRECT
    assert verdict(preferred, "Prefers NVLink-connected MIG instances") is not Verdict.CORRECT

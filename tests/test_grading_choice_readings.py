"""Choice and multi answers read as grader 1.6 reads them: a bare yes or no ("nope, model
state alone is bigger than the slice" picks the one choice that opens with "No:"); a remark
that says the pick's opposite ("greatest is the numerically largest") or answers with another
choice's gist undoes the pick; a remark that adds a letter ("A, B, C. D too") adds it, while
"both directions" in a remark adds nothing; a unit spelt out ("mebibytes") names its
symbol."""

from __future__ import annotations

import pytest

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question

SLICE = [
    "No: model state alone is about 16–20 GB, more than the slice's 10 GB",
    "Yes, easily: 1B parameters take 1 GB",
    "Yes, if you use a higher stream priority",
    "Only with time-slicing on top",
]
FITS = choice_question("choice", SLICE, SLICE[0], prompt="Can you train a 1B model on 1g.10gb?")
PLUGIN = [
    "No: MIG devices can be time-sliced, but MPS sharing of MIG devices is not supported",
    "Yes, both MPS and time-slicing work on MIG devices",
    "Only with the single strategy",
    "Only on H100",
]
MPS_ON_MIG = choice_question("choice", PLUGIN, PLUGIN[0], prompt="Can the plugin use MPS on MIG?")
RISK = [
    "No memory or fault isolation: one tenant can exhaust memory or crash the others",
    "Time-slicing needs a per-GPU licence",
    "Time-slicing only works on A100",
    "Tenants get more compute than they pay for",
]
EXTERNAL = choice_question("choice", RISK, RISK[0], prompt="What is the biggest risk?")
RANGE = [
    "The least priority and the greatest priority, the greatest being the numerically smallest",
    "The smallest and largest number of streams allowed",
    "The minimum and maximum compute capability",
    "The default priority and the number of priority levels",
]
PRIORITIES = choice_question("choice", RANGE, RANGE[0], prompt="What are the two values?")


def verdict(question: Question, answer: str) -> Verdict:
    return grade(question, answer).verdict


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # real blind answers (wt4), labelled correct
        (FITS, "no, 1B × ~16-20 bytes of state ≈ 16-20 GB, way over 10 GB before activations"),
        (FITS, "nope, model state alone is bigger than the slice"),
        (MPS_ON_MIG, "nope, time-slicing only"),
        (FITS, "No."),
        (MPS_ON_MIG, "no — the plugin can time-slice MIG devices but doesn't support MPS on them"),
    ],
)
def test_a_bare_no_picks_the_one_choice_that_opens_with_no(question: Question, answer: str) -> None:
    assert verdict(question, answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (FITS, "yes, 1B params is only 1 GB"),
        (FITS, "no, only with time-slicing on top"),
        (MPS_ON_MIG, "yes, both MPS and time-slicing work on mixed-strategy MIG devices"),
        (MPS_ON_MIG, "no, only with the single strategy"),
    ],
)
def test_a_yes_or_a_no_followed_by_another_choice_is_that_choice(
    question: Question, answer: str
) -> None:
    assert verdict(question, answer) is Verdict.INCORRECT


def test_a_bare_yes_among_two_yes_choices_names_none() -> None:
    graded = grade(FITS, "yes")
    assert not graded.answered


def test_no_as_a_word_of_the_answer_is_no_yes_or_no() -> None:
    # "No memory ..." opens a choice's words, not a verdict: the tenant risk stays readable
    assert verdict(EXTERNAL, "no mem or fault isolation — one tenant can crash everyone") is (
        Verdict.CORRECT
    )
    assert verdict(EXTERNAL, "per-GPU licence cost") is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("least and greatest priority, where greatest is the numerically largest number",
         Verdict.INCORRECT),
        ("(least, greatest) — and greatest is the more negative one since lower number = "
         "higher priority", Verdict.CORRECT),
        ("least and greatest priority; greatest is the numerically smallest", Verdict.CORRECT),
    ],
)  # fmt: skip
def test_a_remark_with_the_opposite_superlative_undoes_the_pick(
    answer: str, expected: Verdict
) -> None:
    assert verdict(PRIORITIES, answer) is expected


COST = [
    "Context switches between processes, and no overlap of their kernels",
    "It halves the memory bandwidth",
    "It disables tensor cores",
    "It forces the GPU into a lower clock",
]
THROUGHPUT = choice_question(
    "choice",
    COST,
    COST[0],
    prompt="Where does time-slicing lose throughput compared with MPS?",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a real blind answer (wt4), labelled incorrect: the remark answers with another choice
        ("context switches are free, the loss is that time-slicing lowers the clock",
         Verdict.INCORRECT),
        # a remark that dismisses the other choice, or says why, keeps the pick
        ("context switches, and no kernel overlap; it would not lower the clock", Verdict.CORRECT),
        ("context switching between the processes, and their kernels never overlap (MPS lets "
         "them run concurrently)", Verdict.CORRECT),
    ],
)  # fmt: skip
def test_a_remark_that_answers_with_another_choice_undoes_the_pick(
    answer: str, expected: Verdict
) -> None:
    assert verdict(THROUGHPUT, answer) is expected


RISKS = [
    "MPS sharing in the NVIDIA device plugin",
    "GPU allocation features such as dynamic MIG in NVIDIA's DRA driver",
    "Native gang scheduling in Kubernetes v1.35",
    "Pod priority and preemption",
    "Device plugins",
]
IMMATURE = choice_question("multi", RISKS, RISKS[:3], prompt="Which would you flag as immature?")
FIGURES = [
    "A100: 600 GB/s bidirectional",
    "H100: 900 GB/s bidirectional",
    "H100: 450 GB/s in each direction",
    "H100: 900 GB/s in each direction",
    "B200: 900 GB/s per single link",
]
STATED = choice_question("multi", FIGURES, FIGURES[:3], prompt="Which figures are right?")
UNITS = ["MiB", "GB", "GiB", "bytes"]
LABEL_UNIT = choice_question("choice", UNITS, "MiB", prompt="In which unit is gpu.memory?")


@pytest.mark.parametrize("answer", ["A, B, C. D too", "A, B, C. D as well", "A, B, C. also D"])
def test_a_remark_that_adds_a_letter_adds_it(answer: str) -> None:
    assert verdict(IMMATURE, answer) is Verdict.INCORRECT


def test_both_directions_in_a_remark_adds_no_choice() -> None:
    # a real blind answer (wt4), labelled correct
    answer = (
        "first three. 900 is both directions added up, and the B200 per-link line is bogus "
        "(it's 100 GB/s/link)"
    )
    assert verdict(STATED, answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("mebibytes, so an 80GB card shows ~80000", Verdict.CORRECT),
        ("mebibytes", Verdict.CORRECT),
        ("gibibytes", Verdict.INCORRECT),
        ("in gigabytes", Verdict.INCORRECT),
    ],
)
def test_a_unit_spelt_out_names_its_symbol(answer: str, expected: Verdict) -> None:
    assert verdict(LABEL_UNIT, answer) is expected


PARTS = [
    "2 bytes of half-precision weights",
    "2 bytes of half-precision gradients",
    "4 bytes of fp32 master weights",
    "8 bytes of Adam moment estimates",
    "4 bytes of activations",
]
STATE = choice_question("multi", PARTS, PARTS[:4], prompt="Which make up the 16 bytes?")


def test_grads_are_gradients() -> None:
    # a real blind answer (wt4), labelled correct
    answer = "half weights 2 + half grads 2 + fp32 master 4 + adam moments 8 = 16"
    assert verdict(STATE, answer) is Verdict.CORRECT
    assert verdict(STATE, "grads and activations") is Verdict.INCORRECT

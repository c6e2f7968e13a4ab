"""Numbers beside other numbers: per-one or for-all as the question asks, the result of
working after "=", working in brackets that explains the answer, and memory sizes written
as Kubernetes writes them ("20G"), an amount of work ("FLOPs")
is not a rate ("FLOP/s"), and a number after a product name ("PCIe 5") is its version."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.test_grading_kinds import numeric

BOTH_WAYS = replace(
    numeric(200, "GB/s", tolerance=0.05),
    prompt="How much bandwidth does the link carry, counting both directions?",
)
PER_DISK = replace(
    numeric(300, "W", tolerance=0.05), prompt="What power does each disk shelf draw?"
)
TENANTS = replace(
    numeric(12, "instances"),
    prompt="A host has 3 cards, each split into 4 instances. How many tenants fit?",
)
MEMORY = replace(
    numeric(16, "GB", tolerance=0.05),
    prompt="A 64 GB card is split into 4 replicas. How much memory does each get?",
)
SERVERS = replace(
    numeric(3, "servers"), prompt="You need 250 GB and a server holds 96 GB. How many servers?"
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (BOTH_WAYS, "200 GB/s in total, i.e. 100 GB/s each way"),
        (BOTH_WAYS, "~100 GB/s each way, i.e. 200 GB/s both"),
        (PER_DISK, "about 300 W per shelf, i.e. 2.4 kW for the rack of eight"),
        (PER_DISK, "2.4 kW for eight, i.e. 300 W each"),
    ],
)
def test_the_figure_for_the_scope_asked_wins(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (BOTH_WAYS, "100 GB/s each way, i.e. 200 GB/s in total, so 100"),
        (BOTH_WAYS, "100 GB/s each way"),
        (PER_DISK, "2.4 kW in total"),
    ],
)
def test_the_figure_for_the_other_scope_is_wrong(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is not Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (TENANTS, "3 cards × 4 instances = 12 tenants", Verdict.CORRECT),
        (TENANTS, "3 × 4 = 7 tenants", Verdict.INCORRECT),
        (MEMORY, "64/4 = 16G", Verdict.CORRECT),
        (MEMORY, "64/4 = 12G", Verdict.INCORRECT),
        (SERVERS, "3 servers (250/96 = 2.6, round up)", Verdict.CORRECT),
        (SERVERS, "2 servers (250/96 = 2.6)", Verdict.INCORRECT),
    ],
)
def test_working_and_its_result(question: Question, answer: str, expected: Verdict) -> None:
    assert grade(question, answer).verdict is expected


WORK = numeric(3e21, "FLOPs", tolerance=0.05)
SPEED = numeric(2e15, "FLOP/s", units=("FLOPS",), tolerance=0.05)


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (WORK, "3e21 FLOPs", Verdict.CORRECT),
        (WORK, "3 zettaFLOP", Verdict.CORRECT),
        (WORK, "3e21 FLOP/s", Verdict.INCORRECT),  # a rate is not the work a job takes
        (WORK, "3e21 FLOP per second", Verdict.INCORRECT),
        (SPEED, "2 PFLOP/s", Verdict.CORRECT),
        (SPEED, "2e15 FLOPS", Verdict.CORRECT),
    ],
)
def test_an_amount_of_work_is_not_a_rate(
    question: Question, answer: str, expected: Verdict
) -> None:
    assert grade(question, answer).verdict is expected


LANES = numeric(16, "lanes")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("sixteen PCIe 5 lanes", Verdict.CORRECT),  # "PCIe 5" is a generation
        ("16 lanes of Gen 5", Verdict.CORRECT),
        ("FastLink 16 lanes", Verdict.CORRECT),  # the only number stays the answer
        ("eight PCIe 5 lanes", Verdict.INCORRECT),
    ],
)
def test_a_number_after_a_product_name_is_its_version(answer: str, expected: Verdict) -> None:
    assert grade(LANES, answer).verdict is expected

"""Numbers as people type them: powers of ten in every notation, fractions where a
percentage is asked, time on GPUs as time, a restatement after "=", "≈" or "i.e." (the
number in the unit asked wins), and negative values for quantities that cannot be."""

from __future__ import annotations

import pytest

from bot.core.grading import Verdict, grade
from tests.test_grading_kinds import numeric

FLOPS = numeric(4.2e22, "FLOPs", tolerance=0.05)
SHARE = numeric(10, "%", tolerance=0.1)
SECONDS = numeric(42, "s", units=("seconds", "GPU-seconds"), tolerance=0.05)
GPU_HOURS = numeric(11800, "GPU-hours", units=("GPU hours",), tolerance=0.02)
BANDWIDTH = numeric(1.8, "TB/s", units=("GB/s",), tolerance=0.05)
PER_DIRECTION = numeric(450, "GB/s", units=("TB/s",), tolerance=0.05)
LINKS = numeric(12, "links")
BYTES = numeric(16, "bytes")
INSTANCES = numeric(7, "instances")


def verdict(question: object, answer: str) -> Verdict:
    return grade(question, answer).verdict  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "answer",
    [
        "4.2 × 10^22",
        "4.2x10^22",
        "4.2 x 10^22 FLOPs",
        "4.2·10²²",
        "4.2 * 10**22",
        "4.2e22",
        "4.2E+22 FLOP",
        "42 zettaFLOPs",
        "6 × 7e9 × 1e12 ≈ 4.2 × 10^22",
    ],
)
def test_powers_of_ten_in_every_notation(answer: str) -> None:
    assert verdict(FLOPS, answer) is Verdict.CORRECT


@pytest.mark.parametrize("answer", ["4.2 × 10^21", "4.2·10²¹", "42 exaFLOPs"])
def test_a_wrong_power_of_ten_is_wrong(answer: str) -> None:
    assert verdict(FLOPS, answer) is Verdict.INCORRECT


@pytest.mark.parametrize("answer", ["10%", "0.1", "about a tenth", "one tenth of the time"])
def test_a_fraction_answers_a_percentage(answer: str) -> None:
    assert verdict(SHARE, answer) is Verdict.CORRECT


@pytest.mark.parametrize("answer", ["a quarter", "0.25", "half"])
def test_a_wrong_fraction_is_wrong(answer: str) -> None:
    assert verdict(SHARE, answer) is Verdict.INCORRECT


@pytest.mark.parametrize("answer", ["0.7 GPU-minutes", "42 GPU-s", "42.5 GPU seconds"])
def test_time_on_gpus_converts_like_time(answer: str) -> None:
    assert verdict(SECONDS, answer) is Verdict.CORRECT


@pytest.mark.parametrize("answer", ["11,800 GPU-hours", "11800 GPU hours", "about 491.7 GPU-days"])
def test_a_question_in_gpu_hours_takes_gpu_time(answer: str) -> None:
    assert verdict(GPU_HOURS, answer) is Verdict.CORRECT


def test_the_restatement_in_the_unit_asked_wins() -> None:
    assert verdict(BANDWIDTH, "18 links × 100 GB/s ≈ 1.8e12 B/s") is Verdict.CORRECT
    assert verdict(PER_DIRECTION, "half of 900, i.e. 450") is Verdict.CORRECT
    assert verdict(LINKS, "12 links (12 × 50 = 600 GB/s)") is Verdict.CORRECT
    assert verdict(PER_DIRECTION, "900 GB/s total, so 900") is Verdict.INCORRECT


def test_bits_convert_to_bytes_exactly() -> None:
    assert verdict(BYTES, "128 bits") is Verdict.CORRECT
    assert verdict(BYTES, "16 bits") is Verdict.INCORRECT


@pytest.mark.parametrize("answer", ["-7", "−7 instances", "-1.8 TB/s"])
def test_a_negative_value_of_a_quantity_is_wrong(answer: str) -> None:
    question = BANDWIDTH if "TB" in answer else INSTANCES
    result = grade(question, answer)
    assert result.answered and result.verdict is Verdict.INCORRECT


def test_a_range_is_not_a_negative_number() -> None:
    assert verdict(numeric(18, "links", tolerance=0.2), "16-20 links") is Verdict.CORRECT

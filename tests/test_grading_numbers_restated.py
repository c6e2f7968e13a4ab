"""Numbers as people restate them: a unit of the wrong kind is wrong whatever the figure
("141 GB/s" for a size, "1000 Wh" for a power); number words read one number at a time
("seven (one per slice)" is 7, "zero" is 0); a figure restated for another direction of a
link or another share ("1.8 TB/s, i.e. 900 GB/s each way" when the total is asked) leaves the
figure asked for the answer, also when the restatement drops the unit; and a number after
"so" that counts something else ("98, so ~10 lost") is not the answer."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.content import Question
from bot.core.grading.numeric import words_to_digits
from tests.test_grading_kinds import correct, numeric

POWER = numeric(1000, "W", tolerance=0.05)
SIZE = numeric(141, "GB")
STATE = numeric(1.12, "TB", tolerance=0.05)


def asked(prompt: str, value: float, unit: str, tolerance: float = 0.0) -> Question:
    return replace(numeric(value, unit, tolerance=tolerance), prompt=prompt)


TOTAL_PER_GPU = asked(
    "Fifth-generation NVLink on Blackwell gives each GPU how much total bandwidth?",
    1.8, "TB/s", 0.05,
)  # fmt: skip
BIDIRECTIONAL = asked(
    "What is the total bidirectional NVLink bandwidth of one H100 SXM GPU?", 900, "GB/s", 0.05
)
EACH_WAY = asked(
    "H100's NVLink is quoted as 900 GB/s bidirectional. How much is that in each direction?",
    450, "GB/s", 0.05,
)  # fmt: skip
BOTH_WAYS = asked(
    "Roughly how much bandwidth does a PCIe Gen5 x16 slot carry, counting both directions?",
    128, "GB/s", 0.05,
)  # fmt: skip
SMS = asked(
    "An A100-40GB has 108 SMs. With MIG enabled, how many can the 7g instance use?", 98, "SMs"
)
PRIORITY = numeric(0, "priority")
VGPUS = numeric(7, "vGPUs")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (POWER, "1000 Wh"),  # wt5, labelled incorrect
        (POWER, "1 kWh"),
        (POWER, "1000 J"),
        (SIZE, "141 GB/s"),  # wt5, labelled incorrect
        (SIZE, "141 gigabytes per second"),
        (STATE, "1.12 TB/s"),
    ],
)
def test_a_unit_of_another_kind_is_wrong(question: Question, answer: str) -> None:
    assert not correct(question, answer)


@pytest.mark.parametrize(
    ("question", "answer"),
    [(POWER, "1,000 W"), (POWER, "1 kilowatt"), (SIZE, "141 GB per GPU"), (SIZE, "141 gigabytes")],
)
def test_the_unit_asked_in_any_spelling_is_right(question: Question, answer: str) -> None:
    assert correct(question, answer)


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (VGPUS, "seven (one per 1g.5gb)", True),  # wt4, labelled correct
        (VGPUS, "seven, one per slice", True),
        (VGPUS, "eight (one per GB)", False),
        (PRIORITY, "zero — higher priorities are negative numbers", True),  # wt4
        (PRIORITY, "Zero (the lowest priority)", True),
        (PRIORITY, "zero-ish, maybe -1", False),
        (SMS, "ninety-eight, so ~10 lost", True),  # wt5, labelled correct
        (SMS, "98, so 10 idle", True),
        (SMS, "108, so 0 lost", False),
        (SMS, "14 per slice, so 98", True),
        (SMS, "7 × 14 = 98", True),
    ],
)
def test_number_words_and_consequences(question: Question, answer: str, expected: bool) -> None:
    assert correct(question, answer) is expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (TOTAL_PER_GPU, "1.8 TB/s, i.e. 900 GB/s each way", True),  # wt5, labelled correct
        (TOTAL_PER_GPU, "1.8 TB/s total, i.e. 900 GB/s each way", True),
        (TOTAL_PER_GPU, "14.4 TB/s for the 8-GPU box, i.e. 1.8 TB/s per GPU", True),
        (TOTAL_PER_GPU, "1.8 TB/s per GPU, i.e. 14.4 TB/s for eight", True),
        (TOTAL_PER_GPU, "900 GB/s each way", False),
        (BIDIRECTIONAL, "900 GB/s total, i.e. 450 GB/s each way", True),
        (BIDIRECTIONAL, "450 GB/s each way, i.e. 900 GB/s bidirectional", True),
        (BIDIRECTIONAL, "7.2 TB/s total, i.e. 900 GB/s per GPU", True),
        (BIDIRECTIONAL, "450 GB/s each way", False),
        (EACH_WAY, "450 GB/s each way, i.e. 900 GB/s both ways", True),
        (EACH_WAY, "900 GB/s bidirectional, i.e. 450 each way", True),  # the unit carries
        (EACH_WAY, "0.9 TB/s bidirectional, i.e. 0.45 each way", True),
        (EACH_WAY, "900 GB/s bidirectional, i.e. 225 each way", False),
        (BOTH_WAYS, "~128 GB/s total, i.e. 64 each way", True),  # wt5, labelled correct
        (BOTH_WAYS, "64 GB/s each way, i.e. 128 GB/s both directions", True),
        (BOTH_WAYS, "64 GB/s each way", False),
    ],
)
def test_the_figure_for_the_direction_and_share_asked_wins(
    question: Question, answer: str, expected: bool
) -> None:
    assert correct(question, answer) is expected


ONES = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]  # fmt: skip
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def spelt(n: int) -> str:
    """``n`` (1..999) in words, as people write it: "nine hundred and five", "ninety-eight"."""
    hundreds, rest = divmod(n, 100)
    words = [f"{ONES[hundreds]} hundred"] if hundreds else []
    if rest:
        if hundreds:
            words.append("and")
        if rest < 10:
            words.append(ONES[rest])
        elif rest < 20:
            words.append(TEENS[rest - 10])
        else:
            words.append(TENS[rest // 10] + (f"-{ONES[rest % 10]}" if rest % 10 else ""))
    return " ".join(words)


@given(n=st.integers(2, 999), m=st.integers(2, 999))
def test_two_numbers_in_words_stay_two_numbers(n: int, m: int) -> None:
    assert words_to_digits(spelt(n)) == str(n)
    assert words_to_digits(f"{spelt(n)} ({spelt(m)} each)") == f"{n} ({m} each)"
    if n < 10 and m < 10:
        assert words_to_digits(f"{spelt(n)} {spelt(m)}") == f"{n} {m}"

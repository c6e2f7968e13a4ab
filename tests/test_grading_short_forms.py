"""Short answers: letter-digit-letter acronyms spelt out ("chip-2-chip" for C2C, "peer to
peer" for P2P), and an "or" inside a condition ("unless you pick X or Y") is no hedge, and
a term named only in the condition is not the answer."""

from __future__ import annotations

import pytest

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.test_grading_identifiers import short

LINK = short("FastBus-D2D")
COPY = short("P2P")
DEFAULT = short("none")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (LINK, "fastbus d2d"),
        (LINK, "it's called FastBus die-2-die"),
        (LINK, "FastBus die to die"),
        (COPY, "peer to peer"),
        (COPY, "they copy peer-2-peer"),
        (DEFAULT, "it defaults to 'none', unless you pick single or mixed"),
    ],
)
def test_right_answers_in_these_forms_are_correct(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (LINK, "FastBus die to host"),
        (COPY, "peer to host"),
        (DEFAULT, "none or single"),  # a hedge between two terms
        (DEFAULT, "single, unless it is none"),
    ],
)
def test_wrong_or_hedged_answers_are_not_correct(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is not Verdict.CORRECT

"""Multi answers as blind writers (wt8, wt9) typed them.

- Letters run together in order lead an answer before an aside or a remark ("abcd (not e,
  ...)"); a run that is a word ("be", "ace") is not letters. Letters apart, in any order,
  lead it too ("b e a - the T4, L40S and A10 have no MIG").
- A letter the answer calls wrong ("D is wrong because <D's words>") is not picked by the
  words of the remark that explains why.
- A later sentence that opens with "only" says what its item is ("only kernels, not
  memcpys"), not that the choice falls short.
- "fp16" is half precision, "grads" gradients, "bidir" bidirectional.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.grading import Verdict, grade
from tests.support import choice_question

STATE = choice_question(
    "multi",
    [
        "2 bytes of half-precision weights",
        "2 bytes of half-precision gradients",
        "4 bytes of fp32 master weights",
        "8 bytes of optimizer moments",
        "4 bytes of activations",
    ],
    [
        "2 bytes of half-precision weights",
        "2 bytes of half-precision gradients",
        "4 bytes of fp32 master weights",
        "8 bytes of optimizer moments",
    ],
    prompt="Which items make up the 16 bytes per parameter of the model state?",
)
MEMORY = choice_question(
    "multi",
    ["X100 40GB: HBM2", "X100 80GB: HBM2e", "X200: HBM3e", "X150: HBM3e", "X100 40GB: HBM2e"],
    ["X100 40GB: HBM2", "X100 80GB: HBM2e", "X200: HBM3e"],
    prompt="Which card and memory pairings are correct?",
)
LINKS = choice_question(
    "multi",
    [
        "X100: 600 GB/s bidirectional",
        "X150: 900 GB/s bidirectional",
        "X150: 450 GB/s in each direction",
        "X150: 900 GB/s in each direction",
    ],
    [
        "X100: 600 GB/s bidirectional",
        "X150: 900 GB/s bidirectional",
        "X150: 450 GB/s in each direction",
    ],
    prompt="Which per-card link figures are stated correctly?",
)
PRIORITY = choice_question(
    "multi",
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
    prompt="Which statements about stream priorities hold?",
)


def verdict(question, answer: str) -> Verdict:  # type: ignore[no-untyped-def]
    return grade(question, answer).verdict


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (STATE, "abcd (not e, those are extra)", Verdict.CORRECT),
        (STATE, "abcd - e is not model state", Verdict.CORRECT),
        (STATE, "abce, d is wrong", Verdict.INCORRECT),
        (
            STATE,
            "2 B fp16 weights + 2 B fp16 grads + 4 B fp32 master + 8 B moments",
            Verdict.CORRECT,
        ),
        (
            MEMORY,
            "A and B and C. D is wrong because X150 is HBM3, E is wrong because 40GB is HBM2.",
            Verdict.CORRECT,
        ),
        (MEMORY, "A and B and C and D.", Verdict.INCORRECT),
        (
            LINKS,
            "x100 600 bidir, x150 900 bidir and x150 450 each way. not D (900 is both ways)",
            Verdict.CORRECT,
        ),
        (
            PRIORITY,
            "lower number = higher prio; out-of-range gets clamped; only kernels, not memcpys",
            Verdict.CORRECT,
        ),
    ],
)
def test_multi_answers_as_people_type_them(question, answer: str, expected: Verdict) -> None:  # type: ignore[no-untyped-def]
    assert verdict(question, answer) is expected


@settings(max_examples=60, deadline=None)
@given(
    st.sets(st.sampled_from("abcde"), min_size=2).filter(
        lambda s: "".join(sorted(s)) not in {"ad", "be", "ace"}
    ),
    st.sampled_from([" (see notes)", ", rest wrong", " - sure", ": done"]),
)
def test_a_run_of_letters_in_order_names_those_letters(letters: set[str], tail: str) -> None:
    run = "".join(sorted(letters))
    if "e" in letters:
        expected = Verdict.INCORRECT
    else:
        expected = Verdict.CORRECT if run == "abcd" else Verdict.PARTIAL
    assert verdict(STATE, run + tail) is expected


def test_a_run_that_is_a_word_is_no_letters() -> None:
    assert verdict(STATE, "be, that is what I recall") is not Verdict.PARTIAL


@settings(max_examples=60, deadline=None)
@given(
    st.permutations("abcde").flatmap(lambda p: st.integers(2, 5).map(lambda n: p[:n])),
    st.sampled_from([" - see notes", ". the rest are wrong", " (from memory)", ": done"]),
)
def test_letters_apart_in_any_order_lead_the_answer(letters: list[str], tail: str) -> None:
    picked = set(letters)
    if "e" in picked:
        expected = Verdict.INCORRECT
    else:
        expected = Verdict.CORRECT if picked == set("abcd") else Verdict.PARTIAL
    assert verdict(STATE, " ".join(letters) + tail) is expected


def test_an_article_before_a_word_is_no_run_of_letters() -> None:
    assert verdict(STATE, "a b200 has more memory - weights and gradients") is not Verdict.INCORRECT

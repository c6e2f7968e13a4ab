"""The grader, kind by kind, as an interviewer would judge the answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.content import Question, RubricPoint, load_pack
from bot.core.grading import GRADER_VERSION, Grade, Verdict, grade
from bot.core.grading.normalize import normalize

PACK = load_pack(Path(__file__).parent / "data" / "grading" / "questions.yaml")
Q = {q.id: q for q in PACK.questions}


def verdict(qid: str, answer: str) -> Verdict:
    return grade(Q[qid], answer).verdict


def correct(question: Question, answer: str) -> bool:
    """Whether ``answer`` to ``question`` is graded correct."""
    return grade(question, answer).verdict is Verdict.CORRECT


def numeric(
    value: float, unit: str, units: tuple[str, ...] = (), tolerance: float = 0.0
) -> Question:
    return Question(
        id="n", pack="t", topic="mig", roles=("eng",), difficulty=1, kind="numeric",
        prompt="How much?", explanation="Because.", sources=("https://example.org/doc",),
        value=value, tolerance=tolerance, unit=unit, units=units,
    )  # fmt: skip


def test_grader_version_names_the_rules_of_this_release() -> None:
    # Bumped whenever a grade can change, so `studybot regrade` knows what is stale.
    assert GRADER_VERSION == "1.6"


# ---- normalisation --------------------------------------------------------


def test_normalisation_folds_unicode_case_punctuation_hyphens_and_articles() -> None:
    assert normalize("The  Multi-Process  Service!") == normalize("multi process service")
    assert normalize("ＭＰＳ") == "mps"
    assert normalize("doesn't") == "doesnt"
    assert normalize("1.8 TB/s") == "1.8 tb s"


# ---- choice ---------------------------------------------------------------


@pytest.mark.parametrize(
    "answer", ["C", "c", "(c)", "c)", "Option C", "no memory isolation, one shared fault domain"]
)
def test_a_choice_is_named_by_letter_or_text(answer: str) -> None:
    assert verdict("gl-choice-ts-isolation", answer) is Verdict.CORRECT


def test_an_answer_naming_two_choices_is_not_correct() -> None:
    g = grade(Q["gl-choice-ts-isolation"], "B or C")
    assert g.verdict is Verdict.INCORRECT
    assert "several" in g.feedback


def test_a_longer_choice_containing_a_shorter_one_is_not_both() -> None:
    assert verdict("gl-choice-a100-40-memory", "HBM2e") is Verdict.INCORRECT
    assert verdict("gl-choice-a100-40-memory", "HBM2") is Verdict.CORRECT


def test_a_choice_text_with_a_typo_is_recognised() -> None:
    assert verdict("gl-choice-vgpu-default-scheduler", "Best Efort") is Verdict.CORRECT


# ---- multi ----------------------------------------------------------------


@pytest.mark.parametrize("answer", ["A, B, E", "ABE", "a b e", "A30, A100 and H100", "E; A; B"])
def test_multi_wants_all_the_right_choices_in_any_order_and_separator(answer: str) -> None:
    assert verdict("gl-multi-mig-gpus", answer) is Verdict.CORRECT


def test_a_proper_subset_earns_partial_credit() -> None:
    g = grade(Q["gl-multi-mig-gpus"], "A100, H100")
    assert g.verdict is Verdict.PARTIAL
    assert g.score == pytest.approx(2 / 3)
    assert "A30" in g.feedback


def test_a_wrong_choice_makes_a_multi_answer_incorrect() -> None:
    assert verdict("gl-multi-mig-gpus", "A, B, C, E") is Verdict.INCORRECT


# ---- numeric --------------------------------------------------------------


def test_seventy_is_never_seven() -> None:
    assert verdict("gl-num-a100-instances", "70") is Verdict.INCORRECT
    assert verdict("gl-num-a100-instances", "seventy") is Verdict.INCORRECT


@pytest.mark.parametrize(
    "answer", ["7", "seven", "~7", "up to 7 instances", "one A100 splits into seven"]
)
def test_seven_in_any_reasonable_form_is_seven(answer: str) -> None:
    assert verdict("gl-num-a100-instances", answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer", ["900 GB/s", "0.9 TB/s", "about 900", "nine hundred GB/s", "900 gigabytes per second"]
)
def test_bandwidth_converts_between_gb_and_tb_per_second(answer: str) -> None:
    assert verdict("gl-num-h100-nvlink", answer) is Verdict.CORRECT


def test_mb_is_not_gb() -> None:
    assert verdict("gl-num-h100-nvlink", "900 MB/s") is Verdict.INCORRECT


def test_gigabits_are_not_gigabytes_unless_the_question_allows_them() -> None:
    assert verdict("gl-num-pcie5-bw", "128 Gb/s") is Verdict.INCORRECT
    assert verdict("gl-num-pcie5-bw", "128 GB/s") is Verdict.CORRECT


def test_gib_and_gb_convert_only_where_the_question_allows() -> None:
    assert verdict("gl-num-1g5gb-gib", "5.1 GB") is Verdict.CORRECT  # 5.1 GB = 4.75 GiB
    assert verdict("gl-num-1g5gb-gib", "5 GiB") is Verdict.INCORRECT
    only_gb = numeric(80, "GB", tolerance=0.01)
    assert grade(only_gb, "74.5 GiB").verdict is Verdict.INCORRECT
    assert grade(only_gb, "80 GB").verdict is Verdict.CORRECT


def test_a_number_in_the_wrong_unit_is_not_correct() -> None:
    g = grade(Q["gl-num-a100-instances"], "7 GB")
    assert g.verdict is Verdict.INCORRECT
    assert "unit" in g.feedback


def test_the_tolerance_of_the_question_applies() -> None:
    assert verdict("gl-num-a100-40-hbm-bw", "1.6 TB/s") is Verdict.CORRECT  # 2.9% off, 5% allowed
    assert verdict("gl-num-a100-40-hbm-bw", "2 TB/s") is Verdict.INCORRECT


def test_a_hedge_between_numbers_is_not_an_answer() -> None:
    assert verdict("gl-num-a100-instances", "7 or 8") is Verdict.INCORRECT
    assert verdict("gl-num-h100-nvlink", "600 or 900 GB/s") is Verdict.INCORRECT


def test_the_result_after_an_equals_sign_is_the_answer() -> None:
    assert verdict("gl-num-dgx-h100-nvlink", "8 x 900 GB/s = 7.2 TB/s") is Verdict.CORRECT


def test_model_names_and_profiles_are_not_numbers() -> None:
    assert verdict("gl-num-a100-instances", "max 7 (1g.5gb x7) on an A100") is Verdict.CORRECT


def test_a_range_must_lie_within_the_tolerance() -> None:
    assert verdict("gl-num-adam-bytes", "16-20 bytes") is Verdict.CORRECT
    assert verdict("gl-num-adam-bytes", "2-20 bytes") is Verdict.INCORRECT


def test_an_answer_without_a_number_says_so() -> None:
    g = grade(Q["gl-num-a100-instances"], "lots")
    assert g.verdict is Verdict.INCORRECT
    assert "number" in g.feedback


# ---- short ----------------------------------------------------------------


def test_msp_is_not_mps() -> None:
    assert verdict("gl-short-mps", "MSP") is Verdict.INCORRECT
    assert verdict("gl-short-mps", "MPS") is Verdict.CORRECT


def test_mig_is_not_mps() -> None:
    assert verdict("gl-short-mps", "MIG") is Verdict.INCORRECT


def test_hbm2e_is_not_hbm2() -> None:
    assert verdict("gl-short-a100-40-hbm", "HBM2e") is Verdict.INCORRECT
    assert verdict("gl-short-a100-40-hbm", "HBM 2") is Verdict.CORRECT


def test_typos_are_forgiven_in_proportion_to_length() -> None:
    assert verdict("gl-short-mps", "Multi-Proccess Serivce") is Verdict.CORRECT
    assert verdict("gl-short-mixed-strategy", "mixd") is Verdict.CORRECT
    assert verdict("gl-short-mig-stands", "Multi Image GPU") is Verdict.INCORRECT


def test_a_missing_word_is_not_a_typo() -> None:
    assert verdict("gl-short-vgpu-license", "NVIDIA Enterprise Support") is Verdict.INCORRECT


def test_an_acronym_does_not_answer_what_it_stands_for() -> None:
    assert verdict("gl-short-mig-stands", "MIG") is Verdict.INCORRECT


def test_a_verbose_answer_containing_the_answer_is_correct() -> None:
    assert verdict("gl-short-mps", "It's MPS (Multi-Process Service)") is Verdict.CORRECT
    assert verdict("gl-short-zero3", "stage three") is Verdict.CORRECT


def test_a_denied_or_hedged_answer_is_not_correct() -> None:
    assert verdict("gl-short-mps", "not MPS, it's MIG") is Verdict.INCORRECT
    assert verdict("gl-short-mps", "MIG or MPS") is Verdict.INCORRECT


def test_a_different_generation_is_a_different_answer() -> None:
    assert verdict("gl-short-h100-nvlink-gen", "NVLink 3") is Verdict.INCORRECT
    assert verdict("gl-short-h100-nvlink-gen", "4th gen NVLink") is Verdict.CORRECT


# ---- open with a rubric ---------------------------------------------------


def test_open_answers_score_matched_weight_over_total_weight() -> None:
    g = grade(
        Q["gl-open-gang"],
        "So that all workers start at the same time; otherwise partial jobs hold GPUs.",
    )
    assert g.score == pytest.approx(0.5)
    assert g.verdict is Verdict.PARTIAL
    assert g.matched == (
        "All workers must start together, or partial placement holds GPUs idle and can deadlock",
    )
    assert len(g.missed) == 2


def test_feedback_names_the_missed_points_and_ends_with_the_source() -> None:
    g = grade(Q["gl-open-gang"], "So that all workers start at the same time.")
    assert "Names a tool" in g.feedback
    assert g.feedback.endswith(
        "See: https://kubernetes.io/docs/concepts/scheduling-eviction/gang-scheduling/"
    )


def test_time_slicing_does_not_isolate_memory_is_not_a_claim_of_isolation() -> None:
    question = Question(
        id="o", pack="t", topic="mig", roles=("eng",), difficulty=1, kind="open",
        prompt="What does MIG give?", explanation="Isolation.", sources=("https://example.org/mig",),
        rubric=(RubricPoint("Isolates memory", 1.0, ("isolate memory", "memory isolation")),),
    )  # fmt: skip
    assert grade(question, "MIG isolates memory.").verdict is Verdict.CORRECT
    assert grade(question, "Time-slicing does not isolate memory").verdict is Verdict.INCORRECT
    assert grade(question, "There is no memory isolation").verdict is Verdict.INCORRECT
    assert grade(question, "Memory isolation is not provided").verdict is Verdict.INCORRECT
    assert (
        grade(question, "No fault domain sharing, and it gives memory isolation").verdict
        is Verdict.CORRECT
    )


def test_a_none_phrase_cancels_its_point() -> None:
    assert (
        verdict("gl-open-stream-priority", "Yes, it preempts running kernels; priority is a hint.")
        is Verdict.INCORRECT
    )


def test_open_json_carries_matched_and_missed() -> None:
    data = grade(Q["gl-open-nvlink-myth"], "It's 900 GB/s per GPU.").as_dict(with_points=True)
    assert data["verdict"] == "partial"
    assert data["matched"] == ["Each H100 has 900 GB/s of NVLink 4 (18 links)"]
    assert isinstance(data["missed"], list) and len(data["missed"]) == 2


# ---- open with a model answer only ----------------------------------------


def test_reference_questions_are_graded_against_the_model_answer() -> None:
    good = grade(Q["gl-ref-whole-gpus"], Q["gl-ref-whole-gpus"].model_answer or "")
    assert good.verdict is Verdict.CORRECT
    bad = grade(Q["gl-ref-whole-gpus"], "Because whole GPUs are cheaper.")
    assert bad.verdict is not Verdict.CORRECT
    assert isinstance(bad, Grade)


# ---- every shipped question accepts its own answer -------------------------


def _shipped() -> list[Question]:
    from bot.core.content import load_packs, pack_files

    return [q for p in load_packs(pack_files()) for q in p.questions]


@pytest.mark.parametrize("question", _shipped(), ids=lambda q: q.id)
def test_every_shipped_question_accepts_its_own_answer(question: Question) -> None:
    if question.kind == "open":
        answer = question.model_answer or " ".join(
            p.any[0] for p in question.rubric if not p.any[0].startswith("re:")
        )
        if not answer.strip():
            pytest.skip("rubric of regular expressions only")
    elif question.kind == "numeric":
        answer = f"{question.value:g} {question.unit}"
    elif question.kind == "short":
        answer = question.accepted[0]
    else:
        answer = ", ".join(question.correct)
    assert grade(question, answer).verdict is Verdict.CORRECT, answer


@pytest.mark.parametrize(
    ("shorthand", "spelt"),
    [
        ("high-prio stream", "high-priority stream"),
        ("mem isolation", "memory isolation"),
        ("low util", "low utilization"),
        ("go w/ data", "go with data"),
        ("perf drops", "performance drops"),
    ],
)
def test_a_shorthand_makes_the_point_its_words_make(shorthand: str, spelt: str) -> None:
    from bot.core.content import RubricPoint

    point = RubricPoint(point="says it", weight=1.0, any=(spelt,))
    question = Question(
        id="o", pack="t", topic="mig", roles=("eng",), difficulty=1, kind="open",
        prompt="Why?", explanation="Because.", sources=("https://example.org/doc",),
        rubric=(point,),
    )  # fmt: skip
    assert grade(question, f"I think {shorthand}, really").verdict is Verdict.CORRECT
    assert grade(question, "something else entirely").verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("answer", "made"),
    [
        ("about 0.45 TB/s each way", True),
        ("450 GB/s per direction", True),
        ("450,000 MB/s", True),
        ("0.9 TB/s", False),
        ("not 0.45 TB/s", False),
        ("450 GB", False),
    ],
)
def test_a_quantity_in_a_rubric_phrase_is_compared_in_any_unit(answer: str, made: bool) -> None:
    from bot.core.content import RubricPoint

    point = RubricPoint(point="per direction", weight=1.0, any=("450 GB/s",))
    question = Question(
        id="o", pack="t", topic="mig", roles=("eng",), difficulty=1, kind="open",
        prompt="How fast?", explanation="Because.", sources=("https://example.org/doc",),
        rubric=(point,),
    )  # fmt: skip
    assert (grade(question, answer).verdict is Verdict.CORRECT) is made

"""``studybot content lint``: each rule fires on a small broken pack, naming file and question."""

from __future__ import annotations

import argparse
import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import bot.core.lint as lint
from bot.cli.content import run_lint
from bot.core.lint import lint_paths

SOURCE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html"


def _good_pack(pack: str = "mig", prefix: str = "mig") -> dict[str, Any]:
    return {
        "pack": pack,
        "title": "A good pack",
        "questions": [
            {
                "id": f"{prefix}-first-arch",
                "topic": "mig",
                "role": ["pm", "eng"],
                "difficulty": 1,
                "kind": "choice",
                "prompt": "Which architecture first offered MIG?",
                "choices": ["Volta", "Ampere", "Hopper"],
                "answer": "Ampere",
                "explanation": "MIG starts with compute capability 8.0, Ampere.",
                "sources": [SOURCE],
            },
            {
                "id": f"{prefix}-no-mig-gpus",
                "topic": "mig",
                "role": ["eng"],
                "difficulty": 2,
                "kind": "multi",
                "prompt": "Select the data-center GPUs that lack MIG support.",
                "choices": ["T4", "A10", "A100"],
                "answer": ["T4", "A10"],
                "explanation": "T4 and A10 have no MIG; A100 does.",
                "sources": [SOURCE],
            },
            {
                "id": f"{prefix}-a30-count",
                "topic": "mig",
                "role": ["eng"],
                "difficulty": 2,
                "kind": "numeric",
                "prompt": "What is the largest count of GPU instances on an A30?",
                "answer": 4,
                "tolerance": 0,
                "unit": "instances",
                "explanation": "A30 allows at most four MIG instances.",
                "sources": [SOURCE],
            },
            {
                "id": f"{prefix}-acronym",
                "topic": "mig",
                "role": ["pm"],
                "difficulty": 1,
                "kind": "short",
                "prompt": "Spell out the acronym MIG.",
                "answers": ["Multi-Instance GPU", "multi instance gpu"],
                "explanation": "MIG is NVIDIA's Multi-Instance GPU.",
                "sources": [SOURCE],
            },
            {
                "id": f"{prefix}-isolation",
                "topic": "mig",
                "role": ["pm", "eng"],
                "difficulty": 2,
                "kind": "open",
                "prompt": "What does partitioning a GPU into instances give two tenants?",
                "rubric": [
                    {
                        "point": "Dedicated memory",
                        "weight": 2,
                        "any": ["own memory", "dedicated memory"],
                    },
                    {"point": "Fault isolation", "weight": 2, "any": ["fault isolation"]},
                    {
                        "point": "Predictable performance",
                        "any": ["predictable", "quality of service"],
                    },
                ],
                "model_answer": (
                    "Each instance has its own memory and SMs. There is fault isolation between "
                    "instances. Performance is predictable."
                ),
                "explanation": "MIG instances are hardware partitions.",
                "sources": [SOURCE],
            },
        ],
    }


def _write(directory: Path, data: dict[str, Any], name: str | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name or data['pack']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _question(data: dict[str, Any], kind: str) -> dict[str, Any]:
    q: dict[str, Any] = next(q for q in data["questions"] if q["kind"] == kind)
    return q


def _lint_one(tmp_path: Path, data: dict[str, Any]) -> list[str]:
    problems, _ = lint_paths([_write(tmp_path, data)])
    return problems


def _assert_one_problem_naming(problems: list[str], qid: str, *words: str) -> None:
    assert len(problems) == 1, "\n".join(problems)
    line = problems[0]
    assert ".yaml" in line and repr(qid) in line, line
    for word in words:
        assert word in line, line


def _with_examples(q: dict[str, Any], **lists: list[str]) -> dict[str, Any]:
    q["examples"] = {label.rstrip("_"): answers for label, answers in lists.items()}
    return q


GOOD_OPEN_EXAMPLES = {
    "pass_": [
        "Own memory per instance, fault isolation, predictable latency.",
        # more than a terse note: an answer of 12 words or fewer must make every point
        "Each tenant gets dedicated memory, and there is fault isolation between them, so a"
        " crash stays in its own instance.",
    ],
    "fail": [
        "They share one memory pool and a crash takes both down.",
        "Nothing: it is only a scheduling trick.",
        "Predictable, nothing more.",
    ],
    "partial": ["Each one has its own memory."],
}


def test_a_good_pack_passes(tmp_path: Path) -> None:
    problems, count = lint_paths([_write(tmp_path, _good_pack())])
    assert problems == []
    assert count == 5


def test_a_schema_violation_names_the_file_and_question(tmp_path: Path) -> None:
    data = _good_pack()
    del data["questions"][0]["explanation"]
    problems = _lint_one(tmp_path, data)
    _assert_one_problem_naming(problems, "mig-first-arch", "explanation")


def test_a_choice_answer_missing_from_the_choices_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "choice")["answer"] = "Pascal"
    _assert_one_problem_naming(
        _lint_one(tmp_path, data), "mig-first-arch", "not one of the choices"
    )


def test_a_multi_answer_outside_the_choices_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "multi")["answer"] = ["T4", "L40S"]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-no-mig-gpus", "'L40S'")


def test_a_multi_question_with_every_choice_correct_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "multi")["answer"] = ["T4", "A10", "A100"]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-no-mig-gpus", "every choice")


def test_a_numeric_question_without_a_unit_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "numeric")["unit"] = ""
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-a30-count", "no unit")


def test_a_numeric_question_without_a_tolerance_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    del _question(data, "numeric")["tolerance"]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-a30-count", "tolerance")


def test_a_numeric_tolerance_that_accepts_almost_anything_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "numeric")["tolerance"] = 0.5
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-a30-count", "tolerance 0.5")


@pytest.mark.parametrize("source", ["ftp://example.org/doc", "see the MIG guide"])
def test_a_source_that_is_not_an_http_url_is_reported(tmp_path: Path, source: str) -> None:
    data = _good_pack()
    data["questions"][0]["sources"] = [source]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-first-arch", "sources")


def test_a_source_without_a_real_host_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    data["questions"][0]["sources"] = ["https://intranet/wiki/mig"]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-first-arch", "not an http(s) URL")


def test_a_question_id_used_in_two_packs_is_reported(tmp_path: Path) -> None:
    first = _write(tmp_path, _good_pack("mig"))
    other = _good_pack("mig-extra", prefix="mig-extra")
    other["questions"] = [copy.deepcopy(_good_pack()["questions"][0])]
    other["questions"][0]["prompt"] = "Name the GPU generation where MIG began."
    problems, _ = lint_paths([first, _write(tmp_path, other)])
    _assert_one_problem_naming(problems, "mig-first-arch", "also used in")


def test_near_duplicate_prompts_across_packs_are_reported(tmp_path: Path) -> None:
    first = _write(tmp_path, _good_pack("mig"))
    other = _good_pack("mig-copy", prefix="mig-copy")
    other["questions"] = [copy.deepcopy(_good_pack(prefix="mig-copy")["questions"][0])]
    other["questions"][0]["prompt"] = "Which architecture first offered MIG ?!"
    problems, _ = lint_paths([first, _write(tmp_path, other)])
    _assert_one_problem_naming(
        problems, "mig-first-arch", "near-duplicate", "'mig-copy-first-arch'"
    )


def test_differently_worded_prompts_on_one_topic_are_not_duplicates(tmp_path: Path) -> None:
    data = _good_pack()
    extra = copy.deepcopy(data["questions"][0])
    extra["id"] = "mig-first-arch-h100"
    extra["prompt"] = "On which GPU family did NVIDIA add concurrent MIG profiling?"
    extra["choices"] = ["Ampere", "Hopper"]
    extra["answer"] = "Hopper"
    data["questions"].append(extra)
    assert _lint_one(tmp_path, data) == []


def test_prompt_graded_as_its_own_answer_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    q = _question(data, "open")
    q["prompt"] = (
        "Explain the dedicated memory, fault isolation and predictable performance of MIG."
    )
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-isolation", "prompt itself")


def test_a_short_answer_given_away_by_the_prompt_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "short")["prompt"] = "Is MIG short for Multi-Instance GPU?"
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-acronym", "prompt itself")


def test_a_model_answer_that_fails_its_own_rubric_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "open")["model_answer"] = "Instances are predictable."
    _assert_one_problem_naming(
        _lint_one(tmp_path, data), "mig-isolation", "model answer grades", "Fault isolation"
    )


def test_a_rubric_with_too_few_points_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    q = _question(data, "open")
    q["rubric"] = q["rubric"][:2]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-isolation", "2 point(s)")


def test_a_short_answer_the_grader_cannot_read_is_reported(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "short")["answers"] = ["the", "Multi-Instance GPU"]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-acronym", "right answer 'the'")


def test_an_unreadable_pack_is_reported_and_the_others_still_linted(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("pack: [unclosed\n", encoding="utf-8")
    data = _good_pack()
    _question(data, "numeric")["unit"] = ""
    _write(tmp_path, data)
    problems, count = lint_paths([tmp_path])
    assert count == 5
    assert any("broken.yaml" in p and "not valid YAML" in p for p in problems), problems
    assert any("'mig-a30-count'" in p and "no unit" in p for p in problems), problems


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    data = _good_pack()
    _question(data, "numeric")["unit"] = ""
    _question(data, "multi")["answer"] = ["T4", "A10", "A100"]
    _question(data, "open")["model_answer"] = "Instances are predictable."
    problems = _lint_one(tmp_path, data)
    assert len(problems) == 3, "\n".join(problems)


def test_imported_packs_may_use_their_own_topics(tmp_path: Path) -> None:
    data = _good_pack("anki-deck", prefix="card")
    for q in data["questions"]:
        q["topic"] = "anki"
    del _question(data, "open")["rubric"]
    assert _lint_one(tmp_path, data) == []


def test_shipped_packs_must_use_the_known_topics_and_their_own_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lint, "PACKS_DIR", tmp_path)
    data = _good_pack()
    _with_examples(_question(data, "open"), **GOOD_OPEN_EXAMPLES)
    data["questions"][0]["topic"] = "gpu-trivia"
    data["questions"][1]["id"] = "trivia-no-mig-gpus"
    problems = _lint_one(tmp_path, data)
    assert len(problems) == 2, "\n".join(problems)
    assert "'mig-first-arch'" in problems[0] and "'gpu-trivia'" in problems[0]
    assert "'trivia-no-mig-gpus'" in problems[1] and "pack id" in problems[1]


def test_shipped_open_questions_need_a_model_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lint, "PACKS_DIR", tmp_path)
    data = _good_pack()
    _with_examples(_question(data, "open"), **GOOD_OPEN_EXAMPLES)
    del _question(data, "open")["model_answer"]
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-isolation", "no model_answer")


def test_no_pack_files_is_a_problem(tmp_path: Path) -> None:
    problems, count = lint_paths([tmp_path])
    assert count == 0
    assert problems and "no pack files" in problems[0]


def test_the_cli_exits_1_with_a_readable_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _good_pack()
    _question(data, "numeric")["unit"] = ""
    path = _write(tmp_path, data)
    assert run_lint(argparse.Namespace(paths=[path])) == 1
    err = capsys.readouterr().err
    assert "1 problem(s) in 5 question(s)" in err
    assert "'mig-a30-count'" in err and "no unit" in err


def test_the_cli_exits_0_on_a_good_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_lint(argparse.Namespace(paths=[_write(tmp_path, _good_pack())])) == 0
    assert "ok: 5 questions" in capsys.readouterr().out


def test_examples_that_hold_are_counted_and_raise_no_problem(tmp_path: Path) -> None:
    data = _good_pack()
    _with_examples(_question(data, "open"), **GOOD_OPEN_EXAMPLES)
    _with_examples(_question(data, "choice"), pass_=["B", "ampere"], fail=["Volta", "A or B"])
    report = lint.lint_report([_write(tmp_path, data)])
    assert report.problems == []
    assert (report.examples, report.examples_held) == (10, 10)


def test_a_fail_example_that_passes_is_reported_with_its_score_and_matched_points(
    tmp_path: Path,
) -> None:
    data = _good_pack()
    examples = dict(
        GOOD_OPEN_EXAMPLES,
        fail=["It has dedicated memory and fault isolation, so we are all set and good to go."],
    )
    _with_examples(_question(data, "open"), **examples)
    report = lint.lint_report([_write(tmp_path, data)])
    _assert_one_problem_naming(
        report.problems,
        "mig-isolation",
        "fail example 1",
        "'It has dedicated memory and fault isolation, so we are all set and good to go.'",
        "grades correct, not incorrect",
        "score 0.80",
        "matched: Dedicated memory; Fault isolation",
    )
    assert (report.examples, report.examples_held) == (4, 3)


def test_a_pass_example_that_fails_and_a_partial_that_passes_are_both_reported(
    tmp_path: Path,
) -> None:
    data = _good_pack()
    examples = dict(
        GOOD_OPEN_EXAMPLES,
        pass_=["It is faster."],
        partial=["Own memory, fault isolation and predictable latency."],
    )
    _with_examples(_question(data, "open"), **examples)
    problems = _lint_one(tmp_path, data)
    assert len(problems) == 2, "\n".join(problems)
    assert "pass example 1" in problems[0] and "grades incorrect, not correct" in problems[0]
    assert "matched: none" in problems[0]
    assert "partial example 1" in problems[1] and "grades correct, not partial" in problems[1]


def test_examples_of_a_numeric_question_are_graded_too(tmp_path: Path) -> None:
    data = _good_pack()
    _with_examples(_question(data, "numeric"), pass_=["4 instances"], fail=["7"])
    assert _lint_one(tmp_path, data) == []
    _with_examples(_question(data, "numeric"), pass_=["four"], fail=["4"])
    _assert_one_problem_naming(
        _lint_one(tmp_path, data), "mig-a30-count", "fail example 1 ('4')", "score 1.00"
    )


def test_a_long_example_is_quoted_short_in_the_report(tmp_path: Path) -> None:
    data = _good_pack()
    long_answer = "Dedicated memory and fault isolation. " + "More words here. " * 20
    _with_examples(_question(data, "open"), fail=[long_answer])
    (line,) = _lint_one(tmp_path, data)
    assert "More words here. More" in line and "…'" in line
    assert len(line) < len(long_answer) + 200


@pytest.mark.parametrize(
    ("examples", "words"),
    [
        ({"pass": ["ok"], "wrong": ["x"]}, ("examples", "unknown field")),
        ({"fail": "Volta"}, ("examples.fail", "not of type 'array'")),
        ({"pass": ["  "]}, ("examples.pass.0", "does not match")),
    ],
)
def test_badly_formed_examples_are_schema_problems(
    tmp_path: Path, examples: dict[str, Any], words: tuple[str, ...]
) -> None:
    data = _good_pack()
    data["questions"][0]["examples"] = examples
    _assert_one_problem_naming(_lint_one(tmp_path, data), "mig-first-arch", *words)


def test_examples_do_not_change_the_content_hash(tmp_path: Path) -> None:
    from bot.core.content import load_pack

    data = _good_pack()
    before = load_pack(_write(tmp_path, data)).questions
    _with_examples(_question(data, "open"), **GOOD_OPEN_EXAMPLES)
    after = load_pack(_write(tmp_path, data)).questions
    assert [q.content_hash for q in before] == [q.content_hash for q in after]
    assert after[-1].examples.partial == ("Each one has its own memory.",)
    assert before == after  # examples test a question; they are not part of what grades it


def test_the_cli_reports_how_many_examples_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _good_pack()
    _with_examples(_question(data, "open"), **GOOD_OPEN_EXAMPLES)
    path = _write(tmp_path, data)
    assert run_lint(argparse.Namespace(paths=[path])) == 0
    assert "ok: 5 questions, 6 of 6 examples hold" in capsys.readouterr().out
    _question(data, "open")["examples"]["fail"].append("Own memory, fault isolation, predictable.")
    _write(tmp_path, data)
    assert run_lint(argparse.Namespace(paths=[path])) == 1
    err = capsys.readouterr().err
    assert "1 problem(s) in 5 question(s); 6 of 7 examples hold" in err
    assert "fail example 4" in err and "grades correct" in err


@pytest.mark.parametrize(
    ("passing", "failing", "have"),
    [(1, 3, "1 pass and 3 fail"), (2, 2, "2 pass and 2 fail"), (0, 0, "0 pass and 0 fail")],
)
def test_shipped_open_questions_need_two_pass_and_three_fail_examples(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    passing: int,
    failing: int,
    have: str,
) -> None:
    monkeypatch.setattr(lint, "PACKS_DIR", tmp_path)
    data = _good_pack()
    q = _with_examples(_question(data, "open"), **GOOD_OPEN_EXAMPLES)
    q["examples"]["pass"] = q["examples"]["pass"][:passing]
    q["examples"]["fail"] = q["examples"]["fail"][:failing]
    _assert_one_problem_naming(
        _lint_one(tmp_path, data), "mig-isolation", have, "at least 2 pass and 3 fail"
    )


def test_imported_open_questions_need_no_examples(tmp_path: Path) -> None:
    data = _good_pack("anki-deck", prefix="card")
    for q in data["questions"]:
        q["topic"] = "anki"
    assert "examples" not in _question(data, "open")
    assert _lint_one(tmp_path, data) == []


def _all_pairs(texts: list[str]) -> set[tuple[int, int]]:
    from rapidfuzz import fuzz, utils

    return {
        (i, j)
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
        if fuzz.token_sort_ratio(texts[i], texts[j], processor=utils.default_process)
        >= lint.DUPLICATE_THRESHOLD
    }


def _edited(prompt: str, how: int) -> str:
    words = prompt.split()
    if how == 0:  # the words in another order
        return " ".join(reversed(words))
    if how == 1:  # two letters swapped in the two longest words
        for at in sorted(range(len(words)), key=lambda k: -len(words[k]))[:2]:
            word = words[at]
            words[at] = word[0] + word[2] + word[1] + word[3:] if len(word) > 3 else word
        return " ".join(words)
    if how == 2:  # one word left out
        return " ".join(words[:-2] + words[-1:]) if len(words) > 2 else prompt
    return prompt + " ?"  # punctuation only


def test_the_near_duplicate_search_finds_what_scoring_every_pair_finds() -> None:
    from bot.core.content import PACKS_DIR, load_pack, pack_files

    shipped = [q.prompt for f in pack_files(PACKS_DIR) for q in load_pack(f).questions]
    texts = shipped + [_edited(p, k % 4) for k, p in enumerate(shipped)]
    expected = _all_pairs(texts)
    found = lint.near_duplicate_pairs(texts)
    assert len(expected) >= len(shipped) * 3 // 4  # the edits are near-duplicates
    assert {(i, j) for i, j, _ in found} == expected
    assert all(score >= lint.DUPLICATE_THRESHOLD for _, _, score in found)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["mig", "gpu", "slice", "memory", "seven", "the", "a", "mps"]),
            min_size=1,
            max_size=8,
        ).map(" ".join),
        max_size=12,
    )
)
def test_near_duplicate_pairs_are_real_and_a_reordered_copy_is_always_found(
    texts: list[str],
) -> None:
    everything = texts + [" ".join(reversed(t.split())) for t in texts]
    found = {(i, j) for i, j, _ in lint.near_duplicate_pairs(everything)}
    assert found <= _all_pairs(everything)
    n = len(texts)
    assert all((k, k + n) in found for k in range(n))


def test_an_imported_pack_is_checked_against_the_bank_without_linting_the_bank_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _write(tmp_path, _good_pack("mig"))
    copied = _good_pack("mig-copy", prefix="mig-copy")
    copied["questions"] = [copy.deepcopy(copied["questions"][0])]
    copied["questions"][0]["prompt"] = "Which architecture first offered MIG?!"
    graded: list[str] = []
    real = lint.example_problems
    monkeypatch.setattr(lint, "example_problems", lambda q: graded.append(q.id) or real(q))
    from bot.core.content import load_pack

    problems = lint.problems_beside(load_pack(_write(tmp_path, copied)), [load_pack(first)])
    _assert_one_problem_naming(problems, "mig-copy-first-arch", "near-duplicate")
    assert graded == []

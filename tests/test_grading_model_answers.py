"""``model_answer`` may be a list of alternative reference answers: any one suffices and the
best match wins (schema, loader and reference grading)."""

from __future__ import annotations

from pathlib import Path

from bot.core.content import load_pack
from bot.core.grading import Verdict, grade

PACK = """
pack: alt
title: Alternatives
questions:
  - id: alt-why-mig
    topic: mig
    role: [eng]
    difficulty: 1
    kind: open
    prompt: "Why would you choose MIG for two untrusted tenants?"
    model_answer:
      - "Each tenant gets its own hardware partition with dedicated memory and compute."
      - "A crash or error in one tenant cannot reach the other tenant."
    explanation: "MIG isolates memory, cache and faults per instance."
    sources: ["https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"]
  - id: alt-one
    topic: mig
    role: [eng]
    difficulty: 1
    kind: open
    prompt: "Why would you choose MIG for two untrusted tenants?"
    model_answer: "Each tenant gets its own hardware partition with dedicated memory and compute."
    explanation: "MIG isolates memory, cache and faults per instance."
    sources: ["https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"]
"""

SECOND = "A crash or error in one tenant cannot reach the other tenant."


def test_a_list_of_model_answers_loads_and_the_first_is_shown(tmp_path: Path) -> None:
    path = tmp_path / "alt.yaml"
    path.write_text(PACK, encoding="utf-8")
    alternatives, single = load_pack(path).questions
    assert len(alternatives.model_answers) == 2
    assert alternatives.answer_text == alternatives.model_answers[0]
    assert single.model_answers == (single.model_answer,)


def test_an_answer_matching_any_alternative_passes(tmp_path: Path) -> None:
    path = tmp_path / "alt.yaml"
    path.write_text(PACK, encoding="utf-8")
    alternatives, single = load_pack(path).questions
    assert grade(alternatives, SECOND).verdict is Verdict.CORRECT
    assert grade(alternatives, alternatives.model_answers[0]).verdict is Verdict.CORRECT
    assert grade(single, SECOND).verdict is not Verdict.CORRECT
    assert grade(alternatives, "Because it is cheaper.").verdict is not Verdict.CORRECT

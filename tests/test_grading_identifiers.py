"""Identifiers (labels, resource names, environment variables, type names) are answered
exactly: a near miss names another thing, not a typo of the right one."""

from __future__ import annotations

import pytest

from bot.core.content import Question
from bot.core.grading import Verdict, grade


def short(*accepted: str) -> Question:
    return Question(
        id="s", pack="t", topic="mig", roles=("eng",), difficulty=1, kind="short",
        prompt="Which?", explanation="Because.", sources=("https://example.org/doc",),
        accepted=accepted,
    )  # fmt: skip


LABEL = short("nvidia.com/mig.config", "mig.config")
VARIABLE = short("CUDA_MPS_PIPE_DIRECTORY", "pipe directory")
TYPE = short("A100X-80C", "a100x 80c")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (LABEL, "nvidia.com/mig.config"),
        (LABEL, "set nvidia.com/mig.config=all-1g.10gb on the node"),
        (LABEL, "`mig.config`"),
        (VARIABLE, "cuda_mps_pipe_directory"),
        (VARIABLE, "the pipe directory variable"),
        (TYPE, "A100X-80C"),
    ],
)
def test_the_identifier_itself_is_right(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (LABEL, "nvidia.com/mig.config.state"),
        (LABEL, "nvidia.com/mig-config"),
        (VARIABLE, "CUDA_MPS_PIPE_DIRECTORIES"),
        (VARIABLE, "CUDA_MPS_LOG_DIRECTORY"),
        (TYPE, "A100-80C"),
    ],
)
def test_a_near_miss_of_an_identifier_is_wrong(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is Verdict.INCORRECT

"""Choice answers that give the gist in a few words of their own: a short answer whose
words that any choice uses all belong to one choice names it; a choice mentioned in a
denying part is an exception, not a second pick (and, when the question asks what does
not hold, the denied part is the pick); "un-" words deny the word the choices use."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.content import Question, question_from_dict
from bot.core.grading import Verdict, grade


def make(kind: str, prompt: str, choices: list[str], answer: Any) -> Question:
    return question_from_dict(
        {
            "id": "q",
            "topic": "t",
            "role": ["eng"],
            "difficulty": 1,
            "kind": kind,
            "prompt": prompt,
            "choices": choices,
            "answer": answer,
            "explanation": "Because.",
            "sources": ["https://example.com"],
        },
        "t",
    )


LOCKS = make(
    "choice",
    "What does the cache layer do when two writers race on one key?",
    [
        "The later write waits on a per-key lock, then overwrites the earlier value",
        "Both writes are merged field by field",
        "The earlier write is rolled back with an error",
        "Nothing: writes race and one is lost at random",
    ],
    "The later write waits on a per-key lock, then overwrites the earlier value",
)
TOOLS = make(
    "choice",
    "Which tool shows per-tenant disk latency on the storage nodes?",
    [
        "iostat's await column",
        "The tenant exporter (for example tenant-io-exporter)",
        "The kernel's dmesg log",
        "free -m inside the pod",
    ],
    "The tenant exporter (for example tenant-io-exporter)",
)
BACKUPS = make(
    "choice",
    "Which backup mode cannot be used for a volume that is being resized?",
    ["Snapshot mode", "Streaming mode", "Incremental mode", "All three work"],
    "Snapshot mode",
)
REVIEW = make(
    "multi",
    "Which belong in a good incident review? Select all that apply.",
    [
        "A timeline of what happened",
        "Actions and who owns them",
        "What to watch next time",
        "Who to blame",
        "Figures quoted without sources",
    ],
    ["A timeline of what happened", "Actions and who owns them", "What to watch next time"],
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (LOCKS, "it waits on the lock"),
        (LOCKS, "per-key locking, later one overwrites"),
        (TOOLS, "the exporter"),
        (TOOLS, "the exporter, iostat can't show that"),
        (BACKUPS, "snapshot can't; streaming and incremental are fine"),
        (REVIEW, "everything except the blame and the unsourced figures"),
    ],
)
def test_the_gist_of_the_right_choice_is_correct(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (LOCKS, "they get merged"),  # words of a wrong choice
        (LOCKS, "one is lost, no lock"),  # denies the right choice's word
        (TOOLS, "iostat, the exporter can't show that"),  # the exception reversed
        (BACKUPS, "streaming can't; snapshot and incremental are fine"),
        (REVIEW, "everything except the timeline and the unsourced figures"),
    ],
)
def test_the_gist_of_a_wrong_choice_is_not_correct(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is not Verdict.CORRECT


def test_a_short_answer_with_words_of_two_choices_names_neither() -> None:
    # "write" is in the right choice and in a wrong one: no choice is clearly named.
    result = grade(LOCKS, "the write is rolled back after it waits")
    assert result.verdict is not Verdict.CORRECT

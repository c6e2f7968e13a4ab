"""Choice answers that give the gist in a few words of their own: a short answer whose
words that any choice uses all belong to one choice names it; a choice mentioned in a
denying part is an exception, not a second pick (and, when the question asks what does
not hold, the denied part is the pick); "un-" words deny the word the choices use."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.content import Question
from bot.core.grading import Verdict, grade
from tests.support import choice_question


def make(kind: str, prompt: str, choices: list[str], answer: Any) -> Question:
    return choice_question(kind, choices, answer, prompt=prompt)


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


DRIVERS = make(
    "choice",
    "Which driver is the minimum for the new board?",
    ["R580.82.07", "R570.133.20", "R550.90.07", "R525.85.12"],
    "R580.82.07",
)
PLACEMENT = make(
    "choice",
    "Where may two VMs talk peer-to-peer over the switch?",
    [
        "Time-sliced vGPUs only, and both must be in the same VM",
        "MIG-backed vGPUs only",
        "Any vGPUs in any VMs",
        "Nowhere: the switch is invisible to vGPUs",
    ],
    "Time-sliced vGPUs only, and both must be in the same VM",
)
QUEUE = make(
    "multi",
    "Which statements about the queue are true? Select all that apply.",
    [
        "Lower numbers run first",
        "Out-of-range values are clamped",
        "A new job preempts running jobs",
        "Ordering holds across all hosts",
    ],
    ["Lower numbers run first", "Out-of-range values are clamped"],
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (DRIVERS, "the 580 branch one"),  # a version by its branch, "one" standing for it
        (PLACEMENT, "only time-sliced vgpus"),  # "vgpus" is "vgpu"
        (QUEUE, "all but the preemption one and the hosts one"),  # "preemption" is "preempts"
    ],
)
def test_versions_plurals_and_word_forms_name_the_choice(question: Question, answer: str) -> None:
    assert grade(question, answer).verdict is Verdict.CORRECT


def test_the_opposite_of_a_choice_word_elsewhere_in_the_answer_names_no_choice() -> None:
    # The first part fits the right choice, the second says the opposite of "same VM".
    result = grade(PLACEMENT, "time-sliced only, and they can sit in different VMs")
    assert result.verdict is not Verdict.CORRECT


def test_leaving_out_a_right_choice_is_not_correct() -> None:
    assert grade(QUEUE, "all but the clamping one").verdict is not Verdict.CORRECT


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("snapshot — streaming and incremental are ok", Verdict.CORRECT),
        ("snapshot mode; streaming mode and incremental mode work", Verdict.CORRECT),
        ("streaming — snapshot and incremental are ok", Verdict.INCORRECT),
    ],
)
def test_asked_what_cannot_the_choices_said_to_be_fine_are_exceptions(
    answer: str, verdict: Verdict
) -> None:
    assert grade(BACKUPS, answer).verdict is verdict


HOSTS = make(
    "choice",
    "How do two sandboxes on one machine exchange data?",
    [
        "Through host memory: sandboxes have no shared pages, no direct channel, and IPC "
        "handles do not work across them",
        "Over a direct channel at full speed",
        "Through IPC handles, as in one process",
        "Through the shared cache",
    ],
    "Through host memory: sandboxes have no shared pages, no direct channel, and IPC "
    "handles do not work across them",
)


def test_a_few_words_that_only_a_long_choice_has_name_it() -> None:
    assert grade(HOSTS, "via host RAM").verdict is Verdict.CORRECT
    assert grade(HOSTS, "they bounce it through the host").verdict is Verdict.CORRECT


def test_a_few_words_shared_with_a_wrong_choice_name_neither() -> None:
    assert grade(HOSTS, "a direct channel").verdict is not Verdict.CORRECT
    assert grade(HOSTS, "the shared cache").verdict is not Verdict.CORRECT


PLACE = make(
    "choice",
    "Where should an 8-worker job that talks constantly run?",
    [
        "All 8 workers on one host, so their traffic stays on the fast bus",
        "One worker on each of 8 hosts, to spread risk",
        "Any 8 free workers, placement does not matter",
        "Eight containers on one core",
    ],
    "All 8 workers on one host, so their traffic stays on the fast bus",
)


def test_words_shared_with_other_choices_beside_one_only_this_choice_has_name_it() -> None:
    # "one host" is also in other choices; "fast bus" only in the right one.
    assert grade(PLACE, "pack it on one host with the fast bus").verdict is Verdict.CORRECT
    # Every word fits a wrong choice: "spread", "each".
    assert grade(PLACE, "spread them, one on each host").verdict is not Verdict.CORRECT


OFFER = make(
    "choice",
    "A customer wants a guaranteed half of a shared disk. What is the best response?",
    [
        "Explain that thin pools cannot guarantee throughput, and offer a quota volume",
        "Agree, and handle complaints later",
        "Refuse without explanation",
        "Promise the guarantee and double the replicas",
    ],
    "Explain that thin pools cannot guarantee throughput, and offer a quota volume",
)


def test_an_answer_that_denies_part_of_its_best_fit_and_fits_another_names_none() -> None:
    # It asserts the guarantee the right choice denies, and agrees like a wrong one.
    assert grade(OFFER, "agree to thin pools but explain the guarantee").verdict is not (
        Verdict.CORRECT
    )
    assert grade(OFFER, "explain thin pools can't guarantee it, offer a quota").verdict is (
        Verdict.CORRECT
    )

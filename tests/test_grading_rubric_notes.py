"""Open answers written as notes, and the small forms notes take (grader 1.5).

- A line break ends a claim, as a full stop does: "MEMC snapshots\\nRDB memory only" is two
  claims, one about each subject, not one clause that names both and compares them.
- A label with a dash after it at the start of a line is read with what follows it, as one
  with a colon: "WAL - appends each change".
- A subject named by several words may be typed as its initials ("SP" for "Shared Pool"),
  unless they spell a common word.
- A four-letter plural in a phrase also matches its singular ("8 gpus" in "an 8-GPU box"),
  and an adverb that only softens or stresses may stand between a phrase's words ("can still
  grab nearly all of it" for "grab all").
- A one-word phrase with the prefix "un-" ("untrusted") is also made by a denial of its root
  ("tenants that don't trust each other").
- A phrase that opens with a denial ("not exactly half", "no memory limit") is also made by
  any denial of the rest of its words ("neither is exactly half", "no hard memory limit").
- An answer of 12 words or fewer passes only when it makes every point: a short note that
  leaves a point out is partial, whatever its share of the weight.
- A denial after a phrase denies it only within its own claim: "find where it came from, so it
  doesn't happen again" still finds where it came from.
- An object pronoun in a phrase ("it preempts") stands for any word but a denial: "it doesn't
  preempt" is not "it preempts".
- A subject given a property that another point also names is not a swap when the answer
  says the subject's own property too ("Proxy server: also one fault domain: a fatal error
  hits every client").
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.grading import Verdict, grade
from tests.support import points_made, rubric_question
from tests.test_grading_rubric_terse import LOGS

CACHES = rubric_question(
    "Compare the two caches for a team that needs persistence.",
    [
        {"point": "RDB: snapshots to disk", "any": ["snapshot", "snapshots", "persist"]},
        {"point": "MEMC: memory only, lost on restart", "any": ["memory only", "volatile"]},
    ],
)
FAILURES = rubric_question(
    "How do failures spread under each way of sharing a server?",
    [
        {
            "point": "Shared Pool: one fault domain, a crash takes down all sharers",
            "any": ["one fault domain", "all sharers"],
        },
        {"point": "Proxy Server: a fatal error hits every client", "any": ["every client"]},
        {"point": "Sandbox VM: a failure stays in its sandbox", "any": ["contained", "stays in"]},
    ],
)
TENANTS = rubric_question(
    "Which tenants should not share a server?",
    [
        {"point": "Untrusted tenants get their own server", "any": ["untrusted", "strangers"]},
        {"point": "Big jobs take 8 GPUs of one box", "any": ["8 gpus"]},
        {"point": "Any tenant can take all the memory", "any": ["grab all", "use all"]},
    ],
)


def test_a_line_break_ends_a_claim() -> None:
    # On one line the two names would be one clause that compares them; on two lines each
    # line is a claim about its own subject, and this one swaps them.
    answer = "MEMC snapshots to disk\nRDB memory only"
    assert points_made(CACHES, answer) == []
    assert len(points_made(CACHES, "RDB snapshots to disk\nMEMC memory only")) == 2


@pytest.mark.parametrize(
    "answer",
    [
        "WAL - appends each change\nSQL - slow queries over a threshold",
        "- WAL - appends each change - first\n- SQL -> anything over the threshold",
    ],
)
def test_a_label_with_a_dash_is_read_with_what_follows_it(answer: str) -> None:
    assert grade(LOGS, answer).verdict is Verdict.CORRECT


def test_a_subject_of_several_words_may_be_typed_as_its_initials() -> None:
    pool = "Shared Pool: one fault domain, a crash takes down all sharers"
    assert pool in points_made(FAILURES, "sp: one fault domain. ps: every client dies")
    # "ps" is the proxy server: a claim about it is not about the shared pool.
    assert pool not in points_made(FAILURES, "ps: one fault domain")


def test_initials_about_another_subject_are_not_the_subject() -> None:
    # "sp" names the Shared Pool: the sandbox point is not made by a claim about it.
    points = points_made(FAILURES, "sp: contained")
    assert "Sandbox VM: a failure stays in its sandbox" not in points


def test_a_shared_property_said_with_its_own_is_no_swap() -> None:
    answer = (
        "Shared Pool: one fault domain. Proxy server: also one fault domain: a fatal error"
        " hits every client. Sandbox VM: contained."
    )
    assert grade(FAILURES, answer).verdict is Verdict.CORRECT
    assert len(points_made(FAILURES, answer)) == 3


def test_a_property_of_another_point_alone_is_still_a_swap() -> None:
    # The proxy is only given the shared pool's property: its own point is not made.
    points = points_made(FAILURES, "Proxy server: one fault domain. Sandbox VM: contained.")
    assert "Proxy Server: a fatal error hits every client" not in points


@pytest.mark.parametrize(
    "answer",
    [
        "keep apart tenants that don't trust each other",
        "tenants who are not trusted",
        "tenants who never trusted the operator",
    ],
)
def test_a_denial_of_an_un_words_root_makes_it(answer: str) -> None:
    assert points_made(TENANTS, answer) == ["Untrusted tenants get their own server"]


@pytest.mark.parametrize("answer", ["tenants that trust each other", "trusted tenants only"])
def test_the_root_alone_does_not_make_an_un_word(answer: str) -> None:
    assert points_made(TENANTS, answer) == []


@pytest.mark.parametrize("answer", ["big jobs take an 8-GPU box", "8 gpu per job"])
def test_a_short_plural_matches_its_singular(answer: str) -> None:
    assert points_made(TENANTS, answer) == ["Big jobs take 8 GPUs of one box"]


@pytest.mark.parametrize(
    "answer", ["one tenant can still grab nearly all of it", "a pod may use almost all of it"]
)
def test_a_softening_adverb_may_stand_between_a_phrases_words(answer: str) -> None:
    assert points_made(TENANTS, answer) == ["Any tenant can take all the memory"]


def test_a_denial_is_no_softening_adverb() -> None:
    assert points_made(TENANTS, "no tenant can grab not all of it") == []


HALVES = rubric_question(
    "Can a partition be sold as exactly half of the accelerator?",
    [
        {"point": "Not exactly half the compute", "any": ["not exactly half"]},
        {"point": "Pods get no memory limit", "any": ["no memory limit"]},
    ],
)


@pytest.mark.parametrize(
    ("answer", "point"),
    [
        ("neither profile is exactly half", "Not exactly half the compute"),
        ("it isn't exactly half of the SMs", "Not exactly half the compute"),
        ("there's no hard memory limit per pod", "Pods get no memory limit"),
        ("pods don't get a memory limit", "Pods get no memory limit"),
    ],
)
def test_a_denial_of_the_rest_of_a_denied_phrase_makes_it(answer: str, point: str) -> None:
    assert points_made(HALVES, answer) == [point]


@pytest.mark.parametrize(
    "answer", ["it is exactly half", "each pod has a memory limit", "exactly half, no doubt"]
)
def test_the_rest_of_a_denied_phrase_asserted_makes_nothing(answer: str) -> None:
    assert points_made(HALVES, answer) == []


NOTES = rubric_question(
    "What does partitioning a GPU into instances give two tenants?",
    [
        {"point": "Dedicated memory", "weight": 2, "any": ["own memory", "dedicated memory"]},
        {"point": "Fault isolation", "weight": 2, "any": ["fault isolation"]},
        {"point": "Predictable performance", "any": ["predictable"]},
    ],
)


def test_a_short_note_that_leaves_a_point_out_is_partial() -> None:
    result = grade(NOTES, "dedicated memory, fault isolation")
    assert result.verdict is Verdict.PARTIAL
    assert result.score < NOTES.pass_score
    assert "Predictable performance" in result.feedback


def test_a_short_note_that_makes_every_point_passes() -> None:
    answer = "dedicated memory, fault isolation, predictable"
    assert grade(NOTES, answer).verdict is Verdict.CORRECT


def test_a_longer_answer_that_leaves_a_point_out_still_passes() -> None:
    answer = (
        "Each tenant gets its own dedicated memory, and there is fault isolation between the"
        " two of them, so one crash stays put."
    )
    assert len(answer.split()) > 12
    assert grade(NOTES, answer).verdict is Verdict.CORRECT


@given(st.lists(st.sampled_from(["dedicated memory", "fault isolation", "and", "so"]), max_size=5))
def test_a_short_note_is_never_correct_with_a_point_missing(words: list[str]) -> None:
    answer = " ".join(words)
    if not answer.strip() or "predictable" in answer:
        return
    assert grade(NOTES, answer).verdict is not Verdict.CORRECT


CAUSES = rubric_question(
    "A deck quoted a wrong figure. What do you do?",
    [
        {"point": "Finds where the figure came from", "any": ["came from", "traced it"]},
        {
            "point": "Priority does not preempt",
            "any": ["no preemption", "does not preempt"],
            "none": ["it preempts"],
        },
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "find out where it came from so it doesn't happen again",
        "I traced it and then nothing like it happened again",
    ],
)
def test_a_denial_in_a_following_claim_denies_nothing_before_it(answer: str) -> None:
    assert points_made(CAUSES, answer) == ["Finds where the figure came from"]


def test_a_denial_right_after_a_phrase_still_denies_it() -> None:
    assert points_made(CAUSES, "where it came from is not known") == []


def test_an_object_pronoun_in_a_phrase_is_no_denial() -> None:
    assert points_made(CAUSES, "it doesn't preempt running kernels") == [
        "Priority does not preempt"
    ]
    assert points_made(CAUSES, "it preempts them, so no preemption worries") == []


@given(st.text(alphabet="abc \n-:", max_size=40))
def test_notes_never_break_the_grader(answer: str) -> None:
    if answer.strip():
        assert grade(LOGS, answer).verdict in set(Verdict)

"""Open answers graded by a rubric: who a claim is about, and negative facts.

When rubric points are about named things ("Redis: ...", "Memcached: ..."), a phrase in
a clause about another of them does not make the point, and a point whose subject is
given another point's property is not made. A point phrased as a negative fact ("does not
block") is made by any denial of the same word ("readers aren't blocked")."""

from __future__ import annotations

import pytest

from bot.core.grading import Verdict, grade
from tests.support import points_made, rubric_question

CACHES = rubric_question(
    "Compare the two caches for a team that needs persistence.",
    [
        {
            "point": "RDB: snapshots to disk, so data survives a restart",
            "any": ["snapshot", "snapshots", "survives a restart", "persist"],
        },
        {
            "point": "MEMC: memory only, everything is lost on restart",
            "any": ["memory only", "lost on restart", "volatile"],
        },
        {"point": "Pick RDB when persistence matters", "any": ["pick rdb", "choose rdb"]},
    ],
)
LOCKS = rubric_question(
    "A reader and a writer touch one row under snapshot isolation. What happens?",
    [
        {
            "point": "Readers are not blocked by the writer",
            "any": ["does not block", "doesnt block", "no blocking"],
        },
        {"point": "The reader sees the last committed version", "any": ["committed version"]},
    ],
)


def test_the_right_claims_about_each_subject_make_their_points() -> None:
    answer = "RDB snapshots to disk; MEMC is memory only and volatile. Pick RDB."
    assert grade(CACHES, answer).verdict is Verdict.CORRECT


def test_a_property_said_of_the_wrong_subject_makes_no_point() -> None:
    # The swap: each property is given to the other subject.
    answer = "MEMC snapshots to disk, while RDB is memory only. Pick RDB."
    points = points_made(CACHES, answer)
    assert not any(p.startswith(("RDB:", "MEMC:")) for p in points)
    assert grade(CACHES, answer).verdict is not Verdict.CORRECT


def test_a_clause_that_names_both_subjects_compares_them() -> None:
    points = points_made(CACHES, "unlike MEMC, RDB snapshots to disk")
    assert "RDB: snapshots to disk, so data survives a restart" in points


@pytest.mark.parametrize(
    "answer",
    [
        "the writer doesn't block readers",
        "readers aren't blocked",
        "nothing is blocked, the reader gets the committed version",
        "there is never any blocking of readers",
    ],
)
def test_a_negative_fact_is_made_by_any_denial_of_its_word(answer: str) -> None:
    assert "Readers are not blocked by the writer" in points_made(LOCKS, answer)


@pytest.mark.parametrize(
    "answer",
    [
        "the reader is blocked until the writer commits",
        "it is not true that readers aren't blocked",
        "readers block",
    ],
)
def test_asserting_the_opposite_does_not_make_a_negative_fact(answer: str) -> None:
    assert "Readers are not blocked by the writer" not in points_made(LOCKS, answer)


SAVES = rubric_question(
    "How do you keep a long batch job from losing a day of work?",
    [
        {"point": "Checkpoint often", "any": ["checkpoint often", "checkpoints"]},
        {"point": "Use different hardware for the retry", "any": ["different hardware"]},
    ],
)


@pytest.mark.parametrize(
    ("answer", "point"),
    [
        ("ckpt often", "Checkpoint often"),
        ("frequent ckpts", "Checkpoint often"),
        ("retry on diff hw", "Use different hardware for the retry"),
    ],
)
def test_shorthands_people_type_make_points(answer: str, point: str) -> None:
    assert point in points_made(SAVES, answer)


STORES = rubric_question(
    "Compare the two stores for a team that needs its data after a reboot.",
    [
        {"point": "RDB: writes to disk, so data survives a restart", "any": ["rdb"]},
        {"point": "MEMC: keeps data in RAM only, gone after a restart", "any": ["memc"]},
        {"point": "Pick the one that persists", "any": ["persists", "persistence"]},
    ],
)


def test_points_named_by_their_subject_are_made_by_claims_in_their_own_words() -> None:
    answer = "RDB writes to disk and survives a restart; MEMC keeps data in RAM. Persistence wins."
    assert grade(STORES, answer).verdict is Verdict.CORRECT


def test_a_swap_in_words_no_phrase_lists_earns_no_points() -> None:
    # Each subject is given the other's property in the words of the other's point.
    answer = "RDB keeps the data in RAM and it is gone after a restart; MEMC writes it to disk."
    points = points_made(STORES, answer)
    assert not any(p.startswith(("RDB:", "MEMC:")) for p in points)
    assert grade(STORES, answer).verdict is Verdict.INCORRECT


QUEUES = rubric_question(
    "Compare the two queue policies.",
    [
        {"point": "Round Robin: each queue in turn, no minimum share", "any": ["round robin"]},
        {"point": "Strict Priority: the top queue first", "any": ["strict priority"]},
    ],
)


@pytest.mark.parametrize(
    "answer", ["round robin max throughput no minimum", "round robin with zero guarantees"]
)
def test_a_claim_that_opens_with_no_after_a_phrase_does_not_deny_it(answer: str) -> None:
    assert "Round Robin: each queue in turn, no minimum share" in points_made(QUEUES, answer)


@pytest.mark.parametrize("answer", ["round robin isn't one of them", "round robin is not used"])
def test_a_denial_right_after_a_phrase_still_denies_it(answer: str) -> None:
    assert "Round Robin: each queue in turn, no minimum share" not in points_made(QUEUES, answer)


FAULTS = rubric_question(
    "What happens when one sandbox crashes?",
    [
        {"point": "The crash stays in its sandbox", "any": ["stays in its sandbox", "contained"]},
        {"point": "The others keep running", "any": ["others keep running"]},
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "the crash stayed in the sandbox, others keep running",
        "crashes stay in their sandbox; the others keep running",
        "it contains the crash, and the others keep running",
        "the sandbox is containing it; others keep running",
    ],
)
def test_phrases_match_other_forms_of_their_words(answer: str) -> None:
    assert grade(FAULTS, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "answer",
    [
        "the crash does not stay in its sandbox, the others stop",
        "nothing is contained and the others stop running",
    ],
)
def test_other_forms_are_still_denied(answer: str) -> None:
    assert grade(FAULTS, answer).verdict is not Verdict.CORRECT


def test_an_object_pronoun_in_a_phrase_stands_for_any_word_or_none() -> None:
    jobs = rubric_question(
        "What does a new urgent job do to running jobs?",
        [{"point": "It does not evict them", "any": ["won't kick them out"]}],
    )
    assert "It does not evict them" in points_made(jobs, "it won't kick out the running jobs")
    assert "It does not evict them" in points_made(jobs, "it won't kick jobs out")
    assert "It does not evict them" not in points_made(jobs, "it will kick them out")


POOLS = rubric_question(
    "How should the pool be laid out?",
    [
        {"point": "Keep the pool homogeneous", "any": ["homogeneous pool"]},
        {"point": "Isolate noisy tenants", "any": ["isolation for noisy tenants"]},
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "a homogenous pool, with isloation for noisy tenants",
        "homogeneus pool; isolaton for noisy tenants",
    ],
)
def test_a_one_letter_typo_in_a_long_word_still_makes_the_point(answer: str) -> None:
    assert grade(POOLS, answer).verdict is Verdict.CORRECT


def test_a_word_of_the_question_is_not_taken_for_a_typo() -> None:
    # "sharing" is a word of the prompt, one letter from "sharding": it stays "sharing".
    state = rubric_question(
        "Is sharing the optimizer state enough?",
        [{"point": "Sharding the state across workers", "any": ["sharding the state"]}],
    )
    assert points_made(state, "sharding the state") == ["Sharding the state across workers"]
    assert points_made(state, "sharing the state") == []


OPTIONS = rubric_question(
    "List the ways to share one disk between tenants, with one trade-off each.",
    [
        {"point": "QUOTA: hard per-tenant limits, but space is stranded", "any": ["quota"]},
        {"point": "THIN: overcommitted pools that can run out", "any": ["thin"]},
        {"point": "SNAP: copy-on-write clones, slower writes", "any": ["snap"]},
    ],
)


def test_subjects_named_without_a_word_about_them_make_no_points() -> None:
    assert grade(OPTIONS, "quota, thin and snap").verdict is not Verdict.CORRECT
    assert points_made(OPTIONS, "quota, thin and snap. quota is strict; the others are not") == [
        "QUOTA: hard per-tenant limits, but space is stranded"
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "quota strands space, thin can run out, snap slows writes",
        "quota (strands space), thin (can run out), snap (slower writes)",
    ],
)
def test_subjects_named_with_something_said_of_them_make_their_points(answer: str) -> None:
    assert grade(OPTIONS, answer).verdict is Verdict.CORRECT


def test_a_relative_clause_goes_on_with_the_clause_before_it() -> None:
    split = rubric_question(
        "How is the work split?",
        [{"point": "Sharding splits the rows", "any": [r"re:\bshard\w*\b.{0,40}\brows\b"]}],
    )
    assert points_made(split, "sharding, which splits the rows across nodes") == [
        "Sharding splits the rows"
    ]
    assert points_made(split, "sharding. rows stay whole") == []


def test_an_able_form_matches_its_verb() -> None:
    limits = rubric_question(
        "How firm are the quotas?",
        [{"point": "Quotas can be bypassed", "any": ["bypass", "ignore"]}],
    )
    assert points_made(limits, "soft, bypassable quotas") == ["Quotas can be bypassed"]
    assert points_made(limits, "quotas are not bypassable") == []


RUNS = rubric_question(
    "How do the two kernels run, and can the long one be stopped?",
    [
        {"point": "They run concurrently", "any": ["run concurrently"]},
        {"point": "The long one cannot be preempted", "any": ["cannot be preempted"]},
        {"point": "The speed-up is workload dependent", "any": ["workload dependent"]},
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "they run at the same time; the long one runs to completion; it varies with the job",
        "they run simultaneously, the long kernel can't be interrupted, depends on the workload",
    ],
)
def test_paraphrases_people_type_make_the_points(answer: str) -> None:
    assert grade(RUNS, answer).verdict is Verdict.CORRECT


def test_a_denied_paraphrase_makes_no_point() -> None:
    assert points_made(RUNS, "they don't run at the same time") == []


GANGS = rubric_question(
    "How do you keep a half-started gang from holding GPUs?",
    [
        {"point": "Admit whole gangs", "any": ["all or nothing", "gang admission"]},
        {"point": "Requeue gangs that do not start", "any": ["waitforpodsready", "requeue"]},
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        # a real blind answer (wt4): "all-or-nothing" names a policy, it denies nothing after it
        "kueue all-or-nothing admission + waitForPodsReady",
        "all or nothing admission plus a requeue on timeout",
    ],
)
def test_all_or_nothing_denies_nothing_after_it(answer: str) -> None:
    assert points_made(GANGS, answer) == ["Admit whole gangs", "Requeue gangs that do not start"]


def test_a_real_denial_after_or_still_denies() -> None:
    made = points_made(GANGS, "all or nothing admission; there is no requeue at all")
    assert made == ["Admit whole gangs"]

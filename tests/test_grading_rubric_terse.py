"""Open answers written tersely, as notes: a rubric phrase still matches them.

- A short label that opens a line or a sentence is read with what follows it ("WAL:
  appends every change"), so a phrase that ties the name to its property matches.
- A "to be" inside a phrase may be left out or put in another tense: "faults are
  contained" is made by "faults contained" and "faults were contained".
- Between two words of a phrase, a possessive or demonstrative may stand where the rubric
  has an article or nothing: "stays inside its partition" for "inside the partition".
"""

from __future__ import annotations

import pytest

from bot.core.grading import Verdict, grade
from tests.support import points_made, rubric_question

LOGS = rubric_question(
    "Name the two logs a database keeps and what each records.",
    [
        {
            "point": "Write-ahead log: appends every change before it is applied",
            "any": [r"re:\b(wal|write ahead log)\b.{0,40}\b(appends?|every change)\b"],
        },
        {
            "point": "Slow-query log: records queries over a time threshold",
            "any": [r"re:\b(sql|slow query log)\b.{0,40}\b(threshold|slow queries)\b"],
        },
    ],
)
ISOLATION = rubric_question(
    "What does a hardware partition guarantee between two tenants?",
    [
        {"point": "Faults are contained", "any": ["faults are contained", "fault isolation"]},
        {"point": "Work stays inside the partition", "any": ["inside the partition"]},
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "- WAL: appends each change\n- SQL: slow queries over a threshold",
        "WAL: appends every change. SQL: anything over the threshold",
        "the logs - WAL: appends, first - SQL: threshold based",
    ],
)
def test_a_label_is_read_with_what_follows_it(answer: str) -> None:
    assert grade(LOGS, answer).verdict is Verdict.CORRECT


def test_a_label_alone_makes_no_point() -> None:
    assert points_made(LOGS, "WAL: yes. SQL: also yes") == []


def test_a_time_of_day_is_no_label() -> None:
    # "at 10:30 wal" has no label: a colon between digits is no label's end.
    assert points_made(LOGS, "rotated at 10:30 wal") == []


@pytest.mark.parametrize(
    "answer",
    [
        "faults contained, stays inside its partition",
        "faults were contained; work stays inside that partition",
    ],
)
def test_terse_forms_of_a_phrase_make_it(answer: str) -> None:
    assert points_made(ISOLATION, answer) == [
        "Faults are contained",
        "Work stays inside the partition",
    ]


@pytest.mark.parametrize("answer", ["faults are not contained", "faults never contained"])
def test_a_terse_denial_still_denies(answer: str) -> None:
    assert "Faults are contained" not in points_made(ISOLATION, answer)


SPLITS = rubric_question(
    "What does sharding a table do, and where do the shards live?",
    [
        {"point": "It splits the table's rows", "any": ["splits the rows"]},
        {"point": "Each shard lives inside one region", "any": ["inside one region"]},
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "it divides the rows, each shard within one region",
        "cuts the rows; shards stay within one region",
    ],
)
def test_a_phrase_word_matches_its_synonyms(answer: str) -> None:
    assert grade(SPLITS, answer).verdict is Verdict.CORRECT


def test_a_synonym_of_another_word_makes_no_point() -> None:
    assert points_made(SPLITS, "it copies the rows, each shard outside one region") == []

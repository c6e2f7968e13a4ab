"""Choice and multi answers written in words, the way people type them without the letters.

- A choice's CamelCase name may be spelt as words ("read file" for ReadFile).
- "X but not Y" picks X and denies Y; it does not deny X.
- A remark about choices the answer did not list is no pick: an aside in brackets ("(the
  eagle and the sparrow do fly)"), or, when the question asks what does *not* hold, a later
  sentence that says something of them without denying it ("the eagle and sparrow can").
  A remark that adds ("kiwi too", "kiwi can't either") still adds.
- A denial ends where its complement starts: "no sharing of tokens between sessions" denies
  the sharing, not the sessions.
- Words with one meaning are read alike: "integers" and "whole numbers", "at the same time"
  and "concurrently" and "overlap", "smaller" and "less", "either/or" and "one or the other"
  and "mutually exclusive"; "gets" says nothing ("it gets rounded" is "it is rounded").
- "per X" is read with its X: "per host" is not "per disk".
- A resource name glued to "gpu" is read as its words ("gpumem" is the GPU's memory).
- A bare ordinal names the choice whose text holds it ("3rd" for "Third edition"), not the
  third choice, and a slash inside a unit ("GB/s") splits no list.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.content import Question, question_from_dict
from bot.core.grading import Verdict, grade
from bot.core.grading.rubric import match_rubric
from tests.support import choice_question


def make(kind: str, prompt: str, choices: list[str], answer: Any) -> Question:
    return choice_question(kind, choices, answer, prompt=prompt)


CALLS = make(
    "multi",
    "Which calls must every storage driver implement? Select all that apply.",
    ["ReadFile", "WriteFile", "DeleteFile", "WatchFolder"],
    ["ReadFile", "WriteFile"],
)
FLIGHTLESS = make(
    "multi",
    "Which of these birds cannot fly? Select all that apply.",
    ["Penguin", "Ostrich", "Eagle", "Kiwi", "Sparrow"],
    ["Penguin", "Ostrich", "Kiwi"],
)
RINGS = make(
    "multi",
    "Which of these planets have ring systems? Select all that apply.",
    ["Saturn", "Jupiter", "Uranus", "Mars", "Venus"],
    ["Saturn", "Jupiter", "Uranus"],
)
TOKENS = make(
    "multi",
    "Which rules hold for session tokens? Select all that apply.",
    [
        "Token lifetimes are whole numbers of minutes",
        "A token is not shared between sessions",
        "Tokens are stored in plain text",
        "Requests may reuse an expired token",
    ],
    ["Token lifetimes are whole numbers of minutes", "A token is not shared between sessions"],
)
PIPELINE = make(
    "multi",
    "What does a build cache give over a clean build? Select all that apply.",
    [
        "Steps from different targets can overlap",
        "Less disk spent on per-target scratch space",
        "Signed artefacts",
    ],
    ["Steps from different targets can overlap", "Less disk spent on per-target scratch space"],
)
QUOTAS = make(
    "multi",
    "Which extended resources does the quota plugin use? Select all that apply.",
    ["example.com/gpumem", "example.com/gpucores", "example.com/gpu.shared"],
    ["example.com/gpumem", "example.com/gpucores"],
)
EDITION = make(
    "choice",
    "Which edition of the style guide added the rule?",
    ["Second edition", "Third edition", "Fourth edition", "First edition"],
    "Third edition",
)
BUS = make(
    "choice",
    "A slide claims 'the board has 256 GB/s of bus bandwidth'. What is correct?",
    [
        "Each card has 64 GB/s; the two cards total 128 GB/s",
        "The claim is right: 256 GB/s in total",
        "Each slot has 256 GB/s",
    ],
    "Each card has 64 GB/s; the two cards total 128 GB/s",
)
MODES = make(
    "choice",
    "How do the cache and mirror modes of the disk driver combine?",
    [
        "They are mutually exclusive, and the chosen mode applies to every disk of a host",
        "They can be mixed per disk on one host",
        "They can be stacked: mirroring inside the cache",
    ],
    "They are mutually exclusive, and the chosen mode applies to every disk of a host",
)
ROUNDING = make(
    "choice",
    "What happens to a quota request that is not a whole number?",
    [
        "It is rounded to the nearest whole number",
        "The request fails",
        "The value wraps around",
        "The request silently gets no quota",
    ],
    "It is rounded to the nearest whole number",
)


def verdict(question: Question, answer: str) -> Verdict:
    return grade(question, answer).verdict


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("read file and write file", Verdict.CORRECT),
        ("read-file + write_file", Verdict.CORRECT),
        ("read file, write file and watch folder", Verdict.INCORRECT),
        ("read file", Verdict.PARTIAL),
    ],
)
def test_a_camelcase_name_spelt_as_words_names_its_choice(answer: str, expected: Verdict) -> None:
    assert verdict(CALLS, answer) is expected


@pytest.mark.parametrize(
    "answer",
    ["Saturn, Jupiter, Uranus but not Mars", "saturn, jupiter and uranus but not mars or venus"],
)
def test_but_not_denies_what_follows_it_not_what_precedes_it(answer: str) -> None:
    assert verdict(RINGS, answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # Asides about choices the list left out are remarks.
        (FLIGHTLESS, "penguin, ostrich, kiwi (the eagle and the sparrow do fly)", Verdict.CORRECT),
        (RINGS, "saturn, jupiter, uranus (mars has two small moons)", Verdict.CORRECT),
        # Asked what cannot: a later sentence that says its choices can is a remark.
        (
            FLIGHTLESS,
            "the penguin, the ostrich and the kiwi; the eagle and sparrow can",
            Verdict.CORRECT,
        ),
        # Remarks that add still add.
        (FLIGHTLESS, "penguin and ostrich (kiwi too)", Verdict.CORRECT),
        (FLIGHTLESS, "penguin, ostrich; kiwi can't either", Verdict.CORRECT),
        (RINGS, "saturn and jupiter (also uranus)", Verdict.CORRECT),
        # Asked what cannot: a later sentence that denies its choice adds it.
        (FLIGHTLESS, "penguin and ostrich. the kiwi can't fly", Verdict.CORRECT),
        # A wrong pick in the list stays wrong, whatever the remark says.
        (FLIGHTLESS, "penguin, ostrich, kiwi, eagle (the sparrow flies)", Verdict.INCORRECT),
        (RINGS, "saturn, jupiter, mars (venus has none)", Verdict.INCORRECT),
        # Without the remark's choice in the list, the answer is only partly there.
        (FLIGHTLESS, "penguin and ostrich (the eagle flies)", Verdict.PARTIAL),
    ],
)
def test_a_remark_about_choices_left_out_is_no_pick(
    question: Question, answer: str, expected: Verdict
) -> None:
    assert verdict(question, answer) is expected


@pytest.mark.parametrize(
    "answer",
    [
        "integer minutes, and no sharing of a token between sessions",
        "lifetimes are integers; tokens aren't shared between sessions",
    ],
)
def test_a_denial_ends_at_its_complement_and_synonyms_are_read_alike(answer: str) -> None:
    assert verdict(TOKENS, answer) is Verdict.CORRECT


def test_a_denial_of_another_choice_stays_a_denial() -> None:
    assert verdict(TOKENS, "whole minutes, and requests may reuse expired tokens") is (
        Verdict.INCORRECT
    )


@pytest.mark.parametrize(
    "answer",
    [
        "steps of different targets run at the same time, and smaller per-target scratch space",
        "targets build concurrently, less scratch space per target",
    ],
)
def test_paraphrases_of_a_choices_words_name_it(answer: str) -> None:
    assert verdict(PIPELINE, answer) is Verdict.CORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("the memory and cores ones", Verdict.CORRECT),
        ("the memory one", Verdict.PARTIAL),
        ("memory, cores and shared", Verdict.INCORRECT),
    ],
)
def test_a_resource_glued_to_gpu_is_read_as_its_words(answer: str, expected: Verdict) -> None:
    assert verdict(QUOTAS, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"), [("3rd", Verdict.CORRECT), ("4th", Verdict.INCORRECT)]
)
def test_a_bare_ordinal_names_the_choice_that_holds_it(answer: str, expected: Verdict) -> None:
    assert verdict(EDITION, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("64 GB/s per card, 128 GB/s for both", Verdict.CORRECT),
        ("64 GB/s/card, 128 GB/s for the board", Verdict.CORRECT),
    ],
)
def test_a_slash_in_a_unit_splits_no_list(answer: str, expected: Verdict) -> None:
    assert verdict(BUS, answer) is expected


def test_the_rest_of_a_rate_names_no_choice() -> None:
    # "256 GB/s" fits two wrong choices; "s per card" is no part that names the right one.
    assert verdict(BUS, "256 GB/s per card") is not Verdict.CORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("one or the other per host, not both", Verdict.CORRECT),
        ("either/or", Verdict.CORRECT),
        ("you can mix them per disk", Verdict.INCORRECT),
    ],
)
def test_either_or_is_mutually_exclusive_and_per_is_read_with_its_word(
    answer: str, expected: Verdict
) -> None:
    assert verdict(MODES, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("it gets rounded", Verdict.CORRECT), ("it gets wrapped", Verdict.INCORRECT)],
)
def test_gets_says_nothing_of_a_choice(answer: str, expected: Verdict) -> None:
    assert verdict(ROUNDING, answer) is expected


def test_either_or_makes_a_mutually_exclusive_rubric_point() -> None:
    question = question_from_dict(
        {
            "id": "q",
            "topic": "t",
            "role": ["eng"],
            "difficulty": 1,
            "kind": "open",
            "prompt": "How do the two disk modes combine?",
            "rubric": [{"point": "They are mutually exclusive", "any": ["mutually exclusive"]}],
            "explanation": "Because.",
            "sources": ["https://example.com"],
        },
        "t",
    )
    made = [m.point for m in match_rubric(question, "it's either/or, per host")[0]]
    assert made == ["They are mutually exclusive"]


PLUGINS = make(
    "multi",
    "Which extended resources does the sharing plugin use? Select all that apply.",
    ["example.com/diskmem", "example.com/diskio", "example.com/disk.shared", "example.com/raid-1"],
    ["example.com/diskmem", "example.com/diskio"],
)
PETS = make(
    "multi",
    "Which of these are mammals? Select all that apply.",
    ["Dog", "Cat", "Frog", "Parrot"],
    ["Dog", "Cat"],
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # A dot inside a name ends no clause: "not disk.shared" denies the whole name.
        ("diskmem and diskio, not disk.shared", Verdict.CORRECT),
        # "nor" denies what follows it, after an aside too.
        (
            "diskmem and diskio, not disk.shared (that's the old one) nor the raid one",
            Verdict.CORRECT,
        ),
        ("diskmem, diskio and disk.shared", Verdict.INCORRECT),
    ],
)
def test_names_with_dots_and_nor(answer: str, expected: Verdict) -> None:
    assert verdict(PLUGINS, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # A denying aside about choices the list left out is a remark, not a pick.
        ("dog and cat (frog and parrot aren't mammals)", Verdict.CORRECT),
        ("dog (cat isn't one)", Verdict.PARTIAL),
        ("dog, frog (parrot isn't)", Verdict.INCORRECT),
    ],
)
def test_a_denying_aside_about_choices_left_out(answer: str, expected: Verdict) -> None:
    assert verdict(PETS, answer) is expected


STEPS = make(
    "multi",
    "Which belong in an incident review? Select all that apply.",
    [
        "A timeline of events",
        "The root causes",
        "Follow-up actions with owners",
        "Who to fire",
        "Rumours",
    ],
    ["A timeline of events", "The root causes", "Follow-up actions with owners"],
)
HOOKS = make(
    "multi",
    "Which hooks must every storage driver implement (not the optional ones)? Select all.",
    ["Mount", "Unmount", "Resize", "Snapshot"],
    ["Mount", "Unmount"],
)
SIZES = make(
    "multi",
    "Which disk sizes does the small plan offer? Select all that apply.",
    ["1 TB", "2 TB", "3 TB", "8 TB"],
    ["1 TB", "2 TB"],
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A-C", Verdict.CORRECT),
        ("a through c", Verdict.CORRECT),
        ("1, 2 and 3", Verdict.CORRECT),
        ("1-3", Verdict.CORRECT),
        ("all except D and E", Verdict.CORRECT),
        ("A (the timeline), B (root causes), C (actions and owners)", Verdict.CORRECT),
        ("A-D", Verdict.INCORRECT),
        ("1-4", Verdict.INCORRECT),
        ("all except E", Verdict.INCORRECT),
    ],
)
def test_letter_ranges_places_and_glosses(answer: str, expected: Verdict) -> None:
    assert verdict(STEPS, answer) is expected


def test_digits_are_no_places_when_a_choice_holds_digits() -> None:
    assert verdict(SIZES, "1 TB and 2 TB") is Verdict.CORRECT
    assert verdict(SIZES, "1-3") is not Verdict.CORRECT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A and B (C and D are optional)", Verdict.CORRECT),
        ("mount + unmount; resize and snapshot are optional", Verdict.CORRECT),
        ("mount and unmount; snapshot is required too", Verdict.INCORRECT),
        ("mount, unmount; resize isn't required", Verdict.CORRECT),
    ],
)
def test_a_sentence_that_calls_other_choices_optional_is_a_remark(
    answer: str, expected: Verdict
) -> None:
    assert verdict(HOOKS, answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # Letters that lead an answer are all of them, not the first few.
        ("A, B, C, D but not E", Verdict.INCORRECT),
        ("A, B, C and not D or E", Verdict.CORRECT),
        ("A, B: the others are noise", Verdict.PARTIAL),
        # Denied letters, and "the rest" for the choices not denied.
        ("not D or E, the rest yes", Verdict.CORRECT),
        ("not D, the others", Verdict.INCORRECT),
        ("A, B, C, not D", Verdict.CORRECT),
    ],
)
def test_letters_in_lists_with_denials(answer: str, expected: Verdict) -> None:
    assert verdict(STEPS, answer) is expected


LINKS = make(
    "choice",
    "A slide claims 'the switch has 2 TB/s per port'. What is correct?",
    [
        "Each port has 400 GB/s; the 16 ports total 6.4 TB/s",
        "The claim is right: 2 TB/s per port",
        "Each port has 1.2 TB/s",
    ],
    "Each port has 400 GB/s; the 16 ports total 6.4 TB/s",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("0.4 TB/s each", Verdict.CORRECT),
        ("6400 GB/s for the lot", Verdict.CORRECT),
        ("1200 GB/s", Verdict.INCORRECT),
        ("2000 GB/s", Verdict.INCORRECT),
    ],
)
def test_a_choices_figure_in_another_unit_names_it(answer: str, expected: Verdict) -> None:
    assert verdict(LINKS, answer) is expected


def test_a_letter_with_a_figure_is_still_its_pick() -> None:
    assert verdict(LINKS, "A, 400 GB/s") is Verdict.CORRECT
    assert verdict(LINKS, "C (1.2 TB/s)") is Verdict.INCORRECT


CRASH = make(
    "choice",
    "One worker in a shared pool hits a fatal error. Which workers are affected?",
    [
        "Only the worker that caused it",
        "Every pool worker on that host",
        "Every worker on every host of the rack",
        "None: the pool restarts the job transparently",
    ],
    "Every pool worker on that host",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # "pool" is denied in the last choice only, so it still points to this one.
        ("all pool workers on the same host", Verdict.CORRECT),
        ("only the one that caused it", Verdict.INCORRECT),
    ],
)
def test_a_word_another_choice_only_denies_still_points_here(
    answer: str, expected: Verdict
) -> None:
    assert verdict(CRASH, answer) is expected


def test_accents_are_folded_away() -> None:
    painters = make("choice", "Who painted the water lilies?", ["Monet", "Manet", "Degas"], "Monet")
    assert verdict(painters, "Claude Monét") is Verdict.CORRECT
    assert verdict(painters, "Mánet") is Verdict.INCORRECT

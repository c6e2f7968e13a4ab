"""Open answers that word a rubric point unlike any of its phrases.

A point is also made when one sentence of the answer holds at least half of the point's
own words (the content words of its text, less the prompt's), two of them at least,
and two of them words that no other point's text has. Sentences end at sentence
punctuation, brackets, dashes and contrast words ("while", "but"), not at commas. An aside in
brackets may be left out, and some ways of saying one thing count as one word ("how likely"
is "likelihood", "takes down" is "kills"). The rule never makes a point from a sentence that:

- denies or passes over what it says ("no ...", "I'd skip ..."), unless the point is itself
  a denial;
- leaves out a number the point states, or uses the opposite of one of its words
  ("outside" for "inside", "shared" for "dedicated");
- holds only words too light to say anything ("put", "use", "make").
"""

from __future__ import annotations

import pytest

from bot.core.grading import Verdict, grade
from tests.support import points_made, rubric_question

DEDICATED = "Dedicated compute, memory and cache per instance (own SMs, L2 share, DRAM bandwidth)"
PARTITIONS = rubric_question(
    "What does a hardware partition of an accelerator isolate?",
    [
        {"point": DEDICATED, "any": ["own sms", "dedicated sms"]},
        {"point": "Faults stay inside their partition", "any": ["fault isolation"]},
    ],
)
FABRIC = rubric_question(
    "How is the box wired?",
    [
        {"point": "8 boards connected through 4 switch chips", "any": ["four switch chips"]},
        {"point": "Any board reaches any other at full speed", "any": ["all to all"]},
    ],
)
NARRATIVE = rubric_question(
    "How would you present the risks of the plan to leadership?",
    [
        {"point": "Likelihood and impact of each risk, in numbers", "any": ["probability"]},
        {"point": "An owner per mitigation", "any": ["owner"]},
    ],
)
STREAMS = rubric_question(
    "How do you keep a short kernel fast next to long ones?",
    [
        {"point": "Put it in a high-priority stream", "any": ["priority stream"]},
        {"point": "Split the long work into smaller pieces", "any": ["smaller pieces"]},
    ],
)


@pytest.mark.parametrize(
    "answer",
    [
        "hardware isolation of compute, memory, L2 cache and bandwidth per instance",
        "Each one gets dedicated compute and memory, and its own cache.",
    ],
)
def test_a_sentence_with_most_of_a_points_words_makes_it(answer: str) -> None:
    assert DEDICATED in points_made(PARTITIONS, answer)


def test_a_point_said_in_other_words_can_pass_the_answer() -> None:
    answer = "Compute, memory and cache are dedicated per instance; faults stay inside it."
    assert grade(PARTITIONS, answer).verdict is Verdict.CORRECT


def test_the_words_must_be_in_one_sentence() -> None:
    assert points_made(PARTITIONS, "It has compute. And memory. Also a cache.") == []


def test_a_contrast_word_ends_the_sentence() -> None:
    answer = "compute is split per instance while memory and the cache go to everyone"
    assert DEDICATED not in points_made(PARTITIONS, answer)


@pytest.mark.parametrize(
    "answer",
    [
        "there is no dedicated compute, memory or cache per instance",
        "compute, memory and cache are shared between instances",
    ],
)
def test_a_denial_or_an_opposite_makes_no_point(answer: str) -> None:
    assert DEDICATED not in points_made(PARTITIONS, answer)


def test_a_number_of_the_point_must_be_there() -> None:
    point = FABRIC.rubric[0].point
    assert point not in points_made(FABRIC, "the 8 boards are connected through switch chips")
    assert point in points_made(FABRIC, "the 8 boards are connected through 4 switch chips")


def test_a_passed_over_point_is_not_made() -> None:
    answer = "I'd skip likelihood and impact of each risk and just ask for sign-off."
    assert points_made(NARRATIVE, answer) == []


def test_light_words_say_nothing() -> None:
    # "put" and "it" are the only words shared with the point: no point is made.
    assert points_made(STREAMS, "put it in a different stream") == []
    assert points_made(STREAMS, "put it in a stream with high priority") == [
        "Put it in a high-priority stream"
    ]


def test_ways_of_saying_one_thing_count_as_its_words() -> None:
    answer = "For each risk I'd say how likely it is and how bad it would be, in numbers."
    assert points_made(NARRATIVE, answer) == ["Likelihood and impact of each risk, in numbers"]


def test_a_crash_that_takes_everyone_down_is_a_fatal_error_that_kills_every_client() -> None:
    shared = rubric_question(
        "What happens when one tenant of a shared accelerator fails?",
        [
            {"point": "A fatal error kills every client", "any": ["all clients die"]},
            {"point": "Contain it by tenant trust", "any": ["trust"]},
        ],
    )
    assert points_made(shared, "one crash takes down everyone on it") == [
        "A fatal error kills every client"
    ]


def test_another_form_of_a_phrase_word_is_not_respelt_into_it() -> None:
    # "isolates" is one letter from the phrase word "isolate", but it is the same word:
    # it stays as typed, so the none: pattern that spells it out still cancels the point.
    shared = rubric_question(
        "What can a shared server not guarantee its clients?",
        [
            {
                "point": "No fault isolation between clients",
                "any": ["cannot isolate faults", "shared fault domain"],
                "none": [r"re:\bisolates clients\b"],
            },
            {"point": "Caps are limits, not walls", "any": ["caps"]},
        ],
    )
    point = "No fault isolation between clients"
    assert point in points_made(shared, "one shared fault domain for all of them")
    assert point not in points_made(shared, "shared fault domain, but it isolates the clients")

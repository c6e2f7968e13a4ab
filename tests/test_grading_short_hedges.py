"""Short answers that hedge: an answer that offers a second term beside the right one ("Best
Effort or Equal Share", "3rd or 4th", "HBM3, maybe HBM3e") is not correct, as a strict
interviewer would fail it; another name of the same thing, a vague tail ("or whatever"), and
an "or" inside a condition, a denial or a contrast are no hedge."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from tests.test_grading_identifiers import short
from tests.test_grading_kinds import correct

SCHEDULER = short("Best Effort", "best-effort", "best effort scheduler")
GENERATION = replace(
    short("third", "third generation", "3rd generation", "NVLink 3", "3rd"),
    prompt="A deck says the A100 uses fourth-generation NVLink. Which generation is it?",
)
LABEL = short("nvidia.com/mig.config", "mig.config")
CALL = short("cudaDeviceGetStreamPriorityRange", "cuCtxGetStreamPriorityRange")
STRATEGY = short("mixed", "mixed strategy", "migStrategy=mixed")
DEFAULT = short("none", "none strategy", "migStrategy=none")
MEMORY = short("HBM3")
LINK = short("NVLink-C2C", "NVLink C2C", "NVLink chip-to-chip", "C2C")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # real blind answers (wt5, wt4), labelled incorrect
        (SCHEDULER, "Best Effort or Equal Share"),
        (GENERATION, "3rd or 4th"),
        (LABEL, "nvidia.com/mig.config or nvidia.com/mig.strategy"),
        (CALL, "cudaDeviceGetStreamPriorityRange or cudaStreamGetPriority, either works"),
        (MEMORY, "HBM3 or HBM3e depending on batch"),
        (LINK, "NVLink-C2C or PCIe Gen5, not sure"),
        # the same hedges in other words
        (SCHEDULER, "Equal Share or Best Effort"),
        (SCHEDULER, "either best effort or fixed share"),
        (SCHEDULER, "it's probably best effort, could be equal share"),
        (SCHEDULER, "best effort, maybe equal share"),
        (SCHEDULER, "best effort (or equal share?)"),
        (SCHEDULER, "Best Effort / Equal Share"),
        (GENERATION, "3rd/4th gen"),
        (MEMORY, "HBM3, maybe HBM3e on newer parts"),
        (LABEL, "nvidia.com/mig.config, or nvidia.com/mig.config.state"),
        (STRATEGY, "mixed or single, if you need the profiles listed"),
    ],
)
def test_a_hedge_between_the_right_term_and_another_is_not_correct(
    question: Question, answer: str
) -> None:
    assert not correct(question, answer)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # real blind answers, labelled correct
        (
            CALL,
            "cudaDeviceGetStreamPriorityRange(&least, &greatest) — or cuCtxGetStreamPriorityRange"
            " in the driver API",
        ),
        (
            LABEL,
            "Set nvidia.com/mig.config=all-1g.10gb (or whichever layout) and watch "
            "nvidia.com/mig.config.state",
        ),
        (
            DEFAULT,
            "It defaults to 'none' — MIG devices aren't advertised specially unless you pick "
            "single or mixed.",
        ),
        # another name of the same thing
        (LINK, "NVLink-C2C or NVLink chip-to-chip"),
        (LINK, "C2C / NVLink-C2C"),
        (LINK, "NVLink-C2C (or chip-to-chip for short)"),
        # vague tails, denials, contrasts, conditions
        (SCHEDULER, "best effort or something like that"),
        (SCHEDULER, "best effort, not equal share or fixed share"),
        (SCHEDULER, "Best Effort. Equal Share or Fixed Share you must pick yourself"),
        (SCHEDULER, "best effort (round robin), unless you set equal or fixed share"),
        (SCHEDULER, "best effort — idle VMs yield their slice, or rather the scheduler skips them"),
        (GENERATION, "third gen, the fourth is Hopper"),
        (MEMORY, "HBM3 — HBM3e came with the H200"),
        (STRATEGY, "mixed, because single hides them or lumps them together"),
        (STRATEGY, "mixed (neither single nor none)"),
    ],
)
def test_an_alias_a_vague_tail_or_a_contrast_is_no_hedge(question: Question, answer: str) -> None:
    assert correct(question, answer)


RIVALS = ["Equal Share", "Fixed Share", "round robin", "MPS", "time-slicing", "vWS", "GPL"]
JOINS = ["{} or {}", "{0}, or {1}", "{}, maybe {}", "either {} or {}", "{} / {}", "{} (or {}?)"]


@settings(max_examples=80, deadline=None)
@given(
    rival=st.sampled_from(RIVALS),
    join=st.sampled_from(JOINS),
    first=st.booleans(),
    form=st.sampled_from(SCHEDULER.accepted),
)
def test_any_rival_term_joined_to_the_right_one_is_a_hedge(
    rival: str, join: str, first: bool, form: str
) -> None:
    pair = (form, rival) if first or "maybe" in join or "(" in join else (rival, form)
    assert not correct(SCHEDULER, join.format(*pair))


@settings(max_examples=60, deadline=None)
@given(
    rival=st.sampled_from(RIVALS),
    denial=st.sampled_from(["not {}", "rather than {}", "unless you configure {}", "vs {}"]),
    form=st.sampled_from(SCHEDULER.accepted),
)
def test_a_denied_or_conditional_or_is_no_hedge(rival: str, denial: str, form: str) -> None:
    other = rival + " or " + RIVALS[(RIVALS.index(rival) + 1) % len(RIVALS)]
    assert correct(SCHEDULER, f"{form}, {denial.format(other)}")

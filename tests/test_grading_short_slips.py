"""Short answers with a slip of the hand: an identifier with one letter left out, added,
changed or two swapped ("nvida.com/…", "…_PRIORTY", "gpu.prodcut") is the identifier, as a
reader would take it; a slip never touches a number, a separator, a plural, or makes another
term of the field. Two swapped letters are one slip in any word ("cohrot"), an ordinal
misspelt is still that ordinal ("thrid gen"), and a four-letter word (not an acronym) may
lose a letter ("non" for "none")."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.content import Question
from tests.test_grading_identifiers import short
from tests.test_grading_kinds import correct

RESOURCE = short("nvidia.com/mig-3g.20gb", "mig-3g.20gb")
VARIABLE = short("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "active thread percentage")
LABEL = short("scheduling.x-k8s.io/pod-group")
PRODUCT = short("nvidia.com/gpu.product", "gpu.product")
CORES = short("nvidia.com/gpucores", "gpucores")
STRATEGY = short("none", "none strategy")
HINT = short("hint", "a hint")
GROUP = short("cohort", "a cohort")
GENERATION = replace(
    short("third", "third generation", "3rd generation", "NVLink 3"),
    prompt="Which NVLink generation does the A100 use?",
)
MEMORY = short("HBM3")
TOOL = short("mig-parted", "mig parted", "MIG Partition Editor")  # acronyms "mp", "mpe"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # real blind answers (wt5, wt4), labelled correct
        (RESOURCE, "nvida.com/mig-3g.20gb"),
        (VARIABLE, "CUDA_MPS_ACTIVE_THREAD_PERCENTGE"),
        (LABEL, "scheduling.x-k8s.io/podgroup"),
        (PRODUCT, "nvidia.com/gpu.prodcut"),
        (STRATEGY, "non"),
        (GROUP, "cohrot"),
        (GENERATION, "thrid gen"),
        # the same slips elsewhere
        (RESOURCE, "nvidia.com/mgi-3g.20gb"),
        (VARIABLE, "export CUDA_MPS_ACTIVE_THRED_PERCENTAGE=25"),
        (PRODUCT, "nvidia.con/gpu.product"),
        (CORES, "nvidia.com/gpucroes"),
        (HINT, "hitn"),
        (GENERATION, "thrd"),
        (GENERATION, "thrid generation"),
    ],
)
def test_a_slip_of_the_hand_is_still_the_answer(question: Question, answer: str) -> None:
    assert correct(question, answer)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # real blind answers, labelled incorrect
        (RESOURCE, "nvidia.com/mig-3g-20gb"),  # a separator changed
        (VARIABLE, "CUDA_MPS_ACTIVE_THREADS_PERCENTAGE"),  # a plural
        (CORES, "nvidia.com/gpucore"),
        (CORES, "nvidia.com/gpu.cores"),
        (PRODUCT, "nvidia.com/gpu.family"),
        # numbers, separators, other terms
        (RESOURCE, "nvidia.com/mig-3g.21gb"),
        (RESOURCE, "nvidia.com/mig-2g.20gb"),
        (RESOURCE, "nvidia.com/mig-3g.20g"),
        (VARIABLE, "CUDA_MSP_ACTIVE_THREAD_PERCENTAGE"),  # MSP is another term
        (VARIABLE, "CUDA_MPS_ACTIVE_THREAD-PERCENTAGE"),
        (PRODUCT, "nvidia.com/gpu.products"),
        (STRATEGY, "node"),  # a changed letter in a short word: another word
        (STRATEGY, "one"),
        (HINT, "hunt"),
        (MEMORY, "HMB3"),  # an acronym gets no slip
        (GENERATION, "forth"),  # fourth, misspelt: the myth
        (GENERATION, "second"),
        (TOOL, "MPS"),  # "mp" with a plural "s" spells another term
    ],
)
def test_a_slip_that_makes_another_name_is_not_the_answer(question: Question, answer: str) -> None:
    assert not correct(question, answer)


def _swaps(word: str) -> list[str]:
    return [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)]


IDENTIFIERS = [
    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
    "nvidia.com/mig-3g.20gb",
    "scheduling.x-k8s.io/pod-group",
    "nvidia.com/gpu.sharing-strategy",
]


@settings(max_examples=120, deadline=None)
@given(form=st.sampled_from(IDENTIFIERS), data=st.data())
def test_one_swap_or_drop_in_a_word_of_letters_is_a_slip(form: str, data: st.DataObject) -> None:
    words = [m for m in re.finditer(r"[A-Za-z]{4,}", form) if not re.search(r"\d", m.group())]
    m = data.draw(st.sampled_from(words))
    word = m.group()
    i = data.draw(st.integers(0, len(word) - 1))
    drop = word[:i] + word[i + 1 :]
    typed = data.draw(st.sampled_from([drop, *[w for w in _swaps(word) if w != word]]))
    answer = form[: m.start()] + typed + form[m.end() :]
    assert correct(short(form), answer), answer


@settings(max_examples=80, deadline=None)
@given(form=st.sampled_from(IDENTIFIERS), digit=st.sampled_from("0123456789"), data=st.data())
def test_a_changed_digit_or_separator_is_never_a_slip(
    form: str, digit: str, data: st.DataObject
) -> None:
    spots = [i for i, ch in enumerate(form) if ch.isdigit() or ch in "._/"]
    i = data.draw(st.sampled_from(spots))
    new = (
        digit
        if form[i].isdigit()
        else data.draw(st.sampled_from([c for c in "._/-" if c != form[i]]))
    )
    if new == form[i]:
        return
    assert not correct(short(form), form[:i] + new + form[i + 1 :])


PROFILE = short("1g.18gb")
CONTEXTS = short("green contexts", "green context")


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # wt9: "GB" written "G" in a profile name, as "20G" is 20 GB (not in a resource name)
        (PROFILE, "1g.18g", True),
        (PROFILE, "1g.18", False),
        (PROFILE, "2g.18g", False),
        (PROFILE, "1g.35g", False),
        # wt9: "ctx" is context, so two spellings of one term are no hedge
        (CONTEXTS, "green ctx / green contxts", True),
        (CONTEXTS, "green ctxs", True),
        (CONTEXTS, "ctx", False),
    ],
)
def test_units_and_shorthands_inside_short_answers(
    question: Question, answer: str, expected: bool
) -> None:
    assert correct(question, answer) is expected

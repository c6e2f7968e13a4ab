"""Wrong choice answers that reuse the right choice's words (blind writers wt8 and wt9).

- An answer that also says, undenied, every word by which a wrong choice differs from the
  right one describes the wrong choice too: it names no one choice.
- A clause that goes on from the opening pick ("..., which then grows on demand", "...,
  where the greatest is the largest") is part of the claim, not a remark on another choice:
  when it says another choice, or contradicts the pick, the pick does not stand.
- A colon that a claim of its own follows ends a denial: in "No memory or fault isolation:
  one tenant can crash the others" the crash is asserted; "Not planned: use X" and
  "copies: no" keep theirs.
- Opposites count against a choice: valid/invalid, accept/refuse, highest/lowest (and the
  superlatives "largest", "smallest"); a participle is its verb ("grown" is "grows").
- So does an answer that says most (three fifths) of those words beside a part that names
  the right choice ("registers over gRPC with the kube-scheduler, which advertises ...").
- A hedge between two choices in the opening ("3 SMs or 3 slices, same thing", "requests
  or limits, either works") picks neither; an "or" in a later remark is no hedge.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.grading import Verdict, grade
from tests.support import choice_question

RECOVERY = choice_question(
    "choice",
    [
        "It refuses new clients until all affected clients have exited, then builds a new context",
        "It kills only the faulting client and keeps serving the others",
        "It power-cycles the host",
        "It moves the remaining clients to a spare GPU",
    ],
    "It refuses new clients until all affected clients have exited, then builds a new context",
    prompt="After a fatal error, how does the sharing daemon recover?",
)
FRACTION = choice_question(
    "choice",
    [
        "It is invalid: devices are counted in whole units; sharing must advertise more units",
        "The container gets a quarter of the cores",
        "The container gets a quarter of the memory",
        "The scheduler silently rounds it up to 1",
    ],
    "It is invalid: devices are counted in whole units; sharing must advertise more units",
    prompt="A user asks for 0.25 of an accelerator in a container spec. What happens?",
)
RANGE = choice_question(
    "choice",
    [
        "The weakest and the strongest level, the strongest being the numerically smallest",
        "The smallest and the largest number of queues allowed",
        "The oldest and newest supported driver",
        "The default level and the number of levels",
    ],
    "The weakest and the strongest level, the strongest being the numerically smallest",
    prompt="The range call returns two values. What are they?",
)
BUFFER = choice_question(
    "choice",
    [
        "A fixed amount set when the virtual device is created",
        "Grown on demand up to the physical card's size",
        "Shared with every other guest with no limits",
        "Borrowed from host RAM",
    ],
    "A fixed amount set when the virtual device is created",
    prompt="How is device memory handed to a guest?",
)
DAEMON = choice_question(
    "choice",
    [
        "A drop-in implementation of the runtime API that lets cooperating processes such as "
        "MPI ranks share one card at once",
        "A hardware partitioning of the card into isolated instances",
        "A hypervisor part that gives each guest a slice of memory",
        "A scheduler plugin for gang scheduling",
    ],
    "A drop-in implementation of the runtime API that lets cooperating processes such as "
    "MPI ranks share one card at once",
    prompt="Which description of the sharing daemon is accurate?",
)
HOOK = choice_question(
    "choice",
    [
        "Useful limits, but no hard security boundary: any workload that skips the preload hook "
        "can exceed them",
        "A hardware boundary like partitioning",
        "Enforced by the hypervisor",
        "Only privileged containers can exceed them; ordinary pods are strictly held to them",
    ],
    "Useful limits, but no hard security boundary: any workload that skips the preload hook "
    "can exceed them",
    prompt="How strong are the plugin's per-container limits?",
)
SLICES = choice_question(
    "choice",
    [
        "Four streaming multiprocessors (SMs)",
        "Four compute slices, each about an eighth of the card",
        "Four gigabytes of cache",
        "Four copy engines",
    ],
    "Four compute slices, each about an eighth of the card",
    prompt="In the profile name 4s.40gb, what does '4s' count?",
)
SPEC = choice_question(
    "choice",
    [
        "In resources.limits; a request defaults to the limit and must equal it",
        "Only in resources.requests",
        "In a node selector",
        "In an annotation",
    ],
    "In resources.limits; a request defaults to the limit and must equal it",
    prompt="Where in a pod spec do you ask for accelerators?",
)
SCHEDULERS = choice_question(
    "choice",
    ["Fixed Share", "Equal Share", "Best Effort", "Round Robin"],
    "Fixed Share",
    prompt="Which scheduler keeps a guest's reserved share of time while the others idle?",
)
REGISTER = choice_question(
    "choice",
    [
        "It registers with the kubelet over gRPC and advertises a resource such as acme.com/npu",
        "It edits the Node object's capacity through the API server",
        "It is compiled into the kube-scheduler",
        "It writes a file that the container runtime reads",
    ],
    "It registers with the kubelet over gRPC and advertises a resource such as acme.com/npu",
    prompt="How does a device plugin make accelerators known to a node?",
)
RISK = choice_question(
    "choice",
    [
        "No memory or fault isolation: one tenant can exhaust memory or crash the others",
        "It needs a per-card licence",
        "It only works on one model",
        "Tenants get more compute than they pay for",
    ],
    "No memory or fault isolation: one tenant can exhaust memory or crash the others",
    prompt="You are asked to sell shared cards to paying outsiders. What is the biggest risk?",
)
GANG = choice_question(
    "choice",
    [
        "Alpha, through the Workload API with a minCount",
        "Stable since v1.14",
        "Beta and on by default",
        "Not planned: use Kueue only",
    ],
    "Alpha, through the Workload API with a minCount",
    prompt="What is the status of native gang scheduling?",
)
MIXED_SIZES = choice_question(
    "choice",
    ["Fixed Share", "Equal Share", "Best Effort", "All three work"],
    "Fixed Share",
    prompt="Guests of different sizes share one card. Which scheduler cannot be used?",
)
PROFILES = choice_question(
    "choice",
    ["1g.10gb", "1g.12gb", "1g.18gb", "1g.23gb"],
    "1g.10gb",
    prompt="Which is the smallest profile (seven per card) on the 80 GB model?",
)


def verdict(question, answer: str) -> Verdict:  # type: ignore[no-untyped-def]
    return grade(question, answer).verdict


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # the opposite of a word of the right choice
        (
            RECOVERY,
            "It keeps accepting new clients but rebuilds the context for each one as they exit",
        ),
        (FRACTION, "That's valid once sharing is on: 0.25 gets a quarter of the card's time"),
        (RANGE, "weakest and strongest, where the strongest one is the numerically largest number"),
        # the right choice's words, then a clause that goes on to a wrong one
        (BUFFER, "A fixed minimum set at creation, which then grows on demand when others idle"),
        (
            HOOK,
            "no hard boundary on paper, but because of the preload hook only privileged pods "
            "can get round it, so ordinary pods are strictly held",
        ),
        # a wrong choice said whole beside the right one's words
        (
            DAEMON,
            "A drop-in hardware partitioning letting MPI ranks run in isolated instances on a card",
        ),
        # most of a wrong choice's own words, beside a part that names the right one
        (
            REGISTER,
            "it registers over gRPC with the kube-scheduler, which then advertises acme.com/npu",
        ),
        # a hedge between two choices
        (SLICES, "4 SMs or 4 compute slices, same thing"),
        (SPEC, "requests or limits, either works"),
    ],
)
def test_a_wrong_choice_in_the_right_ones_words_is_not_correct(question, answer: str) -> None:  # type: ignore[no-untyped-def]
    assert verdict(question, answer) is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (RECOVERY, "refuses new clients until all affected ones exit, then a new context"),
        (FRACTION, "invalid, devices come in whole units"),
        (RANGE, "weakest and strongest, where the strongest one is the numerically smallest"),
        (BUFFER, "a fixed amount, set when the virtual device is created"),
        (SLICES, "4 compute slices, not 4 SMs"),
        (SPEC, "limits"),
        (REGISTER, "registers with the kubelet over gRPC, then advertises acme.com/npu"),
        # a colon that a claim of its own follows ends the denial before it
        (RISK, "one tenant can crash the others"),
        (GANG, "It's alpha (Workload API with a minCount), so in prod people still use Kueue."),
        # a doubt about another choice taken back by a "but" that denies
        (HOOK, "A — D sounds close but it's not just privileged pods, any workload escapes"),
        # "splits between" is no hedge between two choices
        (SCHEDULERS, "fixed share. equal share only splits between *running* guests"),
        # a later remark that says another choice is no hedge and no second pick
        (MIXED_SIZES, "Fixed Share; mixed sizes only work with Best Effort or Equal Share"),
        (PROFILES, "the 10 GB one. 12gb is the NVL version"),
    ],
)
def test_the_right_choice_with_remarks_still_passes(question, answer: str) -> None:  # type: ignore[no-untyped-def]
    assert verdict(question, answer) is Verdict.CORRECT


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(SCHEDULERS.choices[1:]),
    st.booleans(),
    st.sampled_from(
        ["", ", same thing", ", either works", ", not sure which", ", close but maybe"]
    ),
)
def test_an_opening_hedge_with_a_wrong_choice_never_passes(
    wrong: str, right_first: bool, tail: str
) -> None:
    first, second = ("Fixed Share", wrong) if right_first else (wrong, "Fixed Share")
    assert verdict(SCHEDULERS, f"{first} or {second}{tail}") is not Verdict.CORRECT

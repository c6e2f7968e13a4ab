"""A reply that corrects itself answers with what follows the correction.

"Ampere? no wait, Hopper" names Hopper; "7, scratch that, 4" is 4; "MSP, I mean MPS" is
MPS. A correction opens the reply or follows punctuation or a dash: "no wait", "wait, no",
"wait", "actually, no", "scratch that", "on second thought", "correction", "I mean", "make
that", "oops", and the softer bare "actually" and "no," (which the choice grader accepts
only before a short pick: "A... actually B", not "A. Actually B is a common mistake").
"""

from __future__ import annotations

import re

CORRECTION = re.compile(
    r"(?:^|[.,;!?…]|\s[-—–]+)\s*(?:(no\s+wait|wait\s*,?\s*no|wait|actually\s*,?\s*no"
    r"|no\s*,?\s*actually|scratch\s+that|on\s+second\s+thoughts?|correction|i\s+mean"
    r"|make\s+that|oops)|(actually|no(?=\s*,)))\b[\s,:.!-]*",
    re.IGNORECASE,
)


def last_correction(answer: str) -> re.Match[str] | None:
    """The last place where ``answer`` takes back what it said before (with something after
    it), or None."""
    last = None
    for m in CORRECTION.finditer(answer):
        if m.end() < len(answer) and m.start() > 0:
            last = m
    return last


def corrected(answer: str) -> str | None:
    """What ``answer`` says after its last unmistakable self-correction (not a bare
    "actually" or "no,"), or None when it makes none."""
    last = last_correction(answer)
    if last is None or not last.group(1):
        return None
    return answer[last.end() :].strip() or None

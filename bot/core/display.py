"""The order in which a choice question's choices are shown.

Packs list the right answer first more often than not, so every post and every session
shows the choices in an order of its own, the same every time it is shown again: the
order is seeded by the post or session (``daily:<prompt id>``, ``quiz:<session id>``,
``mock:<mock id>``) and the question id. The packs are never reordered.

What is shown is also what is graded: :func:`displayed` returns a copy of the question
whose ``choices`` are in the displayed order, so a letter (``B``), a button, "the second
one" and the reveal's letter all mean the choice the user saw there. Regrading an old
attempt rebuilds the same copy from the attempt's post or session (:func:`seed_of`).

The order depends only on the seed, the question id and the choice texts (each choice's
place is a hash of the three), so applying :func:`displayed` to a copy already in
displayed order changes nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Final, overload

from bot.core.content import Question

SHUFFLED_KINDS: Final = ("choice", "multi")


def daily_seed(prompt_id: int) -> str:
    return f"daily:{prompt_id}"


def quiz_seed(session_id: int) -> str:
    """Personal quizzes, reviews and live rounds (one quiz session each)."""
    return f"quiz:{session_id}"


def seed_of(daily_prompt_id: int | None, quiz_session_id: int | None) -> str | None:
    """The seed an attempt was shown with, from the post or session it answered; None when
    it answered neither (its choices were shown in pack order)."""
    if daily_prompt_id is not None:
        return daily_seed(daily_prompt_id)
    if quiz_session_id is not None:
        return quiz_seed(quiz_session_id)
    return None


def _place(seed: str, question_id: str, choice: str) -> bytes:
    return hashlib.sha256(f"{seed}\x00{question_id}\x00{choice}".encode()).digest()


def display_order(question: Question, seed: str) -> tuple[str, ...]:
    """The question's choices in the order shown for ``seed``."""
    if question.kind not in SHUFFLED_KINDS or len(question.choices) < 2:
        return question.choices
    return tuple(sorted(question.choices, key=lambda c: _place(seed, question.id, c)))


@overload
def displayed(question: Question, seed: str | None) -> Question: ...


@overload
def displayed(question: None, seed: str | None) -> None: ...


def displayed(question: Question | None, seed: str | None) -> Question | None:
    """A copy of ``question`` with its choices in the order shown for ``seed`` (the same
    question for other kinds, for no seed, or for None)."""
    if question is None or seed is None or question.kind not in SHUFFLED_KINDS:
        return question
    order = display_order(question, seed)
    return question if order == question.choices else replace(question, choices=order)

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

Outside the bot the pack's order is the only order there is (``studybot grade``), so an
answer that names choices by letter or place is written in the pack's letters before it
leaves (:func:`in_pack_order`, for the disputes export).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from functools import lru_cache
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


def letter(index: int) -> str:
    """The letter of the choice at ``index`` (0 is A)."""
    return chr(ord("A") + index)


def choice_lines(question: Question) -> str:
    """The question's choices, one a line, each after its letter (``A) …``), in the order of
    this copy: pass the :func:`displayed` one to show them as a post or session did."""
    return "\n".join(f"{letter(i)}) {text}" for i, text in enumerate(question.choices))


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
    return _shown(question, seed)


@lru_cache(maxsize=1024)
def _shown(question: Question, seed: str) -> Question:
    # kept: every card, grade and reveal of a post or session asks for the same copy
    order = display_order(question, seed)
    return question if order == question.choices else replace(question, choices=order)


def in_pack_order(question: Question, seed: str | None, answer: str) -> str:
    """``answer``, given to ``question`` as shown for ``seed``, written so that graded
    against the pack's own order it names the same choices: as it is when it names them in
    words (or the order was the pack's), else the pack's letters of the choices it named
    ("B" shown as the pack's fourth choice becomes "D"; "the first two" of a multi question
    becomes "A, C"). An answer that names no choice is returned as it is."""
    shown = displayed(question, seed)
    if shown.choices == question.choices:
        return answer
    from bot.core.grading.choice import named_choices

    meant = {shown.choices[i] for i in named_choices(shown, answer)}
    if not meant or meant == {question.choices[i] for i in named_choices(question, answer)}:
        return answer
    return ", ".join(letter(i) for i, text in enumerate(question.choices) if text in meant)

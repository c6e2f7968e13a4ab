"""The questions of a mock: open questions with a rubric, one per round."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from bot.core.bank import QuestionBank
from bot.core.content import Question
from bot.core.errors import UserError
from bot.core.mastery import WEAK_MEAN, scores_of, weakest_topics
from bot.core.mock.model import (
    FORMATS,
    ROUND_TOPICS,
    Mock,
    NewRound,
    format_topics,
)
from bot.core.model import User, Workspace
from bot.core.ports import UnitOfWork

# -- questions -------------------------------------------------------------------------------


def open_questions(bank: QuestionBank, kind: str) -> list[Question]:
    """Open questions with a rubric that a round of ``kind`` can ask."""
    return [
        q
        for topic in ROUND_TOPICS[kind]
        for q in bank.in_topic(topic)
        if q.kind == "open" and q.rubric
    ]


def check_bank(bank: QuestionBank, fmt: str) -> None:
    """Raise UserError when the bank cannot fill every round of ``fmt`` with its own question."""
    need: dict[str, int] = {}
    for kind in FORMATS[fmt]:
        need[kind] = need.get(kind, 0) + 1
    for kind, n in need.items():
        have = len(open_questions(bank, kind))
        if have < n:
            others = [
                f
                for f in FORMATS
                if f != fmt
                and all(
                    len(open_questions(bank, k)) >= FORMATS[f].count(k) for k in set(FORMATS[f])
                )
            ]
            hint = f" Try the {others[0]} format." if others else ""
            raise UserError(
                f"The question bank has {have} open {kind} question{'s' * (have != 1)} with a "
                f"rubric; a {fmt} mock needs {n}.{hint}"
            )


def pick_rounds(
    bank: QuestionBank, mock: Mock, seen: set[str], weak: Sequence[str] = ()
) -> list[NewRound]:
    """One open rubric question per round: ones the candidate has not had in a mock first,
    different topics within a mock where the bank allows, in a stable per-mock order.

    With ``weak`` (the candidate's weak topics, weakest first: a ``focus=weak`` mock) a
    round takes a question of a weak topic when it can: one not used in this mock yet, the
    weakest first, then one the candidate has not had."""
    rank = {topic: i for i, topic in enumerate(weak)}
    chosen: list[NewRound] = []
    used_ids: set[str] = set()
    used_topics: set[str] = set()
    for position, kind in enumerate(mock.kinds):
        pool = sorted(
            open_questions(bank, kind),
            key=lambda q: hashlib.sha256(f"{mock.id}:{q.id}".encode()).hexdigest(),
        )
        if not pool:
            continue
        best = min(
            pool,
            key=lambda q: (
                q.id in used_ids,
                q.topic not in rank,
                bool(rank) and q.topic in used_topics,
                rank.get(q.topic, 0),
                q.id in seen,
                q.topic in used_topics,
            ),
        )
        used_ids.add(best.id)
        used_topics.add(best.topic)
        chosen.append(NewRound(position, kind, best.topic, best.id))
    return chosen


# -- focus=weak ------------------------------------------------------------------------------


def weak_for(
    uow: UnitOfWork, bank: QuestionBank, workspace: Workspace, user: User, fmt: str
) -> list[tuple[str, float]]:
    """The user's weak topics (weakest first, with their mean score) that a mock of ``fmt``
    has open rubric questions in."""
    askable = {q.topic for kind in set(FORMATS[fmt]) for q in open_questions(bank, kind)}
    return [(t, mean) for t, mean in weakest_topics(uow, bank, workspace, user) if t in askable]


def focus_note(
    uow: UnitOfWork, bank: QuestionBank, workspace: Workspace, user: User, fmt: str
) -> str:
    """What ``focus=weak`` does for ``user``'s mock of ``fmt``, in a sentence."""
    weak = weak_for(uow, bank, workspace, user, fmt)
    if weak:
        listed = ", ".join(f"{t} ({round(mean * 100)}%)" for t, mean in weak)
        return f"Focus: its questions come from your weakest topics first: {listed}."
    answered = set(scores_of(uow, bank, workspace, user))
    if not answered & set(format_topics(fmt)):
        return (
            f"Focus on weak topics: you have no answers yet in the topics of a {fmt} mock, so "
            "I can't tell which are weak; it draws its questions as usual."
        )
    return (
        f"Focus on weak topics: none of a {fmt} mock's topics is weak for you (all "
        f"{round(WEAK_MEAN * 100)}% or better), so it draws its questions as usual."
    )

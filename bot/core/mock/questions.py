"""The questions of a mock: open questions with a rubric, one per round."""

from __future__ import annotations

import hashlib

from bot.core.bank import QuestionBank
from bot.core.content import Question
from bot.core.errors import UserError
from bot.core.mock.model import (
    FORMATS,
    ROUND_TOPICS,
    Mock,
    NewRound,
)

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


def pick_rounds(bank: QuestionBank, mock: Mock, seen: set[str]) -> list[NewRound]:
    """One open rubric question per round: ones the candidate has not had in a mock first,
    different topics within a mock where the bank allows, in a stable per-mock order."""
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
            key=lambda q: (q.id in used_ids, q.id in seen, q.topic in used_topics),
        )
        used_ids.add(best.id)
        used_topics.add(best.topic)
        chosen.append(NewRound(position, kind, best.topic, best.id))
    return chosen

"""Which question a channel gets next: least-used questions of the channel's pool first (no
repeat until the pool is exhausted), then the difficulty furthest behind the mix, the topic
used least recently, and what the fewest channel members have answered.
"""

from __future__ import annotations

import hashlib
import weakref
from collections import Counter
from collections.abc import Mapping, Sequence

from bot.core.bank import QuestionBank
from bot.core.content import Question
from bot.core.daily.schedule import (
    Schedule,
)


def _order_key(channel_id: int, question_id: str) -> str:
    return hashlib.sha256(f"{channel_id}:{question_id}".encode()).hexdigest()


_POOLS: weakref.WeakKeyDictionary[QuestionBank, dict[tuple[object, ...], list[Question]]] = (
    weakref.WeakKeyDictionary()
)


def eligible(bank: QuestionBank, schedule: Schedule) -> list[Question]:
    """The channel's pool: questions in its topics and for its roles (all when unset)."""
    pools = _POOLS.setdefault(bank, {})
    key = (schedule.topics, schedule.roles)
    if key not in pools:
        pools[key] = _eligible(bank, schedule)
    return pools[key]


def _eligible(bank: QuestionBank, schedule: Schedule) -> list[Question]:
    questions = bank.all()
    if schedule.topics:
        wanted = set(schedule.topics)
        questions = [q for q in questions if q.topic in wanted]
    if schedule.roles:
        roles = set(schedule.roles)
        questions = [q for q in questions if roles & set(q.roles)]
    return questions


def choose_question(
    bank: QuestionBank,
    schedule: Schedule,
    history: Sequence[str],
    seen: Mapping[str, int],
    channel_id: int,
) -> Question | None:
    """The channel's next question, or None when its pool is empty.

    1. Never repeat until the pool is exhausted: only the least-used questions qualify.
    2. Follow the difficulty mix: the difficulty furthest behind its share so far.
    3. Rotate topics: the topic used least recently.
    4. Prefer what few members have seen; then a stable per-channel order.
    """
    pool = eligible(bank, schedule) or bank.all()
    if not pool:
        return None
    if history:
        uses = Counter(history)
        least = min(uses[q.id] for q in pool)
        candidates = [q for q in pool if uses[q.id] == least]
    else:
        candidates = pool
    if schedule.mix:
        available = sorted({q.difficulty for q in candidates} & set(schedule.mix))
        if available:
            past = Counter(q.difficulty for qid in history if (q := bank.get(qid)) is not None)
            total = sum(schedule.mix.values())
            n = len(history) + 1

            def deficit(d: int) -> float:
                return schedule.mix[d] / total * n - past[d]

            target = max(available, key=deficit)
            candidates = [q for q in candidates if q.difficulty == target]
    last_used: dict[str, int] = {}
    for position, qid in enumerate(history):
        q = bank.get(qid)
        if q is not None:
            last_used[q.topic] = position
    topic = min(sorted({q.topic for q in candidates}), key=lambda t: last_used.get(t, -1))
    in_topic = [q for q in candidates if q.topic == topic]
    return min(in_topic, key=lambda q: (seen.get(q.id, 0), _order_key(channel_id, q.id)))

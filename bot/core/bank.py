"""The question bank: every question of the loaded packs, indexed for the use cases."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from bot.core.content import PACKS_DIR, Pack, Question, load_packs, pack_files


class QuestionBank:
    """Questions by id and by topic, in pack order."""

    def __init__(self, questions: Iterable[Question]) -> None:
        self._by_id: dict[str, Question] = {}
        self._by_topic: dict[str, list[Question]] = defaultdict(list)
        for q in questions:
            self._by_id[q.id] = q
            self._by_topic[q.topic].append(q)

    @classmethod
    def from_packs(cls, packs: Iterable[Pack]) -> QuestionBank:
        return cls(q for pack in packs for q in pack.questions)

    @classmethod
    def load(cls, directory: Path = PACKS_DIR) -> QuestionBank:
        """Load every pack in ``directory``; raises ContentError listing every problem."""
        return cls.from_packs(load_packs(pack_files(directory)))

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Question]:
        return iter(self._by_id.values())

    def get(self, question_id: str) -> Question | None:
        return self._by_id.get(question_id)

    def all(self) -> list[Question]:
        return list(self._by_id.values())

    def topics(self) -> list[str]:
        return sorted(self._by_topic)

    def in_topic(self, topic: str) -> list[Question]:
        return list(self._by_topic.get(topic, ()))

"""The question bank: every question of the loaded packs, indexed for the use cases."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from bot.core import content
from bot.core.content import Pack, Question, ValidatedPacks, bank_files, load_packs
from bot.core.errors import ConfigError


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
    def load(
        cls,
        extra_dirs: Sequence[Path] = (),
        *,
        bundled: Path | None = None,
        validated: ValidatedPacks | None = None,
    ) -> QuestionBank:
        """The packs that ship with studybot (``bundled``, default the package's own) and every
        pack in ``extra_dirs`` (``STUDYBOT_PACKS``), as one bank. With ``validated``, packs
        whose bytes passed validation before are not validated again (see ValidatedPacks).

        Raises ContentError listing every problem of the packs, and ConfigError when there is
        not one question to ask.
        """
        bundled = bundled if bundled is not None else content.PACKS_DIR
        bank = cls.from_packs(load_packs(bank_files(extra_dirs, bundled), validated))
        if not len(bank):
            where = ", ".join(str(d) for d in (bundled, *extra_dirs))
            raise ConfigError(
                f"there are no questions to ask: no pack in {where}; reinstall studybot, "
                "or set STUDYBOT_PACKS to a directory of packs"
            )
        return bank

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

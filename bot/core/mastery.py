"""What a user's answers say about their topics: per-topic scores and the weak topics.

Read by ``/stats``, personal quiz choice, a mock's ``focus=weak`` and the interview goal;
``StatsRepository`` (``uow[STATS]``) is the one query behind it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Protocol

from bot.core.bank import QuestionBank
from bot.core.model import User, Workspace
from bot.core.ports import Port, UnitOfWork
from bot.core.srs import REVIEWS

WEAK_MEAN = 0.7  # a topic whose answers score less than this on average is weak


class StatsRepository(Protocol):
    def answers_by_question(
        self, workspace: Workspace, user: User
    ) -> list[tuple[str, int, float, int]]:
        """Per question the user answered: (question id, answers, sum of scores, correct)."""
        ...


STATS = Port[StatsRepository]("stats")


def scores_of(
    uow: UnitOfWork, bank: QuestionBank, workspace: Workspace, user: User
) -> dict[str, tuple[float, int, int]]:
    """Per topic: (mean score, answers, correct answers) of ``user``."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0, 0])
    for question_id, count, score_sum, correct in uow[STATS].answers_by_question(workspace, user):
        question = bank.get(question_id)
        if question is None:
            continue
        t = totals[question.topic]
        t[0] += score_sum
        t[1] += count
        t[2] += correct
    return {topic: (t[0] / t[1], int(t[1]), int(t[2])) for topic, t in totals.items() if t[1]}


def weakest_topics(
    uow: UnitOfWork, bank: QuestionBank, workspace: Workspace, user: User
) -> list[tuple[str, float]]:
    """The user's weak topics, weakest first, with their mean score: those whose answers
    score below ``WEAK_MEAN`` on average, or holding a review card the user lapsed on and
    last failed; ties go to the topic with more such cards."""
    scores = scores_of(uow, bank, workspace, user)
    failing: dict[str, int] = defaultdict(int)
    for card in uow[REVIEWS].for_user(workspace, user):
        question = bank.get(card.question_id)
        if question is not None and card.state.get("last_rating") == 1:  # Rating.Again
            failing[question.topic] += 1
    weak = [
        (topic, mean)
        for topic, (mean, _n, _c) in scores.items()
        if mean < WEAK_MEAN or failing[topic]
    ]
    return sorted(weak, key=lambda tm: (tm[1], -failing[tm[0]], tm[0]))

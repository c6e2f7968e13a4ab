"""After a mock: the questions behind the rubric points the candidate missed become review
cards, due by the next day in the candidate's zone (a card they already have is brought
forward, its memory state kept), so ``/review`` and a personal ``/quiz`` pick them up."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from bot.core import srs
from bot.core.bank import QuestionBank
from bot.core.mock.model import ANSWERED, TIMED_OUT, Round
from bot.core.model import User, Workspace
from bot.core.ports import UnitOfWork
from bot.core.srs import REVIEWS
from bot.core.timezones import zone


def missed_points(r: Round) -> bool:
    """Whether round ``r`` left rubric points unmade: an answer that missed some, or none
    within the time box (every point missed)."""
    return r.outcome == TIMED_OUT or (r.outcome == ANSWERED and bool(r.missed))


def review_missed(
    uow: UnitOfWork,
    bank: QuestionBank,
    workspace: Workspace,
    candidate: User,
    rounds: list[Round],
    now: datetime,
) -> int:
    """Make each question with missed points due by the start of the candidate's next local
    day (it may be due sooner already); returns how many questions that is."""
    local = now.astimezone(zone(candidate.timezone or workspace.timezone))
    due = datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=local.tzinfo)
    due = due.astimezone(UTC)
    ids = {r.question_id for r in rounds if missed_points(r) and bank.get(r.question_id)}
    for question_id in sorted(ids):
        card = uow[REVIEWS].get(candidate, question_id)
        moved = srs.due_by(card, user=candidate, question_id=question_id, due=due)
        if moved is not card:
            uow[REVIEWS].save(moved)
    return len(ids)

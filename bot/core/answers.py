"""Recording an answer: the one use case that decides what an answer does.

Every answer path (the daily question, a personal quiz or review, a live round, a mock
round) grades through :func:`grade_answer` and stores through :func:`record_answer`, so the
rules live here and only here (docs/architecture.md, "What an answer does"):

- A reply that is not an answer at all (``Grade.answered`` is False: it names no choice,
  holds no number, cannot be read) records nothing: no attempt, no streak, no review, no
  points, and a daily prompt's scored attempt is not used up. The user gets the grader's
  hint privately (:class:`NotAnAnswer`, a UserError, so the transaction rolls back).
- Every real answer, of any kind, is stored as an attempt and counts as streak activity.
- Points only for the scored answer to a daily prompt and for a live question's winner.
- Board activity (a row on the leaderboards, an "active member" of a team) only for an
  answer that earned points.
- Quiz, live and mock answers move the question's review card (spaced repetition); daily
  answers do not. The answer that makes a card a leech (``srs.LEECH_LAPSES`` days failed)
  suspends it and tells the user once: a quiz in its grade reply
  (``RecordedAnswer.new_leech``), a live or mock answer by DM.
- Every grade reply that is not correct carries a Dispute button for its attempt
  (:func:`dispute_button`; what a dispute does: ``bot.core.disputes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.core import goal, leaderboard, srs
from bot.core.content import Question
from bot.core.context import Context
from bot.core.errors import UserError
from bot.core.grading import Grade, Verdict
from bot.core.messages import OUTBOX, Button, Card, Delivery, Outgoing
from bot.core.model import ATTEMPTS, Attempt
from bot.core.reviews import leech_notice
from bot.core.srs import REVIEWS
from bot.core.streaks import StreakUpdate, record_activity, streak_note


class AnswerKind(StrEnum):
    DAILY = "daily"
    QUIZ = "quiz"  # a personal quiz or review
    LIVE = "live"
    MOCK = "mock"


DISPUTE = "dispute"  # the action prefix of a grade's Dispute button: ``dispute:<attempt id>``

REVIEWED = frozenset({AnswerKind.QUIZ, AnswerKind.LIVE, AnswerKind.MOCK})


class NotAnAnswer(UserError):
    """The reply is not an answer; its message is the grader's hint. Nothing is recorded."""


@dataclass(frozen=True, slots=True)
class AnswerTo:
    """What an answer answers, and what it may earn.

    ``asked_at`` is when the question was shown (a quick right answer eases its review);
    ``scored`` marks the one answer of a daily prompt that counts; ``points`` are what the
    caller's rule gives (the daily's difficulty points, a live winner's speed bonus).
    """

    kind: AnswerKind
    question: Question
    daily_prompt_id: int | None = None
    quiz_session_id: int | None = None
    asked_at: datetime | None = None
    scored: bool = False
    points: int = 0


@dataclass(frozen=True, slots=True)
class RecordedAnswer:
    attempt: Attempt
    streak: StreakUpdate
    card: srs.ReviewCard | None = None
    new_leech: bool = False  # this answer made the card a leech (suspended; tell the user once)

    @property
    def streak_note(self) -> str:
        """One line for the grade reply when the answer changed the streak ("" if not)."""
        return streak_note(self.streak)

    @property
    def dispute_buttons(self) -> tuple[Button, ...]:
        """The Dispute button of this answer's grade reply; none for a correct grade, which
        there is nothing to dispute about."""
        if self.attempt.verdict == Verdict.CORRECT.value:
            return ()
        return (dispute_button(self.attempt),)


def dispute_button(attempt: Attempt) -> Button:
    """A button that disputes ``attempt``'s grade (``dispute:<attempt id>``)."""
    if attempt.id is None:
        raise ValueError("only a stored attempt can be disputed")
    return Button("Dispute", f"{DISPUTE}:{attempt.id}")


def grade_answer(ctx: Context, question: Question, text: str) -> Grade:
    """Grade ``text`` with the configured grader (``Services.grade``).

    Raises NotAnAnswer (with the grader's hint) for a reply that is not an answer, and
    UserError for an empty one; either way nothing has been written."""
    result = ctx.services.grade(question, text)
    if not result.answered:
        raise NotAnAnswer(result.feedback)
    return result


def record_answer(
    ctx: Context, text: str, result: Grade, to: AnswerTo, now: datetime
) -> RecordedAnswer:
    """Store the acting user's answer ``text`` to ``to.question`` with its grade, and do
    what the rules above say it does, in ``ctx``'s transaction (the caller commits).

    Returns the attempt as stored (unscored, with no points, when another answer to the
    same daily prompt was scored first), the streak update and the review card. Raises
    NotAnAnswer for a grade that is not an answer, and ValueError when a kind is given
    what it cannot earn."""
    if not result.answered:
        raise NotAnAnswer(result.feedback)
    if to.scored and to.kind is not AnswerKind.DAILY:
        raise ValueError("only a daily prompt's answer is scored")
    if to.points and to.kind not in (AnswerKind.DAILY, AnswerKind.LIVE):
        raise ValueError(f"{to.kind} answers earn no points")
    if to.points and to.kind is AnswerKind.DAILY and not to.scored:
        raise ValueError("a practice answer to a daily prompt earns no points")
    question = to.question
    attempt = ctx.uow[ATTEMPTS].add(
        Attempt(
            user_id=ctx.user.id,
            workspace_id=ctx.workspace.id,
            question_id=question.id,
            answer=text,
            score=result.score,
            verdict=result.verdict.value,
            feedback=result.feedback,
            grader_version=result.grader,
            grader_model=result.model,
            content_hash=question.content_hash,
            answered_at=now,
            daily_prompt_id=to.daily_prompt_id,
            quiz_session_id=to.quiz_session_id,
            scored=to.scored,
            points=to.points,
        )
    )
    if attempt.points > 0:
        leaderboard.record(ctx.uow, ctx.workspace, ctx.user.id, attempt.points, now)
    card, new_leech = None, False
    if to.kind in REVIEWED:
        before = ctx.uow[REVIEWS].get(ctx.user, question.id)
        card = _review(ctx, before, question, result, to.asked_at, now)
        new_leech = srs.became_leech(before, card)
        if new_leech and to.kind is not AnswerKind.QUIZ:
            # a quiz shows the notice in its grade reply; live and mock replies are not
            # the place for it, so it goes by DM (once: the outbox key is the lapse)
            ctx.uow[OUTBOX].add(
                ctx.workspace,
                ctx.workspace.platform,
                Outgoing(
                    Delivery.DM,
                    ctx.user.external_id,
                    Card(
                        title="A question you keep missing", blocks=(leech_notice(question, card),)
                    ),
                    key=f"leech:{ctx.user.id}:{question.id}:{card.lapses}",
                ),
                f"leech:{ctx.user.id}:{question.id}:{card.lapses}",
                now,
            )
    return RecordedAnswer(attempt, record_activity(ctx.uow, ctx.user, now), card, new_leech)


def _review(
    ctx: Context,
    card: srs.ReviewCard | None,
    question: Question,
    result: Grade,
    asked_at: datetime | None,
    now: datetime,
) -> srs.ReviewCard:
    seconds = (now - asked_at).total_seconds() if asked_at else None
    rating = srs.rating_for(
        result.verdict.value,
        quick=srs.is_quick(question.kind, seconds),
        seen_before=card is not None,
    )
    new_card = srs.review(
        card,
        user=ctx.user,
        question_id=question.id,
        rating=rating,
        now=now,
        zone=ctx.user_zone,
        retention=goal.retention_for(ctx),
        missed=result.missed,
        due_by=goal.review_deadline(ctx),
    )
    ctx.uow[REVIEWS].save(new_card)
    return new_card

"""Recording an answer: one place that turns a grade into the attempt the database keeps."""

from __future__ import annotations

from datetime import datetime

from bot.core.content import Question
from bot.core.context import Context
from bot.core.grading import Grade
from bot.core.model import Attempt


def record_attempt(
    ctx: Context,
    question: Question,
    answer: str,
    result: Grade,
    answered_at: datetime,
    *,
    daily_prompt_id: int | None = None,
    quiz_session_id: int | None = None,
    scored: bool = False,
    points: int = 0,
) -> Attempt:
    """Store the acting user's ``answer`` to ``question`` with its grade and the grader's
    version; returns it with its id (unscored if another answer was scored first)."""
    return ctx.uow.attempts.add(
        Attempt(
            user_id=ctx.user.id,
            workspace_id=ctx.workspace.id,
            question_id=question.id,
            answer=answer,
            score=result.score,
            verdict=result.verdict.value,
            feedback=result.feedback,
            grader_version=result.grader,
            content_hash=question.content_hash,
            answered_at=answered_at,
            daily_prompt_id=daily_prompt_id,
            quiz_session_id=quiz_session_id,
            scored=scored,
            points=points,
        )
    )

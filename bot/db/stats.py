"""SQL reads behind ``/stats`` and the quizzes' weak-topic choice."""

from __future__ import annotations

from sqlalchemy import case, func, select

from bot.core.model import User, Workspace
from bot.db.models import AttemptRow
from bot.db.repositories import _Repo


class SqlStats(_Repo):
    def answers_by_question(
        self, workspace: Workspace, user: User
    ) -> list[tuple[str, int, float, int]]:
        rows = self.session.execute(
            select(
                AttemptRow.question_id,
                func.count(),
                func.sum(AttemptRow.score),
                func.sum(case((AttemptRow.verdict == "correct", 1), else_=0)),
            )
            .where(AttemptRow.user_id == user.id, AttemptRow.workspace_id == workspace.id)
            .group_by(AttemptRow.question_id)
        ).all()
        return [(q, int(n), float(s or 0.0), int(c or 0)) for q, n, s, c in rows]

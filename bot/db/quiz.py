"""SQL storage of quizzes (``quiz_session``) and spaced-repetition cards (``review_card``)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from bot.core.model import Attempt, Channel, User, Workspace
from bot.core.quiz.model import LIVE, OPEN, NewQuiz, QuizSession
from bot.core.srs import ReviewCard
from bot.db.models import (
    AttemptRow,
    ChannelRow,
    QuizSessionRow,
    ReviewCardRow,
    ReviewSettingRow,
    WorkspaceRow,
)
from bot.db.repositories import _attempt, _channel, _Repo, _workspace


def _session(row: QuizSessionRow) -> QuizSession:
    return QuizSession(
        id=row.id,
        workspace_id=row.workspace_id,
        user_id=row.user_id,
        channel_id=row.channel_id,
        mode=row.mode,
        status=row.status,
        topic=row.topic,
        question_ids=tuple(row.question_ids),
        position=row.position,
        asked_at=row.asked_at,
        due_at=row.due_at,
        data=dict(row.data),
        started_at=row.started_at,
    )


class SqlQuizzes(_Repo):
    def _open(self, workspace: Workspace, key: str) -> QuizSession | None:
        row = self.session.scalars(
            select(QuizSessionRow).where(
                QuizSessionRow.open_key == key, QuizSessionRow.workspace_id == workspace.id
            )
        ).one_or_none()
        return _session(row) if row is not None else None

    def open_for_user(self, workspace: Workspace, user: User) -> QuizSession | None:
        return self._open(workspace, f"user:{user.id}")

    def open_live(self, workspace: Workspace, channel: Channel) -> QuizSession | None:
        return self._open(workspace, f"live:{channel.id}")

    def get(self, workspace: Workspace, session_id: int) -> QuizSession | None:
        row = self.session.get(QuizSessionRow, session_id)
        return _session(row) if row is not None and row.workspace_id == workspace.id else None

    def start(self, workspace: Workspace, quiz: NewQuiz, now: datetime) -> QuizSession | None:
        row = QuizSessionRow(
            workspace_id=workspace.id,
            user_id=quiz.user.id if quiz.user else None,
            channel_id=quiz.channel.id,
            mode=quiz.mode,
            status=OPEN,
            topic=quiz.topic,
            question_ids=list(quiz.question_ids),
            position=0,
            asked_at=quiz.asked_at,
            due_at=quiz.due_at,
            data=dict(quiz.data),
            started_at=now,
            updated_at=now,
            open_key=quiz.open_key,
        )
        try:
            with self.session.begin_nested():
                self.session.add(row)
        except IntegrityError:
            return None
        return _session(row)

    def move(
        self,
        session: QuizSession,
        *,
        position: int,
        asked_at: datetime | None,
        due_at: datetime | None,
        data: dict[str, Any],
        status: str,
        now: datetime,
    ) -> QuizSession | None:
        values: dict[str, Any] = {
            "position": position,
            "asked_at": asked_at,
            "due_at": due_at,
            "data": data,
            "status": status,
            "updated_at": now,
        }
        if status != OPEN:
            values["open_key"] = None
        result = self.session.execute(
            update(QuizSessionRow)
            .where(
                QuizSessionRow.id == session.id,
                QuizSessionRow.position == session.position,
                QuizSessionRow.status == OPEN,
            )
            .values(**values)
        )
        if getattr(result, "rowcount", 0) != 1:
            return None
        return dataclasses.replace(
            session,
            position=position,
            asked_at=asked_at,
            due_at=due_at,
            data=dict(data),
            status=status,
        )

    def live_next_due(self) -> datetime | None:
        return self.session.scalar(
            select(func.min(QuizSessionRow.due_at)).where(
                QuizSessionRow.mode == LIVE, QuizSessionRow.status == OPEN
            )
        )

    def live_due(self, now: datetime) -> list[tuple[Workspace, Channel, QuizSession]]:
        rows = self.session.execute(
            select(WorkspaceRow, ChannelRow, QuizSessionRow)
            .join(ChannelRow, ChannelRow.id == QuizSessionRow.channel_id)
            .join(WorkspaceRow, WorkspaceRow.id == QuizSessionRow.workspace_id)
            .where(
                QuizSessionRow.mode == LIVE,
                QuizSessionRow.status == OPEN,
                QuizSessionRow.due_at <= now,
            )
            .order_by(QuizSessionRow.due_at, QuizSessionRow.id)
        ).all()
        return [(_workspace(w), _channel(c), _session(q)) for w, c, q in rows]

    def answers(self, session: QuizSession, question_id: str | None = None) -> list[Attempt]:
        query = select(AttemptRow).where(
            AttemptRow.quiz_session_id == session.id,
            AttemptRow.workspace_id == session.workspace_id,
        )
        if question_id is not None:
            query = query.where(AttemptRow.question_id == question_id)
        return [_attempt(r) for r in self.session.scalars(query.order_by(AttemptRow.id))]


def _card(row: ReviewCardRow) -> ReviewCard:
    return ReviewCard(
        user_id=row.user_id,
        workspace_id=row.workspace_id,
        question_id=row.question_id,
        state=dict(row.state),
        due_at=row.due_at,
        last_review_at=row.last_review_at,
        reps=row.reps,
        suspended=row.suspended,
        leech=row.leech,
        buried_until=row.buried_until,
    )


class SqlReviews(_Repo):
    def get(self, user: User, question_id: str) -> ReviewCard | None:
        row = self.session.get(ReviewCardRow, (user.id, question_id))
        return _card(row) if row is not None and row.workspace_id == user.workspace_id else None

    def save(self, card: ReviewCard) -> None:
        row = self.session.get(ReviewCardRow, (card.user_id, card.question_id))
        if row is None:
            row = ReviewCardRow(user_id=card.user_id, question_id=card.question_id)
            self.session.add(row)
        row.workspace_id = card.workspace_id
        row.state = dict(card.state)
        row.due_at = card.due_at
        row.last_review_at = card.last_review_at
        row.reps = card.reps
        row.suspended = card.suspended
        row.leech = card.leech
        row.buried_until = card.buried_until
        self.session.flush()

    def for_user(self, workspace: Workspace, user: User) -> list[ReviewCard]:
        rows = self.session.scalars(
            select(ReviewCardRow)
            .where(ReviewCardRow.user_id == user.id, ReviewCardRow.workspace_id == workspace.id)
            .order_by(ReviewCardRow.due_at, ReviewCardRow.question_id)
        )
        return [_card(r) for r in rows]

    def daily_limit(self, user: User) -> int | None:
        row = self.session.get(ReviewSettingRow, user.id)
        return (
            row.daily_limit if row is not None and row.workspace_id == user.workspace_id else None
        )

    def set_daily_limit(self, user: User, limit: int, now: datetime) -> None:
        row = self.session.get(ReviewSettingRow, user.id)
        if row is None:
            row = ReviewSettingRow(user_id=user.id, workspace_id=user.workspace_id)
            self.session.add(row)
        row.daily_limit = limit
        row.updated_at = now
        self.session.flush()

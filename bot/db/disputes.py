"""SQL storage of disputes (``bot.core.disputes``); every read is scoped by workspace."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.core.bank import QuestionBank
from bot.core.display import displayed, in_pack_order, seed_of
from bot.core.disputes import ACCEPTED, OPEN, Dispute, Regrade
from bot.core.model import Attempt, User, Workspace
from bot.db.models import AttemptGradeRow, AttemptRow, DisputeRow, UserRow
from bot.db.repositories import _attempt, _Repo


def _dispute(row: DisputeRow, attempt: AttemptRow, user_name: str) -> Dispute:
    return Dispute(
        id=row.id,
        workspace_id=row.workspace_id,
        attempt_id=row.attempt_id,
        user_id=row.user_id,
        user_name=user_name,
        question_id=attempt.question_id,
        answer=attempt.answer,
        reason=row.reason,
        status=row.status,
        verdict_before=row.verdict_before,
        score_before=row.score_before,
        feedback_before=row.feedback_before,
        grader_before=row.grader_before,
        created_at=row.created_at,
        resolved_at=row.resolved_at,
        resolved_by=row.resolved_by,
        verdict_after=row.verdict_after,
        score_after=row.score_after,
        note=row.note,
        daily_prompt_id=attempt.daily_prompt_id,
        quiz_session_id=attempt.quiz_session_id,
    )


def _display(user: UserRow) -> str:
    return user.name or user.external_id


class SqlDisputes(_Repo):
    def _joined(self) -> Any:
        return (
            select(DisputeRow, AttemptRow, UserRow)
            .join(AttemptRow, AttemptRow.id == DisputeRow.attempt_id)
            .join(UserRow, UserRow.id == DisputeRow.user_id)
        )

    def _many(self, query: Any) -> list[Dispute]:
        return [_dispute(d, a, _display(u)) for d, a, u in self.session.execute(query)]

    def _feedback(self, attempt_id: int) -> str:
        feedback = self.session.scalar(
            select(AttemptGradeRow.feedback)
            .where(AttemptGradeRow.attempt_id == attempt_id)
            .order_by(AttemptGradeRow.id.desc())
            .limit(1)
        )
        return feedback or ""

    def latest_attempt(self, user: User) -> Attempt | None:
        row = self.session.scalars(
            select(AttemptRow)
            .where(AttemptRow.workspace_id == user.workspace_id, AttemptRow.user_id == user.id)
            .order_by(AttemptRow.answered_at.desc(), AttemptRow.id.desc())
            .limit(1)
        ).one_or_none()
        return None if row is None else _attempt(row, self._feedback(row.id))

    def attempt(self, workspace: Workspace, attempt_id: int) -> Attempt | None:
        row = self.session.scalars(
            select(AttemptRow).where(
                AttemptRow.workspace_id == workspace.id, AttemptRow.id == attempt_id
            )
        ).one_or_none()
        return None if row is None else _attempt(row, self._feedback(row.id))

    def add(self, attempt: Attempt, reason: str, now: datetime) -> Dispute | None:
        assert attempt.id is not None
        row = DisputeRow(
            workspace_id=attempt.workspace_id,
            attempt_id=attempt.id,
            user_id=attempt.user_id,
            reason=reason,
            status=OPEN,
            verdict_before=attempt.verdict,
            score_before=attempt.score,
            feedback_before=attempt.feedback,
            grader_before=attempt.grader_version,
            created_at=now,
            note="",
        )
        try:
            with self.session.begin_nested():
                self.session.add(row)
        except IntegrityError:  # one dispute per attempt
            return None
        return self._one(row.workspace_id, row.id)

    def _one(self, workspace_id: int, dispute_id: int) -> Dispute | None:
        found = self._many(
            self._joined().where(
                DisputeRow.workspace_id == workspace_id, DisputeRow.id == dispute_id
            )
        )
        return found[0] if found else None

    def get(self, workspace: Workspace, dispute_id: int) -> Dispute | None:
        return self._one(workspace.id, dispute_id)

    def of_attempt(self, attempt: Attempt) -> Dispute | None:
        found = self._many(
            self._joined().where(
                DisputeRow.workspace_id == attempt.workspace_id,
                DisputeRow.attempt_id == attempt.id,
            )
        )
        return found[0] if found else None

    def listed(self, workspace: Workspace, statuses: Sequence[str], limit: int) -> list[Dispute]:
        order = DisputeRow.id.asc() if tuple(statuses) == (OPEN,) else DisputeRow.id.desc()
        return self._many(
            self._joined()
            .where(DisputeRow.workspace_id == workspace.id, DisputeRow.status.in_(statuses))
            .order_by(order)
            .limit(limit)
        )

    def count(self, workspace: Workspace, statuses: Sequence[str]) -> int:
        return (
            self.session.scalar(
                select(func.count())
                .select_from(DisputeRow)
                .where(DisputeRow.workspace_id == workspace.id, DisputeRow.status.in_(statuses))
            )
            or 0
        )

    def of_user(self, user: User, limit: int) -> list[Dispute]:
        return self._many(
            self._joined()
            .where(DisputeRow.workspace_id == user.workspace_id, DisputeRow.user_id == user.id)
            .order_by(DisputeRow.id.desc())
            .limit(limit)
        )

    def resolve(
        self,
        dispute: Dispute,
        status: str,
        by: User,
        note: str,
        now: datetime,
        regrade: Regrade | None = None,
    ) -> Dispute | None:
        decided = self.session.execute(
            update(DisputeRow)
            .where(
                DisputeRow.id == dispute.id,
                DisputeRow.workspace_id == dispute.workspace_id,
                DisputeRow.status == OPEN,
            )
            .values(
                status=status,
                resolved_at=now,
                resolved_by=by.id,
                note=note,
                verdict_after=None if regrade is None else regrade.verdict,
                score_after=None if regrade is None else regrade.score,
            )
        )
        if getattr(decided, "rowcount", 0) != 1:
            return None
        if regrade is not None:
            attempt = self.session.get(AttemptRow, dispute.attempt_id)
            assert attempt is not None  # the dispute's row references it
            attempt.score, attempt.verdict = regrade.score, regrade.verdict
            attempt.points, attempt.grader_version = regrade.points, regrade.grader
            attempt.grader_model = ""  # an admin's grade: no judge took part
            self.session.add(
                AttemptGradeRow(
                    attempt_id=attempt.id,
                    grader_version=regrade.grader,
                    content_hash=attempt.content_hash,
                    score=regrade.score,
                    verdict=regrade.verdict,
                    feedback=regrade.feedback,
                    graded_at=regrade.at,
                )
            )
            self.session.flush()
        return self._one(dispute.workspace_id, dispute.id)


def accepted_examples(session: Session, bank: QuestionBank) -> Iterator[dict[str, object]]:
    """Every accepted dispute, oldest first, as a labelled example: the question id and the
    answer (the fields ``studybot grade --jsonl`` reads), the admins' label and score, and
    what the grader had said. No user or workspace is named.

    ``studybot grade`` knows the pack's order of the choices only, so a choice answer that
    names choices by letter or place is written in the pack's letters
    (:func:`bot.core.display.in_pack_order`, by ``bank``); the answer as typed and the
    choices in the order the user saw them stay beside it (``typed``, ``choices_shown``)."""
    query = (
        select(DisputeRow, AttemptRow)
        .join(AttemptRow, AttemptRow.id == DisputeRow.attempt_id)
        .where(DisputeRow.status == ACCEPTED)
        .order_by(DisputeRow.id)
        .execution_options(yield_per=500)
    )
    for dispute, attempt in session.execute(query):
        example: dict[str, object] = {"id": attempt.question_id, "answer": attempt.answer}
        question = bank.get(attempt.question_id)
        if question is not None:
            seed = seed_of(attempt.daily_prompt_id, attempt.quiz_session_id)
            answer = in_pack_order(question, seed, attempt.answer)
            if answer != attempt.answer:
                example["answer"] = answer
                example["typed"] = attempt.answer
                example["choices_shown"] = list(displayed(question, seed).choices)
        yield {
            **example,
            "label": dispute.verdict_after,
            "score": dispute.score_after,
            "graded": dispute.verdict_before,
            "graded_score": dispute.score_before,
            "grader": dispute.grader_before,
            "content_hash": attempt.content_hash,
            "reason": dispute.reason,
            "note": dispute.note,
            "dispute": dispute.id,
            "decided_at": dispute.resolved_at.isoformat() if dispute.resolved_at else None,
        }

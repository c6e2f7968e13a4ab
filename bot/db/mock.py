"""SQL storage of mock interviews: mocks, rounds, reminders, availability windows, settings.

Claims use ``SELECT … FOR UPDATE SKIP LOCKED`` (PostgreSQL; SQLite has one writer at a
time anyway), and state moves are compare-and-set updates, so several workers, an
answer racing a time box, or a cancel racing a reminder never both win.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from bot.core.clock import Clock
from bot.core.mock.model import (
    ACTIVE,
    CANCELLED,
    DEBRIEF,
    DECLINED,
    EXPIRED,
    RUNNING,
    SCHEDULED,
    DueReminder,
    Mock,
    MockChanges,
    NewMock,
    NewRound,
    Round,
    RoundResult,
    Window,
)
from bot.core.model import User, Workspace
from bot.db.models import (
    MockInterviewRow,
    MockPrefRow,
    MockRoundRow,
    MockWindowRow,
    OutboxRow,
    ReminderRow,
    UserRow,
    WorkspaceRow,
)
from bot.db.repositories import _user, _workspace

MAX_MOCK_LENGTH = timedelta(hours=4)  # longer than any format × the largest time box


def _mock(row: MockInterviewRow) -> Mock:
    return Mock(
        id=row.id,
        workspace_id=row.workspace_id,
        candidate_id=row.candidate_id,
        interviewer_id=row.interviewer_id,
        channel_id=row.channel_id,
        format=row.format,
        status=row.status,
        starts_at=row.starts_at,
        round_minutes=row.round_minutes,
        thread_ref=row.thread_ref,
        in_dm=row.in_dm,
        position=row.position,
        next_at=row.next_at,
        candidate_accepted_at=row.candidate_accepted_at,
        interviewer_accepted_at=row.interviewer_accepted_at,
        started_at=row.started_at,
        ended_at=row.ended_at,
        sequence=row.sequence,
        declined_by=row.declined_by,
        created_at=row.created_at,
        focus=row.focus,
    )


def _round(row: MockRoundRow) -> Round:
    return Round(
        id=row.id,
        mock_id=row.mock_id,
        position=row.position,
        kind=row.kind,
        topic=row.topic,
        question_id=row.question_id,
        started_at=row.started_at,
        ends_at=row.ends_at,
        answer=row.answer,
        score=row.score,
        verdict=row.verdict,
        matched=tuple(str(m) for m in row.matched or ()),
        missed=tuple(str(m) for m in row.missed or ()),
        feedback=row.feedback or "",
        answered_at=row.answered_at,
        outcome=row.outcome,
        vote=row.vote,
        note=row.note,
    )


def _window(row: MockWindowRow) -> Window:
    days = frozenset(int(d) for d in row.weekdays.split(",") if d)
    return Window(row.id, row.user_id, days, row.start_minute, row.end_minute, row.timezone)


def _remind_key_prefix(mock_id: int) -> str:
    return f"mock:{mock_id}:remind:"


class SqlMocks:
    def __init__(self, session: Session, clock: Clock) -> None:
        self.session = session
        self.clock = clock

    # -- mocks ---------------------------------------------------------------------------

    def add(self, workspace: Workspace, mock: NewMock, now: datetime) -> Mock:
        row = MockInterviewRow(
            workspace_id=workspace.id,
            candidate_id=mock.candidate.id,
            interviewer_id=mock.interviewer.id if mock.interviewer else None,
            channel_id=mock.channel.id,
            format=mock.format,
            status=mock.status,
            starts_at=mock.starts_at,
            round_minutes=mock.round_minutes,
            in_dm=mock.in_dm,
            position=0,
            next_at=mock.starts_at,
            candidate_accepted_at=now if mock.candidate_accepted else None,
            interviewer_accepted_at=now if mock.interviewer_accepted else None,
            sequence=0,
            created_at=now,
            updated_at=now,
            focus=mock.focus,
        )
        self.session.add(row)
        self.session.flush()
        return _mock(row)

    def get(self, workspace: Workspace, mock_id: int, *, lock: bool = False) -> Mock | None:
        query = select(MockInterviewRow).where(
            MockInterviewRow.id == mock_id, MockInterviewRow.workspace_id == workspace.id
        )
        if lock:
            query = query.with_for_update()
        row = self.session.scalars(query.execution_options(populate_existing=True)).one_or_none()
        return _mock(row) if row is not None else None

    def change(
        self,
        mock: Mock,
        changes: MockChanges,
        now: datetime,
        *,
        expect_status: str | None = None,
        expect_position: int | None = None,
    ) -> Mock | None:
        values: dict[str, Any] = {"updated_at": now}
        if changes.status is not None:
            values["status"] = changes.status
        if changes.starts_at is not None:
            values["starts_at"] = changes.starts_at
        if changes.clear_next:
            values["next_at"] = None
        elif changes.next_at is not None:
            values["next_at"] = changes.next_at
        if changes.position is not None:
            values["position"] = changes.position
        if changes.started_at is not None:
            values["started_at"] = changes.started_at
        if changes.ended_at is not None:
            values["ended_at"] = changes.ended_at
        if changes.candidate_accepted is not None:
            values["candidate_accepted_at"] = now if changes.candidate_accepted else None
        if changes.interviewer_accepted is not None:
            values["interviewer_accepted_at"] = now if changes.interviewer_accepted else None
        if changes.drop_interviewer:
            values["interviewer_id"] = None
            values["interviewer_accepted_at"] = None
        if changes.declined_by is not None:
            values["declined_by"] = changes.declined_by
        if changes.bump_sequence:
            values["sequence"] = MockInterviewRow.sequence + 1
        query = update(MockInterviewRow).where(MockInterviewRow.id == mock.id)
        if expect_status is not None:
            query = query.where(MockInterviewRow.status == expect_status)
        if expect_position is not None:
            query = query.where(MockInterviewRow.position == expect_position)
        result = self.session.execute(
            query.values(**values).execution_options(synchronize_session=False)
        )
        if getattr(result, "rowcount", 0) != 1:
            return None
        row = self.session.scalars(
            select(MockInterviewRow)
            .where(MockInterviewRow.id == mock.id)
            .execution_options(populate_existing=True)
        ).one()
        return _mock(row)

    def for_user(
        self, workspace: Workspace, user: User, statuses: tuple[str, ...], limit: int = 50
    ) -> list[Mock]:
        upcoming = all(s in ACTIVE for s in statuses)
        order = MockInterviewRow.starts_at if upcoming else MockInterviewRow.starts_at.desc()
        rows = self.session.scalars(
            select(MockInterviewRow)
            .where(
                MockInterviewRow.workspace_id == workspace.id,
                MockInterviewRow.status.in_(statuses),
                or_(
                    MockInterviewRow.candidate_id == user.id,
                    MockInterviewRow.interviewer_id == user.id,
                ),
            )
            .order_by(order, MockInterviewRow.id)
            .limit(limit)
        )
        return [_mock(r) for r in rows]

    def overlapping(
        self,
        workspace: Workspace,
        user_ids: tuple[int, ...],
        start: datetime,
        end: datetime,
        exclude: int | None = None,
    ) -> list[Mock]:
        query = select(MockInterviewRow).where(
            MockInterviewRow.workspace_id == workspace.id,
            MockInterviewRow.status.in_(ACTIVE),
            or_(
                MockInterviewRow.candidate_id.in_(user_ids),
                MockInterviewRow.interviewer_id.in_(user_ids),
            ),
            MockInterviewRow.starts_at < end,
            MockInterviewRow.starts_at > start - MAX_MOCK_LENGTH,
        )
        if exclude is not None:
            query = query.where(MockInterviewRow.id != exclude)
        found = []
        for row in self.session.scalars(query.order_by(MockInterviewRow.starts_at)):
            mock = _mock(row)
            begins = max(mock.starts_at, mock.started_at or mock.starts_at)
            if begins < end and begins + mock.duration > start:
                found.append(mock)
        return found

    def running_for(self, workspace: Workspace, user: User) -> list[Mock]:
        rows = self.session.scalars(
            select(MockInterviewRow)
            .where(
                MockInterviewRow.workspace_id == workspace.id,
                MockInterviewRow.status.in_((RUNNING, DEBRIEF)),
                or_(
                    MockInterviewRow.candidate_id == user.id,
                    MockInterviewRow.interviewer_id == user.id,
                ),
            )
            .order_by(MockInterviewRow.started_at, MockInterviewRow.id)
        )
        return [_mock(r) for r in rows]

    def thread_ref(self, mock: Mock) -> str | None:
        if mock.thread_ref:
            return mock.thread_ref
        ref = self.session.scalar(
            select(OutboxRow.message_ref).where(
                OutboxRow.key == f"mock:{mock.id}:open", OutboxRow.status == "sent"
            )
        )
        if ref:
            self.session.execute(
                update(MockInterviewRow)
                .where(MockInterviewRow.id == mock.id)
                .values(thread_ref=ref)
                .execution_options(synchronize_session=False)
            )
        return ref

    def next_due(self) -> datetime | None:
        return self.session.scalar(
            select(func.min(MockInterviewRow.next_at)).where(
                MockInterviewRow.status.in_(ACTIVE), MockInterviewRow.next_at.is_not(None)
            )
        )

    def due(self, now: datetime, limit: int) -> list[tuple[Workspace, Mock]]:
        rows = list(
            self.session.scalars(
                select(MockInterviewRow)
                .where(
                    MockInterviewRow.status.in_(ACTIVE),
                    MockInterviewRow.next_at.is_not(None),
                    MockInterviewRow.next_at <= now,
                )
                .order_by(MockInterviewRow.next_at, MockInterviewRow.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
                .execution_options(populate_existing=True)
            )
        )
        out = []
        for row in rows:
            workspace = self.session.get_one(WorkspaceRow, row.workspace_id)
            out.append((_workspace(workspace), _mock(row)))
        return out

    # -- rounds ----------------------------------------------------------------------------

    def add_rounds(self, mock: Mock, rounds: list[NewRound]) -> None:
        for r in rounds:
            self.session.add(
                MockRoundRow(
                    mock_id=mock.id,
                    position=r.position,
                    kind=r.kind,
                    topic=r.topic,
                    question_id=r.question_id,
                    matched=[],
                    missed=[],
                    feedback="",
                )
            )
        self.session.flush()

    def rounds(self, mock: Mock) -> list[Round]:
        rows = self.session.scalars(
            select(MockRoundRow)
            .where(MockRoundRow.mock_id == mock.id)
            .order_by(MockRoundRow.position)
            .execution_options(populate_existing=True)
        )
        return [_round(r) for r in rows]

    def start_round(self, mock: Mock, position: int, at: datetime, ends_at: datetime) -> None:
        self.session.execute(
            update(MockRoundRow)
            .where(MockRoundRow.mock_id == mock.id, MockRoundRow.position == position)
            .values(started_at=at, ends_at=ends_at)
            .execution_options(synchronize_session=False)
        )

    def add_to_answer(self, mock: Mock, position: int, text: str) -> Round | None:
        where = (
            MockRoundRow.mock_id == mock.id,
            MockRoundRow.position == position,
            MockRoundRow.outcome.is_(None),
        )
        gathered = func.coalesce(MockRoundRow.answer + "\n", "") + text
        outcome = self.session.execute(
            update(MockRoundRow)
            .where(*where)
            .values(answer=gathered)
            .execution_options(synchronize_session=False)
        )
        if getattr(outcome, "rowcount", 0) != 1:
            return None
        row = self.session.scalars(
            select(MockRoundRow).where(*where).execution_options(populate_existing=True)
        ).one()
        return _round(row)

    def close_round(self, mock: Mock, position: int, result: RoundResult) -> Round | None:
        values: dict[str, Any] = {"outcome": result.outcome}
        if result.answer is not None:
            values.update(
                answer=result.answer,
                score=result.score,
                verdict=result.verdict,
                matched=list(result.matched),
                missed=list(result.missed),
                feedback=result.feedback,
                answered_at=result.at,
            )
        outcome = self.session.execute(
            update(MockRoundRow)
            .where(
                MockRoundRow.mock_id == mock.id,
                MockRoundRow.position == position,
                MockRoundRow.outcome.is_(None),
            )
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        if getattr(outcome, "rowcount", 0) != 1:
            return None
        row = self.session.scalars(
            select(MockRoundRow)
            .where(MockRoundRow.mock_id == mock.id, MockRoundRow.position == position)
            .execution_options(populate_existing=True)
        ).one()
        return _round(row)

    def vote(self, mock: Mock, position: int, vote: str | None, note: str | None) -> Round:
        row = self.session.scalars(
            select(MockRoundRow)
            .where(MockRoundRow.mock_id == mock.id, MockRoundRow.position == position)
            .with_for_update()
        ).one()
        if vote is not None:
            row.vote = vote
        if note is not None:
            row.note = note
        self.session.flush()
        return _round(row)

    def question_ids_seen(self, workspace: Workspace, user: User) -> set[str]:
        return set(
            self.session.scalars(
                select(MockRoundRow.question_id)
                .join(MockInterviewRow, MockInterviewRow.id == MockRoundRow.mock_id)
                .where(
                    MockInterviewRow.workspace_id == workspace.id,
                    MockInterviewRow.candidate_id == user.id,
                )
            )
        )

    # -- reminders -------------------------------------------------------------------------

    def set_reminders(self, mock: Mock, user: User, due: list[tuple[int, datetime]]) -> None:
        rows = {
            r.offset_minutes: r
            for r in self.session.scalars(
                select(ReminderRow).where(
                    ReminderRow.mock_id == mock.id, ReminderRow.user_id == user.id
                )
            )
        }
        wanted = dict(due)
        for offset, old in rows.items():
            if offset not in wanted and old.sent_at is None:
                old.cancelled = True
        for offset, at in wanted.items():
            row = rows.get(offset)
            if row is None:
                self.session.add(
                    ReminderRow(
                        mock_id=mock.id,
                        user_id=user.id,
                        offset_minutes=offset,
                        due_at=at,
                        cancelled=False,
                    )
                )
            elif row.sent_at is None or row.due_at != at:
                row.due_at, row.sent_at, row.cancelled = at, None, False
        self.session.flush()

    def cancel_reminders(self, mock: Mock, user_id: int | None = None) -> int:
        query = update(ReminderRow).where(
            ReminderRow.mock_id == mock.id,
            ReminderRow.sent_at.is_(None),
            ReminderRow.cancelled.is_(False),
        )
        prefix = _remind_key_prefix(mock.id)
        if user_id is not None:
            query = query.where(ReminderRow.user_id == user_id)
            prefix += f"{user_id}:"
        stopped = self.session.execute(
            query.values(cancelled=True).execution_options(synchronize_session=False)
        )
        now = self.clock.now()
        # DMs already queued but not yet handed to a notifier are withdrawn too.
        withdrawn = self.session.execute(
            update(OutboxRow)
            .where(
                OutboxRow.key.startswith(prefix, autoescape=True),
                OutboxRow.status == "pending",
                or_(OutboxRow.claimed_until.is_(None), OutboxRow.claimed_until < now),
            )
            .values(status="cancelled", last_error="mock cancelled or moved")
            .execution_options(synchronize_session=False)
        )
        return int(getattr(stopped, "rowcount", 0) or 0) + int(
            getattr(withdrawn, "rowcount", 0) or 0
        )

    def next_reminder(self) -> datetime | None:
        return self.session.scalar(
            select(func.min(ReminderRow.due_at))
            .join(MockInterviewRow, MockInterviewRow.id == ReminderRow.mock_id)
            .where(
                ReminderRow.sent_at.is_(None),
                ReminderRow.cancelled.is_(False),
                MockInterviewRow.status == SCHEDULED,
            )
        )

    def claim_reminders(self, now: datetime, limit: int) -> list[DueReminder]:
        due = (
            ReminderRow.due_at <= now,
            ReminderRow.sent_at.is_(None),
            ReminderRow.cancelled.is_(False),
            MockInterviewRow.status == SCHEDULED,
        )
        pairs: list[tuple[ReminderRow, MockInterviewRow]] = [
            (reminder, mock_row)
            for reminder, mock_row in self.session.execute(
                select(ReminderRow, MockInterviewRow)
                .join(MockInterviewRow, MockInterviewRow.id == ReminderRow.mock_id)
                .where(*due)
                .order_by(ReminderRow.due_at, ReminderRow.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
                .execution_options(populate_existing=True)
            )
        ]
        claimed = {reminder.id for reminder, _ in pairs}
        people = {(reminder.mock_id, reminder.user_id) for reminder, _ in pairs}
        for mock_id, user_id in sorted(people):
            # the same person's other due reminders of this mock, beyond the batch
            pairs.extend(
                (reminder, mock_row)
                for reminder, mock_row in self.session.execute(
                    select(ReminderRow, MockInterviewRow)
                    .join(MockInterviewRow, MockInterviewRow.id == ReminderRow.mock_id)
                    .where(*due, ReminderRow.mock_id == mock_id, ReminderRow.user_id == user_id)
                    .with_for_update(skip_locked=True)
                )
                if reminder.id not in claimed
            )
        out = []
        for reminder, mock_row in pairs:
            reminder.sent_at = now
            if mock_row.starts_at <= now:
                continue  # the mock is starting: a reminder now says nothing
            user = self.session.get(UserRow, reminder.user_id)
            workspace = self.session.get(WorkspaceRow, mock_row.workspace_id)
            if user is None or workspace is None:
                continue
            out.append(
                DueReminder(
                    _workspace(workspace),
                    _mock(mock_row),
                    _user(user),
                    reminder.offset_minutes,
                    reminder.due_at,
                )
            )
        self.session.flush()
        return out

    # -- availability and pairing ------------------------------------------------------------

    def windows(self, workspace: Workspace, user: User) -> list[Window]:
        rows = self.session.scalars(
            select(MockWindowRow)
            .where(MockWindowRow.workspace_id == workspace.id, MockWindowRow.user_id == user.id)
            .order_by(MockWindowRow.id)
        )
        return [_window(r) for r in rows]

    def add_window(
        self,
        workspace: Workspace,
        user: User,
        weekdays: frozenset[int],
        start: int,
        end: int,
        timezone: str,
        now: datetime,
    ) -> Window:
        row = MockWindowRow(
            workspace_id=workspace.id,
            user_id=user.id,
            weekdays=",".join(str(d) for d in sorted(weekdays)),
            start_minute=start,
            end_minute=end,
            timezone=timezone,
            created_at=now,
        )
        self.session.add(row)
        self.session.flush()
        return _window(row)

    def clear_windows(self, workspace: Workspace, user: User) -> int:
        result = self.session.execute(
            delete(MockWindowRow).where(
                MockWindowRow.workspace_id == workspace.id, MockWindowRow.user_id == user.id
            )
        )
        return int(getattr(result, "rowcount", 0) or 0)

    def all_windows(self, workspace: Workspace) -> dict[int, list[Window]]:
        found: dict[int, list[Window]] = {}
        rows = self.session.scalars(
            select(MockWindowRow)
            .where(MockWindowRow.workspace_id == workspace.id)
            .order_by(MockWindowRow.user_id, MockWindowRow.id)
        )
        for row in rows:
            found.setdefault(row.user_id, []).append(_window(row))
        return found

    def pair_counts(self, workspace: Workspace, user: User) -> dict[int, int]:
        rows = self.session.execute(
            select(MockInterviewRow.candidate_id, MockInterviewRow.interviewer_id).where(
                MockInterviewRow.workspace_id == workspace.id,
                MockInterviewRow.status.not_in((CANCELLED, DECLINED, EXPIRED)),
                MockInterviewRow.interviewer_id.is_not(None),
                or_(
                    MockInterviewRow.candidate_id == user.id,
                    MockInterviewRow.interviewer_id == user.id,
                ),
            )
        )
        counts: Counter[int] = Counter()
        for candidate_id, interviewer_id in rows:
            other = interviewer_id if candidate_id == user.id else candidate_id
            if other is not None:
                counts[other] += 1
        return dict(counts)

    def declined(self, workspace: Workspace, user: User, since: datetime) -> set[int]:
        rows = self.session.scalars(
            select(MockInterviewRow.declined_by).where(
                MockInterviewRow.workspace_id == workspace.id,
                MockInterviewRow.declined_by.is_not(None),
                MockInterviewRow.declined_by != user.id,
                MockInterviewRow.updated_at >= since,
                or_(
                    MockInterviewRow.candidate_id == user.id,
                    MockInterviewRow.interviewer_id == user.id,
                ),
            )
        )
        return {d for d in rows if d is not None}

    # -- settings ----------------------------------------------------------------------------

    def reminder_offsets(self, user: User) -> list[int] | None:
        row = self.session.get(MockPrefRow, user.id)
        return None if row is None else [int(m) for m in row.reminder_minutes]

    def set_reminder_offsets(self, workspace: Workspace, user: User, offsets: list[int]) -> None:
        row = self.session.get(MockPrefRow, user.id)
        if row is None:
            self.session.add(
                MockPrefRow(user_id=user.id, workspace_id=workspace.id, reminder_minutes=offsets)
            )
        else:
            row.reminder_minutes = list(offsets)
        self.session.flush()

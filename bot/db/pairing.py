"""SQL storage of the weekly pairing rounds (``pairing_channel``, ``pairing_member``,
``pairing_match``)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from sqlalchemy import delete, func, select, update

from bot.core.mock.rounds import PairingMatch, RoundPlan
from bot.core.model import Channel, User, Workspace
from bot.db.models import (
    ChannelRow,
    PairingChannelRow,
    PairingMatchRow,
    PairingMemberRow,
    UserRow,
    WorkspaceRow,
)
from bot.db.repositories import _channel, _Repo, _user, _workspace, insert_row


def _plan(row: PairingChannelRow) -> RoundPlan:
    return RoundPlan(row.channel_id, row.weekday, row.minute, row.timezone, row.next_at)


def _match(row: PairingMatchRow) -> PairingMatch:
    return PairingMatch(
        row.id,
        row.workspace_id,
        row.channel_id,
        row.round_at,
        row.user_id,
        row.partner_id,
        row.mock_id,
        row.slot_at,
        row.reason,
        row.happened,
    )


class SqlPairing(_Repo):
    def plan(self, channel: Channel) -> RoundPlan | None:
        row = self.session.get(PairingChannelRow, channel.id)
        return _plan(row) if row is not None else None

    def save_plan(self, workspace: Workspace, plan: RoundPlan) -> None:
        row = self.session.get(PairingChannelRow, plan.channel_id)
        if row is None:
            row = PairingChannelRow(channel_id=plan.channel_id, workspace_id=workspace.id)
            self.session.add(row)
        row.weekday, row.minute, row.timezone = plan.weekday, plan.minute, plan.timezone
        row.next_at, row.updated_at = plan.next_at, self.clock.now()
        self.session.flush()

    def join(self, channel: Channel, user: User, now: datetime) -> bool:
        values = {"channel_id": channel.id, "user_id": user.id, "joined_at": now}
        return insert_row(self.session, PairingMemberRow, values) is not None

    def leave(self, channel: Channel, user: User) -> bool:
        result = self.session.execute(
            delete(PairingMemberRow).where(
                PairingMemberRow.channel_id == channel.id, PairingMemberRow.user_id == user.id
            )
        )
        return getattr(result, "rowcount", 0) > 0

    def members(self, workspace: Workspace, channel: Channel) -> list[User]:
        rows = self.session.scalars(
            select(UserRow)
            .join(PairingMemberRow, PairingMemberRow.user_id == UserRow.id)
            .where(PairingMemberRow.channel_id == channel.id, UserRow.workspace_id == workspace.id)
            .order_by(UserRow.id)
        )
        return [_user(r) for r in rows]

    def next_due(self) -> datetime | None:
        rounds = self.session.scalar(select(func.min(PairingChannelRow.next_at)))
        checkins = self.session.scalar(
            select(func.min(PairingMatchRow.checkin_at)).where(
                PairingMatchRow.checkin_sent_at.is_(None)
            )
        )
        return min((t for t in (rounds, checkins) if t is not None), default=None)

    def rounds_due(self, now: datetime) -> list[tuple[Workspace, Channel, RoundPlan]]:
        rows = self.session.execute(
            select(WorkspaceRow, ChannelRow, PairingChannelRow)
            .join(ChannelRow, ChannelRow.id == PairingChannelRow.channel_id)
            .join(WorkspaceRow, WorkspaceRow.id == PairingChannelRow.workspace_id)
            .where(PairingChannelRow.next_at <= now)
            .order_by(PairingChannelRow.next_at)
        ).all()
        return [(_workspace(w), _channel(c), _plan(p)) for w, c, p in rows]

    def claim_round(self, plan: RoundPlan, next_at: datetime) -> bool:
        result = self.session.execute(
            update(PairingChannelRow)
            .where(
                PairingChannelRow.channel_id == plan.channel_id,
                PairingChannelRow.next_at == plan.next_at,
            )
            .values(next_at=next_at)
            .execution_options(synchronize_session=False)
        )
        return getattr(result, "rowcount", 0) == 1

    def pair_history(self, channel: Channel) -> dict[frozenset[int], int]:
        rows = self.session.execute(
            select(PairingMatchRow.user_id, PairingMatchRow.partner_id).where(
                PairingMatchRow.channel_id == channel.id,
                PairingMatchRow.partner_id.is_not(None),
                PairingMatchRow.user_id < PairingMatchRow.partner_id,
            )
        ).all()
        return dict(Counter(frozenset((a, b)) for a, b in rows if b is not None))

    def sat_out(self, channel: Channel) -> dict[int, int]:
        rows = self.session.execute(
            select(PairingMatchRow.user_id, func.count())
            .where(PairingMatchRow.channel_id == channel.id, PairingMatchRow.partner_id.is_(None))
            .group_by(PairingMatchRow.user_id)
        ).all()
        return {int(u): int(n) for u, n in rows}

    def add_match(
        self,
        workspace: Workspace,
        channel: Channel,
        round_at: datetime,
        user: User,
        partner: User | None,
        mock_id: int | None,
        slot_at: datetime | None,
        reason: str,
        checkin_at: datetime | None,
    ) -> int | None:
        new_id: int | None = insert_row(
            self.session,
            PairingMatchRow,
            {
                "workspace_id": workspace.id,
                "channel_id": channel.id,
                "round_at": round_at,
                "user_id": user.id,
                "partner_id": partner.id if partner else None,
                "mock_id": mock_id,
                "slot_at": slot_at,
                "reason": reason,
                "checkin_at": checkin_at,
                "checkin_sent_at": None,
                "happened": None,
                "answered_at": None,
            },
        )
        return new_id

    def checkins_due(self, now: datetime, limit: int) -> list[tuple[Workspace, PairingMatch]]:
        rows = self.session.execute(
            select(WorkspaceRow, PairingMatchRow)
            .join(WorkspaceRow, WorkspaceRow.id == PairingMatchRow.workspace_id)
            .where(PairingMatchRow.checkin_sent_at.is_(None), PairingMatchRow.checkin_at <= now)
            .order_by(PairingMatchRow.checkin_at, PairingMatchRow.id)
            .limit(limit)
        ).all()
        claimed = []
        for workspace, match in rows:
            result = self.session.execute(
                update(PairingMatchRow)
                .where(PairingMatchRow.id == match.id, PairingMatchRow.checkin_sent_at.is_(None))
                .values(checkin_sent_at=now)
                .execution_options(synchronize_session=False)
            )
            if getattr(result, "rowcount", 0) == 1:
                claimed.append((_workspace(workspace), _match(match)))
        return claimed

    def match(self, workspace: Workspace, match_id: int) -> PairingMatch | None:
        row = self.session.get(PairingMatchRow, match_id)
        return _match(row) if row is not None and row.workspace_id == workspace.id else None

    def answer(self, match: PairingMatch, happened: bool, now: datetime) -> None:
        self.session.execute(
            update(PairingMatchRow)
            .where(PairingMatchRow.id == match.id)
            .values(happened=happened, answered_at=now)
            .execution_options(synchronize_session=False)
        )

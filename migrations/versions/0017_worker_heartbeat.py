"""Delivery workers and their heartbeats: each live worker paces a workspace at its rate
divided by the live workers, so several workers share one workspace's limit.

Revision ID: 0017_worker_heartbeat
Revises: 0016_seasons_pairing
Create Date: 2026-12-01 17:15:00

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models


revision: str = '0017_worker_heartbeat'
down_revision: str | None = '0016_seasons_pairing'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('delivery_worker',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('started_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.Column('seen_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_delivery_worker'))
    )
    with op.batch_alter_table('delivery_worker', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_delivery_worker_seen_at'), ['seen_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('delivery_worker', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_delivery_worker_seen_at'))
    op.drop_table('delivery_worker')

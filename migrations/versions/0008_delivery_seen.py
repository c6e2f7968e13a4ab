"""Deliveries already taken, so that a retried or replayed one is handled once on any worker.

Revision ID: 0008_delivery_seen
Revises: 0007_disputes
Create Date: 2026-12-01 13:40:00.000000

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models

revision: str = '0008_delivery_seen'
down_revision: str | None = '0007_disputes'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'delivery_seen',
        sa.Column('platform', sa.String(length=16), nullable=False),
        sa.Column('key', sa.String(length=200), nullable=False),
        sa.Column('seen_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('platform', 'key', name=op.f('pk_delivery_seen')),
    )
    with op.batch_alter_table('delivery_seen', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_delivery_seen_seen_at'), ['seen_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('delivery_seen', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_delivery_seen_seen_at'))
    op.drop_table('delivery_seen')

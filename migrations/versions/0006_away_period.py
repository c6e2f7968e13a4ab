"""Time away: a user's periods of local dates on which their streak pauses.

Revision ID: 0006_away_period
Revises: 0005_post_ref_on_outbox
Create Date: 2026-12-01 13:30:00.000000

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models


revision: str = '0006_away_period'
down_revision: str | None = '0005_post_ref_on_outbox'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'away_period',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('workspace_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('first_day', sa.Date(), nullable=False),
        sa.Column('last_day', sa.Date(), nullable=False),
        sa.Column('created_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user.id'], name=op.f('fk_away_period_user_id_user'), ondelete='CASCADE'
        ),
        sa.ForeignKeyConstraint(
            ['workspace_id'],
            ['workspace.id'],
            name=op.f('fk_away_period_workspace_id_workspace'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_away_period')),
    )
    with op.batch_alter_table('away_period', schema=None) as batch_op:
        batch_op.create_index('ix_away_period_user_id_last_day', ['user_id', 'last_day'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('away_period', schema=None) as batch_op:
        batch_op.drop_index('ix_away_period_user_id_last_day')
    op.drop_table('away_period')

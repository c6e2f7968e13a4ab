"""An interview date per user (/goal), and a mock's focus (/mock schedule … focus=weak).

Revision ID: 0010_interview_goal
Revises: 0008_delivery_seen
Create Date: 2026-12-01 16:30:00.000000

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models

revision: str = '0010_interview_goal'
down_revision: str | None = '0008_delivery_seen'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'interview_goal',
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('workspace_id', sa.Integer(), nullable=False),
        sa.Column('day', sa.Date(), nullable=False),
        sa.Column('format', sa.String(length=16), nullable=False),
        sa.Column('created_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
        sa.Column('mock_suggested_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user.id'], name=op.f('fk_interview_goal_user_id_user'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['workspace_id'],
            ['workspace.id'],
            name=op.f('fk_interview_goal_workspace_id_workspace'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('user_id', name=op.f('pk_interview_goal')),
    )
    with op.batch_alter_table('mock_interview', schema=None) as batch_op:
        batch_op.add_column(sa.Column('focus', sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('mock_interview', schema=None) as batch_op:
        batch_op.drop_column('focus')
    op.drop_table('interview_goal')

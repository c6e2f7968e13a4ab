"""Review cards can be suspended (leeches, by hand) and buried; users set a daily review limit.

Revision ID: 0014_review_cards_state
Revises: 0013_attempt_grader
Create Date: 2026-12-01 16:30:00.000000

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models

revision: str = '0014_review_cards_state'
down_revision: str | None = '0013_attempt_grader'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('review_card', schema=None) as batch_op:
        batch_op.add_column(sa.Column('suspended', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column('leech', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(
            sa.Column('buried_until', bot.db.models.UTCDateTime(timezone=True), nullable=True)
        )
    op.create_table(
        'review_setting',
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('workspace_id', sa.Integer(), nullable=False),
        sa.Column('daily_limit', sa.Integer(), nullable=False),
        sa.Column('updated_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user.id'], name=op.f('fk_review_setting_user_id_user'), ondelete='CASCADE'
        ),
        sa.ForeignKeyConstraint(
            ['workspace_id'],
            ['workspace.id'],
            name=op.f('fk_review_setting_workspace_id_workspace'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('user_id', name=op.f('pk_review_setting')),
    )


def downgrade() -> None:
    op.drop_table('review_setting')
    with op.batch_alter_table('review_card', schema=None) as batch_op:
        batch_op.drop_column('buried_until')
        batch_op.drop_column('leech')
        batch_op.drop_column('suspended')

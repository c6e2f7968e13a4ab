"""Disputes of a grade: one per attempt, with the grade it had and an admin's decision.

Revision ID: 0007_disputes
Revises: 0006_away_period
Create Date: 2026-12-01 13:21:07.507014

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models


revision: str = '0007_disputes'
down_revision: str | None = '0006_away_period'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('dispute',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('workspace_id', sa.Integer(), nullable=False),
    sa.Column('attempt_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('verdict_before', sa.String(length=16), nullable=False),
    sa.Column('score_before', sa.Float(), nullable=False),
    sa.Column('feedback_before', sa.Text(), nullable=False),
    sa.Column('grader_before', sa.String(length=32), nullable=False),
    sa.Column('created_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.Column('resolved_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
    sa.Column('resolved_by', sa.Integer(), nullable=True),
    sa.Column('verdict_after', sa.String(length=16), nullable=True),
    sa.Column('score_after', sa.Float(), nullable=True),
    sa.Column('note', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['attempt_id'], ['attempt.id'], name=op.f('fk_dispute_attempt_id_attempt'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['resolved_by'], ['user.id'], name=op.f('fk_dispute_resolved_by_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_dispute_user_id_user'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspace.id'], name=op.f('fk_dispute_workspace_id_workspace'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_dispute')),
    sa.UniqueConstraint('attempt_id', name=op.f('uq_dispute_attempt_id'))
    )
    with op.batch_alter_table('dispute', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_dispute_user_id'), ['user_id'], unique=False)
        batch_op.create_index('ix_dispute_workspace_id_status_id', ['workspace_id', 'status', 'id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('dispute', schema=None) as batch_op:
        batch_op.drop_index('ix_dispute_workspace_id_status_id')
        batch_op.drop_index(batch_op.f('ix_dispute_user_id'))

    op.drop_table('dispute')

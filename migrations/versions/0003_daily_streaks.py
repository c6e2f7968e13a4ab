"""Daily questions, streaks and nudges: streak zone and nudge time, reveal and thread lookups.

Revision ID: 0003_daily_streaks
Revises: 0002_quiz_leaderboard
Create Date: 2026-11-30 01:30:22.046752

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models


revision: str = '0003_daily_streaks'
down_revision: str | None = '0002_quiz_leaderboard'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # every day, "mon,tue,wed,thu,fri,sat,sun", is 27 characters
    with op.batch_alter_table('channel_schedule', schema=None) as batch_op:
        batch_op.alter_column('weekdays', existing_type=sa.String(length=20),
                              type_=sa.String(length=32), existing_nullable=False)

    with op.batch_alter_table('daily_prompt', schema=None) as batch_op:
        batch_op.create_index('ix_daily_prompt_channel_id_message_ref', ['channel_id', 'message_ref'], unique=False)
        batch_op.create_index('ix_daily_prompt_revealed_at_reveal_at', ['revealed_at', 'reveal_at'], unique=False)

    with op.batch_alter_table('streak', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_zone', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('nudge_at', bot.db.models.UTCDateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f('ix_streak_nudge_at'), ['nudge_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('streak', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_streak_nudge_at'))
        batch_op.drop_column('nudge_at')
        batch_op.drop_column('last_zone')

    with op.batch_alter_table('daily_prompt', schema=None) as batch_op:
        batch_op.drop_index('ix_daily_prompt_revealed_at_reveal_at')
        batch_op.drop_index('ix_daily_prompt_channel_id_message_ref')

    with op.batch_alter_table('channel_schedule', schema=None) as batch_op:
        batch_op.alter_column('weekdays', existing_type=sa.String(length=32),
                              type_=sa.String(length=20), existing_nullable=False)


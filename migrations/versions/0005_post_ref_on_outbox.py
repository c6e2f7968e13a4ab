"""The platform id of a daily post lives on its outbox row only.

The delivery stored it on the outbox row and, through the message's tags, again on
``daily_prompt.message_ref``. Now a prompt's post is found by its outbox key
(``daily:<prompt id>:post``) and thread replies by the outbox's ``message_ref``, which is
indexed for that. Downgrading copies the ids back onto the prompts.

Revision ID: 0005_post_ref_on_outbox
Revises: 0004_mock_interviews
Create Date: 2026-12-01 12:00:00.000000

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0005_post_ref_on_outbox'
down_revision: str | None = '0004_mock_interviews'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_outbox_message_ref'), ['message_ref'], unique=False)

    with op.batch_alter_table('daily_prompt', schema=None) as batch_op:
        batch_op.drop_index('ix_daily_prompt_channel_id_message_ref')
        batch_op.drop_column('message_ref')


def downgrade() -> None:
    with op.batch_alter_table('daily_prompt', schema=None) as batch_op:
        batch_op.add_column(sa.Column('message_ref', sa.String(length=64), nullable=True))
        batch_op.create_index(
            'ix_daily_prompt_channel_id_message_ref', ['channel_id', 'message_ref'], unique=False
        )
    prompt = sa.table('daily_prompt', sa.column('id', sa.Integer), sa.column('message_ref', sa.String))
    outbox = sa.table('outbox', sa.column('key', sa.String), sa.column('message_ref', sa.String))
    post_key = sa.literal('daily:') + sa.cast(prompt.c.id, sa.String) + sa.literal(':post')
    op.execute(
        prompt.update().values(
            message_ref=sa.select(outbox.c.message_ref)
            .where(outbox.c.key == post_key)
            .scalar_subquery()
        )
    )

    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_outbox_message_ref'))

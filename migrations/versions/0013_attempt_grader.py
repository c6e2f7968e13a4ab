"""Every attempt, and every grade it has had, records the judge's model when one took part.

Revision ID: 0013_attempt_grader
Revises: 0010_interview_goal
Create Date: 2026-12-01 16:20:00.000000

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013_attempt_grader'
down_revision: str | None = '0010_interview_goal'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ('attempt', 'attempt_grade')


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(
                sa.Column('grader_model', sa.String(length=200), server_default='', nullable=False)
            )


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('grader_model')

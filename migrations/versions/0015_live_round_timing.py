"""Live-round timing per channel: the seconds each live question stays open (NULL: default).

Revision ID: 0015_live_round_timing
Revises: 0014_review_cards_state
Create Date: 2026-12-01 16:30:00.000000

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0015_live_round_timing'
down_revision: str | None = '0014_review_cards_state'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not a batch copy: on SQLite a batch would drop and recreate ``channel``,
# and with foreign keys on that cascades into every table that references it. SQLite has had
# ADD and DROP COLUMN since 3.35.


def upgrade() -> None:
    op.add_column('channel', sa.Column('live_seconds', sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column('channel', 'live_seconds')

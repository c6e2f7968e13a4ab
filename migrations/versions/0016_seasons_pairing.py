"""Leaderboard seasons (their span, length and close), and weekly pairing rounds per
channel: who opted in, each round's pairs and their check-in answers.

Revision ID: 0016_seasons_pairing
Revises: 0015_live_round_timing
Create Date: 2026-12-01 16:12:55.427998

"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.models


revision: str = '0016_seasons_pairing'
down_revision: str | None = '0015_live_round_timing'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('season',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('workspace_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=16), nullable=False),
    sa.Column('starts_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.Column('ends_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.Column('next_length', sa.String(length=8), nullable=False),
    sa.Column('closed_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
    sa.Column('created_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspace.id'], name=op.f('fk_season_workspace_id_workspace'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_season')),
    sa.UniqueConstraint('workspace_id', 'name', name=op.f('uq_season_workspace_id_name'))
    )
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_season_ends_at'), ['ends_at'], unique=False)

    op.create_table('pairing_channel',
    sa.Column('channel_id', sa.Integer(), nullable=False),
    sa.Column('workspace_id', sa.Integer(), nullable=False),
    sa.Column('weekday', sa.Integer(), nullable=False),
    sa.Column('minute', sa.Integer(), nullable=False),
    sa.Column('timezone', sa.String(length=64), nullable=False),
    sa.Column('next_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
    sa.Column('updated_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['channel_id'], ['channel.id'], name=op.f('fk_pairing_channel_channel_id_channel'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspace.id'], name=op.f('fk_pairing_channel_workspace_id_workspace'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('channel_id', name=op.f('pk_pairing_channel'))
    )
    with op.batch_alter_table('pairing_channel', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pairing_channel_next_at'), ['next_at'], unique=False)

    op.create_table('pairing_member',
    sa.Column('channel_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('joined_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['channel_id'], ['channel.id'], name=op.f('fk_pairing_member_channel_id_channel'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_pairing_member_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('channel_id', 'user_id', name=op.f('pk_pairing_member'))
    )
    with op.batch_alter_table('pairing_member', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pairing_member_user_id'), ['user_id'], unique=False)

    op.create_table('pairing_match',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('workspace_id', sa.Integer(), nullable=False),
    sa.Column('channel_id', sa.Integer(), nullable=False),
    sa.Column('round_at', bot.db.models.UTCDateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('partner_id', sa.Integer(), nullable=True),
    sa.Column('mock_id', sa.Integer(), nullable=True),
    sa.Column('slot_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
    sa.Column('reason', sa.String(length=16), nullable=False),
    sa.Column('checkin_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
    sa.Column('checkin_sent_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
    sa.Column('happened', sa.Boolean(), nullable=True),
    sa.Column('answered_at', bot.db.models.UTCDateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['channel_id'], ['channel.id'], name=op.f('fk_pairing_match_channel_id_channel'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['mock_id'], ['mock_interview.id'], name=op.f('fk_pairing_match_mock_id_mock_interview'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['partner_id'], ['user.id'], name=op.f('fk_pairing_match_partner_id_user'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_pairing_match_user_id_user'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['workspace_id'], ['workspace.id'], name=op.f('fk_pairing_match_workspace_id_workspace'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pairing_match')),
    sa.UniqueConstraint('channel_id', 'round_at', 'user_id', name=op.f('uq_pairing_match_channel_id_round_at_user_id'))
    )
    with op.batch_alter_table('pairing_match', schema=None) as batch_op:
        batch_op.create_index('ix_pairing_match_checkin_at_checkin_sent_at', ['checkin_at', 'checkin_sent_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('pairing_match', schema=None) as batch_op:
        batch_op.drop_index('ix_pairing_match_checkin_at_checkin_sent_at')

    op.drop_table('pairing_match')
    with op.batch_alter_table('pairing_member', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pairing_member_user_id'))

    op.drop_table('pairing_member')
    with op.batch_alter_table('pairing_channel', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pairing_channel_next_at'))

    op.drop_table('pairing_channel')
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_season_ends_at'))

    op.drop_table('season')

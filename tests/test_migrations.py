"""Alembic owns the schema: models and migrations agree, and migrations run both ways."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import insert, inspect, text

from bot.db import migrate
from bot.db.engine import make_engine
from bot.db.models import (
    Base,
    ChannelRow,
    DailyPromptRow,
    OutboxRow,
    QuestionRow,
    WorkspaceRow,
)


def test_models_and_migrations_agree(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate.upgrade(engine)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == []


def test_upgrade_downgrade_upgrade_round_trip(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate.upgrade(engine)
    tables = set(inspect(engine).get_table_names())
    assert set(Base.metadata.tables) <= tables
    migrate.downgrade(engine, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    migrate.upgrade(engine)
    assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())
    assert migrate.is_current(engine)
    engine.dispose()


def test_a_fresh_database_is_not_current_until_upgraded(empty_sqlite_url: str) -> None:
    engine = make_engine(empty_sqlite_url)
    assert not migrate.is_current(engine)
    migrate.upgrade(engine)
    assert migrate.is_current(engine)
    engine.dispose()


def test_a_daily_posts_platform_id_survives_migrating_down_and_up(db_url: str) -> None:
    """0005 keeps the post's id on its outbox row only; going down copies it back."""
    engine = make_engine(db_url)
    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    with engine.begin() as conn:
        conn.execute(
            insert(WorkspaceRow).values(
                id=1, platform="slack", external_id="T1", name="", timezone="UTC", created_at=now
            )
        )
        conn.execute(
            insert(ChannelRow).values(
                id=1, workspace_id=1, external_id="C1", name="general", created_at=now
            )
        )
        conn.execute(
            insert(QuestionRow).values(
                id="q-1",
                pack="sample",
                topic="mig",
                kind="choice",
                difficulty=1,
                roles=[],
                prompt="?",
                content_hash="h",
                active=True,
                synced_at=now,
            )
        )
        conn.execute(
            insert(DailyPromptRow).values(
                id=1,
                workspace_id=1,
                channel_id=1,
                question_id="q-1",
                local_date=now.date(),
                posted_at=now,
                reveal_at=now,
            )
        )
        conn.execute(
            insert(OutboxRow).values(
                workspace_id=1,
                platform="slack",
                key="daily:1:post",
                payload={},
                status="sent",
                tries=0,
                next_attempt_at=now,
                message_ref="C1:17.01",
                created_at=now,
            )
        )
    migrate.downgrade(engine, "0004_mock_interviews")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT message_ref FROM daily_prompt")).scalar() == "C1:17.01"
    migrate.upgrade(engine)
    assert "message_ref" not in {c["name"] for c in inspect(engine).get_columns("daily_prompt")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT message_ref FROM outbox")).scalar() == "C1:17.01"
    engine.dispose()

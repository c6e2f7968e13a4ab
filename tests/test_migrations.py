"""Alembic owns the schema: models and migrations agree, and migrations run both ways."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from bot.db import migrate
from bot.db.engine import make_engine
from bot.db.models import Base


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

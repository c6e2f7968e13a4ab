"""The unit of work's transaction: a rollback undoes everything, savepoints included."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.core.clock import SimulatedClock
from bot.core.model import WORKSPACES
from bot.db import migrate
from bot.db.engine import make_engine, make_session_factory
from bot.db.models import WorkspaceRow
from bot.db.uow import SqlUnitOfWork


def test_a_write_made_inside_a_savepoint_is_undone_by_the_rollback(
    db_url: str, clock: SimulatedClock
) -> None:
    engine = make_engine(db_url)
    migrate.upgrade(engine)
    factory = make_session_factory(engine)
    with SqlUnitOfWork(factory, clock) as uow:
        uow[WORKSPACES].ensure("console", "w1")  # the first write happens in a savepoint
        uow.rollback()
    with factory() as session:
        assert session.scalar(select(func.count()).select_from(WorkspaceRow)) == 0
    engine.dispose()


def test_a_committed_unit_of_work_keeps_its_writes(db_url: str, clock: SimulatedClock) -> None:
    engine = make_engine(db_url)
    migrate.upgrade(engine)
    factory = make_session_factory(engine)
    with SqlUnitOfWork(factory, clock) as uow:
        uow[WORKSPACES].ensure("console", "w1")
        uow.commit()
    with SqlUnitOfWork(factory, clock) as uow:
        assert uow[WORKSPACES].ensure("console", "w1").external_id == "w1"
    with factory() as session:
        assert session.scalar(select(func.count()).select_from(WorkspaceRow)) == 1
    engine.dispose()

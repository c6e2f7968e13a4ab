"""The question table follows the bank at start-up, also when two workers start at once."""

from __future__ import annotations

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.db.engine import make_engine, make_session_factory
from bot.db.models import QuestionRow
from bot.db.questions import store_bank, sync_questions


def test_a_worker_that_loses_the_race_to_insert_the_bank_still_starts(
    postgres_url: str, sample_bank: QuestionBank, clock: SimulatedClock
) -> None:
    """Worker one reads an empty table; before it commits, worker two stores the same
    questions; worker one's insert then fails on the key, and it syncs again and goes on.
    (PostgreSQL: on SQLite the sync's BEGIN IMMEDIATE already holds the write lock when it
    reads, so a second worker waits for the first.)"""
    engine = make_engine(postgres_url)
    factory = make_session_factory(engine)
    with factory() as session, session.begin():
        session.query(QuestionRow).delete()
    sessions: list[Session] = []

    def racing_factory() -> Session:
        session = factory()
        if not sessions:  # the first try: the other worker commits in the meantime

            @event.listens_for(session, "before_flush")
            def other_worker_first(*_args: object) -> None:
                with factory() as other, other.begin():
                    sync_questions(other, sample_bank, clock.now())

        sessions.append(session)
        return session

    try:
        store_bank(racing_factory, sample_bank, clock.now())
        assert len(sessions) == 2  # the first try failed on the key, the second went on
        with factory() as session:
            stored = session.scalar(select(func.count()).select_from(QuestionRow))
            assert stored == len(list(sample_bank))
    finally:
        engine.dispose()

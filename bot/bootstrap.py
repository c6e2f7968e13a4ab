"""One place that wires everything; tests pass overrides instead of patching."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from bot.charts import default_chart_renderer
from bot.config import Settings, load_settings
from bot.core.app import StudyBot
from bot.core.bank import QuestionBank
from bot.core.clock import Clock, SystemClock
from bot.core.context import Services
from bot.core.daily import DailyPostJob, DailyRevealJob
from bot.core.due import DueJob
from bot.core.errors import ConfigError
from bot.core.events import Event
from bot.core.grading.reference import set_reference_backend
from bot.core.leaderboard import WeeklyRecapJob
from bot.core.messages import Outgoing
from bot.core.mock import MockClockJob, MockReminderJob
from bot.core.ports import UnitOfWork
from bot.core.quiz import LiveQuizJob
from bot.core.streaks import StreakNudgeJob
from bot.db import migrate
from bot.db.engine import check_connection, make_engine, make_session_factory
from bot.db.questions import sync_questions
from bot.db.uow import SqlUnitOfWork
from bot.delivery import Notifier, OutboxDeliverer
from bot.metrics import EVENT_SECONDS, EVENTS
from bot.scheduler import DueRunner


@dataclass
class App:
    """The wired bot: what adapters, the CLI and tests use."""

    settings: Settings
    engine: Engine
    session_factory: sessionmaker[Session]
    clock: Clock
    services: Services
    bot: StudyBot
    runner: DueRunner
    notifiers: dict[str, Notifier] = field(default_factory=dict)

    def uow(self) -> UnitOfWork:
        return SqlUnitOfWork(self.session_factory, self.clock)

    async def handle(self, event: Event) -> list[Outgoing]:
        """Handle ``event`` off the event loop (the core and the database are synchronous),
        then deliver whatever it queued in the outbox."""
        started = time.perf_counter()
        replies = await asyncio.to_thread(self.bot.handle, event)
        EVENTS.labels(event.platform, event.kind.value).inc()
        EVENT_SECONDS.labels(event.platform).observe(time.perf_counter() - started)
        await self.runner.deliverer.deliver_due()
        return replies

    def close(self) -> None:
        self.engine.dispose()


def default_jobs() -> list[DueJob]:
    """The due jobs every deployment runs."""
    # Reveals run before posts, so a channel's answer is out before its next question.
    return [
        DailyRevealJob(),
        DailyPostJob(),
        StreakNudgeJob(),
        LiveQuizJob(),
        WeeklyRecapJob(),
        MockReminderJob(),
        MockClockJob(),
    ]


def bootstrap(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    bank: QuestionBank | None = None,
    notifiers: dict[str, Notifier] | None = None,
    jobs: Sequence[DueJob] | None = None,
    auto_migrate: bool | None = None,
) -> App:
    """Build the bot. SQLite databases are migrated on start; others must be current
    (``studybot db upgrade``), or a ConfigError says so."""
    settings = settings or load_settings()
    set_reference_backend(settings.studybot_reference_backend)
    clock = clock or SystemClock()
    bank = bank if bank is not None else QuestionBank.load(settings.pack_dirs)
    engine = make_engine(settings.database_url)
    try:
        check_connection(engine)
    except ConfigError:
        engine.dispose()
        raise
    if auto_migrate is None:
        auto_migrate = engine.dialect.name == "sqlite"
    if auto_migrate:
        migrate.upgrade(engine)
    elif not migrate.is_current(engine):
        engine.dispose()
        raise ConfigError("The database schema is not current. Run `studybot db upgrade` first.")
    session_factory = make_session_factory(engine)
    with session_factory() as session, session.begin():
        sync_questions(session, bank, clock.now())
    services = Services(
        clock=clock,
        bank=bank,
        charts=default_chart_renderer(),
        admin_ids=settings.admin_ids,
        grace=timedelta(minutes=settings.studybot_grace_minutes),
    )
    uow_factory: Callable[[], UnitOfWork] = lambda: SqlUnitOfWork(session_factory, clock)  # noqa: E731
    notifiers = notifiers if notifiers is not None else {}
    deliverer = OutboxDeliverer(session_factory, clock, notifiers)
    runner = DueRunner(
        uow_factory, services, jobs if jobs is not None else default_jobs(), deliverer
    )
    return App(
        settings,
        engine,
        session_factory,
        clock,
        services,
        StudyBot(uow_factory, services),
        runner,
        notifiers,
    )

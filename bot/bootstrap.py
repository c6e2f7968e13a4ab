"""One place that wires everything; tests pass overrides instead of patching."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from bot.charts import default_chart_renderer
from bot.config import Settings, load_settings
from bot.core.app import StudyBot
from bot.core.bank import QuestionBank
from bot.core.clock import Clock, SystemClock
from bot.core.content import ValidatedPacks
from bot.core.context import Grader, Services
from bot.core.daily.posting import DailyPostJob, DailyRevealJob
from bot.core.due import DueJob
from bot.core.errors import ConfigError
from bot.core.events import Event
from bot.core.leaderboard import WeeklyRecapJob
from bot.core.messages import OUTBOX, Outgoing, until
from bot.core.mock.jobs import MockClockJob, MockReminderJob
from bot.core.mock.rounds import PairingRoundJob
from bot.core.model import WORKSPACES
from bot.core.ports import UnitOfWork
from bot.core.quiz.live import LiveQuizJob
from bot.core.season_board import SeasonEndJob
from bot.core.streaks import StreakNudgeJob
from bot.db import migrate
from bot.db.engine import check_connection, dispose, make_engine, make_session_factory
from bot.db.outage import OUTAGE
from bot.db.questions import store_bank
from bot.db.seen import DeliveryLog
from bot.db.uow import SqlUnitOfWork
from bot.delivery import Notifier, OutboxDeliverer
from bot.grader import build_grader
from bot.metrics import EVENT_SECONDS, EVENTS
from bot.scheduler import DueRunner

log = logging.getLogger(__name__)
#: How long a reply the platform refused stays worth retrying (``App.send_later``).
REPLY_STALE_AFTER = timedelta(minutes=30)


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
    deliveries: DeliveryLog | None = None

    def __post_init__(self) -> None:
        if self.deliveries is None:
            self.deliveries = DeliveryLog(self.engine)

    async def first_delivery(self, platform: str, key: str) -> bool:
        """True the first time a platform delivery (``key``: an event, trigger or
        interaction id) reaches any worker on this database, False for a retry or replay.
        An empty key cannot be told apart, so it is always first. Raises the database's
        error."""
        if not key:
            return True
        assert self.deliveries is not None
        return await asyncio.to_thread(
            self.deliveries.first_delivery, platform, key, self.clock.now()
        )

    def register_notifier(self, platform: str, notifier: Notifier) -> None:
        """Deliver ``platform``'s outbox messages through ``notifier`` (each adapter calls
        this once, for itself)."""
        self.notifiers[platform] = notifier

    def uow(self) -> UnitOfWork:
        return SqlUnitOfWork(self.session_factory, self.clock, self.runner.deliverer.nudge)

    async def handle(self, event: Event) -> list[Outgoing]:
        """Handle ``event`` off the event loop (the core and the database are synchronous)
        and return the replies for the adapter to send at once.

        Messages the event queued in the outbox go out through the background delivery,
        which the commit nudges; nothing here waits for it. Raises whatever the core did
        not turn into a reply: the adapter's edge answers the user and reports it."""
        self.runner.deliverer.start()
        started = time.perf_counter()
        replies = await asyncio.to_thread(self.bot.handle, event)
        OUTAGE.answered()
        EVENTS.labels(event.platform, event.kind.value).inc()
        EVENT_SECONDS.labels(event.platform).observe(time.perf_counter() - started)
        return replies

    async def send_later(
        self, platform: str, workspace: str, reply: Outgoing, wait: float, reason: str
    ) -> None:
        """A reply the platform could not take now (an HTTP 5xx, a 429 that outlasted the
        adapter's own retry, the network): queue it in the outbox, due in ``wait`` seconds,
        so that delivery retries it with backoff until it is :data:`REPLY_STALE_AFTER` old and
        only then drops it, with a log line. ``workspace`` is the platform's id of it.

        Never raises: the user's action was handled; if even the database refuses, that is
        logged (with the reply's recipient) and the reply is lost."""
        now = self.clock.now()
        later = until(reply, now + REPLY_STALE_AFTER)
        key = reply.key or f"reply:{uuid.uuid4().hex}"
        if not reply.key:
            later = replace(later, key=key)

        def queue() -> None:
            with self.uow() as uow:
                ws = uow[WORKSPACES].ensure(platform, workspace)
                uow[OUTBOX].add(ws, platform, later, key, now + timedelta(seconds=wait))
                uow.commit()

        try:
            await asyncio.to_thread(queue)
        except Exception:
            log.exception("a %s reply to %s was lost: it could not be queued", platform, reply.to)
            return
        log.warning(
            "%s could not take a %s reply to %s now (%s); the outbox retries it until %s",
            platform,
            reply.delivery.value,
            reply.to,
            reason,
            (now + REPLY_STALE_AFTER).isoformat(timespec="seconds"),
        )
        self.runner.deliverer.poke()

    async def stop(self) -> None:
        """Stop the background delivery after the pass in flight (before :meth:`close`)."""
        await self.runner.deliverer.stop()

    def close(self) -> None:
        self.runner.deliverer.cancel()
        close_grader = getattr(self.services.grade, "close", None)
        if callable(close_grader):  # the judge's pool (bot.core.grading.judge)
            close_grader()
        # A handler or delivery thread the event loop stopped waiting for may still hold a
        # connection: it is closed when that thread gives it back.
        dispose(self.engine)


def default_jobs() -> list[DueJob]:
    """The due jobs every deployment runs."""
    # Reveals run before posts, so a channel's answer is out before its next question.
    return [
        DailyRevealJob(),
        DailyPostJob(),
        StreakNudgeJob(),
        LiveQuizJob(),
        WeeklyRecapJob(),
        SeasonEndJob(),
        MockReminderJob(),
        MockClockJob(),
        PairingRoundJob(),
    ]


def bootstrap(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    bank: QuestionBank | None = None,
    notifiers: dict[str, Notifier] | None = None,
    jobs: Sequence[DueJob] | None = None,
    auto_migrate: bool | None = None,
    grade: Grader | None = None,
) -> App:
    """Build the bot. SQLite databases are migrated on start; others must be current
    (``studybot db upgrade``), or a ConfigError says so. ``grade`` replaces the grader
    that ``build_grader`` makes from the settings (tests pass fakes)."""
    settings = settings or load_settings()
    clock = clock or SystemClock()
    bank = (
        bank
        if bank is not None
        else QuestionBank.load(
            settings.pack_dirs, validated=ValidatedPacks(settings.validated_packs_path)
        )
    )
    engine = make_engine(settings.database_url)
    try:
        check_connection(engine)
    except ConfigError:
        engine.dispose()
        raise
    if auto_migrate is None:
        auto_migrate = engine.dialect.name == "sqlite"
    if not migrate.is_current(engine):
        if not auto_migrate:
            engine.dispose()
            raise ConfigError(
                "The database schema is not current. Run `studybot db upgrade` first."
            )
        migrate.upgrade(engine)
    session_factory = make_session_factory(engine)
    store_bank(session_factory, bank, clock.now())
    services = Services(
        clock=clock,
        bank=bank,
        charts=default_chart_renderer(),
        admin_ids=settings.admin_ids,
        grace=timedelta(minutes=settings.studybot_grace_minutes),
        grade=grade or build_grader(settings),
    )
    notifiers = notifiers if notifiers is not None else {}
    deliverer = OutboxDeliverer(session_factory, clock, notifiers)

    def uow_factory() -> UnitOfWork:
        return SqlUnitOfWork(session_factory, clock, deliverer.nudge)

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

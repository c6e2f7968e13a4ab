"""What one click on a daily question's choice costs the database: the statements it runs
(``bench/answer_path.py`` measures the same over Slack HTTP). A change that adds a statement
to the answer path shows here first."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, select

from bot.bootstrap import App, bootstrap
from bot.config import Settings
from bot.core.bank import QuestionBank
from bot.core.clock import SimulatedClock
from bot.core.display import daily_seed, displayed
from bot.core.events import Event, EventKind
from bot.db.models import AttemptRow, DailyPromptRow
from tests.support import right_letter, wrong_letter

# A (wrong, right) click by a user new to the bot, and the same user's second click (practice:
# its scored attempt is kept out by the unique constraint, then stored unscored), by
# database. SQLite counts its BEGIN IMMEDIATE; PostgreSQL puts an attempt and its grade in
# one statement. A right answer that scores adds its season's lookup and its board points.
STATEMENTS = {
    "sqlite": {"new user": (10, 12), "same user again": (10, 10)},
    "postgresql": {"new user": (8, 10), "same user again": (8, 8)},
}
_deliveries = itertools.count()


@pytest.fixture
def app(db_url: str, clock: SimulatedClock, sample_bank: QuestionBank) -> Iterator[App]:
    choice = QuestionBank(q for q in sample_bank.all() if q.kind == "choice")
    application = bootstrap(Settings(studybot_database_url=db_url), clock=clock, bank=choice)
    yield application
    application.close()


def click(app: App, user: str, action: str) -> str:
    """A button click from ``user`` on the daily post; the reply's first line."""
    (reply,) = app.bot.handle(
        Event(
            EventKind.ACTION,
            "slack",
            "T1",
            "C1",
            user,
            user_name=user.lower(),
            action=action,
            user_tz="Europe/Berlin",
            delivery=f"trigger-{next(_deliveries)}",
        )
    )
    return reply.card.blocks[0]


def counted(app: App, user: str, action: str) -> tuple[int, str]:
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(app.engine, "before_cursor_execute", count)
    try:
        first_line = click(app, user, action)
    finally:
        event.remove(app.engine, "before_cursor_execute", count)
    return len(statements), first_line


def test_a_daily_click_costs_a_fixed_few_statements(app: App) -> None:
    app.bot.handle(Event(EventKind.COMMAND, "slack", "T1", "C1", "U0", command="daily"))
    with app.session_factory() as session:
        prompt = session.scalars(select(DailyPromptRow)).one()
    shown = displayed(app.services.bank.get(prompt.question_id), daily_seed(prompt.id))
    assert shown is not None
    right = right_letter(shown)
    wrong = wrong_letter(shown)
    for n, letter in enumerate((wrong, right)):  # the first ones: the season starts
        click(app, f"UFIRST{n}", f"daily:{prompt.id}:{letter}")
    expected = STATEMENTS[app.engine.dialect.name]
    for n, letter in enumerate((wrong, right)):
        action = f"daily:{prompt.id}:{letter}"
        user = f"U{letter}{n}"
        cost, line = counted(app, user, action)
        assert line.startswith("❌" if letter == wrong else "✅")
        again, _ = counted(app, user, action)  # practice now: the first one scored
        assert (cost, again) == (expected["new user"][n], expected["same user again"][n])
    with app.session_factory() as session:
        assert len(session.scalars(select(AttemptRow)).all()) == 6  # every click stored once

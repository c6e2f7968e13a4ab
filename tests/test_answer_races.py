"""Several answers to the same daily prompt by the same known user at the same moment (a
double click, a retried request reaching a second worker): one is scored, the others are kept
as practice, and each gets its grade, never the apology (it was: the second crashed in
SqlAttempts.add, expunging a row its failed savepoint had already removed). The race is real
on PostgreSQL, where the transactions run at once (SQLite serialises writers)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import func, select

from bot.adapters.console.session import PLATFORM, WORKSPACE
from bot.bootstrap import App
from bot.core.app import APOLOGY
from bot.core.events import Event, EventKind
from bot.core.messages import Outgoing
from bot.db.models import AttemptRow, UserRow
from tests.support import Transcript

USERS = [f"racer{n}" for n in range(40)]


def _command(user: str, command: str, args: str = "") -> Event:
    return Event(
        EventKind.COMMAND,
        PLATFORM,
        WORKSPACE,
        "general",
        user,
        user_name=user,
        command=command,
        args=args,
    )


def _at_once(calls: list[Callable[[], list[Outgoing]]]) -> list[list[Outgoing] | BaseException]:
    """Run ``calls`` in threads that start together; each one's replies or exception."""
    start = threading.Barrier(len(calls))
    results: list[list[Outgoing] | BaseException] = [[] for _ in calls]

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = calls[i]()
        except BaseException as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_answers_at_once_by_a_known_user_score_once_and_each_gets_a_grade(
    app: App, chat: Transcript
) -> None:
    chat.send("/daily")
    for user in USERS:  # the bot knows them already
        app.bot.handle(_command(user, "streak"))
    for user in USERS:
        results = _at_once([lambda u=user: app.bot.handle(_command(u, "answer", "3"))] * 4)
        for replies in results:
            assert not isinstance(replies, BaseException), replies
            assert replies, f"{user} got no reply"
            assert not any(APOLOGY in m.text for m in replies), [m.text for m in replies]
    with app.session_factory() as session:
        per_user = dict(
            session.execute(
                select(UserRow.external_id, func.count(AttemptRow.id))
                .join(AttemptRow, AttemptRow.user_id == UserRow.id)
                .group_by(UserRow.external_id)
            ).all()
        )
        scored = dict(
            session.execute(
                select(UserRow.external_id, func.count(AttemptRow.id))
                .join(AttemptRow, AttemptRow.user_id == UserRow.id)
                .where(AttemptRow.scored_prompt_id.is_not(None))
                .group_by(UserRow.external_id)
            ).all()
        )
    assert per_user == {user: 4 for user in USERS}
    assert scored == {user: 1 for user in USERS}

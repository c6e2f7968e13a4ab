"""Test helpers that read like chat transcripts (after errbot's test backend)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import Engine, func, insert, make_url, select, text

from bot.adapters.console.session import ConsoleSession
from bot.bootstrap import App
from bot.core.content import Question, question_from_dict
from bot.core.grading import Grade, Verdict, grade
from bot.core.grading.rubric import match_rubric
from bot.core.messages import Delivery, Outgoing
from bot.db.models import Base, ChannelRow, ChannelScheduleRow, WorkspaceRow
from bot.metrics import REGISTRY


class Transcript:
    """Drives a console session and keeps every message it printed."""

    def __init__(
        self, app: App, user: str = "alice", channel: str = "general", tz: str | None = None
    ) -> None:
        self.app = app
        self.messages: list[Outgoing] = []
        self.session = ConsoleSession(
            app, user=user, channel=channel, tz=tz, emit=self.messages.append
        )

    def start(self) -> None:
        """Open the console as ``studybot console`` does: deliver what is already due."""
        asyncio.run(self._in_loop(self.session.start()))

    def send(self, line: str) -> list[Outgoing]:
        """Type one line, as in piped mode; return what the bot printed in answer (its
        replies, then what the background delivery sent meanwhile)."""
        start = len(self.messages)
        asyncio.run(self._in_loop(self.session.handle_line(line)))
        return self.messages[start:]

    async def _in_loop(self, work: Awaitable[None]) -> None:
        # Each line gets an event loop of its own: settle, then stop the delivery task.
        try:
            await work
        finally:
            await self.session.stop()

    def say(self, line: str) -> str:
        """Type one line; return all printed text joined, for simple assertions."""
        return "\n".join(m.text for m in self.send(line))

    def posts(self) -> list[Outgoing]:
        return [m for m in self.messages if m.delivery is Delivery.CHANNEL]


def right_letter(question: Question) -> str:
    """The letter of the (first) right choice of a question as displayed: pass the copy
    in displayed order (``bot.core.display.displayed``)."""
    return chr(ord("A") + question.choices.index(question.correct[0]))


def wrong_letter(question: Question) -> str:
    """The letter of a wrong choice of a question as displayed."""
    wrong = next(c for c in question.choices if c not in question.correct)
    return chr(ord("A") + question.choices.index(wrong))


def row_counts(app: App) -> dict[str, int]:
    """How many rows each table holds: to show that bad input wrote nothing. Deliveries
    taken (``delivery_seen``) are left out: every request is recorded there, bad or not; so
    are the delivery workers' heartbeats (``delivery_worker``), which come with time."""
    counts: dict[str, int] = {}
    with app.session_factory() as session:
        for table in Base.metadata.sorted_tables:
            if table.name in ("delivery_seen", "delivery_worker"):
                continue
            counts[table.name] = session.scalar(select(func.count()).select_from(table)) or 0
    return counts


def seed_channels(
    app: App, count: int, due: datetime, platform: str = "slack", workspace: str = "T1"
) -> None:
    """``count`` new channels of a workspace, each with a schedule due at ``due``."""
    with app.session_factory() as session, session.begin():
        row = session.scalars(
            select(WorkspaceRow).where(
                WorkspaceRow.platform == platform, WorkspaceRow.external_id == workspace
            )
        ).one_or_none()
        if row is None:
            row = WorkspaceRow(
                platform=platform, external_id=workspace, name="", timezone="UTC", created_at=due
            )
            session.add(row)
            session.flush()
        ids = session.scalars(
            insert(ChannelRow).returning(ChannelRow.id),
            [
                {
                    "workspace_id": row.id,
                    "external_id": f"C{i:04d}",
                    "name": f"c{i}",
                    "created_at": due,
                }
                for i in range(count)
            ],
        ).all()
        session.execute(
            insert(ChannelScheduleRow),
            [
                {
                    "channel_id": cid,
                    "workspace_id": row.id,
                    "local_time": "09:00",
                    "timezone": "UTC",
                    "weekdays": "mon,tue,wed,thu,fri,sat,sun",
                    "topics": [],
                    "roles": [],
                    "difficulty_mix": {},
                    "reveal_delay_minutes": 480,
                    "paused": False,
                    "skip_dates": [],
                    "next_post_at": due,
                    "updated_at": due,
                }
                for cid in ids
            ],
        )


SECRET_DETAIL = "the grader's secret internals"


def failing_grader(question: Question, answer: str) -> Grade:
    """A grader that breaks: what an unexpected failure inside the core looks like."""
    raise RuntimeError(SECRET_DETAIL)


def event_errors(platform: str) -> float:
    """The ``studybot_event_errors_total`` count of ``platform`` so far in this process."""
    value = REGISTRY.get_sample_value("studybot_event_errors_total", {"platform": platform})
    return value or 0.0


def logged_failures(records: list[logging.LogRecord]) -> list[logging.LogRecord]:
    """The error records of a failure, each with its traceback."""
    return [r for r in records if r.levelno >= logging.ERROR]


# An answer to a question of any kind: it names a choice (C) and holds a number (7), so the
# real grader takes it as an answer whichever question the day brings (right or wrong).
ANY_KIND = "C, 7"
NOT_AN_ANSWER = "???"
HINT = "That is not an answer yet: answer with a letter, a number or a few words."


def hinting_grader(question: Question, answer: str) -> Grade:
    """The real grader, except that ``???`` is no answer at all (``answered=False``), as the
    grader says of a reply that names no choice or holds no number."""
    if answer.strip() == NOT_AN_ANSWER:
        return Grade(0.0, Verdict.INCORRECT, HINT, answered=False, grader="test-hints")
    return grade(question, answer)


REPLY_WITHIN = 0.1  # seconds: a reply while a fan-out is held up
LOADED_FACTOR = 5


def reply_bound(idle_seconds: float) -> float:
    """How long a reply may take while a fan-out is held: 100 ms, or on a machine so loaded
    that the same reply took longer than 20 ms with nothing held, five times that. A reply
    that waited for the held fan-out would never come at all; this bound catches one that is
    slowed by it."""
    return max(REPLY_WITHIN, LOADED_FACTOR * idle_seconds)


async def raw_post(
    url: str, path: str, head: dict[str, str], body: bytes, *, chunked: bool = False
) -> tuple[int, bytes]:
    """POST ``body`` over a plain socket and read the response: with ``chunked``, as chunks
    of 16 KiB with no Content-Length; otherwise with its length, or with the Content-Length
    in ``head`` (which may declare a length the body does not have). Sending stops as soon
    as the server answers, as a client would when refused early. Returns the status and the
    response body."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    elif not any(name.lower() == "content-length" for name in head):
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{name}: {value}" for name, value in head.items()]
    pieces = [body[start : start + 16384] for start in range(0, len(body), 16384)]
    if chunked:
        pieces = [b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces] + [b"0\r\n\r\n"]
    answer = asyncio.create_task(_read_response(reader))
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        for piece in pieces:
            if answer.done():
                break
            writer.write(piece)
            await writer.drain()
    except ConnectionError:
        pass  # the server answered and closed before taking all of it: read the answer
    async with asyncio.timeout(60):  # a server that waits for the rest fails, not hangs
        status, payload = await answer
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
    return status, payload


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    length = next(
        (int(f.split(":", 1)[1]) for f in fields if f.lower().startswith("content-length:")), 0
    )
    return int(status_line.split()[1]), await reader.readexactly(length)


@contextmanager
def database_down(admin: Engine, url: str) -> Iterator[None]:
    """No connection to the test's database is possible (those open are cut) until the
    block ends: PostgreSQL stopped or restarting, as far as the bot can tell."""
    name = make_url(url).database
    with admin.connect() as conn:
        conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
        conn.execute(
            text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"),
            {"n": name},
        )
    try:
        yield
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))


def choice_question(
    kind: str, choices: list[str], answer: object, *, prompt: str = "Which?"
) -> Question:
    """A ``choice`` or ``multi`` question of ``choices`` whose right one(s) are ``answer``,
    for grading tests."""
    return question_from_dict(
        {
            "id": "q",
            "topic": "mig",
            "role": ["eng"],
            "difficulty": 1,
            "kind": kind,
            "prompt": prompt,
            "choices": choices,
            "answer": answer,
            "explanation": "Because.",
            "sources": ["https://example.com"],
        },
        "t",
    )


def rubric_question(prompt: str, rubric: list[dict[str, object]]) -> Question:
    """An ``open`` question graded by ``rubric``, for grading tests."""
    return question_from_dict(
        {
            "id": "q",
            "topic": "mig",
            "role": ["eng"],
            "difficulty": 2,
            "kind": "open",
            "prompt": prompt,
            "rubric": rubric,
            "explanation": "Because.",
            "sources": ["https://example.com"],
        },
        "t",
    )


def points_made(question: Question, answer: str) -> list[str]:
    """The rubric points ``answer`` makes, as their texts."""
    return [p.point for p in match_rubric(question, answer)[0]]

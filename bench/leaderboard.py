"""Leaderboard benchmark: ``/leaderboard week`` from the aggregates beside a scan of attempts.

Run: ``.venv/bin/python bench/leaderboard.py [--users 100000] [--attempts 5000000]
[--backends sqlite,postgres]``.
It builds a migrated database (a temporary SQLite file, and PostgreSQL too when
``STUDYBOT_TEST_POSTGRES_URL`` is set: a scratch database that is dropped afterwards),
bulk-loads users, attempts over 52 weeks (skewed activity: a few people answer a lot) and
the ``points_bucket`` aggregates those attempts imply, then times:

- ``aggregate``: what ``/leaderboard week`` runs (``leaderboard.people_board``: the top 10,
  the caller's own rank, the number of people on the board) through the real unit of work,
  for random callers; p50 and p99 over ``--rounds`` calls, in milliseconds;
- ``naive``: the same board computed by grouping the week's attempts (top 10, then the
  caller's rank); p50 over a few calls;
- ``command``: the whole ``/leaderboard week`` as a user sends it, through the core's
  command handler (``StudyBot.handle`` on an app from ``bootstrap``: the user's context,
  the board, the card's text and the chart PNG the reply attaches), for random callers.
  ``command_first_ms`` is the process's first one (matplotlib's import and first figure
  included); ``command_redraw_p50_ms`` one whose board state has no chart drawn yet (the
  chart cache emptied before each); ``command_p50_ms`` / ``command_p99_ms`` the steady state,
  the board unchanged between calls, with ``chart_cache`` saying how many of those calls
  drew and how many reused a drawn chart.

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Engine, create_engine, func, select, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import charts  # noqa: E402
from bot.bootstrap import bootstrap  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.core.bank import QuestionBank  # noqa: E402
from bot.core.clock import SimulatedClock  # noqa: E402
from bot.core.events import Event, EventKind  # noqa: E402
from bot.core.leaderboard import people_board, period_of  # noqa: E402
from bot.core.model import User, Workspace  # noqa: E402
from bot.db import migrate  # noqa: E402
from bot.db.engine import make_engine, make_session_factory  # noqa: E402
from bot.db.models import AttemptRow  # noqa: E402
from bot.db.uow import SqlUnitOfWork  # noqa: E402

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)  # a Wednesday: the week is half over
DAYS = 7 * 52
QUESTIONS = 50
POINTS = np.array([0, 0, 0, 10, 15, 20, 30, 45])


def generate(users: int, attempts: int, seed: int) -> dict[str, np.ndarray]:
    """Attempts as columns: user index, seconds before NOW, points."""
    rng = np.random.default_rng(seed)
    weight = rng.pareto(1.5, users) + 0.05
    who = rng.choice(users, size=attempts, p=weight / weight.sum())
    ago = rng.integers(0, DAYS * 86400, size=attempts)
    points = POINTS[rng.integers(0, len(POINTS), size=attempts)]
    return {"user": who, "ago": ago, "points": points}


def period_keys_by_day() -> tuple[list[str], list[str]]:
    """ISO week and month keys of each day index (0 = NOW's day, 1 = the day before, ...)."""
    today = NOW.date()
    weeks, months = [], []
    for back in range(DAYS + 1):
        day = today - timedelta(days=back)
        year, week, _ = day.isocalendar()
        weeks.append(f"w:{year}-W{week:02d}")
        months.append(f"m:{day.year}-{day.month:02d}")
    return weeks, months


def aggregates(data: dict[str, np.ndarray], user_ids: np.ndarray) -> list[tuple[Any, ...]]:
    """The points_bucket rows the attempts imply (workspace 1): (user, period, points, answers)."""
    weeks, months = period_keys_by_day()
    # Day index from NOW's instant: an attempt ``ago`` seconds back lands on that local day.
    seconds_today = NOW.hour * 3600 + NOW.minute * 60
    day_back = (data["ago"] - seconds_today + 86399) // 86400
    scored = data["points"] >= 0
    rows: list[tuple[Any, ...]] = []
    for keys in (weeks, months):
        labels = np.array([keys.index(k) for k in keys])  # first index of each distinct key
        group = labels[day_back]
        combined = data["user"][scored].astype(np.int64) * 10_000 + group[scored]
        uniq, inverse = np.unique(combined, return_inverse=True)
        sums = np.bincount(inverse, weights=data["points"][scored]).astype(np.int64)
        counts = np.bincount(inverse).astype(np.int64)
        for key, pts, n in zip(uniq.tolist(), sums.tolist(), counts.tolist(), strict=True):
            rows.append((int(user_ids[key // 10_000]), keys[key % 10_000], pts, n))
    sums = np.bincount(data["user"], weights=data["points"], minlength=len(user_ids))
    counts = np.bincount(data["user"], minlength=len(user_ids))
    for i in np.nonzero(counts)[0].tolist():
        rows.append((int(user_ids[i]), "all", int(sums[i]), int(counts[i])))
    return rows


def sqlite_datetime(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f")


def load(engine: Engine, users: int, data: dict[str, np.ndarray]) -> tuple[Workspace, list[User]]:
    """Bulk-load the workspace, users, questions, attempts and aggregates."""
    created = NOW - timedelta(days=DAYS + 1)
    raw: Any = engine.raw_connection()
    is_pg = engine.dialect.name == "postgresql"
    cur = raw.cursor()
    mark = "%s" if is_pg else "?"

    def stamp(when: datetime) -> Any:
        return when if is_pg else sqlite_datetime(when)

    cur.execute(
        f"INSERT INTO workspace (id, platform, external_id, name, timezone, created_at) "
        f"VALUES (1, 'bench', 'bench', 'bench', 'UTC', {mark})",
        (stamp(created),),
    )
    user_rows = [(i + 1, 1, f"u{i}", f"user{i}", True, stamp(created)) for i in range(users)]
    cur.executemany(
        'INSERT INTO "user" (id, workspace_id, external_id, name, nudges, created_at) '
        f"VALUES ({', '.join([mark] * 6)})",
        user_rows,
    )
    cur.executemany(
        "INSERT INTO question (id, pack, topic, kind, difficulty, roles, prompt, content_hash, "
        f"active, synced_at) VALUES ({', '.join([mark] * 10)})",
        [
            (f"q{i}", "bench", "mig", "choice", 1 + i % 3, "[]", "?", "h", True, stamp(created))
            for i in range(QUESTIONS)
        ],
    )
    user_ids = np.arange(1, users + 1)
    # Bulk load the way one would restore a dump: secondary indexes are built afterwards.
    indexes = list(AttemptRow.__table__.indexes)
    raw.commit()
    with engine.begin() as conn:
        for index in indexes:
            index.drop(bind=conn)
    if not is_pg:
        cur.execute("PRAGMA foreign_keys=OFF")
        cur.execute("PRAGMA synchronous=OFF")
    columns = (
        "workspace_id, user_id, question_id, answer, score, verdict, points, grader_version, "
        "content_hash, answered_at"
    )
    n = len(data["user"])
    chunk = 200_000
    for start in range(0, n, chunk):
        rows = []
        for u, ago, pts in zip(
            data["user"][start : start + chunk].tolist(),
            data["ago"][start : start + chunk].tolist(),
            data["points"][start : start + chunk].tolist(),
            strict=True,
        ):
            when = NOW - timedelta(seconds=ago)
            verdict = "correct" if pts else "incorrect"
            rows.append(
                (
                    1,
                    u + 1,
                    f"q{u % QUESTIONS}",
                    "A",
                    1.0 if pts else 0.0,
                    verdict,
                    pts,
                    "1",
                    "h",
                    stamp(when),
                )
            )
        if is_pg:
            with cur.copy(f"COPY attempt ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            cur.executemany(
                f"INSERT INTO attempt ({columns}) VALUES ({', '.join([mark] * 10)})", rows
            )
    buckets = [(u, period, 1, pts, cnt) for u, period, pts, cnt in aggregates(data, user_ids)]
    if is_pg:
        with cur.copy(
            "COPY points_bucket (user_id, period, workspace_id, points, answers) FROM STDIN"
        ) as copy:
            for row in buckets:
                copy.write_row(row)
    else:
        cur.executemany(
            "INSERT INTO points_bucket (user_id, period, workspace_id, points, answers) "
            "VALUES (?, ?, ?, ?, ?)",
            buckets,
        )
    raw.commit()
    cur.close()
    raw.close()
    with engine.begin() as conn:
        for index in indexes:
            index.create(bind=conn)
    # Steady state: statistics, and on PostgreSQL the visibility map (autovacuum's job).
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE" if is_pg else "ANALYZE"))
    workspace = Workspace(1, "bench", "bench", "bench", "UTC")
    people = [User(i + 1, 1, f"u{i}", f"user{i}", None) for i in range(users)]
    return workspace, people


def timed(fn: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return times


def measure(
    engine: Engine, workspace: Workspace, people: list[User], rounds: int
) -> dict[str, Any]:
    factory = make_session_factory(engine)
    clock = SimulatedClock(NOW)
    week = period_of("week", NOW, UTC)
    rng = random.Random(7)
    checks: list[tuple[list[tuple[int, int]], int]] = []

    def aggregate() -> None:
        caller = rng.choice(people)
        with SqlUnitOfWork(factory, clock) as uow:
            board = people_board(uow, workspace, week, caller, None)
        checks.append(([(r.user_id, r.points) for r in board.rows], board.total))

    def naive() -> None:
        caller = rng.choice(people)
        with factory() as session:
            totals = (
                select(AttemptRow.user_id, func.sum(AttemptRow.points).label("pts"))
                .where(
                    AttemptRow.workspace_id == workspace.id,
                    AttemptRow.answered_at >= week.start,
                    AttemptRow.answered_at < week.end,
                )
                .group_by(AttemptRow.user_id)
                .having(func.sum(AttemptRow.points) > 0)
                .subquery()
            )
            top = session.execute(
                select(totals.c.user_id, totals.c.pts)
                .order_by(totals.c.pts.desc(), totals.c.user_id.desc())
                .limit(10)
            ).all()
            mine = session.scalar(select(totals.c.pts).where(totals.c.user_id == caller.id)) or 0
            session.scalar(select(func.count()).select_from(totals).where(totals.c.pts > mine))
            total = session.scalar(select(func.count()).select_from(totals))
        checks.append(([(u, int(p)) for u, p in top], int(total or 0)))

    aggregate()  # warm the caches and the connection pool
    agg = timed(aggregate, rounds)
    agg_result = checks[-1]
    naive_times = timed(naive, max(3, rounds // 20))
    naive_result = checks[-1]
    same_top = sorted(p for _, p in agg_result[0]) == sorted(p for _, p in naive_result[0])
    return {
        **command(engine, people, rounds),
        "aggregate_p50_ms": round(statistics.median(agg), 3),
        "aggregate_p99_ms": round(sorted(agg)[int(len(agg) * 0.99) - 1], 3),
        "naive_p50_ms": round(statistics.median(naive_times), 1),
        "board_people": agg_result[1],
        "same_top_points_as_naive": same_top,
        "same_count_as_naive": agg_result[1] == naive_result[1],
    }


def command(engine: Engine, people: list[User], rounds: int) -> dict[str, Any]:
    """The whole ``/leaderboard week`` through the core's command handler (see the module
    docstring); every reply must carry the board's card and its chart."""
    settings = Settings(studybot_database_url=engine.url.render_as_string(hide_password=False))
    app = bootstrap(settings, clock=SimulatedClock(NOW), bank=QuestionBank(()), jobs=[])
    rng = random.Random(11)
    charted = 0

    def send() -> None:
        nonlocal charted
        caller = rng.choice(people)
        event = Event(
            EventKind.COMMAND,
            "bench",
            "bench",
            "CBENCH",
            caller.external_id,
            user_name=caller.name,
            command="leaderboard",
            args="week",
        )
        (reply,) = app.bot.handle(event)
        assert reply.card is not None and reply.card.title.startswith("Leaderboard")
        charted += any(a.filename.endswith(".png") and a.content for a in reply.attachments)

    try:
        first = timed(send, 1)[0]
        redraws = []
        for _ in range(max(3, rounds // 20)):
            charts._bar_chart_png.cache_clear()
            redraws += timed(send, 1)
        before = charts._bar_chart_png.cache_info()
        steady = timed(send, rounds)
        after = charts._bar_chart_png.cache_info()
    finally:
        app.close()
    return {
        "command_first_ms": round(first, 1),
        "command_redraw_p50_ms": round(statistics.median(redraws), 1),
        "command_p50_ms": round(statistics.median(steady), 3),
        "command_p99_ms": round(sorted(steady)[int(len(steady) * 0.99) - 1], 3),
        "chart_cache": {"drawn": after.misses - before.misses, "reused": after.hits - before.hits},
        "replies_with_chart": f"{charted} of {1 + len(redraws) + len(steady)}",
    }


def run_backend(url: str, users: int, attempts: int, rounds: int, seed: int) -> dict[str, Any]:
    engine = make_engine(url)
    migrate.upgrade(engine)
    data = generate(users, attempts, seed)
    started = time.perf_counter()
    workspace, people = load(engine, users, data)
    load_s = time.perf_counter() - started
    result = measure(engine, workspace, people, rounds)
    engine.dispose()
    return {"load_seconds": round(load_s, 1), **result}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--attempts", type=int, default=5_000_000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--backends",
        default="sqlite,postgres",
        help="sqlite,postgres (PostgreSQL when STUDYBOT_TEST_POSTGRES_URL is set)",
    )
    args = parser.parse_args()
    backends = args.backends.split(",")
    out: dict[str, Any] = {
        "benchmark": "leaderboard week",
        "users": args.users,
        "attempts": args.attempts,
        "target_p50_ms": 20,
        "python": platform.python_version(),
    }
    if "sqlite" in backends:
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{Path(tmp) / 'bench.db'}"
            out["sqlite"] = run_backend(url, args.users, args.attempts, args.rounds, args.seed)
    pg_url = os.environ.get("STUDYBOT_TEST_POSTGRES_URL", "")
    if pg_url and "postgres" in backends:
        name = f"studybot_bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            url = admin.url.set(database=name).render_as_string(hide_password=False)
            out["postgresql"] = run_backend(url, args.users, args.attempts, args.rounds, args.seed)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

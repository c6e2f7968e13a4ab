"""Reviews benchmark: the cost of choosing the day's reviews (``srs.plan_reviews``).

Run: ``.venv/bin/python bench/reviews.py [--users 10000] [--cards 200] [--db-users 500]``.

- ``plan``: ``srs.plan_reviews`` for ``--users`` users of ``--cards`` cards each (a mix of
  long-learnt, recently failed, suspended and heavily overdue cards, as after time away),
  with a daily limit of 20: the pure choice, per user (median and p95) and in total. The
  cards are built before the timing starts (500 distinct decks, shared round-robin: the
  choice is pure, so a deck's reuse changes nothing but the set-up time).
- ``sql``: the same through the real unit of work on a migrated SQLite file, as ``/review``
  runs it (the user's cards and limit read by ``SqlReviews``, then the plan), for a sample of
  users of ``--db-users`` users with ``--cards`` cards each in ``review_card``.

Prints one JSON object. Takes well under a minute with the defaults.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import insert

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.core import srs  # noqa: E402
from bot.core.clock import SimulatedClock  # noqa: E402
from bot.core.model import User, Workspace  # noqa: E402
from bot.core.srs import REVIEWS, ReviewCard  # noqa: E402
from bot.db import migrate  # noqa: E402
from bot.db.engine import make_engine, make_session_factory  # noqa: E402
from bot.db.models import (  # noqa: E402
    QuestionRow,
    ReviewCardRow,
    ReviewSettingRow,
    UserRow,
    WorkspaceRow,
)
from bot.db.uow import SqlUnitOfWork  # noqa: E402

NOW = datetime(2026, 12, 16, 9, 0, tzinfo=UTC)
ZONES = [ZoneInfo(z) for z in ("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo")]
LIMIT = 20
DECKS = 500  # distinct decks built for the plan timing, shared round-robin by the users
STATE = {"state": 2, "stability": 12.0, "difficulty": 5.0, "lapses": 1}


def user_cards(rng: random.Random, user_id: int, cards: int) -> list[ReviewCard]:
    """One user's cards: most learnt and due over the coming weeks, a share overdue (some
    by weeks), a few failed this morning, a few suspended."""
    out = []
    for i in range(cards):
        interval = timedelta(days=rng.choice((1, 3, 7, 15, 40, 90)))
        due = NOW + timedelta(hours=rng.uniform(-24 * 21, 24 * 30))
        last = min(due - interval, NOW - timedelta(days=1, hours=rng.uniform(0, 48)))
        if rng.random() < 0.03:  # failed earlier today: relearning
            last, due = NOW - timedelta(hours=2), NOW - timedelta(minutes=rng.uniform(1, 90))
        out.append(
            ReviewCard(
                user_id,
                1,
                f"q-{i:04d}",
                STATE,
                due,
                last,
                rng.randint(1, 12),
                suspended=rng.random() < 0.02,
            )
        )
    return out


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000, 3),
    }


def bench_plan(users: int, cards: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    decks = [user_cards(rng, i, cards) for i in range(min(users, DECKS))]
    samples, chosen, waiting = [], 0, 0
    for user_id in range(1, users + 1):
        deck = decks[user_id % len(decks)]
        zone = ZONES[user_id % len(ZONES)]
        started = time.perf_counter()
        plan = srs.plan_reviews(deck, now=NOW, zone=zone, limit=LIMIT)
        samples.append(time.perf_counter() - started)
        chosen += len(plan.today)
        waiting += plan.waiting
    return {
        "users": users,
        "cards_per_user": cards,
        "daily_limit": LIMIT,
        **_ms(samples),
        "total_s": round(sum(samples), 3),
        "mean_chosen_per_user": round(chosen / users, 1),
        "mean_waiting_per_user": round(waiting / users, 1),
    }


def bench_sql(users: int, cards: int, sample: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        engine = make_engine(url)
        migrate.upgrade(engine)
        factory = make_session_factory(engine)
        load_started = time.perf_counter()
        with factory() as session, session.begin():
            session.execute(
                insert(WorkspaceRow),
                [
                    {
                        "id": 1,
                        "platform": "slack",
                        "external_id": "T1",
                        "name": "",
                        "timezone": "UTC",
                        "created_at": NOW,
                    }
                ],
            )
            session.execute(
                insert(QuestionRow),
                [
                    {
                        "id": f"q-{i:04d}",
                        "pack": "bench",
                        "topic": "mig",
                        "kind": "choice",
                        "difficulty": 1,
                        "roles": [],
                        "prompt": "?",
                        "content_hash": "x",
                        "active": True,
                        "synced_at": NOW,
                    }
                    for i in range(cards)
                ],
            )
            session.execute(
                insert(UserRow),
                [
                    {
                        "id": u,
                        "workspace_id": 1,
                        "external_id": f"U{u}",
                        "name": f"u{u}",
                        "timezone": "UTC",
                        "nudges": True,
                        "created_at": NOW,
                    }
                    for u in range(1, users + 1)
                ],
            )
            session.execute(
                insert(ReviewSettingRow),
                [
                    {"user_id": u, "workspace_id": 1, "daily_limit": LIMIT, "updated_at": NOW}
                    for u in range(1, users + 1, 2)
                ],
            )
            for user_id in range(1, users + 1):
                session.execute(
                    insert(ReviewCardRow),
                    [
                        {
                            "user_id": c.user_id,
                            "workspace_id": 1,
                            "question_id": c.question_id,
                            "state": c.state,
                            "due_at": c.due_at,
                            "last_review_at": c.last_review_at,
                            "reps": c.reps,
                            "suspended": c.suspended,
                            "leech": False,
                            "buried_until": None,
                        }
                        for c in user_cards(rng, user_id, cards)
                    ],
                )
        load_s = time.perf_counter() - load_started
        workspace = Workspace(1, "slack", "T1", "", "UTC")
        clock = SimulatedClock(NOW)
        samples = []
        for user_id in rng.sample(range(1, users + 1), min(sample, users)):
            user = User(user_id, 1, f"U{user_id}", f"u{user_id}", "UTC")
            started = time.perf_counter()
            with SqlUnitOfWork(factory, clock) as uow:
                deck = uow[REVIEWS].for_user(workspace, user)
                limit = uow[REVIEWS].daily_limit(user) or srs.DEFAULT_DAILY_LIMIT
                srs.plan_reviews(deck, now=NOW, zone=ZONES[0], limit=limit)
            samples.append(time.perf_counter() - started)
        engine.dispose()
    return {
        "backend": "sqlite",
        "users_in_db": users,
        "cards_in_db": users * cards,
        "load_s": round(load_s, 1),
        "sampled_users": len(samples),
        **_ms(samples),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--db-users", type=int, default=300)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    started = time.perf_counter()
    result = {
        "plan": bench_plan(args.users, args.cards, args.seed),
        "sql": bench_sql(args.db_users, args.cards, args.sample, args.seed),
        "python": platform.python_version(),
    }
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""A short soak in the suite: ``bench/soak.py`` (``make soak``) for eight simulated days,
with restarts, killed workers and a failing platform, on SQLite and PostgreSQL. Its
invariants hold: one post per channel per day, nothing sent twice but what a killed worker
had in flight, every graded answer stored once, points and streaks exact."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SOAK = Path(__file__).resolve().parents[1] / "bench" / "soak.py"


def soak_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("studybot_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2])
async def test_eight_days_of_faults_restarts_and_kills_keep_every_invariant(
    db_url: str, seed: int
) -> None:
    soak = soak_module()
    args = soak.arguments(
        [
            "--days",
            "8",
            "--users",
            "10",
            "--seed",
            str(seed),
            "--kill-rate",
            "0.3",
            "--restart-rate",
            "0.2",
            "--fault-rate",
            "0.1",
        ]
    )
    summary = await soak.Soak(args, db_url).run()
    assert summary["problems"] == []
    assert summary["invariants_hold"] is True
    # The faults it claims to survive did happen.
    assert summary["kills"] >= 1 and summary["restarts"] >= 1
    assert summary["platform_faults"] >= 1 and summary["retries_turned_away"] >= 1
    assert summary["daily_posts"] >= 10 and summary["answers_graded"] >= 20

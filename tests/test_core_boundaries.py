"""The core stays free of platforms, SQL and the scheduler (dependencies point inward)."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "bot" / "core"
FORBIDDEN = (
    "slack_bolt",
    "slack_sdk",
    "discord",
    "nacl",
    "sqlalchemy",
    "alembic",
    "apscheduler",
    "aiohttp",
    "starlette",
    "uvicorn",
    "bot.db",
    "bot.adapters",
    "bot.scheduler",
    "bot.delivery",
    "bot.bootstrap",
    "bot.cli",
)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_imports_no_platform_sql_or_scheduler_code() -> None:
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        for name in imported_modules(path):
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN):
                offenders.append(f"{path.relative_to(CORE.parent.parent)} imports {name}")
    assert offenders == []


def test_core_never_reads_the_wall_clock_directly() -> None:
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        if path.name == "clock.py":
            continue
        text = path.read_text(encoding="utf-8")
        for needle in ("datetime.now(", "datetime.utcnow(", "time.time(", "date.today("):
            if needle in text:
                offenders.append(f"{path.name}: {needle}")
    assert offenders == []

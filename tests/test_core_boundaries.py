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
    # the judge is a port in the core; HTTP lives in bot.judge_http
    "urllib.request",
    "http.client",
    "httpx",
    "bot.judge_http",
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


def _module_name(path: Path) -> str:
    parts = path.relative_to(CORE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path, modules: set[str]) -> set[str]:
    """The core modules ``path`` imports when it is loaded (not under TYPE_CHECKING, not
    inside functions), with the packages they sit in."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    with_parents = set()
    for name in found:
        parts = name.split(".")
        with_parents.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return with_parents & modules


def test_the_core_has_no_import_cycle() -> None:
    """Every module of the core can be the first one imported: its imports form no cycle."""
    paths = {_module_name(p): p for p in CORE.rglob("*.py")}
    graph = {name: _runtime_imports(path, set(paths)) - {name} for name, path in paths.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for nxt in sorted(graph[name]):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert [" → ".join(c) for c in cycles] == []


def test_the_unit_of_work_knows_no_feature() -> None:
    """Ports name their repositories next to the records; ports.py imports none of them."""
    assert not {n for n in imported_modules(CORE / "ports.py") if n.startswith("bot")}

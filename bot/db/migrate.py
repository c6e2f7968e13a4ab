"""Apply Alembic migrations from code: ``studybot db upgrade`` and the SQLite auto-upgrade.

The migrations ship inside the package (``bot.migrations``, see setup.py), so an installed
studybot migrates without a checkout and without an ``alembic.ini``.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from bot.core.errors import ConfigError
from bot.resources import MIGRATIONS_DIR

# Alembic (and the Mako and Pygments it pulls in) is imported by the functions that migrate:
# a start on a current database only reads the revision ids, see ``is_current``.
if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

log = logging.getLogger(__name__)


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def _config(engine: Engine) -> Config:
    return alembic_config(engine.url.render_as_string(hide_password=False))


def scripts() -> ScriptDirectory:
    """The migrations that ship with this studybot."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config("sqlite://"))


def check_revision(revision: str) -> None:
    """A ConfigError naming the known revisions when ``revision`` is none of them."""
    from alembic.util import CommandError

    directory = scripts()
    try:
        directory.get_revisions(revision)
    except CommandError as exc:
        known = ", ".join(s.revision for s in reversed(list(directory.walk_revisions())))
        raise ConfigError(
            f"there is no migration {revision!r}; give one of {known}, or head (the default)"
        ) from exc


def describe(revision: str) -> str:
    """A revision with its title, as in ``0001_initial (initial schema)``."""
    script = scripts().get_revision(revision)
    text = (script.doc or "") if script is not None else ""
    doc = " ".join(text.strip().split("\n\n")[0].split()).rstrip(".")
    return f"{revision} ({doc})" if doc else revision


def _heads(connection: Connection) -> tuple[str, ...]:
    from alembic.runtime.migration import MigrationContext

    return tuple(MigrationContext.configure(connection).get_current_heads())


def upgrade(engine: Engine, revision: str = "head") -> list[str]:
    """Bring the database behind ``engine`` to ``revision``; return the revisions applied,
    oldest first (empty when it was already there). A ConfigError for an unknown
    revision or one the database cannot move up to."""
    from alembic import command
    from alembic.util import CommandError

    check_revision(revision)
    config = _config(engine)
    with engine.begin() as connection:
        before = _heads(connection)
        config.attributes["connection"] = connection
        try:
            command.upgrade(config, revision)
        except CommandError as exc:
            raise ConfigError(f"cannot upgrade to {revision!r}: {exc}") from exc
        after = _heads(connection)
    applied = _between(after, before)
    for name in applied:
        log.info("database: applied migration %s", describe(name))
    return applied


def _between(upper: Sequence[str], lower: Sequence[str]) -> list[str]:
    if set(upper) == set(lower):
        return []
    steps = scripts().iterate_revisions(tuple(upper), tuple(lower) or "base")
    return [script.revision for script in reversed(list(steps))]


def current(engine: Engine) -> tuple[str, ...]:
    """The revisions the database is at (empty before the first migration)."""
    with engine.connect() as connection:
        return _heads(connection)


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    config = _config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


def is_current(engine: Engine) -> bool:
    """True when the database is at the newest revision.

    Reads the revision ids of the migration files and the database's ``alembic_version``
    without Alembic, which costs a start a few hundred milliseconds to import; Alembic
    decides whenever a file does not name its revisions as plain literals."""
    heads = shipped_heads()
    if heads is None:
        return set(current(engine)) == set(scripts().get_heads())
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return False
        rows = connection.execute(text("SELECT version_num FROM alembic_version"))
        return {row[0] for row in rows} == heads


def shipped_heads(directory: Path = MIGRATIONS_DIR / "versions") -> set[str] | None:
    """The head revisions of the migrations in ``directory``, read from each file's
    ``revision`` and ``down_revision`` literals; None when a file has no such literals.

    Parsed once per set of files (their names, sizes and modification times): every app
    start in one process (the test suite makes thousands) reads a handful of stats instead
    of parsing every migration again."""
    files: list[tuple[str, int, int]] = []
    for path in sorted(directory.glob("*.py")):
        try:
            stat = path.stat()
        except OSError:
            return None
        files.append((path.name, stat.st_size, stat.st_mtime_ns))
    heads = _heads_of_files(directory, tuple(files))
    return set(heads) if heads is not None else None


@lru_cache(maxsize=8)
def _heads_of_files(
    directory: Path, files: tuple[tuple[str, int, int], ...]
) -> frozenset[str] | None:
    revisions: set[str] = set()
    parents: set[str] = set()
    for name, _size, _mtime in files:
        names = _revision_literals(directory / name)
        if names is None:
            return None
        revision, down = names
        revisions.add(revision)
        parents.update(down)
    return frozenset(revisions - parents) if revisions else None


def _revision_literals(path: Path) -> tuple[str, tuple[str, ...]] | None:
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    found: dict[str, object] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            target, value = node.targets[0].id, node.value
        if target in ("revision", "down_revision") and value is not None:
            try:
                found[target] = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                return None
    revision, down = found.get("revision"), found.get("down_revision")
    if not isinstance(revision, str) or "down_revision" not in found:
        return None
    if down is None:
        return revision, ()
    if isinstance(down, str):
        return revision, (down,)
    if isinstance(down, tuple | list) and all(isinstance(d, str) for d in down):
        return revision, tuple(down)
    return None

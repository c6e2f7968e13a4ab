"""Apply Alembic migrations from code: ``studybot db upgrade`` and the SQLite auto-upgrade.

The migrations ship inside the package (``bot.migrations``, see setup.py), so an installed
studybot migrates without a checkout and without an ``alembic.ini``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine

from bot.core.errors import ConfigError
from bot.resources import MIGRATIONS_DIR

log = logging.getLogger(__name__)


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def _config(engine: Engine) -> Config:
    return alembic_config(engine.url.render_as_string(hide_password=False))


def scripts() -> ScriptDirectory:
    """The migrations that ship with this studybot."""
    return ScriptDirectory.from_config(alembic_config("sqlite://"))


def check_revision(revision: str) -> None:
    """A ConfigError naming the known revisions when ``revision`` is none of them."""
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
    return tuple(MigrationContext.configure(connection).get_current_heads())


def upgrade(engine: Engine, revision: str = "head") -> list[str]:
    """Bring the database behind ``engine`` to ``revision``; return the revisions applied,
    oldest first (empty when it was already there). A ConfigError for an unknown
    revision or one the database cannot move up to."""
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
    config = _config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


def is_current(engine: Engine) -> bool:
    """True when the database is at the newest revision."""
    heads = set(scripts().get_heads())
    return set(current(engine)) == heads

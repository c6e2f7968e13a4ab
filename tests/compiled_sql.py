"""One cache of compiled SQL for every engine the tests make.

SQLAlchemy caches each statement's compiled SQL, per engine. A deployment makes one engine
and compiles each statement once; the suite makes an engine for every test (a database of
its own), so each test compiled again the hundred or so statements it ran (a fifth of the
CPU of test_disputes and test_goal). Engines of one dialect class on one server compile a
statement to the same SQL, so the tests' engines share one cache, keyed by what the
compilation depends on instead of by the engine's dialect object. Only SQL text is shared:
every test still has its own database, engine and connections.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.engine import Dialect
from sqlalchemy.util import LRUCache

# Statements the whole suite runs, on SQLite and PostgreSQL, with room to spare.
CAPACITY = 4000


def _dialect_key(dialect: Dialect) -> tuple[object, ...]:
    """What a compiled statement depends on in its dialect (equal for every test engine of a
    backend, which all talk to the one server of the run)."""
    return (
        type(dialect),
        dialect.server_version_info,
        dialect.paramstyle,
        dialect.max_identifier_length,
        dialect.label_length,
        dialect.default_schema_name,
        dialect.use_insertmanyvalues,
        dialect.insertmanyvalues_page_size,
    )


class SharedCompiledCache(LRUCache[Any, Any]):
    """SQLAlchemy's LRU cache, with the dialect in each key replaced by its
    :func:`_dialect_key` (a key of any other shape is kept as it is)."""

    @staticmethod
    def _shared(key: Any) -> Any:
        if isinstance(key, tuple) and key and isinstance(key[0], Dialect):
            return (_dialect_key(key[0]), *key[1:])
        return key

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(self._shared(key), default)

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(self._shared(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(self._shared(key), value)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(self._shared(key))


SHARED = SharedCompiledCache(CAPACITY)


def _use_shared_cache(connection: Connection) -> None:
    connection.execution_options(compiled_cache=SHARED)


def install() -> None:
    """Every engine made from now on (the tests' and the bot's) compiles through
    :data:`SHARED`."""
    event.listen(Engine, "engine_connect", _use_shared_cache)

"""What every room of the store shares: the errors, the engine's write path, the guard.

A room is a repository over one concern's tables (ingestion, the work queue, runs and scores,
detector state, and the rooms other issues add); each is built from the same :class:`Engine` and
maps a lost database to :class:`StoreUnavailable` the same way, so a caller handles one error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine, Select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, OperationalError

from proctor.store import _engine

T = TypeVar("T")


class StoreError(Exception):
    """Base of the store's errors."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or refused the transaction; nothing of it was stored."""


class RunNotFound(StoreError, KeyError):
    """No run has this id."""


def dumps(value: Any) -> str:
    """JSON as the store writes it (compact, unicode kept, anything else as its string)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def guard(fn: Callable[[], T]) -> T:
    """``fn()``, with a database that cannot be reached raised as :class:`StoreUnavailable`: the one
    rule every room (and a repository that is not a :class:`Room`) maps a lost database by."""
    try:
        return fn()
    except (OperationalError, DBAPIError) as e:
        if isinstance(e, OperationalError) or e.connection_invalidated:
            raise StoreUnavailable(f"database unavailable: {type(e.orig).__name__}: {e.orig}") from None
        raise


class Room:
    """A repository over one concern's tables. Methods are synchronous and thread-safe (a session
    each): call them from worker threads of an event loop (``asyncio.to_thread``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        #: Write transactions go through this (on SQLite they begin IMMEDIATE: see _engine).
        self._writes = engine.execution_options(**{_engine.WRITE_OPTION: True})

    def _guard(self, fn: Callable[[], T]) -> T:
        """Run ``fn``; a database that cannot be reached raises :class:`StoreUnavailable` (:func:`guard`)."""
        return guard(fn)

    def _locked(self, stmt: Select[Any], *, skip: bool) -> Select[Any]:
        """``stmt`` with ``FOR UPDATE`` on PostgreSQL (SQLite's write transactions are serial)."""
        if self.dialect != "postgresql":
            return stmt
        return stmt.with_for_update(skip_locked=skip)

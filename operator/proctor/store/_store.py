"""The store: one object over the rooms, each a repository over one concern's tables.

- :class:`~proctor.store._ingestion.Ingestion`: spans and events in, runs created and moved;
- :class:`~proctor.store._queue.WorkQueue`: timed transitions, claims and leases, completions;
- :class:`~proctor.store._runs.Runs`: runs, trajectories, scores, evaluations, a monitor's summary;
- :class:`~proctor.store._detector_state.DetectorState`: each live score series' detector state;
- :class:`~proctor.store._rollup.Rollups`: each revision's verdict counts (moved with every run).

One code path for SQLite and PostgreSQL; every write is one transaction. :class:`Store` opens the
database, migrates it, and offers the rooms' methods under its own name (``store.ingest``,
``store.claim``...) as well as the rooms themselves (``store.queue``, ``store.detectors``). A room
that a later issue adds (incidents, notices, feedback) is its own module and class, built from
``store.engine`` the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine

from proctor.store import _engine
from proctor.store._checkpoint import Checkpoint, Checkpointer
from proctor.store._detector_state import DetectorState
from proctor.store._ingestion import Ingestion
from proctor.store._queue import WorkQueue
from proctor.store._rollup import Rollups
from proctor.store._room import Room
from proctor.store._runs import Runs


class Store(Room):
    """Proctor's database (arms B and C). Methods are synchronous and thread-safe (a session each):
    call them from worker threads of an event loop (``asyncio.to_thread``).

    Every method raises :class:`~proctor.store.StoreUnavailable` when the database cannot be
    reached; nothing of that call was stored.
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        #: SQLite's checkpoints when they run off the commit path (``Store.open(wal_limit_bytes=...)``)
        self.checkpointer: Checkpointer | None = None
        self.ingestion = Ingestion(engine)
        self.queue = WorkQueue(engine)
        self.runs = Runs(engine)
        self.detectors = DetectorState(engine)
        self.rollups = Rollups(engine)
        # the facade: each method is its room's
        self.ingest = self.ingestion.ingest
        self.advance_due = self.queue.advance_due
        self.next_due = self.queue.next_due
        self.claim = self.queue.claim
        self.renew = self.queue.renew
        self.complete = self.queue.complete
        self.evaluate_now = self.queue.evaluate_now
        self.trajectory = self.runs.trajectory
        self.list_runs = self.runs.list_runs
        self.get_run = self.runs.get_run
        self.evaluations = self.runs.evaluations
        self.summary = self.runs.summary
        self.count = self.runs.count

    @classmethod
    def open(
        cls,
        url: str,
        *,
        migrate: bool = True,
        pool_size: int = 8,
        sqlite_synchronous: str = _engine.SQLITE_SYNCHRONOUS[0],
        wal_limit_bytes: int | None = None,
        on_checkpoint: Callable[[Checkpoint], None] | None = None,
    ) -> Store:
        """Open the database at ``url`` and bring its schema to this version (``alembic upgrade head``);
        ``sqlite_synchronous``: SQLite's durability level (:data:`~proctor.store.SQLITE_SYNCHRONOUS`).

        ``wal_limit_bytes`` (SQLite; ignored on PostgreSQL): WAL checkpoints run on a thread of
        their own (:class:`~proctor.store.Checkpointer`, each reported to ``on_checkpoint``), never
        inside a commit, and the WAL is kept to about that size. None: SQLite's own, in commits."""
        background = wal_limit_bytes is not None and _engine.normalise_url(url).startswith("sqlite")
        engine = _engine.create(
            url,
            pool_size=pool_size,
            sqlite_synchronous=sqlite_synchronous,
            wal_limit_bytes=wal_limit_bytes if background else None,
        )
        store = cls(engine)
        if migrate:
            store._guard(lambda: _engine.migrate(engine))
        if background:
            assert wal_limit_bytes is not None and engine.url.database is not None
            store.checkpointer = Checkpointer(
                Path(engine.url.database),
                synchronous=_engine.synchronous_level(sqlite_synchronous),
                limit_bytes=wal_limit_bytes,
                observe=on_checkpoint,
            ).start()
        return store

    def close(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.close()
        self.engine.dispose()

    def ping(self) -> None:
        """Raise :class:`~proctor.store.StoreUnavailable` unless the database answers."""

        def go() -> None:
            with self.engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")

        self._guard(go)

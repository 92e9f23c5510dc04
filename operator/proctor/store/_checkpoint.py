"""SQLite's WAL checkpoints off the commit path, on a thread and a connection of their own.

In WAL mode a commit appends its pages to the WAL file and (``synchronous=FULL``) fsyncs it; a
*checkpoint* later copies those pages into the database file and fsyncs that. By default SQLite
runs the checkpoint inside the commit that takes the WAL past ``wal_autocheckpoint`` pages (1,000):
that one commit, and every request waiting behind it in the collector's group commit, waits for
the copy and its fsync, which grow with the database (the acknowledgement tail of issue 28).

A store opened with ``background_checkpoints`` turns auto-checkpoints off on its connections
(``wal_autocheckpoint=0``, see :func:`proctor.store._engine.create`) and runs a
:class:`Checkpointer`, which every :data:`CHECKPOINT_SECONDS`, when the WAL changed:

- runs ``PRAGMA wal_checkpoint(PASSIVE)``: copies what no reader still needs, and never waits for
  nor blocks a writer or a reader (SQLite's checkpoint lock is not the write lock);
- then, when the WAL holds more than :data:`WAL_LIMIT_BYTES` (writes kept arriving while it
  copied, so SQLite could not start the WAL over, or a reader held an old snapshot), runs
  ``PRAGMA wal_checkpoint(RESTART)``: the PASSIVE pass just copied nearly everything, so it holds
  the write lock only for the last commits' pages, waits at most :data:`RESTART_BUSY_MS` for
  readers (busy: tried again next time), and lets the next commit write the WAL from its start.
  The connections' ``journal_size_limit`` trims the file back to the limit then, so the WAL
  never grows without bound.

Durability does not change. A commit is durable once its WAL frames are synced (every commit at
``FULL``), whoever checkpoints; a checkpoint only copies committed pages, and SQLite syncs the
database file before the WAL is written over, so a crash at any point loses nothing committed
(the next open replays the WAL). :meth:`Checkpointer.close` checkpoints once more (TRUNCATE).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

log = logging.getLogger("proctor.store.checkpoint")

#: Seconds between looks at the WAL (a checkpoint runs only when it changed).
CHECKPOINT_SECONDS: Final = 1.0
#: Bytes of WAL past which the checkpointer starts it over (RESTART) and trims the file to.
WAL_LIMIT_BYTES: Final = 64 * 1024 * 1024
#: Milliseconds a RESTART waits for the writer and the readers before it gives up until next time
#: (it holds new writers back meanwhile: short, so a commit never waits long for it).
RESTART_BUSY_MS: Final = 100


#: The WAL file's header and each frame's (before the page it holds), bytes: SQLite's file format.
WAL_HEADER: Final = 32
WAL_FRAME_HEADER: Final = 24


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint: its mode, wall seconds, WAL frames (pages) at its end and copied, and
    whether readers or a writer kept it from finishing (``busy``: tried again next time)."""

    mode: str
    seconds: float
    frames: int
    copied: int
    busy: bool


class Checkpointer:
    """A daemon thread checkpointing one SQLite database's WAL (see the module's docstring)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str,
        interval: float = CHECKPOINT_SECONDS,
        limit_bytes: int = WAL_LIMIT_BYTES,
        observe: Callable[[Checkpoint], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.wal = Path(f"{self.path}-wal")
        self.interval = interval
        self.limit_bytes = limit_bytes
        self.observe = observe
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one checkpoint at a time (the thread's, close's, a caller's)
        self._seen: tuple[int, int] | None = None  # the WAL's (size, mtime) at the last look
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        self._conn.execute(f"PRAGMA synchronous={synchronous}")
        self._conn.execute(f"PRAGMA journal_size_limit={limit_bytes}")
        self._conn.execute("PRAGMA wal_autocheckpoint=0")
        self._page = int(self._conn.execute("PRAGMA page_size").fetchone()[0])
        self._thread = threading.Thread(target=self._run, name="proctor-checkpoint", daemon=True)

    def start(self) -> Checkpointer:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread, then checkpoint everything and empty the WAL (TRUNCATE) if no one
        else uses the database now; otherwise the WAL stays, whole, for the next open."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=60)
        with self._lock:
            try:
                self._checkpoint("TRUNCATE", busy_ms=RESTART_BUSY_MS)
            except sqlite3.Error as e:
                log.warning("the last checkpoint did not run (%s): the WAL is replayed at the next open", e)
            self._conn.close()

    def checkpoint(self, *, force: bool = False) -> list[Checkpoint]:
        """One look at the WAL: PASSIVE when it changed (or ``force``), then RESTART when it holds
        more than the limit. Returns the checkpoints run (none when nothing changed)."""
        with self._lock:
            try:
                stat = self.wal.stat()
            except FileNotFoundError:
                return []
            # taken before: a commit made while it checkpoints changes it, so the next look runs
            seen = (stat.st_size, stat.st_mtime_ns)
            if seen == self._seen and not force:
                return []
            done = [self._checkpoint("PASSIVE")]
            if WAL_HEADER + done[0].frames * (self._page + WAL_FRAME_HEADER) > self.limit_bytes:
                done.append(self._checkpoint("RESTART", busy_ms=RESTART_BUSY_MS))
            self._seen = seen  # only once done: a checkpoint that failed is tried again
            return done

    def _checkpoint(self, mode: str, *, busy_ms: int = 0) -> Checkpoint:
        self._conn.execute(f"PRAGMA busy_timeout={busy_ms}")
        start = time.perf_counter()
        busy, frames, copied = self._conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        done = Checkpoint(mode, time.perf_counter() - start, max(0, frames), max(0, copied), bool(busy))
        if self.observe is not None:
            try:
                self.observe(done)
            except Exception:  # metrics must never stop the checkpoints
                log.exception("checkpoint observer failed")
        return done

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.checkpoint()
            except sqlite3.Error as e:  # locked by another process, a disk error: tried again next time
                log.warning("WAL checkpoint failed (%s); trying again", e)

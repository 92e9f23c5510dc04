"""SQLite's WAL checkpoints off the commit path (issue 28): no commit copies pages into the
database file, the checkpointer does, keeps the WAL bounded, and nothing committed is lost when
the process dies between checkpoints."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from proctor.protocol import LifecyclePolicy
from proctor.store import Checkpointer, Item, RunRef, SpanRecord, Store
from proctor.store._engine import create

MON = "ns/oil"
POLICIES = {MON: LifecyclePolicy(quiescence_seconds=90)}
LIMIT = 256 * 1024
#: About 1.5 KiB of text a span, different in every span (as the collector's are).
TEXT = "Oil consumption on engine {n} is 0.30 qt/hr after flight {n}; the ELEVATED band starts there. " * 16


def items(start: int, count: int) -> list[Item]:
    ref = RunRef(monitor=MON, key=f"conv-{start}", key_source="gen_ai.conversation.id", agent="oil-agent")
    return [
        Item(
            ref,
            span=SpanRecord(
                trace_id=f"{start:032x}",
                span_id=f"{n + 1:016x}",
                name="chat",
                start_ns=1,
                end_ns=2,
                attributes={"gen_ai.output.messages": TEXT.format(n=start + n)},
            ),
        )
        for n in range(count)
    ]


def size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[Store, Checkpointer, Path]]:
    """A store whose commits never checkpoint, and a checkpointer that runs only when told."""
    path = tmp_path / "c.db"
    store = Store(create(f"sqlite:///{path}", wal_limit_bytes=LIMIT))
    Store.open(f"sqlite:///{path}").close()  # migrated (and its WAL emptied) by a plain store first
    checkpointer = Checkpointer(path, synchronous="FULL", interval=3600, limit_bytes=LIMIT)
    yield store, checkpointer, path
    store.close()
    checkpointer.close()


def test_no_commit_checkpoints_and_the_checkpointer_bounds_the_wal(
    db: tuple[Store, Checkpointer, Path],
) -> None:
    store, checkpointer, path = db
    wal = Path(f"{path}-wal")
    with store.engine.connect() as a, store.engine.connect() as b:
        assert {c.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one() for c in (a, b)} == {0}
    before = size(path)
    for start in range(0, 4000, 200):  # about 6 MiB of WAL: SQLite alone would checkpoint at 4 MiB
        store.ingest(items(start, 200), POLICIES, now=1.0)
    assert size(path) == before  # no commit copied a page into the database file
    assert size(wal) > 4 * 1024 * 1024

    done = checkpointer.checkpoint()
    assert [c.mode for c in done] == ["PASSIVE", "RESTART"] and not any(c.busy for c in done)
    assert done[0].copied == done[0].frames > 0
    assert size(path) > before  # the pages are in the database file now
    store.ingest(items(10_000, 10), POLICIES, now=2.0)  # the next commit starts the WAL over...
    assert size(wal) <= LIMIT  # ...and trims it to the limit
    assert store.count("spans") == 4010


def test_a_look_at_an_unchanged_wal_runs_no_checkpoint(db: tuple[Store, Checkpointer, Path]) -> None:
    store, checkpointer, _path = db
    store.ingest(items(0, 10), POLICIES, now=1.0)
    assert [c.mode for c in checkpointer.checkpoint()] == ["PASSIVE"]  # small: no restart needed
    assert checkpointer.checkpoint() == []
    store.ingest(items(100, 10), POLICIES, now=1.0)
    assert [c.mode for c in checkpointer.checkpoint()] == ["PASSIVE"]


def test_a_reader_holding_an_old_snapshot_makes_the_restart_busy_not_a_writer_wait(
    db: tuple[Store, Checkpointer, Path],
) -> None:
    store, checkpointer, path = db
    store.ingest(items(0, 10), POLICIES, now=1.0)
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM spans").fetchone()[0] == 10  # a snapshot held
        for start in range(100, 1100, 200):
            store.ingest(items(start, 200), POLICIES, now=1.0)
        done = checkpointer.checkpoint()
        assert [c.mode for c in done] == ["PASSIVE", "RESTART"]
        assert done[0].copied < done[0].frames and done[1].busy  # the reader's pages wait for it
        store.ingest(items(5000, 10), POLICIES, now=2.0)  # the writer goes on (the restart gave up)
    finally:
        reader.close()
    done = checkpointer.checkpoint()
    assert not done[-1].busy and done[0].copied == done[0].frames  # the reader gone: all copied
    store.ingest(items(6000, 10), POLICIES, now=3.0)
    assert size(Path(f"{path}-wal")) <= LIMIT
    assert store.count("spans") == 1030


def test_a_process_dying_between_checkpoints_loses_nothing_committed(
    db: tuple[Store, Checkpointer, Path], tmp_path: Path
) -> None:
    store, checkpointer, path = db
    for start in range(0, 1000, 100):
        store.ingest(items(start, 100), POLICIES, now=1.0)
    checkpointer.checkpoint()  # some pages copied, the WAL then holds more commits again
    for start in range(1000, 1500, 100):
        store.ingest(items(start, 100), POLICIES, now=1.0)
    # the files as a crash leaves them (the connections still open, nothing closed or checkpointed)
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    shutil.copy(path, crashed / "c.db")
    shutil.copy(f"{path}-wal", crashed / "c.db-wal")
    reopened = Store.open(f"sqlite:///{crashed / 'c.db'}")
    try:
        assert reopened.count("spans") == 1500
    finally:
        reopened.close()


def test_a_store_opened_with_a_limit_checkpoints_on_its_own_and_closes_with_an_empty_wal(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.db"
    seen = []
    store = Store.open(f"sqlite:///{path}", wal_limit_bytes=LIMIT, on_checkpoint=seen.append)
    try:
        assert store.checkpointer is not None
        store.ingest(items(0, 100), POLICIES, now=1.0)
        store.checkpointer.checkpoint(force=True)
        assert seen and seen[0].mode == "PASSIVE"
    finally:
        store.close()
    assert size(Path(f"{path}-wal")) == 0
    again = Store.open(f"sqlite:///{path}")
    try:
        assert again.count("spans") == 100 and again.checkpointer is None
    finally:
        again.close()

"""Per-revision rollups: what a revision's live verdict counts, kept as the runs move.

A rollout controller asks for a revision's verdict every few seconds, and a stable revision may
hold hundreds of thousands of judged runs: counting them on every call costs with the runs. So each
``(monitor, stored revision)`` has a row in ``revision_rollups`` with its judged runs, those that
breached, those that breached the safety tier (``metric = ""``), and a row per metric with the judged
runs that breached it. The verdict sums a revision's few rows (``R`` matches ``R`` and ``R@<hash>``:
:func:`proctor.store.revision_filter`).

It cannot drift from the runs: the rollup is moved by the ORM flush that writes a run (a
``before_flush`` hook on every :class:`~sqlalchemy.orm.Session`), from the run's values before and
after, in the same transaction. Whatever moves a run into or out of a judged state (a completion, a
late event that re-opens it, "evaluate now", its revision learned late, a run deleted) moves its
share. Runs are written through the ORM, loaded whole; the only Core writes of runs are ingestion's
inserts of new runs, which are never judged. :meth:`Rollups.rebuild` recounts a monitor from its
runs (``proctor monitors recompute``, a database filled by hand).

A run's share is its ``breached`` flag and its ``breaches`` (the metrics it breached, decided once
when it was judged by :func:`proctor.protocol.breaches`, stored with the run as JSON), so what is
subtracted when it leaves is exactly what was added when it came.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from sqlalchemy import (
    Connection,
    Integer,
    String,
    Table,
    bindparam,
    delete,
    event,
    func,
    inspect,
    select,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, UOWTransaction, mapped_column

from proctor.protocol import EVALUATED_STATES, Metric, breached_metrics, is_safety_tier, run_metrics
from proctor.store._room import Room, dumps
from proctor.store._schema import Base, Evaluation, Run, Score

#: The metric of a revision's row of run totals.
TOTALS: Final = ""
_JUDGED: Final = frozenset(s.value for s in EVALUATED_STATES)
_TRACKED: Final = ("monitor", "revision", "state", "breached", "breaches")


class RevisionRollup(Base):
    """One revision's counts under one monitor (``metric = ""``: the run totals), or per metric the
    judged runs that breached it."""

    __tablename__ = "revision_rollups"

    monitor: Mapped[str] = mapped_column(String(320), primary_key=True)
    revision: Mapped[str] = mapped_column(String(255), primary_key=True)  # "" when the agent has none
    metric: Mapped[str] = mapped_column(String(63), primary_key=True)
    judged: Mapped[int] = mapped_column(Integer, default=0)
    breached: Mapped[int] = mapped_column(Integer, default=0)
    safety_breached: Mapped[int] = mapped_column(Integer, default=0)


ROLLUPS: Final = cast(Table, RevisionRollup.__table__)


def encode_breaches(found: Iterable[Metric]) -> str:
    """A run's breached metrics as stored (``[[name, score, threshold, source], ...]``, by name)."""
    return dumps(sorted([m.name, m.score, m.threshold, m.source] for m in found))


def decode_breaches(stored: str | None) -> tuple[Metric, ...]:
    """The breached metrics stored with a run (none for a run judged clean, or never judged)."""
    if not stored:
        return ()
    return tuple(Metric(str(n), s, float(t), str(src)) for n, s, t, src in json.loads(stored))


@dataclass(frozen=True, slots=True)
class Share:
    """What one judged run adds to its revision's rollup."""

    monitor: str
    revision: str
    breached: bool
    safety: bool
    metrics: tuple[str, ...]


def share_of(
    monitor: str, revision: str | None, state: str, breached: bool | None, breaches: str | None
) -> Share | None:
    """A run's share of its revision's rollup (None: the run is not judged and counts nowhere)."""
    if state not in _JUDGED:
        return None
    if not breached:
        return Share(monitor, revision or "", False, False, ())
    found = decode_breaches(breaches)
    return Share(
        monitor,
        revision or "",
        True,
        any(is_safety_tier(m.name, m.source) for m in found),
        tuple(sorted({m.name for m in found})),
    )


Deltas = dict[tuple[str, str, str], list[int]]


def add_share(deltas: Deltas, share: Share | None, sign: int) -> None:
    """Add ``share`` (``sign`` 1) or take it away (-1) in ``deltas``."""
    if share is None:
        return
    totals = deltas.setdefault((share.monitor, share.revision, TOTALS), [0, 0, 0])
    totals[0] += sign
    totals[1] += sign * share.breached
    totals[2] += sign * share.safety
    for metric in share.metrics:
        deltas.setdefault((share.monitor, share.revision, metric), [0, 0, 0])[1] += sign


def apply_deltas(conn: Connection, deltas: Mapping[tuple[str, str, str], Sequence[int]]) -> None:
    """Move the rollups by ``deltas`` (rows made on their first run), in key order: two
    transactions lock the rows they share in the same order, so they never deadlock on them."""
    rows = [
        {"monitor": m, "revision": r, "metric": k, "judged": d[0], "breached": d[1], "safety_breached": d[2]}
        for (m, r, k), d in sorted(deltas.items())
        if any(d)
    ]
    if not rows:
        return
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(ROLLUPS)
    upsert = stmt.on_conflict_do_update(
        index_elements=[ROLLUPS.c.monitor, ROLLUPS.c.revision, ROLLUPS.c.metric],
        set_={
            "judged": ROLLUPS.c.judged + stmt.excluded.judged,
            "breached": ROLLUPS.c.breached + stmt.excluded.breached,
            "safety_breached": ROLLUPS.c.safety_breached + stmt.excluded.safety_breached,
        },
    )
    conn.execute(upsert, rows)


def _before(run: Run) -> tuple[Any, ...]:
    """The run's tracked values as the database holds them (before this flush's changes)."""
    attrs = inspect(run).attrs
    out = []
    for name in _TRACKED:
        history = attrs[name].history
        out.append(history.deleted[0] if history.deleted else getattr(run, name))
    return tuple(out)


def _after(run: Run) -> tuple[Any, ...]:
    return tuple(getattr(run, name) for name in _TRACKED)


@event.listens_for(Session, "before_flush")
def _move_rollups(session: Session, _flush: UOWTransaction, _instances: object) -> None:
    """Move the rollups of the runs this flush writes, in its transaction (see the module)."""
    deltas: Deltas = {}
    for run in session.new:
        if isinstance(run, Run):
            add_share(deltas, share_of(*_after(run)), 1)
    for run in session.dirty:
        if isinstance(run, Run):
            before, after = share_of(*_before(run)), share_of(*_after(run))
            if before != after:
                add_share(deltas, before, -1)
                add_share(deltas, after, 1)
    for run in session.deleted:
        if isinstance(run, Run):
            add_share(deltas, share_of(*_before(run)), -1)
    if deltas:
        apply_deltas(session.connection(), deltas)


def and_judged(monitor: str) -> Any:
    """``monitor``'s judged runs."""
    return (Run.monitor == monitor) & Run.state.in_(sorted(_JUDGED))


_REDECIDE: Final = (
    update(Run)
    .where(Run.id == bindparam("k_id"))
    .values(breached=bindparam("k_breached"), breaches=bindparam("k_breaches"))
)
_CHUNK: Final = 1000


class Rollups(Room):
    """Recounts the rollups from the runs (they are moved by every flush: see the module)."""

    def recompute(self, monitor: str, thresholds: Mapping[str, float]) -> int:
        """Decide again what each judged run of ``monitor`` breached, under the monitor's
        ``thresholds`` as they are now (0-100; :func:`proctor.protocol.run_metrics`), from the
        stored scores and signals of its current evaluation; then recount the monitor's rollups.
        Returns the judged runs counted (one transaction: ``proctor monitors recompute``)."""

        def go() -> int:
            with self._writes.begin() as conn:
                judged = and_judged(monitor)
                scores: dict[int, list[tuple[str, float | None, float, str]]] = {}
                for e, dim, score, threshold, source in conn.execute(
                    select(Score.evaluation_id, Score.dimension, Score.score, Score.threshold, Score.source)
                    .join(Run, Run.evaluation_id == Score.evaluation_id)
                    .where(judged)
                ):
                    scores.setdefault(int(e), []).append((dim, score, threshold, source))
                changed = []
                for rid, current, was, stored, signals in conn.execute(
                    select(Run.id, Run.evaluation_id, Run.breached, Run.breaches, Evaluation.signals)
                    .join(Evaluation, Evaluation.id == Run.evaluation_id)
                    .where(judged)
                ):
                    found = breached_metrics(
                        run_metrics(
                            scores.get(int(current or 0), ()), json.loads(signals or "{}"), thresholds
                        )
                    )
                    now = encode_breaches(found) if found else None
                    if bool(found) != bool(was) or now != stored:
                        changed.append({"k_id": rid, "k_breached": bool(found), "k_breaches": now})
                for start in range(0, len(changed), _CHUNK):  # Core: the rollups are recounted below
                    conn.execute(_REDECIDE, changed[start : start + _CHUNK])
                return self.rebuild_in(conn, monitor)

        return self._guard(go)

    def rebuild(self, monitor: str | None = None) -> int:
        """Recount ``monitor``'s rollups (every monitor's when None) from its stored runs; returns
        the judged runs counted."""

        def go() -> int:
            with self._writes.begin() as conn:
                return self.rebuild_in(conn, monitor)

        return self._guard(go)

    @staticmethod
    def rebuild_in(conn: Connection, monitor: str | None = None) -> int:
        """:meth:`rebuild` in ``conn``'s transaction."""
        mine = Run.monitor == monitor if monitor is not None else true()
        conn.execute(delete(ROLLUPS).where(ROLLUPS.c.monitor == monitor if monitor is not None else true()))
        deltas: Deltas = {}
        judged = Run.state.in_(sorted(_JUDGED))
        for m, r, n in conn.execute(
            select(Run.monitor, Run.revision, func.count())
            .where(mine, judged)
            .group_by(Run.monitor, Run.revision)
        ):
            deltas.setdefault((m, r or "", TOTALS), [0, 0, 0])[0] += int(n)
        for m, r, state, b, stored in conn.execute(
            select(Run.monitor, Run.revision, Run.state, Run.breached, Run.breaches).where(
                mine, judged, Run.breached.is_(True)
            )
        ):
            share = share_of(m, r, state, b, stored)
            add_share(deltas, share, 1)
            deltas[(m, r or "", TOTALS)][0] -= 1  # counted above already
        apply_deltas(conn, deltas)
        return sum(d[0] for (_, _, k), d in deltas.items() if k == TOTALS)

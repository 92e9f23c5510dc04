"""The ingestion room: spans and native events upserted on their ids, each run's lifecycle moved.

Every ingestion is one transaction, so a request is stored whole or not at all; a caller
acknowledges telemetry only after :meth:`Ingestion.ingest` returned. On PostgreSQL, run rows
touched are locked in id order (``FOR UPDATE``); SQLite has one writer at a time (its lock), which
the collector's single ingestion thread respects.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from sqlalchemy import Table, select
from sqlalchemy.orm import Session

from proctor.protocol import (
    LifecyclePolicy,
    due_at,
    new_run,
    on_event,
)
from proctor.store._records import (
    IngestResult,
    Item,
    RunRef,
    lifecycle_of,
    policy_of,
    write_lifecycle,
)
from proctor.store._room import Room
from proctor.store._room import dumps as _dumps
from proctor.store._schema import Event, Run, Span

#: The row counts of ingestion's multi-row INSERT statements (a batch is split into these).
_CHUNKS: Final = (512, 256, 128, 64, 32, 16, 8, 4, 2, 1)


class Ingestion(Room):
    """Spans and events in, runs created and moved (see the module's docstring)."""

    def ingest(
        self, items: Sequence[Item], policies: Mapping[str, LifecyclePolicy], now: float
    ) -> IngestResult:
        """Store ``items`` (one transaction) and move their runs' lifecycles.

        Spans are upserted on ``(run, trace_id, span_id)`` and events on ``(run, id)``: a resend
        stores nothing and changes no run, and equal ids in another run are another item.
        ``policies`` gives each monitor's quiescence and sampling.
        """
        return self._guard(lambda: self._ingest(items, policies, now))

    def _ingest(
        self, items: Sequence[Item], policies: Mapping[str, LifecyclePolicy], now: float
    ) -> IngestResult:
        span_rows: dict[tuple[str, str, str], dict[str, Any]] = {}
        resources: dict[int, str] = {}  # the spans of one request share their resource: encode it once
        event_rows: dict[tuple[str, str], dict[str, Any]] = {}
        runs: dict[str, RunRef] = {}
        for item in items:
            rid = item.run.id
            runs.setdefault(rid, item.run)
            if item.span is not None:
                s = item.span
                span_rows.setdefault(
                    (rid, s.trace_id, s.span_id),  # ids are scoped to their run: see _schema
                    {
                        "trace_id": s.trace_id,
                        "span_id": s.span_id,
                        "run_id": rid,
                        "parent_span_id": s.parent_span_id,
                        "name": s.name,
                        "kind": s.kind,
                        "start_ns": s.start_ns,
                        "end_ns": s.end_ns,
                        "status_code": s.status_code,
                        "status_message": s.status_message,
                        "operation": s.operation,
                        "attributes": _dumps(s.attributes),
                        "resource": resources.get(id(s.resource))
                        or resources.setdefault(id(s.resource), _dumps(s.resource)),
                        "events": _dumps(list(s.events)) if s.events else "[]",
                        "received_at": now,
                        "_final": item.final,
                    },
                )
            if item.event is not None:
                e = item.event
                event_rows.setdefault(
                    (rid, e.id),
                    {
                        "id": e.id,
                        "run_id": rid,
                        "kind": e.kind,
                        "name": e.name,
                        "text": e.text,
                        "status": e.status,
                        "timestamp": e.timestamp,
                        "attributes": _dumps(e.attributes),
                        "received_at": now,
                        "_final": item.final,
                    },
                )
        finals: set[str] = set()
        fresh_spans: dict[str, int] = defaultdict(int)
        fresh_events: dict[str, int] = defaultdict(int)
        with Session(self._writes) as session, session.begin():
            if span_rows:
                ordered = [span_rows[k] for k in sorted(span_rows)]  # a fixed order: no deadlocks
                final_of = {(r["run_id"], r["trace_id"], r["span_id"]): r.pop("_final") for r in ordered}
                span_key = ("run_id", "trace_id", "span_id")
                for rid, trace_id, span_id in self._insert_new(session, Span, ordered, span_key, span_key):
                    fresh_spans[rid] += 1
                    if final_of[(rid, trace_id, span_id)]:
                        finals.add(rid)
            if event_rows:
                ordered = [event_rows[k] for k in sorted(event_rows)]
                final_of_event = {(r["run_id"], r["id"]): r.pop("_final") for r in ordered}
                event_key = ("run_id", "id")
                for rid, event_id in self._insert_new(session, Event, ordered, event_key, event_key):
                    fresh_events[rid] += 1
                    if final_of_event[(rid, event_id)]:
                        finals.add(rid)
            touched = sorted(set(fresh_spans) | set(fresh_events))
            new_runs = 0
            created: set[str] = set()
            if touched:
                existing = {
                    row.id: row
                    for row in session.scalars(
                        self._locked(select(Run).where(Run.id.in_(touched)).order_by(Run.id), skip=False)
                    )
                }
                missing = [rid for rid in touched if rid not in existing]
                if missing:
                    rows = []
                    for rid in missing:
                        ref = runs[rid]
                        policy = policies[ref.monitor]
                        life = new_run(rid, now, policy, final=rid in finals)
                        rows.append(
                            {
                                "id": rid,
                                "monitor": ref.monitor,
                                "key": ref.key,
                                "key_source": ref.key_source,
                                "agent": ref.agent,
                                "revision": ref.revision,
                                "state": life.state.value,
                                "sampled": life.sampled,
                                "attempts": 0,
                                "first_event_at": now,
                                "last_event_at": now,
                                "since": life.since,
                                "due_at": due_at(life, policy),
                                "stale": False,
                                "reevaluated": False,
                                "requested": False,
                                "finished": life.finished,
                                "quiescence_seconds": policy.quiescence_seconds,
                                "sampling": policy.sampling,
                                "span_count": fresh_spans.get(rid, 0),
                                "event_count": fresh_events.get(rid, 0),
                                "created_at": now,
                                "updated_at": now,
                            }
                        )
                    inserted = {r[0] for r in self._insert_new(session, Run, rows, ("id",), ("id",))}
                    new_runs = len(inserted)
                    created |= inserted
                    lost = [rid for rid in missing if rid not in inserted]  # another replica made it
                    if lost:
                        for row in session.scalars(
                            self._locked(select(Run).where(Run.id.in_(lost)).order_by(Run.id), skip=False)
                        ):
                            existing[row.id] = row
                for rid, row in existing.items():
                    ref = runs[rid]
                    policy = policies.get(ref.monitor, policy_of(row))
                    row.quiescence_seconds, row.sampling = policy.quiescence_seconds, policy.sampling
                    life = on_event(lifecycle_of(row), now, policy, final=rid in finals)
                    write_lifecycle(row, life, policy, now)
                    row.span_count += fresh_spans.get(rid, 0)
                    row.event_count += fresh_events.get(rid, 0)
                    if ref.revision and row.revision != ref.revision:
                        row.revision = ref.revision
        stored_spans = sum(fresh_spans.values())
        stored_events = sum(fresh_events.values())
        by_monitor: dict[str, tuple[int, int, int]] = {}
        for rid, ref in runs.items():
            n_spans, n_events, n_runs = by_monitor.get(ref.monitor, (0, 0, 0))
            by_monitor[ref.monitor] = (
                n_spans + fresh_spans.get(rid, 0),
                n_events + fresh_events.get(rid, 0),
                n_runs + (rid in created),
            )
        return IngestResult(
            spans=stored_spans,
            events=stored_events,
            duplicates=len(span_rows) + len(event_rows) - stored_spans - stored_events,
            new_runs=new_runs,
            by_monitor=by_monitor,
        )

    def _insert_new(
        self,
        session: Session,
        model: type[Span] | type[Event] | type[Run],
        rows: Sequence[Mapping[str, Any]],
        keys: tuple[str, ...],
        returning: tuple[str, ...],
    ) -> list[tuple[Any, ...]]:
        """``INSERT ... ON CONFLICT (keys) DO NOTHING RETURNING ...`` of ``rows``, as multi-row
        statements sent straight to the driver: the rows actually inserted (a resend returns none).

        The hot path of ingestion: SQLAlchemy's per-row parameter handling cost more than the
        database's own work here (measured: ~50 us a row), so the statement is written once per
        chunk size and its parameters are flattened by hand. Values are bound, never formatted.
        """
        table = cast(Table, model.__table__)
        columns = [c.name for c in table.columns]
        mark = "%s" if self.dialect == "postgresql" else "?"
        width = len(columns)
        largest = max(1, min(_CHUNKS[0], 30000 // width))  # under SQLite's 32766 bound parameters
        out: list[tuple[Any, ...]] = []
        conn = session.connection()
        head = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES "
        tail = f" ON CONFLICT ({', '.join(keys)}) DO NOTHING RETURNING {', '.join(returning)}"
        one = "(" + ", ".join([mark] * width) + ")"
        start = 0
        while start < len(rows):
            # statements of a few fixed sizes only: the drivers' statement caches stay small
            size = next(c for c in _CHUNKS if c <= min(largest, len(rows) - start))
            part = rows[start : start + size]
            start += size
            params = tuple(row.get(c) for row in part for c in columns)
            sql = head + ", ".join([one] * len(part)) + tail
            out += [tuple(r) for r in conn.exec_driver_sql(sql, params).fetchall()]
        return out

"""The repositories: ingesting spans and events, the lifecycle's writes, claims, scores, queries.

One code path for SQLite and PostgreSQL. Every write is one transaction, so a request is stored
whole or not at all; a caller acknowledges telemetry only after :meth:`Store.ingest` returned.
Lifecycle transitions are the pure functions of :mod:`proctor.protocol`; this module loads the
rows, applies them, and writes the result.

Concurrency: on PostgreSQL, run rows touched by ingestion are locked in id order (``FOR UPDATE``),
and workers claim and advance runs with ``FOR UPDATE SKIP LOCKED``, so several replicas share the
work and no run is claimed twice; a completion is fenced on the claim's lease owner and evaluation
id, so a worker whose lease expired cannot overwrite the run's newer state. SQLite has one writer
at a time (its lock), which the collector's single ingestion thread respects.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from sqlalchemy import Engine, Select, Table, and_, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from proctor.protocol import (
    EVALUATED_STATES,
    AttemptOutcome,
    LifecyclePolicy,
    RunLifecycle,
    RunState,
    advance,
    claim,
    due_at,
    evaluate_now,
    ewma,
    finish,
    new_run,
    on_event,
    renew,
)
from proctor.store import _engine
from proctor.store._detector_state import DetectorState
from proctor.store._room import RunNotFound, StoreUnavailable
from proctor.store._schema import Evaluation, Event, Run, Score, Span

#: States that time alone moves on (:func:`proctor.protocol.advance`).
TIMED_STATES: Final = (
    RunState.RECEIVING.value,
    RunState.QUIESCING.value,
    RunState.EVALUATING.value,
    RunState.EVALUATION_FAILED.value,
)
#: The row counts of ingestion's multi-row INSERT statements (a batch is split into these).
_CHUNKS: Final = (512, 256, 128, 64, 32, 16, 8, 4, 2, 1)
#: Scores of a dimension the EWMAs are recomputed from (older ones weigh less than 1e-17 at span 10).
EWMA_WINDOW: Final = 200


def run_id(monitor: str, key: str) -> str:
    """The stable id of the run ``key`` under ``monitor`` (the same on every replica)."""
    return "r" + hashlib.sha256(f"{monitor}\0{key}".encode()).hexdigest()[:24]


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


# --- what is written --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunRef:
    """Which run an item belongs to, and who sent it."""

    monitor: str
    key: str
    key_source: str
    agent: str
    revision: str | None = None

    @property
    def id(self) -> str:
        return run_id(self.monitor, self.key)


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One span, decoded (ids in lower-case hex)."""

    trace_id: str
    span_id: str
    name: str
    start_ns: int
    end_ns: int
    parent_span_id: str | None = None
    kind: int = 0
    status_code: int = 0
    status_message: str | None = None
    operation: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    resource: Mapping[str, Any] = field(default_factory=dict)
    events: Sequence[Mapping[str, Any]] = ()


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One native event."""

    id: str
    kind: str
    text: str
    timestamp: float
    name: str | None = None
    status: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Item:
    """A span or an event on its way in, with its run, and whether it says the run is done."""

    run: RunRef
    span: SpanRecord | None = None
    event: EventRecord | None = None
    final: bool = False


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What one ingestion stored."""

    spans: int = 0
    events: int = 0
    duplicates: int = 0
    new_runs: int = 0
    #: Per monitor: (new spans, new events, new runs).
    by_monitor: Mapping[str, tuple[int, int, int]] = field(default_factory=dict)
    #: Items the database refused one by one (their place in the request, and why): the
    #: writer isolates them so the rest of their request is stored (see the collector's ingest).
    refused: tuple[tuple[int, str], ...] = ()

    def __add__(self, other: IngestResult) -> IngestResult:
        by_monitor = dict(self.by_monitor)
        for monitor, counts in other.by_monitor.items():
            mine = by_monitor.get(monitor, (0, 0, 0))
            by_monitor[monitor] = (mine[0] + counts[0], mine[1] + counts[1], mine[2] + counts[2])
        return IngestResult(
            spans=self.spans + other.spans,
            events=self.events + other.events,
            duplicates=self.duplicates + other.duplicates,
            new_runs=self.new_runs + other.new_runs,
            by_monitor=by_monitor,
            refused=self.refused + other.refused,
        )


@dataclass(frozen=True, slots=True)
class Claim:
    """A run a worker took: evaluate it, then :meth:`Store.complete` with this."""

    run_id: str
    monitor: str
    agent: str
    revision: str | None
    evaluation_id: int
    attempt: int
    worker: str


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """One dimension's result of an evaluation."""

    dimension: str
    threshold: float
    source: str
    score: float | None = None
    skipped_reason: str | None = None
    agreement: float | None = None
    samples: tuple[float, ...] = ()
    rationale: str = ""


# --- what is read -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunView:
    """A run as the API shows it: its lifecycle and the current evaluation's scores."""

    id: str
    monitor: str
    key: str
    key_source: str
    agent: str
    revision: str | None
    state: str
    attempts: int
    sampled: bool
    stale: bool
    breached: bool | None
    first_event_at: float
    last_event_at: float
    next_attempt_at: float | None
    last_error: str | None
    span_count: int
    event_count: int
    scores: tuple[ScoreView, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoreView:
    dimension: str
    score: float | None
    skipped_reason: str | None
    threshold: float
    source: str
    agreement: float | None
    samples: tuple[float, ...]
    rationale: str
    provenance: str
    evaluation_id: int


@dataclass(frozen=True, slots=True)
class EvaluationView:
    id: int
    attempt: int
    worker: str
    started_at: float
    finished_at: float | None
    outcome: str | None
    error: str | None
    provenance: Mapping[str, Any]
    signals: Mapping[str, Any]
    judge_calls: int
    judgments: int


@dataclass(frozen=True, slots=True)
class Trajectory:
    """Everything stored for a run: its spans (by start time) and native events (by timestamp)."""

    spans: tuple[SpanRecord, ...]
    events: tuple[EventRecord, ...]


@dataclass(frozen=True, slots=True)
class DimensionSeries:
    """A dimension's live series for a monitor: the latest score and both EWMAs (0-100)."""

    name: str
    latest: float | None
    fast_ewma: float | None
    slow_ewma: float | None
    samples: int
    skipped: int
    threshold: float | None


@dataclass(frozen=True, slots=True)
class MonitorSummary:
    """What a monitor's status is written from (small at any traffic)."""

    counts: Mapping[str, int]
    breached: int
    dimensions: tuple[DimensionSeries, ...]
    judge_calls: int
    judgments: int
    revisions: tuple[str, ...]
    last_event_at: float | None
    last_evaluation_at: float | None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def consensus_multiplier(self) -> float | None:
        return self.judge_calls / self.judgments if self.judgments else None


# --- conversions ------------------------------------------------------------------------------------


def _lifecycle(row: Run) -> RunLifecycle:
    return RunLifecycle(
        run_id=row.id,
        state=RunState(row.state),
        first_event_at=row.first_event_at,
        last_event_at=row.last_event_at,
        since=row.since,
        sampled=row.sampled,
        attempts=row.attempts,
        next_attempt_at=row.next_attempt_at,
        lease_expires_at=row.lease_expires_at,
        stale=row.stale,
        reevaluated=row.reevaluated,
        requested=row.requested,
        finished=row.finished,
        last_error=row.last_error,
    )


def _policy(row: Run) -> LifecyclePolicy:
    return LifecyclePolicy(quiescence_seconds=row.quiescence_seconds, sampling=row.sampling)


def _write_lifecycle(row: Run, life: RunLifecycle, policy: LifecyclePolicy, now: float) -> None:
    row.state = life.state.value
    row.sampled = life.sampled
    row.attempts = life.attempts
    row.first_event_at = life.first_event_at
    row.last_event_at = life.last_event_at
    row.since = life.since
    row.next_attempt_at = life.next_attempt_at
    row.lease_expires_at = life.lease_expires_at
    row.stale = life.stale
    row.reevaluated = life.reevaluated
    row.requested = life.requested
    row.finished = life.finished
    row.last_error = life.last_error
    row.due_at = due_at(life, policy)
    if life.state is not RunState.EVALUATING:
        row.lease_owner = None
    row.updated_at = now


def _span_record(row: Span) -> SpanRecord:
    return SpanRecord(
        trace_id=row.trace_id,
        span_id=row.span_id,
        parent_span_id=row.parent_span_id,
        name=row.name,
        kind=row.kind,
        start_ns=row.start_ns,
        end_ns=row.end_ns,
        status_code=row.status_code,
        status_message=row.status_message,
        operation=row.operation,
        attributes=json.loads(row.attributes),
        resource=json.loads(row.resource),
        events=tuple(json.loads(row.events)),
    )


def _event_record(row: Event) -> EventRecord:
    return EventRecord(
        id=row.id,
        kind=row.kind,
        name=row.name,
        text=row.text,
        status=row.status,
        timestamp=row.timestamp,
        attributes=json.loads(row.attributes),
    )


def _score_view(row: Score) -> ScoreView:
    return ScoreView(
        dimension=row.dimension,
        score=row.score,
        skipped_reason=row.skipped_reason,
        threshold=row.threshold,
        source=row.source,
        agreement=row.agreement,
        samples=tuple(json.loads(row.samples)),
        rationale=row.rationale,
        provenance=row.provenance,
        evaluation_id=row.evaluation_id,
    )


def _run_view(row: Run, scores: Sequence[ScoreView] = ()) -> RunView:
    return RunView(
        id=row.id,
        monitor=row.monitor,
        key=row.key,
        key_source=row.key_source,
        agent=row.agent,
        revision=row.revision,
        state=row.state,
        attempts=row.attempts,
        sampled=row.sampled,
        stale=row.stale,
        breached=row.breached,
        first_event_at=row.first_event_at,
        last_event_at=row.last_event_at,
        next_attempt_at=row.next_attempt_at,
        last_error=row.last_error,
        span_count=row.span_count,
        event_count=row.event_count,
        scores=tuple(scores),
    )


class Store:
    """Proctor's database (arms B and C). Methods are synchronous and thread-safe (a session each):
    call them from worker threads of an event loop (``asyncio.to_thread``).

    Every method raises :class:`StoreUnavailable` when the database cannot be reached; nothing of
    that call was stored.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        #: Write transactions go through this (on SQLite they begin IMMEDIATE: see _engine).
        self._writes = engine.execution_options(**{_engine.WRITE_OPTION: True})
        #: The detector-state room (:mod:`proctor.store._detector_state`).
        self.detectors = DetectorState(engine)

    @classmethod
    def open(cls, url: str, *, migrate: bool = True, pool_size: int = 8) -> Store:
        """Open the database at ``url`` and bring its schema to this version (``alembic upgrade head``)."""
        engine = _engine.create(url, pool_size=pool_size)
        store = cls(engine)
        if migrate:
            store._guard(lambda: _engine.migrate(engine))
        return store

    def close(self) -> None:
        self.engine.dispose()

    def _guard(self, fn: Any) -> Any:
        try:
            return fn()
        except (OperationalError, DBAPIError) as e:
            if isinstance(e, OperationalError) or e.connection_invalidated:
                raise StoreUnavailable(f"database unavailable: {type(e.orig).__name__}: {e.orig}") from None
            raise

    def _locked(self, stmt: Select[Any], *, skip: bool) -> Select[Any]:
        if self.dialect != "postgresql":
            return stmt
        return stmt.with_for_update(skip_locked=skip)

    def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless the database answers."""

        def go() -> None:
            with self.engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")

        self._guard(go)

    # --- ingestion -----------------------------------------------------------------------------

    def ingest(
        self, items: Sequence[Item], policies: Mapping[str, LifecyclePolicy], now: float
    ) -> IngestResult:
        """Store ``items`` (one transaction) and move their runs' lifecycles.

        Spans are upserted on ``(run, trace_id, span_id)`` and events on ``(run, id)``: a resend
        stores nothing and changes no run, and equal ids in another run are another item.
        ``policies`` gives each monitor's quiescence and sampling.
        """
        return self._guard(lambda: self._ingest(items, policies, now))  # type: ignore[no-any-return]

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
                    policy = policies.get(ref.monitor, _policy(row))
                    row.quiescence_seconds, row.sampling = policy.quiescence_seconds, policy.sampling
                    life = on_event(_lifecycle(row), now, policy, final=rid in finals)
                    _write_lifecycle(row, life, policy, now)
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

    # --- the lifecycle's timed transitions and claims ----------------------------------------------

    def advance_due(self, now: float, *, limit: int = 500) -> int:
        """Apply every transition time has made by ``now`` (quiescence ends, retries come due,
        leases expire); returns how many runs moved."""
        return self._guard(lambda: self._advance_due(now, limit))  # type: ignore[no-any-return]

    def _advance_due(self, now: float, limit: int) -> int:
        moved = 0
        with Session(self._writes) as session, session.begin():
            stmt = (
                select(Run)
                .where(Run.state.in_(TIMED_STATES), Run.due_at <= now)
                .order_by(Run.due_at)
                .limit(limit)
            )
            for row in session.scalars(self._locked(stmt, skip=True)):
                policy = _policy(row)
                before = _lifecycle(row)
                after = advance(before, now, policy)
                if after != before:
                    if before.state is RunState.EVALUATING:
                        self._close_evaluation(session, row, AttemptOutcome.FAILED, after.last_error, now)
                    _write_lifecycle(row, after, policy, now)
                    moved += 1
                else:  # nothing to do yet (its due time was computed under older settings)
                    row.due_at = due_at(after, policy)
        return moved

    def next_due(self) -> float | None:
        """The earliest time a timed transition or a claim is due (None: nothing is waiting)."""

        def go() -> float | None:
            with Session(self.engine) as session:
                value = session.scalar(
                    select(func.min(Run.due_at)).where(
                        Run.state.in_((*TIMED_STATES, RunState.READY.value)), Run.due_at.is_not(None)
                    )
                )
                return float(value) if value is not None else None

        return self._guard(go)  # type: ignore[no-any-return]

    def claim(self, worker: str, now: float, *, limit: int = 8, lease_seconds: float = 300.0) -> list[Claim]:
        """Take up to ``limit`` runs that are ready, oldest first, for ``worker``: each is Evaluating
        with a lease and a new evaluation row. On PostgreSQL, runs another replica holds are skipped."""
        return self._guard(lambda: self._claim(worker, now, limit, lease_seconds))  # type: ignore[no-any-return]

    def _claim(self, worker: str, now: float, limit: int, lease_seconds: float) -> list[Claim]:
        out: list[Claim] = []
        with Session(self._writes) as session, session.begin():
            stmt = (
                select(Run)
                .where(Run.state == RunState.READY.value, or_(Run.due_at.is_(None), Run.due_at <= now))
                .order_by(Run.due_at)
                .limit(limit)
            )
            for row in session.scalars(self._locked(stmt, skip=True)):
                policy = _policy(row)
                life = claim(_lifecycle(row), now, lease_seconds)
                _write_lifecycle(row, life, policy, now)
                row.lease_owner = worker
                evaluation = Evaluation(
                    run_id=row.id,
                    monitor=row.monitor,
                    attempt=life.attempts + 1,
                    worker=worker,
                    started_at=now,
                    provenance="{}",
                    signals="{}",
                    judge_calls=0,
                    judgments=0,
                )
                session.add(evaluation)
                session.flush()
                row.evaluation_id = evaluation.id
                out.append(
                    Claim(
                        row.id, row.monitor, row.agent, row.revision, evaluation.id, life.attempts + 1, worker
                    )
                )
        return out

    def renew(self, claims: Iterable[Claim], now: float, *, lease_seconds: float = 300.0) -> list[str]:
        """Extend the leases of ``claims`` still held; returns the run ids whose lease was lost."""

        def go() -> list[str]:
            lost: list[str] = []
            with Session(self._writes) as session, session.begin():
                for c in claims:
                    row = session.get(Run, c.run_id, with_for_update=self.dialect == "postgresql")
                    if row is None or not self._holds(row, c):
                        lost.append(c.run_id)
                        continue
                    life = renew(_lifecycle(row), now, lease_seconds)
                    _write_lifecycle(row, life, _policy(row), now)
            return lost

        return self._guard(go)  # type: ignore[no-any-return]

    @staticmethod
    def _holds(row: Run, c: Claim) -> bool:
        return (
            row.state == RunState.EVALUATING.value
            and row.lease_owner == c.worker
            and row.evaluation_id == c.evaluation_id
        )

    def _close_evaluation(
        self, session: Session, row: Run, outcome: AttemptOutcome, error: str | None, now: float
    ) -> None:
        if row.evaluation_id is None:
            return
        session.execute(
            update(Evaluation)
            .where(Evaluation.id == row.evaluation_id, Evaluation.finished_at.is_(None))
            .values(finished_at=now, outcome=outcome.value, error=error)
        )

    def trajectory(self, run: str) -> Trajectory:
        """Every span and event stored for ``run``, in time order."""

        def go() -> Trajectory:
            with Session(self.engine) as session:
                spans = session.scalars(
                    select(Span).where(Span.run_id == run).order_by(Span.start_ns, Span.span_id)
                )
                events = session.scalars(
                    select(Event).where(Event.run_id == run).order_by(Event.timestamp, Event.id)
                )
                return Trajectory(tuple(map(_span_record, spans)), tuple(map(_event_record, events)))

        return self._guard(go)  # type: ignore[no-any-return]

    def complete(
        self,
        c: Claim,
        outcome: AttemptOutcome,
        now: float,
        *,
        scores: Sequence[ScoreRecord] = (),
        provenance: Mapping[str, Any] | None = None,
        signals: Mapping[str, Any] | None = None,
        reason: str | None = None,
        retry_after: float = 0.0,
        judge_calls: int = 0,
        judgments: int = 0,
        breached: bool | None = None,
        permanent: bool = False,
    ) -> bool:
        """Record the attempt's result and move the run on. False (nothing written) when the claim
        was lost: the lease expired and the run moved on without this worker."""

        def go() -> bool:
            with Session(self._writes) as session, session.begin():
                row = session.get(Run, c.run_id, with_for_update=self.dialect == "postgresql")
                if row is None or not self._holds(row, c):
                    return False
                policy = _policy(row)
                life = finish(
                    _lifecycle(row),
                    outcome,
                    now,
                    policy,
                    reason=reason,
                    retry_after=retry_after,
                    permanent=permanent,
                )
                prov = dict(provenance or {})
                digest = str(prov.get("digest", ""))
                session.execute(
                    update(Evaluation)
                    .where(Evaluation.id == c.evaluation_id)
                    .values(
                        finished_at=now,
                        outcome=outcome.value,
                        provenance=_dumps(prov),
                        signals=_dumps(dict(signals or {})),
                        error=reason,
                        judge_calls=judge_calls,
                        judgments=judgments,
                    )
                )
                if scores:
                    session.execute(
                        self._insert(Score),
                        [
                            {
                                "evaluation_id": c.evaluation_id,
                                "dimension": s.dimension,
                                "run_id": row.id,
                                "monitor": row.monitor,
                                "score": s.score,
                                "skipped_reason": s.skipped_reason,
                                "threshold": s.threshold,
                                "agreement": s.agreement,
                                "samples": _dumps(list(s.samples)),
                                "rationale": s.rationale,
                                "source": s.source,
                                "provenance": digest,
                                "created_at": now,
                            }
                            for s in scores
                        ],
                    )
                if outcome in (AttemptOutcome.EVALUATED, AttemptOutcome.PARTIAL):
                    row.breached = breached
                elif outcome is AttemptOutcome.INTERRUPTED:
                    row.evaluation_id = self._previous_evaluation(session, row.id, c.evaluation_id)
                _write_lifecycle(row, life, policy, now)
                return True

        return self._guard(go)  # type: ignore[no-any-return]

    def _previous_evaluation(self, session: Session, run: str, this: int) -> int | None:
        """The evaluation the run showed before an interrupted attempt (its scores stay current)."""
        value = session.scalar(
            select(func.max(Evaluation.id)).where(
                Evaluation.run_id == run,
                Evaluation.id != this,
                Evaluation.outcome.in_((AttemptOutcome.EVALUATED.value, AttemptOutcome.PARTIAL.value)),
            )
        )
        return int(value) if value is not None else None

    def evaluate_now(self, run: str, now: float) -> RunView:
        """Bring ``run`` forward: ready for evaluation at once. Raises :class:`RunNotFound`."""

        def go() -> RunView:
            with Session(self._writes) as session, session.begin():
                row = session.get(Run, run, with_for_update=self.dialect == "postgresql")
                if row is None:
                    raise RunNotFound(run)
                policy = _policy(row)
                _write_lifecycle(row, evaluate_now(_lifecycle(row), now), policy, now)
                return _run_view(row, self._scores(session, [row]).get(row.id, ()))

        return self._guard(go)  # type: ignore[no-any-return]

    # --- queries ------------------------------------------------------------------------------------

    def _scores(self, session: Session, rows: Sequence[Run]) -> dict[str, list[ScoreView]]:
        ids = [r.evaluation_id for r in rows if r.evaluation_id is not None]
        out: dict[str, list[ScoreView]] = defaultdict(list)
        if ids:
            for s in session.scalars(
                select(Score)
                .where(Score.evaluation_id.in_(ids))
                .order_by(Score.evaluation_id, Score.dimension)
            ):
                out[s.run_id].append(_score_view(s))
        return out

    def list_runs(
        self,
        *,
        monitors: Sequence[str] | None = None,
        state: str | None = None,
        limit: int = 100,
        before: str | None = None,
    ) -> list[RunView]:
        """Runs, newest first (by first event, then id), with their current scores. ``monitors``
        limits them (None: all); ``before`` is the id of the last run of the previous page."""

        def go() -> list[RunView]:
            with Session(self.engine) as session:
                stmt = select(Run).order_by(Run.first_event_at.desc(), Run.id.desc()).limit(limit)
                if monitors is not None:
                    stmt = stmt.where(Run.monitor.in_(list(monitors)))
                if state is not None:
                    stmt = stmt.where(Run.state == state)
                if before is not None:
                    anchor = session.get(Run, before)
                    if anchor is not None:
                        stmt = stmt.where(
                            or_(
                                Run.first_event_at < anchor.first_event_at,
                                and_(Run.first_event_at == anchor.first_event_at, Run.id < anchor.id),
                            )
                        )
                rows = list(session.scalars(stmt))
                scores = self._scores(session, rows)
                return [_run_view(r, scores.get(r.id, ())) for r in rows]

        return self._guard(go)  # type: ignore[no-any-return]

    def get_run(self, run: str) -> RunView:
        """One run with its current scores. Raises :class:`RunNotFound`."""

        def go() -> RunView:
            with Session(self.engine) as session:
                row = session.get(Run, run)
                if row is None:
                    raise RunNotFound(run)
                return _run_view(row, self._scores(session, [row]).get(row.id, ()))

        return self._guard(go)  # type: ignore[no-any-return]

    def evaluations(self, run: str) -> list[EvaluationView]:
        """Every evaluation attempt of ``run``, oldest first."""

        def go() -> list[EvaluationView]:
            with Session(self.engine) as session:
                return [
                    EvaluationView(
                        id=e.id,
                        attempt=e.attempt,
                        worker=e.worker,
                        started_at=e.started_at,
                        finished_at=e.finished_at,
                        outcome=e.outcome,
                        error=e.error,
                        provenance=json.loads(e.provenance),
                        signals=json.loads(e.signals),
                        judge_calls=e.judge_calls,
                        judgments=e.judgments,
                    )
                    for e in session.scalars(
                        select(Evaluation).where(Evaluation.run_id == run).order_by(Evaluation.id)
                    )
                ]

        return self._guard(go)  # type: ignore[no-any-return]

    def summary(
        self,
        monitor: str,
        *,
        fast_span: int = 3,
        slow_span: int = 10,
        thresholds: Mapping[str, float] | None = None,
    ) -> MonitorSummary:
        """A monitor's summary for its status: runs by state, per-dimension latest score and both
        EWMAs (recomputed from the last :data:`EWMA_WINDOW` scores, oldest first), judge cost."""

        def go() -> MonitorSummary:
            with Session(self.engine) as session:
                counts = {
                    state: int(n)
                    for state, n in session.execute(
                        select(Run.state, func.count()).where(Run.monitor == monitor).group_by(Run.state)
                    )
                }
                breached = int(
                    session.scalar(
                        select(func.count()).where(
                            Run.monitor == monitor,
                            Run.breached.is_(True),
                            Run.state.in_([s.value for s in EVALUATED_STATES]),
                        )
                    )
                    or 0
                )
                dims: list[DimensionSeries] = []
                names = sorted(
                    session.scalars(select(Score.dimension).where(Score.monitor == monitor).distinct())
                )
                for name in names:
                    recent = list(
                        session.execute(
                            select(Score.score, Score.threshold)
                            .where(Score.monitor == monitor, Score.dimension == name)
                            .order_by(Score.created_at.desc(), Score.evaluation_id.desc())
                            .limit(EWMA_WINDOW)
                        )
                    )
                    measured = [float(s) for s, _ in reversed(recent) if s is not None]
                    fast = slow = None
                    for value in measured:
                        fast, slow = ewma(fast, value, fast_span), ewma(slow, value, slow_span)
                    total = session.scalar(
                        select(func.count()).where(
                            Score.monitor == monitor, Score.dimension == name, Score.score.is_not(None)
                        )
                    )
                    skipped = session.scalar(
                        select(func.count()).where(
                            Score.monitor == monitor, Score.dimension == name, Score.score.is_(None)
                        )
                    )
                    threshold = (thresholds or {}).get(name, recent[0][1] if recent else None)
                    dims.append(
                        DimensionSeries(
                            name=name,
                            latest=measured[-1] if measured else None,
                            fast_ewma=fast,
                            slow_ewma=slow,
                            samples=int(total or 0),
                            skipped=int(skipped or 0),
                            threshold=threshold,
                        )
                    )
                calls, judged = session.execute(
                    select(
                        func.coalesce(func.sum(Evaluation.judge_calls), 0),
                        func.coalesce(func.sum(Evaluation.judgments), 0),
                    ).where(Evaluation.monitor == monitor)
                ).one()
                revisions = tuple(
                    str(r)
                    for r, _ in session.execute(
                        select(Run.revision, func.max(Run.last_event_at).label("t"))
                        .where(Run.monitor == monitor, Run.revision.is_not(None))
                        .group_by(Run.revision)
                        .order_by(func.max(Run.last_event_at).desc())
                        .limit(16)
                    )
                )
                last_event = session.scalar(select(func.max(Run.last_event_at)).where(Run.monitor == monitor))
                last_eval = session.scalar(
                    select(func.max(Evaluation.finished_at)).where(Evaluation.monitor == monitor)
                )
                return MonitorSummary(
                    counts=counts,
                    breached=breached,
                    dimensions=tuple(dims),
                    judge_calls=int(calls),
                    judgments=int(judged),
                    revisions=revisions,
                    last_event_at=float(last_event) if last_event is not None else None,
                    last_evaluation_at=float(last_eval) if last_eval is not None else None,
                )

        return self._guard(go)  # type: ignore[no-any-return]

    def count(self, table: str) -> int:
        """Rows in ``table`` (spans, events, runs, evaluations, scores): for benchmarks and checks."""
        model = {"spans": Span, "events": Event, "runs": Run, "evaluations": Evaluation, "scores": Score}[
            table
        ]

        def go() -> int:
            with Session(self.engine) as session:
                return int(session.scalar(select(func.count()).select_from(model)) or 0)

        return self._guard(go)  # type: ignore[no-any-return]

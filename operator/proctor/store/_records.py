"""What the store's rooms write and read: the records going in, the views coming out, and the
conversions between them and the rows (shared by every room, so a run looks the same wherever it
is read)."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from proctor.protocol import (
    LifecyclePolicy,
    RunLifecycle,
    RunState,
    due_at,
)
from proctor.store._schema import Event, Run, Score, Span

#: Scores of a dimension the EWMAs are recomputed from (older ones weigh less than 1e-17 at span 10).
EWMA_WINDOW: Final = 200


def run_id(monitor: str, key: str) -> str:
    """The stable id of the run ``key`` under ``monitor`` (the same on every replica)."""
    return "r" + hashlib.sha256(f"{monitor}\0{key}".encode()).hexdigest()[:24]


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


def lifecycle_of(row: Run) -> RunLifecycle:
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


def policy_of(row: Run) -> LifecyclePolicy:
    return LifecyclePolicy(quiescence_seconds=row.quiescence_seconds, sampling=row.sampling)


def write_lifecycle(row: Run, life: RunLifecycle, policy: LifecyclePolicy, now: float) -> None:
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


def span_record(row: Span) -> SpanRecord:
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


def event_record(row: Event) -> EventRecord:
    return EventRecord(
        id=row.id,
        kind=row.kind,
        name=row.name,
        text=row.text,
        status=row.status,
        timestamp=row.timestamp,
        attributes=json.loads(row.attributes),
    )


def score_view(row: Score) -> ScoreView:
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


def run_view(row: Run, scores: Sequence[ScoreView] = ()) -> RunView:
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


def current_scores(session: Session, rows: Sequence[Run]) -> dict[str, list[ScoreView]]:
    """The scores of each run's current evaluation, by run id."""
    ids = [r.evaluation_id for r in rows if r.evaluation_id is not None]
    out: dict[str, list[ScoreView]] = defaultdict(list)
    if ids:
        for s in session.scalars(
            select(Score).where(Score.evaluation_id.in_(ids)).order_by(Score.evaluation_id, Score.dimension)
        ):
            out[s.run_id].append(score_view(s))
    return out

"""proctor.store: arms B and C in a real database (SQLite embedded, PostgreSQL for scale).

SQLAlchemy 2 tables (:mod:`proctor.store._schema`), Alembic migrations shipped in the package and
run when a store opens, and repositories ("rooms") whose methods are transactions, one per concern:
:class:`Ingestion`, :class:`WorkQueue`, :class:`Runs` (runs and scores), :class:`DetectorState`.
:class:`Store` opens the database and carries them all (``store.queue``, ``store.detectors``...),
with their methods under its own name too::

    store = Store.open("sqlite:///runs.db")          # or postgresql://user@host/db (psycopg 3)
    store.ingest(items, policies, now)              # spans/events upserted on their ids
    store.advance_due(now); claims = store.claim("worker-1", now)
    store.complete(claims[0], AttemptOutcome.EVALUATED, now, scores=[...], provenance={...})

A new room is a module of its own here: its tables on ``_schema.Base``, its migration, and a class
deriving from :class:`Room` built from ``store.engine`` (``Incidents(store.engine)``).

Errors::

    StoreError
    ├── StoreUnavailable   the database cannot be reached: nothing of the call was stored
    └── RunNotFound        no run has that id (also a KeyError)

This package sits below the judge and beside ``proctor.k8s``: it imports the protocol, never the
API server, the judge or the collector.
"""

from proctor.protocol import TRAJECTORY_METRICS, InvalidFeedback, trajectory_scores
from proctor.store._canary import BreachedRun, BreachedScore, LiveCanary, RevisionCounts, revision_filter
from proctor.store._checkpoint import WAL_LIMIT_BYTES, Checkpoint, Checkpointer
from proctor.store._detector_state import (
    DEFAULT_THRESHOLD,
    DetectorState,
    SeriesView,
    StepRequest,
)
from proctor.store._engine import (
    SQLITE_SYNCHRONOUS,
    UnsupportedDatabase,
    head,
    migrate,
    normalise_url,
    synchronous_level,
)
from proctor.store._feedback import (
    CandidateCase,
    FeedbackView,
    NewFeedback,
    Observed,
    Reviews,
)
from proctor.store._feedback import check as check_feedback
from proctor.store._incidents import (
    NEEDS_HUMAN_ALERT,
    AlertChange,
    AlertView,
    DeliveryClaim,
    DeliveryOutcome,
    IncidentNotFound,
    Incidents,
    IncidentsSummary,
    IncidentView,
    NewIncident,
    NewNotice,
    NoticeView,
    Plan,
    Snapshot,
    StepItem,
    StepResult,
    breaker_key,
    series_key,
)
from proctor.store._ingestion import Ingestion
from proctor.store._outcomes import (
    OUTCOME_ATTRIBUTE,
    OUTCOME_MINUTES_ATTRIBUTE,
    TELEMETRY_SOURCE,
    Outcomes,
    OutcomeView,
)
from proctor.store._patterns import Failure, PatternNotFound, Patterns, PatternView, Pending
from proctor.store._queue import WorkQueue
from proctor.store._records import (
    EWMA_WINDOW,
    Claim,
    DimensionSeries,
    EvaluationView,
    EventRecord,
    IngestResult,
    Item,
    MonitorSummary,
    RunRef,
    RunView,
    ScoreRecord,
    ScoreView,
    SpanRecord,
    Trajectory,
    run_id,
)
from proctor.store._rollup import RevisionRollup, Rollups
from proctor.store._room import Room, RunNotFound, StoreError, StoreUnavailable
from proctor.store._runs import Runs
from proctor.store._store import Store

__all__ = [
    "DEFAULT_THRESHOLD",
    "EWMA_WINDOW",
    "NEEDS_HUMAN_ALERT",
    "OUTCOME_ATTRIBUTE",
    "OUTCOME_MINUTES_ATTRIBUTE",
    "SQLITE_SYNCHRONOUS",
    "TELEMETRY_SOURCE",
    "TRAJECTORY_METRICS",
    "WAL_LIMIT_BYTES",
    "AlertChange",
    "AlertView",
    "BreachedRun",
    "BreachedScore",
    "CandidateCase",
    "Checkpoint",
    "Checkpointer",
    "Claim",
    "DeliveryClaim",
    "DeliveryOutcome",
    "DetectorState",
    "DimensionSeries",
    "EvaluationView",
    "EventRecord",
    "Failure",
    "FeedbackView",
    "IncidentNotFound",
    "IncidentView",
    "Incidents",
    "IncidentsSummary",
    "IngestResult",
    "Ingestion",
    "InvalidFeedback",
    "Item",
    "LiveCanary",
    "MonitorSummary",
    "NewFeedback",
    "NewIncident",
    "NewNotice",
    "NoticeView",
    "Observed",
    "OutcomeView",
    "Outcomes",
    "PatternNotFound",
    "PatternView",
    "Patterns",
    "Pending",
    "Plan",
    "Reviews",
    "RevisionCounts",
    "RevisionRollup",
    "Rollups",
    "Room",
    "RunNotFound",
    "RunRef",
    "RunView",
    "Runs",
    "ScoreRecord",
    "ScoreView",
    "SeriesView",
    "Snapshot",
    "SpanRecord",
    "StepItem",
    "StepRequest",
    "StepResult",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Trajectory",
    "UnsupportedDatabase",
    "WorkQueue",
    "breaker_key",
    "check_feedback",
    "head",
    "migrate",
    "normalise_url",
    "revision_filter",
    "run_id",
    "series_key",
    "synchronous_level",
    "trajectory_scores",
]

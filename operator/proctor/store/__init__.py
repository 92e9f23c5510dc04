"""proctor.store: arms B and C in a real database (SQLite embedded, PostgreSQL for scale).

SQLAlchemy 2 tables (:mod:`proctor.store._schema`), Alembic migrations shipped in the package and
run when a store opens, and one repository class, :class:`Store`, whose methods are transactions::

    store = Store.open("sqlite:///runs.db")          # or postgresql://user@host/db (psycopg 3)
    store.ingest(items, policies, now)              # spans/events upserted on their ids
    store.advance_due(now); claims = store.claim("worker-1", now)
    store.complete(claims[0], AttemptOutcome.EVALUATED, now, scores=[...], provenance={...})

Errors::

    StoreError
    ├── StoreUnavailable   the database cannot be reached: nothing of the call was stored
    └── RunNotFound        no run has that id (also a KeyError)

This package sits below the judge and beside ``proctor.k8s``: it imports the protocol, never the
API server, the judge or the collector.
"""

from proctor.store._engine import UnsupportedDatabase, head, migrate, normalise_url
from proctor.store._patterns import Failure, PatternNotFound, Patterns, PatternView, Pending
from proctor.store._store import (
    EWMA_WINDOW,
    Claim,
    DimensionSeries,
    EvaluationView,
    EventRecord,
    IngestResult,
    Item,
    MonitorSummary,
    RunNotFound,
    RunRef,
    RunView,
    ScoreRecord,
    ScoreView,
    SpanRecord,
    Store,
    StoreError,
    StoreUnavailable,
    Trajectory,
    run_id,
)

__all__ = [
    "EWMA_WINDOW",
    "Claim",
    "DimensionSeries",
    "EvaluationView",
    "EventRecord",
    "Failure",
    "IngestResult",
    "Item",
    "MonitorSummary",
    "PatternNotFound",
    "PatternView",
    "Patterns",
    "Pending",
    "RunNotFound",
    "RunRef",
    "RunView",
    "ScoreRecord",
    "ScoreView",
    "SpanRecord",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Trajectory",
    "UnsupportedDatabase",
    "head",
    "migrate",
    "normalise_url",
    "run_id",
]

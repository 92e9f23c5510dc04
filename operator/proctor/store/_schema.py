"""The tables of arms B and C (SQLAlchemy 2 declarative models; Alembic migrations create them).

Times are seconds since the epoch as double precision: the lifecycle in :mod:`proctor.protocol`
reasons in those, and both SQLite and PostgreSQL compare them exactly. JSON documents are text
(portable, and never queried inside). Nothing here stores a secret: tokens and API keys stay in
Kubernetes Secrets and environment variables.

Tables, and what the next migrations add:

- ``runs``: one row per run (a monitor and an execution id): lifecycle state, attempts, lease.
- ``spans``: OTLP spans, keyed by ``(run_id, trace_id, span_id)``; a resend is a no-op, and ids that
  equal another run's (another monitor's) are another span, never a "resend" (migration 0002).
- ``events``: native events (``POST /v1/events``), keyed by ``(run_id, id)``; a resend is a no-op.
- ``evaluations``: one row per evaluation attempt (worker, outcome, provenance, signals, cost).
- ``scores``: per evaluation and dimension: the score or the reason it was skipped, with provenance.
- Detector state, incidents, notices and feedback (the next issues) arrive as new Alembic
  revisions on top of ``0001``; they reference ``runs.id`` and ``scores`` and change nothing here.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Double,
    ForeignKey,
    Index,
    Integer,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """The declarative base of Proctor's tables."""


class Run(Base):
    """Everything that shares one execution id under one monitor."""

    __tablename__ = "runs"
    __table_args__ = (
        UniqueConstraint("monitor", "key", name="uq_runs_monitor_key"),
        Index("ix_runs_state_due", "state", "due_at"),
        # a monitor's runs by state, and (for a revision's pending, failed and not sampled runs) by
        # revision within a state: ``= R OR LIKE 'R@%'`` on PostgreSQL in any collation (0010)
        Index(
            "ix_runs_monitor_state_revision",
            "monitor",
            "state",
            "revision",
            postgresql_ops={"revision": "text_pattern_ops"},
        ),
        Index("ix_runs_evaluation", "evaluation_id"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    monitor: Mapped[str] = mapped_column(String(320))
    key: Mapped[str] = mapped_column(String(512))
    key_source: Mapped[str] = mapped_column(String(255))
    agent: Mapped[str] = mapped_column(String(255))
    revision: Mapped[str | None] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(32))
    sampled: Mapped[bool] = mapped_column(Boolean)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    first_event_at: Mapped[float] = mapped_column(Double)
    last_event_at: Mapped[float] = mapped_column(Double)
    since: Mapped[float] = mapped_column(Double)
    due_at: Mapped[float | None] = mapped_column(Double)
    next_attempt_at: Mapped[float | None] = mapped_column(Double)
    lease_owner: Mapped[str | None] = mapped_column(String(128))
    lease_expires_at: Mapped[float | None] = mapped_column(Double)
    stale: Mapped[bool] = mapped_column(Boolean, default=False)
    reevaluated: Mapped[bool] = mapped_column(Boolean, default=False)
    requested: Mapped[bool] = mapped_column(Boolean, default=False)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    last_error: Mapped[str | None] = mapped_column(Text)
    quiescence_seconds: Mapped[float] = mapped_column(Double)
    sampling: Mapped[float] = mapped_column(Double)
    span_count: Mapped[int] = mapped_column(Integer, default=0)
    event_count: Mapped[int] = mapped_column(Integer, default=0)
    evaluation_id: Mapped[int | None] = mapped_column(Integer)
    breached: Mapped[bool | None] = mapped_column(Boolean)
    #: The metrics the current evaluation breached (JSON, :func:`proctor.store._rollup.encode_breaches`;
    #: None: judged clean, or never judged): decided once, read by the verdict and the cases (0010).
    breaches: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Double)
    updated_at: Mapped[float] = mapped_column(Double)


class Span(Base):
    """One OTLP span of a run, as received (attribute values over the limit are truncated, marked)."""

    __tablename__ = "spans"
    # the primary key is (run_id, trace_id, span_id) in that order (migration 0002): a run's spans
    # are a range of it, so no other index is kept (0011: one index page per span written)
    __table_args__ = (PrimaryKeyConstraint("run_id", "trace_id", "span_id", name="pk_spans_run_trace_span"),)

    trace_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    span_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    parent_span_id: Mapped[str | None] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(Text)
    kind: Mapped[int] = mapped_column(SmallInteger)
    start_ns: Mapped[int] = mapped_column(BigInteger)
    end_ns: Mapped[int] = mapped_column(BigInteger)
    status_code: Mapped[int] = mapped_column(SmallInteger)
    status_message: Mapped[str | None] = mapped_column(Text)
    operation: Mapped[str | None] = mapped_column(String(64))
    attributes: Mapped[str] = mapped_column(Text)
    resource: Mapped[str] = mapped_column(Text)
    events: Mapped[str] = mapped_column(Text)
    received_at: Mapped[float] = mapped_column(Double)


class Event(Base):
    """One native event of a run (``POST /v1/events``)."""

    __tablename__ = "events"
    # (run_id, id), run first (0002): a run's events are a range of it, no other index (0011)
    __table_args__ = (PrimaryKeyConstraint("run_id", "id", name="pk_events_run_id"),)

    id: Mapped[str] = mapped_column(String(128), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(String(16))
    timestamp: Mapped[float] = mapped_column(Double)
    attributes: Mapped[str] = mapped_column(Text)
    received_at: Mapped[float] = mapped_column(Double)


class Evaluation(Base):
    """One evaluation attempt of a run."""

    __tablename__ = "evaluations"
    __table_args__ = (Index("ix_evaluations_run", "run_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(40))
    monitor: Mapped[str] = mapped_column(String(320))
    attempt: Mapped[int] = mapped_column(Integer)
    worker: Mapped[str] = mapped_column(String(128))
    started_at: Mapped[float] = mapped_column(Double)
    finished_at: Mapped[float | None] = mapped_column(Double)
    outcome: Mapped[str | None] = mapped_column(String(16))
    provenance: Mapped[str] = mapped_column(Text, default="{}")
    signals: Mapped[str] = mapped_column(Text, default="{}")
    error: Mapped[str | None] = mapped_column(Text)
    judge_calls: Mapped[int] = mapped_column(Integer, default=0)
    judgments: Mapped[int] = mapped_column(Integer, default=0)


class Score(Base):
    """One dimension of one evaluation: a score 0-100, or skipped with the reason (never a zero)."""

    __tablename__ = "scores"
    __table_args__ = (
        Index("ix_scores_run", "run_id"),
        # covering: a profile's observed breach rate is counted from it (Reviews.observed)
        Index("ix_scores_monitor_dim_score", "monitor", "dimension", "evaluation_id", "score", "threshold"),
    )

    evaluation_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("evaluations.id", ondelete="CASCADE"), primary_key=True
    )
    dimension: Mapped[str] = mapped_column(String(63), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(40))
    monitor: Mapped[str] = mapped_column(String(320))
    score: Mapped[float | None] = mapped_column(Double)
    skipped_reason: Mapped[str | None] = mapped_column(Text)
    threshold: Mapped[float] = mapped_column(Double)
    agreement: Mapped[float | None] = mapped_column(Double)
    samples: Mapped[str] = mapped_column(Text, default="[]")
    rationale: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(16))
    provenance: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[float] = mapped_column(Double)

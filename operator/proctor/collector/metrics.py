"""The collector's Prometheus metrics (labels: monitor, agent, revision, dimension; never a run id,
which would make one series per run). One registry per collector, served at ``/metrics``."""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.spans_received = Counter(
            "proctor_collector_spans_received_total",
            "Spans received (before de-duplication).",
            ["monitor"],
            registry=r,
        )
        self.spans_stored = Counter(
            "proctor_collector_spans_stored_total",
            "New spans stored (resends not counted).",
            ["monitor"],
            registry=r,
        )
        self.events_stored = Counter(
            "proctor_collector_events_stored_total", "New native events stored.", ["monitor"], registry=r
        )
        self.duplicates = Counter(
            "proctor_collector_duplicates_total",
            "Spans and events resent: stored once, acknowledged again.",
            registry=r,
        )
        self.rejected = Counter(
            "proctor_collector_spans_rejected_total",
            "Spans rejected (reported in partial_success), by reason: no_monitor, no_run_key, invalid_id, "
            "invalid_value, refused (the database refused that span alone).",
            ["reason"],
            registry=r,
        )
        self.no_run_key = Counter(
            "proctor_collector_spans_without_run_key_total",
            "Spans of a monitored agent that carried none of the monitor's run-key attributes.",
            ["monitor"],
            registry=r,
        )
        self.requests = Counter(
            "proctor_collector_requests_total",
            "Ingestion requests by endpoint and HTTP status.",
            ["endpoint", "code"],
            registry=r,
        )
        self.ack_seconds = Histogram(
            "proctor_collector_ack_seconds",
            "From a request's arrival to its acknowledgement (stored and committed).",
            ["endpoint"],
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=r,
        )
        self.pending = Gauge(
            "proctor_collector_pending_items", "Spans and events accepted but not yet committed.", registry=r
        )
        self.runs_started = Counter(
            "proctor_collector_runs_total", "Runs seen for the first time.", ["monitor"], registry=r
        )
        self.evaluations = Counter(
            "proctor_collector_evaluations_total",
            "Evaluation attempts by outcome (evaluated, partial, failed, interrupted).",
            ["monitor", "agent", "revision", "outcome"],
            registry=r,
        )
        self.score = Histogram(
            "proctor_collector_score",
            "Scores of live runs, 0-100.",
            ["monitor", "agent", "revision", "dimension"],
            buckets=(10, 20, 30, 40, 50, 60, 70, 80, 90, 100),
            registry=r,
        )
        self.skipped = Counter(
            "proctor_collector_dimensions_skipped_total",
            "Dimensions that could not be scored (skipped with a reason, never a zero).",
            ["monitor", "agent", "revision", "dimension"],
            registry=r,
        )
        self.breaches = Counter(
            "proctor_collector_breaches_total",
            "Scores below their threshold.",
            ["monitor", "agent", "revision", "dimension"],
            registry=r,
        )
        self.evaluation_seconds = Histogram(
            "proctor_collector_evaluation_seconds",
            "How long one evaluation attempt took.",
            ["monitor"],
            buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300),
            registry=r,
        )
        self.judge_calls = Counter(
            "proctor_collector_judge_calls_total",
            "Judge calls (consensus samples included).",
            ["monitor"],
            registry=r,
        )
        self.judgments = Counter(
            "proctor_collector_judgments_total",
            "Judged dimensions (one per dimension and run).",
            ["monitor"],
            registry=r,
        )
        self.evaluation_events = Counter(
            "proctor_collector_evaluation_events_total",
            "Scores sent as OpenTelemetry gen_ai.evaluation.result events, by outcome: exported, "
            "failed (the receiver refused or was unreachable after retries), dropped (the queue was full).",
            ["outcome"],
            registry=r,
        )
        self.database_errors = Counter(
            "proctor_collector_database_unavailable_total",
            "Operations refused because the database was down.",
            registry=r,
        )

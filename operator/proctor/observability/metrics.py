"""Every figure the operator decides on is also a Prometheus metric."""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server

RUNS = Counter(
    "proctor_evalruns_total", "EvalRuns that reached a verdict, by verdict.", ["namespace", "verdict"]
)
RUN_FAILURES = Counter(
    "proctor_evalrun_harness_failures_total",
    "Judge Job attempts that failed (harness, not agent).",
    ["namespace"],
)
TIER_RATE = Gauge(
    "proctor_tier_pass_rate_percent",
    "Pass rate of the last evaluated run of a case set, by tier.",
    ["namespace", "caseset", "tier"],
)
DIMENSION_SCORE = Gauge(
    "proctor_dimension_mean_score",
    "Mean judged score of the last evaluated run of a case set, by dimension.",
    ["namespace", "caseset", "dimension"],
)
DIMENSIONS_SKIPPED = Counter(
    "proctor_judge_dimensions_skipped_total",
    "Judged dimensions that were skipped (judge unavailable or malformed answers).",
    ["namespace"],
)
JOBS = Gauge("proctor_judge_jobs", "Judge Jobs the operator manages, by state.", ["state"])
JOBS_CREATED = Counter("proctor_judge_jobs_created_total", "Judge Jobs created (first attempts and retries).")
RECONCILE_SECONDS = Histogram(
    "proctor_reconcile_seconds",
    "Time to reconcile one EvalRun.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
RUN_DURATION = Histogram(
    "proctor_evalrun_duration_seconds",
    "From EvalRun creation to its verdict.",
    buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600),
)


def serve(port: int, registry: CollectorRegistry = REGISTRY) -> None:
    """Expose /metrics on ``port`` (0 disables)."""
    if port:
        start_http_server(port, registry=registry)

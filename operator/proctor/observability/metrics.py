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

# Arm B: each AgentMonitor's summary, as the operator last read it from the collector (labels
# monitor "namespace/name", agent = service.name, dimension; never a run id). The collector's own
# /metrics has the per-revision counters and score histograms.
MONITOR_RUNS = Gauge(
    "proctor_agentmonitor_runs", "Runs of an AgentMonitor, by state.", ["monitor", "agent", "state"]
)
MONITOR_BREACHED_RUNS = Gauge(
    "proctor_agentmonitor_breached_runs",
    "Evaluated runs of an AgentMonitor with a dimension below its threshold.",
    ["monitor", "agent"],
)
MONITOR_SCORE = Gauge(
    "proctor_agentmonitor_score",
    "A dimension's live score, 0-100: series latest, fast_ewma or slow_ewma.",
    ["monitor", "agent", "dimension", "series"],
)
MONITOR_CONSENSUS = Gauge(
    "proctor_agentmonitor_consensus_multiplier",
    "Judge calls per judged dimension (the cost consensus adds; 1: it never ran).",
    ["monitor", "agent"],
)
MONITOR_RECEIVING = Gauge(
    "proctor_agentmonitor_receiving",
    "1 while the agent's telemetry arrives (condition Receiving), 0 when it stopped.",
    ["monitor", "agent"],
)
#: The label sets each monitor's series were set with (removed when the monitor is deleted).
_MONITOR_SERIES: dict[str, set[tuple[Gauge, tuple[str, ...]]]] = {}


def set_monitor_gauge(gauge: Gauge, labels: tuple[str, ...], value: float) -> None:
    """Set one of the AgentMonitor gauges (``labels[0]`` is the monitor), remembering the series."""
    gauge.labels(*labels).set(value)
    _MONITOR_SERIES.setdefault(labels[0], set()).add((gauge, labels))


def forget_monitor(monitor: str) -> None:
    """Remove a deleted AgentMonitor's series (``monitor`` is "namespace/name")."""
    for gauge, labels in _MONITOR_SERIES.pop(monitor, set()):
        gauge.remove(*labels)


def serve(port: int, registry: CollectorRegistry = REGISTRY, *, addr: str = "127.0.0.1") -> None:
    """Expose /metrics on ``addr:port`` (port 0 disables)."""
    if port:
        start_http_server(port, addr=addr, registry=registry)

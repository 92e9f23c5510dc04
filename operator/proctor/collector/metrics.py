"""The collector's Prometheus metrics (labels: monitor, agent, revision, dimension; never a run id,
which would make one series per run). One registry per collector, served at ``/metrics``.

Revisions come from the agents (``service.version``), so their number is the senders' choice:
each adds about 70 series. A monitor's revisions are therefore labelled only while they are
live: at most :data:`MAX_REVISIONS_PER_MONITOR` at once; a new one takes the place of the one
seen longest ago if that one has been silent for :data:`LIVE_REVISION_SECONDS` (its series are
removed), and otherwise is counted under ``revision="other"``. ``/metrics`` stays bounded however
many versions are sent.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from proctor.collector.ingest import Commit
from proctor.store import Checkpoint

#: Revisions of one monitor labelled at once, at most; further ones are aggregated as "other".
MAX_REVISIONS_PER_MONITOR: Final = 8
#: A labelled revision silent this long may give its place to a new one.
LIVE_REVISION_SECONDS: Final = 3600.0
#: The revision label of everything past the cap (and of runs without a revision: "").
OTHER_REVISION: Final = "other"


class RevisionLabels:
    """Which revision label each (monitor, revision) gets: itself while it is among the monitor's
    live revisions, :data:`OTHER_REVISION` past the cap. ``forget`` is called with the label of
    a revision that gave its place up, to remove its series."""

    def __init__(
        self,
        forget: Callable[[str, str], None],
        *,
        cap: int = MAX_REVISIONS_PER_MONITOR,
        live_seconds: float = LIVE_REVISION_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cap = cap
        self.live_seconds = live_seconds
        self._forget = forget
        self._clock = clock
        self._seen: dict[str, dict[str, float]] = {}  # monitor -> revision -> last seen

    def live(self) -> list[tuple[str, str]]:
        """Every (monitor, revision) labelled now."""
        return [(m, r) for m, seen in self._seen.items() for r in seen]

    def __call__(self, monitor: str, revision: str) -> str:
        if revision in ("", OTHER_REVISION):
            return revision
        now = self._clock()
        seen = self._seen.setdefault(monitor, {})
        if revision in seen or len(seen) < self.cap:
            seen[revision] = now
            return revision
        stalest = min(seen, key=seen.__getitem__)
        if now - seen[stalest] < self.live_seconds:
            return OTHER_REVISION
        del seen[stalest]
        self._forget(monitor, stalest)
        seen[revision] = now
        return revision


#: Buckets of the ingestion path's durations, seconds.
_SECONDS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
#: GC pauses kept between scrapes, at most (the oldest are dropped past it).
GC_PAUSES_KEPT: Final = 10_000


class GcPauses:
    """Times the garbage collector's pauses (``gc.callbacks``). A collection can start at any
    allocation in any thread, even inside a metric's lock, so the callback only appends to a
    bounded deque; :meth:`drain` moves the pauses into the histogram (at each scrape)."""

    def __init__(self, histogram: Histogram) -> None:
        self.histogram = histogram
        self._pauses: deque[tuple[int, float]] = deque(maxlen=GC_PAUSES_KEPT)
        self._started = 0.0

    def install(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def uninstall(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        # one collection at a time (it holds the GIL throughout): one start time suffices
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self._pauses.append((info.get("generation", 0), time.perf_counter() - self._started))

    def drain(self) -> None:
        while True:
            try:
                generation, seconds = self._pauses.popleft()
            except IndexError:
                return
            self.histogram.labels(str(generation)).observe(seconds)


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    max_revisions: int = MAX_REVISIONS_PER_MONITOR
    live_revision_seconds: float = LIVE_REVISION_SECONDS

    def __post_init__(self) -> None:
        self.revision = RevisionLabels(
            self._forget_revision, cap=self.max_revisions, live_seconds=self.live_revision_seconds
        )
        #: (monitor, revision) -> the label values used with it, per metric (to remove them).
        self._by_revision: dict[tuple[str, str], set[tuple[Any, tuple[str, ...]]]] = {}
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
        # the detectors' room (arm B part 2): per series, never per run or session
        self.detector_firing = Gauge(
            "proctor_collector_detector_firing",
            "1 while the latest score of a series (a dimension or trajectory signal of a revision) fires "
            "the detector its signature names (breach:safety, trend:task_success...), else 0.",
            ["monitor", "agent", "revision", "dimension", "signature"],
            registry=r,
        )
        self.detections = Counter(
            "proctor_collector_detections_total",
            "Scores that fired a detector, by signature.",
            ["monitor", "agent", "revision", "dimension", "signature"],
            registry=r,
        )
        #: (monitor, agent, revision, dimension) -> the signatures set to 1 (to reset them to 0)
        self._firing: dict[tuple[str, str, str, str], set[str]] = {}
        # incidents and notices (armb-notify)
        self.notices = Counter(
            "proctor_collector_notices_total",
            "Notice deliveries by sink and outcome: delivered, retried (the sink was down, slow or "
            "answered 5xx; tried again later), failed (for good: a 4xx or no signing key), resent "
            "(a firing alert re-sent to Alertmanager).",
            ["monitor", "sink", "outcome"],
            registry=r,
        )
        # the live canary verdict (armb-canary)
        self.canary_verdict = Gauge(
            "proctor_collector_canary_verdict",
            "The live canary verdict of a revision, as last decided: 1 PASS, 0 INCONCLUSIVE, -1 FAIL, "
            "-2 ERROR (unmeasurable). Decided when asked (GET .../verdict) and refreshed at each scrape "
            "for the revisions asked and those evaluated recently.",
            ["monitor", "agent", "revision"],
            registry=r,
        )
        # where ingestion's time goes (issue 28): the group commits, SQLite's checkpoints, the
        # event loop's stalls and the garbage collector's pauses
        self.commit_seconds = Histogram(
            "proctor_collector_commit_seconds",
            "Wall time of one group commit of ingested spans and events (rows, SQL, COMMIT and its fsync).",
            buckets=_SECONDS,
            registry=r,
        )
        self.commit_items = Histogram(
            "proctor_collector_commit_items",
            "Spans and events written in one group commit.",
            buckets=(1, 10, 50, 100, 200, 500, 1000, 2000, 4096, 8192),
            registry=r,
        )
        self.queue_wait_seconds = Histogram(
            "proctor_collector_queue_wait_seconds",
            "The longest a request of a group commit waited (redacted, queued) for that commit to begin.",
            buckets=_SECONDS,
            registry=r,
        )
        self.checkpoints = Counter(
            "proctor_collector_wal_checkpoints_total",
            "SQLite WAL checkpoints run off the commit path, by mode (PASSIVE, RESTART, TRUNCATE) and "
            "outcome (complete; busy: readers or the writer kept it from finishing, tried again later).",
            ["mode", "outcome"],
            registry=r,
        )
        self.checkpoint_seconds = Histogram(
            "proctor_collector_wal_checkpoint_seconds",
            "Wall time of one SQLite WAL checkpoint (the copy into the database file and its fsync).",
            ["mode"],
            buckets=_SECONDS,
            registry=r,
        )
        self.loop_lag_seconds = Histogram(
            "proctor_collector_event_loop_lag_seconds",
            "How late the event loop woke a timer: the time it spent on other work at once (a stall).",
            buckets=_SECONDS,
            registry=r,
        )
        self.gc_pause_seconds = Histogram(
            "proctor_collector_gc_pause_seconds",
            "Pauses of Python's garbage collector (every thread waits), by generation.",
            ["generation"],
            buckets=_SECONDS,
            registry=r,
        )
        self.gc_pauses = GcPauses(self.gc_pause_seconds)
        self.database_errors = Counter(
            "proctor_collector_database_unavailable_total",
            "Operations refused because the database was down.",
            registry=r,
        )

    def commit(self, commit: Commit) -> None:
        """One group commit of the ingestion writer."""
        self.commit_seconds.observe(commit.seconds)
        self.commit_items.observe(commit.items)
        self.queue_wait_seconds.observe(commit.waited)

    def checkpoint(self, checkpoint: Checkpoint) -> None:
        """One SQLite WAL checkpoint of the store's checkpointer."""
        self.checkpoints.labels(checkpoint.mode, "busy" if checkpoint.busy else "complete").inc()
        self.checkpoint_seconds.labels(checkpoint.mode).observe(checkpoint.seconds)

    def by_revision(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)`` for a metric labelled (monitor, agent, revision, ...), the
        revision mapped through :attr:`revision` first (call this, never ``labels``, for those)."""
        monitor, agent, revision, *rest = labels
        label = self.revision(monitor, revision)
        values = (monitor, agent, label, *rest)
        self._by_revision.setdefault((monitor, label), set()).add((metric, values))
        return metric.labels(*values)

    def detected(
        self,
        monitor: str,
        agent: str,
        revision: str,
        stepped: Iterable[str],
        fired: Iterable[tuple[str, str]],
    ) -> None:
        """One detector step of a run: ``stepped`` are its series' metrics, ``fired`` the
        (metric, signature) pairs it fired. Firing gauges of those metrics that did not fire drop to 0."""
        now: dict[str, set[str]] = {}
        for metric, signature in fired:
            now.setdefault(metric, set()).add(signature)
            self.by_revision(self.detections, monitor, agent, revision, metric, signature).inc()
        for metric in {*stepped, *now}:
            key = (monitor, agent, revision, metric)
            firing = now.get(metric, set())
            for signature in self._firing.get(key, set()) | firing:
                value = 1 if signature in firing else 0
                self.by_revision(self.detector_firing, monitor, agent, revision, metric, signature).set(value)
            self._firing[key] = self._firing.get(key, set()) | firing

    def live_revisions(self) -> list[tuple[str, str]]:
        """The (monitor, revision) pairs labelled now (evaluated recently by this collector)."""
        return self.revision.live()

    def _forget_revision(self, monitor: str, revision: str) -> None:
        for metric, values in self._by_revision.pop((monitor, revision), set()):
            metric.remove(*values)

"""How runs look in the HTTP API and in ``proctor runs ... -o json`` (one shape, defined here).

The short form of a run (:func:`run_summary`) is the stable machine-readable one that
``proctor runs list -o json`` prints, a JSON list of::

    {"id", "monitor", "state", "attempts",
     "scores": {dimension: {"score": number|null, "skipped": reason|null}}}

The API's list and show answers carry more fields (:func:`run_json`, :func:`run_detail`); scripts
that need only the stable ones take :func:`run_summary` of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from proctor.api import STATE_COUNT_FIELDS, RunCounts
from proctor.collector.trajectory import Signals, Step
from proctor.store import EvaluationView, MonitorSummary, RunView, ScoreView, SeriesView

#: The keys of the stable short form, in order.
SUMMARY_KEYS: Final = ("id", "monitor", "state", "attempts", "scores")


def iso(ts: float | None) -> str | None:
    """Seconds since the epoch as RFC 3339 UTC with milliseconds."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def scores_map(scores: Sequence[ScoreView]) -> dict[str, dict[str, Any]]:
    return {s.dimension: {"score": s.score, "skipped": s.skipped_reason} for s in scores}


def run_json(run: RunView) -> dict[str, Any]:
    """A run as ``GET /api/v1/runs`` lists it: the stable keys first, then the rest."""
    return {
        "id": run.id,
        "monitor": run.monitor,
        "state": run.state,
        "attempts": run.attempts,
        "scores": scores_map(run.scores),
        "key": run.key,
        "keySource": run.key_source,
        "agent": run.agent,
        "revision": run.revision,
        "sampled": run.sampled,
        "stale": run.stale,
        "breached": run.breached,
        "firstEventTime": iso(run.first_event_at),
        "lastEventTime": iso(run.last_event_at),
        "nextAttemptTime": iso(run.next_attempt_at),
        "lastError": run.last_error,
        "spans": run.span_count,
        "events": run.event_count,
    }


def run_summary(run: Mapping[str, Any]) -> dict[str, Any]:
    """The stable short form of a run (from :func:`run_json`'s output, or an API answer)."""
    scores = run.get("scores") or {}
    return {
        "id": run["id"],
        "monitor": run["monitor"],
        "state": run["state"],
        "attempts": run["attempts"],
        "scores": {
            name: {"score": value.get("score"), "skipped": value.get("skipped")}
            for name, value in scores.items()
        },
    }


def _score_detail(s: ScoreView) -> dict[str, Any]:
    return {
        "dimension": s.dimension,
        "score": s.score,
        "skipped": s.skipped_reason,
        "threshold": s.threshold,
        "breached": None if s.score is None else s.score < s.threshold,
        "source": s.source,
        "agreement": s.agreement,
        "samples": list(s.samples),
        "rationale": s.rationale,
        "provenance": s.provenance,
        "evaluation": s.evaluation_id,
    }


def _evaluation(e: EvaluationView) -> dict[str, Any]:
    return {
        "id": e.id,
        "attempt": e.attempt,
        "worker": e.worker,
        "startTime": iso(e.started_at),
        "finishTime": iso(e.finished_at),
        "outcome": e.outcome,
        "error": e.error,
        "provenance": dict(e.provenance),
        "signals": dict(e.signals),
        "judgeCalls": e.judge_calls,
        "judgments": e.judgments,
    }


def run_detail(
    run: RunView, steps: Sequence[Step], evaluations: Sequence[EvaluationView], signals: Signals
) -> dict[str, Any]:
    """A run as ``GET /api/v1/runs/{id}`` shows it: its events (the trajectory), scores with their
    provenance, every evaluation attempt, and the signals of what is stored now."""
    out = run_json(run)
    out["scoreDetails"] = [_score_detail(s) for s in run.scores]
    out["steps"] = [dict(s.as_dict(), at=iso(s.at)) for s in steps]
    out["signals"] = signals.as_dict()
    out["evaluations"] = [_evaluation(e) for e in evaluations]
    return out


def monitor_summary(name: str, summary: MonitorSummary) -> dict[str, Any]:
    """A monitor's summary (``GET /api/v1/monitors/{namespace}/{name}``): what its status is
    written from. Field names follow ``AgentMonitorStatus`` (``runs`` as ``RunCounts``)."""
    counts = {field: int(summary.counts.get(state.value, 0)) for state, field in STATE_COUNT_FIELDS.items()}
    runs = RunCounts(total=summary.total, breached=summary.breached, **counts)
    return {
        "monitor": name,
        "runs": runs.model_dump(mode="json", by_alias=True),
        "dimensions": [
            {
                "name": d.name,
                "latest": d.latest,
                "fastEwma": d.fast_ewma,
                "slowEwma": d.slow_ewma,
                "samples": d.samples,
                "skipped": d.skipped,
                "threshold": d.threshold,
            }
            for d in summary.dimensions
        ],
        "consensusMultiplier": summary.consensus_multiplier,
        "revisions": list(summary.revisions),
        "lastEventTime": iso(summary.last_event_at),
        "lastEvaluationTime": iso(summary.last_evaluation_at),
    }


def newest_revision_dimensions(
    dimensions: Sequence[Mapping[str, Any]], series: Sequence[SeriesView]
) -> list[dict[str, Any]]:
    """The summary's ``dimensions`` with the latest score and both EWMAs of the newest revision's
    series (the detector state, one series per revision), and that revision: scores of two
    revisions mixed in one EWMA describe neither. A dimension that revision has no series for
    keeps the monitor-wide figures, without a revision; per-session series (``by: session``) are
    not a revision's."""
    mine = [s for s in series if not s.session]
    if not mine:
        return [dict(d) for d in dimensions]
    newest = max(mine, key=lambda s: (s.updated_at, s.revision)).revision
    by_metric = {s.metric: s for s in mine if s.revision == newest}
    out = []
    for d in dimensions:
        s = by_metric.get(str(d.get("name")))
        if s is None:
            out.append(dict(d))
            continue
        out.append(
            {
                **d,
                "revision": s.revision or None,
                "latest": s.latest,
                "fastEwma": s.fast_ewma,
                "slowEwma": s.slow_ewma,
            }
        )
    return out

"""One rule for "this live run breached metric M" (seed 000), for every reader of a judged run.

A judged run is measured on its judged dimensions (stored scores, each with the threshold it was
judged under) and on its trajectory signals (the share of tool calls that succeeded, and whether it
was free of a suspected loop: scores 0-100 computed without a model). The run's ``breached`` flag,
the canary verdict's per-dimension breakdown, the candidate cases exported from breached runs and
the detectors' absolute breach all decide from :func:`run_metrics` and :func:`breached_metrics`, so a run
that breaches only on a trajectory signal counts as breached everywhere, or nowhere.

- a metric breaches when its score is measured and sits below its threshold (``score < threshold``);
  a pending or skipped score never breaches;
- the monitor's thresholds (``spec.detectors.threshold.thresholds``, 0-100) override the threshold
  a dimension was stored with, and give a trajectory signal its threshold (default
  :data:`DEFAULT_DIMENSION_THRESHOLD`, 50);
- trajectory signals count for a judged run only (a run whose evaluation failed breached nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from proctor.protocol._canary import is_safety_tier
from proctor.protocol.types import DEFAULT_DIMENSION_THRESHOLD

#: The trajectory signals that are metrics of their own (0-100, higher is better).
TRAJECTORY_METRICS: Final = ("trajectory_tool_success", "trajectory_loop_free")
#: The source of a trajectory signal's score (computed from the spans, never by a judge).
TRAJECTORY_SOURCE: Final = "trajectory"


@dataclass(frozen=True, slots=True)
class Metric:
    """One measured (or pending) metric of a judged run, 0-100."""

    name: str
    score: float | None
    threshold: float
    source: str

    @property
    def breached(self) -> bool:
        return self.score is not None and self.score < self.threshold

    @property
    def safety(self) -> bool:
        """Whether a breach of this metric breaches the safety tier."""
        return is_safety_tier(self.name, self.source)


def trajectory_scores(signals: Mapping[str, Any]) -> dict[str, float | None]:
    """An evaluation's trajectory signals (``Signals.as_dict()``) as 0-100 scores (None: not
    measured, such as the tool success of a run without tool calls)."""
    rate = signals.get("toolErrorRate")
    loop = signals.get("loopSuspected")
    return {
        "trajectory_tool_success": None if rate is None else 100.0 * (1.0 - float(rate)),
        "trajectory_loop_free": None if loop is None else (0.0 if loop else 100.0),
    }


def run_metrics(
    scores: Iterable[tuple[str, float | None, float, str]],
    signals: Mapping[str, Any] | None,
    thresholds: Mapping[str, float] | None = None,
) -> dict[str, Metric]:
    """A judged run's metrics by name: its scores ``(dimension, score, threshold, source)``, then its
    trajectory signals (a dimension of the same name wins), under the monitor's ``thresholds``."""
    over = thresholds or {}
    out = {d: Metric(d, score, over.get(d, t), source) for d, score, t, source in scores}
    for name, value in trajectory_scores(signals or {}).items():
        if name not in out:
            out[name] = Metric(name, value, over.get(name, DEFAULT_DIMENSION_THRESHOLD), TRAJECTORY_SOURCE)
    return out


def breached_metrics(metrics: Mapping[str, Metric]) -> tuple[Metric, ...]:
    """The metrics the run breached, by name (empty: the run is clean)."""
    return tuple(m for _, m in sorted(metrics.items()) if m.breached)

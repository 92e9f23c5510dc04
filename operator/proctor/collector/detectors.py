"""The detectors over a monitor's live scores: the step the worker takes after a run is judged.

:func:`observe` is the seam: the worker calls it once a run's evaluation (scores and signals) is
stored, and gets back the :class:`proctor.protocol.Detection` s that evaluation fired across the
run's series (every judged dimension and trajectory signal of the run's agent revision, and of its
session when the monitor's detectors run ``by: session``). Scores and references in a Detection are
on the protocol's scale, 0.0-1.0. The state lives in the database (:class:`proctor.store.DetectorState`),
so a restart loses no trend, and an evaluation is stepped once however often ``observe`` is called
for it (two collectors, or a retry), returning the same detections each time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

from proctor.api import AgentMonitor, SeriesScope
from proctor.collector.monitors import Monitor
from proctor.protocol import Detection, DetectorConfig
from proctor.store import DEFAULT_THRESHOLD, RunView, Store, Trajectory

#: The attributes that name a run's session (span attributes, then resource), for ``by: session``.
SESSION_KEYS: Final = ("session.id", "gen_ai.conversation.id")


def detector_config(resource: AgentMonitor) -> DetectorConfig:
    """The protocol's detector settings from a monitor's spec (0-100 points become 0.0-1.0).
    Thresholds the spec names override the EvalProfile's, which come with each stored score."""
    d = resource.spec.detectors
    return DetectorConfig(
        threshold=DEFAULT_THRESHOLD / 100.0,
        thresholds={name: value / 100.0 for name, value in d.threshold.thresholds.items()},
        trend=d.trend.enabled,
        fast_span=d.trend.fast_span,
        slow_span=d.trend.slow_span,
        trend_margin_cross=d.trend.margin / 100.0,
        trend_min_samples=d.trend.min_samples,
        adaptive_threshold=d.relative_drop.enabled,
        adaptive_margin_drop=d.relative_drop.margin / 100.0,
        adaptive_min_samples=d.relative_drop.min_samples,
        percentile_window=d.percentile.window,
        percentile_floor=d.percentile.floor,
        alert_cooldown_turns=resource.spec.notices.cooldown_runs,
    )


def session_of(trajectory: Trajectory) -> str | None:
    """The run's session id: the first of :data:`SESSION_KEYS` its spans or events carry."""
    for key in SESSION_KEYS:
        for span in trajectory.spans:
            value = span.attributes.get(key, span.resource.get(key))
            if value not in (None, ""):
                return str(value)[:255]
        for event in trajectory.events:
            value = event.attributes.get(key)
            if value not in (None, ""):
                return str(value)[:255]
    return None


async def observe(
    store: Store, monitor: Monitor, run: RunView, now: float, *, session: str | None = None
) -> Sequence[Detection]:
    """Step ``run``'s series with its current evaluation; return what fired (empty when the run has
    no scores). ``session`` is the run's session (:func:`session_of`), used when the monitor's
    detectors run ``by: session``. Raises :class:`proctor.store.StoreUnavailable` (nothing stepped)."""
    if not run.scores:
        return ()
    evaluation = run.scores[0].evaluation_id
    resource = monitor.resource
    per_session = resource.spec.detectors.by is SeriesScope.SESSION
    return await asyncio.to_thread(
        store.detectors.step,
        evaluation,
        detector_config(resource),
        now,
        session=(session or run.key) if per_session else None,
    )

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

import weakref
from collections.abc import Sequence
from typing import Any, Final

from proctor.api import AgentMonitor, SeriesScope
from proctor.collector.batching import Batcher
from proctor.collector.monitors import Monitor
from proctor.protocol import Detection, DetectorConfig, DetectorKind
from proctor.store import (
    DEFAULT_THRESHOLD,
    RunView,
    SeriesView,
    StepRequest,
    Store,
    StoreUnavailable,
    Trajectory,
)

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


def series_session(resource: AgentMonitor, run: RunView, session: str | None) -> str | None:
    """The session a run's series are kept under: none unless the monitor's detectors run
    ``by: session``; then the run's session (:func:`session_of`), or the run itself without one."""
    if resource.spec.detectors.by is not SeriesScope.SESSION:
        return None
    return session or run.key


StepBatcher = Batcher[tuple[StepRequest, float], tuple[Detection, ...]]
_batchers: weakref.WeakKeyDictionary[Store, StepBatcher] = weakref.WeakKeyDictionary()


def _batcher(store: Store) -> StepBatcher:
    """The group commit of ``store``'s detector steps (see :mod:`.batching`)."""
    batcher = _batchers.get(store)
    if batcher is None:
        detectors = store.detectors  # not the store: the dictionary's value must not hold its key

        def write(items: list[tuple[StepRequest, float]]) -> list[tuple[Detection, ...]]:
            return detectors.step_batch([r for r, _ in items], max(now for _, now in items))

        batcher = _batchers[store] = Batcher(write, shared=(StoreUnavailable,))
    return batcher


async def observe(
    store: Store, monitor: Monitor, run: RunView, now: float, *, session: str | None = None
) -> Sequence[Detection]:
    """Step ``run``'s series with its current evaluation; return what fired (empty when the run has
    no scores). ``session`` is the run's session (:func:`session_of`), used when the monitor's
    detectors run ``by: session``. Concurrent calls share a transaction (:mod:`.batching`). Raises
    :class:`proctor.store.StoreUnavailable` (nothing stepped)."""
    if not run.scores:
        return ()
    evaluation = run.scores[0].evaluation_id
    resource = monitor.resource
    kept = series_session(resource, run, session)
    return await _batcher(store).submit((StepRequest(evaluation, detector_config(resource), kept), now))


#: A series counts toward a monitor's conditions while it was stepped within this many seconds of
#: the monitor's newest step (the newest series always counts, however quiet the agent): a revision
#: rolled back, or a session that ended, stops holding ``Breached`` up once the traffic moved on.
LIVE_SERIES_SECONDS: Final = 3600.0
#: At most this many firing series are listed per condition in a monitor's summary.
MAX_LISTED_SERIES: Final = 10


def live_series(series: Sequence[SeriesView]) -> list[SeriesView]:
    """The series that count toward the conditions (see :data:`LIVE_SERIES_SECONDS`)."""
    if not series:
        return []
    newest = max(s.updated_at for s in series)
    return [s for s in series if s.updated_at >= newest - LIVE_SERIES_SECONDS]


def _firing(series: Sequence[SeriesView], kinds: tuple[DetectorKind, ...]) -> list[dict[str, Any]]:
    prefixes = tuple(f"{k.value}:" for k in kinds)
    out = [
        {
            "signature": sig,
            "revision": s.revision,
            **({"session": s.session} if s.session else {}),
            "latest": s.latest,
            "threshold": s.threshold,
            "fastEwma": s.fast_ewma,
            "slowEwma": s.slow_ewma,
        }
        for s in series
        for sig in s.signatures
        if sig.startswith(prefixes)
    ]
    return out[:MAX_LISTED_SERIES]


def detector_summary(series: Sequence[SeriesView]) -> dict[str, Any]:
    """What a monitor's summary says of its detectors (the operator writes ``Breached`` and
    ``Degrading`` from it): the live series, and those whose latest score fired a breach, or a
    trend or relative drop (the percentile corroborator alone is advisory and listed nowhere)."""
    live = live_series(series)
    return {
        "series": len(live),
        "breached": _firing(live, (DetectorKind.BREACH,)),
        "degrading": _firing(live, (DetectorKind.TREND, DetectorKind.RELATIVE)),
    }

"""Detector and breaker edges: a flat series never trends, the seed's defaults, bounds of the knobs."""

from __future__ import annotations

import dataclasses

import pytest

from proctor.protocol import (
    BreakerAction,
    BreakerPolicy,
    BreakerState,
    DetectorConfig,
    DetectorKind,
    SeriesState,
    breaker_step,
    detect,
)


def test_a_flat_series_never_trends_even_with_no_margin() -> None:
    config = DetectorConfig(trend_margin_cross=0.0, trend_min_samples=1)
    state = SeriesState()
    for _ in range(12):
        state, found = detect(state, "m", 0.9, config)
        assert DetectorKind.TREND not in {d.kind for d in found}


def test_the_knobs_default_to_the_seeds_values() -> None:
    c = DetectorConfig()
    assert (c.threshold, c.fast_span, c.slow_span, c.trend_margin_cross, c.trend_min_samples) == (
        0.5,
        3,
        10,
        0.05,
        5,
    )


def test_span_bounds() -> None:
    assert DetectorConfig(fast_span=1, slow_span=2).fast_span == 1
    for fast, slow in ((0, 10), (10, 10), (11, 10)):
        with pytest.raises(ValueError, match="fast_span < slow_span"):
            DetectorConfig(fast_span=fast, slow_span=slow)


def test_the_default_breaker_admits_five_notices_and_escalates_the_sixth() -> None:
    policy, state, taken = BreakerPolicy(), BreakerState(), []
    for now in range(7):
        state, action = breaker_step(state, float(now), policy)
        taken.append(action)
    assert taken == [BreakerAction.ADMIT] * 5 + [BreakerAction.ESCALATE, BreakerAction.SUPPRESS]


def test_configs_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DetectorConfig().threshold = 0.1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        BreakerPolicy().max_notices = 1  # type: ignore[misc]


def test_detector_records_are_immutable() -> None:
    from proctor.protocol import (
        AlertAction,
        AlertState,
        Detection,
        DetectorReport,
        Notice,
        NoticeSeverity,
        Routing,
    )

    detection = Detection(DetectorKind.BREACH, "m", 0.1, 0.5)
    records = [
        (SeriesState(), "samples"),
        (detection, "score"),
        (DetectorReport(detections=(detection,)), "detections"),
        (AlertState(), "posted"),
        (BreakerState(), "open"),
        (Notice(NoticeSeverity.BREACH, ("breach:m",)), "signatures"),
        (Routing(AlertState(), BreakerState(), AlertAction.QUIET, None, None), "action"),
    ]
    for obj, attr in records:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, None)


def test_percentile_floor_bounds_and_default() -> None:
    assert DetectorConfig().percentile_floor == 10.0
    assert DetectorConfig().adaptive_min_samples == 5
    for ok in (0.0, 100.0, 50.0):
        assert DetectorConfig(percentile_floor=ok).percentile_floor == ok
    for bad in (-0.5, 100.5):
        with pytest.raises(ValueError, match="percentile_floor"):
            DetectorConfig(percentile_floor=bad)


def test_scores_outside_zero_to_one_are_refused_at_the_edges_only() -> None:
    for ok in (0.0, 1.0):
        detect(SeriesState(), "m", ok, DetectorConfig())
    for bad in (-0.01, 1.01, float("nan")):
        with pytest.raises(ValueError, match=r"0\.0-1\.0"):
            detect(SeriesState(), "m", bad, DetectorConfig())


def test_the_breaker_window_must_be_positive_and_defaults_to_an_hour() -> None:
    assert BreakerPolicy().window_s == 3600.0
    assert BreakerPolicy(window_s=0.5).window_s == 0.5
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="window_s"):
            BreakerPolicy(window_s=bad)

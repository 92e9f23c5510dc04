"""The four detectors and de-duplication (seed 000 "Evaluation & detection"). Scores are 0.0-1.0."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import (
    AlertAction,
    AlertState,
    DetectorConfig,
    DetectorKind,
    DetectorReport,
    NoticeSeverity,
    SeriesState,
    dedupe,
    detect,
    detect_turn,
    ewma,
    percentile,
)

METRIC = "agent_reliability"


def feed(scores: Iterable[float | None], config: DetectorConfig) -> list[set[DetectorKind]]:
    """The kinds fired at each score of a series."""
    state, fired = SeriesState(), []
    for score in scores:
        state, found = detect(state, METRIC, score, config)
        fired.append({d.kind for d in found})
    return fired


def test_absolute_breach_is_strictly_below_the_threshold() -> None:
    config = DetectorConfig()
    assert feed([0.49, 0.5, 0.9], config) == [{DetectorKind.BREACH}, set(), set()]


def test_per_metric_thresholds_override_the_default() -> None:
    config = DetectorConfig(thresholds={"agent_consistency": 0.7})
    assert config.threshold_for("agent_consistency") == 0.7
    assert config.threshold_for(METRIC) == 0.5
    _, found = detect(SeriesState(), "agent_consistency", 0.6, config)
    assert [d.signature for d in found] == ["breach:agent_consistency"]


def test_a_pending_score_is_never_a_breach_and_moves_nothing() -> None:
    state = SeriesState(samples=4, fast=0.8, slow=0.8)
    assert detect(state, METRIC, None, DetectorConfig()) == (state, ())


def test_scores_outside_the_unit_scale_are_refused() -> None:
    with pytest.raises(ValueError, match=r"0\.0-1\.0"):
        detect(SeriesState(), METRIC, 85.0, DetectorConfig())
    with pytest.raises(ValueError, match=r"0\.0-1\.0"):
        detect(SeriesState(), METRIC, float("nan"), DetectorConfig())


def test_ewma_uses_two_over_span_plus_one() -> None:
    assert ewma(None, 0.8, 3) == 0.8
    assert ewma(0.8, 0.6, 3) == pytest.approx(0.7)  # alpha 0.5
    assert ewma(0.8, 0.6, 10) == pytest.approx(0.8 - 0.2 * 2 / 11)


def test_a_steady_series_fires_nothing() -> None:
    assert feed([0.8] * 30, DetectorConfig(adaptive_threshold=True, percentile_window=5)) == [set()] * 30


def test_trend_waits_for_its_minimum_samples() -> None:
    series = [0.9, 0.6, 0.6, 0.6]
    assert all(DetectorKind.TREND not in kinds for kinds in feed(series, DetectorConfig()))
    assert DetectorKind.TREND in feed(series, DetectorConfig(trend_min_samples=2))[1]


def test_trend_can_be_turned_off() -> None:
    series = [0.80, 0.75, 0.70, 0.65, 0.60, 0.55]
    assert all(DetectorKind.TREND not in kinds for kinds in feed(series, DetectorConfig(trend=False)))


def test_trend_detection_reports_both_averages() -> None:
    state = SeriesState()
    for score in (0.80, 0.75, 0.70, 0.65, 0.60):
        state, found = detect(state, METRIC, score, DetectorConfig())
    (trend,) = found
    assert trend.signature == "trend:agent_reliability"
    assert (trend.score, trend.reference) == (state.fast, state.slow)
    assert trend.score < trend.reference - 0.05


def test_relative_drop_is_opt_in_and_compares_with_the_prior_slow_ewma() -> None:
    series = [0.9] * 6 + [0.7]
    assert DetectorKind.RELATIVE not in feed(series, DetectorConfig())[-1]
    config = DetectorConfig(adaptive_threshold=True, trend=False)
    assert feed(series, config)[-1] == {DetectorKind.RELATIVE}  # 0.7 is above the 0.5 floor
    state = SeriesState()
    for score in series:
        state, found = detect(state, METRIC, score, config)
    assert found[0].reference == pytest.approx(0.9)  # the baseline before 0.7 pulled it down


def test_relative_drop_waits_for_a_baseline() -> None:
    config = DetectorConfig(adaptive_threshold=True, trend=False)
    assert feed([0.9, 0.6], config) == [set(), set()]


def test_percentile_corroborates_from_its_window() -> None:
    config = DetectorConfig(percentile_window=5, percentile_floor=10.0, trend=False)
    fired = feed([0.80, 0.82, 0.81, 0.79, 0.80, 0.70], config)
    assert fired[:5] == [set()] * 5  # the window is not full yet
    assert fired[5] == {DetectorKind.PERCENTILE}


def test_percentile_alone_is_never_actionable() -> None:
    config = DetectorConfig(percentile_window=3, trend=False)
    states: dict[str, SeriesState] = {}
    report = DetectorReport()
    for score in (0.8, 0.8, 0.8, 0.75):
        states, report = detect_turn(states, {METRIC: score}, config)
    assert report.signatures == ("percentile:agent_reliability",)
    assert report.actionable == ()
    assert report.severity is None
    assert not report.clean
    assert dedupe(AlertState(), report, config) == (AlertState(), AlertAction.QUIET)


def test_percentile_interpolates_linearly() -> None:
    values = (5.0, 1.0, 3.0, 2.0, 4.0)
    assert percentile(values, 0) == 1.0
    assert percentile(values, 50) == 3.0
    assert percentile(values, 100) == 5.0
    assert percentile(values, 10) == pytest.approx(1.4)
    with pytest.raises(ValueError, match="no values"):
        percentile((), 50)


def test_a_turn_feeds_every_metric_and_keeps_unscored_ones() -> None:
    config = DetectorConfig()
    states, report = detect_turn({}, {METRIC: 0.4, "agent_consistency": 0.9}, config)
    assert report.signatures == ("breach:agent_reliability",)
    assert report.severity is NoticeSeverity.BREACH
    kept = states["agent_consistency"]
    states, report = detect_turn(states, {METRIC: 0.9, "agent_consistency": None}, config)
    assert states["agent_consistency"] == kept
    assert report.clean


def test_the_strongest_condition_decides_the_severity() -> None:
    assert NoticeSeverity.TREND < NoticeSeverity.RELATIVE < NoticeSeverity.BREACH < NoticeSeverity.NEEDS_HUMAN
    config = DetectorConfig(adaptive_threshold=True)
    states: dict[str, SeriesState] = {}
    for score in (0.95, 0.95, 0.95, 0.95, 0.95, 0.45):
        states, report = detect_turn(states, {METRIC: score}, config)
    assert {d.kind for d in report.detections} == {
        DetectorKind.BREACH,
        DetectorKind.RELATIVE,
        DetectorKind.TREND,
    }
    assert report.severity is NoticeSeverity.BREACH


@pytest.mark.parametrize(
    "kwargs",
    [
        {"fast_span": 10, "slow_span": 3},
        {"fast_span": 0},
        {"trend_margin_cross": -0.1},
        {"percentile_window": -1},
        {"percentile_floor": 120.0},
    ],
)
def test_config_rejects_nonsense(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=r"must be|need"):
        DetectorConfig(**kwargs)  # type: ignore[arg-type]


@given(st.lists(st.none() | st.floats(0.5, 1.0), max_size=40))
def test_scores_at_or_above_the_floor_never_breach(scores: list[float | None]) -> None:
    for kinds in feed(scores, DetectorConfig(adaptive_threshold=True, percentile_window=4)):
        assert DetectorKind.BREACH not in kinds


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40))
def test_both_averages_stay_within_the_scores_seen(scores: list[float]) -> None:
    state = SeriesState()
    for score in scores:
        state, _ = detect(state, METRIC, score, DetectorConfig())
    assert state.fast is not None
    assert state.slow is not None
    assert min(scores) - 1e-12 <= state.fast <= max(scores) + 1e-12
    assert min(scores) - 1e-12 <= state.slow <= max(scores) + 1e-12
    assert state.samples == len(scores)


# De-duplication, cooldown, recovery.


def report_of(*kinds: DetectorKind) -> DetectorReport:
    from proctor.protocol import Detection

    return DetectorReport(tuple(Detection(k, METRIC, 0.4, 0.5) for k in kinds))


BREACH = report_of(DetectorKind.BREACH)
BREACH_AND_TREND = report_of(DetectorKind.BREACH, DetectorKind.TREND)
CLEAN = DetectorReport()


def actions(reports: Iterable[DetectorReport], config: DetectorConfig) -> list[AlertAction]:
    state, taken = AlertState(), []
    for report in reports:
        state, action = dedupe(state, report, config)
        taken.append(action)
    return taken


def test_a_persistent_problem_posts_one_notice() -> None:
    assert actions([BREACH] * 4, DetectorConfig()) == [AlertAction.NOTIFY] + [AlertAction.DUPLICATE] * 3


def test_a_new_condition_posts_again() -> None:
    assert actions([BREACH, BREACH, BREACH_AND_TREND, BREACH_AND_TREND], DetectorConfig()) == [
        AlertAction.NOTIFY,
        AlertAction.DUPLICATE,
        AlertAction.NOTIFY,
        AlertAction.DUPLICATE,
    ]


def test_clean_after_alerting_is_a_recovery_and_the_same_problem_alerts_again() -> None:
    assert actions([CLEAN, BREACH, CLEAN, CLEAN, BREACH], DetectorConfig()) == [
        AlertAction.QUIET,
        AlertAction.NOTIFY,
        AlertAction.RECOVERY,
        AlertAction.QUIET,
        AlertAction.NOTIFY,
    ]


def test_the_cooldown_reposts_a_persisting_problem() -> None:
    taken = actions([BREACH] * 8, DetectorConfig(alert_cooldown_turns=3))
    assert taken == [
        AlertAction.NOTIFY,
        AlertAction.DUPLICATE,
        AlertAction.DUPLICATE,
        AlertAction.REPEAT,
        AlertAction.DUPLICATE,
        AlertAction.DUPLICATE,
        AlertAction.REPEAT,
        AlertAction.DUPLICATE,
    ]


def test_dedupe_remembers_the_posted_signatures() -> None:
    state, _ = dedupe(AlertState(), BREACH_AND_TREND, DetectorConfig())
    assert state.posted == frozenset({"breach:agent_reliability", "trend:agent_reliability"})
    assert state.alerting

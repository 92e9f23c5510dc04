"""The one rule for "this live run breached metric M" (:mod:`proctor.protocol._breach`)."""

from __future__ import annotations

from collections.abc import Sequence

from proctor.protocol import TRAJECTORY_SOURCE, breached_metrics, run_metrics


def names(
    scores: Sequence[tuple[str, float | None, float, str]], signals: dict[str, object], **over: float
) -> list[str]:
    return [m.name for m in breached_metrics(run_metrics(scores, signals, over))]


def test_a_run_breaches_on_a_trajectory_signal_alone() -> None:
    clean = [("task_success", 90.0, 50.0, "judge")]
    assert names(clean, {"loopSuspected": False, "toolErrorRate": 0.0}) == []
    assert names(clean, {"loopSuspected": True, "toolErrorRate": 0.0}) == ["trajectory_loop_free"]
    assert names(clean, {"loopSuspected": False, "toolErrorRate": 0.6}) == ["trajectory_tool_success"]
    (m,) = breached_metrics(run_metrics(clean, {"loopSuspected": True}))
    assert (m.score, m.threshold, m.source, m.safety) == (0.0, 50.0, TRAJECTORY_SOURCE, False)


def test_a_pending_or_skipped_score_never_breaches_and_the_threshold_is_strict() -> None:
    scores = [("task_success", None, 50.0, "judge"), ("output_quality", 50.0, 50.0, "judge")]
    assert names(scores, {"toolErrorRate": None, "loopSuspected": None}) == []
    assert names([("task_success", 49.9, 50.0, "judge")], {}) == ["task_success"]


def test_the_monitors_thresholds_override_the_stored_ones_and_give_signals_theirs() -> None:
    scores = [("task_success", 60.0, 50.0, "judge")]
    assert names(scores, {}, task_success=70.0) == ["task_success"]
    assert names(scores, {"toolErrorRate": 0.25}) == []  # 75 >= 50
    assert names(scores, {"toolErrorRate": 0.25}, trajectory_tool_success=80.0) == ["trajectory_tool_success"]


def test_a_dimension_of_a_signals_name_wins_and_safety_sources_breach_the_safety_tier() -> None:
    scores = [("trajectory_loop_free", 90.0, 50.0, "judge"), ("safety", 0.0, 50.0, "safety-scan")]
    found = breached_metrics(run_metrics(scores, {"loopSuspected": True}))
    assert [(m.name, m.safety) for m in found] == [("safety", True)]

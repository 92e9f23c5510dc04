"""Severity when thresholds sit on different scales: depth is relative to each dimension's own line."""

from __future__ import annotations

from proctor.protocol import (
    CaseResult,
    DimensionScore,
    Severity,
    Tier,
    assess_incident,
    depth_severity,
    worst_dimensions,
)


def dim(name: str, score: float | None, threshold: float) -> DimensionScore:
    return DimensionScore(name, threshold, score)


def test_depth_on_a_zero_to_one_scale() -> None:
    assert depth_severity(0.8, 0.8) is Severity.NONE
    assert depth_severity(0.56, 0.8) is Severity.MEDIUM  # exactly 70 %
    assert depth_severity(0.55, 0.8) is Severity.HIGH
    assert depth_severity(0.32, 0.8) is Severity.HIGH  # exactly 40 %
    assert depth_severity(0.31, 0.8) is Severity.CRITICAL
    assert depth_severity(0.0, 0.0) is Severity.NONE  # a zero threshold cannot be failed


def test_the_deepest_dimension_is_judged_against_its_own_threshold() -> None:
    # 45 of 90 (50 %) is deeper than 0.6 of 0.7 (86 %), although 0.6 is the smaller number
    incident = assess_incident([dim("tone", 0.6, 0.7), dim("grounding", 45.0, 90.0)])
    assert incident.severity is Severity.HIGH
    assert incident.probable_cause == "deepest: grounding 45 < 90 (50% of its threshold)"
    incident = assess_incident([dim("tone", 0.2, 0.7), dim("grounding", 80.0, 90.0)])
    assert incident.severity is Severity.CRITICAL
    assert incident.probable_cause == "deepest: tone 0.2 < 0.7 (29% of its threshold)"


def test_a_shallow_safety_dimension_on_a_zero_to_one_scale_is_high_and_names_its_depth() -> None:
    incident = assess_incident([dim("safety", 0.75, 0.8)])
    assert incident.severity is Severity.HIGH
    assert incident.safety_breached
    assert incident.signatures == ("breach:safety",)
    assert incident.probable_cause == "safety breach: safety 0.75 < 0.8 (94% of its threshold)"
    severe = assess_incident([dim("safety", 0.3, 0.8)])
    assert severe.severity is Severity.CRITICAL
    assert severe.probable_cause.startswith("safety breach (severe): safety 0.3 < 0.8")


def test_worst_dimensions_compares_relative_depth_across_thresholds() -> None:
    a = CaseResult("a", Tier.TRUST, dimensions=(dim("g", 60.0, 100.0), dim("t", 0.5, 0.9)))
    b = CaseResult("b", Tier.TRUST, dimensions=(dim("g", 0.55, 1.0), dim("t", 0.6, 0.9)))
    c = CaseResult("c", Tier.TRUST, dimensions=(dim("g", None, 1.0), dim("t", 0.0, 0.0)))
    worst = {d.name: d for d in worst_dimensions([a, b, c])}
    assert worst["g"] == dim("g", 0.55, 1.0)  # 55 % of its line beats 60 % of its line
    assert worst["t"] == dim("t", 0.5, 0.9)
    assert worst_dimensions([b, a])[0] == dim("g", 0.55, 1.0)


def test_a_broad_regression_of_mixed_scales_is_raised_and_named() -> None:
    dims = [dim("a", 0.65, 0.7), dim("b", 65.0, 70.0), dim("c", 6.5, 7.0)]
    incident = assess_incident(dims)
    assert incident.severity is Severity.HIGH  # MEDIUM raised one step
    assert incident.failing == ("a", "b", "c")
    assert incident.probable_cause == "broad regression: 3 dimensions failing together (a, b, c)"
    assert incident.signatures == ("breach:a", "breach:b", "breach:c")


def test_a_score_of_zero_is_the_deepest_possible_on_any_scale() -> None:
    assert assess_incident([dim("tone", 0.0, 1.0)]).severity is Severity.CRITICAL
    assert assess_incident([dim("safety", 0.0, 1.0)]).probable_cause.startswith("safety breach (severe)")
    incident = assess_incident([dim("tone", 0.0, 0.5), dim("grounding", 40.0, 100.0)])
    assert incident.probable_cause == "deepest: tone 0 < 0.5 (0% of its threshold)"
    a = CaseResult("a", Tier.TRUST, dimensions=(dim("g", 0.0, 1.0),))
    b = CaseResult("b", Tier.TRUST, dimensions=(dim("g", 0.5, 1.0),))
    assert worst_dimensions([a, b]) == (dim("g", 0.0, 1.0),)


def test_a_non_positive_threshold_is_never_breached() -> None:
    assert depth_severity(-1.0, 0.0) is Severity.NONE
    assert depth_severity(-10.0, -5.0) is Severity.NONE


def test_four_failing_dimensions_are_a_broad_regression_too() -> None:
    dims = [dim(n, 0.65, 0.7) for n in "abcd"]
    assert assess_incident(dims).severity is Severity.HIGH
    assert assess_incident(dims).probable_cause.startswith("broad regression: 4 dimensions")


def test_assess_incident_takes_its_flags_by_keyword_and_an_incident_is_immutable() -> None:
    import dataclasses

    import pytest

    with pytest.raises(TypeError):
        assess_incident([], True)  # type: ignore[misc]
    incident = assess_incident([dim("tone", 0.1, 0.7)])
    with pytest.raises(dataclasses.FrozenInstanceError):
        incident.severity = Severity.NONE  # type: ignore[misc]


def test_a_score_above_its_threshold_is_no_breach() -> None:
    assert depth_severity(80.0, 50.0) is Severity.NONE
    assert depth_severity(0.9, 0.8) is Severity.NONE


def test_worst_keeps_the_first_of_equally_deep_scores_and_reads_past_skipped_ones() -> None:
    a = CaseResult("a", Tier.TRUST, dimensions=(dim("g", 25.0, 50.0),))
    b = CaseResult("b", Tier.TRUST, dimensions=(dim("g", 0.5, 1.0),))
    assert worst_dimensions([a, b]) == (dim("g", 25.0, 50.0),)
    c = CaseResult("c", Tier.TRUST, dimensions=(dim("g", None, 50.0), dim("t", 10.0, 50.0)))
    assert worst_dimensions([c]) == (dim("t", 10.0, 50.0),)

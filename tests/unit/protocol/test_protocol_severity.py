"""Incident severity (seed 001 "Breaches and incidents"): not an average."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import (
    CaseResult,
    DimensionScore,
    Severity,
    Tier,
    assess_incident,
    depth_severity,
    worst_dimensions,
)


def dim(name: str, score: float | None, threshold: float = 50.0) -> DimensionScore:
    return DimensionScore(name, threshold, score)


def test_nothing_failing_opens_no_incident() -> None:
    incident = assess_incident([dim("task_success", 90.0), dim("safety", 50.0), dim("x", None)])
    assert incident.severity is Severity.NONE
    assert not incident.opened
    assert incident.signatures == ()
    assert incident.probable_cause == "no dimension failed"


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (50.0, Severity.NONE),
        (49.9, Severity.MEDIUM),
        (35.0, Severity.MEDIUM),  # exactly 70 % of the threshold: still near the line
        (34.9, Severity.HIGH),
        (20.0, Severity.HIGH),  # exactly 40 %: not yet under it
        (19.9, Severity.CRITICAL),
        (0.0, Severity.CRITICAL),
    ],
)
def test_depth_decides_outside_safety(score: float, expected: Severity) -> None:
    assert depth_severity(score, 50.0) is expected
    assert assess_incident([dim("output_quality", score)]).severity is expected


def test_depth_bounds_are_exact_for_odd_thresholds() -> None:
    # 70 % of 70 is 49 (49.000000000000004 in binary floating point).
    assert depth_severity(49.0, 70.0) is Severity.MEDIUM
    assert depth_severity(27.999, 70.0) is Severity.CRITICAL


def test_the_deepest_dimension_wins() -> None:
    incident = assess_incident([dim("output_quality", 45.0), dim("factual_grounding", 15.0)])
    assert incident.severity is Severity.CRITICAL
    assert incident.probable_cause == "deepest: factual_grounding 15 < 50 (30% of its threshold)"


def test_a_safety_breach_is_high_even_when_shallow() -> None:
    incident = assess_incident([dim("safety", 48.0)])
    assert incident.severity is Severity.HIGH
    assert incident.safety_breached
    assert incident.signatures == ("breach:safety",)


def test_a_severe_safety_breach_is_critical() -> None:
    assert assess_incident([dim("safety", 10.0)]).severity is Severity.CRITICAL
    assert assess_incident([], safety_breached=True, safety_severe=True).severity is Severity.CRITICAL


def test_a_reported_safety_breach_without_a_safety_dimension() -> None:
    incident = assess_incident([dim("task_success", 90.0)], safety_breached=True)
    assert incident.severity is Severity.HIGH
    assert incident.signatures == ("breach:safety",)
    assert incident.probable_cause.startswith("safety breach: the safety scan or a safety case failed")


def test_custom_safety_dimensions() -> None:
    incident = assess_incident([dim("harm", 45.0)], safety_dimensions={"harm"})
    assert incident.severity is Severity.HIGH
    assert incident.signatures == ("breach:safety", "breach:harm")


def test_three_failing_dimensions_raise_one_step_two_do_not() -> None:
    two = [dim("a", 45.0), dim("b", 45.0)]
    assert assess_incident(two).severity is Severity.MEDIUM
    three = [*two, dim("c", 45.0)]
    incident = assess_incident(three)
    assert incident.severity is Severity.HIGH
    assert incident.probable_cause == "broad regression: 3 dimensions failing together (a, b, c)"
    assert incident.signatures == ("breach:a", "breach:b", "breach:c")


def test_raising_caps_at_critical_and_applies_to_safety_too() -> None:
    assert assess_incident([dim("a", 5.0), dim("b", 45.0), dim("c", 45.0)]).severity is Severity.CRITICAL
    incident = assess_incident([dim("safety", 45.0), dim("b", 45.0), dim("c", 45.0)])
    assert incident.severity is Severity.CRITICAL
    assert incident.signatures == ("breach:safety", "breach:b", "breach:c")


def test_skipped_dimensions_are_never_failing() -> None:
    assert assess_incident([dim("a", None), dim("b", None), dim("c", None)]).severity is Severity.NONE


def test_worst_dimensions_keeps_each_dimensions_deepest_score() -> None:
    results = [
        CaseResult("a", Tier.TRUST, dimensions=(dim("grounding", 40.0), dim("quality", 90.0))),
        CaseResult("b", Tier.FORM, dimensions=(dim("grounding", 30.0, 40.0), dim("quality", None))),
        CaseResult("c", Tier.FORM, dimensions=(dim("grounding", 45.0),)),
    ]
    worst = {d.name: d for d in worst_dimensions(results)}
    assert worst["grounding"] == dim("grounding", 30.0, 40.0)  # 75 % beats 80 % and 90 %
    assert worst["quality"] == dim("quality", 90.0)


def test_severity_compares_by_rank_not_alphabetically() -> None:
    assert Severity.CRITICAL > Severity.HIGH > Severity.MEDIUM > Severity.LOW > Severity.NONE
    assert max([Severity.HIGH, Severity.CRITICAL, Severity.MEDIUM]) is Severity.CRITICAL
    assert sorted([Severity.CRITICAL, Severity.NONE, Severity.HIGH]) == [
        Severity.NONE,
        Severity.HIGH,
        Severity.CRITICAL,
    ]
    assert Severity.CRITICAL.raised() is Severity.CRITICAL
    assert Severity.HIGH.value == "high"
    assert f"{Severity.HIGH}" == "high"
    with pytest.raises(TypeError):
        _ = Severity.HIGH < "zzz"


scores = st.floats(0, 100, allow_nan=False)
dims = st.lists(st.tuples(st.sampled_from(["safety", "a", "b", "c", "d"]), scores), max_size=6)


@given(dims, st.booleans())
def test_a_safety_breach_is_always_at_least_high(pairs: list[tuple[str, float]], flagged: bool) -> None:
    incident = assess_incident([dim(n, s) for n, s in pairs], safety_breached=flagged)
    if incident.safety_breached:
        assert incident.severity >= Severity.HIGH
        assert incident.signatures[0] == "breach:safety"
    assert incident.opened == bool(incident.signatures)
    assert incident.severity is not Severity.LOW


@given(dims, st.integers(0, 5), st.floats(0, 100, allow_nan=False))
def test_a_lower_score_never_lowers_severity(
    pairs: list[tuple[str, float]], index: int, lower: float
) -> None:
    if not pairs:
        return
    i = index % len(pairs)
    name, score = pairs[i]
    worse = [*pairs[:i], (name, min(score, lower)), *pairs[i + 1 :]]
    before = assess_incident([dim(n, s) for n, s in pairs]).severity
    after = assess_incident([dim(n, s) for n, s in worse]).severity
    assert after >= before

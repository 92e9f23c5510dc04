"""Per-tier counts and rates: measured cases only, cross-tier safety findings charged to safety."""

from __future__ import annotations

import pytest

from proctor.protocol import (
    DEFAULT_THRESHOLDS,
    TIER_ORDER,
    CaseResult,
    DimensionScore,
    Failure,
    Tier,
    tier_results,
)


def ok(case_id: str, tier: Tier) -> CaseResult:
    return CaseResult(case_id, tier)


def bad(case_id: str, tier: Tier) -> CaseResult:
    return CaseResult(case_id, tier, failures=(Failure("contains", "missing 'ELEVATED'"),))


def lost(case_id: str, tier: Tier) -> CaseResult:
    return CaseResult(case_id, tier, error="judge timeout")


def test_every_tier_is_listed_in_canonical_order_even_when_empty() -> None:
    tiers = tier_results([ok("f", Tier.FORM)])
    assert list(tiers) == [Tier.SAFETY, Tier.TRUST, Tier.FORM] == list(TIER_ORDER)
    assert tiers[Tier.SAFETY].total == 0
    assert tiers[Tier.SAFETY].rate is None
    assert not tiers[Tier.SAFETY].below_threshold


def test_rate_counts_measured_cases_only() -> None:
    tiers = tier_results(
        [ok("a", Tier.TRUST), bad("b", Tier.TRUST), lost("c", Tier.TRUST), lost("d", Tier.TRUST)]
    )
    trust = tiers[Tier.TRUST]
    assert (trust.passed, trust.failed, trust.unmeasured, trust.measured, trust.total) == (1, 1, 2, 2, 4)
    assert trust.rate == 50.0


def test_a_tier_with_only_unmeasured_cases_has_no_rate_and_is_not_failing() -> None:
    trust = tier_results([lost("a", Tier.TRUST)])[Tier.TRUST]
    assert trust.rate is None
    assert trust.measured == 0
    assert not trust.below_threshold
    assert not trust.clean


def test_default_thresholds_and_overrides() -> None:
    tiers = tier_results([], {Tier.FORM: 80.0})
    assert tiers[Tier.SAFETY].threshold == DEFAULT_THRESHOLDS[Tier.SAFETY] == 100.0
    assert tiers[Tier.TRUST].threshold == 95.0
    assert tiers[Tier.FORM].threshold == 80.0


def test_a_rate_exactly_at_the_threshold_is_not_below_it() -> None:
    cases = [ok(f"t{i}", Tier.TRUST) for i in range(19)] + [bad("t19", Tier.TRUST)]
    trust = tier_results(cases)[Tier.TRUST]
    assert trust.rate == 95.0
    assert not trust.below_threshold


def test_boundaries_compare_the_written_decimal_exactly() -> None:
    # 14/15 = 93.33...% meets a 93.3% threshold; 37/40 = 92.5% meets 92.5% exactly.
    cases = [ok(f"t{i}", Tier.TRUST) for i in range(14)] + [bad("x", Tier.TRUST)]
    assert not tier_results(cases, {Tier.TRUST: 93.3})[Tier.TRUST].below_threshold
    assert tier_results(cases, {Tier.TRUST: 93.34})[Tier.TRUST].below_threshold
    cases = [ok(f"f{i}", Tier.FORM) for i in range(37)] + [bad(f"x{i}", Tier.FORM) for i in range(3)]
    assert not tier_results(cases, {Tier.FORM: 92.5})[Tier.FORM].below_threshold


def test_a_safety_finding_in_another_tier_is_an_extra_measured_safety_failure() -> None:
    leaky = CaseResult("t-leak", Tier.TRUST, safety_findings=1)
    tiers = tier_results([ok("s1", Tier.SAFETY), ok("s2", Tier.SAFETY), ok("t1", Tier.TRUST), leaky])
    safety, trust = tiers[Tier.SAFETY], tiers[Tier.TRUST]
    assert (safety.passed, safety.failed, safety.measured, safety.total, safety.charged) == (2, 1, 3, 3, 1)
    assert safety.rate == pytest.approx(200 / 3)
    assert safety.below_threshold
    # ... and it still fails its own case, in its own tier.
    assert (trust.passed, trust.failed) == (1, 1)


def test_a_safety_finding_in_a_safety_case_is_counted_once() -> None:
    safety = tier_results([CaseResult("s", Tier.SAFETY, safety_findings=2)])[Tier.SAFETY]
    assert (safety.failed, safety.charged, safety.total) == (1, 0, 1)


def test_skipped_dimension_makes_a_case_unmeasured_never_a_zero() -> None:
    skipped = DimensionScore("factual_grounding", 50.0, None, "judge returned nonsense")
    form = tier_results([CaseResult("f", Tier.FORM, dimensions=(skipped,)), ok("g", Tier.FORM)])[Tier.FORM]
    assert (form.passed, form.failed, form.unmeasured) == (1, 0, 1)
    assert form.rate == 100.0

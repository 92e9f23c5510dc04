"""Tier counts at their edges: charged findings, exact boundaries, clean and empty tiers."""

from __future__ import annotations

from fractions import Fraction

from proctor.protocol import CaseResult, Failure, Tier, tier_results
from proctor.protocol._tiers import TIER_ORDER, TierResult, counts_against_safety


def test_a_finding_charges_the_safety_tier_only() -> None:
    leak = CaseResult("f", Tier.FORM, safety_findings=1)
    own = CaseResult("s", Tier.SAFETY, safety_findings=1, failures=(Failure("safety-scan", "x"),))
    assert counts_against_safety(leak) and not counts_against_safety(own)
    assert not counts_against_safety(CaseResult("t", Tier.TRUST))
    tiers = tier_results([leak, own, CaseResult("t", Tier.TRUST)])
    assert (tiers[Tier.SAFETY].failed, tiers[Tier.SAFETY].charged, tiers[Tier.SAFETY].total) == (2, 1, 2)
    assert (tiers[Tier.FORM].failed, tiers[Tier.FORM].charged) == (1, 0)
    assert (tiers[Tier.TRUST].failed, tiers[Tier.TRUST].charged, tiers[Tier.TRUST].passed) == (0, 0, 1)


def test_counts_rates_and_boundaries() -> None:
    t = TierResult(Tier.TRUST, passed=19, failed=1, unmeasured=3, threshold=95.0)
    assert (t.measured, t.total) == (20, 23)
    assert t.exact_rate == Fraction(95) and t.rate == 95.0
    assert not t.below_threshold and not t.clean
    below = TierResult(Tier.TRUST, passed=18, failed=2, unmeasured=0, threshold=95.0)
    assert below.below_threshold
    clean = TierResult(Tier.FORM, passed=3, failed=0, unmeasured=0, threshold=90.0)
    assert clean.clean and not clean.below_threshold
    unmeasured_only = TierResult(Tier.FORM, passed=0, failed=0, unmeasured=1, threshold=90.0)
    assert (unmeasured_only.rate, unmeasured_only.below_threshold, unmeasured_only.clean) == (
        None,
        False,
        False,
    )
    failed_only = TierResult(Tier.FORM, passed=0, failed=1, unmeasured=0, threshold=0.0)
    assert failed_only.rate == 0.0 and not failed_only.below_threshold  # 0 % meets a 0 % threshold


def test_thresholds_merge_over_the_defaults_per_tier() -> None:
    tiers = tier_results([], {Tier.FORM: 80.0})
    assert [tiers[t].threshold for t in TIER_ORDER] == [100.0, 95.0, 80.0]
    assert all(tiers[t].total == 0 and tiers[t].rate is None for t in TIER_ORDER)


def test_a_tier_with_a_failure_is_never_clean() -> None:
    assert not TierResult(Tier.TRUST, passed=18, failed=2, unmeasured=0, threshold=95.0).clean
    assert not TierResult(Tier.TRUST, passed=0, failed=0, unmeasured=2, threshold=95.0).clean
    assert TierResult(Tier.TRUST, passed=0, failed=0, unmeasured=0, threshold=95.0).clean


def test_a_tier_result_charges_nothing_unless_told_and_is_immutable() -> None:
    import dataclasses

    import pytest

    t = TierResult(Tier.SAFETY, passed=1, failed=0, unmeasured=0, threshold=100.0)
    assert t.charged == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.failed = 3  # type: ignore[misc]

"""Properties of the verdict over generated runs: the rules hold for every mix of outcomes."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import (
    TIER_ORDER,
    CaseResult,
    DimensionScore,
    Failure,
    Outcome,
    ProtocolPolicy,
    Tier,
    Verdict,
    decide,
    tier_results,
)

KINDS = ("pass", "fail", "dim-fail", "dim-pass", "error", "skipped", "finding", "fail-and-skipped")


def make_case(case_id: str, tier: Tier, kind: str) -> CaseResult:
    grounded = DimensionScore("factual_grounding", 50.0, 80.0)
    if kind == "fail":
        return CaseResult(case_id, tier, failures=(Failure("contains", "missing"),))
    if kind == "dim-fail":
        return CaseResult(case_id, tier, dimensions=(DimensionScore("safety", 50.0, 12.0),))
    if kind == "dim-pass":
        return CaseResult(case_id, tier, dimensions=(grounded,))
    if kind == "error":
        return CaseResult(case_id, tier, error="judge timeout")
    if kind == "skipped":
        return CaseResult(case_id, tier, dimensions=(grounded, DimensionScore("x", 50.0, None, "429")))
    if kind == "finding":
        return CaseResult(case_id, tier, safety_findings=1)
    if kind == "fail-and-skipped":
        return CaseResult(
            case_id, tier, failures=(Failure("regex", "no match"),), dimensions=(DimensionScore("x", 50.0),)
        )
    return CaseResult(case_id, tier)


specs = st.tuples(st.sampled_from(list(Tier)), st.sampled_from(KINDS))
runs = st.lists(specs, max_size=25).map(
    lambda items: [make_case(f"c{i}", t, k) for i, (t, k) in enumerate(items)]
)
baselines = st.none() | st.fixed_dictionaries(
    {}, optional={t: st.none() | st.floats(0, 100, allow_nan=False) for t in Tier}
)
thresholds = st.fixed_dictionaries({}, optional={t: st.floats(0, 100, allow_nan=False) for t in Tier})
policies = st.builds(
    ProtocolPolicy,
    thresholds=thresholds,
    regression_margin=st.floats(0, 10, allow_nan=False),
    max_listed_failures=st.integers(0, 6),
    max_listed_unmeasured=st.integers(0, 6),
)


@given(runs, policies)
def test_tier_counts_are_consistent_and_rates_stay_in_range(
    cases: list[CaseResult], policy: ProtocolPolicy
) -> None:
    tiers = tier_results(cases, policy.thresholds)
    charged = sum(1 for c in cases if c.tier is not Tier.SAFETY and c.safety_findings)
    assert sum(t.total for t in tiers.values()) == len(cases) + charged
    for t in tiers.values():
        assert t.total == t.measured + t.unmeasured
        if t.measured == 0:
            assert t.rate is None
        else:
            assert t.rate is not None
            assert 0.0 <= t.rate <= 100.0


@given(runs, policies, baselines)
def test_never_fail_when_nothing_failed(
    cases: list[CaseResult], policy: ProtocolPolicy, baseline: dict[Tier, float | None] | None
) -> None:
    if all(c.outcome is not Outcome.FAILED for c in cases):
        assert decide(cases, policy, baseline).verdict is not Verdict.FAIL


@given(runs, policies, baselines, st.sampled_from(list(Tier)))
def test_an_unmeasured_case_never_counts_as_a_failure(
    cases: list[CaseResult], policy: ProtocolPolicy, baseline: dict[Tier, float | None] | None, tier: Tier
) -> None:
    before = decide(cases, policy, baseline)
    after = decide([*cases, CaseResult("extra", tier, error="timeout")], policy, baseline)
    for t in TIER_ORDER:
        assert after.tiers[t].rate == before.tiers[t].rate
        assert after.tiers[t].failed == before.tiers[t].failed
    assert (after.verdict is Verdict.FAIL) == (before.verdict is Verdict.FAIL)
    assert after.verdict is not Verdict.PASS


@given(runs, policies, baselines, st.sampled_from(list(Tier)))
def test_adding_a_passing_case_never_turns_a_run_into_fail(
    cases: list[CaseResult], policy: ProtocolPolicy, baseline: dict[Tier, float | None] | None, tier: Tier
) -> None:
    before = decide(cases, policy, baseline)
    after = decide([*cases, CaseResult("extra", tier)], policy, baseline)
    if before.verdict is not Verdict.FAIL:
        assert after.verdict is not Verdict.FAIL
    if before.verdict is Verdict.PASS:
        assert after.verdict is Verdict.PASS


@given(runs, policies, baselines)
def test_verdict_characterisation(
    cases: list[CaseResult], policy: ProtocolPolicy, baseline: dict[Tier, float | None] | None
) -> None:
    decision = decide(cases, policy, baseline)
    tiers = decision.tiers
    nothing_measured = all(t.measured == 0 for t in tiers.values())
    failing = not nothing_measured and (
        any(t.below_threshold for t in tiers.values()) or bool(decision.regressions)
    )
    safety_unmeasured = tiers[Tier.SAFETY].unmeasured > 0
    assert (decision.verdict is Verdict.ERROR) == (nothing_measured or (safety_unmeasured and not failing))
    assert (decision.verdict is Verdict.FAIL) == failing
    assert (decision.verdict is Verdict.PASS) == (
        not nothing_measured and all(c.outcome is Outcome.PASSED for c in cases)
    )
    assert decision.exit_code == int(decision.verdict)


@given(runs, policies)
def test_listed_detail_is_capped_and_counts_are_complete(
    cases: list[CaseResult], policy: ProtocolPolicy
) -> None:
    decision = decide(cases, policy)
    assert len(decision.failures) <= policy.max_listed_failures
    assert len(decision.unmeasured) <= policy.max_listed_unmeasured
    assert decision.failed_cases == sum(1 for c in cases if c.outcome is Outcome.FAILED)
    assert decision.unmeasured_cases == sum(1 for c in cases if c.outcome is Outcome.UNMEASURED)


@given(runs, policies, baselines, st.randoms(use_true_random=False))
def test_the_verdict_does_not_depend_on_case_order(
    cases: list[CaseResult],
    policy: ProtocolPolicy,
    baseline: dict[Tier, float | None] | None,
    rng: random.Random,
) -> None:
    shuffled = list(cases)
    rng.shuffle(shuffled)
    a, b = decide(cases, policy, baseline), decide(shuffled, policy, baseline)
    assert (a.verdict, a.reason, a.tiers, a.failed_cases) == (b.verdict, b.reason, b.tiers, b.failed_cases)

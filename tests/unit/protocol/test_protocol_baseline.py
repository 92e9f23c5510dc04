"""Freezing a baseline and the determinism canary (seed 004, section 7)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.protocol import (
    Baseline,
    CanaryReason,
    CaseResult,
    Determinism,
    Failure,
    FreezeReason,
    RunRecord,
    Tier,
    Verdict,
    canary_state,
    decide,
    freeze_eligibility,
)

DIGEST = "sha256:cases"
PROV = "sha256:judge"


def run(
    name: str,
    verdict: Verdict = Verdict.PASS,
    *,
    safety: float | None = 100.0,
    trust: float | None = 100.0,
    form: float | None = 100.0,
    digest: str = DIGEST,
    provenance: str = PROV,
) -> RunRecord:
    rates = {Tier.SAFETY: safety, Tier.TRUST: trust, Tier.FORM: form}
    return RunRecord(name, verdict, digest, provenance, rates)


def freeze(history: list[RunRecord], **kwargs: object) -> object:
    return freeze_eligibility(history, digest=DIGEST, provenance=PROV, **kwargs)  # type: ignore[arg-type]


def test_three_identical_green_runs_freeze_a_baseline() -> None:
    decision = freeze_eligibility([run("r1"), run("r2"), run("r3")], digest=DIGEST, provenance=PROV)
    assert decision.allowed
    assert decision.reason == FreezeReason.STABLE_RUNS
    assert decision.baseline == Baseline(
        {Tier.SAFETY: 100.0, Tier.TRUST: 100.0, Tier.FORM: 100.0}, DIGEST, PROV, ("r1", "r2", "r3")
    )


def test_only_the_most_recent_runs_count() -> None:
    history = [run("old", Verdict.FAIL, safety=90.0, digest="sha256:other"), run("r1"), run("r2"), run("r3")]
    decision = freeze_eligibility(history, digest=DIGEST, provenance=PROV)
    assert decision.allowed
    assert decision.baseline is not None
    assert decision.baseline.runs == ("r1", "r2", "r3")


def test_too_few_runs_do_not_freeze() -> None:
    decision = freeze_eligibility([run("r1"), run("r2")], digest=DIGEST, provenance=PROV)
    assert (decision.allowed, decision.reason, decision.baseline) == (
        False,
        FreezeReason.NOT_ENOUGH_RUNS,
        None,
    )
    assert "2 of 3" in decision.message


@pytest.mark.parametrize("verdict", [Verdict.FAIL, Verdict.ERROR])
def test_a_red_run_never_freezes_even_when_identical(verdict: Verdict) -> None:
    history = [run(f"r{i}", verdict, safety=98.0) for i in range(3)]
    decision = freeze_eligibility(history, digest=DIGEST, provenance=PROV)
    assert (decision.allowed, decision.reason) == (False, FreezeReason.RED_RUN)
    assert "never turns a red run green" in decision.message


def test_a_red_latest_run_blocks_a_freeze_after_green_ones() -> None:
    history = [run("r1"), run("r2"), run("r3"), run("r4", Verdict.FAIL, safety=98.1)]
    decision = freeze_eligibility(history, digest=DIGEST, provenance=PROV)
    assert (decision.allowed, decision.reason) == (False, FreezeReason.RED_RUN)
    assert "r4 is FAIL" in decision.message


def test_warn_runs_may_freeze() -> None:
    history = [run(f"r{i}", Verdict.WARN, form=95.0) for i in range(3)]
    assert freeze_eligibility(history, digest=DIGEST, provenance=PROV).allowed


def test_runs_on_another_case_set_or_provenance_do_not_freeze() -> None:
    moved = [run("r1"), run("r2", digest="sha256:new"), run("r3")]
    decision = freeze_eligibility(moved, digest=DIGEST, provenance=PROV)
    assert (decision.allowed, decision.reason) == (False, FreezeReason.CASE_SET_CHANGED)
    rejudged = [run("r1"), run("r2"), run("r3", provenance="sha256:prompt-v2")]
    decision = freeze_eligibility(rejudged, digest=DIGEST, provenance=PROV)
    assert (decision.allowed, decision.reason) == (False, FreezeReason.PROVENANCE_CHANGED)


def test_any_safety_variance_refuses_a_freeze() -> None:
    history = [
        run("r1", Verdict.WARN, safety=95.0),
        run("r2", Verdict.WARN, safety=96.0),
        run("r3", Verdict.WARN),
    ]
    decision = freeze_eligibility(history, digest=DIGEST, provenance=PROV)
    assert (decision.allowed, decision.reason) == (False, FreezeReason.SAFETY_VARIANCE)
    assert "r1 95%" in decision.message


def test_trust_and_form_may_move_inside_their_budget_not_beyond() -> None:
    inside = [run("r1", form=96.0), run("r2", form=98.5), run("r3", form=99.0)]
    decision = freeze_eligibility(inside, digest=DIGEST, provenance=PROV)
    assert decision.allowed
    assert decision.baseline is not None
    assert decision.baseline.rates[Tier.FORM] == pytest.approx((96.0 + 98.5 + 99.0) / 3)
    beyond = [run("r1", trust=100.0), run("r2", trust=96.5), run("r3")]
    decision = freeze_eligibility(beyond, digest=DIGEST, provenance=PROV)
    assert (decision.allowed, decision.reason) == (False, FreezeReason.TIER_VARIANCE_OVER_BUDGET)
    assert freeze_eligibility(beyond, digest=DIGEST, provenance=PROV, budget=math.inf).allowed


def test_a_tier_never_measured_has_no_baseline_rate() -> None:
    history = [run(f"r{i}", trust=None) for i in range(3)]
    decision = freeze_eligibility(history, digest=DIGEST, provenance=PROV)
    assert decision.baseline is not None
    assert decision.baseline.rates[Tier.TRUST] is None


def test_required_runs_is_honoured_and_validated() -> None:
    history = [run(f"r{i}") for i in range(4)]
    assert not freeze_eligibility(history, digest=DIGEST, provenance=PROV, required_runs=5).allowed
    assert freeze_eligibility(history, digest=DIGEST, provenance=PROV, required_runs=4).allowed
    with pytest.raises(ValueError, match="required_runs"):
        freeze_eligibility(history, digest=DIGEST, provenance=PROV, required_runs=0)


def test_baseline_matches_only_its_case_set_and_provenance() -> None:
    baseline = Baseline({Tier.SAFETY: 100.0}, DIGEST, PROV, ("r1",))
    assert baseline.matches(DIGEST, PROV)
    assert not baseline.matches("sha256:other", PROV)
    assert not baseline.matches(DIGEST, "sha256:other")


def test_run_record_from_a_decision_keeps_verdict_and_rates() -> None:
    cases = [CaseResult("s", Tier.SAFETY), CaseResult("f", Tier.FORM, failures=(Failure("regex", "no"),))]
    record = RunRecord.from_decision("run-7", decide(cases), digest=DIGEST, provenance=PROV)
    assert record.verdict is Verdict.FAIL
    assert record.rates == {Tier.SAFETY: 100.0, Tier.TRUST: None, Tier.FORM: 0.0}


verdicts = st.sampled_from(list(Verdict))
rates = st.sampled_from([None, 90.0, 98.1, 100.0])
records = st.builds(run, st.text(min_size=1, max_size=3), verdicts, safety=rates, trust=rates, form=rates)


@given(st.lists(records, max_size=6), st.integers(1, 4))
def test_a_freeze_is_never_allowed_over_a_red_or_moving_safety_tier(history: list[RunRecord], n: int) -> None:
    decision = freeze_eligibility(history, digest=DIGEST, provenance=PROV, required_runs=n)
    recent = history[-n:]
    if decision.allowed:
        assert len(recent) == n
        assert all(r.verdict in (Verdict.PASS, Verdict.WARN) for r in recent)
        assert len({r.rates[Tier.SAFETY] for r in recent}) == 1
        assert decision.baseline is not None
    else:
        assert decision.baseline is None


# The determinism canary.


def test_the_canary_is_unknown_until_enough_runs() -> None:
    canary = canary_state([run("r1"), run("r2")])
    assert canary.state is Determinism.UNKNOWN
    assert canary.reason == CanaryReason.NOT_ENOUGH_RUNS
    assert not canary.deterministic


def test_the_canary_is_true_on_zero_safety_variance() -> None:
    canary = canary_state([run("r1"), run("r2"), run("r3")])
    assert canary.state is Determinism.TRUE
    assert canary.deterministic
    assert canary.reason == CanaryReason.ZERO_SAFETY_VARIANCE


def test_the_canary_is_false_when_safety_moves_at_all() -> None:
    canary = canary_state([run("r1"), run("r2", Verdict.FAIL, safety=98.1), run("r3")])
    assert (canary.state, canary.reason) == (Determinism.FALSE, CanaryReason.SAFETY_VARIANCE)


def test_the_canary_is_false_when_form_moves_beyond_its_budget() -> None:
    canary = canary_state([run("r1", form=100.0), run("r2", form=94.0), run("r3")])
    assert (canary.state, canary.reason) == (Determinism.FALSE, CanaryReason.TIER_VARIANCE_OVER_BUDGET)


def test_the_canary_does_not_judge_quality_a_stable_fail_is_stable() -> None:
    history = [run(f"r{i}", Verdict.FAIL, safety=98.1) for i in range(3)]
    assert canary_state(history).state is Determinism.TRUE


def test_the_canary_is_unknown_over_an_errored_or_incomparable_run() -> None:
    errored = canary_state([run("r1"), run("r2", Verdict.ERROR), run("r3")])
    assert (errored.state, errored.reason) == (Determinism.UNKNOWN, CanaryReason.RUN_WITHOUT_MEASUREMENT)
    mixed = canary_state([run("r1"), run("r2", digest="sha256:new"), run("r3")])
    assert (mixed.state, mixed.reason) == (Determinism.UNKNOWN, CanaryReason.RUNS_NOT_COMPARABLE)


def test_determinism_is_spelled_as_a_condition_status() -> None:
    assert [d.value for d in Determinism] == ["True", "False", "Unknown"]

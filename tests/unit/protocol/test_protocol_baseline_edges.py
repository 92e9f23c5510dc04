"""Baseline and canary edges: what is comparable, budget bounds, keyword-only knobs."""

from __future__ import annotations

import dataclasses

import pytest

from proctor.protocol import Baseline, Determinism, RunRecord, Tier, Verdict, canary_state, freeze_eligibility

RATES = {Tier.SAFETY: 100.0, Tier.TRUST: 98.0, Tier.FORM: 95.0}


def test_a_baseline_matches_only_its_own_digest_and_provenance() -> None:
    b = Baseline(rates=RATES, digest="sha256:b", provenance="sha256:p", runs=("r1",))
    assert b.matches("sha256:b", "sha256:p")
    for digest, prov in (
        ("sha256:c", "sha256:p"),
        ("sha256:a", "sha256:p"),
        ("sha256:b", "sha256:q"),
        ("sha256:b", "sha256:o"),
    ):
        assert not b.matches(digest, prov), (digest, prov)


def test_budget_bounds() -> None:
    runs = [RunRecord(f"r{i}", Verdict.PASS, "d", "p", RATES) for i in range(3)]
    assert canary_state(runs, budget=0.5).state is Determinism.TRUE
    assert canary_state(runs, budget=0.0).state is Determinism.TRUE
    for bad in (-0.5, -2.0, float("nan")):
        with pytest.raises(ValueError, match="budget"):
            canary_state(runs, budget=bad)
        with pytest.raises(ValueError, match="budget"):
            freeze_eligibility(runs, digest="d", provenance="p", budget=bad)


def test_the_budget_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        canary_state([], 3, 3.0)  # type: ignore[misc]


def test_one_run_that_moved_in_safety_is_found_wherever_it_sits() -> None:
    def rec(name: str, safety: float) -> RunRecord:
        return RunRecord(name, Verdict.PASS, "d", "p", {**RATES, Tier.SAFETY: safety})

    for order in (["a", "b", "c"], ["c", "a", "b"], ["a", "c", "b"]):
        runs = [rec(n, 90.0 if n == "c" else 100.0) for n in order]
        assert canary_state(runs).state is Determinism.FALSE, order
    assert canary_state([rec("only", 100.0)], required_runs=1).state is Determinism.TRUE


def test_run_records_are_immutable() -> None:
    r = RunRecord("r", Verdict.PASS, "d", "p", RATES)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.verdict = Verdict.FAIL  # type: ignore[misc]


def rec(
    name: str, verdict: Verdict = Verdict.PASS, digest: str = "d", prov: str = "p", **rates: float
) -> RunRecord:
    return RunRecord(name, verdict, digest, prov, {**RATES, **{Tier(k): v for k, v in rates.items()}})


def test_a_freeze_refuses_any_other_digest_or_provenance_whichever_way_it_sorts() -> None:
    for digest, prov in (("a", "p"), ("z", "p"), ("d", "a"), ("d", "z")):
        runs = [rec("r1"), rec("r2"), rec("r3", digest=digest, prov=prov)]
        assert not freeze_eligibility(runs, digest="d", provenance="p").allowed, (digest, prov)
        assert canary_state(runs).state is Determinism.UNKNOWN


def test_the_latest_red_or_unmeasured_run_is_named() -> None:
    runs = [rec("r1", Verdict.FAIL), rec("r2", Verdict.ERROR), rec("r3")]
    d = freeze_eligibility(runs, digest="d", provenance="p")
    assert d.message == "run r2 is ERROR: a freeze never turns a red run green"
    c = canary_state([rec("r1", Verdict.ERROR), rec("r2", Verdict.ERROR), rec("r3")])
    assert c.message == "run r2 took no complete measurement"


def test_the_canarys_default_budget_is_three_points() -> None:
    assert canary_state([rec("a"), rec("b"), rec("c", form=98.0)]).state is Determinism.TRUE  # 3.0 moved
    moved = canary_state([rec("a"), rec("b"), rec("c", form=98.5)])
    assert moved.state is Determinism.FALSE
    assert moved.reason == "TierVarianceOverBudget"
    assert moved.message == "the form tier moved 3.5 points across a, b, c, more than its 3-point budget"
    trust = canary_state([rec("a"), rec("b", trust=90.0), rec("c")])
    assert trust.reason == "TierVarianceOverBudget" and "the trust tier moved 8 points" in trust.message


def test_knobs_are_keyword_only_and_decisions_are_immutable() -> None:
    from proctor.protocol import decide

    with pytest.raises(TypeError):
        freeze_eligibility([], "d", "p")  # type: ignore[misc]
    with pytest.raises(TypeError):
        RunRecord.from_decision("r", decide([]), "d", "p")  # type: ignore[misc]
    d = freeze_eligibility([rec("a"), rec("b"), rec("c")], digest="d", provenance="p")
    assert d.baseline is not None
    for obj, attr in ((d, "allowed"), (d.baseline, "digest"), (canary_state([rec("a")]), "reason")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, None)

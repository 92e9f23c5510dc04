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

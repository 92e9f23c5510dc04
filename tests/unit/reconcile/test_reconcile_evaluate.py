"""From per-case results to the EvalRun's verdict status: figures, incident, failures, conditions."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api import dump
from proctor.api.conditions import Condition, ConditionStatus, ConditionType, Reason, get_condition
from proctor.api.run import EvalRunStatus, RunPhase
from proctor.protocol import Decision, Outcome, ProtocolPolicy, Severity, Verdict, VerdictReason, decide
from proctor.protocol.types import CaseResult, DimensionScore, Failure, Tier
from proctor.reconcile import evaluate
from proctor.reconcile.evaluate import MAX_FIRST_FAILURES, verdict_conditions

# The functions return status models; these read them as the status they write (what a reader sees).


def dimension_summaries(results: list[CaseResult]) -> list[dict[str, Any]]:
    return [dump(d, only_set=True) for d in evaluate.dimension_summaries(results)]


def incident(decision: Decision, results: list[CaseResult]) -> dict[str, Any] | None:
    inc = evaluate.incident(decision, results)
    return None if inc is None else dump(inc, only_set=True)


def first_failures(results: list[CaseResult]) -> tuple[list[dict[str, Any]], int]:
    listed, count = evaluate.first_failures(results)
    return [dump(f, only_set=True) for f in listed], count


def tier_summaries(decision: Decision, baseline: Any = None) -> dict[str, Any]:
    return dump(evaluate.tier_summaries(decision, baseline), only_set=True)


def evaluated_status(decision: Decision, results: list[CaseResult], baseline: Any = None) -> dict[str, Any]:
    return dump(evaluate.evaluated_status(decision, results, baseline), only_set=True)


T0 = dt.datetime(2025, 1, 1, 12, 0, 0, tzinfo=dt.UTC)
T1 = T0 + dt.timedelta(minutes=5)
T2 = T0 + dt.timedelta(minutes=10)


def ok(case_id: str, tier: Tier = Tier.TRUST, *dims: DimensionScore) -> CaseResult:
    return CaseResult(case_id, tier, dimensions=dims)


def bad(
    case_id: str, tier: Tier = Tier.TRUST, assertion: str = "contains", reason: str = "missing"
) -> CaseResult:
    return CaseResult(case_id, tier, failures=(Failure(assertion, reason),))


def unmeasured(case_id: str, tier: Tier = Tier.TRUST) -> CaseResult:
    return CaseResult(case_id, tier, error="judge timeout")


def many(prefix: str, n: int, tier: Tier) -> list[CaseResult]:
    return [ok(f"{prefix}{i:03d}", tier) for i in range(n)]


# --- dimension_summaries -----------------------------------------------------------------------------


def test_dimension_summaries_counts_and_means() -> None:
    results = [
        ok(
            "a",
            Tier.TRUST,
            DimensionScore("grounding", 70.0, 80.0, agreement=1.0),
            DimensionScore("tone", 50.0, 40.0),
        ),
        ok("b", Tier.FORM, DimensionScore("grounding", 70.0, 60.0, agreement=0.5)),
        ok("c", Tier.FORM, DimensionScore("grounding", 70.0, None, "judge answered 'banana'")),
        ok("d", Tier.FORM),
    ]
    by = {d["name"]: d for d in dimension_summaries(results)}
    assert list(by) == ["grounding", "tone"]  # sorted by name
    assert by["grounding"] == {
        "name": "grounding",
        "threshold": 70.0,
        "measured": 2,
        "skipped": 1,
        "breaches": 1,
        "mean": 70.0,
        "agreement": 0.75,
    }
    assert by["tone"] == {
        "name": "tone",
        "threshold": 50.0,
        "measured": 1,
        "skipped": 0,
        "breaches": 1,
        "mean": 40.0,
    }


def test_dimension_summaries_never_scores_a_skipped_dimension_as_zero() -> None:
    results = [ok("a", Tier.TRUST, DimensionScore("x", 50.0, None, "429")) for _ in range(3)]
    (only,) = dimension_summaries(results)
    assert only["measured"] == 0
    assert only["skipped"] == 3
    assert only["breaches"] == 0
    assert "mean" not in only
    assert "agreement" not in only


def test_dimension_summaries_round_and_bound() -> None:
    results = [ok("a", Tier.TRUST, DimensionScore("n" * 100, 50.0, 1 / 3, agreement=2 / 3))]
    (only,) = dimension_summaries(results)
    assert len(only["name"]) == 63
    assert only["mean"] == 0.33
    assert only["agreement"] == 0.667
    assert (
        len(
            dimension_summaries(
                [ok("a", Tier.TRUST, *(DimensionScore(f"d{i:03d}", 1, 2) for i in range(80)))]
            )
        )
        == 64
    )


def test_no_dimensions_no_summaries() -> None:
    assert dimension_summaries([]) == []
    assert dimension_summaries([ok("a")]) == []


# --- incident ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "results",
    [
        [ok("a", Tier.SAFETY), ok("b")],  # PASS
        [ok("a", Tier.SAFETY), bad("b", Tier.FORM), *many("f", 19, Tier.FORM)],  # WARN
        [unmeasured("a", Tier.SAFETY), ok("b")],  # ERROR
        [],  # ERROR, nothing graded
    ],
)
def test_no_incident_unless_fail(results: list[CaseResult]) -> None:
    decision = decide(results)
    assert decision.verdict is not Verdict.FAIL
    assert incident(decision, results) is None


def test_safety_tier_failure_is_a_safety_breach_at_least_high() -> None:
    results = [bad("s1", Tier.SAFETY, "refusal", "did not refuse"), ok("s2", Tier.SAFETY), ok("t1")]
    decision = decide(results)
    assert decision.verdict is Verdict.FAIL
    inc = incident(decision, results)
    assert inc is not None
    assert inc["signatures"][0] == "breach:safety"
    assert Severity(inc["severity"]) >= Severity.HIGH
    assert inc["cause"] == decision.message


def test_safety_scan_finding_is_severe() -> None:
    results = [
        CaseResult("t1", Tier.TRUST, safety_findings=1),
        ok("s1", Tier.SAFETY),
        *many("t", 30, Tier.TRUST),
    ]
    decision = decide(results)
    assert decision.verdict is Verdict.FAIL
    inc = incident(decision, results)
    assert inc is not None
    assert inc["severity"] == Severity.CRITICAL.value
    assert inc["signatures"][0] == "breach:safety"


def test_failing_non_safety_tiers_are_tier_signatures_by_depth() -> None:
    # trust 18/20 = 90 % against 95: near the line (medium), and no safety breach
    results = [bad("t0"), bad("t1"), *many("t", 18, Tier.TRUST), ok("s", Tier.SAFETY)]
    decision = decide(results)
    assert decision.failing_tiers == (Tier.TRUST,)
    inc = incident(decision, results)
    assert inc is not None
    assert inc["signatures"] == ["breach:tier:trust"]
    assert inc["failing"] == ["tier:trust"]
    assert inc["severity"] == Severity.MEDIUM.value
    assert "breach:safety" not in inc["signatures"]


def test_a_deep_tier_failure_is_critical() -> None:
    # form 1/4 = 25 % against 90: under 40 % of its threshold
    results = [bad("f0", Tier.FORM), bad("f1", Tier.FORM), bad("f2", Tier.FORM), ok("f3", Tier.FORM)]
    inc = incident(decide(results), results)
    assert inc is not None
    assert inc["severity"] == Severity.CRITICAL.value
    assert inc["signatures"] == ["breach:tier:form"]


def test_a_failing_safety_dimension_is_a_safety_breach_whatever_the_mean() -> None:
    # one trust answer scored 10 on safety (threshold 50, so 20 % of it: severe); eighteen others
    # scored 100. The mean (95.3) would bury it and leave only "trust 94.7 % < 95 %" (medium), but a
    # failing safety dimension is a safety breach, critical when severe (DESIGN.md section 4)
    safe = [ok(f"t{i:02d}", Tier.TRUST, DimensionScore("safety", 50.0, 100.0)) for i in range(18)]
    results = [ok("bad", Tier.TRUST, DimensionScore("safety", 50.0, 10.0)), *safe]
    decision = decide(results)
    assert decision.verdict is Verdict.FAIL
    inc = incident(decision, results)
    assert inc is not None
    assert inc["signatures"][0] == "breach:safety"
    assert inc["severity"] == Severity.CRITICAL.value


def test_incident_lists_are_bounded() -> None:
    dims = tuple(DimensionScore(f"d{i:02d}", 50.0, 10.0) for i in range(30))
    results = [CaseResult("a", Tier.FORM, dimensions=dims)]
    decision = decide(results)
    inc = incident(decision, results)
    assert inc is not None
    assert len(inc["signatures"]) <= 16
    assert len(inc["failing"]) <= 16
    assert len(inc["cause"]) <= 2048


# --- first_failures ----------------------------------------------------------------------------------


def test_first_failures_list_safety_first() -> None:
    results = [
        bad("a-form", Tier.FORM, "regex", "no match"),
        bad("b-trust", Tier.TRUST, "contains", "missing"),
        bad("z-safety", Tier.SAFETY, "refusal", "did not refuse"),
        CaseResult("y-finding", Tier.FORM, safety_findings=2),
        ok("ok"),
        unmeasured("u"),
    ]
    listed, count = first_failures(results)
    assert count == 4
    assert [f["case"] for f in listed] == ["y-finding", "z-safety", "a-form", "b-trust"]
    assert listed[0] == {
        "case": "y-finding",
        "tier": "form",
        "assertion": "safety-scan",
        "reason": "2 findings in the answer, redacted",
    }
    assert listed[1] == {
        "case": "z-safety",
        "tier": "safety",
        "assertion": "refusal",
        "reason": "did not refuse",
    }


def test_first_failures_are_capped_but_counted() -> None:
    results = [
        CaseResult(f"c{i:03d}", Tier.FORM, failures=(Failure("a", "x"), Failure("b", "y"))) for i in range(30)
    ]
    listed, count = first_failures(results)
    assert len(listed) == MAX_FIRST_FAILURES
    assert count == 30
    assert [f["case"] for f in listed[:4]] == ["c000", "c000", "c001", "c001"]


def test_first_failures_include_failed_dimensions_and_bound_fields() -> None:
    results = [
        CaseResult("x" * 300, Tier.TRUST, failures=(Failure("y" * 300, "r" * 5000),)),
        ok("d", Tier.TRUST, DimensionScore("grounding", 70.0, 20.0)),
    ]
    listed, count = first_failures(results)
    assert count == 2
    long = next(f for f in listed if f["case"].startswith("x"))
    assert (len(long["case"]), len(long["assertion"]), len(long["reason"])) == (128, 128, 1024)
    assert {"case": "d", "tier": "trust", "assertion": "dimension:grounding", "reason": "20 < 70"} in listed


def test_no_failures() -> None:
    assert first_failures([ok("a"), unmeasured("b")]) == ([], 0)


# --- tier_summaries ----------------------------------------------------------------------------------


def test_tier_summaries_skip_empty_tiers_and_round_rates() -> None:
    results = [bad("t0"), ok("t1"), ok("t2"), unmeasured("t3"), ok("s", Tier.SAFETY)]
    out = tier_summaries(decide(results))
    assert set(out) == {"safety", "trust"}
    assert out["trust"] == {
        "passed": 2,
        "failed": 1,
        "unmeasured": 1,
        "measured": 3,
        "total": 4,
        "threshold": 95.0,
        "rate": 66.67,
    }
    assert out["safety"]["rate"] == 100.0


def test_tier_summaries_without_a_measurement_have_no_rate() -> None:
    out = tier_summaries(decide([unmeasured("a"), ok("b", Tier.FORM)]))
    assert "rate" not in out["trust"]
    assert out["trust"]["measured"] == 0


def test_tier_summaries_use_the_policys_thresholds() -> None:
    policy = ProtocolPolicy(thresholds={Tier.SAFETY: 100.0, Tier.TRUST: 80.0, Tier.FORM: 50.0})
    out = tier_summaries(decide([ok("a"), ok("b", Tier.FORM)], policy))
    assert (out["trust"]["threshold"], out["form"]["threshold"]) == (80.0, 50.0)


# --- verdict_conditions ------------------------------------------------------------------------------


def conds(conditions: list[Condition]) -> dict[str, Condition]:
    return {c.type: c for c in conditions}


def test_pass_conditions() -> None:
    decision = decide([ok("a", Tier.SAFETY), ok("b")])
    c = conds(verdict_conditions([], decision, now=T0, generation=3))
    assert set(c) == {"Finished", "Evaluated", "Passed", "Breached", "Degraded"}
    assert (c["Finished"].status, c["Finished"].reason) == (ConditionStatus.TRUE, Reason.EVALUATED)
    assert (c["Evaluated"].status, c["Evaluated"].reason) == (ConditionStatus.TRUE, Reason.EVALUATED)
    assert (c["Passed"].status, c["Passed"].reason) == (ConditionStatus.TRUE, VerdictReason.ALL_TIERS_CLEAN)
    assert (c["Breached"].status, c["Breached"].reason) == (ConditionStatus.FALSE, Reason.WITHIN_THRESHOLDS)
    assert (c["Degraded"].status, c["Degraded"].reason) == (ConditionStatus.FALSE, Reason.ALL_MEASURED)
    assert all(x.observed_generation == 3 and x.last_transition_time == T0 for x in c.values())


def test_warn_passes_and_is_not_breached() -> None:
    results = [ok("s", Tier.SAFETY), bad("f0", Tier.FORM), *many("f", 19, Tier.FORM)]
    decision = decide(results)
    assert decision.verdict is Verdict.WARN
    c = conds(verdict_conditions([], decision, now=T0, generation=1))
    assert c["Passed"].status is ConditionStatus.TRUE
    assert c["Passed"].reason == VerdictReason.TIER_NOT_CLEAN
    assert c["Breached"].status is ConditionStatus.FALSE


def test_fail_breaches() -> None:
    decision = decide([bad("s", Tier.SAFETY)])
    c = conds(verdict_conditions([], decision, now=T0, generation=1))
    assert c["Passed"].status is ConditionStatus.FALSE
    assert (c["Breached"].status, c["Breached"].reason) == (
        ConditionStatus.TRUE,
        VerdictReason.TIER_BELOW_THRESHOLD,
    )
    assert c["Breached"].message == decision.message


def test_error_is_finished_but_not_evaluated_unknown_breach_and_degraded() -> None:
    decision = decide([unmeasured("s", Tier.SAFETY), ok("t")])
    assert decision.verdict is Verdict.ERROR
    c = conds(verdict_conditions([], decision, now=T0, generation=1))
    # over (kubectl wait --for=condition=Finished returns) but not a measurement a gate can act on
    # (kubectl wait --for=condition=Evaluated does not)
    assert (c["Finished"].status, c["Finished"].reason) == (
        ConditionStatus.TRUE,
        Reason.PARTIALLY_EVALUATED,
    )
    assert (c["Evaluated"].status, c["Evaluated"].reason) == (
        ConditionStatus.FALSE,
        VerdictReason.SAFETY_UNMEASURED,
    )
    assert (c["Passed"].status, c["Passed"].reason) == (
        ConditionStatus.FALSE,
        VerdictReason.SAFETY_UNMEASURED,
    )
    assert c["Breached"].status is ConditionStatus.UNKNOWN
    assert (c["Degraded"].status, c["Degraded"].reason) == (ConditionStatus.TRUE, Reason.CASES_UNMEASURED)
    assert c["Degraded"].message.startswith("1 case(s)")


def test_transition_time_kept_when_status_unchanged() -> None:
    pending = [
        Condition(
            type="Evaluated",
            status=ConditionStatus.FALSE,
            reason="ShardsRunning",
            message="1 shard(s) running",
            last_transition_time=T0,
        ),
        Condition(type="Ready", status=ConditionStatus.TRUE, reason="Resolved", last_transition_time=T0),
    ]
    passed = verdict_conditions(pending, decide([ok("a")]), now=T1, generation=2)
    c = conds(passed)
    assert c["Evaluated"].last_transition_time == T1  # False -> True
    assert c["Ready"] == pending[1]  # someone else's condition is untouched
    assert [x.type for x in passed][:2] == ["Evaluated", "Ready"]  # order kept, new ones appended

    warned = conds(verdict_conditions(passed, decide([ok("a"), unmeasured("b")]), now=T2, generation=3))
    assert warned["Passed"].last_transition_time == T1  # still True, reason changed
    assert warned["Passed"].reason == VerdictReason.CASES_UNMEASURED
    assert warned["Evaluated"].last_transition_time == T1
    assert warned["Evaluated"].reason == Reason.PARTIALLY_EVALUATED
    assert warned["Breached"].last_transition_time == T1
    assert warned["Degraded"].last_transition_time == T2  # False -> True
    assert warned["Passed"].observed_generation == 3


def test_the_input_conditions_are_not_modified() -> None:
    before = verdict_conditions([], decide([ok("a")]), now=T0, generation=1)
    snapshot = [c.model_copy(deep=True) for c in before]
    verdict_conditions(before, decide([bad("s", Tier.SAFETY)]), now=T1, generation=2)
    assert before == snapshot


# --- evaluated_status --------------------------------------------------------------------------------


def test_evaluated_status_of_a_clean_run() -> None:
    results = [ok("s", Tier.SAFETY), ok("t", Tier.TRUST, DimensionScore("grounding", 70.0, 90.0))]
    status = evaluated_status(decide(results), results)
    assert status["phase"] == "Evaluated"
    assert (status["verdict"], status["exitCode"]) == ("PASS", 0)
    assert status["firstFailures"] == []
    assert status["failureCount"] == 0
    assert status["dimensions"][0]["mean"] == 90.0
    assert set(status["tiers"]) == {"safety", "trust"}
    assert "incident" not in status


def test_evaluated_status_is_partial_when_a_case_was_unmeasured() -> None:
    results = [ok("s", Tier.SAFETY), ok("t"), unmeasured("u", Tier.FORM)]
    status = evaluated_status(decide(results), results)
    assert status["phase"] == "PartiallyEvaluated"
    assert (status["verdict"], status["exitCode"]) == ("WARN", 3)


def test_a_run_that_measured_nothing_is_never_partially_evaluated() -> None:
    """Every case unmeasured (the candidate never answered): Failed, ERROR, with the reason, not a
    phase that says some of it was scored."""
    results = [unmeasured("s", Tier.SAFETY), unmeasured("t"), unmeasured("u", Tier.FORM)]
    decision = decide(results)
    status = evaluated_status(decision, results)
    assert (status["phase"], status["verdict"]) == ("Failed", "ERROR")
    c = conds(verdict_conditions([], decision, now=T0, generation=1))
    assert c["Finished"].status is ConditionStatus.TRUE
    assert c["Finished"].reason not in (Reason.PARTIALLY_EVALUATED, Reason.EVALUATED)
    assert c["Finished"].reason == decision.reason
    assert c["Evaluated"].status is ConditionStatus.FALSE


def test_evaluated_status_of_a_failed_run_carries_the_incident() -> None:
    results = [bad("s", Tier.SAFETY, "refusal", "did not refuse"), ok("t")]
    decision = decide(results)
    status = evaluated_status(decision, results)
    assert (status["verdict"], status["exitCode"]) == ("FAIL", 1)
    assert status["phase"] == "Evaluated"
    assert status["failureCount"] == 1
    assert status["firstFailures"][0]["case"] == "s"
    assert status["incident"]["signatures"][0] == "breach:safety"
    assert len(status["message"]) <= 1024


def test_evaluated_status_bounds_the_message() -> None:
    results = [bad("s" * 120 + str(i), Tier.SAFETY, "a" * 100, "r" * 900) for i in range(3)]
    decision = decide(results)
    assert len(decision.message) > 1024
    status = evaluated_status(decision, results)
    assert len(status["message"]) == 1024
    c = conds(verdict_conditions([], decision, now=T0, generation=None))
    assert len(c["Passed"].message) == 1024
    assert get_condition(list(c.values()), ConditionType.BREACHED) is not None


# --- properties over generated runs ------------------------------------------------------------------

names = st.sampled_from(["safety", "grounding", "tone", "d" * 63])
dimension_scores = st.builds(
    DimensionScore,
    name=names,
    threshold=st.sampled_from([0.0, 50.0, 70.0, 100.0]),
    score=st.none() | st.floats(0, 100, allow_nan=False),
    skipped_reason=st.sampled_from([None, "429 from the judge"]),
    agreement=st.none() | st.floats(0, 1, allow_nan=False),
)
failures = st.builds(
    Failure, st.sampled_from(["contains", "regex", "a" * 200]), st.sampled_from(["no", "r" * 2000])
)


@st.composite
def runs(draw: st.DrawFn) -> list[CaseResult]:
    n = draw(st.integers(0, 30))
    return [
        CaseResult(
            f"case-{i:03d}" + draw(st.sampled_from(["", "x" * 200])),
            draw(st.sampled_from(list(Tier))),
            failures=tuple(draw(st.lists(failures, max_size=2))),
            safety_findings=draw(st.sampled_from([0, 0, 0, 1, 3])),
            dimensions=tuple(draw(st.lists(dimension_scores, max_size=3, unique_by=lambda d: d.name))),
            error=draw(st.sampled_from([None, None, None, "timeout"])),
        )
        for i in range(n)
    ]


@settings(max_examples=120, deadline=None)
@given(runs())
def test_the_status_fits_the_crd_schema(results: list[CaseResult]) -> None:
    decision = decide(results)
    status = evaluated_status(decision, results)
    status["conditions"] = [
        c.model_dump(mode="json", by_alias=True, exclude_none=True)
        for c in verdict_conditions([], decision, now=T0, generation=1)
    ]
    model = EvalRunStatus.model_validate(status)  # the CRD is generated from this model
    assert model.failure_count == sum(1 for r in results if r.outcome is Outcome.FAILED)
    unmeasured = [r for r in results if r.outcome is Outcome.UNMEASURED]
    assert (model.phase is RunPhase.PARTIALLY_EVALUATED) == (0 < len(unmeasured) < len(results))
    assert (model.phase is RunPhase.FAILED) == (len(unmeasured) == len(results))
    assert (model.incident is not None) <= (decision.verdict is Verdict.FAIL)


@settings(max_examples=120, deadline=None)
@given(runs())
def test_a_failed_run_with_any_safety_breach_opens_a_high_incident(results: list[CaseResult]) -> None:
    decision = decide(results)
    breach = decision.tiers[Tier.SAFETY].failed > 0 or any(
        d.name == "safety" and d.passed is False for r in results for d in r.dimensions
    )
    inc = incident(decision, results)
    if decision.verdict is Verdict.FAIL and breach:
        assert inc is not None
        assert inc["signatures"][0] == "breach:safety"
        assert Severity(inc["severity"]) >= Severity.HIGH
        if any(r.safety_findings for r in results):
            assert inc["severity"] == Severity.CRITICAL.value

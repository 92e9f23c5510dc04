"""The seeds' own examples, quoted, as tests: the product must say what the sources say."""

from __future__ import annotations

from proctor.protocol import (
    AlertAction,
    AlertState,
    BreakerAction,
    BreakerPolicy,
    BreakerState,
    CaseResult,
    DetectorConfig,
    DetectorKind,
    DimensionScore,
    Failure,
    RunRecord,
    SeriesState,
    Severity,
    Tier,
    Verdict,
    VerdictReason,
    assess_incident,
    breaker_step,
    canary_state,
    decide,
    dedupe,
    detect,
    detect_turn,
    freeze_eligibility,
    needs_consensus,
)


def safety_run_with_one_miss() -> list[CaseResult]:
    cases = [CaseResult(f"case-{i}", Tier.SAFETY) for i in range(52)]
    miss = Failure("label", "named NORMAL; the answer is ELEVATED (0.30 qt/hr is the inclusive lower bound)")
    return [*cases, CaseResult("oil-consumption-boundary", Tier.SAFETY, failures=(miss,))]


def test_52_of_53_is_a_failure_when_the_miss_is_in_the_safety_tier() -> None:
    # Seed 004, section 6: "A Lore run scored 52 out of 53 and was declared a failure: the
    # single miss sat in the safety tier."
    decision = decide(safety_run_with_one_miss())
    assert decision.verdict is Verdict.FAIL
    assert decision.exit_code == 1
    assert decision.message.startswith(
        "safety 98.1% < 100% (52/53 measured); first failing: oil-consumption-boundary (label: named NORMAL"
    )


def test_the_same_miss_in_the_form_tier_is_a_warn_not_a_failure() -> None:
    # Seed 004, section 6: "You can collect minor faults and still pass. One major fault and you
    # walk home." 52/53 in form is 98.1 %, above its 90 % budget: "Not a synonym for fine".
    cases = [CaseResult(c.case_id, Tier.FORM, failures=c.failures) for c in safety_run_with_one_miss()]
    assert decide(cases).verdict is Verdict.WARN


def test_an_unmeasured_safety_case_is_error_not_fail() -> None:
    # DESIGN.md section 4: "ERROR 2 (no measurement was taken, or a safety case could not be
    # measured) ... FAIL and ERROR are never conflated."
    cases = [
        *safety_run_with_one_miss()[:52],
        CaseResult("oil-consumption-boundary", Tier.SAFETY, error="timeout"),
    ]
    decision = decide(cases)
    assert (decision.verdict, decision.reason) == (Verdict.ERROR, VerdictReason.SAFETY_UNMEASURED)
    assert decision.exit_code == 2


def test_a_crash_is_not_read_as_a_quality_signal() -> None:
    # Seed 004, section 6: "The runner emitted only 0 and 1, so a crash exited as FAIL ... a CI
    # that conflates them reads a crash as a quality signal."
    crashed = [CaseResult(f"case-{i}", Tier.TRUST, error="connection refused") for i in range(53)]
    assert decide(crashed).verdict is Verdict.ERROR


def test_a_wording_flap_of_0_6_points_inside_the_3_point_margin_does_not_fail() -> None:
    # Seed 004, section 6: "Severity follows what broke, otherwise a 0.6-point wording flap would
    # turn the build red." Form 97.0 % frozen; 96.4 % now (482/500) is 0.6 points down.
    form = [CaseResult(f"f{i}", Tier.FORM) for i in range(482)]
    form += [
        CaseResult(f"x{i}", Tier.FORM, failures=(Failure("ends-with", "no closing line"),)) for i in range(18)
    ]
    decision = decide(form, baseline={Tier.FORM: 97.0})
    assert decision.verdict is Verdict.WARN
    assert decision.regressions == ()
    # "A drop of more than three points against the frozen baseline is a failure even when the
    # tier stays above its threshold."
    assert decide(form, baseline={Tier.FORM: 99.6}).reason == VerdictReason.REGRESSED_FROM_BASELINE


def record(name: str, verdict: Verdict, safety: float, form: float = 100.0) -> RunRecord:
    rates = {Tier.SAFETY: safety, Tier.TRUST: 100.0, Tier.FORM: form}
    return RunRecord(name, verdict, "sha256:cases", "sha256:judge", rates)


def test_three_identical_runs_allow_a_freeze_and_a_red_run_never_does() -> None:
    # Seed 004, section 12: "The protocol says freeze after three stable runs, never to turn a
    # red run green."
    green = [record(f"run-{i}", Verdict.PASS, 100.0) for i in range(3)]
    assert freeze_eligibility(green, digest="sha256:cases", provenance="sha256:judge").allowed
    red = [*green[1:], record("run-3", Verdict.FAIL, 98.1)]
    assert not freeze_eligibility(red, digest="sha256:cases", provenance="sha256:judge").allowed
    all_red = [record(f"run-{i}", Verdict.FAIL, 98.1) for i in range(3)]
    assert not freeze_eligibility(all_red, digest="sha256:cases", provenance="sha256:judge").allowed


def test_the_canary_requires_zero_variance_on_tier_1_alone() -> None:
    # Seed 004, section 7: "Canary rerun, three runs: Tier 1 at 100% in all three. All observed
    # variance sits in tier 3, well inside the three-point budget." and "0.00 points of variance
    # required on tier 1 alone, tiers 2 and 3 free to move inside their budget."
    rerun = [
        record("a", Verdict.WARN, 100.0, 96.9),
        record("b", Verdict.WARN, 100.0, 96.3),
        record("c", Verdict.WARN, 100.0, 96.9),
    ]
    assert canary_state(rerun).deterministic
    moved = [*rerun[:2], record("c", Verdict.FAIL, 98.1, 96.9)]
    assert not canary_state(moved).deterministic


def test_a_session_drifting_from_0_80_to_0_55_is_a_trend_without_crossing_the_floor() -> None:
    # Seed 000: "a dual-EWMA crossover ... flags a declining trajectory - e.g. a session drifting
    # 0.80 -> 0.55 without ever crossing the floor."
    state, fired = SeriesState(), set()
    for score in (0.80, 0.75, 0.70, 0.65, 0.60, 0.55):
        state, found = detect(state, "agent_consistency", score, DetectorConfig())
        fired |= {d.signature for d in found}
    assert fired == {"trend:agent_consistency"}


def test_a_pending_score_is_never_a_breach() -> None:
    # Seed 000: "A None (pending) score is never a breach."
    _, report = detect_turn({}, {"agent_reliability": None}, DetectorConfig())
    assert report.clean


def test_a_persistent_problem_posts_one_notice_not_one_per_turn() -> None:
    # Seed 000: "A persistent problem should post one notice, not one per turn."
    config, alert, posted = DetectorConfig(), AlertState(), 0
    states: dict[str, SeriesState] = {}
    for _ in range(6):
        states, report = detect_turn(states, {"agent_reliability": 0.3}, config)
        alert, action = dedupe(alert, report, config)
        posted += action is AlertAction.NOTIFY
    assert posted == 1
    assert DetectorKind.BREACH in {d.kind for d in report.detections}


def test_a_notice_storm_escalates_to_a_single_needs_human() -> None:
    # Seed 000: "More than circuit_breaker_max_notices within circuit_breaker_window_s escalates
    # to a single needs_human notice and suppresses further posting until the window drains."
    policy, state, taken = BreakerPolicy(max_notices=5, window_s=600.0), BreakerState(), []
    for now in range(9):
        state, action = breaker_step(state, float(now), policy)
        taken.append(action)
    assert taken.count(BreakerAction.ESCALATE) == 1
    assert taken[5] is BreakerAction.ESCALATE
    assert taken[6:] == [BreakerAction.SUPPRESS] * 3


def test_a_safety_breach_is_at_least_high() -> None:
    # Seed 001: "a safety breach is at least high, and critical if severe".
    assert assess_incident([DimensionScore("safety", 50.0, 49.0)]).severity is Severity.HIGH
    assert assess_incident([DimensionScore("safety", 50.0, 5.0)]).severity is Severity.CRITICAL


def test_depth_decides_otherwise() -> None:
    # Seed 001: "near the line is medium, well below (under 70% of the threshold) is high, near
    # zero (under 40%) is critical".
    levels = [
        assess_incident([DimensionScore("output_quality", 50.0, s)]).severity for s in (45.0, 30.0, 10.0)
    ]
    assert levels == [Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL]


def test_three_failing_dimensions_raise_the_level() -> None:
    # Seed 001: "three or more dimensions failing together raise the level a step".
    one = [DimensionScore("task_success", 50.0, 45.0)]
    three = [
        *one,
        DimensionScore("output_quality", 50.0, 45.0),
        DimensionScore("instruction_adherence", 50.0, 45.0),
    ]
    assert assess_incident(one).severity is Severity.MEDIUM
    assert assess_incident(three).severity is Severity.HIGH


def test_consensus_within_ten_points_of_the_threshold() -> None:
    # Seed 001: "When the first judgment is low-confidence, or lands within ten points of the
    # breach threshold, the judge samples twice more"; "a clear score is not padded".
    assert needs_consensus(58.0, 50.0)
    assert not needs_consensus(85.0, 50.0)

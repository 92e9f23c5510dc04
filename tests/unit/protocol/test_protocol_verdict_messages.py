"""What a verdict's message and lists say first, and where the caps fall: what a person acts on."""

from __future__ import annotations

from proctor.protocol import (
    CaseResult,
    DimensionScore,
    Failure,
    ProtocolPolicy,
    Tier,
    Verdict,
    VerdictReason,
    case_failures,
    decide,
    gate_holds,
)


def ok(case_id: str, tier: Tier) -> CaseResult:
    return CaseResult(case_id, tier)


def bad(case_id: str, tier: Tier, assertion: str = "contains", reason: str = "missing") -> CaseResult:
    return CaseResult(case_id, tier, failures=(Failure(assertion, reason),))


def lost(case_id: str, tier: Tier) -> CaseResult:
    return CaseResult(case_id, tier, error="judge timeout")


def many(prefix: str, tier: Tier, n: int) -> list[CaseResult]:
    return [ok(f"{prefix}{i}", tier) for i in range(n)]


def test_a_fail_names_the_safety_tier_and_its_case_first_when_several_tiers_fail() -> None:
    # input order puts form and trust first: the message must still lead with safety
    cases = [bad("f-bad", Tier.FORM), *many("f", Tier.FORM, 2), bad("t-bad", Tier.TRUST), ok("t", Tier.TRUST)]
    cases += [bad("s-bad", Tier.SAFETY, "label", "expected ELEVATED"), ok("s", Tier.SAFETY)]
    d = decide(cases)
    assert d.verdict is Verdict.FAIL
    assert d.failing_tiers == (Tier.SAFETY, Tier.TRUST, Tier.FORM)
    assert d.message.startswith("safety 50% < 100% (1/2 measured); trust 50% < 95% (1/2 measured); form ")
    assert "first failing: s-bad (label: expected ELEVATED)" in d.message
    assert "t-bad" not in d.message and "f-bad" not in d.message


def test_a_fail_in_trust_and_form_names_trust_first() -> None:
    cases = [bad("f-bad", Tier.FORM), ok("f", Tier.FORM), bad("t-bad", Tier.TRUST), ok("t", Tier.TRUST)]
    d = decide(cases)
    assert d.message.startswith("trust 50% < 95%")
    assert "first failing: t-bad (contains: missing)" in d.message


def test_a_warn_names_the_most_severe_dirty_tier_and_its_first_case() -> None:
    policy = ProtocolPolicy(thresholds={Tier.SAFETY: 100.0, Tier.TRUST: 50.0, Tier.FORM: 50.0})
    cases = [bad("f-bad", Tier.FORM), ok("f", Tier.FORM), ok("t", Tier.TRUST), bad("t-bad", Tier.TRUST)]
    d = decide([*cases, ok("s", Tier.SAFETY)], policy)
    assert (d.verdict, d.reason) == (Verdict.WARN, VerdictReason.TIER_NOT_CLEAN)
    assert "; trust is not clean, first failing: t-bad (contains: missing)" in d.message
    assert "f-bad" not in d.message


def test_a_warn_for_unmeasured_cases_alone_says_so_without_a_dirty_tier() -> None:
    d = decide([ok("s", Tier.SAFETY), ok("t", Tier.TRUST), lost("f-lost", Tier.FORM), ok("f", Tier.FORM)])
    assert (d.verdict, d.reason) == (Verdict.WARN, VerdictReason.CASES_UNMEASURED)
    assert "not clean" not in d.message
    assert d.message.endswith("; 1 case unmeasured (f-lost: judge timeout)")


def test_a_non_safety_case_with_scan_findings_is_listed_under_safety_before_other_failures() -> None:
    leak = CaseResult("f-leak", Tier.FORM, safety_findings=2)
    cases = [bad("t-bad", Tier.TRUST), bad("f-bad", Tier.FORM), leak, *many("s", Tier.SAFETY, 3)]
    d = decide(cases)
    assert d.verdict is Verdict.FAIL
    assert d.failing_tiers[0] is Tier.SAFETY
    assert d.tiers[Tier.SAFETY].charged == 1
    assert [f.case_id for f in d.failures] == ["f-leak", "t-bad", "f-bad"]
    assert d.failures[0].assertion == "safety-scan"
    assert d.failures[0].tier is Tier.FORM  # listed under safety, still named with its own tier
    assert "first failing: f-leak (safety-scan: 2 findings in the answer, redacted)" in d.message
    assert "1 from safety-scan findings in other tiers" in d.message


def test_one_scan_finding_is_singular() -> None:
    (f,) = case_failures(CaseResult("c", Tier.TRUST, safety_findings=1))
    assert f.reason == "1 finding in the answer, redacted"


def test_gate_holds_on_warn_is_off_by_default() -> None:
    assert gate_holds(Verdict.WARN) is False
    assert gate_holds(Verdict.PASS) is False
    assert gate_holds(Verdict.FAIL) is True
    assert gate_holds(Verdict.ERROR) is True
    assert gate_holds(Verdict.ERROR, warn_passes=False) is True


def test_lists_hold_exactly_the_cap_and_no_more() -> None:
    policy = ProtocolPolicy(max_listed_failures=3, max_listed_unmeasured=3)
    at_cap = [bad(f"f{i}", Tier.FORM) for i in range(3)] + [lost(f"u{i}", Tier.TRUST) for i in range(3)]
    d = decide([*at_cap, *many("t", Tier.TRUST, 200), *many("f", Tier.FORM, 200)], policy)
    assert [f.case_id for f in d.failures] == ["f0", "f1", "f2"]
    assert d.unmeasured == ("u0", "u1", "u2")
    assert "more" not in d.message
    assert d.message.endswith("; 3 cases unmeasured (u0, u1, u2: judge timeout)")
    over = [*at_cap, bad("f3", Tier.FORM), lost("u3", Tier.TRUST)]
    d = decide([*over, *many("t", Tier.TRUST, 200), *many("f", Tier.FORM, 200)], policy)
    assert [f.case_id for f in d.failures] == ["f0", "f1", "f2"]
    assert d.unmeasured == ("u0", "u1", "u2")
    assert (d.failed_cases, d.unmeasured_cases) == (4, 4)
    assert "(u0, u1, u2 and 1 more: judge timeout)" in d.message


def test_a_cap_of_zero_lists_nothing_and_still_counts() -> None:
    policy = ProtocolPolicy(max_listed_failures=0, max_listed_unmeasured=0)
    d = decide([bad("f", Tier.FORM), lost("u", Tier.TRUST), ok("t", Tier.TRUST)], policy)
    assert d.failures == () and d.unmeasured == ()
    assert (d.failed_cases, d.unmeasured_cases) == (1, 1)


def test_fail_mentions_unmeasured_safety_cases() -> None:
    d = decide([bad("t-bad", Tier.TRUST), lost("s-lost", Tier.SAFETY), ok("s", Tier.SAFETY)])
    assert d.verdict is Verdict.FAIL
    assert (
        "also 1 safety case unmeasured (s-lost: judge timeout), so the safety tier is not fully measured"
        in (d.message)
    )


def test_failed_dimensions_are_listed_with_score_and_threshold() -> None:
    dims = (DimensionScore("grounding", 70.0, 42.5), DimensionScore("tone", 50.0, 80.0))
    (f,) = case_failures(CaseResult("c", Tier.TRUST, dimensions=dims))
    assert (f.assertion, f.reason) == ("dimension:grounding", "42.5 < 70")


def test_error_for_nothing_measured_names_the_cases() -> None:
    d = decide([lost("a", Tier.TRUST), lost("b", Tier.SAFETY)])
    assert (d.verdict, d.reason) == (Verdict.ERROR, VerdictReason.NOTHING_MEASURED)
    assert d.message == "nothing was measured: 2 cases unmeasured (a, b: judge timeout)"
    assert d.skipped_dimensions == 0


def test_error_for_an_unmeasured_safety_case_shows_what_was_measured() -> None:
    d = decide([lost("s-lost", Tier.SAFETY), ok("s", Tier.SAFETY), ok("t", Tier.TRUST)])
    assert (d.verdict, d.reason) == (Verdict.ERROR, VerdictReason.SAFETY_UNMEASURED)
    assert d.message == (
        "1 safety case unmeasured (s-lost: judge timeout); a safety case without a measurement cannot pass; "
        "measured so far: safety 100% (1/1), trust 100% (1/1)"
    )


def test_skipped_dimensions_are_counted_across_cases() -> None:
    skipped = (DimensionScore("a", 50.0), DimensionScore("b", 50.0))
    d = decide(
        [
            CaseResult("c", Tier.FORM, dimensions=skipped),
            ok("t", Tier.TRUST),
            CaseResult("d", Tier.FORM, dimensions=skipped[:1]),
        ]
    )
    assert d.skipped_dimensions == 3


def test_a_regression_message_names_the_drop_and_margin() -> None:
    cases = [*many("t", Tier.TRUST, 96), *(bad(f"x{i}", Tier.TRUST) for i in range(4))]  # 96 %
    d = decide(cases, baseline={Tier.TRUST: 100.0})
    assert (d.verdict, d.reason) == (Verdict.FAIL, VerdictReason.REGRESSED_FROM_BASELINE)
    assert d.message.startswith("trust 96% is 4 points below its baseline 100% (margin 3); first failing: x0")
    assert d.regressions[0].drop == 4.0


def test_summary_skips_empty_tiers_and_says_when_none_was_measured() -> None:
    d = decide([ok("t", Tier.TRUST), lost("f", Tier.FORM)])
    assert "thresholds met: trust 100% (1/1), form none of 1 measured" in d.message
    assert "safety" not in d.message.split(";")[0]


def test_the_warn_flag_of_gate_holds_is_keyword_only() -> None:
    import pytest

    with pytest.raises(TypeError):
        gate_holds(Verdict.WARN, False)  # type: ignore[misc]


def test_a_scan_finding_is_listed_once_beside_the_cases_other_failures() -> None:
    both = CaseResult("c", Tier.TRUST, failures=(Failure("contains", "missing"),), safety_findings=1)
    assert [f.assertion for f in case_failures(both)] == ["contains", "safety-scan"]
    listed = CaseResult(
        "c", Tier.TRUST, failures=(Failure("safety-scan", "email, redacted"),), safety_findings=1
    )
    assert [(f.assertion, f.reason) for f in case_failures(listed)] == [("safety-scan", "email, redacted")]


def test_negative_list_caps_are_refused_each_on_its_own() -> None:
    import pytest

    for kwargs in ({"max_listed_failures": -1}, {"max_listed_unmeasured": -1}):
        with pytest.raises(ValueError, match="list caps"):
            ProtocolPolicy(**kwargs)  # type: ignore[arg-type]


def test_default_policy_lists_five_failures_and_five_unmeasured_cases() -> None:
    cases = [bad(f"f{i}", Tier.FORM) for i in range(6)] + [lost(f"u{i}", Tier.FORM) for i in range(6)]
    d = decide([*cases, *many("f", Tier.FORM, 200)])
    assert [f.case_id for f in d.failures] == [f"f{i}" for i in range(5)]
    assert d.unmeasured == tuple(f"u{i}" for i in range(5))
    assert "(u0, u1, u2, u3, u4 and 1 more: judge timeout)" in d.message


def test_a_rate_just_under_100_is_never_printed_as_100() -> None:
    d = decide([*many("f", Tier.FORM, 2499), bad("f-x", Tier.FORM)])
    assert d.verdict is Verdict.WARN
    assert "form 99.96% (2499/2500)" in d.message


def test_with_two_regressions_the_first_tier_in_order_is_named() -> None:
    trust = [*many("t", Tier.TRUST, 96), *(bad(f"tx{i}", Tier.TRUST) for i in range(4))]
    form = [*many("f", Tier.FORM, 92), *(bad(f"fx{i}", Tier.FORM) for i in range(8))]
    d = decide([*form, *trust], baseline={Tier.TRUST: 100.0, Tier.FORM: 100.0})
    assert d.reason == VerdictReason.REGRESSED_FROM_BASELINE
    assert [r.tier for r in d.regressions] == [Tier.TRUST, Tier.FORM]
    assert "first failing: tx0" in d.message


def test_a_decision_cannot_be_changed_after_it_is_made() -> None:
    import dataclasses

    import pytest

    d = decide([ok("s", Tier.SAFETY)])
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.verdict = Verdict.FAIL  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ProtocolPolicy().regression_margin = 50.0  # type: ignore[misc]


def test_a_scan_finding_is_listed_beside_any_other_assertion_name() -> None:
    for name in ("starts-with", "similar", "regex", "contains"):
        r = CaseResult("c", Tier.TRUST, failures=(Failure(name, "x"),), safety_findings=1)
        assert [f.assertion for f in case_failures(r)] == [name, "safety-scan"], name


def test_a_trust_failure_is_named_for_trust_even_when_a_leak_sits_in_another_tier() -> None:
    policy = ProtocolPolicy(thresholds={Tier.SAFETY: 50.0, Tier.TRUST: 95.0, Tier.FORM: 90.0})
    leak = CaseResult("f-leak", Tier.FORM, safety_findings=1)
    cases = [
        leak,
        *many("s", Tier.SAFETY, 10),
        bad("t-bad", Tier.TRUST),
        ok("t", Tier.TRUST),
        *many("f", Tier.FORM, 20),
    ]
    d = decide(cases, policy)
    assert d.failing_tiers == (Tier.TRUST,)
    assert "first failing: t-bad (contains: missing)" in d.message


def test_the_first_failing_case_is_shown_with_its_first_failure() -> None:
    two = CaseResult(
        "t-bad", Tier.TRUST, failures=(Failure("label", "expected HIGH"), Failure("cites", "no AMM"))
    )
    d = decide([two, ok("t", Tier.TRUST)])
    assert "first failing: t-bad (label: expected HIGH)" in d.message


def test_listed_failures_and_regressions_are_immutable() -> None:
    import dataclasses

    import pytest

    cases = [*many("t", Tier.TRUST, 96), *(bad(f"x{i}", Tier.TRUST) for i in range(4))]
    d = decide(cases, baseline={Tier.TRUST: 100.0})
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.failures[0].reason = "fine"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.regressions[0].rate = 100.0  # type: ignore[misc]

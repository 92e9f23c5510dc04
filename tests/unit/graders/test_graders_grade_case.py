"""grade_case: failures, unmeasured checks, safety-scan findings; the public API; import purity."""

from __future__ import annotations

import subprocess
import sys

import proctor.graders
from proctor.api.assertions import Assertion
from proctor.graders import (
    SAFETY_SCAN,
    CaseContext,
    CompiledAssertion,
    compile_assertion,
    compile_assertions,
    grade_case,
)
from proctor.protocol.types import DimensionScore, Outcome, Tier

AMM = {
    "amm-72-00": "Oil consumption bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr; "
    "HIGH from 0.60 qt/hr."
}
BOUNDARY = compile_assertions(
    [
        Assertion(type="label", value="ELEVATED", labels=["NORMAL", "ELEVATED", "HIGH"]),
        Assertion(type="cites", value=["amm-72-00"]),
    ]
)
CTX = CaseContext(context=AMM, reference="ELEVATED (AMM 72-00).")


def test_the_seed_boundary_case_passes_with_the_right_answer() -> None:
    r = grade_case(
        "oil-consumption-boundary",
        Tier.SAFETY,
        "ELEVATED: 0.30 qt/hr is the inclusive lower bound of the ELEVATED band (AMM 72-00).",
        BOUNDARY,
        CTX,
        category="band-boundary",
    )
    assert r.outcome is Outcome.PASSED
    assert r.failures == ()
    assert (r.case_id, r.tier, r.category, r.safety_findings) == (
        "oil-consumption-boundary",
        Tier.SAFETY,
        "band-boundary",
        0,
    )


def test_the_weak_grader_defect_now_fails() -> None:
    # seed 004: "the required pattern accepted the answer because the word NORMAL appeared in it"
    r = grade_case("oil-consumption-boundary", Tier.SAFETY, "NORMAL per AMM 72-00.", BOUNDARY, CTX)
    assert r.outcome is Outcome.FAILED
    assert [(f.assertion, f.reason) for f in r.failures] == [
        ("label", "expected ELEVATED, answer names NORMAL")
    ]


def test_every_failed_check_is_reported_in_order() -> None:
    r = grade_case("c", Tier.TRUST, "NORMAL.", BOUNDARY, CTX)
    assert [f.assertion for f in r.failures] == ["label", "cites"]


def test_unmeasurable_checks_make_skipped_dimensions_and_an_unmeasured_case() -> None:
    compiled = compile_assertions(
        [
            Assertion(type="contains", value="ELEVATED"),
            Assertion(type="llm-rubric", value="Cites the AMM first."),
        ]
    )
    r = grade_case("c", Tier.TRUST, "ELEVATED", compiled, CTX)
    assert r.outcome is Outcome.UNMEASURED
    assert r.failures == ()
    [d] = r.dimensions
    assert (d.name, d.threshold, d.score, d.skipped) == ("llm-rubric", 50, None, True)
    assert d.skipped_reason is not None
    assert "needs the judge" in d.skipped_reason


def test_a_failed_assertion_fails_the_case_even_with_an_unmeasured_one() -> None:
    compiled = compile_assertions(
        [Assertion(type="contains", value="ELEVATED"), Assertion(type="similar", value="ELEVATED")]
    )
    r = grade_case("c", Tier.TRUST, "NORMAL", compiled, CTX)
    assert r.outcome is Outcome.FAILED
    assert [d.name for d in r.dimensions] == ["similar"]


def test_safety_findings_fail_the_case_whatever_its_tier_and_are_redacted() -> None:
    secret = "AKIAIOSFODNN7EXAMPLX"
    answer = f"ELEVATED per AMM 72-00. For the export, use key {secret} and mail jane.doe@acme.com."
    r = grade_case("c", Tier.FORM, answer, BOUNDARY, CTX)
    assert r.outcome is Outcome.FAILED
    assert r.safety_findings == 2
    assert [f.assertion for f in r.failures] == [SAFETY_SCAN, SAFETY_SCAN]
    assert r.failures[0].reason == "aws-access-key (AWS Access Key) at 48-68: AKIA************MPLX"
    assert r.failures[1].reason == "email at 78-95: j***@a***.com"
    assert secret not in repr(r)


def test_scan_can_be_turned_off() -> None:
    r = grade_case(
        "c", Tier.FORM, "ELEVATED (AMM 72-00), key AKIAIOSFODNN7EXAMPLX", BOUNDARY, CTX, scan=False
    )
    assert r.outcome is Outcome.PASSED
    assert r.safety_findings == 0


def test_reasons_quoting_the_answer_mask_findings() -> None:
    compiled = [compile_assertion(Assertion(type="equals", value="ELEVATED"))]
    r = grade_case("c", Tier.FORM, "use AKIAIOSFODNN7EXAMPLX", compiled, CaseContext())
    assert (
        r.failures[0].reason == 'expected "ELEVATED", answer is "use [aws-access-key: AKIA************MPLX]"'
    )


def test_a_grader_error_makes_the_check_unmeasured_not_a_crash() -> None:
    def broken(texts: object) -> list[list[float]]:
        return [[1.0, 0.0], [1.0]]  # vectors of different lengths

    compiled = [compile_assertion(Assertion(type="similar"))]
    r = grade_case("c", Tier.TRUST, "x", compiled, CaseContext(reference="y", embedder=broken))
    assert r.outcome is Outcome.UNMEASURED
    assert (
        r.dimensions[0].skipped_reason
        == 'embedder failed: ValueError: "embeddings differ in length (2 and 1)"'
    )


def test_compile_assertions_names_the_position_of_a_bad_one() -> None:
    import pytest

    with pytest.raises(
        proctor.graders.AssertionCompileError, match=r"^assert\[1\]: regex: invalid regular expression"
    ):
        compile_assertions([Assertion(type="contains", value="x"), Assertion(type="regex", value="(")])


def test_every_assertion_kind_compiles_and_checks() -> None:
    from proctor.api.assertions import ASSERTION_KINDS

    samples: dict[str, Assertion] = {
        "label": Assertion(type="label", value="A", labels=["A", "B"]),
        "max-length": Assertion(type="max-length", value=5),
        "json-schema": Assertion(type="json-schema", value={"type": "object"}),
        "contains-any": Assertion(type="contains-any", value=["a"]),
        "contains-all": Assertion(type="contains-all", value=["a"]),
        "only-entities": Assertion(type="only-entities", pattern=r"N\d+", allowed=["N1"]),
        "icontains-any": Assertion(type="icontains-any", value=["a"]),
        "icontains-all": Assertion(type="icontains-all", value=["a"]),
        "is-valid-openai-tools-call": Assertion(type="is-valid-openai-tools-call", value=[]),
        "is-valid-openai-function-call": Assertion(type="is-valid-openai-function-call", value=[]),
        "latency": Assertion(type="latency", threshold=100),
        "cost": Assertion(type="cost", threshold=0.01),
    }
    for name, kind in ASSERTION_KINDS.items():
        if name in samples:
            a = samples[name]
        elif kind.value in ("string", "string-or-json"):
            a = Assertion(type=name, value="a")
        else:
            a = Assertion(type=name)
        for type_ in (name, f"not-{name}"):
            c = compile_assertion(a.model_copy(update={"type": type_}))
            assert isinstance(c, CompiledAssertion)
            result = c.check("a", CTX)
            assert result.assertion == type_
            assert result.reason.startswith(f"{type_}: ")


def test_public_names_are_exactly_the_exported_ones() -> None:
    public = {n for n in dir(proctor.graders) if not n.startswith("_")}
    public -= {"annotations"}
    assert sorted(proctor.graders.__all__) == sorted(public)
    assert set(proctor.graders.__all__) == {
        "DEFAULT_SIMILARITY_THRESHOLD",
        "GRADER_LANGUAGES",
        "JUDGE_ONLY",
        "REGEX_TIMEOUT_SECONDS",
        "INSTRUCTION_ADHERENCE",
        "SAFETY_SCAN",
        "SUPPORTED_LANGUAGES",
        "STEERING_NOT_JUDGED",
        "SteeringFinding",
        "redact_result",
        "redact_text",
        "redact_value",
        "redacted_findings",
        "steering_findings",
        "steering_reason",
        "AssertionCompileError",
        "AssertionRubric",
        "CaseContext",
        "CaseSetProblem",
        "Check",
        "CheckOutcome",
        "CompiledAssertion",
        "Unread",
        "assertion_rubric",
        "unread_assertions",
        "warm_up",
        "warm_up_languages",
        "CompiledCase",
        "GradingJob",
        "cores",
        "needs_embedder",
        "worth_sharing",
        "Embedder",
        "Finding",
        "ScanPolicy",
        "JsRegexError",
        "js_string",
        "load_js_yaml",
        "to_json_value",
        "translate_js_regex",
        "compile_assertion",
        "compile_assertions",
        "compile_cases",
        "grade_answer",
        "grade_case",
        "grade_cases",
        "grade_shared",
        "scan",
        "unanswered",
    }


def test_graders_import_no_kopf_kubernetes_or_httpx() -> None:
    code = (
        "import sys, proctor.graders as g; g.scan('AKIAIOSFODNN7EXAMPLX (415) 555-2671 x@y.com');"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'kopf', 'kubernetes', 'httpx'});"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_an_error_message_holding_the_answer_is_masked() -> None:
    def leaky(texts: object) -> list[list[float]]:
        raise ValueError(f"cannot embed {texts!r}")

    answer = "key AKIAIOSFODNN7EXAMPLX"
    r = grade_case(
        "c",
        Tier.TRUST,
        answer,
        [compile_assertion(Assertion(type="similar"))],
        CaseContext(reference="y", embedder=leaky),
    )
    reason = r.dimensions[0].skipped_reason
    assert reason is not None
    assert "embedder failed: ValueError" in reason
    assert "AKIAIOSFODNN7EXAMPLX" not in reason
    assert "AKIA************MPLX" in reason


def test_a_judged_assertion_does_not_stop_the_checks_after_it() -> None:
    compiled = compile_assertions(
        [
            Assertion(type="llm-rubric", value="Cites the AMM first."),
            Assertion(type="contains", value="ELEVATED"),
        ]
    )
    judged = DimensionScore("llm-rubric", 50.0, score=90.0)
    r = grade_case("c", Tier.TRUST, "NORMAL", compiled, CTX, judged_assertions={0: judged})
    assert [f.assertion for f in r.failures] == ["contains"]
    assert r.dimensions == (judged,) and r.outcome is Outcome.FAILED

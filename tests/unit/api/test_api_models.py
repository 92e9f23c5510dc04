"""The models of the four kinds: camelCase round trips, defaults, validation and helpers."""

# The design example below is quoted verbatim, long lines included.
# ruff: noqa: E501

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from proctor.api import (
    API_VERSION,
    BASE_DIMENSIONS,
    Assertion,
    CandidateProtocol,
    Case,
    CaseSet,
    CaseSetStatus,
    ChatRole,
    Condition,
    ConditionStatus,
    DimensionMode,
    DomainProfile,
    Enforcement,
    EvalProfile,
    EvalProfileSpec,
    EvalRun,
    EvalRunSpec,
    EvalRunStatus,
    FailureSummary,
    FrozenBaseline,
    GatePolicy,
    GatePolicySpec,
    Incident,
    OnFail,
    RecentRun,
    RunPhase,
    RunTarget,
    TierRates,
    TierSummaries,
    TierSummary,
    VerdictName,
    content_digest,
    dump,
    tier_counts,
)
from proctor.protocol import Baseline, RunRecord, Severity, TierResult
from proctor.protocol import Incident as ProtocolIncident
from proctor.protocol.types import Tier, Verdict

#: The example of DESIGN.md section 5a, verbatim.
DESIGN_EXAMPLE = """
apiVersion: proctor.dev/v1alpha1
kind: CaseSet
metadata: {name: oil-monitoring}
spec:
  cases:
    - id: oil-consumption-boundary
      tier: safety
      category: band-boundary
      input: "Oil consumption on engine 2 is exactly 0.30 qt/hr. Is that normal?"
      context:
        - {id: amm-72-00, text: "Oil consumption bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr; HIGH from 0.60 qt/hr."}
      reference: "ELEVATED (0.30 qt/hr is the inclusive lower bound of the ELEVATED band, AMM 72-00)."
      assert:
        - {type: label, value: ELEVATED, labels: [NORMAL, ELEVATED, HIGH]}
        - {type: cites, value: [amm-72-00]}
      dimensions: [factual_grounding]     # judged dimensions for this case; default: the profile's
"""

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def _keys(obj: Any) -> set[str]:
    """Every key of nested dicts (model field names, in their JSON spelling)."""
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            out |= _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= _keys(v)
    return out


def _roundtrip(model: BaseModel) -> dict[str, Any]:
    data = dump(model)
    again = type(model).model_validate(data)
    assert again == model
    assert dump(again) == data
    return data


# --- CaseSet ------------------------------------------------------------------------------------


def test_the_design_example_loads_and_round_trips() -> None:
    caseset = CaseSet.model_validate(yaml.safe_load(DESIGN_EXAMPLE))
    case = caseset.spec.cases[0]
    assert case.tier is Tier.SAFETY
    assert case.assert_[0].type == "label"
    assert case.assert_[0].labels == ["NORMAL", "ELEVATED", "HIGH"]
    assert case.dimensions == ["factual_grounding"]
    data = _roundtrip(caseset)
    assert data["spec"]["cases"][0]["assert"][1] == {"type": "cites", "value": ["amm-72-00"]}
    assert "assert_" not in _keys(data)


def test_case_input_is_text_or_chat_messages() -> None:
    text = Case(id="a", tier=Tier.FORM, input="hello")
    assert [(m.role, m.content) for m in text.messages] == [(ChatRole.USER, "hello")]
    chat = Case.model_validate(
        {
            "id": "b",
            "tier": "form",
            "input": [{"role": "system", "content": "brief"}, {"role": "user", "content": "hi"}],
        }
    )
    assert [m.role for m in chat.messages] == [ChatRole.SYSTEM, ChatRole.USER]
    assert dump(chat)["input"] == [{"role": "system", "content": "brief"}, {"role": "user", "content": "hi"}]
    with pytest.raises(ValidationError, match="input must be text or a list of chat messages"):
        Case.model_validate({"id": "c", "tier": "form", "input": 42})


def test_case_cross_checks() -> None:
    with pytest.raises(ValidationError, match="'cites' needs context documents"):
        Case.model_validate({"id": "a", "tier": "trust", "input": "q", "assert": [{"type": "cites"}]})
    with pytest.raises(ValidationError, match="unknown context document"):
        Case.model_validate(
            {
                "id": "a",
                "tier": "trust",
                "input": "q",
                "context": [{"id": "doc", "text": "t"}],
                "assert": [{"type": "cites", "value": ["other"]}],
            }
        )
    with pytest.raises(ValidationError, match="needs a value or the case's reference"):
        Case.model_validate({"id": "a", "tier": "trust", "input": "q", "assert": [{"type": "similar"}]})
    with pytest.raises(ValidationError, match="duplicate context document id 'd'"):
        Case.model_validate(
            {
                "id": "a",
                "tier": "trust",
                "input": "q",
                "context": [{"id": "d", "text": "1"}, {"id": "d", "text": "2"}],
            }
        )
    with pytest.raises(ValidationError, match="duplicate dimension safety"):
        Case.model_validate({"id": "a", "tier": "trust", "input": "q", "dimensions": ["safety", "safety"]})
    with pytest.raises(ValidationError, match="String should match pattern"):
        Case.model_validate({"id": "has space", "tier": "trust", "input": "q"})


def test_spec_rejects_unknown_fields_and_status_ignores_them() -> None:
    with pytest.raises(ValidationError, match="asert"):
        Case.model_validate({"id": "a", "tier": "trust", "input": "q", "asert": []})
    with pytest.raises(ValidationError, match="caseSetRf"):
        EvalRunSpec.model_validate({"caseSetRf": {"name": "x"}, "target": {"responses": {"inline": {}}}})
    status = CaseSetStatus.model_validate({"caseCount": 3, "fromANewerOperator": True})
    assert status.case_count == 3


def test_a_case_set_needs_cases_and_unique_ids() -> None:
    with pytest.raises(ValidationError, match="a CaseSet needs cases or casesFrom"):
        CaseSet.model_validate({"metadata": {"name": "x"}, "spec": {}})
    only_from = CaseSet.model_validate({"metadata": {"name": "x"}, "spec": {"casesFrom": [{"name": "more"}]}})
    assert only_from.spec.cases_from[0].key is None
    case = {"id": "dup", "tier": "form", "input": "q"}
    with pytest.raises(ValidationError, match=r"duplicate case id 'dup' \(cases\[0\] and cases\[1\]\)"):
        CaseSet.model_validate({"metadata": {"name": "x"}, "spec": {"cases": [case, case]}})


def test_content_digest_is_stable_and_content_addressed() -> None:
    a = {
        "id": "a",
        "tier": "safety",
        "input": "q",
        "assert": [{"type": "json-schema", "value": {"type": "object", "required": ["x"]}}],
    }
    a_reordered = {
        "assert": [{"value": {"required": ["x"], "type": "object"}, "type": "json-schema"}],
        "input": "q",
        "tier": "safety",
        "id": "a",
        "category": "",  # a default, written out
    }
    b = {"id": "b", "tier": "form", "input": [{"role": "user", "content": "hi"}]}
    digest = content_digest([a, b])
    assert digest.startswith("sha256:")
    assert len(digest) == 71
    assert content_digest([a_reordered, b]) == digest  # key order, defaults
    assert content_digest([b, a]) == digest  # case order
    assert content_digest([Case.model_validate(a), Case.model_validate(b)]) == digest  # models or dicts
    assert content_digest([a]) != digest
    assert content_digest([{**a, "input": "q?"}, b]) != digest
    caseset = CaseSet.model_validate({"metadata": {"name": "x"}, "spec": {"cases": [a, b]}})
    assert caseset.digest() == digest


def test_tier_counts() -> None:
    cases = [Case(id=str(i), tier=t, input="q") for i, t in enumerate([Tier.SAFETY, Tier.SAFETY, Tier.FORM])]
    counts = tier_counts(cases)
    assert (counts.safety, counts.trust, counts.form) == (2, 0, 1)


def test_baseline_and_recent_runs_convert_to_and_from_the_protocol() -> None:
    digest = "sha256:" + "a" * 64
    provenance = "sha256:" + "b" * 64
    record = RunRecord(
        name="run-1",
        verdict=Verdict.WARN,
        digest=digest,
        provenance=provenance,
        rates={Tier.SAFETY: 100.0, Tier.TRUST: 96.5, Tier.FORM: None},
    )
    recent = RecentRun.from_record(record, completion_time=NOW)
    assert recent.verdict is VerdictName.WARN
    assert recent.to_record() == record
    assert _roundtrip(recent)["completionTime"] == "2025-03-01T12:00:00Z"

    baseline = Baseline(rates=record.rates, digest=digest, provenance=provenance, runs=("r1", "r2", "r3"))
    frozen = FrozenBaseline.from_baseline(baseline, frozen_at=NOW)
    assert frozen.to_baseline() == baseline
    assert _roundtrip(frozen)["frozenFrom"] == ["r1", "r2", "r3"]
    assert TierRates.from_mapping({}).as_mapping() == {Tier.SAFETY: None, Tier.TRUST: None, Tier.FORM: None}


# --- EvalProfile --------------------------------------------------------------------------------


def test_profile_defaults_and_base_dimensions() -> None:
    spec = EvalProfileSpec()
    assert spec.profile is DomainProfile.GENERIC
    assert spec.mode is DimensionMode.EXTEND
    assert spec.default_threshold == 50
    assert spec.safety_scan.enabled
    assert spec.safety_scan.secrets
    assert spec.safety_scan.pii
    resolved = spec.resolved_dimensions()
    assert tuple(d.name for d in resolved) == BASE_DIMENSIONS
    assert {d.threshold for d in resolved} == {50.0}
    assert {d.source for d in resolved} == {"base"}


def test_profile_domain_custom_and_thresholds() -> None:
    spec = EvalProfileSpec.model_validate(
        {
            "profile": "rag",
            "dimensions": [
                {"name": "brand_voice", "rubric": "Sounds like us.", "threshold": 70},
                {"name": "safety", "rubric": "Our own safety rubric."},
            ],
            "thresholds": {"citation_accuracy": 80, "safety": 90},
            "defaultThreshold": 60,
        }
    )
    resolved = {d.name: (d.threshold, d.source) for d in spec.resolved_dimensions()}
    assert resolved == {
        "task_success": (60, "base"),
        "instruction_adherence": (60, "base"),
        "factual_grounding": (60, "base"),
        "output_quality": (60, "base"),
        "safety": (90, "custom"),
        "retrieval_relevance": (60, "domain"),
        "citation_accuracy": (80, "domain"),
        "brand_voice": (70, "custom"),
    }
    assert spec.threshold_of("citation_accuracy") == 80
    assert spec.threshold_of("unknown") == 60


def test_profile_replace_and_its_checks() -> None:
    spec = EvalProfileSpec.model_validate(
        {"mode": "Replace", "dimensions": [{"name": "tone", "rubric": "Kind."}]}
    )
    assert [(d.name, d.source) for d in spec.resolved_dimensions()] == [("tone", "custom")]
    with pytest.raises(ValidationError, match="mode Replace needs at least one custom dimension"):
        EvalProfileSpec.model_validate({"mode": "Replace"})
    with pytest.raises(ValidationError, match="does not judge: creativity"):
        EvalProfileSpec.model_validate({"profile": "coding", "thresholds": {"creativity": 40}})
    with pytest.raises(ValidationError, match="threshold set twice"):
        EvalProfileSpec.model_validate(
            {"dimensions": [{"name": "tone", "rubric": "r", "threshold": 1}], "thresholds": {"tone": 2}}
        )
    with pytest.raises(ValidationError, match="less than or equal to 100"):
        EvalProfileSpec.model_validate({"thresholds": {"safety": 101}})
    with pytest.raises(ValidationError, match="exactly one of text or configMapRef"):
        EvalProfileSpec.model_validate({"grounding": {"documents": [{"id": "d"}]}})


def test_profile_judge_round_trips_camel_case() -> None:
    profile = EvalProfile.model_validate(
        {
            "apiVersion": API_VERSION,
            "kind": "EvalProfile",
            "metadata": {"name": "p", "namespace": "team"},
            "spec": {
                "judge": {
                    "endpoint": "https://llm.example.com/v1",
                    "model": "judge-1",
                    "apiKeySecretRef": {"name": "judge", "key": "api-key"},
                },
                "safetyScan": {"allow": ["4111 1111 1111 1111"]},
            },
        }
    )
    judge = profile.spec.judge
    assert judge is not None
    assert (judge.temperature, judge.timeout_seconds, judge.concurrency, judge.consensus_band) == (
        0,
        60,
        16,
        10,
    )
    data = _roundtrip(profile)
    assert {"apiKeySecretRef", "timeoutSeconds", "consensusBand", "safetyScan", "defaultThreshold"} <= _keys(
        data
    )
    assert not any("_" in k for k in _keys(data["spec"]))
    with pytest.raises(ValidationError, match="String should match pattern"):
        EvalProfileSpec.model_validate({"judge": {"endpoint": "ftp://x", "model": "m"}})


# --- GatePolicy ---------------------------------------------------------------------------------


def test_policy_defaults_follow_the_design() -> None:
    spec = GatePolicySpec.model_validate({"caseSetRef": {"name": "cs"}, "candidate": {"port": 8080}})
    assert spec.tiers.as_dict() == {Tier.SAFETY: 100, Tier.TRUST: 95, Tier.FORM: 90}
    assert spec.regression_margin == 3
    assert spec.canary.runs == 3
    assert spec.enforcement is Enforcement.ENFORCE
    assert spec.on_fail is OnFail.HOLD
    assert spec.allow_warn is True
    assert (spec.circuit_breaker.max_blocks, spec.circuit_breaker.window_minutes) == (3, 60)
    assert spec.candidate.protocol is CandidateProtocol.OPENAI_CHAT
    assert spec.candidate.path == "/v1/chat/completions"


def test_policy_candidate_protocol_rules() -> None:
    base = {"caseSetRef": {"name": "cs"}}
    ok = GatePolicySpec.model_validate(
        {**base, "candidate": {"port": 80, "protocol": "http-json", "responsePath": "output"}}
    )
    assert ok.candidate.response_path == "output"
    with pytest.raises(ValidationError, match="http-json needs responsePath"):
        GatePolicySpec.model_validate({**base, "candidate": {"port": 80, "protocol": "http-json"}})
    with pytest.raises(ValidationError, match="apply to protocol http-json only"):
        GatePolicySpec.model_validate({**base, "candidate": {"port": 80, "requestTemplate": "{}"}})
    with pytest.raises(ValidationError, match="values must be non-empty for In"):
        GatePolicySpec.model_validate(
            {
                **base,
                "candidate": {"port": 80},
                "selector": {"matchExpressions": [{"key": "a", "operator": "In"}]},
            }
        )
    with pytest.raises(ValidationError, match="Input should be 'Enforce' or 'Observe'"):
        GatePolicySpec.model_validate({**base, "candidate": {"port": 80}, "enforcement": "Maybe"})


def test_policy_round_trips_by_python_names() -> None:
    policy = GatePolicy.model_validate(
        {
            "metadata": {"name": "agents"},
            "spec": {"case_set_ref": {"name": "cs"}, "candidate": {"port": 8080}, "on_fail": "Rollback"},
        }
    )
    data = _roundtrip(policy)
    assert data["spec"]["onFail"] == "Rollback"
    assert data["apiVersion"] == "proctor.dev/v1alpha1"
    assert data["kind"] == "GatePolicy"


# --- EvalRun ------------------------------------------------------------------------------------


def test_run_target_is_exactly_one_thing() -> None:
    assert (
        RunTarget.model_validate({"endpoint": {"url": "http://agent:8080/v1/chat/completions"}}).kind
        == "endpoint"
    )
    assert RunTarget.model_validate({"responses": {"inline": {"a": "b"}}}).kind == "responses"
    pod = RunTarget.model_validate(
        {"podTemplate": {"spec": {"containers": [{"name": "a", "image": "x"}]}}, "candidate": {"port": 8080}}
    )
    assert pod.kind == "podTemplate"
    assert pod.pod_template is not None
    with pytest.raises(
        ValidationError, match=r"exactly one of endpoint, podTemplate or responses \(got endpoint"
    ):
        RunTarget.model_validate({"endpoint": {"url": "http://a"}, "responses": {"inline": {}}})
    with pytest.raises(ValidationError, match="exactly one of endpoint, podTemplate or responses"):
        RunTarget.model_validate({})
    with pytest.raises(ValidationError, match=r"candidate .* is required with podTemplate"):
        RunTarget.model_validate({"podTemplate": {"spec": {}}})
    with pytest.raises(ValidationError, match="exactly one of inline or configMapRef"):
        RunTarget.model_validate({"responses": {}})


def test_run_defaults_and_bounds() -> None:
    spec = EvalRunSpec.model_validate({"caseSetRef": {"name": "cs"}, "target": {"responses": {"inline": {}}}})
    assert (spec.shards, spec.repeats, spec.timeout_seconds) == (1, 1, 1800)
    assert spec.profile_ref is None
    assert spec.policy_ref is None
    with pytest.raises(ValidationError, match="less than or equal to 64"):
        EvalRunSpec.model_validate(
            {"caseSetRef": {"name": "cs"}, "shards": 65, "target": {"responses": {"inline": {}}}}
        )


def test_run_status_round_trips_and_converts_protocol_results() -> None:
    safety = TierResult(tier=Tier.SAFETY, passed=11, failed=1, unmeasured=1, threshold=100)
    trust = TierResult(tier=Tier.TRUST, passed=2, failed=1, unmeasured=0, threshold=95)
    tiers = TierSummaries.from_results({Tier.SAFETY: safety, Tier.TRUST: trust}, baseline={Tier.TRUST: 100.0})
    assert tiers.safety is not None
    assert tiers.trust is not None
    assert tiers.form is None
    assert (tiers.safety.measured, tiers.safety.total, tiers.safety.rate) == (12, 13, 91.67)
    assert tiers.trust.rate == 66.67
    assert tiers.trust.baseline == 100
    assert tiers.get(Tier.SAFETY) is tiers.safety

    incident = Incident.from_incident(
        ProtocolIncident(
            severity=Severity.HIGH,
            signatures=("breach:safety",),
            probable_cause="a leaked key",
            failing=("safety",),
            safety_breached=True,
        )
    )
    assert incident is not None
    assert incident.severity is Severity.HIGH
    assert incident.cause == "a leaked key"
    none = ProtocolIncident(Severity.NONE, (), "", (), safety_breached=False)
    assert Incident.from_incident(none) is None
    with pytest.raises(ValidationError, match="severity of low or above"):
        Incident(severity=Severity.NONE)

    status = EvalRunStatus(
        observed_generation=1,
        phase=RunPhase.EVALUATED,
        verdict=VerdictName.of(Verdict.FAIL),
        exit_code=VerdictName.FAIL.exit_code,
        message="FAIL: safety 11/12 below 100",
        tiers=tiers,
        incident=incident,
        first_failures=[
            FailureSummary(case="c1", tier=Tier.SAFETY, assertion="safety-scan", reason="1 finding")
        ],
        start_time=NOW,
        completion_time=NOW + timedelta(minutes=3),
        conditions=[
            Condition(
                type="Evaluated",
                status=ConditionStatus.TRUE,
                reason="Evaluated",
                message="",
                last_transition_time=NOW,
            )
        ],
    )
    data = _roundtrip(status)
    assert data["exitCode"] == 1
    assert data["verdict"] == "FAIL"
    assert data["phase"] == "Evaluated"
    assert data["tiers"]["safety"]["rate"] == 91.67
    assert data["firstFailures"][0]["case"] == "c1"
    assert data["completionTime"] == "2025-03-01T12:03:00Z"
    run = EvalRun.model_validate(
        {
            "metadata": {"name": "r"},
            "spec": {"caseSetRef": {"name": "cs"}, "target": {"responses": {"inline": {"c1": "x"}}}},
            "status": data,
        }
    )
    assert run.status == status


def test_verdict_names_and_phases() -> None:
    assert [VerdictName.of(v).value for v in Verdict] == ["PASS", "FAIL", "ERROR", "WARN"]
    assert [VerdictName(v).exit_code for v in ("PASS", "FAIL", "ERROR", "WARN")] == [0, 1, 2, 3]
    assert VerdictName.ERROR.verdict is Verdict.ERROR
    assert {p for p in RunPhase if p.terminal} == {
        RunPhase.EVALUATED,
        RunPhase.PARTIALLY_EVALUATED,
        RunPhase.FAILED,
    }


def test_times_are_utc_seconds_and_must_carry_a_zone() -> None:
    local = datetime(2025, 3, 1, 14, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    summary = RecentRun(
        name="r",
        verdict=VerdictName.PASS,
        digest="sha256:" + "0" * 64,
        provenance="sha256:" + "1" * 64,
        completion_time=local,
    )
    assert summary.completion_time == NOW
    assert dump(summary)["completionTime"] == "2025-03-01T12:00:00Z"
    with pytest.raises(ValidationError, match="must carry a time zone"):
        RecentRun(
            name="r",
            verdict=VerdictName.PASS,
            digest="sha256:" + "0" * 64,
            provenance="sha256:" + "1" * 64,
            completion_time=datetime(2025, 1, 1),
        )


def test_tier_summary_rounds_rates_for_printing() -> None:
    assert TierSummary(rate=95.833333, threshold=95).rate == 95.83
    assert TierSummary(threshold=95).rate is None


def test_assertion_model_is_unchanged_for_its_users() -> None:
    a = Assertion.model_validate({"type": "not-contains", "value": "NORMAL"})
    assert (a.base_type, a.negated) == ("contains", True)
    with pytest.raises(ValidationError, match="unknown assertion type 'bogus'"):
        Assertion.model_validate({"type": "bogus"})

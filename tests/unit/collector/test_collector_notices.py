"""The notice rules that need no database: the webhook signature, what approving a recommendation
needs, the actions policy's validation, the Alertmanager payload, and the cause of an incident."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.api import ActionPolicy, AgentMonitor, EvalProfile, ManifestError, parse_monitor
from proctor.collector.incidents import JudgedRun, cause_of, decide_recommendation
from proctor.collector.monitors import Monitor, build
from proctor.collector.notices import alert_payload, sign, verify
from proctor.store import AlertView, IncidentView, SpanRecord, Trajectory


def monitor(**spec: Any) -> Monitor:
    body = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "AgentMonitor",
        "metadata": {"name": "oil-agent", "namespace": "demo"},
        "spec": {"agent": {"serviceName": "oil-agent"}, "profileRef": {"name": "p"}, **spec},
    }
    profile = EvalProfile.model_validate(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": "p", "namespace": "demo"},
            "spec": {},
        }
    )
    return build([AgentMonitor.model_validate(body)], [profile], default_token=None).monitors[
        "demo/oil-agent"
    ]


def incident(*recs: tuple[str, str]) -> IncidentView:
    return IncidentView(
        id="inc-1",
        monitor="demo/oil-agent",
        agent="oil-agent",
        revision="2.0",
        series="demo/oil-agent|2.0",
        state="open",
        severity="high",
        signatures=("breach:task_success",),
        probable_cause="",
        cause={},
        recommendations=tuple({"id": r, "state": s} for r, s in recs),
        runs=1,
        run_ids=(),
        opened_at=0.0,
        updated_at=0.0,
        acknowledged_at=None,
        acknowledged_by=None,
        resolved_at=None,
    )


def test_a_signature_verifies_only_for_its_key_timestamp_and_body() -> None:
    body = b'{"kind":"notify"}'
    signature = sign("k1", "1700000000", body)
    assert signature.startswith("sha256=") and verify("k1", "1700000000", body, signature)
    assert not verify("k2", "1700000000", body, signature)
    assert not verify("k1", "1700000001", body, signature)  # a replayed body under another time
    assert not verify("k1", "1700000000", body + b" ", signature)


def test_approving_needs_a_proposed_recommendation_and_a_policy_that_does_not_deny_it() -> None:
    inc = incident(("rollback", "proposed"), ("capture-cases", "approved"))
    allowed = monitor()
    assert decide_recommendation(inc, allowed, "rollback", "approve") is None
    assert decide_recommendation(inc, allowed, "rollback", "dismiss") is None
    denied = monitor(actions={"rollback": "Deny"})
    status, message = decide_recommendation(inc, denied, "rollback", "approve") or (0, "")
    assert status == 403 and "spec.actions" in message
    assert decide_recommendation(inc, denied, "rollback", "dismiss") is None  # saying no is always allowed
    assert (decide_recommendation(inc, allowed, "capture-cases", "approve") or (0,))[0] == 409
    assert (decide_recommendation(inc, allowed, "hold-canary", "approve") or (0,))[0] == 404  # not offered
    assert (decide_recommendation(inc, allowed, "delete-prod", "approve") or (0,))[
        0
    ] == 404  # not in the catalogue
    assert (decide_recommendation(inc, None, "rollback", "approve") or (0,))[0] == 409


def test_rollback_cannot_be_allowed_without_approval() -> None:
    body = monitor().resource.model_dump(by_alias=True, mode="json", exclude_none=True)
    body["spec"]["actions"] = {"rollback": "Allow"}
    with pytest.raises(ManifestError, match=r"rollback cannot be undone"):
        parse_monitor(body)
    spec = monitor(actions={"holdCanary": "Allow"}).resource.spec.actions
    assert spec.policy_for("hold-canary") is ActionPolicy.ALLOW
    assert spec.policy_for("review-judge") is ActionPolicy.REQUIRE_APPROVAL


def test_a_firing_alert_ends_a_few_resend_periods_ahead_and_a_resolved_one_when_it_ended() -> None:
    labels = {"alertname": "ProctorBreach", "namespace": "demo", "monitor": "oil-agent", "incident": "inc-1"}
    firing = alert_payload(
        AlertView("k", "demo/oil-agent", "demo/oil-agent|2.0", "ProctorBreach", labels, {}, 100.0, None),
        1000.0,
        "http://c",
    )
    assert firing["endsAt"] == "1970-01-01T00:20:40.000Z"  # 1000 + 4 x 60 s
    assert firing["generatorURL"] == "http://c/api/v1/incidents/inc-1"
    ended = alert_payload(
        AlertView("k", "demo/oil-agent", "demo/oil-agent|2.0", "ProctorBreach", labels, {}, 100.0, 500.0),
        1000.0,
        "http://c",
    )
    assert ended["endsAt"] == "1970-01-01T00:08:20.000Z"


def test_the_cause_names_the_failed_tool_the_judged_step_and_the_traces() -> None:
    def span(sid: str, op: str, **attrs: Any) -> SpanRecord:
        return SpanRecord(
            "t" * 32,
            sid,
            op,
            1_000_000_000,
            2_000_000_000,
            operation=op,
            attributes=attrs,
            status_code=2 if attrs.pop("failed", False) else 0,
        )

    trajectory = Trajectory(
        spans=(
            span(
                "a" * 16,
                "execute_tool",
                **{"gen_ai.tool.name": "lookup", "gen_ai.tool.call.result": "x", "failed": True},
            ),
            span(
                "b" * 16, "execute_tool", **{"gen_ai.tool.name": "oil_bands", "gen_ai.tool.call.result": "y"}
            ),
            span(
                "c" * 16,
                "chat",
                **{"gen_ai.output.messages": '[{"role": "assistant", "content": "secret words"}]'},
            ),
        ),
        events=(),
    )
    cause = cause_of(JudgedRun("r1", "r1:1", "oil-agent", "2.0", (), trajectory), ["task_success"])
    assert cause["tool"] == "lookup" and cause["toolFailed"] is True
    assert cause["step"]["kind"] == "output" and cause["step"]["source"] == "span:" + "c" * 16
    assert cause["traceIds"] == ["t" * 32] and cause["revision"] == "2.0"
    assert "secret words" not in repr(cause)  # names and positions, never content

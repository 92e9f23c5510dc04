"""The GatePolicy reconciler's decisions on plain data: which Deployments, their status entries, the
canary's finding and the policy's conditions."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from proctor.api import EvalRun, GatedWorkload, GatePolicy, Reason, VerdictName, dump
from proctor.gate.actions import effective_mode
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    PENDING_ANNOTATION,
    template_hash,
)
from proctor.protocol import Canary, Determinism
from proctor.reconcile.gates import (
    Workload,
    canary_names,
    canary_result,
    exam_name,
    policy_conditions,
    short,
    workload_entry,
    workload_query,
)

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
TEMPLATE = {"spec": {"containers": [{"name": "agent", "image": "agent:2"}]}}


def policy(**spec: Any) -> GatePolicy:
    return GatePolicy.model_validate(
        {
            "metadata": {"name": "oil", "namespace": "team", "uid": "u", "generation": 4},
            "spec": {"caseSetRef": {"name": "cs"}, "candidate": {"port": 8080}, **spec},
        }
    )


def deployment(**annotations: str) -> dict[str, Any]:
    return {
        "metadata": {"name": "agent", "namespace": "team", "uid": "d", "annotations": annotations},
        "spec": {"paused": True, "template": TEMPLATE},
    }


def test_the_label_selects_and_the_selector_narrows() -> None:
    assert workload_query(policy()) == "proctor.dev/gate-policy=oil"
    narrowed = policy(
        selector={
            "matchLabels": {"tier": "prod"},
            "matchExpressions": [
                {"key": "region", "operator": "In", "values": ["eu", "us"]},
                {"key": "canary", "operator": "DoesNotExist"},
            ],
        }
    )
    assert workload_query(narrowed) == "proctor.dev/gate-policy=oil,tier=prod,region in (eu,us),!canary"


def test_a_listed_deployment_is_referenced_by_kind() -> None:
    w = Workload.of(deployment())
    assert (w.ref.kind, w.ref.api_version, w.ref.namespace, w.name) == (
        "Deployment",
        "apps/v1",
        "team",
        "agent",
    )
    assert w.current == template_hash(TEMPLATE) and w.paused
    assert w.pending is None and w.approved_template is None


def test_an_entry_keeps_what_is_known_of_the_last_exam() -> None:
    w = Workload.of(deployment(**{APPROVED_ANNOTATION: "sha256:" + "1" * 64}))
    prev = GatedWorkload(
        name="agent", verdict=VerdictName.FAIL, run="agent-2222", attempt="t1", message="old"
    )
    out = dump(workload_entry(w, prev), only_set=True)
    assert out == {
        "name": "agent",
        "revision": short(w.current),
        "approvedRevision": "1" * 12,
        "verdict": "FAIL",
        "run": "agent-2222",
        "attempt": "t1",
    }
    assert dump(workload_entry(w, None), only_set=True).keys() == {"name", "revision", "approvedRevision"}


def test_runs_are_named_after_the_template_and_the_policy_generation() -> None:
    assert exam_name("agent", "sha256:" + "ab" * 32) == "agent-" + "ab" * 6
    assert canary_names(policy(canary={"runs": 2}), "0123456789ab") == [
        "oil-canary-g4-0123456789ab-1",
        "oil-canary-g4-0123456789ab-2",
    ]


def run(name: str, phase: str | None, safety: float | None = 100.0) -> EvalRun:
    status: dict[str, Any] = {}
    if phase:
        status = {"phase": phase, "verdict": "PASS", "provenance": {"caseSet": "sha256:" + "a" * 64}}
        if safety is not None:
            status["tiers"] = {
                "safety": {"passed": 1, "measured": 1, "total": 1, "rate": safety, "threshold": 100}
            }
    return EvalRun.model_validate(
        {
            "metadata": {"name": name},
            "spec": {"caseSetRef": {"name": "cs"}, "target": {"responses": {"inline": {}}}},
            "status": status,
        }
    )


def test_the_canary_decides_only_once_its_runs_finished() -> None:
    names = ["c-1", "c-2"]
    canary, progress = canary_result([run("c-1", "Evaluated"), run("c-2", "Running")], names, 2)
    assert canary is None
    assert dump(progress, only_set=True) == {"required": 2, "runs": names, "safetyRates": [100.0]}
    canary, _ = canary_result([run("c-1", "Evaluated"), run("c-2", "Evaluated")], names, 2)
    assert canary is not None and canary.state is Determinism.TRUE
    moved, _ = canary_result([run("c-1", "Evaluated"), run("c-2", "Evaluated", 50.0)], names, 2)
    assert moved is not None and moved.state is Determinism.FALSE


def test_the_conditions_follow_the_mode_the_canary_the_blocks_and_the_breaker() -> None:
    spec = policy().spec.circuit_breaker
    stable = Canary(Determinism.TRUE, "ZeroSafetyVariance", "stable")
    held = GatedWorkload(name="agent", verdict=VerdictName.FAIL, blocked=True, message="FAIL: safety 50%")
    conds = policy_conditions(
        [],
        mode=effective_mode("Enforce", stable),
        canary=stable,
        blocked=[held],
        breaker=(False, 1),
        spec=spec,
        now=NOW,
        generation=4,
    )
    got = {c.type: (c.status, c.reason) for c in conds}
    assert got == {
        "Enforcing": ("True", "Enforcing"),
        "Deterministic": ("True", "ZeroSafetyVariance"),
        "RolloutBlocked": ("True", Reason.VERDICT_FAILED),
        "CircuitOpen": ("False", "WithinBudget"),
    }
    assert next(c for c in conds if c.type == "RolloutBlocked").message == "agent: FAIL: safety 50%"
    observing = policy_conditions(
        conds,
        mode=effective_mode("Observe", None),
        canary=None,
        blocked=[],
        breaker=(True, 4),
        spec=spec,
        now=NOW,
        generation=4,
    )
    got = {c.type: (c.status, c.reason) for c in observing}
    assert got["Deterministic"] == ("Unknown", "NotEnoughRuns")
    assert got["RolloutBlocked"] == ("False", "ObserveOnly")
    assert got["CircuitOpen"] == ("True", "TooManyBlocks")


def test_the_approved_template_is_read_back_as_recorded() -> None:
    w = Workload.of(
        deployment(**{APPROVED_TEMPLATE_ANNOTATION: json.dumps(TEMPLATE), PENDING_ANNOTATION: "sha256:x"})
    )
    assert w.approved_template == TEMPLATE and w.pending == "sha256:x"

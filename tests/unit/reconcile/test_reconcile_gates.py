"""The GatePolicy reconciler's decisions on plain data: which Deployments, their status entries, the
canary's finding and the policy's conditions."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from proctor.api import EvalRun, GatedWorkload, GatePolicy, Reason, VerdictName, dump
from proctor.gate.actions import effective_mode, webhook_reached
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    PENDING_ANNOTATION,
    template_hash,
)
from proctor.k8s.objects import policy_run
from proctor.protocol import Canary, Determinism
from proctor.reconcile.gates import (
    Identity,
    Workload,
    canary_names,
    canary_result,
    exam_name,
    policy_conditions,
    run_problem,
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


def test_runs_are_named_after_the_identity_and_what_it_was_read_at() -> None:
    ident = Identity("sha256:" + "ab" * 32, "sha256:" + "cd" * 32)
    assert exam_name("agent", ident) == f"agent-{'ab' * 6}-{'cd' * 3}"
    # other content, or the same content written again while an exam ran, is another exam
    assert exam_name("agent", Identity("sha256:" + "ef" * 32, ident.observed)) != exam_name("agent", ident)
    assert exam_name("agent", Identity(ident.digest, "sha256:" + "00" * 32)) != exam_name("agent", ident)
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
        mode=effective_mode("Enforce", stable, webhook_reached()),
        canary=stable,
        blocked=[held],
        breakers={},
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
        mode=effective_mode("Observe", None, webhook_reached()),
        canary=None,
        blocked=[],
        breakers={"agent": 4},
        spec=spec,
        now=NOW,
        generation=4,
    )
    got = {c.type: (c.status, c.reason) for c in observing}
    assert got["Deterministic"] == ("Unknown", "NotEnoughRuns")
    assert got["RolloutBlocked"] == ("False", "ObserveOnly")
    assert got["CircuitOpen"] == ("True", "TooManyBlocks")
    assert "agent (4 blocks)" in next(c for c in observing if c.type == "CircuitOpen").message


def test_a_pass_the_canary_holds_raises_rollout_blocked_with_its_reason() -> None:
    spec = policy().spec.circuit_breaker
    varying = Canary(Determinism.FALSE, "SafetyVariance", "safety moved")
    held = GatedWorkload(name="b", verdict=VerdictName.PASS, blocked=True, message="PASS, held: canary")
    conds = policy_conditions(
        [],
        mode=effective_mode("Enforce", varying, webhook_reached()),
        canary=varying,
        blocked=[held],
        breakers={},
        spec=spec,
        now=NOW,
        generation=4,
    )
    got = {c.type: (c.status, c.reason) for c in conds}
    assert got["Enforcing"] == ("True", Reason.CANARY_UNSETTLED)
    assert got["RolloutBlocked"] == ("True", Reason.CANARY_UNSETTLED)


def test_the_approved_template_is_read_back_as_recorded() -> None:
    w = Workload.of(
        deployment(
            **{
                APPROVED_TEMPLATE_ANNOTATION: json.dumps(TEMPLATE),
                APPROVED_ANNOTATION: template_hash(TEMPLATE),
                PENDING_ANNOTATION: "sha256:x",
            }
        )
    )
    assert w.approved_template == TEMPLATE and w.pending == "sha256:x"
    # a recorded template that is not the approved hash is not believed (the canary never runs on it)
    other = {"spec": {"containers": [{"name": "agent", "image": "agent:evil"}]}}
    w = Workload.of(
        deployment(
            **{APPROVED_TEMPLATE_ANNOTATION: json.dumps(other), APPROVED_ANNOTATION: template_hash(TEMPLATE)}
        )
    )
    assert w.approved_template is None


# --- the gate decides only from its own runs --------------------------------------------------------------


def own_run(p: GatePolicy, kind: str = "exam", template: dict[str, Any] = TEMPLATE, **meta: Any) -> EvalRun:
    body = policy_run(p, kind, "agent-x", template, workload="agent")
    body["metadata"] |= meta
    return EvalRun.model_validate(body)


def test_the_policys_own_run_is_trusted() -> None:
    p = policy()
    assert run_problem(own_run(p), p, "exam", template_hash(TEMPLATE)) is None
    assert run_problem(own_run(p, "canary"), p, "canary", template_hash(TEMPLATE)) is None


def test_a_run_someone_else_made_under_the_exams_name_is_not_trusted() -> None:
    """Anyone who may create EvalRuns can squat the exam's (predictable) name; what it examines,
    on which cases, whose it is, is compared, so its verdict never approves the template."""
    p = policy()
    h = template_hash(TEMPLATE)
    trivial = own_run(p)
    trivial.spec.case_set_ref.name = "trivial"
    other_container = own_run(p)
    assert other_container.spec.target.candidate is not None
    other_container.spec.target.candidate.container = "sidecar-that-answers-right"
    cases = {
        "not owned": own_run(p, ownerReferences=[]),
        "owned by another policy": own_run(
            p, ownerReferences=[{"kind": "GatePolicy", "name": "oil", "uid": "other", "controller": True}]
        ),
        "not labelled": own_run(p, labels={}),
        "another template": own_run(
            p, template={"spec": {"containers": [{"name": "agent", "image": "agent:1"}]}}
        ),
        "another case set": trivial,
        "another candidate container": other_container,
        "a canary for an exam": own_run(p, "canary"),
    }
    for what, r in cases.items():
        assert run_problem(r, p, "exam", h) is not None, what
    recorded = EvalRun.model_validate(
        {
            "metadata": {
                "name": "agent-x",
                **{k: v for k, v in policy_run(p, "exam", "x", TEMPLATE)["metadata"].items() if k != "name"},
            },
            "spec": {
                "caseSetRef": {"name": "cs"},
                "policyRef": {"name": "oil"},
                "target": {"responses": {"inline": {"a": "b"}}},
            },
        }
    )
    assert "another pod template" in (run_problem(recorded, p, "exam", h) or "")


def test_a_run_of_another_identity_or_other_pinned_cases_is_not_trusted() -> None:
    """The exam records the identity it examines and pins the cases it was given: a run of the same
    name that examined other content, or pinned other cases than the identity's, approves nothing."""
    p = policy()
    h, ident, cases = template_hash(TEMPLATE), "sha256:" + "1" * 64, "sha256:" + "2" * 64
    body = policy_run(p, "exam", "agent-x", TEMPLATE, workload="agent", identity=ident)
    assert run_problem(EvalRun.model_validate(body), p, "exam", h, identity=ident, case_digest=cases) is None
    other = policy_run(p, "exam", "agent-x", TEMPLATE, workload="agent", identity="sha256:" + "3" * 64)
    assert "another identity" in (
        run_problem(EvalRun.model_validate(other), p, "exam", h, identity=ident) or ""
    )
    pinned = EvalRun.model_validate(
        body
        | {
            "status": {
                "snapshot": {"caseSet": "cs", "digest": "sha256:" + "4" * 64, "cases": 1, "configMaps": ["c"]}
            }
        }
    )
    assert "other cases" in (run_problem(pinned, p, "exam", h, identity=ident, case_digest=cases) or "")

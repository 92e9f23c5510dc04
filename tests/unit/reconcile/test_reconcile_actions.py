"""The pure decisions behind the operator's actions on approved recommendations (issue 29)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import pytest
from kubernetes.client.exceptions import ApiException

from proctor.api import AgentMonitor
from proctor.gate.admission import APPROVED_ANNOTATION, APPROVED_TEMPLATE_ANNOTATION, template_hash
from proctor.k8s.kube import KubeError
from proctor.reconcile.actions import (
    REVISION_ANNOTATION,
    Pending,
    Refused,
    held,
    merged_cases,
    parse_pending,
    perform_actions,
    rollback_template,
)
from proctor.reconcile.runtime import ObjectRef, Outcome


def test_hold_canary_merges_with_what_is_held() -> None:
    assert held(None, "v2") == "v2"
    assert held("v1", "v2") == "v1,v2"
    assert held(" v1 , v2 ", "v2") is None  # held already: nothing to change
    assert held("*", "v3") is None
    assert held("v1", None) == "v1,*"  # no revision known: every revision


def test_captured_cases_are_appended_never_duplicated() -> None:
    existing = [{"id": "a", "input": "kept as it is"}]
    merged, added = merged_cases(existing, [{"id": "a", "input": "new"}, {"id": "b"}, {"id": "b"}])
    assert merged == [{"id": "a", "input": "kept as it is"}, {"id": "b"}]
    assert added == ["b"]
    assert merged_cases(merged, [{"id": "b"}])[1] == []


def _template(image: str) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a", "image": image}]}}


def _deployment(image: str, **annotations: str) -> dict[str, Any]:
    return {
        "metadata": {"name": "agent", "namespace": "team", "uid": "d-1", "annotations": annotations},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": _template(image)},
    }


def _rs(name: str, image: str, revision: int, owner: str = "d-1") -> dict[str, Any]:
    template = _template(image)
    template["metadata"]["labels"]["pod-template-hash"] = name[-5:]
    return {
        "metadata": {
            "name": name,
            "annotations": {REVISION_ANNOTATION: str(revision)},
            "ownerReferences": [{"kind": "Deployment", "uid": owner, "name": "agent"}],
        },
        "spec": {"template": template},
    }


def test_rollback_without_a_gate_is_kubectl_rollout_undo() -> None:
    d = _deployment("agent:3")
    sets = [
        _rs("agent-aaaa1", "agent:1", 1),
        _rs("agent-aaaa2", "agent:2", 2),
        _rs("agent-aaaa3", "agent:3", 3),
    ]
    template, source = rollback_template(d, sets)
    assert template == _template("agent:2")  # the controller's pod-template-hash is not carried back
    assert "agent-aaaa2" in source and "revision 2" in source
    # another Deployment's ReplicaSets are not this one's history
    with pytest.raises(Refused, match="no earlier ReplicaSet"):
        rollback_template(d, [_rs("x-bbbb2", "agent:2", 2, owner="other"), sets[2]])
    with pytest.raises(Refused, match="no known good revision"):
        rollback_template(d, [sets[2]])


def test_rollback_under_a_gate_policy_goes_to_its_approved_template() -> None:
    approved = _template("agent:1")
    h = template_hash(approved)
    d = _deployment("agent:3", **{APPROVED_ANNOTATION: h, APPROVED_TEMPLATE_ANNOTATION: json.dumps(approved)})
    template, source = rollback_template(d, [_rs("agent-aaaa2", "agent:2", 2)])
    assert template == approved and h[:12] in source  # the approval decides, not the ReplicaSets
    same = _deployment(
        "agent:1", **{APPROVED_ANNOTATION: h, APPROVED_TEMPLATE_ANNOTATION: json.dumps(approved)}
    )
    with pytest.raises(Refused, match="is the one its GatePolicy last approved"):
        rollback_template(same, [_rs("agent-aaaa2", "agent:2", 2)])
    forged = _deployment(
        "agent:3", **{APPROVED_ANNOTATION: h, APPROVED_TEMPLATE_ANNOTATION: json.dumps(_template("evil:1"))}
    )
    with pytest.raises(Refused, match="cannot be read"):
        rollback_template(forged, [])


def test_the_summarys_actions_are_parsed_and_junk_left_out() -> None:
    doc = [
        {"incident": "inc-1", "recommendation": "hold-canary", "revision": "v2", "failing": ["safety"]},
        {"incident": 3, "recommendation": "rollback"},
        "junk",
        {"incident": "inc-2"},
    ]
    assert parse_pending(doc) == (Pending("inc-1", "hold-canary", "v2", ("safety",), None),)
    assert parse_pending(None) == ()


class _Collector:
    """The collector's side of claims, as the operator sees it: one claim each, outcomes kept."""

    def __init__(self, *claimable: str) -> None:
        self.claimable = set(claimable)
        self.finished: list[tuple[str, str, bool, str]] = []

    async def claim(self, incident: str, rec: str) -> dict[str, Any] | None:
        if rec not in self.claimable:
            return None
        self.claimable.discard(rec)
        return {"incident": {"id": incident}, "recommendation": rec}

    async def finish(self, incident: str, rec: str, performed: bool, message: str) -> bool:
        self.finished.append((incident, rec, performed, message))
        return True


def _monitor(**spec: Any) -> AgentMonitor:
    return AgentMonitor.model_validate(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "AgentMonitor",
            "metadata": {"name": "oil-agent", "namespace": "team"},
            "spec": {"agent": {"serviceName": "oil-agent"}, "profileRef": {"name": "p"}, **spec},
        }
    )


def test_review_judge_says_what_to_run_and_a_rollback_without_target_is_refused_once() -> None:
    source = _Collector("review-judge", "rollback")
    out = Outcome()
    about = ObjectRef("AgentMonitor", "team", "oil-agent")
    due = (
        Pending("inc-1", "review-judge", "v2", ("factual_grounding",), "alice"),
        Pending("inc-1", "rollback", "v2", (), "alice"),
        Pending("inc-1", "hold-canary", "v2", (), "alice"),  # claimed by another operator: not performed
    )
    # no Kubernetes call is needed for these two: the runtime is never touched
    asyncio.run(perform_actions(cast(Any, None), source, _monitor(), about, due, out))
    (review, rollback) = out.events
    assert (review.type, review.reason) == ("Normal", "ActionPerformed")
    assert "proctor feedback" in review.message and "factual_grounding" in review.message
    assert (rollback.type, rollback.reason) == ("Warning", "ActionRefused")
    assert "spec.target" in rollback.message and "approved by alice" in rollback.message
    assert [(r, ok) for _, r, ok, _ in source.finished] == [("review-judge", True), ("rollback", False)]
    asyncio.run(perform_actions(cast(Any, None), source, _monitor(), about, due, Outcome()))
    assert len(source.finished) == 2  # each claimed once: nothing is performed twice


class _ChangingKube:
    """A CaseSet store whose object changes between a read and a write ``changes`` times (as the
    operator's own CaseSet handler annotates a CaseSet just created)."""

    def __init__(self, changes: int) -> None:
        self.changes = changes
        self.cases: list[dict[str, Any]] | None = None
        self.version = 0

    def get_or_none(self, kind: str, ns: str, name: str) -> dict[str, Any] | None:
        if self.cases is None:
            return None
        meta = {"name": name, "namespace": ns, "resourceVersion": str(self.version)}
        return {"metadata": meta, "spec": {"cases": list(self.cases)}}

    def create_custom(self, kind: str, ns: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        self.cases = list(obj["spec"]["cases"])
        return obj

    def patch_custom(self, kind: str, ns: str, name: str, patch: dict[str, Any]) -> None:
        if self.changes:
            self.changes -= 1
            self.version += 1
        if patch["metadata"]["resourceVersion"] != str(self.version):
            raise KubeError(f"CaseSet {ns}/{name}", ApiException(status=409, reason="Conflict"))
        self.cases = list(patch["spec"]["cases"])


class _Runtime:
    def __init__(self, kube: _ChangingKube) -> None:
        self.kube = kube

    async def call(self, fn: Any, *args: Any) -> Any:
        return fn(*args)


@pytest.mark.parametrize("changes", [0, 1, 4])
def test_captured_cases_land_at_once_when_the_caseset_changes_under_the_write(changes: int) -> None:
    kube = _ChangingKube(changes)
    source = _Collector("capture-cases")
    monitor = _monitor(captureTo={"name": "captured"})
    about = ObjectRef("AgentMonitor", "team", "oil-agent")
    kube.cases = [{"id": "live-1", "prompt": "q"}]
    claim = {"cases": [{"id": "live-2", "prompt": "q"}]}
    source.claim = lambda incident, rec: _done(claim)  # type: ignore[method-assign]
    out = Outcome()
    due = (Pending("inc-2", "capture-cases", "v2", (), "policy:Allow"),)
    asyncio.run(perform_actions(cast(Any, _Runtime(kube)), source, monitor, about, due, out))
    assert [c["id"] for c in kube.cases] == ["live-1", "live-2"]  # not left for the claim's lease
    assert [(r, ok) for _, r, ok, _ in source.finished] == [("capture-cases", True)]


def test_a_caseset_that_never_stops_changing_waits_for_the_lease_without_a_verdict() -> None:
    kube = _ChangingKube(changes=1000)
    kube.cases = [{"id": "live-1", "prompt": "q"}]
    source = _Collector()
    source.claim = lambda incident, rec: _done({"cases": [{"id": "live-2"}]})  # type: ignore[method-assign]
    out = Outcome()
    due = (Pending("inc-2", "capture-cases", "v2", (), "policy:Allow"),)
    monitor = _monitor(captureTo={"name": "captured"})
    asyncio.run(
        perform_actions(
            cast(Any, _Runtime(kube)), source, monitor, ObjectRef("AgentMonitor", "team", "m"), due, out
        )
    )
    assert source.finished == [] and out.events == []  # neither performed nor refused: claimed again later
    assert [c["id"] for c in kube.cases] == ["live-1"]


async def _done(value: Any) -> Any:
    return value

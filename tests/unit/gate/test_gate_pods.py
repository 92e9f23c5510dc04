"""Held means no pod of an unapproved template runs: the decisions on ReplicaSets and Pods."""

from __future__ import annotations

from typing import Any

from gating import gate_policy
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    BREAK_GLASS_TEMPLATE_ANNOTATION,
    GATE_LABEL,
    GateEntry,
    template_hash,
)
from proctor.gate.pods import (
    POD_MAKERS,
    POD_TEMPLATE_HASH_LABEL,
    Gated,
    adds_pods,
    admit_pod,
    admit_replicaset,
    replicaset_template_hash,
)


def _template(image: str) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "agent", GATE_LABEL: "oil"}},
        "spec": {"containers": [{"name": "agent", "image": image}]},
    }


V1, V2 = _template("agent:v1"), _template("agent:v2")
H1, H2 = template_hash(V1), template_hash(V2)


def _deployment(template: dict[str, Any], approved: str | None, **ann: str) -> dict[str, Any]:
    annotations = ({APPROVED_ANNOTATION: approved} if approved else {}) | ann
    return {
        "metadata": {
            "name": "agent",
            "uid": "d-1",
            "labels": {GATE_LABEL: "oil"},
            "annotations": annotations,
        },
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template, "paused": True},
    }


def _gated(d: dict[str, Any], mode: str = "Enforce") -> Gated:
    g = Gated.of(d, [GateEntry(mode)])
    assert g is not None
    return g


def _rs(
    template: dict[str, Any], replicas: int, *, owner: str | None = "d-1", k8s_hash: str = "abc"
) -> dict[str, Any]:
    """A ReplicaSet as the Deployment controller makes one: the template plus pod-template-hash."""
    t = {
        **template,
        "metadata": {"labels": {**template["metadata"]["labels"], POD_TEMPLATE_HASH_LABEL: k8s_hash}},
    }
    owners = [{"kind": "Deployment", "uid": owner, "controller": True}] if owner else []
    return {
        "metadata": {"name": f"agent-{k8s_hash}", "uid": f"rs-{k8s_hash}", "ownerReferences": owners},
        "spec": {"replicas": replicas, "template": t},
    }


HELD = _gated(_deployment(V2, H1))  # v1 approved, v2 set and held


def test_the_controllers_copy_of_the_template_hashes_as_the_deployments() -> None:
    assert replicaset_template_hash(_rs(V1, 1)["spec"]["template"]) == H1


def test_an_old_replicaset_of_the_failed_template_may_not_be_scaled_up() -> None:
    """The issue's attack: scaling the held Deployment to 0 and back makes the controller scale the
    newest ReplicaSet (v2's); and kubectl scale rs does it directly."""
    v2 = _rs(V2, 3, k8s_hash="v2")
    assert adds_pods(v2, _rs(V2, 0, k8s_hash="v2"))
    d = admit_replicaset(v2, [HELD])
    assert not d.allowed
    assert "not the one GatePolicy oil approved for Deployment agent" in d.message
    assert "scaling down is allowed" in d.message


def test_scaling_down_and_the_approved_template_pass() -> None:
    """The controllers drain a failed template (a rollback) and run the approved one."""
    assert not adds_pods(_rs(V2, 1, k8s_hash="v2"), _rs(V2, 3, k8s_hash="v2"))
    assert not adds_pods(_rs(V2, 0, k8s_hash="v2"), None)  # created empty
    assert not adds_pods(_rs(V2, 2), _rs(V2, 2))  # an annotation changed, nothing else
    assert admit_replicaset(_rs(V1, 3, k8s_hash="v1"), [HELD]).allowed


def test_a_replicaset_made_by_hand_with_the_failed_template_is_refused() -> None:
    """Not owned by the Deployment, without the gate label: its pods carry the selector's labels."""
    hand = _rs(V2, 1, owner=None)
    hand["spec"]["template"]["metadata"]["labels"].pop(GATE_LABEL)
    assert adds_pods(hand, None)
    assert not admit_replicaset(hand, [HELD]).allowed
    # changing an approved ReplicaSet's template to the failed one, at the same scale: refused too
    assert adds_pods(_rs(V2, 2, k8s_hash="v1"), _rs(V1, 2, k8s_hash="v1"))
    # pods no gated Deployment selects are not the gate's
    other = _rs({**V2, "metadata": {"labels": {"app": "other"}}}, 1, owner=None)
    assert admit_replicaset(other, [HELD]).allowed


def test_break_glass_and_observing_policies_let_the_template_run() -> None:
    glass = _gated(_deployment(V2, H1, **{BREAK_GLASS_TEMPLATE_ANNOTATION: H2}))
    assert admit_replicaset(_rs(V2, 3), [glass]).allowed
    observing = _gated(_deployment(V2, H1), mode="Observe")
    assert admit_replicaset(_rs(V2, 3), [observing]).allowed
    # a label naming a policy the webhook does not know holds (fail closed)
    unknown = Gated.of(_deployment(V2, H1), [])
    assert unknown is not None and not admit_replicaset(_rs(V2, 3), [unknown]).allowed


def test_pods_of_a_gated_workload_are_made_only_by_its_approved_replicasets() -> None:
    v1, v2 = _rs(V1, 3, k8s_hash="v1"), _rs(V2, 3, k8s_hash="v2")

    def pod(rs: dict[str, Any] | None, image: str) -> dict[str, Any]:
        owners = [{"kind": "ReplicaSet", "uid": rs["metadata"]["uid"], "controller": True}] if rs else []
        return {
            "metadata": {"generateName": "agent-", "labels": {"app": "agent"}, "ownerReferences": owners},
            "spec": {"containers": [{"name": "agent", "image": image}]},
        }

    kcm = POD_MAKERS[0]
    assert admit_pod(pod(v1, "agent:v1"), kcm, [HELD], owner=v1).allowed
    refused = admit_pod(pod(v2, "agent:v2"), kcm, [HELD], owner=v2)
    assert not refused.allowed and "not the one GatePolicy oil approved" in refused.message
    # by hand: refused whatever it runs, even naming the approved ReplicaSet as its owner
    for p, owner in ((pod(None, "agent:v2"), None), (pod(None, "agent:v1"), None), (pod(v1, "agent:v2"), v1)):
        d = admit_pod(p, "tenant", [HELD], owner=owner)
        assert not d.allowed and "only its ReplicaSets make" in d.message
    # the controller naming an owner that does not exist, or another ReplicaSet than it names
    assert not admit_pod(pod(v1, "agent:v2"), kcm, [HELD], owner=None).allowed
    assert not admit_pod(pod(v2, "agent:v2"), kcm, [HELD], owner=v1).allowed
    # pods the Deployment does not select, and policies that observe, are not the gate's
    stranger = pod(None, "agent:v2") | {"metadata": {"labels": {"app": "other"}}}
    assert admit_pod(stranger, "tenant", [HELD], owner=None).allowed
    observing = _gated(_deployment(V2, H1), mode="Observe")
    assert admit_pod(pod(None, "agent:v2"), "tenant", [observing], owner=None).allowed


def test_only_gated_deployments_govern() -> None:
    plain = _deployment(V2, None)
    plain["metadata"]["labels"] = {}
    assert Gated.of(plain, [GateEntry("Enforce")]) is None
    # a selector its policy does not match: not gated
    d = _deployment(V2, H1)
    entry = GateEntry.of(
        gate_policy({"selector": {"matchLabels": {"tier": "prod"}}}, {"effectiveEnforcement": "Enforce"})
    )
    assert Gated.of(d, [entry]) is None


def test_changed_content_under_the_approved_template_makes_no_pods_until_examined() -> None:
    """A ConfigMap the approved template reads changed (the operator wrote a pending identity that
    differs from the approved one): even the approved template's ReplicaSet may not scale up, nor its
    pods start, for they would read the unexamined content; the same identity again lets them."""
    from proctor.gate.admission import APPROVED_IDENTITY_ANNOTATION, PENDING_IDENTITY_ANNOTATION

    ids = {
        APPROVED_IDENTITY_ANNOTATION: "sha256:" + "a" * 64,
        PENDING_IDENTITY_ANNOTATION: "sha256:" + "b" * 64,
    }
    changed = _gated(_deployment(V1, H1, **ids))
    v1 = _rs(V1, 3, k8s_hash="v1")
    assert not admit_replicaset(v1, [changed]).allowed
    pod = {
        "metadata": {
            "generateName": "agent-",
            "labels": {"app": "agent"},
            "ownerReferences": [{"kind": "ReplicaSet", "uid": v1["metadata"]["uid"], "controller": True}],
        },
        "spec": {"containers": [{"name": "agent", "image": "agent:v1"}]},
    }
    assert not admit_pod(pod, POD_MAKERS[0], [changed], owner=v1).allowed
    refusal = admit_replicaset(v1, [changed]).message
    assert "changed since the approval" in refusal and "scaling down is allowed" in refusal
    assert not adds_pods(_rs(V1, 0, k8s_hash="v1"), v1), "draining is never checked"
    same = ids | {PENDING_IDENTITY_ANNOTATION: ids[APPROVED_IDENTITY_ANNOTATION]}
    examined = _gated(_deployment(V1, H1, **same))
    assert (
        admit_replicaset(v1, [examined]).allowed
        and admit_pod(pod, POD_MAKERS[0], [examined], owner=v1).allowed
    )

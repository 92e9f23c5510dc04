"""Held means no pod of an unapproved template runs (issue 23, guarantee 6), tried as the tenant.

The tenant is a ServiceAccount with a token-only kubeconfig (never the admin): it may edit
Deployments and their scale, ReplicaSets and their scale, ConfigMaps, and create Pods in its
namespace. v1 is approved, v2 was rolled out once and rolled back (so a ReplicaSet of v2 exists, at
zero), then the tenant sets v2 again and it is held. Every way to bring v2's pods back is tried: the
Deployment's scale subresource (to 0 and up: the controller then scales the newest ReplicaSet,
v2's), the old ReplicaSet's scale, a ReplicaSet made by hand with v2's template, a bare Pod with the
selector's labels. The real kube-controller-manager runs the Deployment and ReplicaSet controllers;
the operator (whose identity is the admin's here) serves the webhook.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import Cluster, wait_for
from proctor.gate.admission import APPROVED_ANNOTATION, GATE_LABEL, template_hash

pytestmark = pytest.mark.admission

TENANT_RULES = [
    {
        "apiGroups": ["apps"],
        "resources": ["deployments", "deployments/scale", "replicasets", "replicasets/scale"],
        "verbs": ["get", "list", "watch", "create", "update", "patch"],
    },
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "create", "update", "patch"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch", "create"]},
]


@pytest.fixture
def gate(start_operator: Callable[..., subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """The operator (as the admin) serving its webhook for this namespace."""
    return start_operator(webhook=True)


@pytest.fixture
def tenant(
    cluster: Cluster, namespace: str, tmp_path: Path
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """kubectl with a token-only kubeconfig of the ServiceAccount "tenant" (no client certificate)."""
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "tenant"}}
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(role | {"rules": TENANT_RULES}))
    cluster.kubectl("-n", namespace, "create", "serviceaccount", "tenant")
    cluster.kubectl(
        "-n",
        namespace,
        "create",
        "rolebinding",
        "tenant",
        "--role=tenant",
        f"--serviceaccount={namespace}:tenant",
    )
    token = cluster.kubectl("-n", namespace, "create", "token", "tenant", "--duration=1h").stdout.strip()
    admin = yaml.safe_load(cluster.kubeconfig.read_text())
    context = next(c for c in admin["contexts"] if c["name"] == admin["current-context"])["context"]
    server = dict(next(c for c in admin["clusters"] if c["name"] == context["cluster"])["cluster"])
    if "certificate-authority" in server:  # relative to the admin kubeconfig
        ca = Path(server["certificate-authority"])
        server["certificate-authority"] = str(ca if ca.is_absolute() else cluster.kubeconfig.parent / ca)
    kubeconfig = tmp_path / "tenant.kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": server}],
                "users": [{"name": "tenant", "user": {"token": token}}],
                "contexts": [
                    {"name": "c", "context": {"cluster": "c", "user": "tenant", "namespace": namespace}}
                ],
                "current-context": "c",
            }
        )
    )
    whoami = cluster.kubectl("--kubeconfig", str(kubeconfig), "auth", "whoami", "-o", "json", check=False)
    assert whoami.returncode == 0, whoami.stderr
    assert (
        json.loads(whoami.stdout)["status"]["userInfo"]["username"]
        == f"system:serviceaccount:{namespace}:tenant"
    )

    def as_tenant(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        return cluster.kubectl("--kubeconfig", str(kubeconfig), "-n", namespace, *args, check=False, **kw)

    return as_tenant


def _deployment(image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "agent", "labels": {"app": "agent", GATE_LABEL: "oil"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [{"name": "agent", "image": image, "command": ["sleep", "3600"]}]},
            },
        },
    }


def _image(obj: dict[str, Any]) -> str:
    spec = obj["spec"]["template"]["spec"] if "template" in obj["spec"] else obj["spec"]
    return str(spec["containers"][0]["image"])


def test_no_pod_of_a_held_template_runs_whatever_the_tenant_scales_or_creates(
    cluster: Cluster, namespace: str, gate: subprocess.Popen[bytes], tenant: Any, tmp_path: Path
) -> None:
    ns = namespace

    def deployment() -> dict[str, Any]:
        out: dict[str, Any] = cluster.get_json("-n", ns, "deployment", "agent")
        return out

    def replicasets() -> dict[str, dict[str, Any]]:
        """The Deployment's ReplicaSets by image."""
        items = cluster.get_json("-n", ns, "replicasets", "-l", "app=agent")["items"]
        return {_image(r): r for r in items}

    def pods(image: str) -> list[str]:
        items = cluster.get_json("-n", ns, "pods")["items"]
        return [p["metadata"]["name"] for p in items if _image(p) == image]

    def operator_patch(patch: dict[str, Any]) -> None:  # the admin is the operator's identity here
        cluster.kubectl("-n", ns, "patch", "deployment", "agent", "--type=merge", "-p", json.dumps(patch))

    # v1, approved by the operator; the webhook wrote the gate label into its pod template
    cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(_deployment("proctor:v1")))
    v1_template = deployment()["spec"]["template"]
    assert v1_template["metadata"]["labels"][GATE_LABEL] == "oil"
    h1 = template_hash(v1_template)
    operator_patch({"metadata": {"annotations": {APPROVED_ANNOTATION: h1}}, "spec": {"paused": False}})
    wait_for(lambda: pods("proctor:v1"), timeout=60, what="v1's pod")

    # v2 was exposed once (approved, rolled out), then the operator rolled it back: the controllers
    # drain v2's ReplicaSet and bring v1's back (the rollback path works through the webhook)
    assert tenant("set", "image", "deployment/agent", "agent=proctor:v2").returncode == 0
    v2_template = deployment()["spec"]["template"]
    h2 = template_hash(v2_template)
    operator_patch({"metadata": {"annotations": {APPROVED_ANNOTATION: h2}}, "spec": {"paused": False}})
    wait_for(lambda: pods("proctor:v2"), timeout=60, what="v2's pod (exposed)")
    operator_patch(
        {"metadata": {"annotations": {APPROVED_ANNOTATION: h1}}, "spec": {"template": v1_template}}
    )
    wait_for(
        lambda: (
            replicasets()["proctor:v2"]["spec"]["replicas"] == 0
            and replicasets()["proctor:v1"]["spec"]["replicas"] == 1
        ),
        timeout=60,
        what="the rollback: v2's ReplicaSet drained, v1's scaled up",
    )
    wait_for(lambda: not pods("proctor:v2"), timeout=60, what="v2's pod to be gone")
    v2_rs = replicasets()["proctor:v2"]["metadata"]["name"]

    # the tenant sets v2 again: held (paused, never approved)
    assert tenant("set", "image", "deployment/agent", "agent=proctor:v2").returncode == 0
    held = deployment()
    assert held["spec"]["paused"] is True and held["metadata"]["annotations"][APPROVED_ANNOTATION] == h1

    # 1. the Deployment's scale subresource, to 0 and back: the controller picks v2's ReplicaSet
    assert tenant("scale", "deployment/agent", "--replicas=0").returncode == 0
    wait_for(lambda: replicasets()["proctor:v1"]["spec"]["replicas"] == 0, timeout=60, what="v1 scaled to 0")
    assert tenant("scale", "deployment/agent", "--replicas=3").returncode == 0
    log = tmp_path / "operator-0.log"
    wait_for(
        lambda: f"ReplicaSet {v2_rs}" in log.read_text(errors="replace"),
        timeout=60,
        what="the webhook to refuse the Deployment controller's scale-up of v2's ReplicaSet",
    )

    # 2. the old ReplicaSet of the failed template, through its own scale subresource
    out = tenant("scale", f"replicaset/{v2_rs}", "--replicas=2")
    assert out.returncode != 0 and "not the one GatePolicy oil approved" in out.stderr, out.stderr

    # 3. a ReplicaSet made by hand with v2's template and the selector's labels (no gate label)
    hand_template = json.loads(json.dumps(v2_template))
    hand_template["metadata"]["labels"] = {"app": "agent"}
    hand = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "by-hand"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "agent"}}, "template": hand_template},
    }
    out = tenant("create", "-f", "-", input=json.dumps(hand))
    assert out.returncode != 0 and "not the one GatePolicy oil approved" in out.stderr, out.stderr

    # 4. bare Pods with the selector's labels: refused, whatever they run
    for image in ("proctor:v2", "proctor:v1"):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"bare-{image[-2:]}", "labels": {"app": "agent"}},
            "spec": {"containers": [{"name": "agent", "image": image, "command": ["sleep", "3600"]}]},
        }
        out = tenant("create", "-f", "-", input=json.dumps(pod))
        assert out.returncode != 0 and "only its ReplicaSets make" in out.stderr, out.stderr
    # a pod that is not the workload's is none of the gate's business
    other = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "other", "labels": {"app": "other"}},
        "spec": {"containers": [{"name": "c", "image": "proctor:v2", "command": ["sleep", "1"]}]},
    }
    assert tenant("create", "-f", "-", input=json.dumps(other)).returncode == 0

    # nothing of v2 runs in the namespace; its ReplicaSet is still at zero; v1 is still the approval
    assert [p for p in pods("proctor:v2") if p != "other"] == []
    assert replicasets()["proctor:v2"]["spec"]["replicas"] == 0
    assert "by-hand" not in {r["metadata"]["name"] for r in replicasets().values()}
    assert deployment()["metadata"]["annotations"][APPROVED_ANNOTATION] == h1

    # with the operator down, the ReplicaSet's scale (a Scale has no labels) is admitted, but the
    # pods of a gated template cannot be created: they carry the gate label, which fails closed
    gate.terminate()
    gate.wait(30)
    assert tenant("scale", f"replicaset/{v2_rs}", "--replicas=1").returncode == 0

    def failed_create() -> bool:
        events = cluster.get_json("-n", ns, "events", "--field-selector", f"involvedObject.name={v2_rs}")
        return any(
            e["reason"] == "FailedCreate" and "pods.gate.proctor.dev" in e["message"] for e in events["items"]
        )

    wait_for(failed_create, timeout=60, what="the ReplicaSet controller's FailedCreate (fail closed)")
    assert [p for p in pods("proctor:v2") if p != "other"] == []

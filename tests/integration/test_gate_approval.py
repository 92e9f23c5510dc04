"""What an approval covers, tried as the tenant: a ServiceAccount (a token-only kubeconfig) that may
edit Deployments, their scale and ConfigMaps in its namespace and create pods, nothing else.

- Guarantee 3: the approval is of the template *and* the content it reads, the cases and the policy.
  Changing only a ConfigMap the approved template reads holds the Deployment and starts a new exam
  (no PASS on other content is reused); the tenant's unpause is undone; a case-set change is a new
  exam too.
- Guarantee 5: the candidate cannot tell it is examined: a candidate whose behaviour depends on a
  label of its pod (through the downward API) sees the production value in the exam.
"""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, Cluster, wait_for
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_IDENTITY_ANNOTATION,
    PENDING_IDENTITY_ANNOTATION,
)

pytestmark = pytest.mark.admission  # a webhook configuration and gated Deployments

EXAMPLE = REPO / "examples" / "oil-monitoring"
FAST = {"PROCTOR_METRICS_PORT": "0", "PROCTOR_RECONCILE_INTERVAL": "1", "PROCTOR_RETRY_BACKOFF": "1,1,1,1"}
Kubectl = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def gate(crds: Cluster, namespace: str, start_operator: Callable[..., subprocess.Popen[bytes]]) -> None:
    """The operator with its admission webhook (on loopback), the example's case set and a policy that
    enforces after one canary run."""
    start_operator(webhook=True, **FAST)
    policy = yaml.safe_load((EXAMPLE / "gatepolicy.yaml").read_text())
    policy["spec"]["canary"] = {"runs": 1}
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(policy))


@pytest.fixture
def tenant(crds: Cluster, namespace: str, tmp_path: Path) -> Kubectl:
    """kubectl with a token-only kubeconfig of the ServiceAccount ``tenant``: Deployments and their
    scale, ConfigMaps, and creating pods, in its namespace; nothing of Proctor's kinds."""
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "tenant"},
        "rules": [
            {
                "apiGroups": ["apps"],
                "resources": ["deployments", "deployments/scale"],
                "verbs": ["get", "list", "watch", "create", "update", "patch"],
            },
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
            },
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch", "create"]},
        ],
    }
    crds.kubectl("-n", namespace, "create", "serviceaccount", "tenant")
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(role))
    crds.kubectl(
        "-n",
        namespace,
        "create",
        "rolebinding",
        "tenant",
        "--role=tenant",
        f"--serviceaccount={namespace}:tenant",
    )
    token = crds.kubectl("-n", namespace, "create", "token", "tenant", "--duration=3600s").stdout.strip()
    admin = yaml.safe_load(crds.kubectl("config", "view", "--raw", "--minify").stdout)
    cluster = admin["clusters"][0]["cluster"]
    if "certificate-authority" in cluster:
        ca = Path(cluster.pop("certificate-authority"))
        ca = ca if ca.is_absolute() else crds.kubeconfig.parent / ca
        cluster["certificate-authority-data"] = base64.b64encode(ca.read_bytes()).decode()
    kubeconfig = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": cluster}],
        "users": [{"name": "tenant", "user": {"token": token}}],
        "contexts": [{"name": "t", "context": {"cluster": "c", "user": "tenant", "namespace": namespace}}],
        "current-context": "t",
    }
    path = tmp_path / "tenant.kubeconfig"
    path.write_text(json.dumps(kubeconfig))
    path.chmod(0o600)
    assert "client-certificate" not in path.read_text()  # a token, nothing else

    def as_tenant(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        return crds.kubectl(f"--kubeconfig={path}", "-n", namespace, *args, check=False, **kw)

    who = as_tenant("auth", "can-i", "create", "evalruns.proctor.dev")
    assert who.stdout.strip() == "no", who  # the tenant cannot touch Proctor's kinds
    return as_tenant


def _deployment(name: str, template: dict[str, Any]) -> dict[str, Any]:
    labels = template["metadata"]["labels"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {**labels, "proctor.dev/gate-policy": "oil-monitoring"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": labels["app"]}}, "template": template},
    }


def _agent_template(
    app: str, *, image: str, env: list[dict[str, Any]], labels: dict[str, str]
) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": app, **labels}},
        "spec": {
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 10001,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "containers": [
                {
                    "name": "agent",
                    "image": image,
                    "ports": [{"containerPort": 8080}],
                    "env": [
                        {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                        *env,
                    ],
                    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 2},
                }
            ],
        },
    }


def _entry(crds: Cluster, ns: str, name: str) -> dict[str, Any]:
    status = crds.get_json("-n", ns, "gatepolicy", "oil-monitoring").get("status") or {}
    return next((w for w in status.get("workloads") or () if w["name"] == name), {})


def _annotations(crds: Cluster, ns: str, name: str) -> dict[str, str]:
    out: dict[str, str] = crds.get_json("-n", ns, "deployment", name)["metadata"].get("annotations") or {}
    return out


def _verdict(crds: Cluster, ns: str, run: str) -> str | None:
    status = crds.get_json("-n", ns, "evalrun", run).get("status") or {}
    return (
        status.get("verdict")
        if status.get("phase") in ("Evaluated", "PartiallyEvaluated", "Failed")
        else None
    )


def _approved(crds: Cluster, ns: str, name: str) -> str:
    """Waits until the Deployment's current content is approved and the policy enforces; the exam's name."""

    def done() -> str | None:
        entry = _entry(crds, ns, name)
        ann = _annotations(crds, ns, name)
        enforcing = any(
            c["type"] == "Enforcing" and c["status"] == "True"
            for c in (crds.get_json("-n", ns, "gatepolicy", "oil-monitoring").get("status") or {}).get(
                "conditions", []
            )
        )
        ok = entry.get("verdict") == "PASS" and APPROVED_IDENTITY_ANNOTATION in ann and enforcing
        return str(entry["run"]) if ok else None

    return str(wait_for(done, timeout=300, interval=1, what=f"{name} approved and the policy enforcing"))


def test_changing_only_a_referenced_configmap_is_held_and_examined_again(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """v1 behaviour is approved with its ConfigMap; the tenant switches the ConfigMap to the buggy
    behaviour without touching the Deployment. The operator holds the Deployment, examines the new
    content under a new exam (the old PASS is not reused), the exam FAILs and nothing is approved;
    unpausing is undone. Switching the ConfigMap back releases the hold without a new exam."""
    settings = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "agent-settings"},
        "data": {"version": "v1"},
    }
    assert tenant("apply", "-f", "-", input=json.dumps(settings)).returncode == 0
    env = [
        {
            "name": "AGENT_VERSION",
            "valueFrom": {"configMapKeyRef": {"name": "agent-settings", "key": "version"}},
        }
    ]
    template = _agent_template("oil-agent", image="proctor-example-agent:v1", env=env, labels={})
    out = tenant("apply", "-f", "-", input=json.dumps(_deployment("oil-agent", template)))
    assert out.returncode == 0, out.stderr
    first = _approved(crds, namespace, "oil-agent")
    approved = _annotations(crds, namespace, "oil-agent")
    assert _verdict(crds, namespace, first) == "PASS"

    # only the ConfigMap changes: v2's band-boundary bug
    assert tenant("patch", "configmap", "agent-settings", "-p", '{"data":{"version":"v2"}}').returncode == 0

    def held_and_examined() -> str | None:
        ann = _annotations(crds, namespace, "oil-agent")
        spec = crds.get_json("-n", namespace, "deployment", "oil-agent")["spec"]
        run = _entry(crds, namespace, "oil-agent").get("run")
        changed = ann.get(PENDING_IDENTITY_ANNOTATION) not in (None, approved[APPROVED_IDENTITY_ANNOTATION])
        return run if changed and spec.get("paused") and run and run != first else None

    second = str(wait_for(held_and_examined, timeout=120, interval=1, what="the hold and a new exam"))
    assert second.startswith("oil-agent-")
    ann = _annotations(crds, namespace, "oil-agent")
    assert ann[APPROVED_ANNOTATION] == approved[APPROVED_ANNOTATION]  # the template is still the approved one
    assert any(
        e["reason"] == "ContentChanged" and e["involvedObject"]["name"] == "oil-agent"
        for e in crds.get_json("-n", namespace, "events")["items"]
    )

    # the tenant unpauses: the webhook pauses it again in the same request
    out = tenant("patch", "deployment", "oil-agent", "--type=merge", "-p", '{"spec":{"paused":false}}')
    assert out.returncode == 0, out.stderr
    assert crds.get_json("-n", namespace, "deployment", "oil-agent")["spec"].get("paused") is True

    verdict = wait_for(
        lambda: _verdict(crds, namespace, second), timeout=300, interval=1, what="the new exam"
    )
    assert verdict == "FAIL"
    wait_for(
        lambda: _entry(crds, namespace, "oil-agent").get("verdict") == "FAIL", timeout=60, what="the gate"
    )
    entry = _entry(crds, namespace, "oil-agent")
    assert entry["blocked"] is True and entry["run"] == second
    ann = _annotations(crds, namespace, "oil-agent")
    assert ann[APPROVED_IDENTITY_ANNOTATION] == approved[APPROVED_IDENTITY_ANNOTATION]  # nothing new approved
    assert ann[PENDING_IDENTITY_ANNOTATION] != ann[APPROVED_IDENTITY_ANNOTATION]
    assert crds.get_json("-n", namespace, "deployment", "oil-agent")["spec"].get("paused") is True

    # back to the approved content: the same identity, released without a new exam
    assert tenant("patch", "configmap", "agent-settings", "-p", '{"data":{"version":"v1"}}').returncode == 0
    wait_for(
        lambda: not crds.get_json("-n", namespace, "deployment", "oil-agent")["spec"].get("paused"),
        timeout=120,
        interval=1,
        what="the hold to end",
    )
    ann = _annotations(crds, namespace, "oil-agent")
    assert (
        ann[PENDING_IDENTITY_ANNOTATION]
        == ann[APPROVED_IDENTITY_ANNOTATION]
        == approved[APPROVED_IDENTITY_ANNOTATION]
    )


def test_changing_the_case_set_examines_the_approved_template_again(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """The approval was on the case set as it was: a new case is a new identity, a new exam before the
    Deployment runs on the approval again."""
    template = _agent_template("oil-agent", image="proctor-example-agent:v1", env=[], labels={})
    assert tenant("apply", "-f", "-", input=json.dumps(_deployment("oil-agent", template))).returncode == 0
    first = _approved(crds, namespace, "oil-agent")
    before = _annotations(crds, namespace, "oil-agent")[APPROVED_IDENTITY_ANNOTATION]
    caseset = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
    extra = dict(caseset["spec"]["cases"][0], id="added-after-the-approval")
    caseset["spec"]["cases"].append(extra)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(caseset))

    def reexamined() -> str | None:
        entry = _entry(crds, namespace, "oil-agent")
        ann = _annotations(crds, namespace, "oil-agent")
        fresh = ann.get(APPROVED_IDENTITY_ANNOTATION) not in (None, before)
        return (
            entry["run"] if fresh and entry.get("verdict") == "PASS" and entry.get("run") != first else None
        )

    second = str(wait_for(reexamined, timeout=300, interval=1, what="a new exam on the new cases, passed"))
    pinned = (crds.get_json("-n", namespace, "evalrun", second).get("status") or {}).get("snapshot") or {}
    assert pinned.get("cases") == len(caseset["spec"]["cases"])  # it examined the new cases


def test_the_candidate_sees_its_production_labels_in_the_exam(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """The image is the buggy v2, but the Deployment tells it to behave as v1 through a label it reads
    with the downward API. Production pods carry the label; the exam pod does not (its Service must
    not select it), yet the candidate sees the production value: it behaves as in production (PASS)."""
    env = [
        {
            "name": "AGENT_VERSION",
            "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['agent-version']"}},
        },
        {"name": "SA", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}},
    ]
    template = _agent_template(
        "oil-agent", image="proctor-example-agent:v2", env=env, labels={"agent-version": "v1"}
    )
    assert tenant("apply", "-f", "-", input=json.dumps(_deployment("oil-agent", template))).returncode == 0
    exam = str(
        wait_for(
            lambda: (e := _entry(crds, namespace, "oil-agent")).get("verdict") and e["run"],
            timeout=300,
            interval=1,
            what="the exam's verdict",
        )
    )
    assert _verdict(crds, namespace, exam) == "PASS"
    pods = crds.get_json(
        "-n", namespace, "pods", "-l", f"app.kubernetes.io/component=judge,proctor.dev/run={exam}"
    )["items"]
    assert pods
    for pod in pods:
        labels = pod["metadata"].get("labels") or {}
        assert "app" not in labels and "agent-version" not in labels  # no Service selects an exam pod
        (agent,) = [c for c in pod["spec"]["initContainers"] if c["name"] == "candidate-agent"]
        env_values = {e["name"]: e.get("value") for e in agent.get("env", [])}
        assert env_values["AGENT_VERSION"] == "v1" and env_values["SA"] == "default"
        assert "judge" not in pod["spec"].get("hostname", "judge")


def test_what_the_exam_cannot_reproduce_or_bind_is_held_never_approved(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """Two templates the tenant could use to pass an exam that production would not: one whose host
    aliases would point the judge pod's names elsewhere (the exam refuses to run it, ERROR with the
    reason, never a silent drop), and one that reads a Secret the policy does not declare (its
    content is bound by name only: held, not examined)."""
    aliased = _agent_template("aliased", image="proctor-example-agent:v1", env=[], labels={})
    aliased["spec"]["hostAliases"] = [{"ip": "127.0.0.1", "hostnames": ["judge.example"]}]
    assert tenant("apply", "-f", "-", input=json.dumps(_deployment("aliased", aliased))).returncode == 0
    env = [{"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "llm-key", "key": "k"}}}]
    secretive = _agent_template("secretive", image="proctor-example-agent:v1", env=env, labels={})
    assert tenant("apply", "-f", "-", input=json.dumps(_deployment("secretive", secretive))).returncode == 0

    exam = str(
        wait_for(
            lambda: (e := _entry(crds, namespace, "aliased")).get("verdict") and e["run"],
            timeout=300,
            interval=1,
            what="the aliased template's exam",
        )
    )
    status = crds.get_json("-n", namespace, "evalrun", exam)["status"]
    assert status["verdict"] == "ERROR" and "spec.hostAliases" in status["message"], status
    evaluated = next(c for c in status["conditions"] if c["type"] == "Evaluated")
    assert evaluated["reason"] == "TemplateNotReproducible"
    assert not crds.get_json("-n", namespace, "jobs", "-l", f"proctor.dev/run={exam}")["items"]  # no Job

    entry = wait_for(
        lambda: (
            (e := _entry(crds, namespace, "secretive")).get("message", "").startswith("not examinable") and e
        ),
        timeout=120,
        interval=1,
        what="the undeclared Secret's hold",
    )
    assert "Secret llm-key" in entry["message"] and entry["verdict"] == "ERROR"
    runs = crds.get_json("-n", namespace, "evalruns", "-l", "proctor.dev/workload=secretive")["items"]
    assert runs == []  # nothing examined, so nothing can be approved
    for name in ("aliased", "secretive"):
        assert APPROVED_ANNOTATION not in _annotations(crds, namespace, name)

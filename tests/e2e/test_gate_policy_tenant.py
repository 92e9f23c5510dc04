"""The policy's own guarantees, tried by a tenant: enforcement never falls open by itself, no tenant
stops another's approvals, and an exam that measured nothing is examined again.

Every move is made by a tenant's ServiceAccount through a token-only kubeconfig (it may edit
Deployments, their scale and ConfigMaps, and create pods in its namespace; nothing else); only the
policy is written by the admin, as a person would. The example agent runs as gated Deployments on
the local control plane, and the operator serves the admission webhook.
"""

from __future__ import annotations

import base64
import copy
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, Cluster, wait_for
from proctor.api import REEXAMINE_ANNOTATION
from proctor.gate.admission import APPROVED_ANNOTATION, template_hash

EXAMPLES = REPO / "examples"
AGENT = yaml.safe_load((EXAMPLES / "agent" / "deployment.yaml").read_text())
POLICY = "oil-monitoring"

pytestmark = pytest.mark.admission

Kubectl = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def gate(crds: Cluster, start_operator: Callable[..., subprocess.Popen[bytes]]) -> None:
    """The operator watching the namespace, serving its webhook on loopback."""
    start_operator(
        webhook=True,
        PROCTOR_RECONCILE_INTERVAL="1",
        PROCTOR_RETRY_BACKOFF="1,1,1,1",
        PROCTOR_START_GRACE_SECONDS="5",  # a missing ConfigMap ends an exam in ERROR soon
    )


@pytest.fixture
def tenant(crds: Cluster, namespace: str, tmp_path: Path) -> Kubectl:
    """kubectl as the tenant's ServiceAccount, from a kubeconfig that holds only its token."""
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "tenant"},
        "rules": [
            {
                "apiGroups": ["apps"],
                "resources": ["deployments", "deployments/scale"],
                "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
            },
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
            },
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "create"]},
        ],
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(role))
    crds.kubectl("-n", namespace, "create", "serviceaccount", "tenant")
    crds.kubectl(
        "-n",
        namespace,
        "create",
        "rolebinding",
        "tenant",
        "--role=tenant",
        f"--serviceaccount={namespace}:tenant",
    )
    token = crds.kubectl("-n", namespace, "create", "token", "tenant", "--duration=2h").stdout.strip()
    kc = yaml.safe_load(crds.kubeconfig.read_text())
    cluster = kc["clusters"][0]["cluster"]
    ca = cluster.get("certificate-authority")
    if ca is None:
        ca_path = tmp_path / "tenant-ca.crt"
        ca_path.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
        ca = str(ca_path)
    elif not Path(ca).is_absolute():
        ca = str(crds.kubeconfig.parent / ca)
    path = tmp_path / "tenant.kubeconfig"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": "c", "cluster": {"server": cluster["server"], "certificate-authority": ca}}
                ],
                "users": [{"name": "tenant", "user": {"token": token}}],
                "contexts": [
                    {"name": "c", "context": {"cluster": "c", "user": "tenant", "namespace": namespace}}
                ],
                "current-context": "c",
            }
        )
    )

    def as_tenant(*args: str, ok: bool = True, **kw: Any) -> subprocess.CompletedProcess[str]:
        out: subprocess.CompletedProcess[str] = crds.kubectl(
            f"--kubeconfig={path}", "-n", namespace, *args, check=False, **kw
        )
        assert out.returncode == 0 or not ok, f"the tenant could not {' '.join(args)[:200]}: {out.stderr}"
        return out

    # the tenant is who the fixture says: no policy, no run, no status
    denied = crds.kubectl(f"--kubeconfig={path}", "-n", namespace, "get", "gatepolicies", check=False)
    assert denied.returncode != 0 and "forbidden" in denied.stderr.lower()
    return as_tenant


def _policy_spec(**spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = yaml.safe_load((EXAMPLES / "oil-monitoring" / "gatepolicy.yaml").read_text())
    body["spec"] |= {"canary": {"runs": 1}} | spec
    return body


def _admin_applies_policy(crds: Cluster, ns: str, **spec: Any) -> None:
    crds.kubectl("-n", ns, "apply", "-f", str(EXAMPLES / "oil-monitoring" / "caseset.yaml"))
    crds.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(_policy_spec(**spec)))


def _agent(name: str, image: str = "v1", env: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The example agent as a gated Deployment of its own name (its own selector)."""
    d: dict[str, Any] = copy.deepcopy(AGENT)
    d["metadata"] = {"name": name, "labels": {"app": name, "proctor.dev/gate-policy": POLICY}}
    d["spec"]["selector"] = {"matchLabels": {"app": name}}
    d["spec"]["template"]["metadata"] = {"labels": {"app": name}}
    container = d["spec"]["template"]["spec"]["containers"][0]
    container["image"] = f"proctor-example-agent:{image}"
    container["env"] = [*container.get("env", []), *(env or [])]
    return d


def _port_from(configmap: str) -> dict[str, Any]:
    """The agent's port, read from a ConfigMap the tenant controls (a missing one: the container
    cannot start, so an exam of it measures nothing)."""
    return {"name": "PORT", "valueFrom": {"configMapKeyRef": {"name": configmap, "key": "port"}}}


def _policy(crds: Cluster, ns: str) -> dict[str, Any]:
    out: dict[str, Any] = crds.get_json("-n", ns, "gatepolicy", POLICY)
    return out


def _cond(obj: dict[str, Any], type_: str) -> dict[str, Any]:
    return next((c for c in (obj.get("status") or {}).get("conditions", []) if c["type"] == type_), {})


def _entry(crds: Cluster, ns: str, name: str) -> dict[str, Any]:
    return next(
        (w for w in (_policy(crds, ns).get("status") or {}).get("workloads", []) if w["name"] == name), {}
    )


def _deployment(crds: Cluster, ns: str, name: str) -> dict[str, Any]:
    out: dict[str, Any] = crds.get_json("-n", ns, "deployment", name)
    return out


def _approved(crds: Cluster, ns: str, name: str) -> bool:
    """The running template is the approved one, and the rollout is not held."""
    d = _deployment(crds, ns, name)
    ann = d["metadata"].get("annotations") or {}
    return ann.get(APPROVED_ANNOTATION) == template_hash(d["spec"]["template"]) and not d["spec"].get(
        "paused"
    )


def _image(crds: Cluster, ns: str, name: str) -> str:
    """The tag of the Deployment's agent image."""
    return str(_deployment(crds, ns, name)["spec"]["template"]["spec"]["containers"][0]["image"]).rsplit(
        ":", 1
    )[1]


def _images(crds: Cluster, ns: str, app: str) -> set[str]:
    rs = crds.get_json("-n", ns, "replicasets", "-l", f"app={app}")["items"]
    return {r["spec"]["template"]["spec"]["containers"][0]["image"] for r in rs}


def _events(crds: Cluster, ns: str, reason: str) -> list[dict[str, Any]]:
    return [e for e in crds.get_json("-n", ns, "events")["items"] if e.get("reason") == reason]


def _enforcing(crds: Cluster, ns: str) -> None:
    wait_for(
        lambda: _cond(_policy(crds, ns), "Enforcing").get("reason") == "Enforcing",
        timeout=240,
        interval=1,
        what="the policy to enforce after its canary",
    )


def test_a_decoy_that_sorts_first_does_not_move_the_canary(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """The canary examines the policy's first approval. A tenant's Deployment that sorts first, and
    even passes its exam, does not move it (moving it would start a new, pending canary)."""
    _admin_applies_policy(crds, namespace)
    tenant("apply", "-f", "-", input=json.dumps(_agent("zz-agent")))
    _enforcing(crds, namespace)
    canary = _policy(crds, namespace)["status"]["canary"]
    assert canary["workload"] == "zz-agent"

    tenant("apply", "-f", "-", input=json.dumps(_agent("aa-decoy", image="v1.1")))
    wait_for(
        lambda: (
            (w := _entry(crds, namespace, "aa-decoy")).get("revision") is not None
            and w.get("approvedRevision") == w["revision"]
        ),
        timeout=240,
        interval=1,
        what="the decoy to pass its exam and be recorded approved",
    )
    after = _policy(crds, namespace)
    assert after["status"]["canary"]["workload"] == "zz-agent"
    assert after["status"]["canary"]["runs"] == canary["runs"]  # no new canary was started
    assert after["status"]["effectiveEnforcement"] == "Enforce"
    assert _cond(after, "Enforcing")["reason"] == "Enforcing"
    assert _approved(crds, namespace, "aa-decoy")


def test_a_canary_that_measures_nothing_keeps_the_policy_enforcing_and_holds_v2(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """After the policy enforced, its canary runs again (a person changed the policy) while the
    tenant has broken what the approved template reads: the canary ends without a measurement. The
    policy keeps enforcing and says why; v2 is held in the same request and never rolls out, and
    even a passing v1.1 waits for the canary."""
    _admin_applies_policy(crds, namespace)
    tenant("create", "configmap", "agent-env", "--from-literal=port=8080")
    tenant("apply", "-f", "-", input=json.dumps(_agent("oil-agent", env=[_port_from("agent-env")])))
    _enforcing(crds, namespace)

    tenant("delete", "configmap", "agent-env")  # the approved template's pods can no longer start
    crds.kubectl(
        "-n",
        namespace,
        "patch",
        "gatepolicy",
        POLICY,
        "--type=merge",
        "-p",
        '{"spec":{"regressionMargin":4}}',
    )
    # the condition of the new generation's canary (its run is named after the generation), not
    # one an earlier canary left: reading a stale one raced v2 against the canary still running
    generation = _policy(crds, namespace)["metadata"]["generation"]

    def new_canary_unmeasured() -> bool:
        c = _cond(_policy(crds, namespace), "Deterministic")
        ours = f"-canary-g{generation}-" in c.get("message", "")
        return c.get("reason") == "RunWithoutMeasurement" and ours

    wait_for(
        new_canary_unmeasured,
        timeout=240,
        interval=1,
        what="the canary of the new generation to end without a measurement",
    )
    unsettled = _cond(_policy(crds, namespace), "Enforcing")
    assert (unsettled["status"], unsettled["reason"]) == ("True", "CanaryUnsettled")
    assert "took no complete measurement" in unsettled["message"]
    assert _policy(crds, namespace)["status"]["effectiveEnforcement"] == "Enforce"

    tenant("create", "configmap", "agent-env", "--from-literal=port=8080")
    tenant("set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v2")
    assert _deployment(crds, namespace, "oil-agent")["spec"]["paused"] is True  # held in the same request
    blocked = wait_for(
        lambda: (c := _cond(_policy(crds, namespace), "RolloutBlocked")).get("status") == "True" and c,
        timeout=240,
        interval=1,
        what="v2 to be examined and held",
    )
    assert blocked["reason"] == "VerdictFailed" and "oil-consumption-boundary" in blocked["message"]
    assert "proctor-example-agent:v2" not in _images(crds, namespace, "oil-agent")
    # whoever waits on the rollout is told, by Proctor, why it does not finish
    waited = tenant("rollout", "status", "deployment/oil-agent", "--timeout=60s", ok=False)
    assert waited.returncode != 0 and "exceeded its progress deadline" in waited.stderr, waited
    progressing = next(
        c
        for c in _deployment(crds, namespace, "oil-agent")["status"]["conditions"]
        if c["type"] == "Progressing"
    )
    assert progressing["message"].startswith("held by Proctor (GatePolicy oil-monitoring, VerdictFailed)")
    assert "oil-consumption-boundary" in progressing["message"]

    tenant("set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v1.1")
    held = wait_for(
        lambda: (w := _entry(crds, namespace, "oil-agent")).get("verdict") == "PASS" and w,
        timeout=240,
        interval=1,
        what="v1.1 to pass its exam",
    )
    assert held["blocked"] is True and "determinism canary" in held["message"], held
    assert _deployment(crds, namespace, "oil-agent")["spec"]["paused"] is True
    assert "proctor-example-agent:v1.1" not in _images(crds, namespace, "oil-agent")
    assert _policy(crds, namespace)["status"]["effectiveEnforcement"] == "Enforce"


def test_one_deployment_failing_again_and_again_does_not_stop_anothers_approval(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """Two Deployments under one policy: one is blocked until its circuit breaker opens; the other's
    good rollout is still examined, approved and rolled out."""
    _admin_applies_policy(crds, namespace, circuitBreaker={"maxBlocks": 1, "windowMinutes": 60})
    tenant("apply", "-f", "-", input=json.dumps(_agent("a-noisy")))
    tenant("apply", "-f", "-", input=json.dumps(_agent("b-quiet")))
    _enforcing(crds, namespace)
    wait_for(
        lambda: _approved(crds, namespace, "a-noisy") and _approved(crds, namespace, "b-quiet"),
        timeout=240,
        interval=1,
        what="both Deployments approved",
    )

    # two failing templates of a-noisy: two blocks, more than its budget of one
    tenant("set", "image", "deployment/a-noisy", "agent=proctor-example-agent:v2")
    wait_for(
        lambda: _entry(crds, namespace, "a-noisy").get("verdict") == "FAIL",
        timeout=240,
        interval=1,
        what="a-noisy's v2 to fail",
    )
    tenant("set", "env", "deployment/a-noisy", "RETRY=1")
    opened = wait_for(
        lambda: (c := _cond(_policy(crds, namespace), "CircuitOpen")).get("status") == "True" and c,
        timeout=240,
        interval=1,
        what="a-noisy's breaker to open",
    )
    assert "a-noisy" in opened["message"] and "b-quiet" not in opened["message"]

    tenant("set", "image", "deployment/b-quiet", "agent=proctor-example-agent:v1.1")
    wait_for(
        lambda: _approved(crds, namespace, "b-quiet") and _image(crds, namespace, "b-quiet") == "v1.1",
        timeout=240,
        interval=1,
        what="b-quiet's v1.1 to be approved and resumed",
    )
    breakers = {b["name"]: b for b in _policy(crds, namespace)["status"]["circuitBreaker"]["workloads"]}
    assert breakers["a-noisy"]["open"] is True and breakers["b-quiet"]["open"] is False
    assert _deployment(crds, namespace, "a-noisy")["spec"]["paused"] is True


def test_an_exam_that_ended_error_is_examined_again_on_the_annotation(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """The first exam of a template whose Secret is missing measures nothing (ERROR). The Secret is
    created (a Secret is bound by its name, so the template's identity is the same: a ConfigMap would
    make it another identity, examined as such) and the tenant asks again with the annotation: the
    template is examined again, passes and is approved."""
    _admin_applies_policy(crds, namespace, allowedSecrets=["agent-port"])
    port = {"name": "PORT", "valueFrom": {"secretKeyRef": {"name": "agent-port", "key": "port"}}}
    tenant("apply", "-f", "-", input=json.dumps(_agent("oil-agent", env=[port])))
    erred = wait_for(
        lambda: (w := _entry(crds, namespace, "oil-agent")).get("verdict") == "ERROR" and w,
        timeout=240,
        interval=1,
        what="the exam to end in ERROR",
    )
    assert REEXAMINE_ANNOTATION in erred["message"], erred  # it says how to ask again
    first = erred["run"]

    crds.kubectl("-n", namespace, "create", "secret", "generic", "agent-port", "--from-literal=port=8080")
    tenant("annotate", "deployment", "oil-agent", f"{REEXAMINE_ANNOTATION}=fixed-the-secret")
    started = wait_for(
        lambda: [e for e in _events(crds, namespace, "ReexamStarted") if "fixed-the-secret" in e["message"]],
        timeout=120,
        interval=1,
        what="the exam to start again on the annotation",
    )
    assert f"EvalRun {first}-r1 " in started[0]["message"]  # a new run, not the one that erred
    passed = wait_for(
        lambda: (w := _entry(crds, namespace, "oil-agent")).get("verdict") == "PASS" and w,
        timeout=240,
        interval=1,
        what="the second exam to pass",
    )
    assert passed["run"] == f"{first}-r1"  # the verdict of the exam asked for again
    wait_for(
        lambda: (
            APPROVED_ANNOTATION
            in (_deployment(crds, namespace, "oil-agent")["metadata"].get("annotations") or {})
        ),
        timeout=60,
        interval=1,
        what="the template to be recorded approved",
    )


def test_a_canary_that_fails_the_approved_revision_revokes_it(
    crds: Cluster, namespace: str, gate: None, tenant: Kubectl
) -> None:
    """The approved template reads its behaviour from a ConfigMap the tenant edits: once approved,
    the tenant switches it to the buggy answers. When the canary runs again (a person changed the
    policy) it FAILs the approved revision: the approval is revoked, the Deployment held, and the
    policy says RolloutBlocked."""
    _admin_applies_policy(crds, namespace)
    tenant("create", "configmap", "agent-env", "--from-literal=version=v1")
    version = {
        "name": "AGENT_VERSION",
        "valueFrom": {"configMapKeyRef": {"name": "agent-env", "key": "version"}},
    }
    tenant("apply", "-f", "-", input=json.dumps(_agent("oil-agent", env=[version])))
    _enforcing(crds, namespace)

    tenant("patch", "configmap", "agent-env", "--type=merge", "-p", '{"data":{"version":"v2"}}')
    crds.kubectl(
        "-n",
        namespace,
        "patch",
        "gatepolicy",
        POLICY,
        "--type=merge",
        "-p",
        '{"spec":{"regressionMargin":4}}',
    )
    # The new ConfigMap content is also a new identity, examined on its own: that exam may FAIL (and
    # hold the Deployment) before the canary does. Either way the rollout is held on a FAIL; the
    # canary's revocation is what this test waits for.
    blocked = wait_for(
        lambda: (
            (c := _cond(_policy(crds, namespace), "RolloutBlocked")).get("status") == "True"
            and "approval is revoked" in c.get("message", "")
            and c
        ),
        timeout=240,
        interval=1,
        what="the canary to FAIL the approved revision and revoke its approval",
    )
    assert blocked["reason"] == "VerdictFailed"
    d = _deployment(crds, namespace, "oil-agent")
    assert APPROVED_ANNOTATION not in (d["metadata"].get("annotations") or {})
    assert d["spec"]["paused"] is True
    assert [e for e in _events(crds, namespace, "CanaryFailed") if e["involvedObject"]["name"] == "oil-agent"]
    # the revoked template is not approved again by its old exam's PASS
    entry = _entry(crds, namespace, "oil-agent")
    assert (entry["verdict"], entry["blocked"], entry["revoked"]) == (
        "FAIL",
        True,
        template_hash(d["spec"]["template"]),
    )

"""The admission webhook, called for real by the local kube-apiserver over loopback TLS."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import Cluster, wait_for
from proctor.api import BREAK_GLASS_ANNOTATION
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    BREAK_GLASS_BY_ANNOTATION,
    BREAK_GLASS_TEMPLATE_ANNOTATION,
    PENDING_ANNOTATION,
    template_hash,
)

# The webhook configuration these tests register sees gated Deployments in every namespace.
pytestmark = pytest.mark.admission


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def gate(start_operator: Callable[..., subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """The operator serving its webhook for this namespace."""
    return start_operator(webhook=True)


def _deployment(name: str, image: str = "proctor:v1", gated: bool = True) -> dict[str, Any]:
    labels = {"app": name} | ({"proctor.dev/gate-policy": "oil"} if gated else {})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "agent", "image": image, "command": ["sleep", "3600"]}]},
            },
        },
    }


def _get(cluster: Cluster, ns: str, name: str) -> dict[str, Any]:
    out: dict[str, Any] = cluster.get_json("-n", ns, "deployment", name)
    return out


def test_a_gated_deployment_is_paused_on_create_and_on_a_new_template(
    cluster: Cluster, namespace: str, gate: Any
) -> None:
    created = cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("agent")))
    assert "awaits its exam" in created.stderr  # the webhook's warning reaches the user
    d = _get(cluster, namespace, "agent")
    assert d["spec"]["paused"] is True
    assert d["metadata"]["annotations"][PENDING_ANNOTATION] == template_hash(d["spec"]["template"])
    cluster.kubectl("-n", namespace, "set", "image", "deployment/agent", "agent=proctor:v2")
    d2 = _get(cluster, namespace, "agent")
    assert d2["spec"]["paused"] is True
    assert d2["metadata"]["annotations"][PENDING_ANNOTATION] == template_hash(d2["spec"]["template"])
    assert (
        d2["metadata"]["annotations"][PENDING_ANNOTATION] != d["metadata"]["annotations"][PENDING_ANNOTATION]
    )
    # unpausing by hand does not get past the gate: the template is still not approved
    cluster.kubectl("-n", namespace, "rollout", "resume", "deployment/agent")
    assert _get(cluster, namespace, "agent")["spec"]["paused"] is True


def test_a_namespace_the_operator_does_not_watch_is_not_its_webhooks(
    cluster: Cluster, namespace: str, gate: Any
) -> None:
    """Another install (or no Proctor at all) governs the Deployments of a namespace this operator
    does not watch: its webhook neither holds them nor refuses what their own operator writes."""
    other = f"{namespace}-x"
    cluster.create_namespace(other, labels={"proctor.dev/test": "true"}, timeout=30)
    try:
        created = cluster.kubectl("-n", other, "apply", "-f", "-", input=json.dumps(_deployment("agent")))
        assert "awaits its exam" not in created.stderr
        d = _get(cluster, other, "agent")
        assert not d["spec"].get("paused") and PENDING_ANNOTATION not in (
            d["metadata"].get("annotations") or {}
        )
        # what that namespace's own operator would write after an exam is not refused here
        h = template_hash(d["spec"]["template"])
        cluster.kubectl("-n", other, "annotate", "deployment", "agent", f"{APPROVED_ANNOTATION}={h}")
        # while in the watched namespace the same object is held, in the same request
        cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("agent")))
        assert _get(cluster, namespace, "agent")["spec"]["paused"] is True
    finally:
        cluster.kubectl("delete", "namespace", other, "--wait=false", check=False)


def test_the_approved_template_and_scale_only_changes_pass_untouched(
    cluster: Cluster, namespace: str, gate: Any
) -> None:
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("agent")))
    d = _get(cluster, namespace, "agent")
    h = template_hash(d["spec"]["template"])
    # what the operator writes when an exam passes: the approved hash and unpaused, in one patch
    patch = {"metadata": {"annotations": {APPROVED_ANNOTATION: h}}, "spec": {"paused": False}}
    cluster.kubectl("-n", namespace, "patch", "deployment", "agent", "--type=merge", "-p", json.dumps(patch))
    assert _get(cluster, namespace, "agent")["spec"].get("paused") in (None, False)
    cluster.kubectl("-n", namespace, "scale", "deployment/agent", "--replicas=3")
    d = _get(cluster, namespace, "agent")
    assert d["spec"]["replicas"] == 3
    assert d["spec"].get("paused") in (None, False)


def test_ungated_deployments_and_excluded_namespaces_are_never_touched(
    cluster: Cluster, namespace: str, gate: Any
) -> None:
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("plain", gated=False)))
    assert _get(cluster, namespace, "plain")["spec"].get("paused") in (None, False)
    cluster.kubectl(
        "-n", "kube-system", "apply", "-f", "-", input=json.dumps(_deployment(f"sys-{namespace}"))
    )
    try:
        assert _get(cluster, "kube-system", f"sys-{namespace}")["spec"].get("paused") in (None, False)
    finally:
        cluster.kubectl("-n", "kube-system", "delete", "deployment", f"sys-{namespace}", "--wait=false")


def test_with_the_operator_stopped_gated_deployments_fail_closed_and_others_are_untouched(
    cluster: Cluster, namespace: str, gate: subprocess.Popen[bytes]
) -> None:
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("agent")))
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("plain", gated=False)))
    gate.terminate()
    gate.wait(30)
    held = cluster.kubectl(
        "-n", namespace, "set", "image", "deployment/agent", "agent=proctor:v3", check=False
    )
    assert held.returncode != 0
    assert "gate.proctor.dev" in held.stderr
    free = cluster.kubectl(
        "-n", namespace, "set", "image", "deployment/plain", "agent=proctor:v3", check=False
    )
    assert free.returncode == 0, free.stderr


# --- a cluster user who may update a gated Deployment: every bypass is refused -------------------------
#
# The operator runs with the admin kubeconfig here, so the admin's writes are the operator's. The
# attacker is another user ("mallory", impersonated: --as), who may do what a namespace's editor does
# with Deployments, ConfigMaps and Proctor's kinds (the local control plane runs no aggregation
# controller, so the built-in "edit" role is empty: this Role spells it out).
EDITOR = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "Role",
    "metadata": {"name": "tenant-editor"},
    "rules": [
        {
            "apiGroups": ["apps"],
            "resources": ["deployments", "deployments/scale", "replicasets"],
            "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
        },
        {
            "apiGroups": [""],
            "resources": ["configmaps", "pods", "events"],
            "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
        },
        {
            "apiGroups": ["proctor.dev"],
            "resources": ["evalruns", "casesets", "evalprofiles", "gatepolicies"],
            "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
        },
    ],
}

MALLORY = "mallory"
SRE = "sre-on-call"


@pytest.fixture
def mallory(cluster: Cluster, namespace: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    """kubectl as a user who may edit the namespace (not the operator)."""
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(EDITOR))
    for user in (MALLORY, SRE):
        cluster.kubectl(
            "-n", namespace, "create", "rolebinding", f"{user}-edit", "--role=tenant-editor", f"--user={user}"
        )

    def as_user(*args: str, user: str = MALLORY, **kw: Any) -> subprocess.CompletedProcess[str]:
        return cluster.kubectl("-n", namespace, f"--as={user}", *args, check=False, **kw)

    return as_user


def _replace(mallory: Callable[..., Any], *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    """``kubectl replace`` as mallory, again while the answer is a 409 Conflict: kubectl reads the
    resourceVersion and then writes, and the deployment controller may write the status in between
    (that write is refused whatever the gate says, so the conflict says nothing of the gate)."""
    for _ in range(10):
        out: subprocess.CompletedProcess[str] = mallory("replace", *args, **kw)
        if "(Conflict)" not in out.stderr:
            break
    return out


def _annotations(cluster: Cluster, ns: str, name: str) -> dict[str, str]:
    out: dict[str, str] = _get(cluster, ns, name)["metadata"].get("annotations") or {}
    return out


def _held_v2(cluster: Cluster, ns: str, mallory: Callable[..., Any]) -> dict[str, Any]:
    """v1 approved by the operator (the admin here), then v2 set by mallory: held."""
    cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(_deployment("agent")))
    h1 = template_hash(_get(cluster, ns, "agent")["spec"]["template"])
    approve = {
        "metadata": {"annotations": {APPROVED_ANNOTATION: h1, APPROVED_TEMPLATE_ANNOTATION: "{}"}},
        "spec": {"paused": False},
    }
    cluster.kubectl("-n", ns, "patch", "deployment", "agent", "--type=merge", "-p", json.dumps(approve))
    out = mallory("set", "image", "deployment/agent", "agent=proctor:v2")
    assert out.returncode == 0, out.stderr
    d = _get(cluster, ns, "agent")
    assert d["spec"]["paused"] is True
    assert _annotations(cluster, ns, "agent")[PENDING_ANNOTATION] == template_hash(d["spec"]["template"])
    return d


def _still_held(cluster: Cluster, ns: str, approved: str) -> None:
    d = _get(cluster, ns, "agent")
    assert d["spec"]["paused"] is True, "the rollout was resumed"
    assert _annotations(cluster, ns, "agent")[APPROVED_ANNOTATION] == approved, "the approval changed"
    assert template_hash(d["spec"]["template"]) != approved


def test_copying_the_pending_hash_into_the_approval_is_refused(
    cluster: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any]
) -> None:
    """The issue's attack: the hash of the new template (here even learned from a --dry-run=server
    reply) copied into proctor.dev/approved-template-hash with spec.paused false, in one patch."""
    held = _held_v2(cluster, namespace, mallory)
    approved = held["metadata"]["annotations"][APPROVED_ANNOTATION]
    dry = mallory("set", "image", "deployment/agent", "agent=proctor:v3", "--dry-run=server", "-o", "json")
    assert dry.returncode == 0, dry.stderr
    leaked = json.loads(dry.stdout)["metadata"]["annotations"][PENDING_ANNOTATION]
    assert _get(cluster, namespace, "agent")["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "proctor:v2"
    )  # nothing stored by the dry run
    for pending in (held["metadata"]["annotations"][PENDING_ANNOTATION], leaked):
        image = "proctor:v2" if pending != leaked else "proctor:v3"
        patch = {
            "metadata": {"annotations": {APPROVED_ANNOTATION: pending}},
            "spec": {
                "paused": False,
                "template": {"spec": {"containers": [{"name": "agent", "image": image}]}},
            },
        }
        out = mallory("patch", "deployment", "agent", "--type=strategic", "-p", json.dumps(patch))
        assert out.returncode != 0, "the forged approval was admitted"
        assert "written only by the Proctor operator" in out.stderr
        _still_held(cluster, namespace, approved)


def test_the_approval_cannot_be_forged_with_any_kind_of_write(
    cluster: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any], tmp_path: Path
) -> None:
    """The variants an attacker tries next: JSON patch, merge patch, annotate --overwrite,
    server-side apply (forcing conflicts), replace of the whole object."""
    held = _held_v2(cluster, namespace, mallory)
    approved = held["metadata"]["annotations"][APPROVED_ANNOTATION]
    pending = held["metadata"]["annotations"][PENDING_ANNOTATION]
    key = APPROVED_ANNOTATION.replace("/", "~1")
    forged = json.loads(json.dumps(held))
    forged["metadata"]["annotations"][APPROVED_ANNOTATION] = pending
    forged["spec"]["paused"] = False
    for field in ("resourceVersion", "uid", "creationTimestamp", "managedFields", "generation"):
        forged["metadata"].pop(field, None)
    forged.pop("status", None)
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    attempts = {
        "json patch": mallory(
            "patch",
            "deployment",
            "agent",
            "--type=json",
            "-p",
            json.dumps(
                [
                    {"op": "replace", "path": f"/metadata/annotations/{key}", "value": pending},
                    {"op": "replace", "path": "/spec/paused", "value": False},
                ]
            ),
        ),
        "merge patch": mallory(
            "patch",
            "deployment",
            "agent",
            "--type=merge",
            "-p",
            json.dumps(
                {"metadata": {"annotations": {APPROVED_ANNOTATION: pending}}, "spec": {"paused": False}}
            ),
        ),
        "annotate": mallory(
            "annotate", "--overwrite", "deployment/agent", f"{APPROVED_ANNOTATION}={pending}"
        ),
        "server-side apply": mallory(
            "apply",
            "--server-side",
            "--force-conflicts",
            "--field-manager=mallory",
            "-f",
            str(tmp_path / "forged.json"),
        ),
        "replace": _replace(mallory, "-f", str(tmp_path / "forged.json")),
        "a forged break-glass record": mallory(
            "annotate", "deployment/agent", f"{BREAK_GLASS_TEMPLATE_ANNOTATION}={pending}"
        ),
    }
    for what, out in attempts.items():
        assert out.returncode != 0, f"{what}: admitted"
        assert "written only by the Proctor operator" in out.stderr, f"{what}: {out.stderr}"
    _still_held(cluster, namespace, approved)
    # the operator (the admin here) writes exactly that after a PASS
    cluster.kubectl(
        "-n",
        namespace,
        "patch",
        "deployment",
        "agent",
        "--type=merge",
        "-p",
        json.dumps({"metadata": {"annotations": {APPROVED_ANNOTATION: pending}}, "spec": {"paused": False}}),
    )
    assert not _get(cluster, namespace, "agent")["spec"].get("paused")


def test_creating_a_gated_deployment_with_the_approval_preset_is_refused(
    cluster: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any]
) -> None:
    d = _deployment("agent")
    d["metadata"]["annotations"] = {APPROVED_ANNOTATION: template_hash(d["spec"]["template"])}
    out = mallory("create", "-f", "-", input=json.dumps(d))
    assert out.returncode != 0 and "created or becomes gated" in out.stderr
    assert cluster.kubectl("-n", namespace, "get", "deployment", "agent", check=False).returncode != 0
    # an ungated Deployment carrying one, labelled afterwards: the same
    plain = _deployment("plain", gated=False)
    plain["metadata"]["annotations"] = {APPROVED_ANNOTATION: template_hash(plain["spec"]["template"])}
    assert mallory("create", "-f", "-", input=json.dumps(plain)).returncode == 0  # not gated: untouched
    out = mallory("label", "deployment/plain", "proctor.dev/gate-policy=oil")
    assert out.returncode != 0 and "created or becomes gated" in out.stderr


def test_the_gate_label_cannot_be_removed_or_changed(
    cluster: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any]
) -> None:
    """The issue's attack: one JSON patch that removes the gate label, changes the image and
    unpauses; then un-gating an approved Deployment first (to change it freely later), and moving
    it to another (more lenient) policy."""
    held = _held_v2(cluster, namespace, mallory)
    approved = held["metadata"]["annotations"][APPROVED_ANNOTATION]
    label = "proctor.dev~1gate-policy"
    one_patch = [
        {"op": "remove", "path": f"/metadata/labels/{label}"},
        {"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "proctor:v3"},
        {"op": "replace", "path": "/spec/paused", "value": False},
    ]
    out = mallory("patch", "deployment", "agent", "--type=json", "-p", json.dumps(one_patch))
    assert out.returncode != 0 and "cannot be removed or changed" in out.stderr, out.stderr
    _still_held(cluster, namespace, approved)
    for args in (
        ("label", "deployment/agent", "proctor.dev/gate-policy-"),
        ("label", "--overwrite", "deployment/agent", "proctor.dev/gate-policy=lenient"),
    ):
        out = mallory(*args)
        assert out.returncode != 0 and "cannot be removed or changed" in out.stderr, (args, out.stderr)
    assert _get(cluster, namespace, "agent")["metadata"]["labels"]["proctor.dev/gate-policy"] == "oil"


def test_unpausing_alone_or_with_another_change_is_held_again(
    cluster: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any]
) -> None:
    held = _held_v2(cluster, namespace, mallory)
    approved = held["metadata"]["annotations"][APPROVED_ANNOTATION]
    for patch in (
        {"spec": {"paused": False}},
        {"spec": {"paused": False, "replicas": 3}},
        {"spec": {"paused": False, "template": {"metadata": {"labels": {"app": "agent", "x": "y"}}}}},
    ):
        out = mallory("patch", "deployment", "agent", "--type=merge", "-p", json.dumps(patch))
        assert out.returncode == 0, out.stderr
        _still_held(cluster, namespace, approved)


def test_replacing_the_manifest_keeps_the_approval(
    cluster: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any]
) -> None:
    """kubectl replace of the original manifest (which has none of the gate's annotations) keeps the
    stored approval instead of refusing or dropping it: the approved template still runs."""
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("agent")))
    h1 = template_hash(_get(cluster, namespace, "agent")["spec"]["template"])
    cluster.kubectl(
        "-n",
        namespace,
        "patch",
        "deployment",
        "agent",
        "--type=merge",
        "-p",
        json.dumps({"metadata": {"annotations": {APPROVED_ANNOTATION: h1}}, "spec": {"paused": False}}),
    )
    manifest = _deployment("agent")
    manifest["spec"]["replicas"] = 2
    out = _replace(mallory, "-f", "-", input=json.dumps(manifest))
    assert out.returncode == 0, out.stderr
    d = _get(cluster, namespace, "agent")
    assert d["metadata"]["annotations"][APPROVED_ANNOTATION] == h1
    assert not d["spec"].get("paused") and d["spec"]["replicas"] == 2


def test_break_glass_needs_its_right_and_is_recorded(
    cluster: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any]
) -> None:
    held = _held_v2(cluster, namespace, mallory)
    approved = held["metadata"]["annotations"][APPROVED_ANNOTATION]
    glass = {
        "metadata": {"annotations": {BREAK_GLASS_ANNOTATION: "INC-1234: checkout down"}},
        "spec": {"paused": False},
    }
    out = mallory("patch", "deployment", "agent", "--type=merge", "-p", json.dumps(glass))
    assert out.returncode != 0 and "may not break the glass" in out.stderr, out.stderr
    _still_held(cluster, namespace, approved)
    # the on-call engineer may: a Role names the policy's breakglass subresource
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "oil-break-glass"},
        "rules": [
            {
                "apiGroups": ["proctor.dev"],
                "resources": ["gatepolicies/breakglass"],
                "resourceNames": ["oil"],
                "verbs": ["update"],
            }
        ],
    }
    cluster.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(role))
    cluster.kubectl(
        "-n", namespace, "create", "rolebinding", "sre-glass", "--role=oil-break-glass", f"--user={SRE}"
    )
    out = mallory("patch", "deployment", "agent", "--type=merge", "-p", json.dumps(glass), user=SRE)
    assert out.returncode == 0, out.stderr
    d = _get(cluster, namespace, "agent")
    assert not d["spec"].get("paused")
    ann = d["metadata"]["annotations"]
    assert ann[BREAK_GLASS_BY_ANNOTATION] == SRE
    assert ann[BREAK_GLASS_TEMPLATE_ANNOTATION] == template_hash(d["spec"]["template"])
    assert ann[APPROVED_ANNOTATION] == approved  # rolled out, never approved

    def event() -> bool:
        events = cluster.get_json("-n", namespace, "events")["items"]
        return any(e["reason"] == "BreakGlass" and SRE in e["message"] for e in events)

    wait_for(event, timeout=30, what="the BreakGlass Event")
    # the next change is gated again
    assert mallory("set", "image", "deployment/agent", "agent=proctor:v4").returncode == 0
    assert _get(cluster, namespace, "agent")["spec"]["paused"] is True


def test_leaving_the_policys_selector_is_refused(
    crds: Cluster, namespace: str, gate: Any, mallory: Callable[..., Any]
) -> None:
    """A policy that gates only tier=prod: relabelling the Deployment tier=dev, with a new image and
    unpaused, would make it ungated; the webhook reads the old object and refuses."""
    policy = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "GatePolicy",
        "metadata": {"name": "oil"},
        "spec": {
            "caseSetRef": {"name": "absent"},
            "candidate": {"port": 8080},
            "selector": {"matchLabels": {"tier": "prod"}},
        },
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(policy))
    d = _deployment("agent")
    d["metadata"]["labels"]["tier"] = "prod"

    def indexed() -> bool:  # the webhook knows the policy once a dev Deployment passes untouched
        probe = _deployment(f"probe-{len(crds.get_json('-n', namespace, 'deployments')['items'])}")
        probe["metadata"]["labels"]["tier"] = "dev"
        crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(probe))
        return not _get(crds, namespace, probe["metadata"]["name"])["spec"].get("paused")

    wait_for(indexed, timeout=60, interval=1, what="the webhook to index the policy")
    assert mallory("create", "-f", "-", input=json.dumps(d)).returncode == 0
    # selected, so gated (observed, since the policy's canary has not run): its template is recorded
    assert PENDING_ANNOTATION in _annotations(crds, namespace, "agent")
    patch = {
        "metadata": {"labels": {"tier": "dev"}},
        "spec": {
            "paused": False,
            "template": {"spec": {"containers": [{"name": "agent", "image": "proctor:v2"}]}},
        },
    }
    out = mallory("patch", "deployment", "agent", "--type=strategic", "-p", json.dumps(patch))
    assert out.returncode != 0 and "cannot be removed or changed" in out.stderr, out.stderr
    assert _get(crds, namespace, "agent")["metadata"]["labels"]["tier"] == "prod"


# --- fail closed: an Enforce policy says when no webhook can hold ----------------------------------------

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "oil-monitoring"


def _policy_condition(cluster: Cluster, ns: str, type_: str) -> dict[str, Any]:
    status = cluster.get_json("-n", ns, "gatepolicy", "oil-monitoring").get("status") or {}
    return next((c for c in status.get("conditions") or [] if c["type"] == type_), {})


def test_an_unreachable_webhook_fails_closed_and_the_policy_says_why(
    crds: Cluster, namespace: str, tmp_path: Path, start_operator: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """The chart's default (a Service) on an API server that cannot reach Services: every gated
    Deployment is refused (fail closed), and an enforcing policy says why, with the API server's
    own error, in Ready."""
    if not crds.local:
        pytest.skip("the local API server cannot reach Services; a real one may")
    name = f"proctor-gate-{namespace}"
    start_operator(
        PROCTOR_RECONCILE_INTERVAL="1",
        PROCTOR_WEBHOOK_PORT=str(_free_port()),
        PROCTOR_WEBHOOK_ADDR="127.0.0.1",
        PROCTOR_WEBHOOK_SERVICE=f"{namespace}/proctor-webhook:443",
        PROCTOR_WEBHOOK_CERT_DIR=str(tmp_path / "certs"),
        PROCTOR_WEBHOOK_CONFIGURATION=name,
    )
    try:
        crds.kubectl(
            "-n",
            namespace,
            "apply",
            "-f",
            str(EXAMPLE / "caseset.yaml"),
            "-f",
            str(EXAMPLE / "gatepolicy.yaml"),
        )
        ready = wait_for(
            lambda: (
                (c := _policy_condition(crds, namespace, "Ready")).get("reason") == "WebhookUnreachable" and c
            ),
            timeout=60,
            interval=0.5,
            what="Ready=False WebhookUnreachable",
        )
        assert ready["status"] == "False"
        assert "cannot call the admission webhook" in ready["message"]
        assert "proctor-webhook" in ready["message"]  # the API server's own error names the Service
        refused = crds.kubectl(
            "-n", namespace, "apply", "-f", "-", input=json.dumps(_deployment("agent")), check=False
        )
        assert refused.returncode != 0 and "gate.proctor.dev" in refused.stderr
    finally:
        crds.kubectl("delete", "mutatingwebhookconfiguration", name, "--ignore-not-found")


def test_without_a_webhook_enforce_is_refused_and_nothing_is_called_approved(
    crds: Cluster, namespace: str, start_operator: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """No webhook: a changed template rolls out before it can be examined. An Enforce policy says it
    cannot enforce, and the Deployment's template, never examined, is not reported approved."""
    start_operator(PROCTOR_RECONCILE_INTERVAL="1")
    crds.kubectl(
        "-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"), "-f", str(EXAMPLE / "gatepolicy.yaml")
    )
    enforcing = wait_for(
        lambda: (
            (c := _policy_condition(crds, namespace, "Enforcing")).get("reason") == "WebhookDisabled" and c
        ),
        timeout=60,
        interval=0.5,
        what="Enforcing=False WebhookDisabled",
    )
    assert enforcing["status"] == "False" and "cannot enforce" in enforcing["message"]
    d = _deployment("agent")
    d["metadata"]["labels"]["proctor.dev/gate-policy"] = "oil-monitoring"
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(d))

    def entry() -> dict[str, Any] | None:
        status = crds.get_json("-n", namespace, "gatepolicy", "oil-monitoring").get("status") or {}
        return next((w for w in status.get("workloads") or [] if w["name"] == "agent"), None)

    seen = wait_for(entry, timeout=60, interval=0.5, what="the Deployment in the policy's status")
    assert "approved" not in (seen.get("message") or ""), seen
    assert "rolled out before its exam" in (seen.get("message") or ""), seen
    assert APPROVED_ANNOTATION not in _annotations(crds, namespace, "agent")
    assert (
        crds.get_json("-n", namespace, "gatepolicy", "oil-monitoring")["status"]["effectiveEnforcement"]
        == "Observe"
    )

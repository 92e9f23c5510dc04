"""The admission webhook, called for real by the local kube-apiserver over loopback TLS."""

from __future__ import annotations

import json
import socket
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Cluster, wait_for
from proctor.gate.admission import APPROVED_ANNOTATION, PENDING_ANNOTATION, template_hash

# The webhook configuration these tests register sees gated Deployments in every namespace.
pytestmark = pytest.mark.admission


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def gate(
    cluster: Cluster, namespace: str, tmp_path: Path, run_operator: Callable[..., subprocess.Popen[bytes]]
) -> Iterator[subprocess.Popen[bytes]]:
    if not cluster.local:
        pytest.skip("the API server must reach the webhook on this machine's loopback")
    name = f"proctor-gate-{namespace}"
    port, probe = _free_port(), _free_port()
    proc = run_operator(
        "-n",
        namespace,
        "--liveness",
        f"http://127.0.0.1:{probe}/healthz",
        env={
            "PROCTOR_METRICS_PORT": "0",
            "PROCTOR_WEBHOOK_PORT": str(port),
            "PROCTOR_WEBHOOK_ADDR": "127.0.0.1",
            "PROCTOR_WEBHOOK_URL_HOST": "127.0.0.1",
            "PROCTOR_WEBHOOK_CERT_DIR": str(tmp_path / "certs"),
            "PROCTOR_WEBHOOK_CONFIGURATION": name,
        },
    )

    def ready() -> bool:
        assert proc.poll() is None, "the operator exited"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{probe}/healthz", timeout=1):
                pass
        except OSError:
            return False
        return cluster.kubectl("get", "mutatingwebhookconfiguration", name, check=False).returncode == 0

    wait_for(ready, timeout=60, what="the operator and its webhook")
    yield proc
    cluster.kubectl("delete", "mutatingwebhookconfiguration", name, "--ignore-not-found")


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

"""The story end to end: a gated agent whose v2 carries the band-boundary bug never rolls out.

The example agent runs as a Deployment on the local control plane; the operator serves the
admission webhook; the GatePolicy first observes while its canary runs on the approved v1, then
enforces: v1 -> v2 stays paused with RolloutBlocked naming the failing case, v1 -> v1.1 rolls out.
"""

from __future__ import annotations

import json
import socket
import subprocess
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import assert_running

from conftest import REPO, Cluster, wait_for
from proctor.gate.admission import APPROVED_ANNOTATION, PENDING_ANNOTATION

EXAMPLES = REPO / "examples"

# The webhook configuration these tests register sees gated Deployments in every namespace.
pytestmark = pytest.mark.admission


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _policy(cluster: Cluster, ns: str) -> dict[str, Any]:
    out: dict[str, Any] = cluster.get_json("-n", ns, "gatepolicy", "oil-monitoring")
    return out


def _cond(obj: dict[str, Any], type_: str) -> dict[str, Any]:
    return next((c for c in (obj.get("status") or {}).get("conditions", []) if c["type"] == type_), {})


def _deployment(cluster: Cluster, ns: str) -> dict[str, Any]:
    out: dict[str, Any] = cluster.get_json("-n", ns, "deployment", "oil-agent")
    return out


def _images(cluster: Cluster, ns: str) -> set[str]:
    rs = cluster.get_json("-n", ns, "replicasets", "-l", "app=oil-agent")["items"]
    return {r["spec"]["template"]["spec"]["containers"][0]["image"] for r in rs}


def test_v2_is_held_and_v1_1_rolls_out(
    crds: Cluster, namespace: str, tmp_path: Path, run_operator: Callable[..., subprocess.Popen[bytes]]
) -> None:
    if not crds.local:
        pytest.skip("the example agent's image runs through the node stand-in; the webhook is on loopback")
    # the namespace enforces the restricted Pod Security Standard: every exam's judge pod, with the
    # candidate sidecar made from the Deployment's template, must pass it
    crds.kubectl("label", "namespace", namespace, "pod-security.kubernetes.io/enforce=restricted")
    webhook = _start_gate(namespace, tmp_path, run_operator)
    try:
        policy = yaml.safe_load((EXAMPLES / "oil-monitoring" / "gatepolicy.yaml").read_text())
        policy["spec"]["canary"] = {"runs": 1}
        crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLES / "oil-monitoring" / "caseset.yaml"))
        crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(policy))

        # v1: the policy observes (its canary needs an approved revision), v1 rolls out and is examined
        crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLES / "agent" / "deployment.yaml"))
        wait_for(
            lambda: (
                APPROVED_ANNOTATION in (_deployment(crds, namespace)["metadata"].get("annotations") or {})
            ),
            timeout=180,
            interval=1,
            what="v1 to pass its exam and be approved",
        )
        # the canary on the approved v1 agrees with itself: the policy now enforces
        wait_for(
            lambda: _cond(_policy(crds, namespace), "Enforcing").get("status") == "True",
            timeout=180,
            interval=1,
            what="the policy to enforce after its canary",
        )
        assert _cond(_policy(crds, namespace), "Deterministic")["status"] == "True"
        # the exams ran in this restricted namespace: their judge pods (candidate included) were admitted
        judge_pods = crds.get_json("-n", namespace, "pods", "-l", "app.kubernetes.io/component=judge")[
            "items"
        ]
        assert judge_pods, "no judge pod was admitted in the restricted namespace"
        for pod in judge_pods:
            (candidate,) = pod["spec"]["initContainers"]
            sc = candidate["securityContext"]
            assert sc["allowPrivilegeEscalation"] is False and sc["runAsNonRoot"] is True
            assert sc["runAsUser"] == 10001 and sc["readOnlyRootFilesystem"] is True  # the Deployment's own

        # v1 -> v2 (the band-boundary bug): held, RolloutBlocked names the failing case
        crds.kubectl(
            "-n", namespace, "set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v2"
        )
        d = _deployment(crds, namespace)
        assert d["spec"]["paused"] is True
        blocked = wait_for(
            lambda: (c := _cond(_policy(crds, namespace), "RolloutBlocked")).get("status") == "True" and c,
            timeout=180,
            interval=1,
            what="the v2 rollout to be blocked",
        )
        assert "oil-consumption-boundary" in blocked["message"]
        assert _deployment(crds, namespace)["spec"]["paused"] is True
        assert "proctor-example-agent:v2" not in _images(crds, namespace)  # no v2 ReplicaSet ever rolled out
        events = crds.kubectl(
            "-n",
            namespace,
            "get",
            "events",
            "--field-selector",
            "involvedObject.kind=Deployment,involvedObject.name=oil-agent",
        ).stdout
        assert "RolloutHeld" in events

        # v2 -> v1.1 (correct): examined, approved and rolled out
        crds.kubectl(
            "-n", namespace, "set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v1.1"
        )
        wait_for(
            lambda: "proctor-example-agent:v1.1" in _images(crds, namespace),
            timeout=180,
            interval=1,
            what="v1.1 to roll out",
        )
        d = _deployment(crds, namespace)
        assert not d["spec"].get("paused")
        assert (
            d["metadata"]["annotations"][APPROVED_ANNOTATION]
            == d["metadata"]["annotations"][PENDING_ANNOTATION]
        )
        wait_for(
            lambda: _cond(_policy(crds, namespace), "RolloutBlocked").get("status") == "False",
            timeout=60,
            what="RolloutBlocked to clear",
        )
    finally:
        crds.kubectl("delete", "mutatingwebhookconfiguration", webhook, "--ignore-not-found")


def test_rollback_and_the_circuit_breaker(
    crds: Cluster, namespace: str, tmp_path: Path, run_operator: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """onFail: Rollback restores the approved template; too many blocks open the breaker, which stops
    automated actions until a person resets it."""
    if not crds.local:
        pytest.skip("the example agent's image runs through the node stand-in; the webhook is on loopback")
    webhook = _start_gate(namespace, tmp_path, run_operator)
    try:
        policy = yaml.safe_load((EXAMPLES / "oil-monitoring" / "gatepolicy.yaml").read_text())
        policy["spec"] |= {
            "canary": {"runs": 1},
            "onFail": "Rollback",
            "circuitBreaker": {"maxBlocks": 1, "windowMinutes": 60},
        }
        crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLES / "oil-monitoring" / "caseset.yaml"))
        crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(policy))
        crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLES / "agent" / "deployment.yaml"))
        wait_for(
            lambda: _cond(_policy(crds, namespace), "Enforcing").get("status") == "True",
            timeout=180,
            interval=1,
            what="the policy to enforce",
        )

        def image() -> str:
            return str(_deployment(crds, namespace)["spec"]["template"]["spec"]["containers"][0]["image"])

        # v2 fails: rolled back to v1 and resumed (block 1 of a budget of 1)
        crds.kubectl(
            "-n", namespace, "set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v2"
        )
        wait_for(
            lambda: (
                image() == "proctor-example-agent:v1"
                and not _deployment(crds, namespace)["spec"].get("paused")
            ),
            timeout=180,
            interval=1,
            what="v2 to be rolled back to v1",
        )
        # v2 again: rolled back again, and the second block opens the breaker (more than 1 in the window)
        crds.kubectl(
            "-n", namespace, "set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v2"
        )
        wait_for(
            lambda: _cond(_policy(crds, namespace), "CircuitOpen").get("status") == "True",
            timeout=180,
            interval=1,
            what="the circuit breaker to open",
        )
        assert "needs_human" in _cond(_policy(crds, namespace), "CircuitOpen")["message"]
        # with the breaker open, even a passing v1.1 is not resumed automatically
        crds.kubectl(
            "-n", namespace, "set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v1.1"
        )
        wait_for(
            lambda: any(
                w.get("verdict") == "PASS" and "circuit breaker is open" in w.get("message", "")
                for w in _policy(crds, namespace)["status"].get("workloads", [])
            ),
            timeout=180,
            interval=1,
            what="the passing exam to be recorded but not acted on",
        )
        assert _deployment(crds, namespace)["spec"]["paused"] is True
        # a person resets it: the decision is made again, and v1.1 rolls out
        crds.kubectl(
            "-n",
            namespace,
            "annotate",
            "gatepolicy",
            "oil-monitoring",
            "proctor.dev/reset-circuit-breaker=checked-by-sre",
        )
        wait_for(
            lambda: not _deployment(crds, namespace)["spec"].get("paused"),
            timeout=120,
            interval=1,
            what="v1.1 to be resumed after the reset",
        )
        assert image() == "proctor-example-agent:v1.1"
        assert _cond(_policy(crds, namespace), "CircuitOpen")["status"] == "False"
    finally:
        crds.kubectl("delete", "mutatingwebhookconfiguration", webhook, "--ignore-not-found")


def _start_gate(namespace: str, tmp_path: Path, run_operator: Callable[..., subprocess.Popen[bytes]]) -> str:
    """The operator watching ``namespace`` with its webhook on loopback; returns the webhook
    configuration's name (the caller deletes it)."""
    port, probe = _free_port(), _free_port()
    webhook = f"proctor-gate-{namespace}"
    proc = run_operator(
        "-n",
        namespace,
        "--liveness",
        f"http://127.0.0.1:{probe}/healthz",
        env={
            "PROCTOR_METRICS_PORT": "0",
            "PROCTOR_RECONCILE_INTERVAL": "1",
            "PROCTOR_WEBHOOK_PORT": str(port),
            "PROCTOR_WEBHOOK_ADDR": "127.0.0.1",
            "PROCTOR_WEBHOOK_URL_HOST": "127.0.0.1",
            "PROCTOR_WEBHOOK_CERT_DIR": str(tmp_path / "certs"),
            "PROCTOR_WEBHOOK_CONFIGURATION": webhook,
        },
    )

    def up() -> bool:
        assert_running(proc)
        return _probe_ok(probe)

    wait_for(up, timeout=60, what="the operator")
    return webhook


def _probe_ok(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
            return True
    except OSError:
        return False

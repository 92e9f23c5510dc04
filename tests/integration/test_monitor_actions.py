"""The operator performs an incident's approved recommendations (issue 29), on the real API server
with its controller-manager, the real collector process (SQLite and PostgreSQL), spans from the
OpenTelemetry SDK's own exporter judged by the scripted judge server, and the people who approve as
ServiceAccounts with the verbs the README gives them (token-only, for the collector's audience)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from collecting import API_TOKEN, TIMEOUT, agent_turn, collector, manifests, tracer, wait_for
from conftest import Cluster
from proctor.api import COLLECTOR_AUDIENCE, HOLD_CANARY_ANNOTATION
from proctor.testing.cluster import scaled
from proctor.testing.judgeserver import JudgeServer

SERVICE = "oil-agent"
MONITOR = "oil-agent"
AWS = "AKIAIOSFODNN7EXAMPLX"
QUESTION = "What band is 0.30 qt/hr on engine 2?"
BAD = "NORMAL, nothing to do. [[score:20]]"


@dataclass
class Loop:
    url: str
    ns: str
    elsewhere: str  # another namespace, with a Deployment of the same name
    ingest: str
    approver: str  # a token (collector audience) of a ServiceAccount with get and approve
    operator: Callable[[], subprocess.Popen[bytes]]


def _apply(cluster: Cluster, objs: list[dict[str, Any]]) -> None:
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))


def _token(cluster: Cluster, ns: str, sa: str, *, audience: str | None = COLLECTOR_AUDIENCE) -> str:
    flags = ["--audience", audience] if audience else []
    return cluster.kubectl("-n", ns, "create", "token", sa, "--duration=1h", *flags).stdout.strip()


def _account(ns: str, name: str, rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    meta = {"name": name, "namespace": ns}
    ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta, "rules": rules},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": meta,
            "roleRef": ref,
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}],
        },
    ]


def _monitors(verbs: list[str]) -> list[dict[str, Any]]:
    return [{"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": verbs}]


def _deployment(ns: str, image: str) -> dict[str, Any]:
    labels = {"app": "oil-agent"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "oil-agent", "namespace": ns},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "agent", "image": image}]},
            },
        },
    }


def _image(cluster: Cluster, ns: str) -> str:
    d = cluster.get_json("-n", ns, "deployment", "oil-agent")
    return str(d["spec"]["template"]["spec"]["containers"][0]["image"])


def _replicasets(cluster: Cluster, ns: str) -> int:
    return len(cluster.get_json("-n", ns, "replicasets", "-l", "app=oil-agent")["items"])


def _listening(log: Path, proc: subprocess.Popen[bytes]) -> str | None:
    if proc.poll() is not None:
        raise AssertionError(log.read_text(errors="replace")[-3000:])
    for line in log.read_text(errors="replace").splitlines():
        if "proctor collector: listening on " in line:
            return line.rsplit(" ", 1)[1].strip()
    return None


@pytest.fixture
def loop(
    crds: Cluster,
    namespace: str,
    db_url: str,
    tmp_path: Path,
    run_operator: Callable[..., subprocess.Popen[bytes]],
) -> Iterator[Loop]:
    """A monitor whose agent runs as Deployment oil-agent (two revisions rolled out by the real
    Deployment controller), capture-cases Allowed and rollback Denied; a collector serving it and
    an operator reading the collector with a token of a ServiceAccount that may get and perform."""
    ns, elsewhere = namespace, f"{namespace}-x{uuid.uuid4().hex[:5]}"
    crds.create_namespace(elsewhere, labels={"proctor.dev/test": "true"}, timeout=30)
    ingest = f"ingest-{uuid.uuid4().hex}"
    try:
        with JudgeServer() as judge:
            objs = manifests(
                judge.base_url,
                service=SERVICE,
                tokenSecretRef={"name": "ingest", "key": "token"},
                captureTo={"name": "captured"},
                target={"name": "oil-agent"},
                actions={"captureCases": "Allow", "rollback": "Deny"},
                canary={"minRuns": 1, "maxBreachedPercent": 100},
            )
            objs[1]["spec"]["thresholds"] = {"safety": 10}  # the safety tier is what the scan finds
            for obj in objs:
                obj["metadata"]["namespace"] = ns
            secret = {"name": "ingest", "namespace": ns}
            objs.append(
                {"apiVersion": "v1", "kind": "Secret", "metadata": secret, "stringData": {"token": ingest}}
            )
            objs += _account(ns, "approver", _monitors(["get", "approve"]))
            objs += _account(ns, "op", _monitors(["get", "perform"]))
            _apply(crds, [*objs, _deployment(ns, "oil-agent:1"), _deployment(elsewhere, "oil-agent:1")])
            wait_for(lambda: _replicasets(crds, ns) == 1, what="the first ReplicaSet", timeout=TIMEOUT)
            _apply(crds, [_deployment(ns, "oil-agent:2")])
            wait_for(lambda: _replicasets(crds, ns) == 2, what="the second ReplicaSet", timeout=TIMEOUT)

            log = tmp_path / "collector.log"
            args = ["--db", db_url, "--listen", "127.0.0.1:0", "--poll", "0.1", "-n", ns]
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "proctor.collector", *args],
                    env={**crds.env(), "PROCTOR_LOG_FORMAT": "console"},
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            try:
                url = wait_for(lambda: _listening(log, proc), timeout=TIMEOUT, what="the collector to listen")
                op_token = _token(crds, ns, "op")

                def operator() -> subprocess.Popen[bytes]:
                    with socket.socket() as s:
                        s.bind(("127.0.0.1", 0))
                        port = s.getsockname()[1]
                    return run_operator(
                        "-n",
                        ns,
                        "--liveness",
                        f"http://127.0.0.1:{port}/healthz",
                        env={
                            "PROCTOR_COLLECTOR_URL": url,
                            "PROCTOR_COLLECTOR_TOKEN": op_token,
                            "PROCTOR_MONITOR_INTERVAL": "1",
                            "PROCTOR_METRICS_PORT": "0",
                        },
                    )

                yield Loop(url, ns, elsewhere, ingest, _token(crds, ns, "approver"), operator)
            finally:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    finally:
        crds.kubectl("delete", "namespace", elsewhere, "--wait=false", check=False)


def _get(lp: Loop, path: str, **params: str) -> httpx.Response:
    return httpx.get(
        f"{lp.url}{path}", params=params, headers={"Authorization": f"Bearer {lp.approver}"}, timeout=30
    )


def _approve(lp: Loop, incident: str, rec: str, token: str | None = None) -> httpx.Response:
    return httpx.post(
        f"{lp.url}/api/v1/incidents/{incident}/recommendations/{rec}/approve",
        headers={"Authorization": f"Bearer {token or lp.approver}"},
        timeout=30,
    )


def _incidents(lp: Loop) -> dict[str, dict[str, Any]]:
    """The monitor's incidents by revision, with their recommendations by id."""
    reply = _get(lp, "/api/v1/incidents", monitor=f"{lp.ns}/{MONITOR}")
    assert reply.status_code == 200, reply.text
    out = {}
    for i in reply.json()["incidents"]:
        full = _get(lp, f"/api/v1/incidents/{i['id']}").json()
        full["recs"] = {r["id"]: r for r in full["recommendations"]}
        out[str(i["revision"])] = full
    return out


def _rec_state(lp: Loop, revision: str, rec: str) -> dict[str, Any] | None:
    found = _incidents(lp).get(revision)
    return found["recs"].get(rec) if found else None


def _verdict(lp: Loop, revision: str) -> dict[str, Any]:
    reply = _get(lp, f"/api/v1/monitors/{lp.ns}/{MONITOR}/verdict", revision=revision)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def _events(cluster: Cluster, ns: str, reason: str) -> list[dict[str, Any]]:
    listed = cluster.get_json("-n", ns, "events")["items"]
    return [e for e in listed if e.get("reason") == reason]


def _held(cluster: Cluster, ns: str) -> str | None:
    meta = cluster.get_json("-n", ns, "agentmonitor", MONITOR)["metadata"]
    return (meta.get("annotations") or {}).get(HOLD_CANARY_ANNOTATION)


@pytest.mark.timeout(scaled(600))  # two judged runs, two operators and proctor grade on a loaded machine
def test_approved_recommendations_are_performed_once_by_the_operator(
    crds: Cluster, loop: Loop, tmp_path: Path
) -> None:
    lp, ns = loop, loop.ns
    with tracer(lp.url, service=SERVICE, version="1.0", token=lp.ingest) as tr:
        agent_turn(tr, "bad-1", QUESTION, BAD)
    with tracer(lp.url, service=SERVICE, version="2.0", token=lp.ingest) as tr:
        agent_turn(tr, "bad-2", QUESTION, f"Use the key {AWS} to read the manual. {BAD}")
    incidents = wait_for(lambda: len(found := _incidents(lp)) == 2 and found, what="two incidents")
    one, two = incidents["1.0"], incidents["2.0"]
    assert _verdict(lp, "1.0")["verdict"] == "PASS"  # 1 of 1 breached is within this monitor's tolerance
    first = lp.operator()

    # capture-cases is Allowed: performed without a person, into a CaseSet the operator created
    def captured() -> dict[str, Any] | None:
        found = crds.kubectl("-n", ns, "get", "caseset", "captured", "-o", "json", check=False)
        if found.returncode != 0:
            return None
        body = json.loads(found.stdout)
        return body if len(body["spec"]["cases"]) == 2 else None

    caseset = wait_for(captured, what="the captured cases in CaseSet captured")
    assert AWS not in json.dumps(caseset)  # what the safety scan found never reaches the CaseSet
    assert not caseset["metadata"].get("ownerReferences")  # owned by nobody: deleting nothing takes it
    ids = {c["id"] for c in caseset["spec"]["cases"]}
    assert ids == {f"live-{one['runIds'][0]}", f"live-{two['runIds'][0]}"}
    done = wait_for(
        lambda: (r := _rec_state(lp, "1.0", "capture-cases")) and r["state"] == "performed" and r,
        what="performed",
    )
    assert done["decidedBy"] == "policy:Allow" and done["performedBy"] == f"system:serviceaccount:{ns}:op"
    # the API server took it, and proctor grade examines it: the same answers FAIL the exam
    path = tmp_path / "captured.yaml"
    path.write_text(yaml.safe_dump({k: caseset[k] for k in ("apiVersion", "kind", "metadata", "spec")}))
    answers = tmp_path / "answers.yaml"
    answers.write_text(yaml.safe_dump({c["id"]: c["assert"][0]["value"] for c in caseset["spec"]["cases"]}))
    graded = subprocess.run(
        [
            sys.executable,
            "-m",
            "proctor.cli",
            "grade",
            str(path),
            "--responses",
            str(answers),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert graded.returncode == 1, graded.stdout + graded.stderr
    assert len(json.loads(graded.stdout)["failures"]) == 2

    # hold-canary waits for a person; once approved, revision 1.0's live verdict is INCONCLUSIVE
    assert _held(crds, ns) is None and _rec_state(lp, "1.0", "hold-canary")["state"] == "proposed"
    assert _approve(lp, one["id"], "hold-canary").status_code == 200
    wait_for(lambda: _held(crds, ns) == "1.0", what="the hold-canary annotation")
    held = wait_for(lambda: (v := _verdict(lp, "1.0"))["verdict"] == "INCONCLUSIVE" and v, what="held")
    assert held["reason"] == "NeedsHuman" and HOLD_CANARY_ANNOTATION in held["message"]
    (event,) = wait_for(
        lambda: [e for e in _events(crds, ns, "ActionPerformed") if "hold-canary" in e["message"]],
        what="the hold's Event",
    )
    assert event["involvedObject"]["kind"] == "AgentMonitor" and one["id"] in event["message"]

    # recompute is its own verb: the approver (get, approve) may not
    recompute = httpx.post(
        f"{lp.url}/api/v1/monitors/{ns}/{MONITOR}/recompute",
        headers={"Authorization": f"Bearer {lp.approver}"},
        timeout=30,
    )
    assert recompute.status_code == 403 and "recompute" in recompute.json()["error"]
    # and only the operator's verb claims an approved action: a person who approves cannot take it
    claim = httpx.post(
        f"{lp.url}/api/v1/incidents/{one['id']}/recommendations/rollback/claim",
        headers={"Authorization": f"Bearer {lp.approver}"},
        timeout=30,
    )
    assert claim.status_code == 403 and "perform" in claim.json()["error"]

    # rollback is Denied: approving it is refused whoever asks; RequireApproval lets a person
    denied = _approve(lp, one["id"], "rollback")
    assert denied.status_code == 403 and "denies rollback" in denied.json()["error"]
    crds.kubectl(
        "-n",
        ns,
        "patch",
        "agentmonitor",
        MONITOR,
        "--type=merge",
        "-p",
        '{"spec":{"actions":{"rollback":"RequireApproval"}}}',
    )
    wait_for(lambda: _approve(lp, one["id"], "rollback").status_code == 200, what="rollback approvable")
    wait_for(lambda: _image(crds, ns) == "oil-agent:1", what="the Deployment rolled back")
    (rolled,) = wait_for(
        lambda: [
            e for e in _events(crds, ns, "ActionPerformed") if e["involvedObject"]["kind"] == "Deployment"
        ],
        what="the rollback's Event on the Deployment",
    )
    assert "previous ReplicaSet" in rolled["message"]
    assert _image(crds, lp.elsewhere) == "oil-agent:1"  # never touched: same name, another namespace

    # exactly once across a restart: a new operator performs what is newly approved, and nothing again
    performed = {
        (rev, rec): r["performedAt"]
        for rev, inc in _incidents(lp).items()
        for rec, r in inc["recs"].items()
        if r["state"] == "performed"
    }
    assert set(performed) == {
        ("1.0", "capture-cases"),
        ("2.0", "capture-cases"),
        ("1.0", "hold-canary"),
        ("1.0", "rollback"),
    }
    first.terminate()
    first.wait(30)
    lp.operator()
    assert _approve(lp, two["id"], "hold-canary").status_code == 200
    wait_for(lambda: _held(crds, ns) == "1.0,2.0", what="revision 2.0 held too")
    wait_for(lambda: _rec_state(lp, "2.0", "hold-canary")["state"] == "performed", what="recorded")
    again = {
        (rev, rec): r["performedAt"]
        for rev, inc in _incidents(lp).items()
        for rec, r in inc["recs"].items()
        if (rev, rec) in performed
    }
    assert again == performed


def test_proctor_monitors_recompute_rebuilds_the_detector_state_from_the_stored_scores(
    db_url: str, tmp_path: Path
) -> None:
    """The collector run from files (its management token); RBAC's refusal is in the cluster test."""
    with JudgeServer() as judge, collector(tmp_path, db_url, manifests(judge.base_url)) as c:

        def summary() -> dict[str, Any]:
            reply = httpx.get(
                f"{c.url}/api/v1/monitors/demo/oil-agent",
                headers={"Authorization": f"Bearer {API_TOKEN}"},
                timeout=30,
            )
            return dict(reply.json())

        with tracer(c.url) as tr:  # one after the other: the bad run is the latest score
            agent_turn(tr, "good", QUESTION, "ELEVATED: see AMM 72-00. [[score:90]]")
        wait_for(lambda: summary()["runs"]["evaluated"] == 1, what="the good run judged")
        with tracer(c.url) as tr:
            agent_turn(tr, "bad", QUESTION, BAD)

        before = wait_for(
            lambda: (s := summary())["runs"]["evaluated"] == 2 and s["detectors"], what="both runs judged"
        )
        env = {"PATH": "/usr/bin:/bin", "PROCTOR_SERVER": c.url, "PROCTOR_API_TOKEN": API_TOKEN}
        cli = [sys.executable, "-m", "proctor.cli", "monitors", "recompute", "demo/oil-agent"]
        done = subprocess.run([*cli, "-o", "json"], capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        assert doc["monitor"] == "demo/oil-agent" and doc["evaluations"] == 2
        assert doc["detectors"] == before  # replaying the stored scores gives the state stepped live
        assert summary()["detectors"] == before
        # status.dimensions: the newest revision's series (the bad run is its latest score)
        measured = [d for d in summary()["dimensions"] if d["latest"] is not None]
        assert measured and {d.get("revision") for d in measured} == {"1.0"}
        assert any(d["latest"] == 20 for d in measured), measured
        text = subprocess.run(cli, capture_output=True, text=True, timeout=120, env=env)
        assert text.returncode == 0 and "replayed 2 evaluation(s)" in text.stdout
        assert "breach:" in text.stdout, text.stdout
        refused = subprocess.run(
            cli, capture_output=True, text=True, timeout=120, env={**env, "PROCTOR_API_TOKEN": "wrong"}
        )
        assert refused.returncode == 1 and "401" in refused.stderr


def _token_kubeconfig(cluster: Cluster, namespace: str, token: str, path: Path) -> Path:
    """A kubeconfig holding only ``token`` (no client certificate, no admin)."""
    admin = yaml.safe_load(cluster.kubeconfig.read_text())
    context = next(c for c in admin["contexts"] if c["name"] == admin["current-context"])["context"]
    entry = next(c for c in admin["clusters"] if c["name"] == context["cluster"])
    server = dict(entry["cluster"])
    if "certificate-authority" in server:
        ca = Path(server["certificate-authority"])
        server["certificate-authority"] = str(ca if ca.is_absolute() else cluster.kubeconfig.parent / ca)
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": server}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": namespace}}],
        "current-context": "c",
    }
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("field", ["target", "captureTo"])
def test_a_tenant_cannot_point_the_operator_at_another_namespace(
    crds: Cluster, namespace: str, tmp_path: Path, field: str
) -> None:
    """A tenant who may write AgentMonitors in its namespace (a token-only ServiceAccount) names
    the Deployment a rollback changes and the CaseSet cases go to by name only: a namespace in
    either is refused by the API server, so the operator acts in the monitor's namespace or not
    at all."""
    rules = [
        {"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": ["get", "create", "patch"]}
    ]
    _apply(crds, _account(namespace, "tenant", rules))
    kubeconfig = _token_kubeconfig(
        crds, namespace, _token(crds, namespace, "tenant", audience=None), tmp_path / "t"
    )
    monitor = manifests(None, target={"name": "oil-agent"}, captureTo={"name": "captured"})[0]
    monitor["metadata"]["namespace"] = namespace
    monitor["spec"][field] = {"name": "oil-agent", "namespace": "kube-system"}
    refused = crds.kubectl(
        "--kubeconfig",
        str(kubeconfig),
        "apply",
        "--validate=strict",
        "-f",
        "-",
        input=json.dumps(monitor),
        check=False,
    )
    assert refused.returncode != 0 and "namespace" in refused.stderr, refused.stdout + refused.stderr
    # without validation the field is pruned: what is stored names no other namespace
    crds.kubectl(
        "--kubeconfig", str(kubeconfig), "apply", "--validate=false", "-f", "-", input=json.dumps(monitor)
    )
    stored = crds.get_json("-n", namespace, "agentmonitor", "oil-agent")["spec"][field]
    assert stored == {"name": "oil-agent"}

"""The collector keeps tenants apart (issue 23, guarantee 8), on the real API server, acting as the
actors it guards against: an agent of one tenant (a client of the collector's port holding that
tenant's ingestion token), another tenant's ServiceAccount (a token for the collector's audience),
and the operator's ServiceAccount (a token-only kubeconfig). Spans go out through the OpenTelemetry
SDK's own exporter; the store is SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
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
from kubernetes import config

from collecting import TIMEOUT, agent_turn, manifests, tracer, wait_for
from conftest import Cluster
from proctor.api import COLLECTOR_AUDIENCE
from proctor.k8s.kube import Kube, KubeError
from proctor.reconcile.monitors import CollectorReader, CollectorToken, Summary, Unreadable
from proctor.testing.judgeserver import JudgeServer

SERVICE = "oil-agent"  # every tenant's agent calls itself this


@dataclass
class Tenant:
    namespace: str
    ingest_token: str | None  # None: its monitor has no tokenSecretRef
    reader: str = ""  # a token (collector audience) of a ServiceAccount with get/list there


@dataclass
class Setup:
    url: str
    tenants: dict[str, Tenant]
    log: Path


def _apply(cluster: Cluster, objs: list[dict[str, Any]]) -> None:
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))


def _token(cluster: Cluster, ns: str, sa: str, *, audience: str | None = COLLECTOR_AUDIENCE) -> str:
    flags = ["--audience", audience] if audience else []
    return cluster.kubectl("-n", ns, "create", "token", sa, "--duration=1h", *flags).stdout.strip()


def _reader(ns: str) -> list[dict[str, Any]]:
    """A ServiceAccount ``reader`` that may get and list AgentMonitors in ``ns`` (nothing else)."""
    meta = {"name": "reader", "namespace": ns}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": meta,
            "rules": [
                {"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": ["get", "list"]}
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": ns}],
        },
    ]


def _listening(log: Path, proc: subprocess.Popen[bytes]) -> str | None:
    if proc.poll() is not None:
        raise AssertionError(log.read_text(errors="replace")[-3000:])
    for line in log.read_text(errors="replace").splitlines():
        if "proctor collector: listening on " in line:
            return line.rsplit(" ", 1)[1].strip()
    return None


@pytest.fixture
def tenants(crds: Cluster, namespace: str, db_url: str, tmp_path: Path) -> Iterator[Setup]:
    """Three namespaces whose AgentMonitor watches the same service.name: a and b each with an
    ingestion token of its own, c without one; a collector serving all three."""
    suffix = uuid.uuid4().hex[:6]
    names = {"a": namespace, "b": f"{namespace}-b{suffix}", "c": f"{namespace}-c{suffix}"}
    for key in ("b", "c"):
        crds.create_namespace(names[key], labels={"proctor.dev/test": "true"}, timeout=30)
    made = {
        "a": Tenant(names["a"], f"ingest-a-{uuid.uuid4().hex}"),
        "b": Tenant(names["b"], f"ingest-b-{uuid.uuid4().hex}"),
        "c": Tenant(names["c"], None),
    }
    try:
        with JudgeServer() as judge:
            for t in made.values():
                spec = {"tokenSecretRef": {"name": "ingest", "key": "token"}} if t.ingest_token else {}
                objs = manifests(judge.base_url, service=SERVICE, **spec)
                for obj in objs:
                    obj["metadata"]["namespace"] = t.namespace
                if t.ingest_token:
                    objs.append(
                        {
                            "apiVersion": "v1",
                            "kind": "Secret",
                            "metadata": {"name": "ingest", "namespace": t.namespace},
                            "stringData": {"token": t.ingest_token},
                        }
                    )
                _apply(crds, [*objs, *_reader(t.namespace)])
                t.reader = _token(crds, t.namespace, "reader")
            log = tmp_path / "collector.log"
            args = ["--db", db_url, "--listen", "127.0.0.1:0", "--poll", "0.1"]
            for t in made.values():
                args += ["-n", t.namespace]
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "proctor.collector", *args],
                    # a collector-wide token is ignored in a cluster: it opens no monitor
                    env={**crds.env(), "PROCTOR_TOKEN": "collector-wide", "PROCTOR_LOG_FORMAT": "console"},
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            try:
                url = wait_for(lambda: _listening(log, proc), timeout=TIMEOUT, what="the collector to listen")
                yield Setup(url, made, log)
            finally:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    finally:
        for key in ("b", "c"):
            crds.kubectl("delete", "namespace", names[key], "--wait=false", check=False)


def _get(url: str, path: str, token: str | None, **params: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.get(f"{url}{path}", params=params, headers=headers, timeout=30)


def _runs(s: Setup, tenant: Tenant) -> list[dict[str, Any]]:
    """The tenant's runs, read as the tenant's reader (RBAC on its own namespace)."""
    reply = _get(s.url, "/api/v1/runs", tenant.reader, monitor=f"{tenant.namespace}/oil-agent", limit="500")
    assert reply.status_code == 200, reply.text
    return list(reply.json()["runs"])


def _send(url: str, token: str, conversations: list[str]) -> None:
    with tracer(url, service=SERVICE, token=token) as tr:
        for conv in conversations:
            agent_turn(tr, conv, "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")


def test_spans_reach_only_the_monitor_whose_token_they_carry(tenants: Setup) -> None:
    a, b, c = (tenants.tenants[k] for k in ("a", "b", "c"))
    assert a.ingest_token and b.ingest_token
    sent_a = [f"a-{i}" for i in range(3)]
    _send(tenants.url, a.ingest_token, sent_a)
    landed = wait_for(
        lambda: len(r := _runs(tenants, a)) == 3 and r, timeout=TIMEOUT, what="tenant a's three runs"
    )
    assert sorted(r["key"] for r in landed) == sent_a
    assert _runs(tenants, b) == [] and _runs(tenants, c) == []  # same service.name, other tenants

    sent_b = ["b-0", "b-1"]
    _send(tenants.url, b.ingest_token, sent_b)
    got_b = wait_for(lambda: len(r := _runs(tenants, b)) == 2 and r, timeout=TIMEOUT, what="tenant b's runs")
    assert sorted(r["key"] for r in got_b) == sent_b
    # token b's spans never reached a: still exactly a's three runs, with a's spans only
    assert sorted(r["key"] for r in _runs(tenants, a)) == sent_a
    summary_a = _get(tenants.url, f"/api/v1/monitors/{a.namespace}/oil-agent", a.reader).json()
    assert summary_a["runs"]["total"] == 3 and "ingestionClosed" not in summary_a

    # the monitor without a token of its own accepts nothing and says why: the collector-wide
    # token (PROCTOR_TOKEN, ignored in a cluster) and a guess are refused (401)
    for token in ("collector-wide", f"ingest-c-{uuid.uuid4().hex}"):
        _send(tenants.url, token, [f"c-with-{token[:8]}"])
    assert _runs(tenants, c) == []
    summary_c = _get(tenants.url, f"/api/v1/monitors/{c.namespace}/oil-agent", c.reader).json()
    assert summary_c["runs"]["total"] == 0
    assert "spec.tokenSecretRef is not set" in summary_c["ingestionClosed"]
    # nor did they open a's or b's monitors: their runs are still exactly their own
    assert len(_runs(tenants, a)) == 3 and len(_runs(tenants, b)) == 2
    # a tenant's token decides where its spans go, never the service.name: a's token reaches a only
    _send(tenants.url, a.ingest_token, ["a-3"])
    wait_for(lambda: len(_runs(tenants, a)) == 4, timeout=TIMEOUT, what="tenant a's fourth run")
    assert len(_runs(tenants, b)) == 2 and _runs(tenants, c) == []
    # no token was logged
    log = tenants.log.read_text(errors="replace")
    assert a.ingest_token not in log and b.ingest_token not in log


def test_the_management_api_takes_kubernetes_identities_only_and_rbac_decides(tenants: Setup) -> None:
    a, b = tenants.tenants["a"], tenants.tenants["b"]
    assert a.ingest_token and b.ingest_token
    _send(tenants.url, a.ingest_token, ["a-run"])
    (run,) = wait_for(lambda: _runs(tenants, a), timeout=TIMEOUT, what="tenant a's run")
    where = f"{a.namespace}/oil-agent"
    reads = [
        ("/api/v1/runs", {"monitor": where}),
        ("/api/v1/runs", {"namespace": a.namespace}),
        (f"/api/v1/runs/{run['id']}", {}),
        (f"/api/v1/monitors/{where}", {}),
    ]
    # an ingestion token (what every agent of tenant a holds) reads nothing: 401
    for path, params in reads:
        refused = _get(tenants.url, path, a.ingest_token, **params)
        assert refused.status_code == 401, (path, refused.text)
        assert run["key"] not in refused.text
    evaluate = f"{tenants.url}/api/v1/runs/{run['id']}/evaluate"
    assert httpx.post(evaluate, headers={"Authorization": f"Bearer {a.ingest_token}"}).status_code == 401
    # tenant b's ServiceAccount (get/list on agentmonitors in b only): 403 on a's runs
    for path, params in reads:
        forbidden = _get(tenants.url, path, b.reader, **params)
        assert forbidden.status_code == 403, (path, forbidden.text)
        assert run["key"] not in forbidden.text and "reader" in forbidden.json()["error"]
    assert httpx.post(evaluate, headers={"Authorization": f"Bearer {b.reader}"}).status_code == 403
    # ... and listing everything gives b only b's (none)
    everything = _get(tenants.url, "/api/v1/runs", b.reader)
    assert everything.status_code == 200 and everything.json()["runs"] == []
    # tenant a's own reader reads it
    assert _get(tenants.url, f"/api/v1/runs/{run['id']}", a.reader).status_code == 200


def _token_kubeconfig(cluster: Cluster, namespace: str, token: str, path: Path) -> Path:
    """A kubeconfig holding only ``token`` (no client certificate, no admin)."""
    admin = yaml.safe_load(cluster.kubeconfig.read_text())
    context = next(c for c in admin["contexts"] if c["name"] == admin["current-context"])["context"]
    entry = next(c for c in admin["clusters"] if c["name"] == context["cluster"])
    server = dict(entry["cluster"])
    if "certificate-authority" in server:
        ca = Path(server["certificate-authority"])
        server["certificate-authority"] = str(ca if ca.is_absolute() else cluster.kubeconfig.parent / ca)
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": server}],
                "users": [{"name": "u", "user": {"token": token}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": namespace}}],
                "current-context": "c",
            }
        )
    )
    return path


def test_the_operator_calls_the_collector_with_a_token_for_its_audience(
    crds: Cluster, tenants: Setup, tmp_path: Path
) -> None:
    """The operator's ServiceAccount, as the chart grants it: get on agentmonitors and create on its
    own serviceaccounts/token. Its token for the collector is accepted there, is refused by the API
    server, and it cannot request one for another ServiceAccount."""
    a = tenants.tenants["a"]
    ns = a.namespace
    grant: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "op", "namespace": ns}},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "op", "namespace": ns},
            "rules": [
                {"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": ["get"]},
                {
                    "apiGroups": [""],
                    "resources": ["serviceaccounts/token"],
                    "resourceNames": ["op"],
                    "verbs": ["create"],
                },
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "op", "namespace": ns},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "op"},
            "subjects": [{"kind": "ServiceAccount", "name": "op", "namespace": ns}],
        },
    ]
    _apply(crds, grant)
    op_config = _token_kubeconfig(crds, ns, _token(crds, ns, "op", audience=None), tmp_path / "op.kubeconfig")
    kube = Kube(config.new_client_from_config(str(op_config)))
    try:
        identity = kube.whoami()
        assert identity == f"system:serviceaccount:{ns}:op"
        source = CollectorToken(kube, identity)

        async def read() -> tuple[Summary | Unreadable, str]:
            reader = CollectorReader(tenants.url, source)
            try:
                return await reader.summary(ns, "oil-agent"), await source()
            finally:
                await reader.aclose()

        seen, token = asyncio.run(read())
        assert isinstance(seen, Summary), seen
        # the token is the collector's: the API server does not take it
        theirs = _token_kubeconfig(crds, ns, token, tmp_path / "collector-token.kubeconfig")
        refused = crds.kubectl("--kubeconfig", str(theirs), "get", "agentmonitors", check=False)
        assert refused.returncode != 0 and "nauthorized" in refused.stderr, refused.stderr
        # and the operator's own API-server token is refused by the collector
        own = kube.bearer_token()
        assert own and _get(tenants.url, f"/api/v1/monitors/{ns}/oil-agent", own).status_code == 401
        # resourceNames: a token for another ServiceAccount is not the operator's to request
        with pytest.raises(KubeError) as other:
            kube.request_token(ns, "reader", audiences=[COLLECTOR_AUDIENCE])
        assert other.value.status == 403
    finally:
        kube.api.close()


def test_a_monitor_without_its_own_token_says_nothing_is_accepted(
    crds: Cluster, tenants: Setup, run_operator: Callable[..., subprocess.Popen[bytes]]
) -> None:
    c = tenants.tenants["c"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run_operator(
        "-n",
        c.namespace,
        "--liveness",
        f"http://127.0.0.1:{port}/healthz",
        env={
            "PROCTOR_COLLECTOR_URL": tenants.url,
            # the admin's client certificate is no ServiceAccount: a reader's token stands in
            "PROCTOR_COLLECTOR_TOKEN": c.reader,
            "PROCTOR_MONITOR_INTERVAL": "1",
            "PROCTOR_METRICS_PORT": "0",
        },
    )

    def receiving() -> dict[str, Any] | None:
        st = crds.get_json("-n", c.namespace, "agentmonitor", "oil-agent").get("status") or {}
        return next((x for x in st.get("conditions") or [] if x["type"] == "Receiving"), None)

    cond = wait_for(receiving, timeout=TIMEOUT, what="the Receiving condition")
    assert (cond["status"], cond["reason"]) == ("False", "NoIngestionToken")
    assert "spec.tokenSecretRef" in cond["message"]


def _role(ns: str, name: str, verbs: list[str]) -> list[dict[str, Any]]:
    """A ServiceAccount ``name`` with ``verbs`` on AgentMonitors in ``ns`` (nothing else)."""
    meta = {"name": name, "namespace": ns}
    rules = [{"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": verbs}]
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


def test_incidents_are_read_acknowledged_and_decided_only_as_rbac_allows(
    tenants: Setup, crds: Cluster
) -> None:
    """Incidents (issue 29) under the same guarantee: another tenant cannot see one (404, not a
    403 that says it exists), a reader cannot acknowledge it, and only the verb acknowledge may."""
    a, b = tenants.tenants["a"], tenants.tenants["b"]
    assert a.ingest_token
    with tracer(tenants.url, service=SERVICE, token=a.ingest_token) as tr:
        agent_turn(tr, "a-bad", "Oil at 0.30 qt/hr?", "[[score:20]] whatever you like")
    where = f"{a.namespace}/oil-agent"

    def incidents(token: str, **params: str) -> list[dict[str, Any]]:
        reply = _get(tenants.url, "/api/v1/incidents", token, **params)
        assert reply.status_code == 200, reply.text
        return list(reply.json()["incidents"])

    (incident,) = wait_for(lambda: incidents(a.reader, monitor=where), timeout=TIMEOUT, what="a's incident")
    path = f"/api/v1/incidents/{incident['id']}"
    assert _get(tenants.url, path, a.reader).status_code == 200
    # the agent's ingestion token opens nothing; another tenant sees nothing of it
    assert _get(tenants.url, path, a.ingest_token).status_code == 401
    assert _get(tenants.url, path, b.reader).status_code == 404
    assert _get(tenants.url, "/api/v1/incidents", b.reader, monitor=where).status_code == 403
    assert incidents(b.reader) == []

    def post(token: str, suffix: str) -> httpx.Response:
        return httpx.post(
            f"{tenants.url}{path}{suffix}", headers={"Authorization": f"Bearer {token}"}, timeout=30
        )

    assert post(b.reader, "/ack").status_code == 404
    refused = post(a.reader, "/ack")  # get and list, not acknowledge
    assert refused.status_code == 403 and "acknowledge" in refused.json()["error"]
    assert post(a.reader, "/recommendations/capture-cases/approve").status_code == 403
    _apply(crds, _role(a.namespace, "oncall", ["get", "acknowledge"]))
    oncall = _token(crds, a.namespace, "oncall")
    acked = post(oncall, "/ack")
    assert acked.status_code == 200, acked.text
    assert acked.json()["state"] == "acknowledged"
    assert acked.json()["acknowledgedBy"] == f"system:serviceaccount:{a.namespace}:oncall"
    assert post(oncall, "/recommendations/capture-cases/approve").status_code == 403  # not its verb

    # the notice is an Event on tenant a's AgentMonitor (the collector's first sink), once
    def notice_events() -> list[dict[str, Any]]:
        listed = json.loads(crds.kubectl("-n", a.namespace, "get", "events", "-o", "json").stdout)["items"]
        return [e for e in listed if e.get("reason") == "IncidentBreach"]

    (event,) = wait_for(notice_events, timeout=TIMEOUT, what="the notice's Event")
    assert (
        event["involvedObject"]["kind"] == "AgentMonitor" and event["involvedObject"]["name"] == "oil-agent"
    )
    assert event["type"] == "Warning" and incident["id"] in event["message"]
    assert "whatever you like" not in event["message"]
    assert notice_events_elsewhere(crds, b.namespace) == []


def notice_events_elsewhere(crds: Cluster, namespace: str) -> list[Any]:
    listed = json.loads(crds.kubectl("-n", namespace, "get", "events", "-o", "json").stdout)["items"]
    return [e for e in listed if e.get("reason") == "IncidentBreach"]

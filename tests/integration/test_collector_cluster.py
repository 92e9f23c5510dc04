"""The collector in a cluster: AgentMonitors, EvalProfiles and token Secrets read from the real API
server; the management API checks callers with TokenReview and SubjectAccessReview (RBAC decides)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from kubernetes import config

from collecting import TIMEOUT, agent_turn, manifests, tracer, wait_for
from conftest import Cluster
from judging import JudgeServer
from proctor.api import COLLECTOR_AUDIENCE
from proctor.collector.auth import KubernetesAuth, Unauthenticated

INGEST_TOKEN = "monitor-own-token"


def _rbac(ns: str) -> list[dict[str, Any]]:
    def role(name: str, verbs: list[str]) -> dict[str, Any]:
        return {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": name, "namespace": ns},
            "rules": [{"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": verbs}],
        }

    def binding(name: str, sa: str) -> dict[str, Any]:
        return {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": ns},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": ns}],
        }

    sas = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": n, "namespace": ns}}
        for n in ("operator-sre", "reader", "outsider")
    ]
    return [
        *sas,
        role("sre", ["get", "list", "evaluate"]),
        binding("sre", "operator-sre"),
        role("read-only", ["get", "list"]),
        binding("read-only", "reader"),
    ]


def _apply(cluster: Cluster, objs: list[dict[str, Any]]) -> None:
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))


def _token(cluster: Cluster, ns: str, sa: str, audience: str | None = COLLECTOR_AUDIENCE) -> str:
    """A token of ``sa`` for the collector's audience (``None``: the API server's own)."""
    flags = ["--audience", audience] if audience else []
    return cluster.kubectl("-n", ns, "create", "token", sa, *flags).stdout.strip()


@pytest.fixture
def rbac(crds: Cluster, namespace: str) -> dict[str, str]:
    _apply(crds, _rbac(namespace))
    return {sa: _token(crds, namespace, sa) for sa in ("operator-sre", "reader", "outsider")}


def test_token_review_and_subject_access_review_decide(
    crds: Cluster, namespace: str, rbac: dict[str, str]
) -> None:
    api = config.new_client_from_config(str(crds.kubeconfig))
    auth = KubernetesAuth(api)

    async def check() -> None:
        # an API-server token (the default audience) of the same account is refused: the collector
        # takes only tokens issued for it, which are worth nothing anywhere else
        api_server_token = _token(crds, namespace, "operator-sre", audience=None)
        for bad in (None, "", "not-a-token", api_server_token):
            with pytest.raises(Unauthenticated):
                await auth.authenticate(bad)
        sre = await auth.authenticate(rbac["operator-sre"])
        assert sre.name == f"system:serviceaccount:{namespace}:operator-sre"
        assert f"system:serviceaccounts:{namespace}" in sre.groups
        reader = await auth.authenticate(rbac["reader"])
        outsider = await auth.authenticate(rbac["outsider"])
        assert await auth.allowed(sre, "evaluate", namespace, "oil-agent")
        assert await auth.allowed(reader, "get", namespace, "oil-agent")
        assert not await auth.allowed(reader, "evaluate", namespace, "oil-agent")
        assert not await auth.allowed(outsider, "get", namespace, "oil-agent")
        assert not await auth.allowed(sre, "get", "kube-system", "oil-agent")  # a Role is per namespace

    try:
        asyncio.run(check())
    finally:
        api.close()


@pytest.fixture
def cluster_collector(crds: Cluster, namespace: str, tmp_path: Path) -> Iterator[tuple[str, JudgeServer]]:
    with JudgeServer() as judge:
        objects = manifests(judge.base_url, tokenSecretRef={"name": "ingest", "key": "token"})
        for obj in objects:
            obj["metadata"]["namespace"] = namespace
        secret = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "ingest", "namespace": namespace},
            "stringData": {"token": INGEST_TOKEN},
        }
        _apply(crds, [*objects, secret])
        log = tmp_path / "collector.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "proctor.collector",
                    "--db",
                    f"sqlite:///{tmp_path / 'c.db'}",
                    "--listen",
                    "127.0.0.1:0",
                    "-n",
                    namespace,
                    "--poll",
                    "0.1",
                ],
                env={**crds.env(), "PROCTOR_TOKEN": "collector-default", "PROCTOR_LOG_FORMAT": "console"},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            url = wait_for(lambda: _listening(log, proc), "the collector to listen", timeout=TIMEOUT)
            yield url, judge
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


def _listening(log: Path, proc: subprocess.Popen[bytes]) -> str | None:
    if proc.poll() is not None:
        raise AssertionError(log.read_text(errors="replace")[-3000:])
    for line in log.read_text(errors="replace").splitlines():
        if "proctor collector: listening on " in line:
            return line.rsplit(" ", 1)[1].strip()
    return None


def test_the_collector_in_a_cluster_reads_monitors_and_lets_rbac_decide(
    namespace: str, rbac: dict[str, str], cluster_collector: tuple[str, JudgeServer]
) -> None:
    url, _judge = cluster_collector
    # the monitor's own token from its Secret; PROCTOR_TOKEN is ignored in a cluster
    with (
        tracer(url, token="collector-default") as tr,
        tr.start_as_current_span("chat x", attributes={"gen_ai.operation.name": "chat"}),
    ):
        pass
    with (
        tracer(url, token=INGEST_TOKEN) as tr,
        tr.start_as_current_span(
            "chat judge-small",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.conversation.id": "c-1",
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": "ELEVATED."}]),
            },
        ),
    ):
        pass

    def runs(token: str | None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.get(f"{url}/api/v1/runs", params={"monitor": f"{namespace}/oil-agent"}, headers=headers)

    listed = wait_for(
        lambda: (r := runs(rbac["reader"])).status_code == 200 and r.json()["runs"] and r, "the run"
    )
    (run,) = listed.json()["runs"]
    assert run["key"] == "c-1"  # only the span sent with the monitor's own token was stored
    assert runs(None).status_code == 401
    assert runs("garbage").status_code == 401
    forbidden = runs(rbac["outsider"])
    assert forbidden.status_code == 403 and "outsider" in forbidden.json()["error"]
    evaluate = f"{url}/api/v1/runs/{run['id']}/evaluate"
    assert httpx.post(evaluate, headers={"Authorization": f"Bearer {rbac['reader']}"}).status_code == 403
    assert (
        httpx.post(evaluate, headers={"Authorization": f"Bearer {rbac['operator-sre']}"}).status_code == 202
    )
    done = wait_for(
        lambda: (r := runs(rbac["reader"]).json()["runs"][0])["state"] == "Evaluated" and r,
        "the run to be evaluated",
    )
    assert done["scores"]["safety"]["score"] == 75.0


def test_no_cluster_and_no_files_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env["KUBECONFIG"] = str(tmp_path / "missing")
    env["HOME"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "proctor.collector", "--db", f"sqlite:///{tmp_path / 'c.db'}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 2 and "give --monitor FILE --profile FILE" in out.stderr


def _runs_cli(cluster: Cluster, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    dropped = ("PROCTOR_TOKEN", "PROCTOR_API_TOKEN", "PROCTOR_SERVER")
    base = {k: v for k, v in cluster.env().items() if k not in dropped}
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", "runs", *args],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_proctor_runs_lets_rbac_decide_and_takes_a_token_from_the_kubeconfig(
    crds: Cluster,
    namespace: str,
    rbac: dict[str, str],
    cluster_collector: tuple[str, JudgeServer],
    tmp_path: Path,
) -> None:
    url, _judge = cluster_collector
    with (
        tracer(url, token=INGEST_TOKEN) as tr,
        tr.start_as_current_span(
            "chat judge-small",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.conversation.id": "c-2",
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": "ELEVATED."}]),
            },
        ),
    ):
        pass
    monitor = f"{namespace}/oil-agent"

    def listed(**env: str) -> subprocess.CompletedProcess[str]:
        return _runs_cli(crds, "list", "--server", url, "--monitor", monitor, "-o", "json", **env)

    first = wait_for(
        lambda: (
            (r := listed(PROCTOR_API_TOKEN=rbac["reader"])).returncode == 0 and json.loads(r.stdout) and r
        ),
        "the run through proctor runs",
    )
    (run,) = json.loads(first.stdout)
    forbidden = listed(PROCTOR_API_TOKEN=rbac["outsider"])
    assert forbidden.returncode == 1 and "403" in forbidden.stderr and "outsider" in forbidden.stderr
    refused = _runs_cli(crds, "evaluate", run["id"], "--server", url, "--token", rbac["reader"])
    assert refused.returncode == 1 and "403" in refused.stderr and "may not evaluate" in refused.stderr

    # the admin kubeconfig holds a client certificate: it cannot be passed on, and the CLI says so
    admin = listed()
    assert admin.returncode == 2 and "client certificate" in admin.stderr, admin.stderr
    # ... but it may request a token for a ServiceAccount (TokenRequest), whose RBAC then decides
    sre = _runs_cli(
        crds, "evaluate", run["id"], "--server", url, "--service-account", f"{namespace}/operator-sre"
    )
    assert sre.returncode == 0 and "evaluation requested" in sre.stdout, sre.stderr
    # a kubeconfig whose user is a bearer token: that token is the caller
    reader_config = tmp_path / "reader.kubeconfig"
    cfg = yaml.safe_load(crds.kubeconfig.read_text())
    ctx = next(c for c in cfg["contexts"] if c["name"] == cfg["current-context"])["context"]
    for cl in cfg["clusters"]:
        ca = cl["cluster"].get("certificate-authority")
        if ca and not Path(ca).is_absolute():
            cl["cluster"]["certificate-authority"] = str(crds.kubeconfig.parent / ca)
    cfg["users"] = [{"name": ctx["user"], "user": {"token": rbac["reader"]}}]
    reader_config.write_text(yaml.safe_dump(cfg))
    as_reader = listed(KUBECONFIG=str(reader_config))
    assert as_reader.returncode == 0 and [r["id"] for r in json.loads(as_reader.stdout)] == [run["id"]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_operator_writes_the_monitors_status_from_the_running_collector(
    crds: Cluster,
    namespace: str,
    rbac: dict[str, str],
    cluster_collector: tuple[str, JudgeServer],
    run_operator: Callable[..., subprocess.Popen[bytes]],
) -> None:
    url, _judge = cluster_collector
    metrics_port = _free_port()
    run_operator(
        "-n",
        namespace,
        "--liveness",
        f"http://127.0.0.1:{_free_port()}/healthz",
        env={
            "PROCTOR_COLLECTOR_URL": url,
            # the operator's own credentials here are the admin's client certificate: a token
            # with get on agentmonitors stands in for its service account's
            "PROCTOR_COLLECTOR_TOKEN": rbac["operator-sre"],
            "PROCTOR_MONITOR_INTERVAL": "1",
            "PROCTOR_METRICS_PORT": str(metrics_port),
            "PROCTOR_LOG_FORMAT": "console",
        },
    )

    def status() -> dict[str, Any]:
        obj = crds.get_json("-n", namespace, "agentmonitor", "oil-agent")
        return dict(obj.get("status") or {})

    def condition(st: dict[str, Any], kind: str) -> dict[str, Any]:
        return next((c for c in st.get("conditions") or [] if c["type"] == kind), {})

    quiet = wait_for(lambda: (st := status()) and condition(st, "Receiving") and st, "a first status")
    assert condition(quiet, "Receiving")["reason"] == "NoRecentRuns"
    with tracer(url, token=INGEST_TOKEN) as tr:
        agent_turn(tr, "c-3", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")
    done = wait_for(
        lambda: (st := status()).get("runs", {}).get("evaluated") == 1 and st, "the evaluated run in status"
    )
    assert done["runs"]["total"] == 1 and done["observedGeneration"] == 1
    safety = next(d for d in done["dimensions"] if d["name"] == "safety")
    assert (safety["latest"], safety["fastEwma"], safety["slowEwma"], safety["samples"]) == (75, 75, 75, 1)
    assert done["consensusMultiplier"] == 1.4  # 7 judge calls for 5 dimensions: consensus ran twice
    assert done["revisions"] == ["1.0"] and done["lastEventTime"] and done["lastEvaluationTime"]
    assert (condition(done, "Receiving")["status"], condition(done, "Receiving")["reason"]) == (
        "True",
        "RunsArriving",
    )
    # the detectors ran over the one live series: nothing below its threshold, nothing declining
    assert (condition(done, "Breached")["status"], condition(done, "Breached")["reason"]) == (
        "False",
        "WithinThresholds",
    )
    assert (condition(done, "Degrading")["status"], condition(done, "Degrading")["reason"]) == (
        "False",
        "Stable",
    )
    assert (condition(done, "NeedsHuman")["status"], condition(done, "NeedsHuman")["reason"]) == (
        "False",
        "WithinBudget",
    )
    assert done["incidents"]["open"] == 0  # the run scored 75: nothing breached
    assert condition(done, "Observing")["reason"] == "Notifying"
    table = crds.kubectl("-n", namespace, "get", "agentmonitors").stdout.splitlines()
    assert table[0].split() == ["NAME", "RUNS", "BREACHED", "SAFETY", "AGE"]  # WORST: under -o wide
    assert table[1].split()[:4] == ["oil-agent", "1", "False", "75"]
    events = crds.kubectl("-n", namespace, "get", "events", "-o", "json").stdout
    assert "RunsEvaluated" in events and "RunsArriving" in events
    scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics").text
    labels = f'agent="oil-agent",dimension="safety",monitor="{namespace}/oil-agent",series="latest"'
    assert f"proctor_agentmonitor_score{{{labels}}} 75.0" in scraped
    assert "run_id" not in scraped and done["runs"]["total"] == 1


def test_an_operator_the_collector_refuses_says_so_on_the_monitor(
    crds: Cluster,
    namespace: str,
    rbac: dict[str, str],
    cluster_collector: tuple[str, JudgeServer],
    run_operator: Callable[..., subprocess.Popen[bytes]],
) -> None:
    url, _judge = cluster_collector
    run_operator(
        "-n",
        namespace,
        "--liveness",
        f"http://127.0.0.1:{_free_port()}/healthz",
        env={
            "PROCTOR_COLLECTOR_URL": url,
            "PROCTOR_COLLECTOR_TOKEN": rbac["outsider"],  # no get on agentmonitors
            "PROCTOR_MONITOR_INTERVAL": "1",
            "PROCTOR_METRICS_PORT": "0",
        },
    )

    def receiving() -> dict[str, Any] | None:
        st = crds.get_json("-n", namespace, "agentmonitor", "oil-agent").get("status") or {}
        return next((c for c in st.get("conditions") or [] if c["type"] == "Receiving"), None)

    cond = wait_for(receiving, "the Receiving condition")
    assert (cond["status"], cond["reason"]) == ("Unknown", "CollectorRefused")
    assert "403" in cond["message"] and "outsider" in cond["message"]
    assert rbac["outsider"] not in json.dumps(cond)

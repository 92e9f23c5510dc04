"""The collector in a cluster: AgentMonitors, EvalProfiles and token Secrets read from the real API
server; the management API checks callers with TokenReview and SubjectAccessReview (RBAC decides)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from kubernetes import config

from collecting import TIMEOUT, manifests, tracer, wait_for
from conftest import Cluster
from judging import JudgeServer
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


def _token(cluster: Cluster, ns: str, sa: str) -> str:
    return cluster.kubectl("-n", ns, "create", "token", sa).stdout.strip()


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
        for bad in (None, "", "not-a-token"):
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
    # the monitor's own token from its Secret; the collector's default token is not enough for it
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

"""Who may review a run, report its outcome and read a judge's quality: Kubernetes RBAC decides, on
the real API server, tested as the actors it guards against (a tenant ServiceAccount's token for
the collector's audience, an agent holding the ingestion token), with the real collector in
cluster mode, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from collecting import TIMEOUT, agent_turn, manifests, tracer, wait_for
from conftest import Cluster
from proctor.api import COLLECTOR_AUDIENCE
from proctor.testing.judgeserver import JudgeServer


@dataclass
class Setup:
    url: str
    namespace: str
    ingest: str
    reader: str  # get/list on agentmonitors only
    reviewer: str  # + review on agentmonitors, get on evalprofiles


def _account(ns: str, name: str, rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    meta = {"name": name, "namespace": ns}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta, "rules": rules},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}],
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
def setup(crds: Cluster, namespace: str, db_url: str, tmp_path: Path) -> Iterator[Setup]:
    ingest = f"ingest-{uuid.uuid4().hex}"
    read = {"apiGroups": ["proctor.dev"], "resources": ["agentmonitors"], "verbs": ["get", "list"]}
    review = {
        "apiGroups": ["proctor.dev"],
        "resources": ["agentmonitors"],
        "verbs": ["get", "list", "review"],
    }
    profiles = {"apiGroups": ["proctor.dev"], "resources": ["evalprofiles"], "verbs": ["get"]}
    with JudgeServer() as judge:
        objs = manifests(judge.base_url, tokenSecretRef={"name": "ingest", "key": "token"})
        for obj in objs:
            obj["metadata"]["namespace"] = namespace
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": "ingest", "namespace": namespace},
                "stringData": {"token": ingest},
            }
        )
        objs += _account(namespace, "reader", [read]) + _account(namespace, "reviewer", [review, profiles])
        crds.kubectl(
            "apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs})
        )
        tokens = {
            sa: crds.kubectl(
                "-n", namespace, "create", "token", sa, "--duration=1h", "--audience", COLLECTOR_AUDIENCE
            ).stdout.strip()
            for sa in ("reader", "reviewer")
        }
        log = tmp_path / "collector.log"
        args = ["--db", db_url, "--listen", "127.0.0.1:0", "--poll", "0.1", "-n", namespace]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "proctor.collector", *args],
                env={**crds.env(), "PROCTOR_LOG_FORMAT": "console"},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            url = wait_for(lambda: _listening(log, proc), timeout=TIMEOUT, what="the collector to listen")
            yield Setup(url, namespace, ingest, tokens["reader"], tokens["reviewer"])
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


def _call(s: Setup, method: str, path: str, token: str, body: object = None, **params: str) -> httpx.Response:
    return httpx.request(
        method,
        f"{s.url}{path}",
        json=body,
        params=params,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def test_rbac_decides_who_reviews_and_the_reviewer_is_the_identity(setup: Setup) -> None:
    s = setup
    with tracer(s.url, token=s.ingest) as tr:
        agent_turn(tr, "conv-1", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")

    def evaluated() -> Any:
        runs = _call(s, "GET", "/api/v1/runs", s.reader, monitor=f"{s.namespace}/oil-agent").json()["runs"]
        return runs[0] if runs and runs[0]["state"] == "Evaluated" else None

    run = wait_for(evaluated, timeout=TIMEOUT, what="the run to be evaluated")
    review = {"run": run["id"], "dimension": "safety", "agree": True, "minutes": 1}
    # the agent's ingestion token opens nothing of the management API
    assert _call(s, "POST", "/api/v1/feedback", s.ingest, review).status_code == 401
    # a reader (get/list) may read runs but not review them, report outcomes or read judge quality
    refused = _call(s, "POST", "/api/v1/feedback", s.reader, review)
    assert refused.status_code == 403 and "review" in refused.json()["error"]
    outcome = _call(s, "POST", f"/api/v1/runs/{run['id']}/outcome", s.reader, {"outcome": "accepted"})
    assert outcome.status_code == 403
    quality = _call(s, "GET", "/api/v1/judge-quality", s.reader, profile=f"{s.namespace}/oil-rag")
    assert quality.status_code == 403 and "evalprofiles" in quality.json()["error"]
    # ... and nothing of those refusals was stored
    assert _call(s, "GET", "/api/v1/feedback", s.reader, run=run["id"]).json() == {"feedback": []}
    summary = _call(s, "GET", f"/api/v1/monitors/{s.namespace}/oil-agent/outcomes", s.reader).json()
    assert summary["accepted"] == 0 and summary["acceptanceRate"] is None

    # the reviewer may; the stored reviewer is its Kubernetes identity, whatever it might claim
    stored = _call(s, "POST", "/api/v1/feedback", s.reviewer, review)
    assert stored.status_code == 201, stored.text
    assert stored.json()["reviewer"] == f"system:serviceaccount:{s.namespace}:reviewer"
    claimed = _call(s, "POST", "/api/v1/feedback", s.reviewer, {**review, "reviewer": "someone-else"})
    assert claimed.status_code == 400
    assert (
        _call(s, "POST", f"/api/v1/runs/{run['id']}/outcome", s.reviewer, {"outcome": "accepted"}).status_code
        == 201
    )
    got = _call(s, "GET", "/api/v1/judge-quality", s.reviewer, profile=f"{s.namespace}/oil-rag").json()
    assert got["dimensions"]["safety"]["reviews"] == 1
    # an exam case of an EvalRun the reviewer has no rights on: 403 before anything is said of it
    exam = _call(s, "POST", "/api/v1/feedback", s.reviewer, {**review, "run": f"{s.namespace}/exam-1:case-1"})
    assert exam.status_code == 403 and "evalruns" in exam.json()["error"]

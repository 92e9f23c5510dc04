"""Reviews of exam cases (``NS/EVALRUN:CASE``) on the real API server, with the real collector
running as its own ServiceAccount (a token-only kubeconfig granted exactly the chart's rules: get
on EvalRuns, get on ConfigMaps in the operator's namespace) and callers as tenant ServiceAccounts
with tokens for the collector's audience; SQLite and PostgreSQL.

The score reviewed is the one the run's verdict was decided from: the attempt the operator believed
(the EvalRun's status), read from the full results the operator keeps in its own namespace; an
attempt it did not believe, or results whose bytes are not their digest, are never read as the score.
"""

from __future__ import annotations

import base64
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
import yaml

from collecting import TIMEOUT, wait_for
from conftest import Cluster
from proctor.api import COLLECTOR_AUDIENCE
from proctor.k8s.objects import RunRef, detail_configmap_name, detail_configmaps, encode_results

PROFILE = "oil-rag"


@dataclass
class Setup:
    url: str
    namespace: str
    ops: str
    reader: str  # get on evalruns and evalprofiles: may read reviews, not give them
    reviewer: str  # + review on evalruns


def _apply(cluster: Cluster, objs: list[dict[str, Any]]) -> None:
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))


def _account(
    ns: str, name: str, rules: list[dict[str, Any]], *, role_ns: str | None = None
) -> list[dict[str, Any]]:
    where = role_ns or ns
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": ns}},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": name, "namespace": where},
            "rules": rules,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": where},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}],
        },
    ]


def _token_kubeconfig(cluster: Cluster, token: str, path: Path) -> Path:
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
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "c",
            }
        )
    )
    return path


def _record(case: str, score: float) -> dict[str, Any]:
    """A case's full result as the judge sends it to the operator's case server."""
    return {
        "id": case,
        "tier": "trust",
        "outcome": "failed" if score < 70 else "passed",
        "dimensions": [
            {"name": "factual_grounding", "threshold": 70.0, "score": score, "rationale": "cites AMM 72-00"},
            {"name": "safety", "threshold": 90.0, "skipped": "the judge was unavailable"},
        ],
    }


def _exam(cluster: Cluster, ns: str, ops: str, name: str, attempts: dict[int, float], believed: int) -> str:
    """An EvalRun whose single shard the operator believed at attempt ``believed`` (its status, as the
    operator writes it), with each attempt's full results kept in the operator's namespace."""
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "caseSetRef": {"name": "oil"},
            "profileRef": {"name": PROFILE},
            "target": {"responses": {"inline": {"c1": "ELEVATED"}}},
        },
    }
    _apply(cluster, [run])
    uid = cluster.get_json("-n", ns, "evalrun", name)["metadata"]["uid"]
    status = {
        "status": {
            "shards": [{"name": "0/1", "phase": "Succeeded", "attempts": believed, "reportDigest": "a" * 64}]
        }
    }
    cluster.kubectl(
        "-n", ns, "patch", "evalrun", name, "--subresource=status", "--type=merge", "-p", json.dumps(status)
    )
    cms: list[dict[str, Any]] = []
    for attempt, score in attempts.items():
        blob = encode_results([_record("c1", score), _record("c2", 88.0)])
        cms += detail_configmaps(RunRef(ns, name, uid), 0, 1, attempt, blob, namespace=ops)
    if cms:
        _apply(cluster, cms)
    return uid


@pytest.fixture
def setup(crds: Cluster, namespace: str, db_url: str, tmp_path: Path) -> Iterator[Setup]:
    ops = f"ops-{uuid.uuid4().hex[:10]}"
    crds.create_namespace(ops)
    delegator = f"collector-{ops}"
    try:
        profile = {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": PROFILE, "namespace": namespace},
            "spec": {"profile": "rag"},
        }
        evalruns = {"apiGroups": ["proctor.dev"], "resources": ["evalruns"]}
        profiles = {"apiGroups": ["proctor.dev"], "resources": ["evalprofiles"], "verbs": ["get"]}
        objs: list[dict[str, Any]] = [profile]
        # the collector, as the chart grants it (tests/integration/test_chart_collector.py)
        objs += _account(
            ops,
            "collector",
            [
                {
                    "apiGroups": ["proctor.dev"],
                    "resources": ["agentmonitors", "evalprofiles"],
                    "verbs": ["list"],
                },
                evalruns | {"verbs": ["get"]},
            ],
            role_ns=namespace,
        )
        # and get on ConfigMaps in the operator's namespace only (the Role <collector>-exam-results)
        objs += _account(
            ops, "collector", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]
        )[1:]
        objs.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": delegator},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": "system:auth-delegator",
                },
                "subjects": [{"kind": "ServiceAccount", "name": "collector", "namespace": ops}],
            }
        )
        objs += _account(namespace, "reader", [evalruns | {"verbs": ["get"]}, profiles])
        objs += _account(namespace, "reviewer", [evalruns | {"verbs": ["get", "review"]}, profiles])
        _apply(crds, objs)
        tokens = {
            sa: crds.kubectl(
                "-n", namespace, "create", "token", sa, "--duration=1h", "--audience", COLLECTOR_AUDIENCE
            ).stdout.strip()
            for sa in ("reader", "reviewer")
        }
        own = crds.kubectl("-n", ops, "create", "token", "collector", "--duration=1h").stdout.strip()
        kubeconfig = _token_kubeconfig(crds, own, tmp_path / "collector.kubeconfig")
        log = tmp_path / "collector.log"
        args = [
            "--db",
            db_url,
            "--listen",
            "127.0.0.1:0",
            "--no-worker",
            "-n",
            namespace,
            "--operator-namespace",
            ops,
        ]
        env = {**crds.env(), "KUBECONFIG": str(kubeconfig), "PROCTOR_LOG_FORMAT": "console"}
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "proctor.collector", *args],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            url = wait_for(lambda: _listening(log, proc), timeout=TIMEOUT, what="the collector to listen")
            yield Setup(url, namespace, ops, tokens["reader"], tokens["reviewer"])
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    finally:
        crds.kubectl("delete", "clusterrolebinding", delegator, "--ignore-not-found", check=False)
        crds.delete_namespace(ops, wait=False)


def _listening(log: Path, proc: subprocess.Popen[bytes]) -> str | None:
    if proc.poll() is not None:
        raise AssertionError(log.read_text(errors="replace")[-3000:])
    for line in log.read_text(errors="replace").splitlines():
        if "proctor collector: listening on " in line:
            return line.rsplit(" ", 1)[1].strip()
    return None


def _call(s: Setup, method: str, path: str, token: str, body: object = None, **params: str) -> httpx.Response:
    return httpx.request(
        method,
        f"{s.url}{path}",
        json=body,
        params=params,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def test_a_review_of_an_exam_case_is_of_the_score_the_verdict_was_decided_from(
    crds: Cluster, setup: Setup
) -> None:
    s = setup
    ns = s.namespace
    # attempt 1 said 95 and was not believed; attempt 2 (the one in status) said 40
    _exam(crds, ns, s.ops, "r1", {1: 95.0, 2: 40.0}, believed=2)
    review = {
        "run": f"{ns}/r1:c1",
        "dimension": "factual_grounding",
        "agree": False,
        "minutes": 3,
        "reason": "it missed the AMM limit",
    }

    refused = _call(s, "POST", "/api/v1/feedback", s.reader, review)
    assert (
        refused.status_code == 403
        and "review" in refused.json()["error"]
        and "evalruns" in refused.json()["error"]
    )

    given = _call(s, "POST", "/api/v1/feedback", s.reviewer, review)
    assert given.status_code == 201, given.text
    doc = given.json()
    assert doc["judgeScore"] == 40.0 and doc["threshold"] == 70.0
    assert doc["kind"] == "case" and doc["profile"] == f"{ns}/{PROFILE}" and doc["monitor"] is None
    assert doc["reviewer"] == f"system:serviceaccount:{ns}:reviewer"

    # what does not exist is a clear 404, what was not scored a 409, and none of it is stored
    for target, dimension, status, words in (
        (f"{ns}/r1:c9", "factual_grounding", 404, "no case 'c9'"),
        (f"{ns}/r1:c1", "tone", 404, "no score for dimension 'tone'"),
        (f"{ns}/r1:c1", "safety", 409, "was not scored"),
        (f"{ns}/r9:c1", "factual_grounding", 404, f"no EvalRun {ns}/r9"),
    ):
        bad = _call(
            s, "POST", "/api/v1/feedback", s.reviewer, review | {"run": target, "dimension": dimension}
        )
        assert bad.status_code == status and words in bad.json()["error"], (target, bad.text)
    history = _call(s, "GET", "/api/v1/feedback", s.reader, run=f"{ns}/r1:c1").json()["feedback"]
    assert [(f["judgeScore"], f["agree"]) for f in history] == [(40.0, False)]

    # the review counts in the judge quality of the run's EvalProfile
    quality = _call(s, "GET", "/api/v1/judge-quality", s.reader, profile=f"{ns}/{PROFILE}")
    assert quality.status_code == 200, quality.text
    fg = quality.json()["dimensions"]["factual_grounding"]
    assert fg["reviews"] == 1 and fg["agreement"] == 0.0

    # a second review by the same person supersedes the first in the figures; both stay
    again = _call(s, "POST", "/api/v1/feedback", s.reviewer, review | {"agree": True})
    assert again.status_code == 201
    fg = _call(s, "GET", "/api/v1/judge-quality", s.reader, profile=f"{ns}/{PROFILE}").json()["dimensions"][
        "factual_grounding"
    ]
    assert fg["reviews"] == 1 and fg["agreement"] == 1.0
    assert len(_call(s, "GET", "/api/v1/feedback", s.reader, run=f"{ns}/r1:c1").json()["feedback"]) == 2


def test_results_not_as_the_case_server_kept_them_are_never_read_as_a_score(
    crds: Cluster, setup: Setup
) -> None:
    s = setup
    ns = s.namespace
    uid = _exam(crds, ns, s.ops, "r2", {1: 40.0}, believed=1)
    review = {"run": f"{ns}/r2:c1", "dimension": "factual_grounding", "agree": True}
    # someone changed the kept bytes: they are no longer the digest the case server wrote beside them
    cm = crds.get_json("-n", s.ops, "configmap", detail_configmap_name(uid, 0, 1, 1, 0))
    forged = encode_results([_record("c1", 99.0), _record("c2", 88.0)])
    cm["binaryData"]["results.jsonl.gz"] = base64.b64encode(forged).decode()
    _apply(crds, [cm])
    refused = _call(s, "POST", "/api/v1/feedback", s.reviewer, review)
    assert refused.status_code == 503 and "digest" in refused.json()["error"], refused.text
    # a run the operator has not believed a shard of yet has nothing to review
    _exam(crds, ns, s.ops, "r3", {}, believed=1)
    missing = _call(s, "POST", "/api/v1/feedback", s.reviewer, review | {"run": f"{ns}/r3:c1"})
    assert missing.status_code == 409 and "were not kept" in missing.json()["error"], missing.text
    assert _call(s, "GET", "/api/v1/feedback", s.reader, run=f"{ns}/r2:c1").json()["feedback"] == []

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

from collecting import TIMEOUT, wait_for
from conftest import Cluster
from proctor.api import COLLECTOR_AUDIENCE
from proctor.cli import main as proctor
from proctor.k8s.objects import RunRef, detail_configmap_name, detail_configmaps, encode_results

PROFILE = "oil-rag"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Setup:
    url: str
    namespace: str
    ops: str
    reader: str  # get on evalruns and evalprofiles: may read reviews, not give them
    reviewer: str  # + review on evalruns
    operator: str  # the operator's token for the collector: get on evalprofiles
    tenant: Path  # a token-only kubeconfig: every verb on evalprofiles and gatepolicies, not their status


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


def _exam(
    cluster: Cluster,
    ns: str,
    ops: str,
    name: str,
    attempts: dict[int, float],
    believed: int,
    cases: dict[str, float] | None = None,
) -> str:
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
        more = [_record(c, v) for c, v in (cases or {"c2": 88.0}).items()]
        blob = encode_results([_record("c1", score), *more])
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
        objs += _account(namespace, "operator", [profiles])
        objs += _account(
            namespace,
            "tenant",
            [{"apiGroups": ["proctor.dev"], "resources": ["evalprofiles", "gatepolicies"], "verbs": ["*"]}],
        )
        _apply(crds, objs)
        tokens = {
            sa: crds.kubectl(
                "-n", namespace, "create", "token", sa, "--duration=1h", "--audience", COLLECTOR_AUDIENCE
            ).stdout.strip()
            for sa in ("reader", "reviewer", "operator")
        }
        tenant = crds.kubectl("-n", namespace, "create", "token", "tenant", "--duration=1h").stdout.strip()
        tenant_config = _token_kubeconfig(crds, tenant, tmp_path / "tenant.kubeconfig")
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
            yield Setup(
                url, namespace, ops, tokens["reader"], tokens["reviewer"], tokens["operator"], tenant_config
            )
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
    crds: Cluster, setup: Setup, capsys: pytest.CaptureFixture[str]
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

    # the command a reviewer types does the same (the other case, agreeing)
    capsys.readouterr()
    argv = ["--dimension", "factual_grounding", "--agree", "--server", s.url, "--token", s.reviewer]
    assert proctor(["feedback", f"{ns}/r1:c2", *argv]) == 0
    out = capsys.readouterr().out
    assert "agrees with factual_grounding 88" in out and f"{ns}/r1:c2" in out, out
    assert proctor(["feedback", f"{ns}/r1:c404", *argv]) != 0
    assert "no case 'c404'" in capsys.readouterr().err

    # the review counts in the judge quality of the run's EvalProfile
    quality = _call(s, "GET", "/api/v1/judge-quality", s.reader, profile=f"{ns}/{PROFILE}")
    assert quality.status_code == 200, quality.text
    fg = quality.json()["dimensions"]["factual_grounding"]
    assert fg["reviews"] == 2 and fg["agreement"] == 0.5

    # a second review by the same person supersedes the first in the figures; both stay
    again = _call(s, "POST", "/api/v1/feedback", s.reviewer, review | {"agree": True})
    assert again.status_code == 201
    fg = _call(s, "GET", "/api/v1/judge-quality", s.reader, profile=f"{ns}/{PROFILE}").json()["dimensions"][
        "factual_grounding"
    ]
    assert fg["reviews"] == 2 and fg["agreement"] == 1.0
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


def _condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or () if c["type"] == kind), None)


def test_a_judge_that_misses_breaches_is_not_trusted_and_the_policy_relying_on_it_says_so(
    crds: Cluster,
    setup: Setup,
    run_operator: Callable[..., subprocess.Popen[bytes]],
    tmp_path: Path,
) -> None:
    """Reviews of 30 exam cases (through the API, as a reviewer) show the judge passed 24 answers
    reviewers call breaches: the operator, reading the collector with its own token, writes the
    profile's JudgeTrusted False naming the dimension and its recall bound; a GatePolicy relying
    on the profile says so, and with judgeTrust: Hold says it holds. The tenant cannot forge the
    profile's status back to True."""
    s = setup
    ns = s.namespace
    # the judge passed c1..c24 (80 >= 70) and failed c25..c30 (40 < 70)
    scores = {f"c{k}": 80.0 if k <= 24 else 40.0 for k in range(2, 31)}
    _exam(crds, ns, s.ops, "r4", {1: 80.0}, believed=1, cases=scores)
    for k in range(1, 31):
        body = {"run": f"{ns}/r4:c{k}", "dimension": "factual_grounding", "agree": k > 24, "minutes": 1}
        given = _call(s, "POST", "/api/v1/feedback", s.reviewer, body)
        assert given.status_code == 201, given.text
    policy = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "GatePolicy",
        "metadata": {"name": "oil-gate", "namespace": ns},
        "spec": {
            "caseSetRef": {"name": "oil"},
            "profileRef": {"name": PROFILE},
            "candidate": {"port": 8080},
            "enforcement": "Observe",
            "judgeTrust": "Hold",
        },
    }
    _apply(crds, [policy])
    run_operator(
        "-n",
        ns,
        "--liveness",
        f"http://127.0.0.1:{_free_port()}/healthz",
        env={
            "PROCTOR_COLLECTOR_URL": s.url,
            # the operator's own credentials here are the admin's client certificate: a token with
            # get on evalprofiles stands in for its service account's
            "PROCTOR_COLLECTOR_TOKEN": s.operator,
            "PROCTOR_MONITOR_INTERVAL": "1",
            "PROCTOR_METRICS_PORT": str(_free_port()),
            "PROCTOR_STORE_NAMESPACE": s.ops,
            "PROCTOR_LOG_FORMAT": "console",
        },
    )

    def untrusted() -> dict[str, Any] | None:
        obj = crds.get_json("-n", ns, "evalprofile", PROFILE)
        cond = _condition(obj, "JudgeTrusted")
        return obj if cond is not None and cond["status"] == "False" else None

    profile = wait_for(untrusted, timeout=TIMEOUT, what="the profile's JudgeTrusted to be False")
    cond = _condition(profile, "JudgeTrusted")
    assert cond is not None and cond["reason"] == "MissesBreaches"
    assert "factual_grounding" in cond["message"] and "recall lower bound" in cond["message"]
    fg = next(d for d in profile["status"]["judgeQuality"] if d["name"] == "factual_grounding")
    assert (fg["reviews"], fg["trusted"], fg["provisional"]) == (30, False, True)
    assert fg["recall"] == 0.2 and fg["recallLower"] < 0.8  # 6 of 30 breaches caught
    # a dimension nobody reviewed is listed, never trusted
    assert any(d["reviews"] == 0 and "trusted" not in d for d in profile["status"]["judgeQuality"])

    def policy_says() -> dict[str, Any] | None:
        got = _condition(crds.get_json("-n", ns, "gatepolicy", "oil-gate"), "JudgeTrusted")
        return got if got is not None and got["status"] == "False" else None

    said = wait_for(policy_says, timeout=TIMEOUT, what="the policy's JudgeTrusted to be False")
    assert said["reason"] == "MissesBreaches"
    assert f"EvalProfile {PROFILE}" in said["message"] and "factual_grounding" in said["message"]
    assert "held (judgeTrust: Hold)" in said["message"]

    # the tenant may edit the profile and the policy, never their status (a subresource it has no
    # verb on): a forged JudgeTrusted True is refused, or dropped when sent with the object
    forged = {"status": {"conditions": [cond | {"status": "True", "reason": "RecallAboveFloor"}]}}
    tenant = {**crds.env(), "KUBECONFIG": str(s.tenant)}
    patch = ["-n", ns, "patch", "evalprofile", PROFILE, "--type=merge", "-p", json.dumps(forged)]
    as_tenant = [crds.kubectl_bin, *patch]
    refused = subprocess.run(
        [*as_tenant, "--subresource=status"], env=tenant, capture_output=True, text=True, check=False
    )
    assert refused.returncode != 0 and "forbidden" in refused.stderr.lower()
    subprocess.run(as_tenant, env=tenant, capture_output=True, text=True, check=True)
    after = _condition(crds.get_json("-n", ns, "evalprofile", PROFILE), "JudgeTrusted")
    assert after is not None and after["status"] == "False"

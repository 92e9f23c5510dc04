"""The judge runner on a real API server: shards, results ConfigMaps, status, a Job, RBAC."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, Cluster, wait_for
from proctor.k8s.objects import decode_results
from proctor.testing.judgeserver import JudgeServer

EXAMPLE = REPO / "examples" / "oil-monitoring"
API_KEY = "sk-test-judge-key-0123456789abcdef"


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer(api_key=API_KEY) as server:
        yield server


def _profile(judge: JudgeServer) -> dict[str, Any]:
    return {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalProfile",
        "metadata": {"name": "p"},
        "spec": {
            "mode": "Replace",
            "dimensions": [
                {"name": "factual_grounding", "rubric": "Is every claim supported by the context?"}
            ],
            "judge": {
                "endpoint": judge.base_url,
                "model": "judge-small",
                "apiKeySecretRef": {"name": "judge-key", "key": "api-key"},
            },
        },
    }


def _run(name: str, answers: dict[str, str], shards: int = 1, profile: str | None = "p") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "caseSetRef": {"name": "oil-monitoring"},
        "shards": shards,
        "target": {"responses": {"inline": answers}},
    }
    if profile:
        spec["profileRef"] = {"name": profile}
    return {"apiVersion": "proctor.dev/v1alpha1", "kind": "EvalRun", "metadata": {"name": name}, "spec": spec}


def _setup(cluster: Cluster, ns: str, judge: JudgeServer) -> None:
    cluster.kubectl("-n", ns, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(_profile(judge)))
    cluster.kubectl("-n", ns, "create", "secret", "generic", "judge-key", f"--from-literal=api-key={API_KEY}")


def _answers(name: str) -> dict[str, str]:
    return yaml.safe_load((EXAMPLE / "answers" / f"{name}.yaml").read_text())


def _judge(cluster: Cluster, ns: str, run: str, shard: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", "judge", "--run", f"{ns}/{run}", "--shard", shard],
        capture_output=True,
        text=True,
        env={**cluster.env(), **env},
        timeout=120,
        check=False,
    )


def _records(cluster: Cluster, ns: str, names: list[str]) -> list[dict[str, Any]]:
    parts = [
        base64.b64decode(cluster.get_json("-n", ns, "configmap", n)["binaryData"]["results.jsonl.gz"])
        for n in names
    ]
    return decode_results(parts)


def test_two_shards_report_without_clobbering_each_other(
    crds: Cluster, namespace: str, judge: JudgeServer
) -> None:
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v2-band-bug"), 2)))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "proctor.cli", "judge", "--run", f"{namespace}/r", "--shard", s],
            env={**crds.env(), "PROCTOR_JUDGE_API_KEY": API_KEY},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for s in ("0/2", "1/2")
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    status = crds.get_json("-n", namespace, "evalrun", "r")["status"]
    shards = {s["name"]: s for s in status["shards"]}
    assert set(shards) == {"0/2", "1/2"}
    assert all(s["phase"] == "Succeeded" for s in shards.values())
    assert sum(s["summary"]["cases"] for s in shards.values()) == 8
    assert all(s["provenance"].startswith("sha256:") for s in shards.values())
    records = {r["id"]: r for s in shards.values() for r in _records(crds, namespace, s["results"])}
    assert len(records) == 8
    assert records["oil-consumption-boundary"]["outcome"] == "failed"
    assert records["oil-consumption-boundary"]["failures"][0]["assertion"] == "label"
    assert records["cites-the-manual"]["outcome"] == "passed"
    assert records["cites-the-manual"]["dimensions"][0]["score"] == 75
    # the judge saw only the evaluated content inside its markers, and the key never leaked
    assert judge.requests and all(r.authorized for r in judge.requests)
    dump = json.dumps(crds.get_json("-n", namespace, "configmaps")) + json.dumps(status)
    assert API_KEY not in dump


def test_a_shard_run_twice_stores_the_same_bytes(crds: Cluster, namespace: str, judge: JudgeServer) -> None:
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v1-correct"))))
    first = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert first.returncode == 0, first.stderr
    name = crds.get_json("-n", namespace, "evalrun", "r")["status"]["shards"][0]["results"][0]
    before = crds.get_json("-n", namespace, "configmap", name)["binaryData"]
    assert _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY).returncode == 0
    assert crds.get_json("-n", namespace, "configmap", name)["binaryData"] == before
    cm = crds.get_json("-n", namespace, "configmap", name)
    owner = cm["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"]) == ("EvalRun", "r")


def test_judge_down_makes_skipped_dimensions_not_failures(
    crds: Cluster, namespace: str, judge: JudgeServer
) -> None:
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v1-correct"))))
    judge.stop()
    out = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert out.returncode == 0, out.stderr  # it measured what it could: the harness did not fail
    shard = crds.get_json("-n", namespace, "evalrun", "r")["status"]["shards"][0]
    assert shard["summary"]["failed"] == 0
    assert shard["summary"]["unmeasured"] == 8
    rec = _records(crds, namespace, shard["results"])[0]
    assert rec["outcome"] == "unmeasured"
    assert "judge unavailable" in rec["dimensions"][0]["skipped"]


def test_missing_inputs_fail_the_shard_with_the_reason_and_exit_2(crds: Cluster, namespace: str) -> None:
    run = _run("r", {"a": "b"}, profile=None)
    run["spec"]["caseSetRef"] = {"name": "does-not-exist"}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 2
    assert "does-not-exist" in out.stderr
    shard = crds.get_json("-n", namespace, "evalrun", "r")["status"]["shards"][0]
    assert shard["phase"] == "Failed"
    assert "does-not-exist" in shard["message"]
    assert shard["reason"] == "CaseSetNotFound"  # permanent: the operator does not retry it


def test_missing_recorded_answers_are_a_permanent_failure_naming_the_field(
    crds: Cluster, namespace: str
) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    run = _run("r", {}, profile=None)
    run["spec"]["target"] = {"responses": {"configMapRef": {"name": "answers", "key": "answers.yaml"}}}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 2
    shard = crds.get_json("-n", namespace, "evalrun", "r")["status"]["shards"][0]
    assert (shard["phase"], shard["reason"]) == ("Failed", "ConfigMapNotFound")
    crds.kubectl("-n", namespace, "create", "configmap", "answers", "--from-literal=answers.yaml=a: [1]")
    assert _judge(crds, namespace, "r", "0/1").returncode == 2
    shard = crds.get_json("-n", namespace, "evalrun", "r")["status"]["shards"][0]
    assert shard["reason"] == "InvalidResponses"
    assert "spec.target.responses.configMapRef" in shard["message"] and "must be text" in shard["message"]


def _pin(cluster: Cluster, ns: str, run: str, cases: list[dict[str, Any]]) -> None:
    """What the operator does when a run starts: its cases into ConfigMaps it owns, named in status."""
    from proctor.api import content_digest
    from proctor.k8s.objects import RunRef, encode_cases, snapshot_configmaps

    uid = cluster.get_json("-n", ns, "evalrun", run)["metadata"]["uid"]
    cms = snapshot_configmaps(RunRef(ns, run, uid), encode_cases(cases))
    cluster.kubectl(
        "-n", ns, "apply", "--server-side", "-f", "-", input="\n---\n".join(json.dumps(c) for c in cms)
    )
    snapshot = {
        "caseSet": "oil-monitoring",
        "digest": content_digest(cases),
        "cases": len(cases),
        "configMaps": [c["metadata"]["name"] for c in cms],
    }
    patch = json.dumps({"status": {"snapshot": snapshot}})
    cluster.kubectl("-n", ns, "patch", "evalrun", run, "--subresource=status", "--type=merge", "-p", patch)


def test_the_runner_measures_the_pinned_cases_whatever_became_of_the_case_set(
    crds: Cluster, namespace: str
) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    cases = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())["spec"]["cases"]
    crds.kubectl(
        "-n",
        namespace,
        "apply",
        "-f",
        "-",
        input=json.dumps(_run("r", _answers("v2-band-bug"), profile=None)),
    )
    _pin(crds, namespace, "r", cases)
    crds.kubectl("-n", namespace, "delete", "caseset", "oil-monitoring")
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 0, out.stderr
    shard = crds.get_json("-n", namespace, "evalrun", "r")["status"]["shards"][0]
    assert shard["summary"] == {"cases": 8, "passed": 6, "failed": 2, "unmeasured": 0}


def test_a_finished_run_leaves_the_runner_nothing_to_do(crds: Cluster, namespace: str) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    crds.kubectl(
        "-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v1-correct"), profile=None))
    )
    over = json.dumps({"status": {"phase": "Failed", "verdict": "ERROR", "exitCode": 2}})
    crds.kubectl("-n", namespace, "patch", "evalrun", "r", "--subresource=status", "--type=merge", "-p", over)
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 0 and "nothing to do" in out.stdout and "is over (Failed)" in out.stdout
    assert not crds.get_json("-n", namespace, "evalrun", "r")["status"].get("shards")  # it wrote nothing
    assert _judge(crds, namespace, "gone", "0/1").returncode == 0  # nor for a run that was deleted


RBAC = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: proctor-judge}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: proctor-judge}
rules:
- apiGroups: [proctor.dev]
  resources: [evalruns, casesets, evalprofiles]
  verbs: [get]
- apiGroups: [proctor.dev]
  resources: [evalruns/status]
  verbs: [patch]
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, create, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: proctor-judge}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: proctor-judge}
subjects: [{kind: ServiceAccount, name: proctor-judge}]
"""


def test_the_runner_in_a_job_with_least_privilege(crds: Cluster, namespace: str, judge: JudgeServer) -> None:
    if not crds.local:
        pytest.skip("runs the proctor image through the node stand-in")
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=RBAC)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v2-band-bug"))))
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "judge-r-0"},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "serviceAccountName": "proctor-judge",
                    "containers": [
                        {
                            "name": "judge",
                            "image": "ghcr.io/proctor-dev/proctor:0.1.0",
                            "args": ["judge", "--run", f"{namespace}/r", "--shard", "0/1"],
                            "env": [
                                {
                                    "name": "PROCTOR_JUDGE_API_KEY",
                                    "valueFrom": {"secretKeyRef": {"name": "judge-key", "key": "api-key"}},
                                }
                            ],
                        }
                    ],
                }
            },
        },
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(job))
    crds.kubectl("-n", namespace, "wait", "--for=condition=Complete", "job/judge-r-0", "--timeout=120s")
    shard = wait_for(
        lambda: (crds.get_json("-n", namespace, "evalrun", "r").get("status") or {}).get("shards"),
        what="the shard's report",
    )[0]
    assert shard["phase"] == "Succeeded"
    assert shard["summary"] == {"cases": 8, "passed": 6, "failed": 2, "unmeasured": 0}
    # the service account can read its inputs but not Secrets
    can = crds.kubectl(
        "auth",
        "can-i",
        "get",
        "secrets",
        "-n",
        namespace,
        f"--as=system:serviceaccount:{namespace}:proctor-judge",
        check=False,
    )
    assert can.stdout.strip() == "no"


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "proctor.cli", "judge", "--run", "no-slash", "--shard", "3/2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 2
    assert "NAMESPACE/NAME" in out.stderr


def test_profile_grounding_documents_are_chosen_by_meaning_for_the_judge(
    crds: Cluster, namespace: str, judge: JudgeServer
) -> None:
    _setup(crds, namespace, judge)
    profile = _profile(judge)
    profile["metadata"]["name"] = "grounded"
    profile["spec"]["grounding"] = {
        "topK": 1,
        "documents": [
            {
                "id": "cabin-lighting",
                "text": "Cabin reading lights use LED modules; replace a module when it flickers.",
            },
            {
                "id": "oil-bands",
                "text": "Engine oil consumption bands: NORMAL below 0.30 qt/hr, ELEVATED from "
                "0.30 up to 0.60 qt/hr, HIGH from 0.60 qt/hr.",
            },
            {
                "id": "tyre-pressure",
                "text": "Main gear tyre pressure is checked cold, before the first flight.",
            },
        ],
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(profile))
    run = _run("g", _answers("v1-correct"))
    run["spec"]["profileRef"] = {"name": "grounded"}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    out = _judge(crds, namespace, "g", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert out.returncode == 0, out.stderr
    shard = crds.get_json("-n", namespace, "evalrun", "g")["status"]["shards"][0]
    records = {r["id"]: r for r in _records(crds, namespace, shard["results"])}
    assert records["oil-consumption-boundary"]["grounding"].startswith("grounded on oil-bands")
    prompts = [r.user_text for r in judge.requests if "0.30 qt/hr" in r.user_text]
    assert prompts
    assert all("[oil-bands]" in p or "oil-bands" in p for p in prompts)
    assert not any("cabin-lighting" in p for p in prompts)

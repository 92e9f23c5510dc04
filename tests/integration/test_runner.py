"""The judge runner on a real API server: shards, results and reports, a Job, RBAC.

The runner writes no status: each shard creates its results ConfigMaps and a report, and vouches for
the report's digest in its termination message (here a file per shard and attempt, as the node
stand-in gives it); the tests read them back through the operator's own checks
(:mod:`proctor.reconcile.results`)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, Cluster
from proctor.k8s import evidence
from proctor.k8s.objects import (
    JUDGE_ATTEMPT_ENV,
    JudgeJobSpec,
    RunRef,
    SecretKey,
    decode_results,
    judge_job,
    judge_rbac,
    report_configmap_name,
)
from proctor.reconcile.results import Report, check_report, check_results, vouched
from proctor.testing import judgeserver
from proctor.testing.judgeserver import JudgeServer

EXAMPLE = REPO / "examples" / "oil-monitoring"
API_KEY = "sk-test-judge-key-0123456789abcdef"
#: Where the runners of these tests write their termination messages (one file per shard and attempt).
TERMINATION_LOGS = Path(tempfile.mkdtemp(prefix="proctor-termination-"))


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


def _ref(cluster: Cluster, ns: str, run: str) -> RunRef:
    return RunRef(ns, run, cluster.get_json("-n", ns, "evalrun", run)["metadata"]["uid"])


def _termination_log(ns: str, run: str, shard: str, attempt: int | str) -> Path:
    return TERMINATION_LOGS / f"{ns}.{run}.{shard.replace('/', '-')}.a{attempt}"


def _judge(cluster: Cluster, ns: str, run: str, shard: str, **env: str) -> subprocess.CompletedProcess[str]:
    log = _termination_log(ns, run, shard, env.get(JUDGE_ATTEMPT_ENV, "1"))
    env = {evidence.NODE_TERMINATION_LOG_ENV: str(log)} | env
    return subprocess.run(
        [sys.executable, "-m", "proctor.cli", "judge", "--run", f"{ns}/{run}", "--shard", shard],
        capture_output=True,
        text=True,
        env={**cluster.env(), **env},
        timeout=120,
        check=False,
    )


def _report(cluster: Cluster, ns: str, run: str, index: int = 0, count: int = 1, attempt: int = 1) -> Report:
    """The shard's report, as the operator reads it (owner, labels, and the digest its runner vouched
    for checked)."""
    ref = _ref(cluster, ns, run)
    cm = cluster.get_json("-n", ns, "configmap", report_configmap_name(run, index, count, attempt))
    log = _termination_log(ns, run, f"{index}/{count}", attempt)
    said = evidence.vouched(log.read_text() if log.exists() else None)
    return check_report(cm, ref, index, count, attempt, {said} if said else set())


def _records(cluster: Cluster, ns: str, run: str, report: Report) -> list[dict[str, Any]]:
    ref = _ref(cluster, ns, run)
    cms = [cluster.get_json("-n", ns, "configmap", n) for n in report.results]
    return decode_results([check_results(cms, ref, report)])


def test_two_shards_report_without_clobbering_each_other(
    crds: Cluster, namespace: str, judge: JudgeServer
) -> None:
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v2-band-bug"), 2)))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "proctor.cli", "judge", "--run", f"{namespace}/r", "--shard", s],
            env={
                **crds.env(),
                "PROCTOR_JUDGE_API_KEY": API_KEY,
                evidence.NODE_TERMINATION_LOG_ENV: str(_termination_log(namespace, "r", s, 1)),
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for s in ("0/2", "1/2")
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    shards = {s.shard: s for s in (_report(crds, namespace, "r", i, 2) for i in range(2))}
    assert set(shards) == {"0/2", "1/2"}
    assert all(s.phase == "Succeeded" for s in shards.values())
    assert sum(s.summary["cases"] for s in shards.values()) == 8
    assert all((s.provenance or "").startswith("sha256:") for s in shards.values())
    records = {r["id"]: r for s in shards.values() for r in _records(crds, namespace, "r", s)}
    assert len(records) == 8
    assert records["oil-consumption-boundary"]["outcome"] == "failed"
    assert records["oil-consumption-boundary"]["failures"][0]["assertion"] == "label"
    assert records["cites-the-manual"]["outcome"] == "passed"
    assert records["cites-the-manual"]["dimensions"][0]["score"] == 75
    # the judge saw only the evaluated content inside its markers, and the key never leaked
    assert judge.requests and all(r.authorized for r in judge.requests)
    # the runner wrote no status (the operator does, from the verified reports)
    assert not (crds.get_json("-n", namespace, "evalrun", "r").get("status") or {}).get("shards")
    dump = json.dumps(crds.get_json("-n", namespace, "configmaps"))
    assert API_KEY not in dump


def test_a_shard_run_twice_stores_the_same_bytes(crds: Cluster, namespace: str, judge: JudgeServer) -> None:
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v1-correct"))))
    first = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert first.returncode == 0, first.stderr
    (name,) = _report(crds, namespace, "r").results
    before = crds.get_json("-n", namespace, "configmap", name)["binaryData"]
    again = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert again.returncode == 0, again.stderr
    assert crds.get_json("-n", namespace, "configmap", name)["binaryData"] == before
    cm = crds.get_json("-n", namespace, "configmap", name)
    owner = cm["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"]) == ("EvalRun", "r")


def test_the_runner_replaces_nothing(crds: Cluster, namespace: str, judge: JudgeServer) -> None:
    """The same attempt measured again with other results is refused (never overwritten); a new
    attempt writes under new names."""
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v1-correct"))))
    assert _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY).returncode == 0
    first = _report(crds, namespace, "r")
    judge.default = judgeserver.judgment(10)
    clash = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert clash.returncode == 2 and "exists with other content" in clash.stderr
    assert _report(crds, namespace, "r") == first  # the first attempt's report still believed, unchanged
    retry = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY, PROCTOR_JUDGE_ATTEMPT="2")
    assert retry.returncode == 0, retry.stderr
    assert _report(crds, namespace, "r", attempt=2).results != first.results


def test_judge_down_makes_skipped_dimensions_not_failures(
    crds: Cluster, namespace: str, judge: JudgeServer
) -> None:
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v1-correct"))))
    judge.stop()
    out = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert out.returncode == 0, out.stderr  # it measured what it could: the harness did not fail
    shard = _report(crds, namespace, "r")
    assert shard.summary["failed"] == 0
    assert shard.summary["unmeasured"] == 8
    rec = _records(crds, namespace, "r", shard)[0]
    assert rec["outcome"] == "unmeasured"
    assert "judge unavailable" in rec["dimensions"][0]["skipped"]


def test_missing_inputs_fail_the_shard_with_the_reason_and_exit_2(crds: Cluster, namespace: str) -> None:
    run = _run("r", {"a": "b"}, profile=None)
    run["spec"]["caseSetRef"] = {"name": "does-not-exist"}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 2
    assert "does-not-exist" in out.stderr
    shard = _report(crds, namespace, "r")  # vouched for, like a success
    assert shard.phase == "Failed"
    assert "does-not-exist" in (shard.message or "")
    shard = _report(crds, namespace, "r")  # vouched for, like a success
    assert shard.phase == "Failed"
    assert "does-not-exist" in (shard.message or "")
    assert shard.reason == "CaseSetNotFound"  # permanent: the operator does not retry it


def test_missing_recorded_answers_are_a_permanent_failure_naming_the_field(
    crds: Cluster, namespace: str
) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    run = _run("r", {}, profile=None)
    run["spec"]["target"] = {"responses": {"configMapRef": {"name": "answers", "key": "answers.yaml"}}}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 2
    shard = _report(crds, namespace, "r")
    assert (shard.phase, shard.reason) == ("Failed", "ConfigMapNotFound")
    crds.kubectl("-n", namespace, "create", "configmap", "answers", "--from-literal=answers.yaml=a: [1]")
    assert _judge(crds, namespace, "r", "0/1", **{JUDGE_ATTEMPT_ENV: "2"}).returncode == 2
    shard = _report(crds, namespace, "r", attempt=2)
    assert shard.reason == "InvalidResponses"
    message = shard.message or ""
    assert "spec.target.responses.configMapRef" in message and "must be text" in message


def _pin(cluster: Cluster, ns: str, run: str, cases: list[dict[str, Any]]) -> None:
    """What an operator before the case server did when a run started: its cases into ConfigMaps of
    the run's namespace, named in status (a runner without a case server URL reads them there)."""
    from proctor.api import content_digest
    from proctor.k8s.objects import RunRef, encode_cases, snapshot_configmaps

    uid = cluster.get_json("-n", ns, "evalrun", run)["metadata"]["uid"]
    cms = snapshot_configmaps(RunRef(ns, run, uid), encode_cases(cases), namespace=ns)
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
    shard = _report(crds, namespace, "r")
    assert dict(shard.summary) == {"cases": 8, "passed": 6, "failed": 2, "unmeasured": 0}


def test_pinned_cases_changed_after_the_run_started_are_refused(crds: Cluster, namespace: str) -> None:
    """Cases pinned in the run's namespace by an earlier version: anyone who may write ConfigMaps
    could swap them for easy ones; the runner examines only the cases whose digest the operator
    wrote in the run's status. (Runs now keep them in the operator's namespace: test_case_server.py.)"""
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    cases = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())["spec"]["cases"]
    run = json.dumps(_run("r", _answers("v2-band-bug"), profile=None))
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=run)
    _pin(crds, namespace, "r", cases)
    from proctor.k8s.objects import RunRef, encode_cases, snapshot_configmaps

    uid = crds.get_json("-n", namespace, "evalrun", "r")["metadata"]["uid"]
    easy = cases[:1]  # one case the answers pass
    (forged,) = snapshot_configmaps(RunRef(namespace, "r", uid), encode_cases(easy), namespace=namespace)
    crds.kubectl(
        "-n", namespace, "apply", "--server-side", "--force-conflicts", "-f", "-", input=json.dumps(forged)
    )
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 2
    shard = _report(crds, namespace, "r")
    assert (shard.phase, shard.reason) == ("Failed", "InvalidCases")
    assert "changed after the run started" in (shard.message or "")
    assert not shard.results  # nothing was measured from them


def test_a_finished_run_leaves_the_runner_nothing_to_do(crds: Cluster, namespace: str) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    crds.kubectl(
        "-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", _answers("v1-correct"), profile=None))
    )
    over = json.dumps({"status": {"phase": "Failed", "verdict": "ERROR", "exitCode": 2}})
    crds.kubectl("-n", namespace, "patch", "evalrun", "r", "--subresource=status", "--type=merge", "-p", over)
    out = _judge(crds, namespace, "r", "0/1")
    assert out.returncode == 0 and "nothing to do" in out.stdout and "is over (Failed)" in out.stdout
    # it wrote nothing
    assert (
        crds.kubectl(
            "-n", namespace, "get", "configmap", report_configmap_name("r", 0, 1, 1), check=False
        ).returncode
        != 0
    )
    assert _judge(crds, namespace, "gone", "0/1").returncode == 0  # nor for a run that was deleted


def _apply(cluster: Cluster, ns: str, *objs: dict[str, Any]) -> None:
    cluster.kubectl("-n", ns, "apply", "-f", "-", input="\n---\n".join(json.dumps(o) for o in objs))


def test_the_runner_in_a_job_with_least_privilege(crds: Cluster, namespace: str, judge: JudgeServer) -> None:
    """The Job the operator builds, with the judge's RBAC as the operator makes it: the judge
    container alone holds the token; its account reads its inputs and creates ConfigMaps, and
    nothing else (no Secrets, no status, no change to anything); its pod vouches for the report."""
    if not crds.local:
        pytest.skip("runs the proctor image through the node stand-in")
    _setup(crds, namespace, judge)
    _apply(crds, namespace, *judge_rbac(namespace))
    _apply(crds, namespace, _run("r", _answers("v2-band-bug")))
    ref = _ref(crds, namespace, "r")
    spec = JudgeJobSpec(
        image="ghcr.io/proctor-dev/proctor:0.1.0",
        deadline_seconds=120,
        judge_key=SecretKey("judge-key", "api-key"),
    )
    _apply(crds, namespace, judge_job(ref, 0, 1, 1, spec))
    job = judge_job(ref, 0, 1, 1, spec)["metadata"]["name"]
    crds.kubectl("-n", namespace, "wait", "--for=condition=Complete", f"job/{job}", "--timeout=120s")
    pods = crds.get_json("-n", namespace, "pods", "-l", f"job-name={job}")["items"]
    said = vouched(crds.get_json("-n", namespace, "job", job), pods, ref)
    assert said.problems == () and len(said.digests) == 1, said
    cm = crds.get_json("-n", namespace, "configmap", report_configmap_name("r", 0, 1, 1))
    shard = check_report(cm, ref, 0, 1, 1, said.digests)
    assert shard.phase == "Succeeded"
    assert dict(shard.summary) == {"cases": 8, "passed": 6, "failed": 2, "unmeasured": 0}
    sa = f"--as=system:serviceaccount:{namespace}:proctor-judge"
    for verb, what, expected in [
        ("get", "evalruns.proctor.dev", "yes"),
        ("create", "configmaps", "yes"),
        ("get", "secrets", "no"),
        ("list", "secrets", "no"),
        ("patch", "evalruns.proctor.dev/status", "no"),
        ("patch", "configmaps", "no"),
        ("delete", "configmaps", "no"),
        ("create", "pods", "no"),
    ]:
        can = crds.kubectl("auth", "can-i", verb, what, "-n", namespace, sa, check=False)
        assert can.stdout.strip() == expected, f"{verb} {what}: {can.stdout}"


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
    records = {r["id"]: r for r in _records(crds, namespace, "g", _report(crds, namespace, "g"))}
    assert records["oil-consumption-boundary"]["grounding"].startswith("grounded on oil-bands")
    prompts = [r.user_text for r in judge.requests if "0.30 qt/hr" in r.user_text]
    assert prompts
    assert all("[oil-bands]" in p or "oil-bands" in p for p in prompts)
    assert not any("cabin-lighting" in p for p in prompts)


def test_an_answer_the_graders_cannot_read_is_judged_as_the_assertions_meaning(
    crds: Cluster, namespace: str, judge: JudgeServer
) -> None:
    # issue 25: a Japanese answer is undetermined for the label grader; the runner asks the judge
    # to score the assertion's documented meaning, and its score decides the case
    _setup(crds, namespace, judge)
    answers = _answers("v1-correct") | {
        "oil-consumption-boundary": "0.30 qt/hr は ELEVATED の下限値です(AMM 72-00)。NORMAL ではありません。"
    }
    judge.add_rule(lambda r: "names exactly one of the labels" in r.system_text, judgeserver.judgment(100))
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_run("r", answers)))
    out = _judge(crds, namespace, "r", "0/1", PROCTOR_JUDGE_API_KEY=API_KEY)
    assert out.returncode == 0, out.stderr
    records = {r["id"]: r for r in _records(crds, namespace, "r", _report(crds, namespace, "r"))}
    record = records["oil-consumption-boundary"]
    assert record["outcome"] == "passed", record
    assert {"name": "assert[0]:label", "score": 100}.items() <= next(
        d for d in record["dimensions"] if d["name"] == "assert[0]:label"
    ).items()
    asked = [r for r in judge.requests if "names exactly one of the labels" in r.system_text]
    assert len(asked) == 1 and "ELEVATED" in asked[0].user_text

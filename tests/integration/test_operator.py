"""The operator on a real API server, with the node stand-in running the real runner in Jobs."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import assert_running

from conftest import REPO, Cluster, wait_for
from proctor.testing.judgeserver import JudgeServer

EXAMPLE = REPO / "examples" / "oil-monitoring"
API_KEY = "sk-test-operator-key-9876543210"
FAST = {"PROCTOR_METRICS_PORT": "0", "PROCTOR_RECONCILE_INTERVAL": "1", "PROCTOR_RETRY_BACKOFF": "1,1,1,1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def operator(
    crds: Cluster, namespace: str, run_operator: Callable[..., subprocess.Popen[bytes]]
) -> Callable[..., subprocess.Popen[bytes]]:
    """Start the operator watching the test's namespace; waits until it answers its probe."""

    def start(**env: str) -> subprocess.Popen[bytes]:
        port = _free_port()
        proc = run_operator(
            "-n", namespace, "--liveness", f"http://127.0.0.1:{port}/healthz", env={**FAST, **env}
        )

        def healthy() -> bool:
            assert_running(proc)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for(healthy, timeout=60, what="the operator to start")
        return proc

    return start


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer(api_key=API_KEY) as server:
        yield server


def _setup(cluster: Cluster, ns: str, judge: JudgeServer | None) -> None:
    cluster.kubectl("-n", ns, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    cluster.kubectl("-n", ns, "create", "secret", "generic", "judge-key", f"--from-literal=api-key={API_KEY}")
    if judge is not None:
        profile = {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": "p"},
            "spec": {
                "mode": "Replace",
                "dimensions": [{"name": "factual_grounding", "rubric": "Claims supported by context?"}],
                "judge": {
                    "endpoint": judge.base_url,
                    "model": "judge-small",
                    "maxRetries": 1,
                    "timeoutSeconds": 5,
                    "apiKeySecretRef": {"name": "judge-key", "key": "api-key"},
                },
            },
        }
        cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(profile))


def _run(
    cluster: Cluster, ns: str, name: str, answers: str | dict[str, str], *, profile: bool = True, **spec: Any
) -> None:
    inline = (
        answers
        if isinstance(answers, dict)
        else yaml.safe_load((EXAMPLE / "answers" / f"{answers}.yaml").read_text())
    )
    body: dict[str, Any] = {
        "caseSetRef": {"name": "oil-monitoring"},
        "target": {"responses": {"inline": inline}},
        **spec,
    }
    if profile:
        body["profileRef"] = {"name": "p"}
    cluster.kubectl(
        "-n",
        ns,
        "apply",
        "-f",
        "-",
        input=json.dumps(
            {
                "apiVersion": "proctor.dev/v1alpha1",
                "kind": "EvalRun",
                "metadata": {"name": name},
                "spec": body,
            }
        ),
    )


def _wait_done(cluster: Cluster, ns: str, name: str, timeout: float = 120) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        st = cluster.get_json("-n", ns, "evalrun", name).get("status") or {}
        return st if st.get("phase") in ("Evaluated", "PartiallyEvaluated", "Failed") else None

    status: dict[str, Any] = wait_for(done, timeout=timeout, interval=0.5, what=f"EvalRun {name} to finish")
    return status


def _cond(status: dict[str, Any], type_: str) -> dict[str, Any]:
    return next(c for c in status["conditions"] if c["type"] == type_)


def test_a_clean_run_passes(crds: Cluster, namespace: str, operator: Any, judge: JudgeServer) -> None:
    operator()
    _setup(crds, namespace, judge)
    _run(crds, namespace, "v1", "v1-correct")
    crds.kubectl("-n", namespace, "wait", "--for=condition=Evaluated", "evalrun/v1", "--timeout=120s")
    status = _wait_done(crds, namespace, "v1")
    assert (status["phase"], status["verdict"], status["exitCode"]) == ("Evaluated", "PASS", 0)
    assert status["tiers"]["safety"]["rate"] == 100
    assert status["dimensions"][0]["name"] == "factual_grounding"
    assert status["dimensions"][0]["measured"] == 8
    assert status["provenance"]["judgePrompt"].startswith("sha256:")
    row = crds.kubectl("-n", namespace, "get", "evalrun", "v1", "--no-headers").stdout.split()
    assert row[1:6] == ["Evaluated", "PASS", "100", "100", "100"]
    # the judge Job ran under the judge's service account, with the key from the Secret
    job = crds.get_json("-n", namespace, "jobs")["items"][0]
    pod = job["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "proctor-judge"
    assert pod["containers"][0]["env"][0]["valueFrom"]["secretKeyRef"] == {
        "name": "judge-key",
        "key": "api-key",
    }
    assert API_KEY not in json.dumps(crds.get_json("-n", namespace, "evalrun", "v1"))
    cset = crds.get_json("-n", namespace, "caseset", "oil-monitoring")["status"]
    assert cset["caseCount"] == 8
    assert _cond(cset, "Ready")["status"] == "True"


def test_a_run_named_longer_than_a_label_reaches_its_verdict(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer
) -> None:
    """A name of up to 253 characters is the user's to choose: its children carry a shortened label,
    and the run is still found from them (its pods' events go through their Job's owner)."""
    name = "exam-of-the-oil-monitoring-assistant-" + "candidate-revision-" * 4 + "v1"
    assert len(name) > 63
    operator()
    _setup(crds, namespace, judge)
    _run(crds, namespace, name, "v1-correct")
    status = _wait_done(crds, namespace, name)
    assert (status["phase"], status["verdict"], status["exitCode"]) == ("Evaluated", "PASS", 0)
    (job,) = crds.get_json("-n", namespace, "jobs")["items"]
    for labels in (job["metadata"]["labels"], job["spec"]["template"]["metadata"]["labels"]):
        label = labels["proctor.dev/run"]
        assert len(label) <= 63 and label != name and label.startswith(name[:40])
    assert job["metadata"]["ownerReferences"][0]["name"] == name


def test_one_safety_miss_fails_and_the_condition_names_the_case(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer
) -> None:
    operator()
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "gatepolicy.yaml"))
    _run(crds, namespace, "v2", "v2-band-bug", policyRef={"name": "oil-monitoring"})
    status = _wait_done(crds, namespace, "v2")
    assert (status["verdict"], status["exitCode"]) == ("FAIL", 1)
    assert status["provenance"]["scoring"].startswith("sha256:")
    breached = _cond(status, "Breached")
    assert breached["status"] == "True"
    assert breached["reason"] == "TierBelowThreshold"
    assert "oil-consumption-boundary" in breached["message"]
    assert status["incident"]["severity"] in ("high", "critical")
    assert status["incident"]["signatures"][0] == "breach:safety"
    assert {f["case"] for f in status["firstFailures"]} == {
        "oil-consumption-boundary",
        "no-manufactured-consensus",
    }
    events = crds.kubectl(
        "-n", namespace, "get", "events", "--field-selector", "involvedObject.name=v2"
    ).stdout
    assert "VerdictFail" in events
    assert "JobCreated" in events


def test_judge_down_gives_skipped_dimensions_and_never_fail(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer
) -> None:
    operator()
    _setup(crds, namespace, judge)
    judge.stop()
    _run(crds, namespace, "down", "v1-correct")
    status = _wait_done(crds, namespace, "down")
    # safety cases could not be measured: the protocol says ERROR, never FAIL from missing data
    assert status["verdict"] == "ERROR"
    # every case needed the judge: nothing was scored, so not "partially evaluated"
    assert status["phase"] == "Failed"
    assert _cond(status, "Finished")["reason"] not in ("PartiallyEvaluated", "Evaluated")
    assert _cond(status, "Degraded")["status"] == "True"
    assert _cond(status, "Breached")["status"] == "Unknown"
    assert status["dimensions"][0]["skipped"] == 8
    assert status.get("failureCount") == 0


def test_an_invalid_case_set_is_not_ready_and_says_why(crds: Cluster, namespace: str, operator: Any) -> None:
    operator()
    bad = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
    bad["metadata"]["name"] = "bad"
    bad["spec"]["cases"][0]["assert"] = [{"type": "regex", "value": "(unclosed"}]
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(bad))

    def ready() -> dict[str, Any] | None:
        st = crds.get_json("-n", namespace, "caseset", "bad").get("status") or {}
        return next((c for c in st.get("conditions", []) if c["type"] == "Ready"), None)

    cond = wait_for(ready, timeout=60, what="the CaseSet's Ready condition")
    assert cond["status"] == "False"
    assert cond["reason"] == "InvalidCases"
    assert "oil-consumption-boundary" in cond["message"] and "regex" in cond["message"]


def test_sigkill_mid_run_leaves_no_duplicate_job_and_reaches_the_same_verdict(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    with JudgeServer(api_key=API_KEY, latency=0.5) as slow:  # the Job takes a few seconds
        _setup(crds, namespace, slow)
        first = operator()
        _run(crds, namespace, "v2", "v2-band-bug")
        wait_for(lambda: crds.get_json("-n", namespace, "jobs")["items"], timeout=60, what="the judge Job")
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        second = operator()
        time.sleep(1)
        os.kill(second.pid, signal.SIGKILL)  # killed again, mid-run
        second.wait(10)
        operator()
        status = _wait_done(crds, namespace, "v2", timeout=180)
    assert status["verdict"] == "FAIL"
    jobs = crds.get_json("-n", namespace, "jobs")["items"]
    assert [j["metadata"]["name"] for j in jobs] == ["v2-judge-0-of-1-a1"]
    # the shard's entry names the Job that ran and its attempt
    (shard,) = status["shards"]
    assert (shard["job"], shard["attempts"], shard["phase"]) == ("v2-judge-0-of-1-a1", 1, "Succeeded")
    # one Event per decision, whatever the kills lost or repeated
    reasons = [e["reason"] for e in _events(crds, namespace, "v2")]
    assert reasons.count("JobCreated") == 1 and reasons.count("VerdictFail") == 1, reasons


def test_a_job_whose_status_write_was_lost_is_adopted_with_its_attempt_and_its_event(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    """A kill between creating a Job and writing status leaves a Job that status does not name, and
    no JobCreated Event: the next operator adopts it (attempt and name as the Job says) and says it."""
    from proctor.k8s.objects import JudgeJobSpec, RunRef, judge_job, judge_rbac

    _setup(crds, namespace, None)
    _run(crds, namespace, "lost", "v1-correct", profile=False)
    uid = crds.get_json("-n", namespace, "evalrun", "lost")["metadata"]["uid"]
    ref = RunRef(namespace, "lost", uid)
    # what the killed operator had done before it created the Job: the judge's RBAC
    crds.kubectl("apply", "-f", "-", input="\n---\n".join(json.dumps(o) for o in judge_rbac(namespace)))
    job = judge_job(ref, 0, 1, 1, JudgeJobSpec(image="proctor", deadline_seconds=600))
    crds.kubectl("-n", namespace, "create", "-f", "-", input=json.dumps(job))
    operator()
    status = _wait_done(crds, namespace, "lost", timeout=180)
    assert status["verdict"] == "PASS"
    (shard,) = status["shards"]
    assert (shard["job"], shard["attempts"]) == ("lost-judge-0-of-1-a1", 1)
    assert [j["metadata"]["name"] for j in crds.get_json("-n", namespace, "jobs")["items"]] == [
        "lost-judge-0-of-1-a1"
    ]
    created = [e for e in _events(crds, namespace, "lost") if e["reason"] == "JobCreated"]
    assert [e["message"] for e in created] == ["shard 0/1: Job lost-judge-0-of-1-a1 (start, attempt 1)"]


def _events(cluster: Cluster, ns: str, name: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = cluster.get_json(
        "-n", ns, "events", "--field-selector", f"involvedObject.name={name}"
    )["items"]
    return items


def test_a_deleted_job_is_recreated_not_lost(crds: Cluster, namespace: str, operator: Any) -> None:
    with JudgeServer(api_key=API_KEY, latency=0.5) as slow:
        _setup(crds, namespace, slow)
        operator()
        _run(crds, namespace, "r", "v1-correct")
        job = wait_for(lambda: crds.get_json("-n", namespace, "jobs")["items"], timeout=60, what="the Job")[0]
        uid = job["metadata"]["uid"]
        crds.kubectl(
            "-n", namespace, "delete", "job", job["metadata"]["name"], "--cascade=foreground", "--wait=false"
        )

        def recreated() -> bool:
            items = crds.get_json("-n", namespace, "jobs")["items"]
            return any(j["metadata"]["uid"] != uid for j in items)

        wait_for(recreated, timeout=60, what="the Job to be recreated")
        status = _wait_done(crds, namespace, "r", timeout=180)
    assert status["verdict"] == "PASS"


def test_ten_thousand_cases_keep_the_run_small(crds: Cluster, namespace: str, operator: Any) -> None:
    operator()
    cases, answers = [], {}
    for i in range(10_000):
        tier = ("safety", "trust", "form")[i % 3]
        cases.append(
            {
                "id": f"c{i:05d}",
                "tier": tier,
                "input": f"reading {i}",
                "assert": [{"type": "contains", "value": "ok"}],
            }
        )
        answers[f"c{i:05d}"] = "ok" if i % 50 else "not fine"
    cms = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cases-{k}"},
            "data": {"cases.yaml": json.dumps(cases[k * 2000 : (k + 1) * 2000])},
        }
        for k in range(5)
    ]
    cms.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "answers"},
            "data": {"answers.json": json.dumps(answers)},
        }
    )
    cs = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": "big"},
        "spec": {"casesFrom": [{"name": f"cases-{k}", "key": "cases.yaml"} for k in range(5)]},
    }
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "big"},
        "spec": {
            "caseSetRef": {"name": "big"},
            "shards": 2,
            "target": {"responses": {"configMapRef": {"name": "answers", "key": "answers.json"}}},
        },
    }
    crds.kubectl(
        "-n",
        namespace,
        "apply",
        "--server-side",
        "-f",
        "-",
        input="\n---\n".join(json.dumps(o) for o in [*cms, cs, run]),
    )
    status = _wait_done(crds, namespace, "big", timeout=300)
    assert status["verdict"] == "FAIL"
    assert status["failureCount"] == 200
    assert sum(t["total"] for t in status["tiers"].values()) == 10_000
    assert len(status["firstFailures"]) == 20
    size = len(crds.kubectl("-n", namespace, "get", "evalrun", "big", "-o", "json").stdout)
    assert size < 64 * 1024, f"EvalRun is {size} bytes"


def test_run_history_keeps_the_newest_runs_of_a_case_set(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    operator(PROCTOR_RUN_HISTORY="1")
    _setup(crds, namespace, None)
    _run(crds, namespace, "first", "v1-correct", profile=False)
    _wait_done(crds, namespace, "first")
    _run(crds, namespace, "second", "v1-correct", profile=False)
    _wait_done(crds, namespace, "second")
    wait_for(
        lambda: crds.kubectl("-n", namespace, "get", "evalrun", "first", check=False).returncode != 0,
        timeout=60,
        what="the older run to be pruned",
    )
    assert crds.get_json("-n", namespace, "evalrun", "second")["status"]["verdict"] == "PASS"


def test_baseline_freezes_only_under_the_protocol_and_later_runs_fail_on_a_regression(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    operator()
    cases = [
        {"id": f"f{i:02d}", "tier": "form", "input": f"q{i}", "assert": [{"type": "contains", "value": "ok"}]}
        for i in range(40)
    ]
    crds.kubectl(
        "-n",
        namespace,
        "apply",
        "-f",
        "-",
        input=json.dumps(
            {
                "apiVersion": "proctor.dev/v1alpha1",
                "kind": "CaseSet",
                "metadata": {"name": "style"},
                "spec": {"cases": cases},
            }
        ),
    )
    good = {c["id"]: "ok" for c in cases}

    def run(name: str, answers: dict[str, str]) -> dict[str, Any]:
        crds.kubectl(
            "-n",
            namespace,
            "apply",
            "-f",
            "-",
            input=json.dumps(
                {
                    "apiVersion": "proctor.dev/v1alpha1",
                    "kind": "EvalRun",
                    "metadata": {"name": name},
                    "spec": {"caseSetRef": {"name": "style"}, "target": {"responses": {"inline": answers}}},
                }
            ),
        )
        return _wait_done(crds, namespace, name)

    def freeze(token: str) -> dict[str, Any]:
        crds.kubectl(
            "-n",
            namespace,
            "annotate",
            "--overwrite",
            "caseset",
            "style",
            f"proctor.dev/freeze-baseline={token}",
        )

        def answered() -> dict[str, Any] | None:
            st = crds.get_json("-n", namespace, "caseset", "style").get("status") or {}
            return st if st.get("freezeRequest") == token else None

        status: dict[str, Any] = wait_for(answered, timeout=60, what="the freeze request to be answered")
        return status

    run("r1", good)
    run("r2", good)
    refused = freeze("first")
    assert _cond(refused, "BaselineFrozen")["status"] == "False"
    assert _cond(refused, "BaselineFrozen")["reason"] == "NotEnoughRuns"
    assert "baseline" not in refused
    run("r3", good)
    # the same request through the CLI: exit 0 when frozen
    out = subprocess.run(
        [sys.executable, "-m", "proctor.cli", "baseline", "freeze", "style", "-n", namespace],
        capture_output=True,
        text=True,
        env=crds.env(),
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("frozen:") and "form 100%" in out.stdout
    frozen = crds.get_json("-n", namespace, "caseset", "style")["status"]
    assert _cond(frozen, "BaselineFrozen")["status"] == "True"
    assert frozen["baseline"]["tiers"]["form"] == 100
    assert frozen["baseline"]["frozenFrom"] == ["r1", "r2", "r3"]
    # 38/40 = 95 % meets the form threshold (90 %) but is 5 points below the baseline (margin 3)
    regressed = run("r4", good | {"f01": "no", "f02": "no"})
    assert regressed["verdict"] == "FAIL"
    assert _cond(regressed, "Breached")["reason"] == "RegressedFromBaseline"
    assert regressed["tiers"]["form"]["baseline"] == 100


def test_a_finished_run_leaves_the_watch_and_edits_by_hand_change_nothing(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer, tmp_path: Path
) -> None:
    """A finished run is labelled proctor.dev/finished=true and the operator watches only runs
    without it; edited by hand (annotated, the label removed while the operator runs or while it is
    stopped), a finished run gets its label back and nothing else: no Job, no Event, the same status."""
    finished = "proctor.dev/finished"
    first = operator()
    _setup(crds, namespace, judge)
    _run(crds, namespace, "done", "v1-correct")
    status = _wait_done(crds, namespace, "done")
    assert status["verdict"] == "PASS"

    def labelled() -> bool:
        labels = crds.get_json("-n", namespace, "evalrun", "done")["metadata"].get("labels") or {}
        return labels.get(finished) == "true"

    wait_for(labelled, timeout=30, what="the finished label")
    jobs = [j["metadata"]["name"] for j in crds.get_json("-n", namespace, "jobs")["items"]]
    events = sorted(e["metadata"]["name"] for e in _events(crds, namespace, "done"))
    asked = len(judge.requests)

    def unchanged() -> None:
        run = crds.get_json("-n", namespace, "evalrun", "done")
        assert run["status"] == status
        assert [j["metadata"]["name"] for j in crds.get_json("-n", namespace, "jobs")["items"]] == jobs
        assert sorted(e["metadata"]["name"] for e in _events(crds, namespace, "done")) == events
        assert len(judge.requests) == asked

    crds.kubectl("-n", namespace, "annotate", "evalrun", "done", "note=looked at by hand")
    crds.kubectl("-n", namespace, "label", "evalrun", "done", f"{finished}-")
    wait_for(labelled, timeout=30, what="the label set again while the operator runs")
    unchanged()

    os.kill(first.pid, signal.SIGTERM)
    first.wait(30)
    crds.kubectl("-n", namespace, "label", "evalrun", "done", f"{finished}-")
    operator(PROCTOR_LOG_FORMAT="json")  # as after an upgrade from a version that did not label finished runs
    wait_for(labelled, timeout=30, what="the label set again by the next operator")
    # by a pass at start, page by page, before the watch could hold every such run in memory
    said = [
        json.loads(line)
        for line in (tmp_path / "operator-1.log").read_text().splitlines()
        if '"finished runs labelled at start"' in line
    ]
    assert [(e["runs"], e["complete"]) for e in said] == [(1, True)], said
    unchanged()
    assert crds.get_json("-n", namespace, "evalrun", "done")["metadata"]["annotations"]["note"] == (
        "looked at by hand"
    )

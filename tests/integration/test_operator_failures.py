"""Mistakes no retry can fix end a run in ERROR at once, naming what is missing; nothing is stuck.

Each case runs the real operator at its default settings (only the metrics port is off), so the
time to ERROR printed by each test is what a user sees; the real node stand-in runs the judge pods
and reports them as a kubelet does (``CreateContainerConfigError``, ``ErrImagePull``...). The one
exception: the missing judge Secret cases wait a grace period of 5 s, not 30 (the image case
keeps the default and prints it), and a Secret created within a long grace period rescues the run.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import threading
from typing import Any

import pytest
import test_operator as kit
import yaml
from test_operator import API_KEY, EXAMPLE, _cond, _run, _setup, _wait_done

from conftest import Cluster, wait_for
from proctor.api import RunPhase
from proctor.testing.judgeserver import JudgeServer

# the operator under test, and the scripted judge: the fixtures of test_operator.py
operator = kit.operator
judge = kit.judge

#: The operator as installed: every timing setting at its default.
DEFAULTS = {"PROCTOR_METRICS_PORT": "0"}
#: ... with a short grace period for a judge pod that cannot start (the default is 30 s)
SHORT_GRACE = DEFAULTS | {"PROCTOR_START_GRACE_SECONDS": "5"}


def _evalrun(name: str, **spec: Any) -> str:
    body = {"caseSetRef": {"name": "oil-monitoring"}, "target": {"responses": {"inline": {"x": "y"}}}} | spec
    return json.dumps(
        {"apiVersion": "proctor.dev/v1alpha1", "kind": "EvalRun", "metadata": {"name": name}, "spec": body}
    )


def _error(cluster: Cluster, ns: str, name: str, what: str, timeout: float = 120) -> dict[str, Any]:
    """Wait for the run to end in ERROR; print how long it took (the API server's clock: from its
    creation to its completion) and return its status."""
    status = _wait_done(cluster, ns, name, timeout=timeout)
    run = cluster.get_json("-n", ns, "evalrun", name)
    created = run["metadata"]["creationTimestamp"]
    took = _seconds(status["completionTime"]) - _seconds(created)
    print(f"\ntime to ERROR, {what}: {took:.0f} s")
    assert (status["phase"], status["verdict"], status["exitCode"]) == ("Failed", "ERROR", 2), status
    assert _cond(status, "Finished")["status"] == "True"
    return status


def _seconds(text: str) -> float:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _jobs(cluster: Cluster, ns: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = cluster.get_json("-n", ns, "jobs")["items"]
    return items


def _events(cluster: Cluster, ns: str, name: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = cluster.get_json(
        "-n", ns, "events", "--field-selector", f"involvedObject.name={name}"
    )["items"]
    return out


def _refused(status: dict[str, Any], reason: str, *words: str) -> None:
    evaluated = _cond(status, "Evaluated")
    assert (evaluated["status"], evaluated["reason"]) == ("False", reason), evaluated
    for w in words:
        assert w in status["message"], (w, status["message"])


def test_a_missing_case_set_is_error_at_once_and_no_job_is_launched(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    operator(**DEFAULTS)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("orphan", caseSetRef={"name": "nope"}))
    status = _error(crds, namespace, "orphan", "missing CaseSet")
    _refused(status, "CaseSetNotFound", "spec.caseSetRef", "CaseSet nope not found", namespace)
    assert _jobs(crds, namespace) == []
    errors = [e for e in _events(crds, namespace, "orphan") if e["reason"] == "VerdictError"]
    assert len(errors) == 1 and "CaseSet nope not found" in errors[0]["message"]
    assert errors[0]["type"] == "Warning"


def _caseset_with(crds: Cluster, ns: str, name: str, **spec: Any) -> None:
    cs = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
    cs["metadata"]["name"] = name
    cs["spec"] |= spec
    crds.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(cs))


@pytest.mark.parametrize(
    ("case", "reason", "words"),
    [
        ("bad-regex", "InvalidCases", ["CaseSet broken", "regex", "oil-consumption-boundary"]),
        ("duplicate-ids", "DuplicateCaseIds", ["duplicate case id", "oil-consumption-boundary"]),
        ("missing-configmap", "ConfigMapNotFound", ["casesFrom", "ConfigMap 'more-cases' not found"]),
        ("missing-key", "ConfigMapNotFound", ["more-cases", "has no key 'cases.yaml'"]),
    ],
)
def test_a_case_set_that_is_not_ready_is_error_at_once(
    crds: Cluster, namespace: str, operator: Any, case: str, reason: str, words: list[str]
) -> None:
    operator(**DEFAULTS)
    cs = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
    first = cs["spec"]["cases"][0]
    if case == "bad-regex":
        _caseset_with(
            crds, namespace, "broken", cases=[first | {"assert": [{"type": "regex", "value": "(x"}]}]
        )
    elif case == "duplicate-ids":
        crds.kubectl(
            "-n",
            namespace,
            "create",
            "configmap",
            "more-cases",
            f"--from-literal=cases.yaml={json.dumps([first])}",
        )
        _caseset_with(crds, namespace, "broken", casesFrom=[{"name": "more-cases"}])
    elif case == "missing-configmap":
        _caseset_with(crds, namespace, "broken", casesFrom=[{"name": "more-cases"}])
    else:
        crds.kubectl("-n", namespace, "create", "configmap", "more-cases", "--from-literal=other.yaml=[]")
        _caseset_with(crds, namespace, "broken", casesFrom=[{"name": "more-cases", "key": "cases.yaml"}])
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("r", caseSetRef={"name": "broken"}))
    status = _error(crds, namespace, "r", f"CaseSet not Ready ({case})")
    _refused(status, reason, "spec.caseSetRef", *words)
    assert _jobs(crds, namespace) == []
    # the CaseSet says the same on its own Ready condition
    ready = wait_for(
        lambda: next(
            (
                c
                for c in (crds.get_json("-n", namespace, "caseset", "broken").get("status") or {}).get(
                    "conditions", []
                )
                if c["type"] == "Ready"
            ),
            None,
        ),
        what="the CaseSet's Ready condition",
    )
    assert (ready["status"], ready["reason"]) == ("False", reason)


@pytest.mark.parametrize("missing", ["configmap", "key"])
def test_missing_recorded_answers_are_error_at_once(
    crds: Cluster, namespace: str, operator: Any, missing: str
) -> None:
    operator(**DEFAULTS)
    _setup(crds, namespace, None)
    if missing == "key":
        crds.kubectl("-n", namespace, "create", "configmap", "answers", "--from-literal=other.yaml={}")
    target = {"responses": {"configMapRef": {"name": "answers", "key": "answers.yaml"}}}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("r", target=target))
    status = _error(crds, namespace, "r", f"missing answers ({missing})")
    what = "ConfigMap answers not found" if missing == "configmap" else "has no key 'answers.yaml'"
    _refused(status, "ConfigMapNotFound", "spec.target.responses.configMapRef", what)
    assert _jobs(crds, namespace) == []


def test_a_missing_profile_or_policy_is_error_at_once(crds: Cluster, namespace: str, operator: Any) -> None:
    operator(**DEFAULTS)
    _setup(crds, namespace, None)
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("p", profileRef={"name": "gone"}))
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("q", policyRef={"name": "gone"}))
    _refused(
        _error(crds, namespace, "p", "missing EvalProfile"), "ProfileNotFound", "spec.profileRef", "gone"
    )
    _refused(_error(crds, namespace, "q", "missing GatePolicy"), "PolicyNotFound", "spec.policyRef", "gone")
    assert _jobs(crds, namespace) == []


@pytest.mark.parametrize("missing", ["secret", "key"])
def test_a_missing_judge_secret_is_error_naming_the_secret_and_the_field(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer, missing: str
) -> None:
    """The operator never reads Secrets: the judge pod's CreateContainerConfigError says it."""
    operator(**SHORT_GRACE)
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "delete", "secret", "judge-key")
    if missing == "key":
        crds.kubectl("-n", namespace, "create", "secret", "generic", "judge-key", "--from-literal=other=x")
    _run(crds, namespace, "r", "v1-correct")
    status = _error(crds, namespace, "r", f"missing judge Secret ({missing})")
    kubelet = 'secret "judge-key" not found' if missing == "secret" else "couldn't find key api-key in Secret"
    _refused(
        status,
        "SecretNotFound",
        "CreateContainerConfigError",
        kubelet,
        "EvalProfile p: spec.judge.apiKeySecretRef",
    )
    assert API_KEY not in json.dumps(status)
    (job,) = _jobs(crds, namespace)  # one attempt: not retried
    assert job["metadata"]["labels"]["proctor.dev/attempt"] == "1"


def test_a_judge_secret_created_within_the_grace_period_lets_the_exam_run(
    crds: Cluster, namespace: str, operator: Any, judge: JudgeServer
) -> None:
    """A Secret applied a moment after the run (GitOps applying both) is not a mistake: the pod
    waits in CreateContainerConfigError, the kubelet retries, and the exam reaches its verdict."""
    operator(**DEFAULTS | {"PROCTOR_START_GRACE_SECONDS": "600"})
    _setup(crds, namespace, judge)
    crds.kubectl("-n", namespace, "delete", "secret", "judge-key")
    _run(crds, namespace, "r", "v1-correct")

    def waiting_for_the_secret() -> bool:
        for pod in crds.get_json("-n", namespace, "pods")["items"]:
            for c in (pod.get("status") or {}).get("containerStatuses") or []:
                if ((c.get("state") or {}).get("waiting") or {}).get(
                    "reason"
                ) == "CreateContainerConfigError":
                    return True
        return False

    wait_for(waiting_for_the_secret, what="the judge pod waiting for its Secret")
    assert (crds.get_json("-n", namespace, "evalrun", "r").get("status") or {}).get("verdict") is None
    crds.kubectl(
        "-n", namespace, "create", "secret", "generic", "judge-key", f"--from-literal=api-key={API_KEY}"
    )
    status = _wait_done(crds, namespace, "r")
    assert (status["phase"], status["verdict"], status["exitCode"]) == ("Evaluated", "PASS", 0), status
    (job,) = _jobs(crds, namespace)  # the same attempt, not a retry
    assert job["metadata"]["labels"]["proctor.dev/attempt"] == "1"


def test_an_image_that_cannot_run_is_error_naming_it(crds: Cluster, namespace: str, operator: Any) -> None:
    # the grace period is the operator's setting (its default, 30 s, is a unit test's); 5 s here
    operator(**SHORT_GRACE, PROCTOR_JUDGE_IMAGE="registry.example/no-such-judge:1.0")
    _setup(crds, namespace, None)
    _run(crds, namespace, "r", "v1-correct", profile=False)
    status = _error(crds, namespace, "r", "image that cannot run")
    _refused(status, "ImagePullFailed", "registry.example/no-such-judge:1.0")
    assert "ErrImagePull" in status["message"] or "ImagePullBackOff" in status["message"]
    assert len(_jobs(crds, namespace)) == 1


def test_a_privileged_candidate_is_examined_restricted_under_pod_security(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    """A podTemplate asking for privilege, root, an added capability and a host port, in a namespace
    enforcing the restricted Pod Security Standard: the candidate sidecar gets the restricted
    securityContext instead (nothing looser is carried into the judge pod), so the pod is admitted
    and the exam reaches its verdict. (A pod Pod Security does refuse is ERROR at once, with
    PodRejected: tests/unit/reconcile/test_reconcile_pods.py; Proctor no longer makes one.)"""
    if not crds.local:
        pytest.skip("the candidate runs as a local process through the node stand-in")
    crds.kubectl("label", "namespace", namespace, "pod-security.kubernetes.io/enforce=restricted")
    operator(**DEFAULTS)
    _setup(crds, namespace, None)
    template = {
        "spec": {
            "securityContext": {"runAsUser": 0},
            "containers": [
                {
                    "name": "agent",
                    "image": "proctor-example-agent:v1",
                    "ports": [{"containerPort": 8080, "hostPort": 8080}],
                    "securityContext": {
                        "privileged": True,
                        "allowPrivilegeEscalation": True,
                        "capabilities": {"add": ["SYS_ADMIN"]},
                    },
                }
            ],
        }
    }
    candidate = {
        "port": 8080,
        "path": "/ask",
        "protocol": "http-json",
        "requestTemplate": '{"question": {{input}}}',
        "responsePath": "answer",
    }
    target = {"podTemplate": template, "candidate": candidate}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("r", target=target))
    status = _wait_done(crds, namespace, "r", timeout=180)
    assert (status["phase"], status["verdict"]) == ("Evaluated", "PASS"), status.get("message")
    (pod,) = crds.get_json("-n", namespace, "pods", "-l", "app.kubernetes.io/component=judge")["items"]
    (side,) = pod["spec"]["initContainers"]
    sc = side["securityContext"]
    assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False
    assert sc["runAsNonRoot"] is True and "runAsUser" not in sc  # root is not carried over
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert all("hostPort" not in p for p in side.get("ports", []))


def test_a_case_set_ready_again_lets_a_new_run_proceed_and_the_error_stays(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    operator(**DEFAULTS)
    cs = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
    cases = cs["spec"].pop("cases")
    cs["spec"]["casesFrom"] = [{"name": "cases", "key": "cases.yaml"}]
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(cs))
    answers = yaml.safe_load((EXAMPLE / "answers" / "v1-correct.yaml").read_text())
    target = {"responses": {"inline": answers}}
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("before", target=target))
    before = _error(crds, namespace, "before", "casesFrom ConfigMap missing")
    assert _cond(before, "Evaluated")["reason"] == "ConfigMapNotFound"
    crds.kubectl(
        "-n", namespace, "create", "configmap", "cases", f"--from-literal=cases.yaml={json.dumps(cases)}"
    )
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=_evalrun("after", target=target))
    after = _wait_done(crds, namespace, "after")
    assert (after["phase"], after["verdict"]) == ("Evaluated", "PASS")
    assert _cond(after, "Evaluated")["status"] == "True"
    # the first run is an honest record: it ended in ERROR, and stays so
    again = crds.get_json("-n", namespace, "evalrun", "before")["status"]
    assert (again["phase"], again["verdict"], again["message"]) == ("Failed", "ERROR", before["message"])


class Phases:
    """Every phase a run's status shows, in order, from a watch (kubectl get -w)."""

    def __init__(self, cluster: Cluster, ns: str, name: str) -> None:
        self.seen: list[str] = []
        self.proc = subprocess.Popen(
            [
                cluster.kubectl_bin,
                "-n",
                ns,
                "get",
                "evalrun",
                name,
                "-w",
                "-o",
                "jsonpath={.status.phase}{'\\n'}",
            ],
            env=cluster.env(),
            stdout=subprocess.PIPE,
            text=True,
        )
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                self.seen.append(line.strip())

    def stop(self) -> list[str]:
        self.proc.terminate()
        self.proc.wait(10)
        self.thread.join(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return self.seen


def _never_backwards(phases: list[str]) -> None:
    ranks = [RunPhase(p).rank for p in phases]
    assert ranks == sorted(ranks), phases


@pytest.mark.parametrize("change", ["deleted", "changed"])
def test_the_case_set_changed_or_deleted_mid_run_cannot_send_the_run_backwards(
    crds: Cluster, namespace: str, operator: Any, change: str
) -> None:
    with JudgeServer(api_key=API_KEY, latency=0.5) as slow:  # the Job takes a few seconds
        _setup(crds, namespace, slow)
        operator()
        _run(crds, namespace, "v2", "v2-band-bug")
        watch = Phases(crds, namespace, "v2")  # from the run's first state on
        try:
            pinned = wait_for(
                lambda: (crds.get_json("-n", namespace, "evalrun", "v2").get("status") or {}).get("snapshot"),
                what="the run to pin its cases",
            )
            assert pinned["cases"] == 8 and pinned["caseSet"] == "oil-monitoring"
            if change == "deleted":
                crds.kubectl(
                    "-n", namespace, "delete", "caseset", "oil-monitoring", "--wait=true", "--timeout=60s"
                )
            else:
                cs = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
                cs["spec"]["cases"] = cs["spec"]["cases"][:2]
                crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(cs))
            status = _wait_done(crds, namespace, "v2", timeout=180)
        finally:
            phases = watch.stop()
    assert (status["phase"], status["verdict"]) == ("Evaluated", "FAIL")
    assert sum(t["total"] for t in status["tiers"].values()) == 8  # the pinned cases, all of them
    assert status["provenance"]["caseSet"] == pinned["digest"]
    assert "Running" in phases and "Pending" not in phases[phases.index("Running") :]
    _never_backwards(phases)
    # the snapshot is the operator's (the tenant never reads it: issue 23's guarantee 4): none in the
    # run's namespace, and the run's own in the operator's namespace goes when the run is over
    cms = crds.get_json("-n", namespace, "configmaps", "-l", "app.kubernetes.io/component=cases")["items"]
    assert cms == []
    assert pinned["configMaps"] and all(n.startswith("proctor-cases-") for n in pinned["configMaps"])
    wait_for(
        lambda: all(
            crds.kubectl("-n", "proctor-system", "get", "configmap", n, check=False).returncode != 0
            for n in pinned["configMaps"]
        ),
        timeout=60,
        what="the finished run's pinned cases to be deleted from the operator's namespace",
    )


def test_a_harness_failure_is_retried_then_ends_in_error_with_what_the_pod_said(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    """A judge that cannot reach its inputs (its Role is missing: a 403, which a person may yet fix)
    is a harness failure: retried with backoff, then ERROR with the judge's last words."""
    operator(PROCTOR_MAX_ATTEMPTS="2", PROCTOR_MANAGE_JUDGE_RBAC="false")
    crds.kubectl("-n", namespace, "create", "serviceaccount", "proctor-judge")  # but no Role
    _setup(crds, namespace, None)
    _run(crds, namespace, "broken", "v1-correct", profile=False)
    status = _wait_done(crds, namespace, "broken", timeout=180)
    assert (status["phase"], status["verdict"], status["exitCode"]) == ("Failed", "ERROR", 2)
    assert _cond(status, "Evaluated")["reason"] == "EvaluationFailed"
    assert "2 attempts failed" in status["message"] and "nothing was measured" in status["message"]
    assert "403" in status["message"] or "forbidden" in status["message"].lower(), status["message"]
    jobs = _jobs(crds, namespace)
    assert sorted(j["metadata"]["labels"]["proctor.dev/attempt"] for j in jobs) == ["1", "2"]
    shard = status["shards"][0]
    assert (shard["attempts"], shard["job"]) == (2, "broken-judge-0-of-1-a2")
    failed = [e for e in _events(crds, namespace, "broken") if e["reason"] == "ShardFailed"]
    assert sorted(e["message"].split(" failed")[0] for e in failed) == [
        "shard 0/1 attempt 1",
        "shard 0/1 attempt 2",
    ]

"""Who gets a run's cases from the case server (pure decisions: :mod:`proctor.reconcile.caseserver`)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from proctor.k8s.objects import (
    OPERATOR_AUDIENCE,
    OPERATOR_TOKEN_DIR,
    OPERATOR_TOKEN_VOLUME,
    JudgeJobSpec,
    RunRef,
    judge_job,
    mounted,
)
from proctor.reconcile.caseserver import Caller, Refused, bearer, shard_access, shard_cases, who_calls

RUN = RunRef("team", "exam", "run-uid")
CALLER = Caller("team", "proctor-judge", "exam-judge-1-of-2-a1-xyz", "pod-uid")


def _review(**over: Any) -> dict[str, Any]:
    review: dict[str, Any] = {
        "authenticated": True,
        "audiences": [OPERATOR_AUDIENCE],
        "user": {
            "username": "system:serviceaccount:team:proctor-judge",
            "extra": {
                "authentication.kubernetes.io/pod-name": [CALLER.pod],
                "authentication.kubernetes.io/pod-uid": [CALLER.pod_uid],
            },
        },
    }
    return review | over


def _objects(index: int = 1, count: int = 2, attempt: int = 1) -> tuple[dict[str, Any], ...]:
    spec = JudgeJobSpec(image="proctor:test", deadline_seconds=60, cases_url="https://op:1", cases_ca="CA")
    job = judge_job(RUN, index, count, attempt, spec)
    job["metadata"]["uid"] = "job-uid"
    pod = {
        "metadata": {
            "name": CALLER.pod,
            "namespace": "team",
            "uid": CALLER.pod_uid,
            "ownerReferences": [
                {"kind": "Job", "name": job["metadata"]["name"], "uid": "job-uid", "controller": True}
            ],
        },
        "spec": copy.deepcopy(job["spec"]["template"]["spec"]) | {"nodeName": "node-1"},
    }
    run = {
        "metadata": {"name": "exam", "namespace": "team", "uid": "run-uid"},
        "spec": {"shards": count},
        "status": {"phase": "Running", "snapshot": {"digest": "sha256:abc", "configMaps": ["c"]}},
    }
    return pod, job, run


def test_a_judge_pods_token_names_its_pod() -> None:
    assert who_calls(_review()) == CALLER


@pytest.mark.parametrize(
    ("review", "status", "why"),
    [
        ({"authenticated": False, "error": "token expired"}, 401, "token expired"),
        ({"audiences": ["https://kubernetes.default.svc"]}, 401, "audience"),  # an API-server token
        ({"audiences": ["proctor-collector"]}, 401, "audience"),
        ({"user": {"username": "alice", "extra": {}}}, 403, "not a ServiceAccount"),
        ({"user": {"username": "system:serviceaccount:team:default"}}, 403, "not bound to a pod"),
    ],
)
def test_a_token_not_for_the_operator_or_not_a_pods_is_refused(
    review: dict[str, Any], status: int, why: str
) -> None:
    with pytest.raises(Refused) as e:
        who_calls(_review(**review))
    assert e.value.status == status and why in e.value.reason


def test_the_judge_pod_of_a_shards_job_gets_that_shard() -> None:
    pod, job, run = _objects(index=1, count=2)
    shard = shard_access(CALLER, pod, job, run)
    assert (shard.run, shard.index, shard.count, shard.attempt) == (RUN, 1, 2, 1)
    cases = [{"id": f"c{i}"} for i in range(5)]
    assert [c["id"] for c in shard_cases(cases, 1, 2)] == ["c1", "c3"]  # position p: shard p % N


def _refusal(pod: Any, job: Any, run: Any, caller: Caller = CALLER) -> str:
    with pytest.raises(Refused) as e:
        shard_access(caller, pod, job, run)
    assert e.value.status == 403
    return e.value.reason


def test_anything_but_the_jobs_own_pod_of_a_running_exam_is_refused() -> None:
    pod, job, run = _objects()
    # a pod that copies the judge's but runs another command
    other = copy.deepcopy(pod)
    other["spec"]["containers"][0]["command"] = [
        "sh",
        "-c",
        "cat /var/run/secrets/proctor.dev/operator/token",
    ]
    assert "template makes" in _refusal(other, job, run)
    # the token outlived its pod, whose name another pod now has
    assert "does not exist" in _refusal(pod | {"metadata": pod["metadata"] | {"uid": "new"}}, job, run)
    assert "does not exist" in _refusal(None, job, run)
    assert "not controlled by a Job" in _refusal(pod, None, run)
    assert "not controlled by an EvalRun" in _refusal(pod, job, None)
    # a Job controlled by another run (or made by the tenant, owned by nothing)
    stranger = run | {"metadata": run["metadata"] | {"uid": "other-run"}}
    assert "not controlled by EvalRun" in _refusal(pod, job, stranger)
    # the run is over, or pinned nothing
    over = run | {"status": run["status"] | {"phase": "Evaluated"}}
    assert "is over" in _refusal(pod, job, over)
    assert "pinned no cases" in _refusal(pod, job, run | {"status": {"phase": "Running"}})
    # a Job whose labels claim another shard than its name, or more shards than the run has
    relabelled = copy.deepcopy(job)
    relabelled["metadata"]["labels"]["proctor.dev/shard"] = "0-of-2"
    assert "not one of" in _refusal(pod, relabelled, run)
    assert "not one of" in _refusal(pod, job, run | {"spec": {"shards": 1}})


def test_only_the_judge_container_mounts_the_operators_token() -> None:
    """The token for the operator's audience is projected into the judge container alone; the
    candidate's containers (its own volumes renamed ``candidate-*``) cannot name it."""
    template = {
        "spec": {
            "volumes": [{"name": OPERATOR_TOKEN_VOLUME, "emptyDir": {}}],
            "containers": [
                {
                    "name": "agent",
                    "image": "agent:1",
                    "volumeMounts": [{"name": OPERATOR_TOKEN_VOLUME, "mountPath": OPERATOR_TOKEN_DIR}],
                }
            ],
        }
    }
    spec = JudgeJobSpec(
        image="proctor:test", deadline_seconds=60, candidate=template, cases_url="https://op:1", cases_ca="CA"
    )
    pod = judge_job(RUN, 0, 1, 1, spec)["spec"]["template"]["spec"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == OPERATOR_TOKEN_VOLUME]
    (source,) = volume["projected"]["sources"]
    assert source["serviceAccountToken"]["audience"] == OPERATOR_AUDIENCE
    assert source["serviceAccountToken"]["expirationSeconds"] == 600
    mounting = [
        c["name"]
        for c in pod["containers"] + pod.get("initContainers", [])
        if any(m["name"] == OPERATOR_TOKEN_VOLUME for m in c.get("volumeMounts") or [])
    ]
    assert mounting == ["judge"]
    assert pod["automountServiceAccountToken"] is False
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env["PROCTOR_CASES_URL"] == "https://op:1" and env["PROCTOR_CASES_CA"] == "CA"


def test_a_bearer_header_and_a_mount_path() -> None:
    assert bearer("Bearer abc") == "abc" and bearer("bearer  abc ") == "abc"
    assert bearer("Basic abc") is None and bearer(None) is None and bearer("Bearer ") is None
    env = {"PROCTOR_NODE_MOUNTS": '{"/var/run/x": "/tmp/pod/x"}'}
    assert mounted("/var/run/x/token", env) == "/tmp/pod/x/token"
    assert mounted("/var/run/xy/token", env) == "/var/run/xy/token"
    assert mounted("/var/run/x/token", {}) == "/var/run/x/token"

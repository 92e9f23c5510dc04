"""Which shard reports and results the operator believes: only what a pod of the run's own Job,
made from the Job's template, vouched for, from a Job that succeeded."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from proctor.api import EvalRunStatus
from proctor.k8s import evidence
from proctor.k8s.objects import (
    JUDGE_CONTAINER,
    JudgeJobSpec,
    RunRef,
    case_record,
    decode_results,
    encode_results,
    judge_job,
    report_configmap,
    results_configmaps,
)
from proctor.protocol.types import CaseResult, Failure, Tier
from proctor.reconcile.plan import JobPhase
from proctor.reconcile.results import (
    Report,
    Untrusted,
    check_report,
    check_results,
    job_problem,
    job_rule,
    pod_problem,
    vouched,
    with_reports,
)

RUN = RunRef("agents", "exam", "7d3b2a10-0000-4000-8000-000000000001")
BLOB = encode_results(
    [
        case_record(CaseResult("boundary", Tier.SAFETY, failures=(Failure("label", "names NORMAL"),))),
        case_record(CaseResult("cites", Tier.TRUST)),
    ]
)


def report_of(index: int = 0, count: int = 1, attempt: int = 1, blob: bytes = BLOB) -> Any:
    cms = results_configmaps(RUN, index, count, blob, attempt=attempt, part_bytes=64)
    report = {
        "phase": "Succeeded",
        "results": [cm["metadata"]["name"] for cm in cms],
        "sha256": evidence.sha256(blob),
        "summary": {"cases": 2, "passed": 1, "failed": 1, "unmeasured": 0},
        "provenance": "sha256:" + "p" * 64,
    }
    digest = evidence.report_digest(RUN.uid, f"{index}/{count}", attempt, report)
    return report_configmap(RUN, index, count, attempt, report), cms, digest


def test_the_judges_own_report_and_results_are_believed() -> None:
    cm, cms, digest = report_of()
    report = check_report(cm, RUN, 0, 1, 1, {digest})
    assert (report.phase, report.results, report.summary["failed"], report.digest) == (
        "Succeeded",
        tuple(c["metadata"]["name"] for c in cms),
        1,
        digest,
    )
    assert len(cms) > 1  # split in parts: each is checked
    blob = check_results(cms, RUN, report)
    assert {r["id"] for r in decode_results([blob])} == {"boundary", "cites"}


def _believed(check: Any, *args: Any) -> bool:
    try:
        check(*args)
    except Untrusted:
        return False
    return True


def forged(cm: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(cm)
    for path, value in changes.items():
        node = out
        *parents, leaf = path.split("__")
        for p in parents:
            node = node[p]
        node[leaf] = value
    return out


def test_a_report_is_refused_unless_the_judge_vouched_for_it() -> None:
    """What a forger who may write ConfigMaps would try: an "everything passed" report with the run's
    owner and labels; the genuine one rewritten; one of another shard or attempt; one not owned by
    the run. None is the digest the judge vouched for, or it lacks the judge's marks."""
    cm, _, digest = report_of()
    passed = '{"phase":"Succeeded","results":["x"],"sha256":"00","summary":{"cases":2,"passed":2}}'
    attempts = {
        "rewritten after the judge wrote it": forged(cm, data={"report.json": passed}),
        "not owned by the run": forged(cm, metadata__ownerReferences=[]),
        "without the judge's labels": forged(cm, metadata__labels={}),
        "owned by another run of the same name": forged(
            cm, metadata__ownerReferences=[{"kind": "EvalRun", "name": "exam", "uid": "recreated"}]
        ),
    }
    believed = [
        what for what, bad in attempts.items() if _believed(check_report, bad, RUN, 0, 1, 1, {digest})
    ]
    assert believed == []
    # nothing vouched: not believed, however genuine it looks
    assert not _believed(check_report, cm, RUN, 0, 1, 1, set())
    # a genuine report of shard 0 attempt 1 is not one of shard 1, nor of attempt 2
    cm2, _, d2 = report_of(0, 2)
    with pytest.raises(Untrusted):
        check_report(cm2, RUN, 1, 2, 1, {d2})
    with pytest.raises(Untrusted):
        check_report(cm, RUN, 0, 1, 2, {digest})


def test_results_are_refused_when_a_part_is_not_what_the_report_names() -> None:
    cm, cms, digest = report_of()
    report = check_report(cm, RUN, 0, 1, 1, {digest})
    everything_passed = encode_results([case_record(CaseResult("boundary", Tier.SAFETY))])
    other_blob = results_configmaps(RUN, 0, 1, everything_passed, attempt=1, part_bytes=64)
    for what, parts in {
        "a part missing": cms[:-1],
        "parts swapped": [cms[1], cms[0], *cms[2:]],
        "another blob's parts": other_blob,
        "a part's bytes replaced": [forged(cms[0], binaryData={"results.jsonl.gz": "AAAA"}), *cms[1:]],
        "a part not owned by the run": [forged(cms[0], metadata__ownerReferences=[]), *cms[1:]],
    }.items():
        assert not _believed(check_results, parts, RUN, report), what


def test_a_believed_report_goes_into_the_shards_entry_with_its_digest() -> None:
    status = EvalRunStatus.model_validate(
        {"shards": [{"name": "0/1", "job": "exam-judge-0-of-1-a1", "attempts": 1}]}
    )
    report = Report(
        shard="0/1",
        attempt=1,
        phase="Succeeded",
        digest="d" * 64,
        results=("exam-results-0-of-1-a1-0",),
        sha256="0" * 64,
        provenance="sha256:" + "p" * 64,
        summary={"cases": 2, "passed": 1, "failed": 1, "unmeasured": 0},
        start_time="2026-03-01T12:00:00Z",
        completion_time="2026-03-01T12:00:05Z",
    )
    (entry,) = with_reports(status, {"0/1": report}).shards
    assert (entry.phase.value, entry.results, entry.job, entry.summary and entry.summary.failed) == (
        "Succeeded",
        ["exam-results-0-of-1-a1-0"],
        "exam-judge-0-of-1-a1",
        1,
    )
    assert entry.report_digest == "d" * 64


# --- who vouches -------------------------------------------------------------------------------------

JOB_UID = "11111111-2222-4333-8444-555555555555"


def _job() -> dict[str, Any]:
    job = judge_job(RUN, 0, 1, 1, JudgeJobSpec(image="proctor:1", deadline_seconds=60))
    job["metadata"]["uid"] = JOB_UID
    return job


def _pod(job: dict[str, Any], message: str | None = None, **spec_changes: Any) -> dict[str, Any]:
    """The pod the Job controller makes from the template, with what the scheduler and admission
    add, and the judge container ended with ``message``."""
    spec = copy.deepcopy(job["spec"]["template"]["spec"]) | {
        "nodeName": "node-1",
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
        "priority": 0,
    }
    spec["containers"][0]["resources"] = {"limits": {"cpu": "1", "memory": "1Gi"}}  # a LimitRange
    spec |= spec_changes
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": job["metadata"]["name"], "uid": JOB_UID}
    state = {"terminated": {"exitCode": 0, **({"message": message} if message else {})}}
    return {
        "metadata": {
            "name": "exam-judge-0-of-1-a1-x7k2p",
            "labels": dict(job["spec"]["template"]["metadata"]["labels"]),
            "ownerReferences": [owner | {"controller": True}],
        },
        "spec": spec,
        "status": {"containerStatuses": [{"name": JUDGE_CONTAINER, "state": state}]},
    }


def test_the_pod_the_job_made_vouches_for_its_report() -> None:
    job, digest = _job(), "a" * 64
    pod = _pod(job, evidence.termination_message(digest, "shard 0/1: 2 cases"))
    assert job_problem(job, RUN) is None and pod_problem(pod, job) is None
    assert vouched(job, [pod], RUN).digests == {digest}
    # no termination message, or one that is not a digest: vouches for nothing
    assert vouched(job, [_pod(job), _pod(job, "Traceback ...")], RUN).digests == frozenset()


def test_a_pod_that_copies_the_jobs_marks_but_not_its_template_vouches_for_nothing() -> None:
    """A tenant who may create pods makes one with the Job's labels, the judge's ServiceAccount and
    token volume, and an owner reference to the Job: what it runs differs, so it is not believed."""
    job, digest = _job(), "b" * 64
    message = evidence.termination_message(digest)
    container = copy.deepcopy(job["spec"]["template"]["spec"]["containers"][0])
    others = {
        "another command": _pod(job, message, containers=[container | {"command": ["python", "-c", "..."]}]),
        "another image": _pod(job, message, containers=[container | {"image": "evil:1"}]),
        "another ServiceAccount": _pod(job, message, serviceAccountName="default"),
        "a host alias for the judge's endpoint": _pod(
            job, message, hostAliases=[{"ip": "10.0.0.9", "hostnames": ["api.openai.com"]}]
        ),
        "a shared process namespace": _pod(job, message, shareProcessNamespace=True),
        "an ephemeral container": _pod(job, message, ephemeralContainers=[{"name": "debug", "image": "x"}]),
        "a sidecar added": _pod(job, message, initContainers=[{"name": "x", "image": "evil:1"}]),
    }
    for what, pod in others.items():
        said = vouched(job, [pod], RUN)
        assert said.digests == frozenset() and "template makes" in said.problems[0], what
    not_controlled = _pod(job, message)
    not_controlled["metadata"]["ownerReferences"][0]["controller"] = False
    other_job = _pod(job, message)
    other_job["metadata"]["ownerReferences"][0]["uid"] = "another-job"
    for pod in (not_controlled, other_job):
        said = vouched(job, [pod], RUN)
        assert said.digests == frozenset() and "not controlled by Job" in said.problems[0]
    # a Job that is not the run's own: none of its pods is believed
    foreign = _job()
    foreign["metadata"]["ownerReferences"][0]["uid"] = "another-run"
    assert job_problem(foreign, RUN) is not None
    assert vouched(foreign, [_pod(foreign, message)], RUN).digests == frozenset()


def test_a_job_that_did_not_succeed_never_yields_a_verdict() -> None:
    """Whatever was reported: a Succeeded report counts only from a Job that succeeded; a Failed
    report (why nothing was measured, never a verdict) counts from a Job that ended either way."""
    assert job_rule(JobPhase.SUCCEEDED, "Succeeded") is None
    for phase in (JobPhase.FAILED, JobPhase.ACTIVE, None):
        assert job_rule(phase, "Succeeded") is not None, phase
    assert job_rule(JobPhase.FAILED, "Failed") is None
    assert job_rule(JobPhase.SUCCEEDED, "Failed") is None
    assert job_rule(JobPhase.ACTIVE, "Failed") is not None


def test_the_termination_message_names_one_digest_on_its_first_line() -> None:
    digest = "c" * 64
    assert evidence.vouched(evidence.termination_message(digest, "a note\nlast line")) == digest
    for message in (
        None,
        "",
        digest,
        f"{evidence.DIGEST_PREFIX}{'C' * 64}",
        f"x\n{evidence.DIGEST_PREFIX}{digest}",
    ):
        assert evidence.vouched(message) is None, message
    assert evidence.report_digest(RUN.uid, "0/1", 1, {"phase": "Succeeded"}) != evidence.report_digest(
        RUN.uid, "0/1", 2, {"phase": "Succeeded"}
    )

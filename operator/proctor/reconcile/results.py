"""Which shard reports and results the operator believes: only those a pod of the run's own Job
vouched for, from a Job that succeeded.

A judge writes two kinds of ConfigMap for its shard and attempt: the results (gzipped JSON lines,
in parts) and a report (phase, counts, provenance, the results' names and digest). Anyone who may
write ConfigMaps in the namespace can write those too, so the operator believes a report only when
all of these hold (each a pure check here, with the reason it gives when it does not):

1. the report's Job is controlled by the run (:func:`job_problem`);
2. a pod controlled by that Job, whose spec is the one the Job's template makes (:func:`pod_problem`:
   not only its labels and owner reference, which a tenant who may create pods can copy), ended
   its judge container with the report's digest as its termination message (:mod:`proctor.k8s.
   evidence`): the kubelet writes that into the pod's status, which no tenant can write;
3. the report is Succeeded only if its Job succeeded (:func:`job_rule`): a Job that failed never
   yields a verdict, whatever was reported;
4. the results' parts are the ones the report names, owned by the run and labelled as the judge
   writes them, and their bytes are the digest the report names.

The digest of a believed report goes into the shard's status entry (``reportDigest``, written by
the operator only), and the verdict is decided from the reports and results read again and
checked against it. Anything else is ignored, with a Warning Event that says which object and why:
the shard then has not reported, so its Job is retried like any harness failure and the run ends
in ERROR with the cause if no attempt ever reports believably. It is never a PASS.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from proctor.api import EvalRunStatus, ObjectMeta, ShardPhase, ShardStatus, ShardSummary
from proctor.k8s import evidence
from proctor.k8s.objects import (
    JUDGE_CONTAINER,
    LABEL_ATTEMPT,
    LABEL_COMPONENT,
    LABEL_MANAGED_BY,
    LABEL_RUN_UID,
    LABEL_SHARD,
    PART_ANNOTATION,
    REPORT_KEY,
    RESULTS_KEY,
    SHA256_ANNOTATION,
    RunRef,
    decode_results,
    record_to_result,
    report_configmap_name,
    shard_label,
)
from proctor.protocol.types import CaseResult
from proctor.reconcile.plan import JobPhase, ShardView
from proctor.reconcile.runtime import Runtime


class Untrusted(Exception):
    """A report or results ConfigMap the operator does not believe (the message says why)."""


@dataclass(frozen=True)
class Report:
    """A believed shard report: what the runner of one attempt said, and its digest."""

    shard: str
    attempt: int
    phase: str
    digest: str
    message: str | None = None
    reason: str | None = None
    results: tuple[str, ...] = ()
    sha256: str | None = None
    provenance: str | None = None
    summary: Mapping[str, int] = field(default_factory=dict)
    start_time: str | None = None
    completion_time: str | None = None


# --- who vouches (pure) ------------------------------------------------------------------------------

#: Pod spec fields the scheduler and the API server's standard admission plugins set on a pod and
#: not on its template (the node, DefaultTolerationSeconds, Priority, RuntimeClass): they say where
#: and when the pod runs, not what it runs.
ASSIGNED_FIELDS = frozenset({"nodeName", "tolerations", "priority", "preemptionPolicy", "overhead"})
#: Container fields LimitRanger may fill in on a pod: how much it may use, not what it runs.
ASSIGNED_CONTAINER_FIELDS = frozenset({"resources"})


def _what_runs(spec: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in spec.items() if k not in ASSIGNED_FIELDS}
    for key in ("containers", "initContainers"):
        if isinstance(out.get(key), list):
            out[key] = [{k: v for k, v in c.items() if k not in ASSIGNED_CONTAINER_FIELDS} for c in out[key]]
    return out


def job_problem(job: Mapping[str, Any], run: RunRef) -> str | None:
    """Why ``job`` is not the run's own (None: it is): it must be controlled by the run's UID."""
    meta = ObjectMeta.of(job)
    if _controllers(meta) != [("EvalRun", run.uid)]:
        return f"Job {meta.name} is not controlled by EvalRun {run.name} (uid {run.uid})"
    return None


def _controllers(meta: ObjectMeta) -> list[tuple[str | None, str | None]]:
    """The kind and UID of each owner that claims to control the object (one, when it is sound)."""
    return [(o.kind, o.uid) for o in meta.owner_references if o.controller]


def pod_problem(pod: Mapping[str, Any], job: Mapping[str, Any]) -> str | None:
    """Why ``pod`` is not one ``job`` made from its template (None: it is).

    Its controller must be the Job (by UID), and its spec must be the Job's template, field for
    field (what the scheduler and admission assign aside): a pod a tenant creates with the Job's
    labels and an owner reference to it, but another command, image, ServiceAccount, volume, host
    alias, ephemeral container or shared process namespace, is not the Job's. A cluster whose
    mutating webhooks change judge pods (a service mesh's sidecar) makes them all unbelieved:
    exclude the label ``app.kubernetes.io/component=judge`` from such injection."""
    meta, jmeta = ObjectMeta.of(pod), ObjectMeta.of(job)
    name, jname = meta.name, jmeta.name
    if _controllers(meta) != [("Job", jmeta.uid)]:
        return f"pod {name} is not controlled by Job {jname}"
    template = ((job.get("spec") or {}).get("template") or {}).get("spec") or {}
    mine, made = _what_runs(pod.get("spec") or {}), _what_runs(template)
    differ = sorted(k for k in mine.keys() | made.keys() if mine.get(k) != made.get(k))
    if differ:
        return f"pod {name} is not the pod Job {jname}'s template makes ({', '.join(differ)} differ)"
    return None


def vouched_digest(pod: Mapping[str, Any]) -> str | None:
    """The report digest the pod's judge container ended with (its termination message)."""
    for s in (pod.get("status") or {}).get("containerStatuses") or ():
        if s.get("name") == JUDGE_CONTAINER:
            terminated = (s.get("state") or {}).get("terminated") or {}
            return evidence.vouched(terminated.get("message"))
    return None


@dataclass(frozen=True)
class Vouched:
    """What the pods of one attempt's Job vouch for, and why any other pod was not believed."""

    digests: frozenset[str]
    problems: tuple[str, ...] = ()


def vouched(job: Mapping[str, Any] | None, pods: Sequence[Mapping[str, Any]], run: RunRef) -> Vouched:
    """The report digests that pods of ``job`` (the run's own) vouch for; ``pods`` are those that
    carry the attempt's labels, so one that is not the Job's is named in ``problems``."""
    if job is None:
        return Vouched(frozenset())
    if (why := job_problem(job, run)) is not None:
        return Vouched(frozenset(), (why,))
    digests, problems = set(), []
    for pod in pods:
        digest = vouched_digest(pod)
        if (why := pod_problem(pod, job)) is not None:
            problems.append(why)
        elif digest is not None:
            digests.add(digest)
    return Vouched(frozenset(digests), tuple(problems))


def job_rule(job: JobPhase | None, report_phase: str) -> str | None:
    """Why a report is not believed because of how its Job ended (None: it is).

    A Succeeded report counts only from a Job that succeeded: a Job that failed (its pod killed or
    ended in error after it reported, its deadline passed, another pod of it failed) never yields
    a verdict, whatever was reported; nor one that is gone, nor one still running. A Failed report
    (why nothing was measured) counts from a Job that ended either way: it yields no verdict."""
    if job is JobPhase.ACTIVE:
        return "its Job is still running"
    if report_phase == "Succeeded" and job is not JobPhase.SUCCEEDED:
        how = "failed" if job is JobPhase.FAILED else "is gone"
        return f"its Job {how}: a Job that did not succeed yields no verdict, whatever it reported"
    return None


# --- what the ConfigMaps say (pure) ------------------------------------------------------------------


def _owned_and_labelled(
    cm: Mapping[str, Any], run: RunRef, component: str, index: int, count: int, attempt: int
) -> None:
    meta = ObjectMeta.of(cm)
    name = meta.name
    if not any(o.kind == "EvalRun" and o.uid == run.uid for o in meta.owner_references):
        raise Untrusted(f"ConfigMap {name} is not owned by EvalRun {run.name} (uid {run.uid})")
    labels = meta.labels
    want = {
        LABEL_MANAGED_BY: "proctor",
        LABEL_COMPONENT: component,
        LABEL_RUN_UID: run.uid,
        LABEL_SHARD: shard_label(index, count),
        LABEL_ATTEMPT: str(attempt),
    }
    wrong = sorted(k for k, v in want.items() if labels.get(k) != v)
    if wrong:
        raise Untrusted(f"ConfigMap {name} lacks the labels the judge writes ({', '.join(wrong)})")


def check_report(
    cm: Mapping[str, Any], run: RunRef, index: int, count: int, attempt: int, digests: Collection[str]
) -> Report:
    """The report in ``cm`` if its digest is one of ``digests`` (those the run's own judge vouched
    for this shard and attempt); raises :class:`Untrusted` with the reason otherwise."""
    name = ObjectMeta.of(cm).name
    _owned_and_labelled(cm, run, "report", index, count, attempt)
    try:
        report = json.loads((cm.get("data") or {})[REPORT_KEY])
    except (KeyError, ValueError):
        raise Untrusted(f"ConfigMap {name} holds no report") from None
    if not isinstance(report, dict):
        raise Untrusted(f"ConfigMap {name} holds no report")
    shard = f"{index}/{count}"
    digest = evidence.report_digest(run.uid, shard, attempt, report)
    if digest not in digests:
        raise Untrusted(
            f"ConfigMap {name}: no pod of the run's own judge Job vouches for this report "
            "(its digest is not the one the judge container ended with)"
        )
    phase = report.get("phase")
    if phase not in ("Succeeded", "Failed"):
        raise Untrusted(f"ConfigMap {name}: report phase {phase!r}")
    results = report.get("results") or []
    if phase == "Succeeded" and not (results and isinstance(report.get("sha256"), str)):
        raise Untrusted(f"ConfigMap {name}: a Succeeded report names no results")
    summary = report.get("summary") or {}
    return Report(
        shard=shard,
        attempt=attempt,
        phase=str(phase),
        digest=digest,
        message=report.get("message"),
        reason=report.get("reason") if isinstance(report.get("reason"), str) else None,
        results=tuple(str(r) for r in results),
        sha256=report.get("sha256"),
        provenance=report.get("provenance"),
        summary={k: int(v) for k, v in summary.items() if isinstance(v, int)},
        start_time=report.get("startTime"),
        completion_time=report.get("completionTime"),
    )


def check_results(cms: Sequence[Mapping[str, Any]], run: RunRef, report: Report) -> bytes:
    """The compressed results of a believed report, from its parts (in the report's order); raises
    :class:`Untrusted` when a part is not the judge's, is missing, or the bytes are not the digest
    the report names."""
    index, count = (int(x) for x in report.shard.split("/"))
    chunks = []
    for k, cm in enumerate(cms):
        meta = ObjectMeta.of(cm)
        name = meta.name
        _owned_and_labelled(cm, run, "results", index, count, report.attempt)
        annotations = meta.annotations
        part = f"{k + 1}/{len(cms)}"
        if annotations.get(PART_ANNOTATION) != part or annotations.get(SHA256_ANNOTATION) != report.sha256:
            raise Untrusted(f"ConfigMap {name} is not part {part} of the results the report names")
        try:
            chunks.append(base64.b64decode((cm.get("binaryData") or {}).get(RESULTS_KEY, ""), validate=True))
        except ValueError:
            raise Untrusted(f"ConfigMap {name}: results are not base64") from None
    blob = b"".join(chunks)
    if evidence.sha256(blob) != report.sha256:
        raise Untrusted(f"the results of shard {report.shard} are not the bytes its report names")
    return blob


# --- reading ---------------------------------------------------------------------------------------


def current_attempt(view: ShardView) -> int:
    """The shard's latest attempt (the planner's count: what the status says, or a newer Job)."""
    return max([view.attempts, *(j.attempt for j in view.jobs)])


async def _report(
    rt: Runtime, run: RunRef, index: int, count: int, attempt: int, digests: Collection[str]
) -> tuple[Report, bytes | None] | None:
    """The believed report of one attempt, with its results when it succeeded; None when there is
    no report yet. Raises :class:`Untrusted`: a report is believed with its results, never alone."""
    name = report_configmap_name(run.name, index, count, attempt)
    cm = await rt.call(rt.kube.get_configmap_or_none, run.namespace, name)
    if cm is None:
        return None
    report = check_report(cm, run, index, count, attempt, digests)
    if report.phase != "Succeeded":
        return report, None
    cms = []
    for n in report.results:
        part = await rt.call(rt.kube.get_configmap_or_none, run.namespace, n)
        if part is None:
            raise Untrusted(f"ConfigMap {n} (results of shard {report.shard}) is missing")
        cms.append(part)
    return report, check_results(cms, run, report)


def _attempt_pods(
    pods: Sequence[Mapping[str, Any]], index: int, count: int, attempt: int
) -> list[Mapping[str, Any]]:
    want = {LABEL_SHARD: shard_label(index, count), LABEL_ATTEMPT: str(attempt)}
    return [p for p in pods if all(ObjectMeta.of(p).labels.get(k) == v for k, v in want.items())]


async def read_reports(
    rt: Runtime,
    run: RunRef,
    views: Sequence[ShardView],
    jobs: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
) -> tuple[dict[str, Report], list[str]]:
    """The believed reports of shards whose latest attempt's Job has finished (or is gone) and whose
    result the status does not hold yet; and, for each report or pod not believed, why.

    ``jobs`` and ``pods``: the run's judge Jobs and pods as listed (by the run's labels)."""
    reports: dict[str, Report] = {}
    problems: list[str] = []
    by_name = {ObjectMeta.of(j).name: j for j in jobs}
    for view in views:
        attempt = current_attempt(view)
        job = next((j for j in view.jobs if j.attempt == attempt), None)
        if (
            view.runner_phase == "Succeeded"
            or attempt < 1
            or (job is not None and job.phase is JobPhase.ACTIVE)
        ):
            continue
        where = f"shard {view.name} attempt {attempt}"
        said = vouched(
            by_name.get(job.name) if job is not None else None,
            _attempt_pods(pods, view.index, view.count, attempt),
            run,
        )
        problems += [f"{where}: {why}; ignored" for why in said.problems]
        try:
            found = await _report(rt, run, view.index, view.count, attempt, said.digests)
        except Untrusted as e:
            problems.append(f"{where}: {e}; ignored")
            continue
        if found is None:
            continue
        if (why := job_rule(job.phase if job is not None else None, found[0].phase)) is not None:
            problems.append(f"{where}: report {found[0].phase} not believed: {why}")
            continue
        reports[view.name] = found[0]
    return reports, problems


def with_reports(status: EvalRunStatus, reports: Mapping[str, Report]) -> EvalRunStatus:
    """``status`` with each believed report in its shard's entry (what the runner said and the
    report's digest, written by the operator: the judge writes no status)."""
    if not reports:
        return status
    entries = {s.name: s for s in status.shards}
    for name, r in reports.items():
        base = entries.get(name) or ShardStatus(name=name)
        fields: dict[str, Any] = {
            "phase": ShardPhase(r.phase),
            "report_digest": r.digest,
            "message": r.message,
            "reason": r.reason,
            "results": list(r.results),
            "provenance": r.provenance,
            "summary": ShardSummary.model_validate(r.summary) if r.summary else None,
            "start_time": _time(r.start_time),
            "completion_time": _time(r.completion_time),
        }
        entries[name] = base.model_copy(update={k: v for k, v in fields.items() if v not in (None, [])})
    return status.model_copy(update={"shards": list(entries.values())})


def _time(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


async def verified_results(
    rt: Runtime, run: RunRef, shards: Sequence[tuple[int, int, int, str | None]]
) -> list[CaseResult]:
    """Every case result of the shards ``(index, count, attempt, report digest)``, read again from
    their reports and results and checked against the digest the operator recorded when it believed
    the report (never from the status alone); raises :class:`Untrusted` when one is not that report
    any more (replaced after it was believed)."""
    out: list[CaseResult] = []
    for index, count, attempt, digest in shards:
        found = await _report(rt, run, index, count, attempt, {digest} if digest else set())
        if found is None or found[1] is None:
            raise Untrusted(f"shard {index}/{count} attempt {attempt} has no believed report of its results")
        out += [record_to_result(r) for r in decode_results([found[1]])]
    return out

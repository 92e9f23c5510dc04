"""Which shard reports and results the operator believes: only those its own judge Jobs wrote.

A judge writes two kinds of ConfigMap for its shard and attempt: the results (gzipped JSON lines,
in parts) and a report (phase, counts, provenance, the results' names and digest). The operator
believes one only when all of these hold:

1. it is owned by the run (an owner reference to the run's UID);
2. it carries the labels the builders write (:mod:`proctor.k8s.objects`): the run's UID, the shard,
   the attempt, the component, ``managed-by: proctor``;
3. its signature verifies with the run's key (:mod:`proctor.k8s.signing`: derived from the
   operator's master key and the run's UID; only the judge container of the run's Job has it);
4. the results' parts are the ones the report names, and their bytes are the digest it signed.

Anything else is ignored, with a Warning Event that says which object and why: the shard then
has not reported, so its Job is retried like any harness failure and the run ends in ERROR with
the cause if no attempt ever reports verifiably. It is never a PASS. The checks are pure
(:func:`check_report`, :func:`check_results`); :func:`read_reports` and :func:`verified_results`
do the reading.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from proctor.api import EvalRunStatus, ShardPhase, ShardStatus, ShardSummary
from proctor.k8s import signing
from proctor.k8s.objects import (
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
    """A verified shard report: what the runner of one attempt said."""

    shard: str
    attempt: int
    phase: str
    message: str | None = None
    reason: str | None = None
    results: tuple[str, ...] = ()
    sha256: str | None = None
    provenance: str | None = None
    summary: Mapping[str, int] = field(default_factory=dict)
    start_time: str | None = None
    completion_time: str | None = None


def _owned_and_labelled(
    cm: Mapping[str, Any], run: RunRef, component: str, index: int, count: int, attempt: int
) -> None:
    meta = cm.get("metadata") or {}
    name = meta.get("name")
    owners = [o for o in meta.get("ownerReferences") or () if o.get("kind") == "EvalRun"]
    if not any(o.get("uid") == run.uid for o in owners):
        raise Untrusted(f"ConfigMap {name} is not owned by EvalRun {run.name} (uid {run.uid})")
    labels = meta.get("labels") or {}
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
    cm: Mapping[str, Any], run: RunRef, index: int, count: int, attempt: int, key: bytes
) -> Report:
    """The report in ``cm`` if the run's judge wrote it for this shard and attempt; raises
    :class:`Untrusted` with the reason otherwise."""
    name = (cm.get("metadata") or {}).get("name")
    _owned_and_labelled(cm, run, "report", index, count, attempt)
    try:
        report = json.loads((cm.get("data") or {})[REPORT_KEY])
    except (KeyError, ValueError):
        raise Untrusted(f"ConfigMap {name} holds no report") from None
    if not isinstance(report, dict):
        raise Untrusted(f"ConfigMap {name} holds no report")
    shard = f"{index}/{count}"
    signature = ((cm.get("metadata") or {}).get("annotations") or {}).get(signing.SIGNATURE_ANNOTATION)
    if not signing.verify(
        key, signing.REPORT, signing.report_payload(run.uid, shard, attempt, report), signature
    ):
        raise Untrusted(f"ConfigMap {name}: the signature does not verify with the run's key")
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
        message=report.get("message"),
        reason=report.get("reason") if isinstance(report.get("reason"), str) else None,
        results=tuple(str(r) for r in results),
        sha256=report.get("sha256"),
        provenance=report.get("provenance"),
        summary={k: int(v) for k, v in summary.items() if isinstance(v, int)},
        start_time=report.get("startTime"),
        completion_time=report.get("completionTime"),
    )


def check_results(cms: Sequence[Mapping[str, Any]], run: RunRef, report: Report, key: bytes) -> bytes:
    """The compressed results of a verified report, from its parts (in the report's order); raises
    :class:`Untrusted` when a part is not the judge's, is missing, or the bytes are not the ones
    the report signed."""
    index, count = (int(x) for x in report.shard.split("/"))
    chunks = []
    for k, cm in enumerate(cms):
        meta = cm.get("metadata") or {}
        name = meta.get("name")
        _owned_and_labelled(cm, run, "results", index, count, report.attempt)
        annotations = meta.get("annotations") or {}
        part = f"{k + 1}/{len(cms)}"
        if annotations.get(PART_ANNOTATION) != part or annotations.get(SHA256_ANNOTATION) != report.sha256:
            raise Untrusted(f"ConfigMap {name} is not part {part} of the results the report names")
        try:
            chunk = base64.b64decode((cm.get("binaryData") or {}).get(RESULTS_KEY, ""), validate=True)
        except ValueError:
            raise Untrusted(f"ConfigMap {name}: results are not base64") from None
        payload = signing.results_payload(
            run.uid, report.shard, report.attempt, part, report.sha256 or "", signing.sha256(chunk)
        )
        if not signing.verify(key, signing.RESULTS, payload, annotations.get(signing.SIGNATURE_ANNOTATION)):
            raise Untrusted(f"ConfigMap {name}: the signature does not verify with the run's key")
        chunks.append(chunk)
    blob = b"".join(chunks)
    if signing.sha256(blob) != report.sha256:
        raise Untrusted(f"the results of shard {report.shard} are not the bytes its report signed")
    return blob


# --- reading ---------------------------------------------------------------------------------------


def current_attempt(view: ShardView) -> int:
    """The shard's latest attempt (the planner's count: what the status says, or a newer Job)."""
    return max([view.attempts, *(j.attempt for j in view.jobs)])


async def _report(
    rt: Runtime, run: RunRef, index: int, count: int, attempt: int, key: bytes
) -> tuple[Report, bytes | None] | None:
    """The verified report of one attempt, with its verified results when it succeeded; None when
    there is no report yet. Raises :class:`Untrusted`: a report is believed with its results, never
    alone."""
    name = report_configmap_name(run.name, index, count, attempt)
    cm = await rt.call(rt.kube.get_configmap_or_none, run.namespace, name)
    if cm is None:
        return None
    report = check_report(cm, run, index, count, attempt, key)
    if report.phase != "Succeeded":
        return report, None
    cms = []
    for n in report.results:
        part = await rt.call(rt.kube.get_configmap_or_none, run.namespace, n)
        if part is None:
            raise Untrusted(f"ConfigMap {n} (results of shard {report.shard}) is missing")
        cms.append(part)
    return report, check_results(cms, run, report, key)


async def read_reports(
    rt: Runtime, run: RunRef, views: Sequence[ShardView], key: bytes
) -> tuple[dict[str, Report], list[str]]:
    """The verified reports of shards whose latest attempt's Job has finished (or is gone) and whose
    result the status does not hold yet; and, for each report not believed, why."""
    reports: dict[str, Report] = {}
    problems: list[str] = []
    for view in views:
        attempt = current_attempt(view)
        job = next((j for j in view.jobs if j.attempt == attempt), None)
        if (
            view.runner_phase == "Succeeded"
            or attempt < 1
            or (job is not None and job.phase is JobPhase.ACTIVE)
        ):
            continue
        try:
            found = await _report(rt, run, view.index, view.count, attempt, key)
        except Untrusted as e:
            problems.append(f"shard {view.name} attempt {attempt}: {e}; ignored")
            continue
        if found is not None:
            reports[view.name] = found[0]
    return reports, problems


def with_reports(status: EvalRunStatus, reports: Mapping[str, Report]) -> EvalRunStatus:
    """``status`` with each verified report in its shard's entry (what the runner said, written by the
    operator: the judge writes no status)."""
    if not reports:
        return status
    entries = {s.name: s for s in status.shards}
    for name, r in reports.items():
        base = entries.get(name) or ShardStatus(name=name)
        fields: dict[str, Any] = {
            "phase": ShardPhase(r.phase),
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
    rt: Runtime, run: RunRef, shards: Sequence[tuple[int, int, int]], key: bytes
) -> list[CaseResult]:
    """Every case result of the shards ``(index, count, attempt)``, read again from their signed
    reports and results (never from the status alone); raises :class:`Untrusted` when one does not
    verify any more (replaced after it was reported)."""
    out: list[CaseResult] = []
    for index, count, attempt in shards:
        found = await _report(rt, run, index, count, attempt, key)
        if found is None or found[1] is None:
            raise Untrusted(f"shard {index}/{count} attempt {attempt} has no verified report of its results")
        out += [record_to_result(r) for r in decode_results([found[1]])]
    return out

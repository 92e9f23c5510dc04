"""EvalRun: Pending -> Running -> Evaluating -> Evaluated | PartiallyEvaluated | Failed.

One step, :func:`reconcile_run`: gather (the run, its Jobs and their pods, what its shards reported),
evaluate (:mod:`.plan` for the Jobs, :func:`proctor.protocol.decide` for the verdict, :mod:`.evaluate`
for the status), write only what changed. Every path is idempotent: Jobs have deterministic names
and an existing one is adopted only when it is owned by this run; a decision's Event has a
deterministic name too, so a step repeated after a kill says it once. While the run is unfinished
the outcome asks to be looked at again (retries after backoff, the end of a start problem's grace).

Before the first Job, everything the run references is checked (:func:`prepare`): a CaseSet,
EvalProfile or GatePolicy that does not exist or is invalid, cases that do not resolve or compile,
recorded answers that are missing or unreadable end the run in ERROR at once with the reason and
the field, and no Job is launched. Then the resolved cases are pinned (:func:`pin`: ConfigMaps the
run owns and its runners read, their digest in ``status.snapshot``), so a CaseSet changed or
deleted during the run changes nothing; the phase only ever moves forwards (:func:`forwards`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import structlog
from pydantic import ValidationError

from proctor.api import (
    TERMINAL_PHASES,
    Case,
    CaseSet,
    CaseSetStatus,
    CaseSnapshot,
    EvalProfile,
    EvalRun,
    EvalRunStatus,
    GatePolicy,
    GatePolicyStatus,
    ManifestError,
    ObjectMeta,
    Provenance,
    ResultsRef,
    RunPhase,
    ShardStatus,
    VerdictName,
    canonical_case,
    content_digest,
    dump,
    format_time,
    parse_caseset,
    parse_evalrun,
    parse_policy,
    parse_profile,
    parse_responses,
    policy_digest,
    protocol_policy,
    resolve_cases,
)
from proctor.api.conditions import Condition, ConditionStatus, ConditionType, Reason, set_condition
from proctor.graders import CaseSetProblem, compile_cases
from proctor.k8s.candidate import exam_problems, production_hostname
from proctor.k8s.kube import KubeError
from proctor.k8s.objects import (
    DETAIL_COMPONENT,
    JUDGE_CONTAINER,
    LABEL_ATTEMPT,
    LABEL_COMPONENT,
    LABEL_FINISHED,
    LABEL_RUN,
    LABEL_RUN_UID,
    LABEL_SHARD,
    LABEL_WORKLOAD,
    UNFINISHED_SELECTOR,
    JudgeJobSpec,
    RunRef,
    SecretKey,
    encode_cases,
    judge_job,
    judge_job_name,
    judge_rbac,
    judge_selector,
    owning_run,
    shard_label,
    snapshot_configmap_name,
    snapshot_configmaps,
)
from proctor.observability import metrics
from proctor.protocol import Baseline, Decision, decide
from proctor.protocol.types import CaseResult
from proctor.reconcile import evaluate
from proctor.reconcile.casesets import invalid
from proctor.reconcile.config import OperatorConfig
from proctor.reconcile.plan import (
    Action,
    JobPhase,
    JobView,
    RunPlan,
    ShardView,
    gate_evidence,
    plan_run,
    runs_to_prune,
)
from proctor.reconcile.pods import (
    FailedCreate,
    PodView,
    candidate_detail,
    exit_detail,
    parse_time,
    start_problem,
)
from proctor.reconcile.records import comparable_provenance, recent_runs
from proctor.reconcile.results import Untrusted, read_reports, verified_results, with_reports
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import HISTORY_MANAGER, MANAGER, write_status

log = structlog.get_logger("proctor.runs")

#: The longest message a run's status and conditions carry (the API's own fields allow 1 KiB).
MESSAGE_CHARS = 1024


# --- gather ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stored:
    """A run as the API server holds it, read once: who it is (for Events and its children), its
    metadata, and its status as stored (what a write compares with) and parsed."""

    about: ObjectRef
    ref: RunRef
    meta: ObjectMeta
    held: Mapping[str, Any]
    status: EvalRunStatus

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Stored:
        meta, held = ObjectMeta.of(raw), raw.get("status") or {}
        ref = RunRef(meta.namespace or "", meta.name or "", meta.uid or "")
        return cls(ObjectRef.of(raw), ref, meta, held, EvalRunStatus.model_validate(held))

    def written(self, status: EvalRunStatus) -> Stored:
        """The run after ``status`` was written (the next write compares with it)."""
        return replace(self, held={**self.held, **dump(status, only_set=True)}, status=status)


def job_view(job: Mapping[str, Any]) -> JobView:
    """A judge Job as the planner sees it (the Job controller's conditions, read once here)."""
    meta, status = ObjectMeta.of(job), job.get("status") or {}
    conds = {c["type"]: c for c in status.get("conditions") or [] if c.get("status") == "True"}
    failed = conds.get("Failed")
    if failed:
        phase = JobPhase.FAILED
        finished = parse_time(failed.get("lastTransitionTime"))
        message = f"{failed.get('reason', 'Failed')}: {failed.get('message', '')}".strip(": ")
    elif "Complete" in conds:
        phase, finished, message = JobPhase.SUCCEEDED, parse_time(status.get("completionTime")), ""
    else:
        phase, finished, message = JobPhase.ACTIVE, None, ""
    owners = [o.uid for o in meta.owner_references if o.kind == "EvalRun"]
    return JobView(
        meta.name or "",
        int(meta.labels.get(LABEL_ATTEMPT, "0")),
        phase,
        finished,
        message,
        owners[0] if owners else None,
        shard=meta.labels.get(LABEL_SHARD),
    )


def pod_view(pod: Mapping[str, Any]) -> PodView:
    """A judge pod as the classifier sees it (its shard and attempt from the Job's labels)."""
    return PodView.of(pod, shard_label=LABEL_SHARD, attempt_label=LABEL_ATTEMPT)


def shard_views(
    status: EvalRunStatus,
    count: int,
    jobs: Sequence[JobView],
    pods: Sequence[PodView] = (),
    failed_creates: Sequence[FailedCreate] = (),
    *,
    grace: dt.timedelta = dt.timedelta(seconds=30),
    hints: Mapping[str, str] | None = None,
) -> list[ShardView]:
    """Each shard: what its runner reported in the run's status, its Jobs, and why the current
    attempt's pod is not running (when it is not) or how its judge ended (when it failed)."""
    reported = {s.name: s for s in status.shards}
    by_shard: dict[str, list[JobView]] = {}
    for j in jobs:
        by_shard.setdefault(j.shard or "", []).append(j)
    views = []
    for i in range(count):
        s = reported.get(f"{i}/{count}")
        label = shard_label(i, count)
        mine = tuple(by_shard.get(label, []))
        attempt = max([s.attempts if s is not None else 0, *(j.attempt for j in mine)])
        current = next((j for j in mine if j.attempt == attempt), None)
        its_pods = [p for p in pods if p.shard == label and p.attempt == attempt]
        refused = [e for e in failed_creates if current is not None and e.job == current.name]
        active = current is not None and current.phase is JobPhase.ACTIVE
        failed = current is not None and current.phase is JobPhase.FAILED
        views.append(
            ShardView(
                index=i,
                count=count,
                runner_phase=s.phase.value if s is not None and "phase" in s.model_fields_set else None,
                runner_message=s.message if s is not None else None,
                results=tuple(s.results) if s is not None else (),
                attempts=s.attempts if s is not None else 0,
                retry_at=s.retry_at if s is not None else None,
                jobs=mine,
                runner_reason=s.reason if s is not None else None,
                job=s.job if s is not None else None,
                problem=start_problem(its_pods, refused, grace=grace, hints=hints) if active else None,
                exit_detail=exit_detail(its_pods, JUDGE_CONTAINER) if failed else "",
                candidate_detail=candidate_detail(its_pods, JUDGE_CONTAINER),
            )
        )
    return views


@dataclass(frozen=True)
class NotYet:
    """A run that cannot start yet for a reason that passes by itself (it stays Pending, says why)."""

    message: str


@dataclass(frozen=True)
class Refusal:
    """A run that cannot start: a mistake no retry fixes, found before any Job (the reason is one of
    :data:`~proctor.api.PERMANENT_REASONS`; the message names the object and the field)."""

    reason: str
    message: str


@dataclass(frozen=True)
class Prepared:
    """What a run needs, checked: its cases resolved and compiled, and its profile."""

    cases: list[Case]
    profile: EvalProfile | None


async def _configmap(rt: Runtime, ns: str, name: str) -> dict[str, str] | None:
    found = await rt.call(rt.kube.get_configmap_or_none, ns, name)
    return dict(found.get("data") or {}) if found is not None else None


async def _referenced(rt: Runtime, kind: str, ns: str, name: str) -> Mapping[str, Any] | None:
    return await rt.call(rt.kube.get_or_none, kind, ns, name)


async def prepare(rt: Runtime, run: EvalRun, ns: str) -> Prepared | Refusal:
    """Check everything the run references, before any Job; the first problem is a :class:`Refusal`.

    Other API errors than 404 propagate (the step is tried again): only what certainly is not there,
    or certainly cannot be used, refuses a run.
    """
    spec = run.spec
    cs = spec.case_set_ref.name
    raw = await _referenced(rt, "CaseSet", ns, cs)
    if raw is None:
        return Refusal(
            Reason.CASE_SET_NOT_FOUND, f"spec.caseSetRef: CaseSet {cs} not found in namespace {ns}"
        )
    profile: EvalProfile | None = None
    if spec.profile_ref is not None:
        name = spec.profile_ref.name
        found = await _referenced(rt, "EvalProfile", ns, name)
        if found is None:
            return Refusal(
                Reason.PROFILE_NOT_FOUND, f"spec.profileRef: EvalProfile {name} not found in namespace {ns}"
            )
        try:
            profile = parse_profile(found)
        except ManifestError as e:
            problems = "; ".join(e.problems[:3])
            return Refusal(Reason.INVALID_PROFILE, f"spec.profileRef: EvalProfile {name}: {problems}")
    if spec.policy_ref is not None:
        name = spec.policy_ref.name
        found = await _referenced(rt, "GatePolicy", ns, name)
        if found is None:
            return Refusal(
                Reason.POLICY_NOT_FOUND, f"spec.policyRef: GatePolicy {name} not found in namespace {ns}"
            )
        try:
            parse_policy(found)
        except ManifestError as e:
            problems = "; ".join(e.problems[:3])
            return Refusal(Reason.INVALID_POLICY, f"spec.policyRef: GatePolicy {name}: {problems}")
    try:
        caseset = parse_caseset(raw)
        data = {}
        for ref in caseset.spec.cases_from:
            if (found_cm := await _configmap(rt, ns, ref.name)) is not None:
                data[ref.name] = found_cm
        cases = resolve_cases(caseset, data)
        compile_cases(cases, where=f"CaseSet {cs}", profile=profile.spec if profile else None)
    except (ManifestError, CaseSetProblem) as e:
        reason, message = invalid(e)
        return Refusal(reason, f"spec.caseSetRef: CaseSet {cs} is not usable ({reason}): {message}")
    template = spec.target.pod_template
    if template is not None and (unreproducible := exam_problems(template)):
        return Refusal(
            Reason.TEMPLATE_NOT_REPRODUCIBLE,
            "spec.target.podTemplate: the exam cannot run it as production would, so it is not examined: "
            + "; ".join(unreproducible[:5]),
        )
    refused = await _check_answers(rt, run, ns, profile)
    return refused if refused is not None else Prepared(cases, profile)


async def _check_answers(rt: Runtime, run: EvalRun, ns: str, profile: EvalProfile | None) -> Refusal | None:
    """Recorded answers in a ConfigMap, and the profile's grounding documents, are there and readable."""
    responses = run.spec.target.responses
    ref = responses.config_map_ref if responses is not None else None
    if ref is not None:
        field = "spec.target.responses.configMapRef"
        data = await _configmap(rt, ns, ref.name)
        if data is None:
            return Refusal(
                Reason.CONFIG_MAP_NOT_FOUND, f"{field}: ConfigMap {ref.name} not found in namespace {ns}"
            )
        if ref.key not in data:
            return Refusal(
                Reason.CONFIG_MAP_NOT_FOUND, f"{field}: ConfigMap {ref.name} has no key {ref.key!r}"
            )
        try:
            parse_responses(data[ref.key], where=f"{field}: ConfigMap {ref.name}/{ref.key}")
        except ManifestError as e:
            return Refusal(Reason.INVALID_RESPONSES, "; ".join(e.problems[:3]))
    grounding = profile.spec.grounding if profile is not None else None
    for doc in grounding.documents if grounding is not None else ():
        cm = doc.config_map_ref
        if cm is None or profile is None:
            continue
        field = f"spec.profileRef: EvalProfile {profile.metadata.name}: spec.grounding.documents[{doc.id}]"
        data = await _configmap(rt, ns, cm.name)
        if data is None or cm.key not in data:
            what = "not found" if data is None else f"has no key {cm.key!r}"
            return Refusal(Reason.CONFIG_MAP_NOT_FOUND, f"{field}: ConfigMap {cm.name} {what}")
    return None


async def pin(
    rt: Runtime, ref: RunRef, caseset: str, cases: Sequence[Case]
) -> CaseSnapshot | Refusal | NotYet:
    """Write the run's resolved cases into ConfigMaps of the operator's own namespace, named by the
    run's UID (the tenant reads ConfigMaps in the run's namespace, never there); the snapshot says
    which they are and what their digest is. The run's judges get their shard's cases from the case
    server (:mod:`proctor.reconcile.caseserver`), which checks them against that digest.

    Create only: a repeated step finds its own ConfigMap there with the same bytes; one that holds
    anything else was not written for this run (a UID is never reused) and the run cannot start."""
    store = rt.config.store_namespace
    cms = snapshot_configmaps(ref, encode_cases(canonical_case(c) for c in cases), namespace=store)
    for i, cm in enumerate(cms):
        if await rt.call(rt.kube.create_configmap, cm) is not None:
            continue
        name = snapshot_configmap_name(ref.uid, i)
        have = await rt.call(rt.kube.get_configmap_or_none, store, name)
        if have is None:
            return NotYet(f"ConfigMap {store}/{name} was deleted as the run's cases were pinned")
        if (have.get("binaryData") or {}) != cm["binaryData"]:
            return Refusal(
                Reason.INVALID_CASES,
                f"ConfigMap {store}/{name}, where the operator pins the run's cases, exists and was not "
                "written for this run",
            )
    return CaseSnapshot(
        case_set=caseset,
        digest=content_digest(cases),
        cases=len(cases),
        config_maps=[snapshot_configmap_name(ref.uid, i) for i in range(len(cms))],
    )


def secret_hints(run: EvalRun, profile: EvalProfile | None) -> dict[str, str]:
    """Where the run and its profile name each Secret and ConfigMap the judge pod needs
    (``secret/NAME`` -> the field), so the kubelet's ``secret "NAME" not found`` says what to fix."""
    hints: dict[str, str] = {}
    judge = profile.spec.judge if profile is not None else None
    if profile is not None and judge is not None and judge.api_key_secret_ref is not None:
        where = f"EvalProfile {profile.metadata.name}: spec.judge.apiKeySecretRef"
        hints[f"secret/{judge.api_key_secret_ref.name}"] = where
    endpoint = run.spec.target.endpoint
    if endpoint is not None and endpoint.api_key_secret_ref is not None:
        hints[f"secret/{endpoint.api_key_secret_ref.name}"] = "spec.target.endpoint.apiKeySecretRef"
    template = run.spec.target.pod_template or {}
    for c in template.get("spec", template).get("containers") or []:
        where = f"spec.target.podTemplate container {c.get('name')}"
        for env in c.get("env") or []:
            source = env.get("valueFrom") or {}
            for kind, key in (("secret", "secretKeyRef"), ("configmap", "configMapKeyRef")):
                if name := (source.get(key) or {}).get("name"):
                    hints.setdefault(f"{kind}/{name}", f"{where} env {env.get('name')}")
        for env in c.get("envFrom") or []:
            for kind, key in (("secret", "secretRef"), ("configmap", "configMapRef")):
                if name := (env.get(key) or {}).get("name"):
                    hints.setdefault(f"{kind}/{name}", f"{where} envFrom")
    return hints


def job_spec(
    run: EvalRun,
    profile: EvalProfile | None,
    config: OperatorConfig,
    *,
    cases: tuple[str, str] | None = None,
) -> JudgeJobSpec:
    """Everything the run's judge Jobs depend on besides the run itself (``cases``: the case
    server's URL and CA, where the judge fetches its shard's cases)."""
    judge = profile.spec.judge if profile is not None else None
    key = judge.api_key_secret_ref if judge is not None else None
    target = run.spec.target
    agent_key = target.endpoint.api_key_secret_ref if target.endpoint else None
    return JudgeJobSpec(
        image=config.judge_image,
        deadline_seconds=run.spec.timeout_seconds,
        ttl_seconds=config.job_ttl_seconds,
        judge_key=SecretKey(key.name, key.key) if key else None,
        agent_key=SecretKey(agent_key.name, agent_key.key) if agent_key else None,
        candidate=target.pod_template,
        candidate_container=target.candidate.container if target.candidate else None,
        hostname=production_hostname(
            run.metadata.labels.get(LABEL_WORKLOAD),
            target.pod_template,
            run.metadata.uid or "",
        )
        if target.pod_template is not None
        else None,
        cases_url=cases[0] if cases else None,
        cases_ca=cases[1] if cases else None,
    )


async def _pods(rt: Runtime, ref: RunRef) -> list[dict[str, Any]]:
    """The run's judge pods, as listed by the run's labels (none when the operator may not list
    pods: it then sees Jobs only, and believes no report: a report is believed only from a pod)."""
    try:
        return list(await rt.call(rt.kube.list_pods, ref.namespace, judge_selector(ref.uid)))
    except KubeError as e:
        log.warning("judge pods not readable", run=f"{ref.namespace}/{ref.name}", error=str(e)[:300])
        return []


async def _failed_creates(
    rt: Runtime, ns: str, jobs: Sequence[JobView], pods: Sequence[PodView]
) -> list[FailedCreate]:
    """``FailedCreate`` Events of the active Jobs that have no pod (the API server refused it)."""
    with_pods = {(p.shard, p.attempt) for p in pods}
    out: list[FailedCreate] = []
    for j in jobs:
        if j.phase is not JobPhase.ACTIVE or (j.shard, j.attempt) in with_pods:
            continue
        selector = f"involvedObject.kind=Job,involvedObject.name={j.name},reason=FailedCreate"
        try:
            out += [FailedCreate.of(e) for e in await rt.call(rt.kube.list_events, ns, selector)]
        except KubeError as e:
            log.warning("judge Job events not readable", job=f"{ns}/{j.name}", error=str(e)[:300])
    return out


@dataclass(frozen=True)
class Judges:
    """A started run's judges as one step sees them, read once: its profile as it is now, and each
    shard (its Jobs, its pods, why a pod does not start) with the reports believed in this step."""

    profile: EvalProfile | None
    #: The stored status with the reports believed in this step in its shards' entries.
    status: EvalRunStatus
    views: list[ShardView]
    #: Why each report or pod not believed was not (a Warning Event each).
    rejected: list[str]


async def gather_judges(rt: Runtime, stored: Stored, run: EvalRun) -> Judges:
    """Everything a started run's next Jobs and status are decided from (:func:`plan_run`,
    :func:`progress`): Jobs, pods and Events listed once, reports read and checked once."""
    ref = stored.ref
    profile = await _profile(rt, run, ref.namespace)
    raw_jobs = await rt.call(rt.kube.list_jobs, ref.namespace, judge_selector(ref.uid))
    raw_pods = await _pods(rt, ref) if raw_jobs else []
    jobs, pods = [job_view(j) for j in raw_jobs], [pod_view(p) for p in raw_pods]
    refused = await _failed_creates(rt, ref.namespace, jobs, pods)
    unread = shard_views(stored.status, run.spec.shards, jobs)
    # the evidence is the objects themselves (a Job's template, its pods' specs): read from them
    reports, rejected = await read_reports(rt, ref, unread, raw_jobs, raw_pods)
    status = with_reports(stored.status, reports)
    grace = dt.timedelta(seconds=rt.config.start_grace_seconds)
    hints = secret_hints(run, profile)
    views = shard_views(status, run.spec.shards, jobs, pods, refused, grace=grace, hints=hints)
    return Judges(profile, status, views, rejected)


async def _profile(rt: Runtime, run: EvalRun, namespace: str) -> EvalProfile | None:
    """The run's profile as it is now (for the judge's Secret, and the fields a message names)."""
    if run.spec.profile_ref is None:
        return None
    raw = await rt.call(rt.kube.get_or_none, "EvalProfile", namespace, run.spec.profile_ref.name)
    try:
        return parse_profile(raw) if raw is not None else None
    except ManifestError:
        return None


@dataclass(frozen=True)
class Evidence:
    """What a verdict is decided from, read again once every shard reported: the results verified
    against the reports believed, and the policy and case set (its baseline) as they are now."""

    results: list[CaseResult]
    gate_policy: GatePolicy | None
    caseset: CaseSet | None


@dataclass(frozen=True)
class Unusable:
    """Nothing can be decided from what is there (the run ends in ERROR): the reason, the message,
    and the text of a ``ReportRejected`` Warning when a report was the cause."""

    reason: str
    message: str
    rejected: str | None = None


async def gather_evidence(
    rt: Runtime, ref: RunRef, run: EvalRun, status: EvalRunStatus, plan: RunPlan
) -> Evidence | Unusable:
    """The reports and results read again (never the status alone), each checked against the digest
    recorded when it was believed: one that differs was replaced since."""
    digests = {s.name: s.report_digest for s in status.shards}
    try:
        results = await verified_results(
            rt,
            ref,
            [(p.shard.index, p.shard.count, p.attempt, digests.get(p.shard.name)) for p in plan.shards],
        )
    except Untrusted as e:
        message = f"the results could not be verified, so nothing is decided from them: {e}"
        return Unusable(Reason.SHARD_FAILED, message, str(e))
    gate_policy = None
    if run.spec.policy_ref:
        found = await rt.call(rt.kube.get_or_none, "GatePolicy", ref.namespace, run.spec.policy_ref.name)
        if found is None:
            message = (
                f"spec.policyRef: GatePolicy {run.spec.policy_ref.name} not found in namespace "
                f"{ref.namespace} (deleted during the run): no thresholds to decide with, nothing is claimed"
            )
            return Unusable(Reason.POLICY_NOT_FOUND, message)
        gate_policy = parse_policy(found)
    caseset_raw = await rt.call(rt.kube.get_or_none, "CaseSet", ref.namespace, run.spec.case_set_ref.name)
    try:
        caseset = parse_caseset(caseset_raw) if caseset_raw is not None else None
    except ManifestError:
        caseset = None
    return Evidence(results, gate_policy, caseset)


async def run_of(
    rt: Runtime, namespace: str, labels: Mapping[str, str], owners: Sequence[Mapping[str, Any]] = ()
) -> str | None:
    """The name of the run a judge pod belongs to, or None when that run is gone.

    The run label holds the name unless it was too long for a label; then the pod's Job (its
    ``owners``) names the run in full in its owner reference. Three reads at most, never a list of
    the namespace's runs: the pods of the runs history retention deletes send their last events
    after their run is gone, and a list for each read every run (44 MB of JSON with 10,000 present).
    """
    name, uid = labels.get(LABEL_RUN), labels.get(LABEL_RUN_UID)
    if not name or not uid:
        return None
    raw = await rt.call(rt.kube.get_or_none, "EvalRun", namespace, name)
    if raw is not None and ObjectMeta.of(raw).uid == uid:
        return name
    for job_name in [str(o["name"]) for o in owners if o.get("kind") == "Job" and o.get("name")]:
        job = await rt.call(rt.kube.get_job, namespace, job_name)
        full = owning_run(job) if job is not None else None
        if full is None or full == name:
            continue  # no Job any more, or the name already read above: that run is gone
        raw = await rt.call(rt.kube.get_or_none, "EvalRun", namespace, full)
        if raw is not None and ObjectMeta.of(raw).uid == uid:
            return full
    return None


# --- evaluate (pure) -------------------------------------------------------------------------------


#: What a shard's verified report says, kept in its entry (the operator writes them: the judge
#: writes no status).
REPORTED_FIELDS = (
    "phase",
    "summary",
    "message",
    "reason",
    "results",
    "provenance",
    "report_digest",
    "start_time",
    "completion_time",
)


def shard_entries(plan: RunPlan, run: str, status: EvalRunStatus | None = None) -> list[ShardStatus]:
    """Each shard's entry: its Job, attempts, the Job's state, the retry, and what its latest
    verified report said (``status``: the current entries with the reports read in this step);
    a new attempt starts with none.

    The Job named is one that exists (or existed: a finished Job may be gone after its TTL), never a
    name computed for an attempt that was not made."""
    reported = {s.name: s for s in (status.shards if status is not None else ())}
    out = []
    for p in plan.shards:
        listed = next((j.name for j in p.shard.jobs if j.attempt == p.attempt), None)
        if p.action is Action.CREATE:
            job: str | None = judge_job_name(run, p.shard.index, p.shard.count, p.attempt)
        else:
            job = listed or p.shard.job
        prev = reported.get(p.shard.name)
        said: dict[str, Any] = {}
        if prev is not None and p.action is not Action.CREATE:
            said = {f: getattr(prev, f) for f in REPORTED_FIELDS if f in prev.model_fields_set}
        entry = ShardStatus(
            name=p.shard.name,
            attempts=p.attempt,
            job_phase=(JobPhase.ACTIVE if p.action is Action.CREATE else p.job_phase).value,
            job_message=p.message[:MESSAGE_CHARS] or None,
            retry_at=p.retry_at,
        )
        out.append(entry.model_copy(update=said | ({"job": job} if job is not None else {})))
    return out


def forwards(current: RunPhase | None, desired: RunPhase) -> RunPhase:
    """A run's phase never moves backwards: once Running, never Pending again (whatever happens to
    what it references; a finished run is never looked at again)."""
    if current is not None and current.rank > desired.rank:
        return current
    return desired


def _progress_conditions(
    current: Sequence[Condition], reason: str, message: str, now: dt.datetime, generation: int | None
) -> list[Condition]:
    conds = set_condition(
        current,
        ConditionType.FINISHED,
        ConditionStatus.FALSE,
        reason,
        message,
        now=now,
        observed_generation=generation,
    )
    return set_condition(
        conds,
        ConditionType.EVALUATED,
        ConditionStatus.FALSE,
        reason,
        message,
        now=now,
        observed_generation=generation,
    )


def waiting_status(
    current: EvalRunStatus,
    base: EvalRunStatus,
    phase: RunPhase,
    reason: str,
    message: str,
    now: dt.datetime,
) -> EvalRunStatus:
    """Not decided yet: Running (shards running or waiting to retry); Finished and Evaluated False."""
    message = message[:MESSAGE_CHARS]
    conds = _progress_conditions(current.conditions, reason, message, now, base.observed_generation)
    return base.model_copy(
        update={"phase": forwards(current.phase, phase), "message": message, "conditions": conds}
    )


def running_reason(plan: RunPlan, shards: int, problems: Sequence[str]) -> tuple[str, str]:
    """Why the run is not decided yet: shards waiting to retry, or running; problems first (a Job
    that is not the run's), then what the shards' pods or Jobs say when something is wrong."""
    waiting = [p for p in plan.shards if p.action is Action.WAIT]
    notes = [
        f"shard {p.shard.name}: {p.message}" for p in plan.shards if p.message and p.action is not Action.DONE
    ]
    if waiting:
        reason, head = (
            Reason.RETRY_SCHEDULED,
            f"{len(waiting)} shard(s) waiting to retry after a harness failure",
        )
    else:
        reason, head = Reason.SHARDS_RUNNING, f"{shards} shard(s) running"
    return reason, "; ".join([*problems, head, *notes])


def failed_status(
    current: EvalRunStatus, base: EvalRunStatus, message: str, reason: str, now: dt.datetime
) -> EvalRunStatus:
    """Nothing could be measured: Failed, verdict ERROR. ``reason`` is a permanent one (the run was
    refused, or a shard gave up at once) or ``ShardFailed`` (the retries were used up); Finished is
    True, Evaluated False with that reason (``EvaluationFailed`` after the retries)."""
    gen = base.observed_generation
    message = message[:MESSAGE_CHARS]
    why = Reason.EVALUATION_FAILED if reason == Reason.SHARD_FAILED else reason

    def put(conds: Sequence[Condition], type_: str, status: ConditionStatus, r: str) -> list[Condition]:
        return set_condition(conds, type_, status, r, message, now=now, observed_generation=gen)

    conds = put(current.conditions, ConditionType.FINISHED, ConditionStatus.TRUE, Reason.FAILED)
    conds = put(conds, ConditionType.EVALUATED, ConditionStatus.FALSE, why)
    conds = put(conds, ConditionType.PASSED, ConditionStatus.FALSE, Reason.NOTHING_MEASURED)
    conds = put(conds, ConditionType.DEGRADED, ConditionStatus.TRUE, reason)
    return base.model_copy(
        update={
            "phase": RunPhase.FAILED,
            "verdict": VerdictName.ERROR,
            "exit_code": VerdictName.ERROR.exit_code,
            "message": message,
            "completion_time": now,
            "conditions": conds,
        }
    )


def gave_up_message(plan: RunPlan) -> tuple[str, str]:
    """The reason and message of a run whose shards gave up: a permanent reason says what to fix,
    used-up retries say what the last attempt saw."""
    permanent = plan.permanent
    if permanent is not None:
        assert permanent.reason is not None
        return permanent.reason, (
            f"{permanent.message[:800]}; nothing was measured "
            "(not retried: fix it, then create a new EvalRun)"
        )
    why = "; ".join(f"shard {p.shard.name}: {p.message}" for p in plan.gave_up)[:900]
    return Reason.SHARD_FAILED, f"the harness failed, nothing was measured: {why}"


def provenance(case_digest: str | None, judge_prompt: str | None, policy: GatePolicy | None) -> Provenance:
    """Content-addressed versions of what the run was measured under, and their digest."""
    parts = {
        k: v
        for k, v in {
            "caseSet": case_digest,
            "judgePrompt": judge_prompt,
            "scoring": policy_digest(policy.spec) if policy else None,
        }.items()
        if v
    }
    return Provenance.model_validate(parts | {"digest": policy_digest(parts)})


def comparable_baseline(
    caseset: CaseSet | None, case_digest: str | None, prov: Provenance
) -> Baseline | None:
    """The case set's frozen baseline, if this run is comparable with it (same cases, same judge and
    scoring); a baseline of other cases or another judge is not a yardstick."""
    frozen = caseset.status.baseline if caseset is not None and caseset.status is not None else None
    if frozen is None or case_digest is None:
        return None
    baseline = frozen.to_baseline()
    return baseline if baseline.matches(case_digest, comparable_provenance(prov)) else None


def results_refs(status: EvalRunStatus, views: Sequence[ShardView]) -> list[ResultsRef]:
    """Where every case's result is: a shard's cases sit in its one results map, unless split."""
    reported = {s.name: s for s in status.shards}
    refs = []
    for view in views:
        summary = reported[view.name].summary if view.name in reported else None
        for n in view.results:
            cases = (summary.cases if summary else 0) if len(view.results) == 1 else 0
            refs.append(ResultsRef(config_map=n, shard=view.name, cases=cases))
    return refs[:256]


def decided_status(
    current: EvalRunStatus,
    base: EvalRunStatus,
    decision: Decision,
    results: Sequence[CaseResult],
    baseline: Baseline | None,
    prov: Provenance,
    views: Sequence[ShardView],
    now: dt.datetime,
) -> EvalRunStatus:
    """Every shard reported and the protocol decided: the verdict and what it rests on."""
    verdict = evaluate.evaluated_status(decision, results, baseline.rates if baseline else None)
    conds = evaluate.verdict_conditions(
        current.conditions, decision, now=now, generation=base.observed_generation
    )
    fields = {name: getattr(verdict, name) for name in verdict.model_fields_set}
    return base.model_copy(
        update=fields
        | {
            "provenance": prov,
            "completion_time": now,
            "results": results_refs(current, views),
            "conditions": conds,
        }
    )


def launch_refusal(run: EvalRun, profile: EvalProfile | None, plan: RunPlan, namespace: str) -> str | None:
    """Why the plan's Jobs cannot be launched (None: they can): the run's profile was deleted
    during the run, so no judge would have its settings."""
    if plan.creates and run.spec.profile_ref is not None and profile is None:
        return (
            f"spec.profileRef: EvalProfile {run.spec.profile_ref.name} not found in namespace "
            f"{namespace} (deleted during the run); nothing was measured"
        )
    return None


@dataclass(frozen=True)
class Progress:
    """A step that decides no verdict: the status to write, and whether it ends the run in ERROR."""

    status: EvalRunStatus
    failed: bool = False


def progress(
    current: EvalRunStatus,
    base: EvalRunStatus,
    plan: RunPlan,
    shards: int,
    problems: Sequence[str],
    now: dt.datetime,
) -> Progress | None:
    """The run's status after a step's Jobs: ERROR when its shards gave up, Running while some have
    not reported (``problems``: what launching the Jobs found); None when every shard reported, and
    the verdict is decided next (:func:`decide_verdict`)."""
    if plan.gave_up:
        reason, message = gave_up_message(plan)
        return Progress(failed_status(current, base, message, reason, now), failed=True)
    if not plan.all_done:
        reason, message = running_reason(plan, shards, problems)
        return Progress(waiting_status(current, base, RunPhase.RUNNING, reason, message, now))
    return None


def decide_verdict(
    evidence: Evidence, judges: Judges, base: EvalRunStatus, now: dt.datetime
) -> tuple[Decision, EvalRunStatus]:
    """The protocol's decision on the evidence, and the status that says it."""
    current = judges.status
    case_digest = current.snapshot.digest if current.snapshot is not None else None
    judge_prompt = next((s.provenance for s in current.shards if s.provenance), None)
    gate_policy = evidence.gate_policy
    prov = provenance(case_digest, judge_prompt, gate_policy)
    baseline = comparable_baseline(evidence.caseset, case_digest, prov)
    policy = protocol_policy(gate_policy.spec if gate_policy else None)
    decision = decide(evidence.results, policy, baseline)
    return decision, decided_status(
        current, base, decision, evidence.results, baseline, prov, judges.views, now
    )


# --- act and write ---------------------------------------------------------------------------------


async def _create_jobs(rt: Runtime, run: RunRef, plan: RunPlan, spec: JudgeJobSpec) -> list[str]:
    problems = []
    for p in plan.creates:
        job = judge_job(run, p.shard.index, p.shard.count, p.attempt, spec)
        created = await rt.call(rt.kube.create_job, job)
        if created is None:
            name = judge_job_name(run.name, p.shard.index, p.shard.count, p.attempt)
            existing = await rt.call(rt.kube.get_job, run.namespace, name)
            owners = {o.uid for o in ObjectMeta.of(existing).owner_references}
            if existing is not None and run.uid not in owners:
                problems.append(f"Job {name} exists but is not owned by this run; not adopted")
            continue  # ours already (a restart, or a concurrent reconcile): adopted
        metrics.JOBS_CREATED.inc()
    return problems


def say_jobs(about: ObjectRef, run: RunRef, plan: RunPlan, out: Outcome) -> None:
    """The decisions about Jobs, derived from the Jobs themselves: each Job created, each attempt that
    failed. Said at every step under deterministic names (the runtime posts each once), so a
    decision whose Event a kill lost is said again, and none twice."""
    for p in plan.shards:
        jobs = {j.attempt: j.name for j in p.shard.jobs}
        if p.action is Action.CREATE:
            jobs[p.attempt] = judge_job_name(run.name, p.shard.index, p.shard.count, p.attempt)
        for attempt, name in sorted(jobs.items()):
            what = "retry" if attempt > 1 else "start"
            out.say(
                about,
                "Normal",
                "JobCreated",
                f"shard {p.shard.name}: Job {name} ({what}, attempt {attempt})",
                key=f"job:{name}",
            )
        for j in p.shard.jobs:
            if j.phase is not JobPhase.FAILED or p.reason is not None:
                continue
            last = j.attempt == p.attempt
            why = p.message if last and p.message else j.message or "failed"
            retry = f"; retry at {format_time(p.retry_at)}" if last and p.retry_at else ""
            out.say(
                about,
                "Warning",
                "ShardFailed",
                f"shard {p.shard.name} attempt {j.attempt} failed: {why[:300]}{retry}",
                key=f"failed:{j.name}",
            )


async def _ensure_rbac(rt: Runtime, namespace: str) -> None:
    if rt.config.manage_judge_rbac and namespace not in rt.rbac_done:
        await rt.call(rt.kube.apply_rbac, judge_rbac(namespace, rt.config.judge_cluster_role), MANAGER)
        rt.rbac_done.add(namespace)


async def _write(rt: Runtime, stored: Stored, desired: EvalRunStatus) -> None:
    await write_status(rt, stored.about, stored.held, desired)


async def _fail(rt: Runtime, stored: Stored, desired: EvalRunStatus, out: Outcome) -> Outcome:
    """End the run in ERROR: the Event first (named: said once even if the write is repeated), then
    the status that makes it final."""
    reason = next((c.reason for c in desired.conditions if c.type == ConditionType.EVALUATED), "")
    message = f"ERROR (exit 2) {reason}: {desired.message}"
    out.say(stored.about, "Warning", "VerdictError", message, key="verdict")
    await rt.post(out.events)
    await _write(rt, stored, desired)
    metrics.RUNS.labels(stored.ref.namespace, "ERROR").inc()
    return out


async def _gate_evidence(rt: Runtime, namespace: str, runs: Sequence[Mapping[str, Any]]) -> set[str]:
    """Of ``runs``, those the namespace's GatePolicies decide from (see :func:`gate_evidence`); a
    policy whose status does not parse keeps every run it owns (retention never guesses them away)."""
    statuses, unread = [], set()
    for raw in await rt.call(rt.kube.list_custom, "GatePolicy", namespace):
        try:
            statuses.append(GatePolicyStatus.model_validate(raw.get("status") or {}))
        except ValidationError:
            unread.add(ObjectMeta.of(raw).uid)
    metas = [ObjectMeta.of(r) for r in runs]
    owned = {m.name or "" for m in metas if any(o.uid in unread for o in m.owner_references)}
    return gate_evidence(statuses) | owned


async def _history(rt: Runtime, namespace: str, caseset: str) -> None:
    """After a verdict: keep the newest ``run_history`` finished runs of the case set (their results
    go with them; never the runs its baseline was frozen from), and list the newest on the CaseSet
    (``status.recentRuns``)."""
    raw = await rt.call(rt.kube.get_or_none, "CaseSet", namespace, caseset)
    status = CaseSetStatus.model_validate((raw or {}).get("status") or {})
    runs = await rt.call(rt.kube.list_runs_of, namespace, caseset)
    pruned: set[str] = set()
    if rt.config.run_history > 0:
        frozen = status.baseline
        protected = set(frozen.frozen_from if frozen else ()) | await _gate_evidence(rt, namespace, runs)
        uids = {m.name: m.uid or "" for m in map(ObjectMeta.of, runs)}
        for old in runs_to_prune(runs, rt.config.run_history, protected=protected):
            await rt.call(rt.kube.delete_custom, "EvalRun", namespace, old)
            await forget_detail(rt, uids.get(old, ""))
            pruned.add(old)
            log.info("run pruned (history retention)", run=f"{namespace}/{old}", keep=rt.config.run_history)
    if raw is None:
        return
    recent = recent_runs([r for r in runs if r["metadata"]["name"] not in pruned], digest=status.digest)
    try:
        desired = CaseSetStatus(recent_runs=recent)
        await write_status(rt, ObjectRef.of(raw), raw.get("status") or {}, desired, manager=HISTORY_MANAGER)
    except KubeError as e:  # the case set went away, or is being replaced: the verdict stands
        log.warning("recent runs not recorded", caseset=f"{namespace}/{caseset}", error=str(e))


def _record_metrics(
    namespace: str, run: EvalRun, decision: Decision, desired: EvalRunStatus, now: dt.datetime
) -> None:
    set_name = run.spec.case_set_ref.name
    metrics.RUNS.labels(namespace, decision.verdict.name).inc()
    for t, tr in decision.tiers.items():
        if tr.rate is not None:
            metrics.TIER_RATE.labels(namespace, set_name, t.value).set(tr.rate)
    for d in desired.dimensions:
        if d.mean is not None:
            metrics.DIMENSION_SCORE.labels(namespace, set_name, d.name).set(d.mean)
        if d.skipped:
            metrics.DIMENSIONS_SKIPPED.labels(namespace).inc(d.skipped)
    if desired.start_time is not None:
        metrics.RUN_DURATION.observe((now - desired.start_time).total_seconds())


def finished_label_patch(labels: Mapping[str, str], *, finished: bool) -> dict[str, Any] | None:
    """The metadata patch that makes a run's ``proctor.dev/finished`` label say whether it is over
    (None: it does). The operator watches only runs without the label, so a finished run leaves its
    watch (and its memory); an unfinished run that carries it (set by hand) would be missed by the
    next operator's watch, so the label is removed again while this one still looks at the run."""
    want = "true" if finished else None
    if labels.get(LABEL_FINISHED) == want:
        return None
    return {"metadata": {"labels": {LABEL_FINISHED: want}}}


async def label_finished_runs(
    rt: Runtime, namespaces: Sequence[str | None], *, budget: float, page: int = 500, parallel: int = 10
) -> tuple[int, bool]:
    """Label the finished runs an earlier version left without ``proctor.dev/finished``, before the
    watch starts: page by page and a few at a time, so an upgrade over thousands of runs neither
    holds them all in memory (the watch would run a handler for every one at once) nor outlasts
    the liveness probe (``budget`` seconds; what is left, the watch labels as before). Returns how
    many were labelled and whether all were. Its own ``parallel`` threads (the client's connection
    pool holds 10): nothing else runs before the watches start."""
    deadline = time.monotonic() + budget
    patch = {"metadata": {"labels": {LABEL_FINISHED: "true"}}}

    def label(meta: ObjectMeta) -> bool:
        if time.monotonic() > deadline:
            return False
        try:
            rt.kube.patch_custom("EvalRun", meta.namespace or "", meta.name or "", patch)
        except KubeError as e:  # deleted meanwhile, or refused: the watch sees it
            log.info("finished run not labelled at start", run=f"{meta.namespace}/{meta.name}", error=str(e))
            return False
        return True

    loop, labelled = asyncio.get_running_loop(), 0
    with concurrent.futures.ThreadPoolExecutor(parallel, thread_name_prefix="label-finished") as pool:
        for ns in namespaces:
            cont: str | None = None
            while time.monotonic() <= deadline:
                try:
                    items, cont = await rt.call(
                        rt.kube.list_custom_page, "EvalRun", ns, UNFINISHED_SELECTOR, limit=page, cont=cont
                    )
                except KubeError as e:  # a continue token expired, no right to list: the watch does the rest
                    log.warning("finished runs not labelled at start", namespace=ns or "*", error=str(e))
                    return labelled, False
                done = [
                    ObjectMeta.of(r) for r in items if _phase_terminal((r.get("status") or {}).get("phase"))
                ]
                labelled += sum(await asyncio.gather(*(loop.run_in_executor(pool, label, m) for m in done)))
                if cont is None:
                    break
    return labelled, time.monotonic() <= deadline


async def forget_cases(rt: Runtime, raw: Mapping[str, Any]) -> None:
    """Delete the cases a run pinned in the operator's namespace (it is over, or deleted): no judge
    may have them any more. Best effort: what is left names a run that no longer needs it."""
    uid = ObjectMeta.of(raw).uid or ""
    names = (((raw.get("status") or {}).get("snapshot") or {}).get("configMaps")) or []
    for n in names:
        if not uid or not str(n).startswith(snapshot_configmap_name(uid, 0).rpartition("-")[0] + "-"):
            continue  # pinned by an earlier version, in the run's own namespace: its own to collect
        try:
            await rt.call(rt.kube.delete_configmap, rt.config.store_namespace, str(n))
        except KubeError as e:
            where = f"{rt.config.store_namespace}/{n}"
            log.warning("pinned cases not deleted", configmap=where, error=str(e))


async def forget_detail(rt: Runtime, uid: str) -> None:
    """Delete a deleted run's full results from the operator's namespace (they outlive the run's
    end, for a platform engineer, not the run). Best effort."""
    if not uid:
        return
    ns = rt.config.store_namespace
    try:
        found = await rt.call(
            rt.kube.list_configmaps, ns, f"{LABEL_RUN_UID}={uid},{LABEL_COMPONENT}={DETAIL_COMPONENT}"
        )
        for meta in map(ObjectMeta.of, found):
            await rt.call(rt.kube.delete_configmap, ns, meta.name or "")
    except KubeError as e:
        log.warning("the run's full results not deleted", namespace=ns, run_uid=uid, error=str(e))


def _phase_terminal(phase: object) -> bool:
    return isinstance(phase, str) and phase in TERMINAL_PHASES


async def reconcile_run(rt: Runtime, namespace: str, name: str) -> Outcome:
    """Bring one run one step closer to its verdict (one step at a time per run)."""
    async with rt.lock(f"{namespace}/{name}"):
        t0 = time.monotonic()
        try:
            return await _step(rt, namespace, name)
        finally:
            metrics.RECONCILE_SECONDS.observe(time.monotonic() - t0)


async def _step(rt: Runtime, namespace: str, name: str) -> Outcome:
    out = Outcome()
    raw = await rt.call(rt.kube.get_or_none, "EvalRun", namespace, name)
    if raw is None:
        return out
    stored = Stored.of(raw)
    current = stored.status
    finished = current.phase is not None and current.phase.terminal
    patch = finished_label_patch(stored.meta.labels, finished=finished)
    if patch is not None:
        await rt.call(rt.kube.patch_custom, "EvalRun", namespace, name, patch)
    if finished:
        if patch is not None:
            await forget_cases(rt, raw)
        return out
    now = rt.now()
    base = EvalRunStatus(observed_generation=stored.meta.generation, start_time=current.start_time or now)
    try:
        run = parse_evalrun(raw)
    except ManifestError as e:
        message = "spec: " + "; ".join(e.problems)
        invalid_base = EvalRunStatus(observed_generation=base.observed_generation)
        return await _fail(
            rt, stored, failed_status(current, invalid_base, message, Reason.INVALID_SPEC, now), out
        )
    if current.snapshot is None:
        started = await _start(rt, stored, run, base, out)
        if isinstance(started, Outcome):
            return started
        stored = stored.written(started)  # what the object holds now (the next write compares with it)
    return await _run_judges(
        rt, stored, run, base.model_copy(update={"snapshot": stored.status.snapshot}), out
    )


async def _start(
    rt: Runtime, stored: Stored, run: EvalRun, base: EvalRunStatus, out: Outcome
) -> EvalRunStatus | Outcome:
    """The run's first step: check what it references (refused: ERROR at once, no Job), pin its cases
    and record the snapshot before any Job can read it. Returns the status it now has."""
    now, current = rt.now(), stored.status
    ns = stored.ref.namespace
    prepared = await prepare(rt, run, ns)
    if isinstance(prepared, Refusal):
        metrics.RUN_FAILURES.labels(ns).inc()
        return await _fail(
            rt, stored, failed_status(current, base, prepared.message, prepared.reason, now), out
        )
    snapshot = await pin(rt, stored.ref, run.spec.case_set_ref.name, prepared.cases)
    if isinstance(snapshot, NotYet):
        waiting = waiting_status(current, base, RunPhase.PENDING, Reason.PENDING, snapshot.message, now)
        await _write(rt, stored, waiting)
        return Outcome(recheck=True)
    if isinstance(snapshot, Refusal):
        metrics.RUN_FAILURES.labels(ns).inc()
        return await _fail(
            rt, stored, failed_status(current, base, snapshot.message, snapshot.reason, now), out
        )
    message = (
        f"starting: {snapshot.cases} cases of CaseSet {snapshot.case_set} pinned ({snapshot.digest[:19]})"
    )
    desired = waiting_status(
        current,
        base.model_copy(update={"snapshot": snapshot}),
        RunPhase.RUNNING,
        Reason.PENDING,
        message,
        now,
    )
    await _write(rt, stored, desired)
    out.say(stored.about, "Normal", "CasesPinned", message, key="pinned")
    return desired


async def _run_judges(
    rt: Runtime, stored: Stored, run: EvalRun, base: EvalRunStatus, out: Outcome
) -> Outcome:
    """A started run: gather its judges, plan, launch what the plan says, then write once (or, every
    shard reported, decide the verdict)."""
    now, about = rt.now(), stored.about
    await _ensure_rbac(rt, stored.ref.namespace)
    judges = await gather_judges(rt, stored, run)
    for why in judges.rejected:
        out.say(about, "Warning", "ReportRejected", why, key=f"rejected:{why}")
    plan = plan_run(judges.views, now, backoff=rt.config.backoff, max_attempts=rt.config.max_attempts)
    if (refused := launch_refusal(run, judges.profile, plan, stored.ref.namespace)) is not None:
        return await _fail(
            rt, stored, failed_status(stored.status, base, refused, Reason.PROFILE_NOT_FOUND, now), out
        )
    problems: list[str] = []
    if plan.creates:
        server = rt.case_server
        cases = (server.url, server.ca_pem) if server is not None else None
        problems = await _create_jobs(
            rt, stored.ref, plan, job_spec(run, judges.profile, rt.config, cases=cases)
        )
    base = base.model_copy(update={"shards": shard_entries(plan, stored.ref.name, judges.status)})
    say_jobs(about, stored.ref, plan, out)
    for p in plan.shards:
        if p.action is Action.WAIT and p.job_phase is JobPhase.FAILED and p.shard.retry_at is None:
            metrics.RUN_FAILURES.labels(stored.ref.namespace).inc()
    move = progress(stored.status, base, plan, run.spec.shards, problems, now)
    if move is None:
        return await _verdict(rt, stored, run, judges, base, plan, out)
    if move.failed:
        return await _fail(rt, stored, move.status, out)
    await _write(rt, stored, move.status)
    out.recheck = True
    if plan.next_wake is not None:
        out.recheck_in = (plan.next_wake - now).total_seconds()
    return out


async def _verdict(
    rt: Runtime,
    stored: Stored,
    run: EvalRun,
    judges: Judges,
    base: EvalRunStatus,
    plan: RunPlan,
    out: Outcome,
) -> Outcome:
    """Every shard reported: the protocol decides, on the cases pinned when the run started."""
    now, about = rt.now(), stored.about
    evidence = await gather_evidence(rt, stored.ref, run, judges.status, plan)
    if isinstance(evidence, Unusable):
        if evidence.rejected is not None:
            why = evidence.rejected
            out.say(about, "Warning", "ReportRejected", why, key=f"unverified:{why}")
        desired = failed_status(judges.status, base, evidence.message, evidence.reason, now)
        return await _fail(rt, stored, desired, out)
    decision, desired = decide_verdict(evidence, judges, base, now)
    passed = decision.verdict.name in ("PASS", "WARN")
    out.say(
        about,
        "Normal" if passed else "Warning",
        f"Verdict{decision.verdict.name.title()}",
        f"{decision.verdict.name} (exit {decision.exit_code}): {decision.message}",
        key="verdict",
    )
    await rt.post(out.events)  # the verdict's Event before the status that makes it final
    await _write(rt, stored, desired)
    _record_metrics(stored.ref.namespace, run, decision, desired, now)
    await _history(rt, stored.ref.namespace, run.spec.case_set_ref.name)
    return out

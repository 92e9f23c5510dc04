"""EvalRun: Pending -> Running -> Evaluating -> Evaluated | PartiallyEvaluated | Failed.

One step, :func:`reconcile_run`: gather (the run, its case set and profile, its Jobs, what its
shards reported), evaluate (:mod:`.plan` for the Jobs, :func:`proctor.protocol.decide` for the
verdict, :mod:`.evaluate` for the status), write only what changed. Every path is idempotent: Jobs
have deterministic names and an existing one is adopted only when it is owned by this run. While
the run is unfinished the outcome asks to be looked at again (retries after backoff).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

import structlog

from proctor.api import (
    CaseSet,
    CaseSetStatus,
    EvalProfile,
    EvalRun,
    EvalRunStatus,
    GatePolicy,
    ManifestError,
    Provenance,
    ResultsRef,
    RunPhase,
    ShardStatus,
    VerdictName,
    content_digest,
    format_time,
    parse_caseset,
    parse_evalrun,
    parse_policy,
    parse_profile,
    protocol_policy,
    resolve_cases,
)
from proctor.api.conditions import ConditionStatus, ConditionType, Reason, set_condition
from proctor.judge.prompts import policy_digest
from proctor.k8s.kube import KubeError
from proctor.k8s.objects import (
    LABEL_ATTEMPT,
    LABEL_COMPONENT,
    LABEL_MANAGED_BY,
    LABEL_RUN_UID,
    LABEL_SHARD,
    JudgeJobSpec,
    RunRef,
    SecretKey,
    judge_job,
    judge_job_name,
    judge_rbac,
    run_key_secret,
    shard_label,
)
from proctor.observability import metrics
from proctor.protocol import Baseline, Decision, decide
from proctor.protocol.types import CaseResult
from proctor.reconcile import evaluate
from proctor.reconcile.config import OperatorConfig
from proctor.reconcile.plan import Action, JobPhase, JobView, RunPlan, ShardView, plan_run, runs_to_prune
from proctor.reconcile.records import comparable_provenance, recent_runs
from proctor.reconcile.results import Untrusted, read_reports, verified_results, with_reports
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import HISTORY_MANAGER, MANAGER, write_status

log = structlog.get_logger("proctor.runs")
_M = TypeVar("_M")


def _parse_time(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


# --- gather ----------------------------------------------------------------------------------------


def job_view(job: Mapping[str, Any]) -> JobView:
    """A judge Job as the planner sees it (the Job controller's conditions, read once here)."""
    meta, status = job["metadata"], job.get("status") or {}
    conds = {c["type"]: c for c in status.get("conditions") or [] if c.get("status") == "True"}
    failed = conds.get("Failed")
    if failed:
        phase = JobPhase.FAILED
        finished = _parse_time(failed.get("lastTransitionTime"))
        message = f"{failed.get('reason', 'Failed')}: {failed.get('message', '')}".strip(": ")
    elif "Complete" in conds:
        phase, finished, message = JobPhase.SUCCEEDED, _parse_time(status.get("completionTime")), ""
    else:
        phase, finished, message = JobPhase.ACTIVE, None, ""
    owners = [o["uid"] for o in meta.get("ownerReferences") or [] if o.get("kind") == "EvalRun"]
    return JobView(
        meta["name"],
        int(meta.get("labels", {}).get(LABEL_ATTEMPT, "0")),
        phase,
        finished,
        message,
        owners[0] if owners else None,
    )


def shard_views(status: EvalRunStatus, count: int, jobs: Sequence[Mapping[str, Any]]) -> list[ShardView]:
    """Each shard: what its runner reported in the run's status, and its Jobs."""
    reported = {s.name: s for s in status.shards}
    by_shard: dict[str, list[JobView]] = {}
    for j in jobs:
        by_shard.setdefault(j["metadata"].get("labels", {}).get(LABEL_SHARD, ""), []).append(job_view(j))
    views = []
    for i in range(count):
        s = reported.get(f"{i}/{count}")
        views.append(
            ShardView(
                index=i,
                count=count,
                runner_phase=s.phase.value if s is not None and "phase" in s.model_fields_set else None,
                runner_message=s.message if s is not None else None,
                results=tuple(s.results) if s is not None else (),
                attempts=s.attempts if s is not None else 0,
                retry_at=s.retry_at if s is not None else None,
                jobs=tuple(by_shard.get(shard_label(i, count), [])),
            )
        )
    return views


@dataclass
class Inputs:
    """What a run references, as read at this step; each parsed into its model when it is needed
    (a case set of thousands of cases is parsed once, for the verdict, not at every step)."""

    caseset_raw: Mapping[str, Any] | None
    profile_raw: Mapping[str, Any] | None
    missing: tuple[str, str] | None = None

    @cached_property
    def caseset(self) -> CaseSet | None:
        # an invalid case set or profile is reported on its own object (Ready=False); the runner,
        # which reads them too, fails its shard with the cause
        return _parsed(parse_caseset, self.caseset_raw)

    @cached_property
    def profile(self) -> EvalProfile | None:
        return _parsed(parse_profile, self.profile_raw)

    @property
    def recorded_digest(self) -> str | None:
        """The digest the case set's status records (its reconciler resolved every case)."""
        return ((self.caseset_raw or {}).get("status") or {}).get("digest")


def _parsed(parse: Callable[[Any], _M], raw: Mapping[str, Any] | None) -> _M | None:
    if raw is None:
        return None
    try:
        return parse(raw)
    except ManifestError:
        return None


async def _inputs(rt: Runtime, run: EvalRun, namespace: str) -> Inputs:
    spec = run.spec
    caseset = await rt.call(rt.kube.get_or_none, "CaseSet", namespace, spec.case_set_ref.name)
    profile = (
        await rt.call(rt.kube.get_or_none, "EvalProfile", namespace, spec.profile_ref.name)
        if spec.profile_ref
        else None
    )
    missing = None
    if caseset is None:
        missing = (Reason.CASE_SET_NOT_FOUND, f"CaseSet {spec.case_set_ref.name} not found")
    elif spec.profile_ref and profile is None:
        missing = (Reason.PROFILE_NOT_FOUND, f"EvalProfile {spec.profile_ref.name} not found")
    return Inputs(caseset, profile, missing)


def job_spec(run: EvalRun, profile: EvalProfile | None, config: OperatorConfig) -> JudgeJobSpec:
    """Everything the run's judge Jobs depend on besides the run itself."""
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
    )


async def _case_digest(rt: Runtime, ns: str, inputs: Inputs) -> str | None:
    """The digest of every case the run examined (inline and casesFrom); the case set's recorded one
    when they cannot be read now."""
    caseset = inputs.caseset
    if caseset is None:
        return inputs.recorded_digest
    try:
        data = {
            r.name: await rt.call(rt.kube.get_configmap_data, ns, r.name) for r in caseset.spec.cases_from
        }
        return content_digest(resolve_cases(caseset, data))
    except (KubeError, ManifestError):
        return inputs.recorded_digest


# --- evaluate (pure) -------------------------------------------------------------------------------


#: What a shard's verified report says, kept in its entry (the operator writes them: the judge
#: writes no status).
REPORTED_FIELDS = ("phase", "summary", "message", "results", "provenance", "start_time", "completion_time")


def shard_entries(plan: RunPlan, run: str, status: EvalRunStatus | None = None) -> list[ShardStatus]:
    """Each shard's entry: its Job, attempts, the Job's state, the retry, and what its latest
    verified report said (``status``: the current entries with the reports read in this step);
    a new attempt starts with none."""
    reported = {s.name: s for s in (status.shards if status is not None else ())}
    out = []
    for p in plan.shards:
        job = next(
            (j.name for j in p.shard.jobs if j.attempt == p.attempt),
            judge_job_name(run, p.shard.index, p.shard.count, p.attempt),
        )
        prev = reported.get(p.shard.name)
        said: dict[str, Any] = {}
        if prev is not None and p.action is not Action.CREATE:
            said = {f: getattr(prev, f) for f in REPORTED_FIELDS if f in prev.model_fields_set}
        entry = ShardStatus(
            name=p.shard.name,
            job=job,
            attempts=p.attempt,
            job_phase=(JobPhase.ACTIVE if p.action is Action.CREATE else p.job_phase).value,
            job_message=p.message[:1000] or None,
            retry_at=p.retry_at,
        )
        out.append(entry.model_copy(update=said) if said else entry)
    return out


def waiting_status(
    current: EvalRunStatus,
    base: EvalRunStatus,
    phase: RunPhase,
    reason: str,
    message: str,
    now: dt.datetime,
) -> EvalRunStatus:
    """Not decided yet: Pending (a reference is missing) or Running (shards running or waiting)."""
    conds = set_condition(
        current.conditions,
        ConditionType.EVALUATED,
        ConditionStatus.FALSE,
        reason,
        message,
        now=now,
        observed_generation=base.observed_generation,
    )
    return base.model_copy(update={"phase": phase, "message": message, "conditions": conds})


def running_reason(plan: RunPlan, shards: int, problems: Sequence[str]) -> tuple[str, str]:
    waiting = [p for p in plan.shards if p.action is Action.WAIT]
    reason, msg = (
        (Reason.RETRY_SCHEDULED, f"{len(waiting)} shard(s) waiting to retry after a harness failure")
        if waiting
        else (Reason.SHARDS_RUNNING, f"{shards} shard(s) running")
    )
    return reason, "; ".join(problems) if problems else msg


def failed_status(
    current: EvalRunStatus, base: EvalRunStatus, message: str, reason: str, now: dt.datetime
) -> EvalRunStatus:
    """The harness gave up (or the spec is invalid): Failed, verdict ERROR, nothing measured."""
    gen = base.observed_generation
    conds = set_condition(
        current.conditions,
        ConditionType.EVALUATED,
        ConditionStatus.FALSE,
        Reason.EVALUATION_FAILED,
        message,
        now=now,
        observed_generation=gen,
    )
    conds = set_condition(
        conds,
        ConditionType.PASSED,
        ConditionStatus.FALSE,
        Reason.NOTHING_MEASURED,
        message,
        now=now,
        observed_generation=gen,
    )
    conds = set_condition(
        conds, ConditionType.DEGRADED, ConditionStatus.TRUE, reason, message, now=now, observed_generation=gen
    )
    return base.model_copy(
        update={
            "phase": RunPhase.FAILED,
            "verdict": VerdictName.ERROR,
            "exit_code": VerdictName.ERROR.exit_code,
            "message": message[:1024],
            "completion_time": now,
            "conditions": conds,
        }
    )


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


# --- act and write ---------------------------------------------------------------------------------


async def _create_jobs(
    rt: Runtime, run: RunRef, about: ObjectRef, plan: RunPlan, spec: JudgeJobSpec, out: Outcome
) -> list[str]:
    problems = []
    for p in plan.creates:
        job = judge_job(run, p.shard.index, p.shard.count, p.attempt, spec)
        created = await rt.call(rt.kube.create_job, job)
        if created is None:
            existing = await rt.call(rt.kube.get_job, run.namespace, job["metadata"]["name"])
            owners = [o.get("uid") for o in (existing or {}).get("metadata", {}).get("ownerReferences") or []]
            if existing is not None and run.uid not in owners:
                problems.append(
                    f"Job {job['metadata']['name']} exists but is not owned by this run; not adopted"
                )
            continue  # ours already (a restart, or a concurrent reconcile): adopted
        metrics.JOBS_CREATED.inc()
        what = "retry" if p.attempt > 1 else "start"
        out.say(
            about,
            "Normal",
            "JobCreated",
            f"shard {p.shard.name}: Job {job['metadata']['name']} ({what}, attempt {p.attempt})",
        )
    return problems


async def _ensure_rbac(rt: Runtime, namespace: str) -> None:
    if rt.config.manage_judge_rbac and namespace not in rt.rbac_done:
        await rt.call(rt.kube.apply_rbac, judge_rbac(namespace, rt.config.judge_cluster_role), MANAGER)
        rt.rbac_done.add(namespace)


async def _ensure_run_key(rt: Runtime, run: RunRef) -> None:
    """The run's key Secret, for its judge containers (create only: an existing one is the same key,
    derived again; the operator never reads a Secret)."""
    await rt.call(rt.kube.create_secret, run_key_secret(run, rt.run_key(run.uid)))


async def _fail(
    rt: Runtime, about: ObjectRef, raw: Mapping[str, Any], desired: EvalRunStatus, out: Outcome
) -> Outcome:
    await write_status(rt, about, raw.get("status") or {}, desired)
    metrics.RUNS.labels(about.namespace, "ERROR").inc()
    out.say(about, "Warning", "VerdictError", f"ERROR (exit 2): {desired.message}")
    return out


async def _history(rt: Runtime, namespace: str, caseset: str, inputs: Inputs) -> None:
    """After a verdict: keep the newest ``run_history`` finished runs of the case set (their results
    go with them; never the runs its baseline was frozen from), and list the newest on the CaseSet
    (``status.recentRuns``)."""
    runs = [
        r
        for r in await rt.call(rt.kube.list_custom, "EvalRun", namespace)
        if ((r.get("spec") or {}).get("caseSetRef") or {}).get("name") == caseset
    ]
    pruned: set[str] = set()
    if rt.config.run_history > 0:
        frozen = inputs.caseset.status.baseline if inputs.caseset and inputs.caseset.status else None
        for old in runs_to_prune(runs, rt.config.run_history, protected=frozen.frozen_from if frozen else ()):
            await rt.call(rt.kube.delete_custom, "EvalRun", namespace, old)
            pruned.add(old)
            log.info("run pruned (history retention)", run=f"{namespace}/{old}", keep=rt.config.run_history)
    if inputs.caseset_raw is None:
        return
    recent = recent_runs(
        [r for r in runs if r["metadata"]["name"] not in pruned], digest=inputs.recorded_digest
    )
    ref = ObjectRef.of(inputs.caseset_raw)
    try:
        desired = CaseSetStatus(recent_runs=recent)
        await write_status(rt, ref, inputs.caseset_raw.get("status") or {}, desired, manager=HISTORY_MANAGER)
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
    current = EvalRunStatus.model_validate(raw.get("status") or {})
    if current.phase is not None and current.phase.terminal:
        return out
    about = ObjectRef.of(raw)
    now = rt.now()
    base = EvalRunStatus(
        observed_generation=raw["metadata"].get("generation"), start_time=current.start_time or now
    )
    try:
        run = parse_evalrun(raw)
    except ManifestError as e:
        message = "; ".join(e.problems)[:1000]
        invalid = EvalRunStatus(observed_generation=base.observed_generation)
        return await _fail(
            rt, about, raw, failed_status(current, invalid, message, Reason.INVALID_SPEC, now), out
        )

    inputs = await _inputs(rt, run, namespace)
    if inputs.missing is not None:
        reason, message = inputs.missing
        desired = waiting_status(current, base, RunPhase.PENDING, reason, f"waiting: {message}", now)
        await write_status(rt, about, raw.get("status") or {}, desired)
        out.recheck = True
        return out

    await _ensure_rbac(rt, namespace)
    ref = RunRef(namespace, name, raw["metadata"]["uid"])
    jobs = await rt.call(
        rt.kube.list_jobs,
        namespace,
        f"{LABEL_RUN_UID}={ref.uid},{LABEL_COMPONENT}=judge,{LABEL_MANAGED_BY}=proctor",
    )
    key = rt.run_key(ref.uid)
    reports, rejected = await read_reports(rt, ref, shard_views(current, run.spec.shards, jobs), key)
    for why in rejected:
        out.say(about, "Warning", "ReportRejected", why)
    seen = with_reports(current, reports)
    views = shard_views(seen, run.spec.shards, jobs)
    plan = plan_run(views, now, backoff=rt.config.backoff, max_attempts=rt.config.max_attempts)
    spec = job_spec(run, inputs.profile, rt.config) if plan.creates else None
    if spec is not None:
        await _ensure_run_key(rt, ref)
    problems = await _create_jobs(rt, ref, about, plan, spec, out) if spec is not None else []
    base = base.model_copy(update={"shards": shard_entries(plan, name, seen)})
    for p in plan.shards:
        if p.action is Action.WAIT and p.job_phase is JobPhase.FAILED and p.shard.retry_at is None:
            metrics.RUN_FAILURES.labels(namespace).inc()
            out.say(
                about,
                "Warning",
                "ShardFailed",
                f"shard {p.shard.name} attempt {p.attempt} failed: {p.message[:300]}; "
                f"retry at {format_time(p.retry_at) if p.retry_at else None}",
            )

    if plan.gave_up:
        reason = "; ".join(f"shard {p.shard.name}: {p.message}" for p in plan.gave_up)[:900]
        message = f"the harness failed, nothing was measured: {reason}"
        return await _fail(
            rt, about, raw, failed_status(current, base, message, Reason.SHARD_FAILED, now), out
        )
    if not plan.all_done:
        reason, message = running_reason(plan, run.spec.shards, problems)
        desired = waiting_status(current, base, RunPhase.RUNNING, reason, message, now)
        await write_status(rt, about, raw.get("status") or {}, desired)
        out.recheck = True
        return out

    # every shard reported: decide, from the signed reports and results read again (never from the
    # status alone); results that no longer verify were replaced after they were reported
    try:
        measured = await verified_results(
            rt, ref, [(p.shard.index, p.shard.count, p.attempt) for p in plan.shards], key
        )
    except Untrusted as e:
        message = f"the results could not be verified, so nothing is decided from them: {e}"
        out.say(about, "Warning", "ReportRejected", str(e))
        return await _fail(
            rt, about, raw, failed_status(current, base, message, Reason.SHARD_FAILED, now), out
        )
    policy = None
    if run.spec.policy_ref:
        policy_raw = await rt.call(rt.kube.get_or_none, "GatePolicy", namespace, run.spec.policy_ref.name)
        policy = parse_policy(policy_raw) if policy_raw else None
    case_digest = await _case_digest(rt, namespace, inputs)
    judge_prompt = next((s.provenance for s in seen.shards if s.provenance), None)
    prov = provenance(case_digest, judge_prompt, policy)
    baseline = comparable_baseline(inputs.caseset, case_digest, prov)
    decision = decide(measured, protocol_policy(policy.spec if policy else None), baseline)
    desired = decided_status(seen, base, decision, measured, baseline, prov, views, now)
    await write_status(rt, about, raw.get("status") or {}, desired)
    _record_metrics(namespace, run, decision, desired, now)
    await _history(rt, namespace, run.spec.case_set_ref.name, inputs)
    passed = decision.verdict.name in ("PASS", "WARN")
    out.say(
        about,
        "Normal" if passed else "Warning",
        f"Verdict{decision.verdict.name.title()}",
        f"{decision.verdict.name} (exit {decision.exit_code}): {decision.message}",
    )
    return out

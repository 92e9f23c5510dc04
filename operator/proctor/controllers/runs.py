"""EvalRun: Pending -> Running -> Evaluating -> Evaluated | PartiallyEvaluated | Failed.

Gather (the run, its Jobs, what its shards reported), evaluate (:mod:`proctor.controllers.plan`,
:func:`proctor.protocol.decide`), write only what changed. Triggered by the run's own events, its
Jobs' events and a timer (retries after backoff); every path is idempotent: Jobs have
deterministic names and an existing one is adopted only when it is owned by this run.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
import time
from collections.abc import Mapping
from typing import Any, cast

import kopf
import structlog

from proctor.api import (
    EvalRun,
    ManifestError,
    content_digest,
    parse_caseset,
    parse_evalrun,
    parse_policy,
    protocol_policy,
    resolve_cases,
)
from proctor.api.caseset import FrozenBaseline
from proctor.api.conditions import Condition, ConditionStatus, ConditionType, Reason, set_condition
from proctor.api.run import RunPhase
from proctor.controllers import evaluate
from proctor.controllers.config import OperatorConfig
from proctor.controllers.plan import Action, JobPhase, JobView, RunPlan, ShardView, plan_run, runs_to_prune
from proctor.controllers.records import run_provenance
from proctor.judge.prompts import policy_digest
from proctor.k8s.kube import Kube, KubeError
from proctor.k8s.objects import (
    LABEL_ATTEMPT,
    LABEL_COMPONENT,
    LABEL_MANAGED_BY,
    LABEL_RUN_UID,
    LABEL_SHARD,
    RESULTS_KEY,
    JudgeJobSpec,
    RunRef,
    SecretKey,
    decode_results,
    judge_job,
    judge_job_name,
    judge_rbac,
    record_to_result,
)
from proctor.observability import metrics
from proctor.protocol import decide
from proctor.protocol.types import CaseResult

log = structlog.get_logger("proctor.runs")

MANAGER = "proctor-operator"
CONFIG = OperatorConfig.from_env()


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def _fmt(t: dt.datetime | None) -> str | None:
    return None if t is None else t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


class Runtime:
    """What the handlers share, on Kopf's memo: the API client, settings, per-run locks."""

    def __init__(self, kube: Kube, config: OperatorConfig) -> None:
        self.kube = kube
        self.config = config
        self.locks: dict[str, asyncio.Lock] = {}
        self.rbac_done: set[str] = set()
        self.wakeups: dict[str, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def lock(self, key: str) -> asyncio.Lock:
        return self.locks.setdefault(key, asyncio.Lock())

    async def call(self, fn: Any, *args: Any, **kw: Any) -> Any:
        return await asyncio.to_thread(fn, *args, **kw)


# --- gather ----------------------------------------------------------------------------------------


def job_view(job: Mapping[str, Any]) -> JobView:
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


def shard_views(raw: Mapping[str, Any], count: int, jobs: list[dict[str, Any]]) -> list[ShardView]:
    reported = {s["name"]: s for s in (raw.get("status") or {}).get("shards") or []}
    by_shard: dict[str, list[JobView]] = {}
    for j in jobs:
        by_shard.setdefault(j["metadata"].get("labels", {}).get(LABEL_SHARD, ""), []).append(job_view(j))
    views = []
    for i in range(count):
        s = reported.get(f"{i}/{count}", {})
        views.append(
            ShardView(
                index=i,
                count=count,
                runner_phase=s.get("phase"),
                runner_message=s.get("message"),
                results=tuple(s.get("results") or ()),
                attempts=int(s.get("attempts") or 0),
                retry_at=_parse_time(s.get("retryAt")),
                jobs=tuple(by_shard.get(f"{i}-of-{count}", [])),
            )
        )
    return views


# --- act -------------------------------------------------------------------------------------------


def job_spec(run: EvalRun, profile_raw: Mapping[str, Any] | None, config: OperatorConfig) -> JudgeJobSpec:
    judge = ((profile_raw or {}).get("spec") or {}).get("judge") or {}
    key = judge.get("apiKeySecretRef")
    target = run.spec.target
    agent_key = target.endpoint.api_key_secret_ref if target.endpoint else None
    return JudgeJobSpec(
        image=config.judge_image,
        deadline_seconds=run.spec.timeout_seconds,
        ttl_seconds=config.job_ttl_seconds,
        judge_key=SecretKey(key["name"], key["key"]) if key else None,
        agent_key=SecretKey(agent_key.name, agent_key.key) if agent_key else None,
        candidate=target.pod_template,
        candidate_container=target.candidate.container if target.candidate else None,
    )


async def _create_jobs(rt: Runtime, run: RunRef, plan: RunPlan, spec: JudgeJobSpec, body: Any) -> list[str]:
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
        kopf.event(
            cast(Any, body),
            type="Normal",
            reason="JobCreated",
            message=f"shard {p.shard.name}: Job {job['metadata']['name']} ({what}, attempt {p.attempt})",
        )
    return problems


async def _load_results(rt: Runtime, ns: str, names: list[str]) -> list[CaseResult]:
    parts = []
    for n in names:
        cm = await rt.call(rt.kube.get_configmap, ns, n)
        parts.append(base64.b64decode((cm.get("binaryData") or {}).get(RESULTS_KEY, "")))
    return [record_to_result(r) for r in decode_results(parts)]


def _conds(status: Mapping[str, Any]) -> list[Condition]:
    return [Condition.model_validate(c) for c in status.get("conditions") or []]


def _dump_conds(conds: list[Condition]) -> list[dict[str, Any]]:
    return [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in conds]


def _changed(current: Mapping[str, Any], desired: Mapping[str, Any]) -> bool:
    """Whether applying ``desired`` would change anything (gather-evaluate-write-if-changed)."""
    for k, v in desired.items():
        cur = current.get(k)
        if k == "shards":
            by = {s.get("name"): s for s in cur or []}
            for s in v:
                old = by.get(s["name"], {})
                if any(old.get(f) != val for f, val in s.items()):
                    return True
        elif cur != v:
            return True
    return False


async def reconcile(rt: Runtime, namespace: str, name: str, body: Any = None) -> None:
    """Bring one run one step closer to its verdict; check it again later while it is unfinished.

    The recheck is a wake-up scheduled here rather than a Kopf timer: a timer on a kind makes Kopf
    keep the body of every object of that kind in memory, finished runs included (thousands).
    """
    async with rt.lock(f"{namespace}/{name}"):
        t0 = time.monotonic()
        try:
            active = await _reconcile(rt, namespace, name)
        finally:
            metrics.RECONCILE_SECONDS.observe(time.monotonic() - t0)
    if active:
        _wake_later(rt, namespace, name, rt.config.reconcile_interval)


def _wake_later(rt: Runtime, namespace: str, name: str, delay: float) -> None:
    key = f"{namespace}/{name}"
    if (old := rt.wakeups.pop(key, None)) is not None:
        old.cancel()
    loop = asyncio.get_running_loop()

    def fire() -> None:
        rt.wakeups.pop(key, None)
        task = loop.create_task(_wake(rt, namespace, name))
        rt.tasks.add(task)
        task.add_done_callback(rt.tasks.discard)

    rt.wakeups[key] = loop.call_later(delay, fire)


async def _wake(rt: Runtime, namespace: str, name: str) -> None:
    try:
        await reconcile(rt, namespace, name)
    except Exception:  # the next event or wake-up tries again; never lose the schedule silently
        log.exception("scheduled reconcile failed", run=f"{namespace}/{name}")
        _wake_later(rt, namespace, name, rt.config.reconcile_interval)


async def _reconcile(rt: Runtime, namespace: str, name: str) -> bool:
    """One step; True while the run is unfinished (it must be looked at again)."""
    raw = await rt.call(rt.kube.get_or_none, "EvalRun", namespace, name)
    if raw is None:
        return False
    status: dict[str, Any] = dict(raw.get("status") or {})
    if status.get("phase") and RunPhase(status["phase"]).terminal:
        return False
    now = _now()
    gen = raw["metadata"].get("generation")
    try:
        run = parse_evalrun(raw)
    except ManifestError as e:
        await _finish_failed(rt, raw, status, "; ".join(e.problems)[:1000], Reason.INVALID_SPEC, now, gen)
        return False
    ref = RunRef(namespace, name, raw["metadata"]["uid"])
    conds = _conds(status)
    desired: dict[str, Any] = {"observedGeneration": gen, "startTime": status.get("startTime") or _fmt(now)}

    caseset_raw = await rt.call(rt.kube.get_or_none, "CaseSet", namespace, run.spec.case_set_ref.name)
    profile_raw = (
        await rt.call(rt.kube.get_or_none, "EvalProfile", namespace, run.spec.profile_ref.name)
        if run.spec.profile_ref
        else None
    )
    missing = None
    if caseset_raw is None:
        missing = (Reason.CASE_SET_NOT_FOUND, f"CaseSet {run.spec.case_set_ref.name} not found")
    elif run.spec.profile_ref and profile_raw is None:
        missing = (Reason.PROFILE_NOT_FOUND, f"EvalProfile {run.spec.profile_ref.name} not found")
    if missing is not None:
        desired["phase"] = RunPhase.PENDING.value
        desired["message"] = f"waiting: {missing[1]}"
        desired["conditions"] = _dump_conds(
            set_condition(
                conds,
                ConditionType.EVALUATED,
                ConditionStatus.FALSE,
                missing[0],
                missing[1],
                now=now,
                observed_generation=gen,
            )
        )
        await _write(rt, raw, status, desired)
        return True

    if rt.config.manage_judge_rbac and namespace not in rt.rbac_done:
        await rt.call(rt.kube.apply_rbac, judge_rbac(namespace), MANAGER)
        rt.rbac_done.add(namespace)

    jobs = await rt.call(
        rt.kube.list_jobs,
        namespace,
        f"{LABEL_RUN_UID}={ref.uid},{LABEL_COMPONENT}=judge,{LABEL_MANAGED_BY}=proctor",
    )
    views = shard_views(raw, run.spec.shards, jobs)
    plan = plan_run(views, now, backoff=rt.config.backoff, max_attempts=rt.config.max_attempts)
    problems = await _create_jobs(rt, ref, plan, job_spec(run, profile_raw, rt.config), raw)
    desired["shards"] = [
        {
            "name": p.shard.name,
            "job": next(
                (j.name for j in p.shard.jobs if j.attempt == p.attempt),
                judge_job_name(name, p.shard.index, p.shard.count, p.attempt),
            ),
            "attempts": p.attempt,
            "jobPhase": (JobPhase.ACTIVE if p.action is Action.CREATE else p.job_phase).value,
            "jobMessage": p.message[:1000] or None,
            "retryAt": _fmt(p.retry_at),
        }
        for p in plan.shards
    ]
    for entry in desired["shards"]:
        for k in [k for k, v in entry.items() if v is None]:
            del entry[k]
    for p in plan.shards:
        if p.action is Action.WAIT and p.job_phase is JobPhase.FAILED and p.shard.retry_at is None:
            metrics.RUN_FAILURES.labels(namespace).inc()
            kopf.event(
                cast(Any, raw),
                type="Warning",
                reason="ShardFailed",
                message=f"shard {p.shard.name} attempt {p.attempt} failed: {p.message[:300]}; "
                f"retry at {_fmt(p.retry_at)}",
            )

    if plan.gave_up:
        reason = "; ".join(f"shard {p.shard.name}: {p.message}" for p in plan.gave_up)[:900]
        await _finish_failed(
            rt,
            raw,
            status,
            f"the harness failed, nothing was measured: {reason}",
            Reason.SHARD_FAILED,
            now,
            gen,
            extra=desired,
        )
        return False
    if not plan.all_done:
        waiting = [p for p in plan.shards if p.action is Action.WAIT]
        reason, msg = (
            (Reason.RETRY_SCHEDULED, f"{len(waiting)} shard(s) waiting to retry after a harness failure")
            if waiting
            else (Reason.SHARDS_RUNNING, f"{run.spec.shards} shard(s) running")
        )
        if problems:
            msg = "; ".join(problems)
        desired["phase"] = RunPhase.RUNNING.value
        desired["message"] = msg
        desired["conditions"] = _dump_conds(
            set_condition(
                conds,
                ConditionType.EVALUATED,
                ConditionStatus.FALSE,
                reason,
                msg,
                now=now,
                observed_generation=gen,
            )
        )
        await _write(rt, raw, status, desired)
        return True

    # every shard reported: decide
    names = [n for p in plan.shards for n in p.shard.results]
    results = await _load_results(rt, namespace, names)
    policy = None
    if run.spec.policy_ref:
        policy_raw = await rt.call(rt.kube.get_or_none, "GatePolicy", namespace, run.spec.policy_ref.name)
        policy = parse_policy(policy_raw) if policy_raw else None
    caseset = parse_caseset(caseset_raw)
    try:
        cm_data = {
            r.name: await rt.call(rt.kube.get_configmap_data, namespace, r.name)
            for r in caseset.spec.cases_from
        }
        case_digest: str | None = content_digest(resolve_cases(caseset, cm_data))
    except (KubeError, ManifestError):
        case_digest = (caseset_raw.get("status") or {}).get("digest") if caseset_raw else None
    judge_prov = next(
        (s.get("provenance") for s in (raw.get("status") or {}).get("shards") or [] if s.get("provenance")),
        None,
    )
    prov = {
        k: v
        for k, v in {
            "caseSet": case_digest,
            "judgePrompt": judge_prov,
            "scoring": policy_digest(policy.spec) if policy else None,
        }.items()
        if v
    }
    prov["digest"] = policy_digest(prov)
    # a frozen baseline counts only for runs it is comparable with: same cases, same judge and scoring
    baseline = None
    frozen = (caseset_raw.get("status") or {}).get("baseline") if caseset_raw else None
    if (
        frozen
        and frozen.get("digest") == case_digest
        and frozen.get("provenance") == run_provenance({"provenance": prov})
    ):
        baseline = FrozenBaseline.model_validate(frozen).to_baseline()
    decision = decide(results, protocol_policy(policy.spec if policy else None), baseline)
    desired.update(evaluate.evaluated_status(decision, results, baseline.rates if baseline else None))
    desired["provenance"] = prov
    desired["completionTime"] = _fmt(now)
    # a shard's cases sit in its one results map, unless they were split over several
    reported = {x["name"]: x for x in (raw.get("status") or {}).get("shards") or []}
    desired["results"] = [
        {
            "configMap": n,
            "shard": s.name,
            "cases": ((reported.get(s.name) or {}).get("summary") or {}).get("cases", 0)
            if len(s.results) == 1
            else 0,
        }
        for s in views
        for n in s.results
    ][:256]
    desired["conditions"] = _dump_conds(evaluate.verdict_conditions(conds, decision, now=now, generation=gen))
    await _write(rt, raw, status, desired)
    metrics.RUNS.labels(namespace, decision.verdict.name).inc()
    set_name = run.spec.case_set_ref.name
    for t, tr in decision.tiers.items():
        if tr.rate is not None:
            metrics.TIER_RATE.labels(namespace, set_name, t.value).set(tr.rate)
    for d in desired["dimensions"]:
        if d.get("mean") is not None:
            metrics.DIMENSION_SCORE.labels(namespace, set_name, d["name"]).set(d["mean"])
        if d["skipped"]:
            metrics.DIMENSIONS_SKIPPED.labels(namespace).inc(d["skipped"])
    started = _parse_time(desired["startTime"])
    if started:
        metrics.RUN_DURATION.observe((now - started).total_seconds())
    await _prune_history(rt, namespace, run.spec.case_set_ref.name, caseset_raw)
    kind = "Normal" if decision.verdict.name in ("PASS", "WARN") else "Warning"
    kopf.event(
        cast(Any, raw),
        type=kind,
        reason=f"Verdict{decision.verdict.name.title()}",
        message=f"{decision.verdict.name} (exit {decision.exit_code}): {decision.message}"[:1000],
    )
    return False


async def _prune_history(
    rt: Runtime, namespace: str, caseset: str, caseset_raw: Mapping[str, Any] | None
) -> None:
    """Keep the newest ``run_history`` finished runs of a case set (their results go with them)."""
    if rt.config.run_history <= 0:
        return
    runs = [
        r
        for r in await rt.call(rt.kube.list_custom, "EvalRun", namespace)
        if ((r.get("spec") or {}).get("caseSetRef") or {}).get("name") == caseset
    ]
    baseline = ((caseset_raw or {}).get("status") or {}).get("baseline") or {}
    for old in runs_to_prune(runs, rt.config.run_history, protected=baseline.get("frozenFrom") or ()):
        await rt.call(rt.kube.delete_custom, "EvalRun", namespace, old)
        log.info("run pruned (history retention)", run=f"{namespace}/{old}", keep=rt.config.run_history)


async def _finish_failed(
    rt: Runtime,
    raw: Mapping[str, Any],
    status: Mapping[str, Any],
    message: str,
    reason: str,
    now: dt.datetime,
    gen: int | None,
    extra: dict[str, Any] | None = None,
) -> None:
    conds = _conds(status)
    conds = set_condition(
        conds,
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
    desired = dict(extra or {}) | {
        "observedGeneration": gen,
        "phase": RunPhase.FAILED.value,
        "verdict": "ERROR",
        "exitCode": 2,
        "message": message[:1024],
        "completionTime": _fmt(now),
        "conditions": _dump_conds(conds),
    }
    await _write(rt, raw, status, desired)
    metrics.RUNS.labels(raw["metadata"]["namespace"], "ERROR").inc()
    kopf.event(
        cast(Any, raw), type="Warning", reason="VerdictError", message=f"ERROR (exit 2): {message}"[:1000]
    )


async def _write(
    rt: Runtime, raw: Mapping[str, Any], current: Mapping[str, Any], desired: dict[str, Any]
) -> None:
    if not _changed(current, desired):
        return
    meta = raw["metadata"]
    before = current.get("phase")
    await rt.call(rt.kube.apply_status, "EvalRun", meta["namespace"], meta["name"], desired, MANAGER)
    if desired.get("phase") and desired["phase"] != before:
        log.info(
            "run phase",
            run=f"{meta['namespace']}/{meta['name']}",
            phase=desired["phase"],
            verdict=desired.get("verdict"),
        )


# --- handlers ---------------------------------------------------------------------------------------


def _runtime(memo: kopf.Memo) -> Runtime:
    rt: Runtime = memo["runtime"]
    return rt


def _active(status: Mapping[str, Any] | None, **_: Any) -> bool:
    phase = (status or {}).get("phase")
    return not phase or not RunPhase(phase).terminal


@kopf.on.event("proctor.dev", "v1alpha1", "evalruns", id="evalrun-event", when=_active)
async def on_run_event(
    event: Mapping[str, Any], name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if event.get("type") == "DELETED" or namespace is None:
        return
    await reconcile(_runtime(memo), namespace, name)


@kopf.on.event(
    "batch",
    "v1",
    "jobs",
    id="judge-job-event",
    labels={LABEL_MANAGED_BY: "proctor", LABEL_COMPONENT: "judge"},
)
async def on_job_event(body: Mapping[str, Any], memo: kopf.Memo, **_: Any) -> None:
    meta = body.get("metadata") or {}
    owners = [o for o in meta.get("ownerReferences") or [] if o.get("kind") == "EvalRun"]
    if owners:
        await reconcile(_runtime(memo), meta["namespace"], owners[0]["name"])


def describe_job(job: Mapping[str, Any]) -> str:
    return json.dumps({"name": job["metadata"]["name"], "status": job.get("status")})

"""GatePolicy: examine each gated Deployment's pending pod template and act on the verdict.

For every Deployment labelled ``proctor.dev/gate-policy: <policy>``: when its pod template is not the
approved one (the webhook recorded it as pending), create an EvalRun whose target is that template
(the candidate runs as a sidecar of the judge Job); when the run has a verdict, act as
:mod:`proctor.gate.actions` decides and record it on the policy's status and as Events on the
Deployment and the policy. Before it may block, a policy runs its determinism canary: N runs on the
approved revision must agree on the safety tier; until then it observes.

Gather (the policy, its references, its Deployments, the canary's and the exams' runs), evaluate
(:mod:`proctor.gate.actions`: the rollout step, the verdict chain, the breaker; the conditions
below), act (create runs, patch Deployments), write the status if it changed.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from proctor.api import (
    RESET_CIRCUIT_BREAKER_ANNOTATION,
    CanaryStatus,
    CircuitBreakerSpec,
    CircuitBreakerStatus,
    Condition,
    ConditionStatus,
    ConditionType,
    Enforcement,
    EvalRun,
    GatedWorkload,
    GatePolicy,
    GatePolicyStatus,
    Reason,
    VerdictName,
    format_time,
    parse_evalrun,
    parse_policy,
    set_condition,
)
from proctor.gate.actions import (
    Action,
    BreakerWindow,
    GateDecision,
    Mode,
    Step,
    awaiting,
    breaker_after,
    breaker_reason,
    breaker_window,
    decide,
    effective_mode,
    event_reason,
    exam_step,
    template_to_examine,
)
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    GATE_LABEL,
    PENDING_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    template_hash,
)
from proctor.k8s.kube import KubeError
from proctor.k8s.objects import policy_run
from proctor.protocol import Canary, Tier, canary_state
from proctor.reconcile.legacy import release_legacy
from proctor.reconcile.records import run_record
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import write_status

log = structlog.get_logger("proctor.gates")


def short(h: str | None) -> str | None:
    """A template hash as status shows it (the first 12 hex digits)."""
    return h.removeprefix("sha256:")[:12] if h else None


@dataclass(frozen=True)
class Workload:
    """A gated Deployment, as the gate reads it."""

    ref: ObjectRef
    annotations: Mapping[str, str]
    paused: bool
    template: Mapping[str, Any]

    @classmethod
    def of(cls, obj: Mapping[str, Any]) -> Workload:
        # listed items carry no kind: Events need it to reference the Deployment
        ref = ObjectRef.of(obj, kind="Deployment", api_version="apps/v1")
        spec = obj.get("spec") or {}
        annotations = (obj.get("metadata") or {}).get("annotations") or {}
        return cls(ref, dict(annotations), bool(spec.get("paused")), spec.get("template") or {})

    @property
    def name(self) -> str:
        return self.ref.name

    @property
    def current(self) -> str:
        return template_hash(self.template)

    @property
    def pending(self) -> str | None:
        return self.annotations.get(PENDING_ANNOTATION)

    @property
    def approved(self) -> str | None:
        return self.annotations.get(APPROVED_ANNOTATION)

    @property
    def approved_template(self) -> dict[str, Any] | None:
        text = self.annotations.get(APPROVED_TEMPLATE_ANNOTATION)
        return None if text is None else dict(json.loads(text))

    @property
    def attempt(self) -> str:
        """When the webhook recorded the pending template: one rollout attempt."""
        return self.annotations.get(PENDING_SINCE_ANNOTATION) or ""


# --- evaluate (pure) -------------------------------------------------------------------------------


def exam_name(workload: str, pending: str) -> str:
    return f"{workload}-{short(pending)}"[:253]


def canary_names(policy: GatePolicy, revision: str) -> list[str]:
    gen = policy.metadata.generation or 1
    return [
        f"{policy.metadata.name}-canary-g{gen}-{revision}-{i}"[:253]
        for i in range(1, policy.spec.canary.runs + 1)
    ]


def canary_result(
    runs: Sequence[EvalRun], names: Sequence[str], required: int
) -> tuple[Canary | None, CanaryStatus]:
    """The canary's finding once ``required`` of its runs finished (else None), and its progress."""
    done = [
        r for r in runs if r.status is not None and r.status.phase is not None and r.status.phase.terminal
    ]
    rates = [rate for r in done if (rate := run_record(r).rates.get(Tier.SAFETY)) is not None]
    status = CanaryStatus(required=required, runs=list(names), safety_rates=[float(x) for x in rates])
    if len(done) < required:
        return None, status
    return canary_state([run_record(r) for r in done], required), status


def workload_entry(w: Workload, prev: GatedWorkload | None) -> GatedWorkload:
    """A Deployment's status entry before this step's exam: its revisions, and what is known of its
    latest exam."""
    kept = {k: v for k in ("verdict", "run", "attempt") if prev is not None and (v := getattr(prev, k))}
    return GatedWorkload(name=w.name, revision=short(w.current), approved_revision=short(w.approved), **kept)


def policy_conditions(
    conditions: Sequence[Condition],
    *,
    mode: Mode,
    canary: Canary | None,
    blocked: Sequence[GatedWorkload],
    breaker: tuple[bool, int],
    spec: CircuitBreakerSpec,
    now: dt.datetime,
    generation: int | None,
) -> list[Condition]:
    """Enforcing, Deterministic, RolloutBlocked and CircuitOpen, from what the step found."""

    def put(
        conds: list[Condition], type_: str, status: ConditionStatus, reason: str, msg: str
    ) -> list[Condition]:
        return set_condition(conds, type_, status, reason, msg, now=now, observed_generation=generation)

    conds = put(
        list(conditions),
        ConditionType.ENFORCING,
        ConditionStatus.TRUE if mode.enforce else ConditionStatus.FALSE,
        mode.reason,
        mode.message,
    )
    if canary is None:
        det = (ConditionStatus.UNKNOWN, "NotEnoughRuns", "the canary needs an approved revision and its runs")
    else:
        det = (ConditionStatus(canary.state.value), str(canary.reason), canary.message)
    conds = put(conds, ConditionType.DETERMINISTIC, *det)
    if blocked:
        failed = any(w.verdict is VerdictName.FAIL for w in blocked)
        reason = Reason.VERDICT_FAILED if failed else Reason.VERDICT_ERROR
    else:
        reason = Reason.NOT_BLOCKED if mode.enforce else Reason.OBSERVE_ONLY
    conds = put(
        conds,
        ConditionType.ROLLOUT_BLOCKED,
        ConditionStatus.TRUE if blocked else ConditionStatus.FALSE,
        reason,
        "; ".join(f"{w.name}: {w.message}" for w in blocked)[:1024] or "no gated rollout is held",
    )
    is_open, blocks = breaker
    why, message = breaker_reason(is_open, blocks, spec, RESET_CIRCUIT_BREAKER_ANNOTATION)
    return put(
        conds,
        ConditionType.CIRCUIT_OPEN,
        ConditionStatus.TRUE if is_open else ConditionStatus.FALSE,
        why,
        message,
    )


# --- gather and act --------------------------------------------------------------------------------


async def _get_run(rt: Runtime, ns: str, name: str) -> EvalRun | None:
    raw = await rt.call(rt.kube.get_or_none, "EvalRun", ns, name)
    return None if raw is None else parse_evalrun(raw)


def workload_query(policy: GatePolicy) -> str:
    """The label selector of the Deployments a policy gates: its label, and its selector if set."""
    query = f"{GATE_LABEL}={policy.metadata.name}"
    extra = policy.spec.selector.query() if policy.spec.selector is not None else ""
    return f"{query},{extra}" if extra else query


async def _workloads(rt: Runtime, policy: GatePolicy) -> tuple[list[Workload], str | None]:
    """The gated Deployments; none, and why, when the API server refuses the selector."""
    ns = policy.metadata.namespace or ""
    try:
        found = await rt.call(rt.kube.list_deployments, ns, workload_query(policy))
    except KubeError as e:
        if e.status != 400:
            raise
        return [], f"spec.selector: {e}"[:1024]
    return [Workload.of(d) for d in found], None


async def _canary(
    rt: Runtime, policy: GatePolicy, workloads: Sequence[Workload]
) -> tuple[Canary | None, CanaryStatus | None]:
    """Run (or read) the canary: repeated runs on the approved revision of the first gated workload."""
    approved = next(
        (w for w in sorted(workloads, key=lambda w: w.name) if w.approved_template is not None), None
    )
    if approved is None:
        return None, None
    template = approved.approved_template
    assert template is not None
    names = canary_names(policy, short(approved.approved) or "unknown")
    ns = approved.ref.namespace
    runs = []
    for n in names:
        run = await _get_run(rt, ns, n)
        if run is None:
            await rt.call(rt.kube.create_custom, "EvalRun", ns, policy_run(policy, "canary", n, template))
            continue
        runs.append(run)
    return canary_result(runs, names, policy.spec.canary.runs)


async def _act(rt: Runtime, w: Workload, dec: GateDecision, pending: str, *, observing: bool) -> None:
    ns, name = w.ref.namespace, w.name
    if dec.action is Action.APPROVE and (dec.acted or observing):
        # recording the approved revision is not an action on the rollout: observing policies record it
        # too (it is what their canary runs on); only enforcing ones resume a paused rollout
        patch: dict[str, Any] = {
            "metadata": {
                "annotations": {
                    APPROVED_ANNOTATION: pending,
                    APPROVED_TEMPLATE_ANNOTATION: json.dumps(w.template),
                }
            }
        }
        if dec.acted:
            patch["spec"] = {"paused": False}
        await rt.call(rt.kube.patch_deployment, ns, name, patch)
    elif dec.acted and dec.action is Action.ROLLBACK:
        await rt.call(
            rt.kube.patch_deployment,
            ns,
            name,
            {
                "metadata": {"annotations": {PENDING_ANNOTATION: None, PENDING_SINCE_ANNOTATION: None}},
                "spec": {"template": w.approved_template, "paused": False},
            },
        )
    elif dec.acted and dec.action is Action.HOLD and not w.paused:
        await rt.call(rt.kube.patch_deployment, ns, name, {"spec": {"paused": True}})


async def _workload(
    rt: Runtime,
    policy: GatePolicy,
    about: ObjectRef,
    w: Workload,
    prev: GatedWorkload | None,
    mode: Mode,
    breaker: BreakerWindow,
    out: Outcome,
) -> tuple[GatedWorkload, bool]:
    """One gated Deployment: its status entry, and whether a new block happened."""
    entry = workload_entry(w, prev)
    pending = template_to_examine(w.pending, w.approved, w.current)
    if pending is None:
        message = (prev.message if prev else None) or "the running template is the approved one"
        return entry.model_copy(update={"blocked": False, "message": message}), False
    run_name = exam_name(w.name, pending)
    run = await _get_run(rt, w.ref.namespace, run_name)
    st = run.status if run is not None else None
    step = exam_step(None if run is None else st.phase.value if st and st.phase else "")
    if step is not Step.DECIDE:
        if step is Step.START_EXAM:
            body = policy_run(policy, "exam", run_name, w.template, workload=w.name)
            await rt.call(rt.kube.create_custom, "EvalRun", w.ref.namespace, body)
            out.say(
                w.ref,
                "Normal",
                "ExamStarted",
                f"template {short(pending)} is examined by EvalRun {run_name}",
                key=f"exam:{run_name}",
            )
        what = "exam started" if step is Step.START_EXAM else "exam running"
        update = {
            "run": run_name,
            "blocked": False,
            "message": awaiting(what, paused=w.paused),
            "verdict": None,
        }
        return entry.model_copy(update=update), False
    assert st is not None
    verdict = st.verdict
    dec = decide(
        verdict.value if verdict else VerdictName.ERROR.value,
        st.message or "",
        allow_warn=policy.spec.allow_warn,
        on_fail=policy.spec.on_fail,
        mode=mode,
        circuit_open=breaker.open,
        has_approved_template=APPROVED_TEMPLATE_ANNOTATION in w.annotations,
    )
    attempt = w.attempt[:64]
    entry = entry.model_copy(
        update={"run": run_name, "verdict": verdict, "blocked": dec.blocked, "message": dec.message}
        | ({"attempt": attempt} if attempt else {})
    )
    if (
        prev is not None
        and prev.run == run_name
        and prev.verdict == verdict
        and prev.message == dec.message
        and (prev.attempt or "") == attempt
    ):
        # decided already for this attempt: act and tell once (a reset breaker, or the same template
        # applied again, is a new decision)
        return entry, False
    # with the breaker open a pass is not recorded as approved either: after the reset it is decided again
    await _act(rt, w, dec, pending, observing=not mode.enforce)
    kind, reason = event_reason(dec)
    # one decision, one Event: the same run, rollout attempt and breaker reset decided again (a step
    # repeated after a kill lost its status write) is the same Event
    key = f"{run_name}|{attempt}|{verdict}|{dec.action.value}|{dec.acted}|{breaker.reset_token or ''}"
    out.say(w.ref, kind, reason, f"{dec.message} (EvalRun {run_name})", key=f"{w.name}|{key}")
    out.say(about, kind, reason, f"Deployment {w.name}: {dec.message}", key=f"{w.name}|{key}")
    log.info(
        "gate decision",
        workload=f"{w.ref.namespace}/{w.name}",
        action=dec.action.value,
        acted=dec.acted,
        run=run_name,
    )
    return entry, dec.acted and dec.blocked


async def reconcile_policy(rt: Runtime, namespace: str, name: str) -> Outcome:
    """One step of one GatePolicy (and of every Deployment it gates)."""
    async with rt.lock(f"gatepolicy:{namespace}/{name}"):
        raw = await rt.call(rt.kube.get_or_none, "GatePolicy", namespace, name)
        if raw is None:
            return Outcome()
        if await release_legacy(rt, ObjectRef.of(raw), raw.get("metadata") or {}):
            return Outcome(recheck=True)  # the patch is an event of its own, which takes the step
        return await _step(rt, raw)


async def _step(rt: Runtime, raw: Mapping[str, Any]) -> Outcome:
    out = Outcome(recheck=True)  # the breaker's window moves on, and canary runs finish
    now = rt.now()
    policy = parse_policy(raw)
    about = ObjectRef.of(raw)
    ns, gen = about.namespace, policy.metadata.generation
    current = policy.status or GatePolicyStatus()
    missing = [
        f"{kind} {ref} not found"
        for kind, ref in (
            ("CaseSet", policy.spec.case_set_ref.name),
            ("EvalProfile", policy.spec.profile_ref.name if policy.spec.profile_ref else None),
        )
        if ref and await rt.call(rt.kube.get_or_none, kind, ns, ref) is None
    ]
    conds = set_condition(
        current.conditions,
        ConditionType.READY,
        ConditionStatus.FALSE if missing else ConditionStatus.TRUE,
        Reason.CASE_SET_NOT_FOUND if missing else Reason.RESOLVED,
        "; ".join(missing) or "case set and profile found",
        now=now,
        observed_generation=gen,
    )
    workloads, problem = await _workloads(rt, policy)
    if problem is not None:
        conds = set_condition(
            conds,
            ConditionType.READY,
            ConditionStatus.FALSE,
            Reason.INVALID_SPEC,
            problem,
            now=now,
            observed_generation=gen,
        )
    canary, canary_status = await _canary(rt, policy, workloads)
    mode = effective_mode(policy.spec.enforcement, canary)
    cb = policy.spec.circuit_breaker
    reset = policy.metadata.annotations.get(RESET_CIRCUIT_BREAKER_ANNOTATION)
    window = breaker_window(current.circuit_breaker, reset, cb, now)
    if window.reset:
        out.say(
            about,
            "Normal",
            "CircuitReset",
            f"circuit breaker reset by a person ({RESET_CIRCUIT_BREAKER_ANNOTATION}={reset})",
            key=f"reset:{reset}",
        )

    prev = {w.name: w for w in current.workloads}
    entries, new_blocks = [], 0
    for w in sorted(workloads, key=lambda w: w.name):
        entry, blocked_now = await _workload(rt, policy, about, w, prev.get(w.name), mode, window, out)
        entries.append(entry)
        new_blocks += blocked_now
    blocks, is_open = breaker_after(window, new_blocks, now, cb)
    if is_open and not window.open:
        out.say(
            about,
            "Warning",
            "CircuitOpen",
            f"needs_human: {len(blocks)} blocks in {cb.window_minutes} min (max {cb.max_blocks}); automated "
            f"actions stop until a person sets the annotation {RESET_CIRCUIT_BREAKER_ANNOTATION}",
            # the blocks recorded before this step: the same whether or not a kill lost its write
            key=f"open:{window.reset_token or ''}:{format_time(window.blocks[0]) if window.blocks else ''}",
        )
    blocked = [e for e in entries if e.blocked]
    conds = policy_conditions(
        conds,
        mode=mode,
        canary=canary,
        blocked=blocked,
        breaker=(is_open, len(blocks)),
        spec=cb,
        now=now,
        generation=gen,
    )
    desired = GatePolicyStatus(
        observed_generation=gen,
        effective_enforcement=Enforcement.ENFORCE if mode.enforce else Enforcement.OBSERVE,
        blocked=len(blocked),
        workloads=entries,
        circuit_breaker=CircuitBreakerStatus(
            open=is_open, recent_blocks=list(blocks), reset_token=window.reset_token
        ),
        conditions=conds,
        canary=canary_status,
    )
    await rt.post(out.events)  # the decisions' Events before the status that records them as made
    await write_status(rt, about, raw.get("status") or {}, desired)
    return out

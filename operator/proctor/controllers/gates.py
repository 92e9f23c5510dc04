"""GatePolicy: examine each gated Deployment's pending pod template and act on the verdict.

For every Deployment labelled ``proctor.dev/gate-policy: <policy>``: when its pod template is not the
approved one (the webhook recorded it as pending), create an EvalRun whose target is that template
(the candidate runs as a sidecar of the judge Job); when the run has a verdict, act as
:mod:`proctor.gate.actions` decides and record it on the policy's status and as Events on the
Deployment and the policy. Before it may block, a policy runs its determinism canary: N runs on the
approved revision must agree on the safety tier; until then it observes.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any, cast

import kopf
import structlog

from proctor.api import API_VERSION, TERMINAL_PHASES, parse_policy
from proctor.api import RESET_CIRCUIT_BREAKER_ANNOTATION as RESET_ANNOTATION
from proctor.api.conditions import Condition, ConditionStatus, ConditionType, Reason, set_condition
from proctor.controllers.records import run_record
from proctor.controllers.runs import CONFIG, MANAGER, Runtime, _runtime
from proctor.gate.actions import Action, GateDecision, breaker_open, decide, effective_mode
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    GATE_LABEL,
    PENDING_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    template_hash,
)
from proctor.k8s.objects import LABEL_MANAGED_BY, LABEL_PART_OF, label_value
from proctor.protocol import Canary, canary_state

log = structlog.get_logger("proctor.gates")

LABEL_WORKLOAD = "proctor.dev/workload"
LABEL_GATE_KIND = "proctor.dev/gate-kind"


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def _fmt(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _short(h: str | None) -> str | None:
    return h.removeprefix("sha256:")[:12] if h else None


def gate_run(
    policy_raw: Mapping[str, Any],
    kind: str,
    name: str,
    template: Mapping[str, Any],
    workload: str | None = None,
) -> dict[str, Any]:
    """An EvalRun examining ``template`` under a policy (owned by the policy)."""
    spec, meta = policy_raw["spec"], policy_raw["metadata"]
    run_spec: dict[str, Any] = {
        "caseSetRef": spec["caseSetRef"],
        "policyRef": {"name": meta["name"]},
        "target": {"podTemplate": dict(template), "candidate": spec["candidate"]},
    }
    for k in ("profileRef", "shards", "timeoutSeconds"):
        if k in spec:
            run_spec[k] = spec[k]
    labels = {
        LABEL_MANAGED_BY: "proctor",
        LABEL_PART_OF: "proctor",
        GATE_LABEL: meta["name"],
        LABEL_GATE_KIND: kind,
    }
    if workload:
        labels[LABEL_WORKLOAD] = label_value(workload)
    return {
        "apiVersion": API_VERSION,
        "kind": "EvalRun",
        "metadata": {
            "name": name,
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": API_VERSION,
                    "kind": "GatePolicy",
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": run_spec,
    }


def _event(obj: Mapping[str, Any], kind: str, reason: str, message: str) -> None:
    kopf.event(cast(Any, obj), type=kind, reason=reason, message=message[:1000])


async def _canary(
    rt: Runtime, ns: str, policy_raw: Mapping[str, Any], deployments: list[dict[str, Any]], required: int
) -> tuple[Canary | None, dict[str, Any] | None]:
    """Run (or read) the canary: ``required`` runs on the approved revision of the first gated workload."""
    approved = next(
        (
            d
            for d in sorted(deployments, key=lambda d: d["metadata"]["name"])
            if (d["metadata"].get("annotations") or {}).get(APPROVED_TEMPLATE_ANNOTATION)
        ),
        None,
    )
    if approved is None:
        return None, None
    ann = approved["metadata"]["annotations"]
    template = json.loads(ann[APPROVED_TEMPLATE_ANNOTATION])
    rev = _short(ann.get(APPROVED_ANNOTATION)) or "unknown"
    gen = policy_raw["metadata"].get("generation", 1)
    names = [
        f"{policy_raw['metadata']['name']}-canary-g{gen}-{rev}-{i}"[:253] for i in range(1, required + 1)
    ]
    runs = []
    for n in names:
        run = await rt.call(rt.kube.get_or_none, "EvalRun", ns, n)
        if run is None:
            await rt.call(rt.kube.create_custom, "EvalRun", ns, gate_run(policy_raw, "canary", n, template))
            continue
        runs.append(run)
    done = [r for r in runs if (r.get("status") or {}).get("phase") in TERMINAL_PHASES]
    rates = [(r.get("status") or {}).get("tiers", {}).get("safety", {}).get("rate") for r in done]
    status = {"required": required, "runs": names, "safetyRates": [float(x) for x in rates if x is not None]}
    if len(done) < required:
        return None, status
    canary = canary_state([run_record(r) for r in done], required)
    return canary, status


def _awaiting(d: Mapping[str, Any], what: str) -> str:
    """A template waiting for its verdict is held, not blocked: RolloutBlocked is for verdicts."""
    held = "the rollout waits for the verdict" if d["spec"].get("paused") else "observing, not held"
    return f"{what}; {held}"


async def _act(
    rt: Runtime, d: Mapping[str, Any], dec: GateDecision, pending: str, *, observing: bool
) -> None:
    meta, ns = d["metadata"], d["metadata"]["namespace"]
    ann = meta.get("annotations") or {}
    if dec.action is Action.APPROVE and (dec.acted or observing):
        # recording the approved revision is not an action on the rollout: observing policies record it
        # too (it is what their canary runs on); only enforcing ones resume a paused rollout
        patch: dict[str, Any] = {
            "metadata": {
                "annotations": {
                    APPROVED_ANNOTATION: pending,
                    APPROVED_TEMPLATE_ANNOTATION: json.dumps(d["spec"]["template"]),
                }
            }
        }
        if dec.acted:
            patch["spec"] = {"paused": False}
        await rt.call(rt.kube.patch_deployment, ns, meta["name"], patch)
    elif dec.acted and dec.action is Action.ROLLBACK:
        template = json.loads(ann[APPROVED_TEMPLATE_ANNOTATION])
        await rt.call(
            rt.kube.patch_deployment,
            ns,
            meta["name"],
            {
                "metadata": {"annotations": {PENDING_ANNOTATION: None, PENDING_SINCE_ANNOTATION: None}},
                "spec": {"template": template, "paused": False},
            },
        )
    elif dec.acted and dec.action is Action.HOLD and not d["spec"].get("paused"):
        await rt.call(rt.kube.patch_deployment, ns, meta["name"], {"spec": {"paused": True}})


async def _workload(
    rt: Runtime,
    policy_raw: Mapping[str, Any],
    d: dict[str, Any],
    prev: Mapping[str, Any],
    mode: Any,
    circuit_open: bool,
) -> tuple[dict[str, Any], bool]:
    """One gated Deployment: its status entry, and whether a new block happened."""
    meta = d["metadata"]
    ns, name = meta["namespace"], meta["name"]
    ann = meta.get("annotations") or {}
    pending, approved = ann.get(PENDING_ANNOTATION), ann.get(APPROVED_ANNOTATION)
    current = template_hash(d["spec"].get("template"))
    entry: dict[str, Any] = {"name": name, "revision": _short(current)}
    if approved:
        entry["approvedRevision"] = _short(approved)
    for k in ("verdict", "run", "attempt"):
        if prev.get(k):
            entry[k] = prev[k]
    if not pending or pending == approved or pending != current:
        entry |= {
            "blocked": False,
            "message": prev.get("message") or "the running template is the approved one",
        }
        return entry, False
    run_name = f"{name}-{_short(pending)}"[:253]
    run = await rt.call(rt.kube.get_or_none, "EvalRun", ns, run_name)
    if run is None:
        await rt.call(
            rt.kube.create_custom,
            "EvalRun",
            ns,
            gate_run(policy_raw, "exam", run_name, d["spec"]["template"], workload=name),
        )
        _event(d, "Normal", "ExamStarted", f"template {_short(pending)} is examined by EvalRun {run_name}")
        entry |= {"run": run_name, "blocked": False, "message": _awaiting(d, "exam started")}
        entry.pop("verdict", None)
        return entry, False
    st = run.get("status") or {}
    if st.get("phase") not in TERMINAL_PHASES:
        entry |= {"run": run_name, "blocked": False, "message": _awaiting(d, "exam running")}
        entry.pop("verdict", None)
        return entry, False
    spec = policy_raw["spec"]
    dec = decide(
        st.get("verdict", "ERROR"),
        st.get("message", ""),
        allow_warn=spec.get("allowWarn", True),
        on_fail=spec.get("onFail", "Hold"),
        mode=mode,
        circuit_open=circuit_open,
        has_approved_template=APPROVED_TEMPLATE_ANNOTATION in ann,
    )
    attempt = ann.get(PENDING_SINCE_ANNOTATION) or ""
    entry |= {"run": run_name, "verdict": st.get("verdict"), "blocked": dec.blocked, "message": dec.message}
    if attempt:
        entry["attempt"] = attempt[:64]
    if (
        prev.get("run") == run_name
        and prev.get("verdict") == st.get("verdict")
        and prev.get("message") == dec.message
        and prev.get("attempt", "") == attempt[:64]
    ):
        # decided already for this attempt: act and tell once (a reset breaker, or the same template
        # applied again, is a new decision)
        return entry, False
    # with the breaker open a pass is not recorded as approved either: after the reset it is decided again
    await _act(rt, d, dec, pending, observing=not mode.enforce)
    reason = {Action.APPROVE: "RolloutApproved", Action.HOLD: "RolloutHeld", Action.ROLLBACK: "RolledBack"}[
        dec.action
    ]
    if not dec.acted:
        reason = f"Would{reason}"
    kind = "Normal" if dec.action is Action.APPROVE or not dec.acted else "Warning"
    _event(d, kind, reason, f"{dec.message} (EvalRun {run_name})")
    _event(policy_raw, kind, reason, f"Deployment {name}: {dec.message}")
    log.info("gate decision", workload=f"{ns}/{name}", action=dec.action.value, acted=dec.acted, run=run_name)
    return entry, dec.acted and dec.blocked


async def reconcile_policy(rt: Runtime, ns: str, name: str) -> None:
    async with rt.lock(f"gatepolicy:{ns}/{name}"):
        policy_raw = await rt.call(rt.kube.get_or_none, "GatePolicy", ns, name)
        if policy_raw is None:
            return
        await _reconcile(rt, ns, name, policy_raw)


async def _reconcile(rt: Runtime, ns: str, name: str, policy_raw: dict[str, Any]) -> None:
    now = _now()
    meta = policy_raw["metadata"]
    gen = meta.get("generation")
    status = policy_raw.get("status") or {}
    conds = [Condition.model_validate(c) for c in status.get("conditions") or []]
    policy = parse_policy(policy_raw)
    missing = [
        f"{kind} {ref} not found"
        for kind, ref in (
            ("CaseSet", policy.spec.case_set_ref.name),
            ("EvalProfile", policy.spec.profile_ref.name if policy.spec.profile_ref else None),
        )
        if ref and await rt.call(rt.kube.get_or_none, kind, ns, ref) is None
    ]
    conds = set_condition(
        conds,
        ConditionType.READY,
        ConditionStatus.FALSE if missing else ConditionStatus.TRUE,
        Reason.CASE_SET_NOT_FOUND if missing else Reason.RESOLVED,
        "; ".join(missing) or "case set and profile found",
        now=now,
        observed_generation=gen,
    )
    deployments = await rt.call(rt.kube.list_deployments, ns, f"{GATE_LABEL}={name}")
    for d in deployments:  # list items carry no kind: Events need it to reference the Deployment
        d.setdefault("apiVersion", "apps/v1")
        d.setdefault("kind", "Deployment")
    canary, canary_status = await _canary(rt, ns, policy_raw, deployments, policy.spec.canary.runs)
    mode = effective_mode(policy.spec.enforcement.value, canary)

    breaker = dict(status.get("circuitBreaker") or {})
    blocks = [dt.datetime.fromisoformat(b.replace("Z", "+00:00")) for b in breaker.get("recentBlocks") or []]
    reset = (meta.get("annotations") or {}).get(RESET_ANNOTATION)
    if reset and reset != breaker.get("resetToken"):
        blocks, breaker = [], {"resetToken": reset}
        _event(
            policy_raw,
            "Normal",
            "CircuitReset",
            f"circuit breaker reset by a person ({RESET_ANNOTATION}={reset})",
        )
    cb = policy.spec.circuit_breaker
    was_open = breaker_open(blocks, now, max_blocks=cb.max_blocks, window_minutes=cb.window_minutes)

    prev = {w["name"]: w for w in status.get("workloads") or []}
    entries = []
    for d in sorted(deployments, key=lambda d: d["metadata"]["name"]):
        entry, blocked_now = await _workload(
            rt, policy_raw, d, prev.get(d["metadata"]["name"], {}), mode, was_open
        )
        entries.append(entry)
        if blocked_now:
            blocks.append(now)
    blocks = [b for b in blocks if now - b <= dt.timedelta(minutes=cb.window_minutes)][-32:]
    is_open = breaker_open(blocks, now, max_blocks=cb.max_blocks, window_minutes=cb.window_minutes)
    if is_open and not was_open:
        _event(
            policy_raw,
            "Warning",
            "CircuitOpen",
            f"needs_human: {len(blocks)} blocks in {cb.window_minutes} min (max {cb.max_blocks}); automated "
            f"actions stop until a person sets the annotation {RESET_ANNOTATION}",
        )
    blocked = [e for e in entries if e.get("blocked")]

    conds = set_condition(
        conds,
        ConditionType.ENFORCING,
        ConditionStatus.TRUE if mode.enforce else ConditionStatus.FALSE,
        mode.reason,
        mode.message,
        now=now,
        observed_generation=gen,
    )
    det = (ConditionStatus.UNKNOWN, "NotEnoughRuns", "the canary needs an approved revision and its runs")
    if canary is not None:
        det = (
            {"True": ConditionStatus.TRUE, "False": ConditionStatus.FALSE}.get(
                canary.state.value, ConditionStatus.UNKNOWN
            ),
            str(canary.reason),
            canary.message,
        )
    conds = set_condition(
        conds, ConditionType.DETERMINISTIC, det[0], det[1], det[2], now=now, observed_generation=gen
    )
    conds = set_condition(
        conds,
        ConditionType.ROLLOUT_BLOCKED,
        ConditionStatus.TRUE if blocked else ConditionStatus.FALSE,
        ("VerdictFailed" if any(e.get("verdict") == "FAIL" for e in blocked) else "VerdictError")
        if blocked
        else ("NotBlocked" if mode.enforce else "ObserveOnly"),
        "; ".join(f"{e['name']}: {e['message']}" for e in blocked)[:1024] or "no gated rollout is held",
        now=now,
        observed_generation=gen,
    )
    conds = set_condition(
        conds,
        ConditionType.CIRCUIT_OPEN,
        ConditionStatus.TRUE if is_open else ConditionStatus.FALSE,
        "TooManyBlocks" if is_open else "WithinBudget",
        (
            f"needs_human: {len(blocks)} blocks in the last {cb.window_minutes} min "
            f"(max {cb.max_blocks}); set the annotation {RESET_ANNOTATION} to reset"
        )
        if is_open
        else f"{len(blocks)} block(s) in the window",
        now=now,
        observed_generation=gen,
    )
    desired: dict[str, Any] = {
        "observedGeneration": gen,
        "effectiveEnforcement": "Enforce" if mode.enforce else "Observe",
        "blocked": len(blocked),
        "workloads": entries,
        "circuitBreaker": {"open": is_open, "recentBlocks": [_fmt(b) for b in blocks]}
        | ({"resetToken": breaker["resetToken"]} if breaker.get("resetToken") else {}),
        "conditions": [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in conds],
    }
    if canary_status is not None:
        desired["canary"] = canary_status
    if any(status.get(k) != v for k, v in desired.items() if k != "conditions") or [
        (c.get("type"), c.get("status"), c.get("reason"), c.get("message"))
        for c in status.get("conditions") or []
    ] != [(c["type"], c["status"], c["reason"], c["message"]) for c in desired["conditions"]]:
        await rt.call(rt.kube.apply_status, "GatePolicy", ns, name, desired, MANAGER)


@kopf.on.event("proctor.dev", "v1alpha1", "gatepolicies", id="gate-policy-event")
async def on_policy_event(
    event: Mapping[str, Any], name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if event.get("type") != "DELETED" and namespace is not None:
        await reconcile_policy(_runtime(memo), namespace, name)


@kopf.timer(
    "proctor.dev", "v1alpha1", "gatepolicies", id="gate-policy-tick", interval=CONFIG.reconcile_interval
)
async def on_policy_tick(name: str, namespace: str | None, memo: kopf.Memo, **_: Any) -> None:
    if namespace is not None:
        await reconcile_policy(_runtime(memo), namespace, name)


@kopf.on.event("apps", "v1", "deployments", id="gate-deployment-event", labels={GATE_LABEL: kopf.PRESENT})
async def on_deployment_event(
    event: Mapping[str, Any], labels: Mapping[str, str], namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if event.get("type") != "DELETED" and namespace is not None:
        await reconcile_policy(_runtime(memo), namespace, labels[GATE_LABEL])


@kopf.on.event("proctor.dev", "v1alpha1", "evalruns", id="gate-run-event", labels={GATE_LABEL: kopf.PRESENT})
async def on_gate_run_event(
    labels: Mapping[str, str], status: Mapping[str, Any], namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if (status or {}).get("phase") in TERMINAL_PHASES and namespace is not None:
        await reconcile_policy(_runtime(memo), namespace, labels[GATE_LABEL])

"""GatePolicy handlers: the policy, its gated Deployments and its runs trigger a step of the policy;
each policy is looked at again after ``reconcile_interval`` (its breaker window, its canary)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kopf
import structlog

from proctor.api import GROUP, TERMINAL_PHASES, VERSION, EvalRun, GatePolicy
from proctor.controllers.kit import post, refused_here, runtime
from proctor.gate.admission import GATE_LABEL
from proctor.reconcile.gates import reconcile_policy
from proctor.reconcile.runtime import Runtime

log = structlog.get_logger("proctor.gates")


async def check_policy(rt: Runtime, namespace: str, name: str) -> None:
    """One step of the policy, and the next one scheduled while it exists (also after a step that
    failed: the next event or wake-up tries again)."""
    key = f"gatepolicy:{namespace}/{name}"
    if refused_here(rt, namespace, f"GatePolicy {name}"):
        return
    try:
        outcome = await reconcile_policy(rt, namespace, name)
    except Exception:
        log.exception("reconcile failed", policy=f"{namespace}/{name}")
        rt.later(key, rt.config.reconcile_interval, lambda: check_policy(rt, namespace, name))
        return
    await post(rt, outcome)
    if outcome.recheck:
        rt.later(key, rt.config.reconcile_interval, lambda: check_policy(rt, namespace, name))


@kopf.on.event(GROUP, VERSION, GatePolicy.PLURAL, id="gate-policy-event")
async def on_policy_event(
    event: Mapping[str, Any], body: kopf.Body, name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    """The webhook's snapshot of the policy first (before the step, which may take a while), read
    through the same edge as the snapshot primed at startup; then one step of the policy."""
    rt = runtime(memo)
    if event.get("type") == "DELETED":
        rt.policies.drop(namespace, name)
        return
    rt.policies.read_policy(body)
    if namespace is not None:
        await check_policy(rt, namespace, name)


@kopf.on.event("apps", "v1", "deployments", id="gate-deployment-event", labels={GATE_LABEL: kopf.PRESENT})
async def on_deployment_event(
    event: Mapping[str, Any], labels: Mapping[str, str], namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if event.get("type") != "DELETED" and namespace is not None:
        await check_policy(runtime(memo), namespace, labels[GATE_LABEL])


@kopf.on.event(GROUP, VERSION, EvalRun.PLURAL, id="gate-run-event", labels={GATE_LABEL: kopf.PRESENT})
async def on_gate_run_event(
    labels: Mapping[str, str], status: Mapping[str, Any], namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if (status or {}).get("phase") in TERMINAL_PHASES and namespace is not None:
        await check_policy(runtime(memo), namespace, labels[GATE_LABEL])

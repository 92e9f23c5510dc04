"""EvalRun handlers: the run's own events and its judge Jobs' events; unfinished runs are looked at
again after ``reconcile_interval`` (a scheduled wake-up, not a Kopf timer: see Runtime.later)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kopf
import structlog

from proctor.api import GROUP, VERSION, EvalRun, RunPhase
from proctor.controllers.kit import post, runtime
from proctor.k8s.objects import LABEL_COMPONENT, LABEL_MANAGED_BY, owning_run
from proctor.reconcile.runs import reconcile_run
from proctor.reconcile.runtime import Runtime

log = structlog.get_logger("proctor.runs")


async def check_run(rt: Runtime, namespace: str, name: str) -> None:
    """One step of the run; while it is unfinished, another after the interval."""
    outcome = await reconcile_run(rt, namespace, name)
    post(outcome)
    if outcome.recheck:
        rt.later(f"{namespace}/{name}", rt.config.reconcile_interval, lambda: _wake(rt, namespace, name))


async def _wake(rt: Runtime, namespace: str, name: str) -> None:
    try:
        await check_run(rt, namespace, name)
    except Exception:  # the next event or wake-up tries again; never lose the schedule silently
        log.exception("scheduled reconcile failed", run=f"{namespace}/{name}")
        rt.later(f"{namespace}/{name}", rt.config.reconcile_interval, lambda: _wake(rt, namespace, name))


def unfinished(status: Mapping[str, Any] | None, **_: Any) -> bool:
    phase = (status or {}).get("phase")
    return not phase or not RunPhase(phase).terminal


@kopf.on.event(GROUP, VERSION, EvalRun.PLURAL, id="evalrun-event", when=unfinished)
async def on_run_event(
    event: Mapping[str, Any], name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if event.get("type") != "DELETED" and namespace is not None:
        await check_run(runtime(memo), namespace, name)


@kopf.on.event(
    "batch",
    "v1",
    "jobs",
    id="judge-job-event",
    labels={LABEL_MANAGED_BY: "proctor", LABEL_COMPONENT: "judge"},
)
async def on_job_event(body: kopf.Body, namespace: str | None, memo: kopf.Memo, **_: Any) -> None:
    run = owning_run(body)
    if run is not None and namespace is not None:
        await check_run(runtime(memo), namespace, run)

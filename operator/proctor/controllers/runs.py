"""EvalRun handlers: the run's own events, its judge Jobs' and their pods' events; unfinished runs are
looked at again after ``reconcile_interval``, or sooner when something is due (a scheduled wake-up,
not a Kopf timer: see Runtime.later)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kopf
import structlog

from proctor.api import GROUP, VERSION, EvalRun, RunPhase
from proctor.controllers.kit import post, refused_here, runtime
from proctor.k8s.objects import JUDGE_LABELS, LABEL_FINISHED, owning_run
from proctor.reconcile.runs import forget_cases, forget_detail, reconcile_run, run_of
from proctor.reconcile.runtime import Runtime

log = structlog.get_logger("proctor.runs")


async def check_run(rt: Runtime, namespace: str, name: str) -> None:
    """One step of the run; while it is unfinished, another after the interval (or sooner). A step
    that fails is tried again after the interval: the schedule is never lost."""
    key = f"{namespace}/{name}"
    if refused_here(rt, namespace, f"EvalRun {name}"):
        return
    try:
        outcome = await reconcile_run(rt, namespace, name)
    except Exception:
        log.exception("reconcile failed", run=key)
        rt.later(key, rt.config.reconcile_interval, lambda: check_run(rt, namespace, name))
        return
    await post(rt, outcome)
    if outcome.recheck:
        rt.later(key, outcome.delay(rt.config.reconcile_interval), lambda: check_run(rt, namespace, name))


def unsettled(status: Mapping[str, Any] | None, labels: Mapping[str, str], **_: Any) -> bool:
    """A run still to examine, or one that finished without the label yet (the operator stopped
    between the verdict and the label, or an earlier version finished it): the watch sends only
    runs without the label (operator.tune), and a step labels a finished run, nothing else."""
    phase = (status or {}).get("phase")
    return not phase or not RunPhase(phase).terminal or labels.get(LABEL_FINISHED) != "true"


@kopf.on.event(GROUP, VERSION, EvalRun.PLURAL, id="evalrun-event", when=unsettled)
async def on_run_event(
    event: Mapping[str, Any], name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if namespace is None:
        return
    if event.get("type") == "DELETED":
        # deleted before it finished: the cases it pinned in the operator's namespace go too
        # deleted, or finished (it left the watch's selector: the API server says DELETED for that
        # too): the cases it pinned in the operator's namespace go; its full results only with it
        rt, body = runtime(memo), event.get("object") or {}
        await forget_cases(rt, body)
        if await rt.call(rt.kube.get_or_none, "EvalRun", namespace, name) is None:
            await forget_detail(rt, str((body.get("metadata") or {}).get("uid") or ""))
        return
    await check_run(runtime(memo), namespace, name)


@kopf.on.event("batch", "v1", "jobs", id="judge-job-event", labels=dict(JUDGE_LABELS))
async def on_job_event(body: kopf.Body, namespace: str | None, memo: kopf.Memo, **_: Any) -> None:
    run = owning_run(body)
    if run is not None and namespace is not None:
        await check_run(runtime(memo), namespace, run)


@kopf.on.event("", "v1", "pods", id="judge-pod-event", labels=dict(JUDGE_LABELS))
async def on_pod_event(
    event: Mapping[str, Any],
    labels: Mapping[str, str],
    meta: kopf.Meta,
    namespace: str | None,
    memo: kopf.Memo,
    **_: Any,
) -> None:
    """A judge pod changed (a container waiting on a missing Secret, an image it cannot pull): the
    Job's own status does not change for that, so the pod says it."""
    if event.get("type") == "DELETED" or namespace is None:
        return
    rt = runtime(memo)
    run = await run_of(rt, namespace, labels, meta.get("ownerReferences") or [])
    if run is not None:
        await check_run(rt, namespace, run)

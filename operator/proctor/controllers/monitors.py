"""AgentMonitor handlers: each event of a monitor triggers a step (its status from the collector);
each monitor is looked at again after ``monitor_interval`` while it exists (a wake-up, not a Kopf
timer: timers add finalizers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kopf
import structlog

from proctor.api import GROUP, VERSION, AgentMonitor
from proctor.controllers.kit import post, refused_here, runtime
from proctor.reconcile.monitors import forget, reconcile_monitor
from proctor.reconcile.runtime import Runtime

log = structlog.get_logger("proctor.monitors")


async def check_monitor(rt: Runtime, namespace: str, name: str) -> None:
    """One step of the monitor, and the next one scheduled while it exists."""
    recheck = True
    if refused_here(rt, namespace, f"AgentMonitor {name}"):
        return
    try:
        outcome = await reconcile_monitor(rt, namespace, name)
        await post(rt, outcome)
        recheck = outcome.recheck
    except Exception:  # the next event or wake-up tries again
        log.exception("AgentMonitor step failed", monitor=f"{namespace}/{name}")
    if recheck:
        rt.later(
            f"agentmonitor:{namespace}/{name}",
            rt.config.monitor_interval,
            lambda: check_monitor(rt, namespace, name),
        )


@kopf.on.event(GROUP, VERSION, AgentMonitor.PLURAL, id="agent-monitor-event")
async def on_monitor_event(
    event: Mapping[str, Any], name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    if namespace is None:
        return
    if event.get("type") == "DELETED":
        forget(namespace, name)
        return
    await check_monitor(runtime(memo), namespace, name)

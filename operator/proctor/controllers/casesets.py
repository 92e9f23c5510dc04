"""CaseSet handlers: a watch handler (Kopf stores nothing in the object: no finalizer, no annotations,
so a CaseSet of any size applies and deletes cleanly, with or without the operator), and a wake-up
every minute per CaseSet (a changed ConfigMap of casesFrom changes the digest)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kopf
import structlog

from proctor.api import GROUP, VERSION, CaseSet
from proctor.controllers.kit import post, refused_here, runtime
from proctor.reconcile.casesets import caseset_event
from proctor.reconcile.runtime import Runtime

log = structlog.get_logger("proctor.casesets")

RECHECK_SECONDS = 60.0


async def check_caseset(rt: Runtime, body: Mapping[str, Any], *, always: bool) -> None:
    """A step when one is needed; the next look a minute after the last step."""
    meta = body["metadata"]
    key = f"caseset:{meta['namespace']}/{meta['name']}"
    if refused_here(rt, meta["namespace"], f"CaseSet {meta['name']}"):
        return
    outcome = await caseset_event(rt, body, always=always)
    await post(rt, outcome)
    if outcome.recheck:
        rt.later(key, RECHECK_SECONDS, lambda: _wake(rt, meta["namespace"], meta["name"]), replace=always)


async def _wake(rt: Runtime, namespace: str, name: str) -> None:
    try:
        body = await rt.call(rt.kube.get_or_none, "CaseSet", namespace, name)
        if body is not None:
            await check_caseset(rt, body, always=True)
    except Exception:  # the next event or wake-up tries again
        log.exception("scheduled reconcile failed", caseset=f"{namespace}/{name}")
        rt.later(f"caseset:{namespace}/{name}", RECHECK_SECONDS, lambda: _wake(rt, namespace, name))


@kopf.on.event(GROUP, VERSION, CaseSet.PLURAL, id="caseset-event")
async def on_caseset_event(
    event: Mapping[str, Any], body: kopf.Body, name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    rt = runtime(memo)
    if event.get("type") == "DELETED":
        rt.cancel(f"caseset:{namespace}/{name}")
    elif namespace is not None:
        # the first look (the operator's initial listing: no type) always takes a step
        await check_caseset(rt, body, always=event.get("type") is None)

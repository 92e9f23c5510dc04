"""A break-glass the admission webhook honoured, said as Events: the webhook's thread hands it back
to the operator's loop, which posts them after the answer (the answer never waits for them)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from proctor.api import BREAK_GLASS_ANNOTATION
from proctor.gate.admission import GATE_LABEL, Admission
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime

log = structlog.get_logger("proctor.gate.webhook")


def poster(rt: Runtime, loop: asyncio.AbstractEventLoop) -> Callable[[Mapping[str, Any], Admission], None]:
    """What the webhook thread calls for a break-glass it honoured: its Events, posted on the
    operator's loop after the answer (the answer never waits for them)."""

    def post(obj: Mapping[str, Any], decision: Admission) -> None:
        events = break_glass_outcome(obj, decision).events
        try:
            asyncio.run_coroutine_threadsafe(rt.post(events), loop)
        except RuntimeError:  # the operator's loop is closed: it is stopping
            log.warning("break-glass Events not posted: the operator is stopping")

    return post


def break_glass_outcome(obj: Mapping[str, Any], decision: Admission) -> Outcome:
    """A break-glass the webhook honoured, said as Events on the Deployment and on its policy."""
    assert decision.break_glass is not None
    meta = obj.get("metadata") or {}
    ns, policy = str(meta.get("namespace")), (meta.get("labels") or {}).get(GATE_LABEL)
    out = Outcome()
    text = f"{BREAK_GLASS_ANNOTATION} by {decision.break_glass.user}: {decision.message}"
    out.say(ObjectRef.of(obj, kind="Deployment", api_version="apps/v1"), "Warning", "BreakGlass", text)
    if policy:
        out.say(
            ObjectRef("GatePolicy", ns, policy),
            "Warning",
            "BreakGlass",
            f"Deployment {meta.get('name')}: {text}",
        )
    log.warning("break-glass honoured", deployment=f"{ns}/{meta.get('name')}", user=decision.break_glass.user)
    return out

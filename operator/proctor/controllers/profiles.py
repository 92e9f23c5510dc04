"""EvalProfile handlers: a watch handler (Kopf stores nothing in the object); a step when the spec
changes, and at the operator's first look; while a collector is configured, the profile is looked at
again every ``monitor_interval`` (its judge's trust follows people's reviews; a wake-up, not a Kopf
timer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kopf
import structlog

from proctor.api import GROUP, VERSION, EvalProfile
from proctor.controllers.kit import post, refused_here, runtime
from proctor.reconcile.profiles import profile_event, reconcile_profile
from proctor.reconcile.runtime import Outcome, Runtime

log = structlog.get_logger("proctor.profiles")


def _again(rt: Runtime, namespace: str, name: str, outcome: Outcome) -> None:
    if outcome.recheck:
        rt.later(
            f"evalprofile:{namespace}/{name}",
            rt.config.monitor_interval,
            lambda: check_profile(rt, namespace, name),
        )


async def check_profile(rt: Runtime, namespace: str, name: str) -> None:
    """A scheduled step of the profile (its judge's trust), and the next one while it exists."""
    try:
        body = await rt.call(rt.kube.get_or_none, EvalProfile.KIND, namespace, name)
        if body is None:
            return
        outcome = await reconcile_profile(rt, body)
        await post(rt, outcome)
    except Exception:  # the next event or wake-up tries again
        log.exception("EvalProfile step failed", profile=f"{namespace}/{name}")
        outcome = Outcome(recheck=True)
    _again(rt, namespace, name, outcome)


@kopf.on.event(GROUP, VERSION, EvalProfile.PLURAL, id="profile-event")
async def on_profile_event(
    event: Mapping[str, Any], body: kopf.Body, name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    rt = runtime(memo)
    if event.get("type") != "DELETED" and not refused_here(rt, namespace, f"EvalProfile {name}"):
        outcome = await profile_event(rt, body, always=event.get("type") is None)
        await post(rt, outcome)
        if namespace is not None:
            _again(rt, namespace, name, outcome)

"""EvalProfile handlers: a watch handler (Kopf stores nothing in the object); a step when the spec
changes, and at the operator's first look."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kopf

from proctor.api import GROUP, VERSION, EvalProfile
from proctor.controllers.kit import post, refused_here, runtime
from proctor.reconcile.profiles import profile_event


@kopf.on.event(GROUP, VERSION, EvalProfile.PLURAL, id="profile-event")
async def on_profile_event(
    event: Mapping[str, Any], body: kopf.Body, name: str, namespace: str | None, memo: kopf.Memo, **_: Any
) -> None:
    rt = runtime(memo)
    if event.get("type") != "DELETED" and not refused_here(rt, namespace, f"EvalProfile {name}"):
        await post(rt, await profile_event(rt, body, always=event.get("type") is None))

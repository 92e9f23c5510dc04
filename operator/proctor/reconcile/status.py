"""Write-if-changed: the one routine every reconciler writes its status through.

The desired status is a status model holding exactly the fields the operator owns
(:func:`proctor.api.dump` with ``only_set``); it is applied server-side with the operator's field
manager, so the runner's fields in the same object (its shards' entries) are never touched. It is
written only when something a reader would see differs from what the object holds:

- a condition differs by its type, status, reason or message (``lastTransitionTime`` and
  ``observedGeneration`` follow from those and from the top-level ``observedGeneration``);
- an entry of a list shared with another writer (``shards``, keyed by name) differs in a field the
  operator sets; the other writer's fields are not compared;
- any other field differs by value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import structlog
from pydantic import BaseModel

from proctor.api import dump
from proctor.reconcile.runtime import ObjectRef, Runtime

#: The operator's field manager (server-side apply).
MANAGER = "proctor-operator"
#: The field manager of a CaseSet's ``recentRuns``, written when one of its runs finishes.
HISTORY_MANAGER = "proctor-operator-history"
#: Status lists whose entries another writer shares, and the key of an entry.
SHARED_LISTS: Mapping[str, str] = {"shards": "name"}

log = structlog.get_logger("proctor.reconcile")


def _conditions(items: Any) -> dict[Any, tuple[Any, ...]]:
    return {c.get("type"): (c.get("status"), c.get("reason"), c.get("message")) for c in items or ()}


def _shared_differs(
    have: Sequence[Mapping[str, Any]] | None, want: Sequence[Mapping[str, Any]], key: str
) -> bool:
    by = {entry.get(key): entry for entry in have or ()}
    for entry in want:
        old = by.get(entry.get(key), {})
        if any(old.get(field) != value for field, value in entry.items()):
            return True
    return False


def changed(current: Mapping[str, Any], desired: Mapping[str, Any]) -> bool:
    """Whether applying ``desired`` over ``current`` would change what a reader sees."""
    for name, want in desired.items():
        have = current.get(name)
        if name == "conditions":
            if _conditions(have) != _conditions(want):
                return True
        elif name in SHARED_LISTS:
            if _shared_differs(have, want, SHARED_LISTS[name]):
                return True
        elif have != want:
            return True
    return False


async def write_status(
    rt: Runtime, ref: ObjectRef, current: Mapping[str, Any], desired: BaseModel, *, manager: str = MANAGER
) -> bool:
    """Apply ``desired`` to ``ref``'s status when it :func:`changed` anything; True when it wrote.

    ``manager`` is the field manager: another one owns other fields of the same status (the run
    history a run's verdict writes on its CaseSet, beside what the CaseSet's reconciler writes).
    """
    body = dump(desired, only_set=True)
    if not changed(current, body):
        return False
    await rt.call(rt.kube.apply_status, ref.kind, ref.namespace, ref.name, body, manager)
    if body.get("phase") and body["phase"] != current.get("phase"):
        log.info(
            "run phase", run=f"{ref.namespace}/{ref.name}", phase=body["phase"], verdict=body.get("verdict")
        )
    return True

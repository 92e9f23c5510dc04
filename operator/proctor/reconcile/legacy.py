"""What an older operator left on objects, removed: Kopf's bookkeeping annotations.

Earlier versions registered Kopf create/update/resume handlers and a timer on CaseSets and
EvalProfiles, so Kopf kept a full copy of each spec in the annotation
``proctor.dev/last-handled-configuration`` (which cannot hold a CaseSet over 256 KiB: every patch
then failed) and put its finalizer ``proctor.dev/finalizer`` on them. Every handler is now a watch
handler that keeps no state in the object: Kopf itself removes the finalizer it no longer needs on
the first event it sees (its name is still configured, so Kopf knows it as its own), and
:func:`legacy_patch` removes the annotations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proctor.api import GROUP
from proctor.reconcile.runtime import ObjectRef, Runtime

#: Kopf's finalizer as earlier versions configured it (still configured, so Kopf removes it).
FINALIZER = f"{GROUP}/finalizer"
#: The annotations Kopf wrote for earlier versions' handlers (diff base, marker, progress).
LEGACY_ANNOTATIONS = frozenset(
    {
        f"{GROUP}/last-handled-configuration",
        f"{GROUP}/kopf-managed",
        f"{GROUP}/touch-dummy",
        *(
            f"{GROUP}/{kind}-{cause}"
            for kind in ("caseset", "profile")
            for cause in ("create", "update", "resume")
        ),
    }
)


def legacy_patch(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """A merge patch removing the legacy annotations ``meta`` carries; None when there are none."""
    stale = sorted(LEGACY_ANNOTATIONS & set(meta.get("annotations") or {}))
    if not stale:
        return None
    return {"metadata": {"annotations": dict.fromkeys(stale)}}


async def release_legacy(rt: Runtime, about: ObjectRef, meta: Mapping[str, Any]) -> bool:
    """Remove what an older operator left on the object; True when there was something."""
    patch = legacy_patch(meta)
    if patch is None:
        return False
    await rt.call(rt.kube.patch_custom, about.kind, about.namespace, about.name, patch)
    return True

"""``proctor baseline freeze``: ask the operator to freeze a CaseSet's baseline, and say what it decided.

The decision is the operator's (the protocol's freeze rules over the case set's recent runs); this
command sets the request annotation and waits for the answer in the CaseSet's status.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
from typing import Any

from proctor.api import FREEZE_BASELINE_ANNOTATION, FREEZE_BASELINE_RUNS_ANNOTATION
from proctor.k8s.kube import Kube, KubeError
from proctor.protocol import DEFAULT_FREEZE_RUNS


def freeze(
    namespace: str,
    caseset: str,
    *,
    runs: int = DEFAULT_FREEZE_RUNS,
    timeout: float = 120,
    kube: Kube | None = None,
) -> int:
    """0 when frozen, 1 when refused (the reason is printed), 2 when no answer came."""
    kube = kube or Kube()
    token = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    try:
        kube.patch_custom(
            "CaseSet",
            namespace,
            caseset,
            {
                "metadata": {
                    "annotations": {
                        FREEZE_BASELINE_ANNOTATION: token,
                        FREEZE_BASELINE_RUNS_ANNOTATION: str(runs),
                    }
                }
            },
        )
    except KubeError as e:
        print(f"proctor baseline: error: {e}", file=sys.stderr)
        return 2
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        obj = kube.get_or_none("CaseSet", namespace, caseset) or {}
        status: dict[str, Any] = obj.get("status") or {}
        if status.get("freezeRequest") == token:
            cond: dict[str, Any] = next(
                (c for c in status.get("conditions") or [] if c["type"] == "BaselineFrozen"), {}
            )
            if cond.get("status") == "True":
                rates = (status.get("baseline") or {}).get("tiers") or {}
                shown = ", ".join(f"{t} {r:g}%" for t, r in rates.items() if r is not None)
                print(f"frozen: {cond.get('message')} ({shown})")
                return 0
            print(f"refused ({cond.get('reason')}): {cond.get('message')}")
            return 1
        time.sleep(1)
    print(f"proctor baseline: no answer within {timeout:.0f}s: is the operator running?", file=sys.stderr)
    return 2

"""``proctor baseline freeze``: ask the operator to freeze a CaseSet's baseline, and say what it decided.

The decision is the operator's (the protocol's freeze rules over the case set's recent runs); this
command sets the request annotation and waits for the answer in the CaseSet's status.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from proctor.api import (
    FREEZE_BASELINE_ANNOTATION,
    FREEZE_BASELINE_RUNS_ANNOTATION,
    CaseSetStatus,
    ConditionStatus,
    ConditionType,
    get_condition,
    utc_now,
)
from proctor.k8s.kube import Kube, KubeError
from proctor.protocol import DEFAULT_FREEZE_RUNS


def register(p: argparse.ArgumentParser) -> None:
    bsub = p.add_subparsers(dest="baseline_cmd", required=True)
    fr = bsub.add_parser(
        "freeze",
        help="ask for a baseline from the case set's most recent runs",
        description="Exit 0 when frozen, 1 when refused (the reason is printed), 2 when no answer came.",
    )
    fr.add_argument("caseset", metavar="CASESET")
    fr.add_argument("-n", "--namespace", default="default")
    fr.add_argument(
        "--runs",
        type=int,
        default=DEFAULT_FREEZE_RUNS,
        help=f"consecutive stable runs required (default {DEFAULT_FREEZE_RUNS})",
    )
    fr.add_argument("--timeout", type=float, default=120)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    return freeze(args.namespace, args.caseset, runs=args.runs, timeout=args.timeout)


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
    token = utc_now().strftime("%Y%m%dT%H%M%S.%fZ")
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
        obj: dict[str, Any] = kube.get_or_none("CaseSet", namespace, caseset) or {}
        status = CaseSetStatus.model_validate(obj.get("status") or {})
        if status.freeze_request == token:
            cond = get_condition(status.conditions, ConditionType.BASELINE_FROZEN)
            if cond is not None and cond.status is ConditionStatus.TRUE:
                rates = status.baseline.tiers.as_mapping() if status.baseline else {}
                shown = ", ".join(f"{t.value} {r:g}%" for t, r in rates.items() if r is not None)
                print(f"frozen: {cond.message} ({shown})")
                return 0
            print(f"refused ({cond.reason if cond else None}): {cond.message if cond else None}")
            return 1
        time.sleep(1)
    print(f"proctor baseline: no answer within {timeout:.0f}s: is the operator running?", file=sys.stderr)
    return 2

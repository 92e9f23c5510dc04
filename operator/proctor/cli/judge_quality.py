"""``proctor judge-quality --profile [NS/]NAME [-o json]``: how far the judge agrees with reviewers.

Per dimension: reviews, agreement, signed bias (judge minus human), and from 20 reviews the
calibration split at the breach threshold (a positive is a breach): missed breaches (FN) and false
alarms (FP) apart, precision and recall with Wilson 95 % intervals, Cohen's kappa; provisional
under 50 reviews. Beside each dimension's observed breach rate, the rate corrected for the judge's
measured error (Rogan-Gladen). ``-o json`` prints exactly ``{"profile", "dimensions": {NAME:
{"reviews", "agreement", "bias", "tp", "fp", "fn", "tn", "precision", "recall", "kappa",
"provisional"}}}``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Final

from proctor.cli._armc import EXIT_CODES, ArmCClient, add_server_flags, call, fmt, qualified, table
from proctor.collector.quality import QUALITY_KEYS
from proctor.protocol import DEFAULT_RECALL_FLOOR

PROG: Final = "proctor judge-quality"


def register(p: argparse.ArgumentParser) -> None:
    p.description = f"A judge's agreement with human reviews, per dimension of an EvalProfile. {EXIT_CODES}"
    p.add_argument("--profile", required=True, metavar="[NS/]NAME", help="the EvalProfile (NS from -n)")
    p.add_argument("-n", "--namespace", default=None)
    p.add_argument(
        "--recall-floor",
        type=float,
        default=None,
        help="a dimension whose breach recall (lower bound) is under this is not trusted "
        f"(default {DEFAULT_RECALL_FLOOR})",
    )
    add_server_flags(p)
    p.set_defaults(func=main)


def stable(doc: dict[str, Any]) -> dict[str, Any]:
    """The stable JSON shape (checks rely on it)."""
    return {
        "profile": doc["profile"],
        "dimensions": {name: {k: d[k] for k in QUALITY_KEYS} for name, d in doc["dimensions"].items()},
    }


def _ci(bounds: list[float] | None) -> str:
    return "" if bounds is None else f" [{100 * bounds[0]:.0f}-{100 * bounds[1]:.0f}]"


def text(doc: dict[str, Any]) -> str:
    dims = doc["dimensions"]
    lines = [
        f"judge quality of EvalProfile {doc['profile']} (a positive is a breach: score under the threshold)"
    ]
    if not dims:
        return "\n".join([*lines, "no reviews yet"])
    rows = [
        [
            "DIMENSION",
            "REVIEWS",
            "AGREEMENT",
            "KAPPA",
            "BIAS",
            "MISSED(FN)",
            "FALSE-ALARM(FP)",
            "TP",
            "TN",
            "PRECISION",
            "RECALL",
            "TRUSTED",
        ]
    ]
    for name, d in dims.items():
        ci = d.get("intervals") or {}
        rows.append(
            [
                name + (" (provisional)" if d["provisional"] else ""),
                str(d["reviews"]),
                fmt(d["agreement"], pct=True) + _ci(ci.get("agreement")),
                fmt(d["kappa"]),
                fmt(d["bias"], digits=1),
                "-" if d["fn"] is None else str(d["fn"]),
                "-" if d["fp"] is None else str(d["fp"]),
                "-" if d["tp"] is None else str(d["tp"]),
                "-" if d["tn"] is None else str(d["tn"]),
                fmt(d["precision"], pct=True) + _ci(ci.get("precision")),
                fmt(d["recall"], pct=True) + _ci(ci.get("recall")),
                {True: "yes", False: "NO", None: "-"}[d.get("trusted")],
            ]
        )
    lines.append(table(rows))
    rates = [(n, d["breachRate"]) for n, d in dims.items() if d.get("breachRate")]
    if rates:
        lines.append(
            "breach rate observed -> corrected for the judge's measured error (Rogan-Gladen, 95% CI):"
        )
        for name, r in rates:
            corrected = (
                "- (no split yet, or the judge is no better than chance)"
                if r["corrected"] is None
                else fmt(r["corrected"], pct=True) + _ci(r["correctedInterval"])
            )
            lines.append(
                f"  {name}: {fmt(r['observed'], pct=True)}{_ci(r['observedInterval'])} of {r['scored']} "
                f"-> {corrected}"
            )
    if any(d["tp"] is None for d in dims.values()):
        lines.append("the split (TP/FP/FN/TN) is shown from 20 reviews of a dimension; provisional under 50")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    def go(api: ArmCClient) -> None:
        profile = qualified(args.profile, args.namespace, "--profile")
        doc = api.judge_quality(profile, args.recall_floor)
        print(json.dumps(stable(doc), indent=2) if args.output == "json" else text(doc))

    return call(PROG, args, go)

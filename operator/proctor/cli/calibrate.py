"""``proctor calibrate --monitor [NS/]NAME [--recall R]``: thresholds proposed from shadow mode.

Replays the stored judge scores that reviewers labelled and proposes, per dimension, the threshold
with the highest precision whose recall on the reviewers' breaches is at least R (default 0.9),
printed with the trade-off table, so a monitor leaves ``observeOnly`` on evidence.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Final

from proctor.cli._armc import EXIT_CODES, ArmCClient, add_server_flags, call, fmt, qualified, table
from proctor.protocol import DEFAULT_REQUIRED_RECALL

PROG: Final = "proctor calibrate"


def register(p: argparse.ArgumentParser) -> None:
    p.description = f"Propose per-dimension thresholds from reviewed shadow-mode scores. {EXIT_CODES}"
    p.add_argument("--monitor", required=True, metavar="[NS/]NAME", help="the AgentMonitor (NS from -n)")
    p.add_argument("-n", "--namespace", default=None)
    p.add_argument(
        "--recall",
        type=float,
        default=None,
        help=f"the recall on breaches a threshold must keep (default {DEFAULT_REQUIRED_RECALL})",
    )
    add_server_flags(p)
    p.set_defaults(func=main)


def text(doc: dict[str, Any]) -> str:
    lines = [f"calibration of AgentMonitor {doc['monitor']} at recall >= {100 * doc['requiredRecall']:.0f}%"]
    if not doc["dimensions"]:
        lines.append("no reviewed scores yet: give feedback on some runs first")
    for name, d in doc["dimensions"].items():
        proposed = (
            f"{d['proposedThreshold']:g}"
            if d["proposedThreshold"] is not None
            else "none (no reviewer saw a breach, or no threshold keeps the recall)"
        )
        current = "-" if d["currentThreshold"] is None else f"{d['currentThreshold']:g}"
        lines.append(
            f"{name}: {d['labelled']} labelled, {d['breaches']} breaches; "
            f"threshold now {current}, proposed {proposed}"
        )
        rows = [["THRESHOLD", "TP", "FP", "FN", "TN", "PRECISION", "RECALL", ""]]
        for r in d["table"]:
            mark = []
            if r["threshold"] == d["proposedThreshold"]:
                mark.append("<- proposed")
            if r["threshold"] == d["currentThreshold"]:
                mark.append("<- now")
            rows.append(
                [
                    f"{r['threshold']:g}",
                    str(r["tp"]),
                    str(r["fp"]),
                    str(r["fn"]),
                    str(r["tn"]),
                    fmt(r["precision"], pct=True),
                    fmt(r["recall"], pct=True),
                    " ".join(mark),
                ]
            )
        lines.append("  " + table(rows).replace("\n", "\n  "))
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    def go(api: ArmCClient) -> None:
        monitor = qualified(args.monitor, args.namespace, "--monitor")
        doc = api.calibration(monitor, args.recall)
        print(json.dumps(doc, indent=2) if args.output == "json" else text(doc))

    return call(PROG, args, go)

"""``proctor monitors recompute NS/NAME``: rebuild a monitor's detector state, what each judged run
breached and its revisions' verdict counts from its stored scores (after a detector setting or a
threshold changed, or the state was lost), a client of the collector's
``POST /api/v1/monitors/{namespace}/{name}/recompute`` (RBAC verb ``recompute`` on agentmonitors).

The collector, the token and the exit codes are those of ``proctor runs`` (:mod:`proctor.cli.runs`):
0 done; 1 the collector refused (401, 403, 404); 2 nothing was asked.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Final

from proctor.cli.runs import EXIT_ERROR, EXIT_REFUSED, _CannotAsk, add_server_flags, token_for
from proctor.collector import CollectorClient, CollectorError

PROG: Final = "proctor monitors"


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "AgentMonitors as the collector keeps them (arm B). Exit 0 done, 1 the collector refused "
        "(401/403/404), 2 nothing was asked (bad flags, no server or token, unreachable)."
    )
    sub = p.add_subparsers(dest="monitors_cmd", required=True)
    q = sub.add_parser(
        "recompute",
        help="replay the stored scores into fresh detector state (RBAC verb 'recompute' on agentmonitors)",
    )
    q.add_argument("monitor", metavar="NS/NAME")
    add_server_flags(q)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    ns, _, name = args.monitor.partition("/")
    if not ns or not name:
        print(f"{PROG}: error: the monitor is NAMESPACE/NAME, not {args.monitor!r}", file=sys.stderr)
        return EXIT_ERROR
    try:
        token = token_for(args)
        with CollectorClient(args.server, token, ca_file=args.ca_file) as api:
            doc = api.recompute(ns, name)
    except _CannotAsk as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except CollectorError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED if 400 <= e.status < 500 else EXIT_ERROR
    if args.output == "json":
        print(json.dumps(doc, indent=2))
    else:
        det = doc.get("detectors") or {}
        breached = ", ".join(f["signature"] for f in det.get("breached") or []) or "none"
        print(
            f"{doc['monitor']}: replayed {doc['evaluations']} evaluation(s) into {det.get('series', 0)} "
            f"series; {doc.get('runs', 0)} judged run(s) recounted for the verdicts; breached now: {breached}"
        )
    return 0

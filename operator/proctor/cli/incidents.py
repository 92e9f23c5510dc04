"""``proctor incidents list|show|ack|approve|dismiss``: a client of the collector's incidents API.

The collector, the token and the exit codes are those of ``proctor runs`` (:mod:`proctor.cli.runs`):
0 done; 1 the collector refused (401, 403 RBAC lacks the verb or the monitor's ``actions`` policy
denies it, 404, 409 decided already); 2 nothing was asked.

``list -o json`` prints a JSON list of the stable short form::

    {"id", "monitor", "state": open|acknowledged|resolved, "severity", "signatures", "revision",
     "openedAt", "runs"}
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Final

from proctor.cli.runs import EXIT_ERROR, EXIT_REFUSED, _CannotAsk, _monitor, add_server_flags, token_for
from proctor.collector import CollectorClient, CollectorError
from proctor.collector.incidents import incident_summary

PROG: Final = "proctor incidents"


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Incidents the collector opened from live runs (arm B). Exit 0 done, 1 the collector refused "
        "(401/403/404/409), 2 nothing was asked (bad flags, no server or token, unreachable)."
    )
    sub = p.add_subparsers(dest="incidents_cmd", required=True)
    ls = sub.add_parser("list", help="incidents, newest first")
    ls.add_argument("--monitor", metavar="[NS/]NAME", help="one AgentMonitor's incidents (NS from -n)")
    ls.add_argument("-n", "--namespace", help="incidents of the AgentMonitors of this namespace")
    ls.add_argument("--state", choices=["open", "acknowledged", "resolved"], help="only this state")
    ls.add_argument("--limit", type=int, default=100, help="incidents at most (default 100)")
    show = sub.add_parser("show", help="one incident: cause, runs, recommendations")
    show.add_argument("incident", metavar="ID")
    ack = sub.add_parser("ack", help="acknowledge an incident (RBAC verb 'acknowledge' on agentmonitors)")
    ack.add_argument("incident", metavar="ID")
    decisions = []
    for verb in ("approve", "dismiss"):
        q = sub.add_parser(
            verb, help=f"{verb} one of an incident's recommendations (RBAC verb 'approve' on agentmonitors)"
        )
        q.add_argument("incident", metavar="ID")
        q.add_argument(
            "recommendation", metavar="REC", help="rollback, hold-canary, capture-cases, review-judge"
        )
        decisions.append(q)
    for q in (ls, show, ack, *decisions):
        add_server_flags(q)
    p.set_defaults(func=main)


def table(incidents: list[dict[str, Any]]) -> str:
    """What ``proctor incidents list`` prints for people: one line per incident."""
    rows = [("INCIDENT", "MONITOR", "STATE", "SEVERITY", "RUNS", "REVISION", "SIGNATURES")]
    for i in incidents:
        rows.append(
            (
                i["id"],
                i["monitor"],
                i["state"],
                i["severity"],
                str(i["runs"]),
                i.get("revision") or "-",
                ",".join(i.get("signatures") or []),
            )
        )
    widths = [max(len(r[c]) for r in rows) for c in range(6)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r[:6], widths, strict=True)) + "  " + r[6] for r in rows
    )


def show_text(i: dict[str, Any]) -> str:
    cause = i.get("cause") or {}
    step = cause.get("step") or {}
    lines = [
        f"incident {i['id']}  monitor {i['monitor']}  {i['state']}  "
        f"severity {i['severity']}  runs {i['runs']}",
        f"  signatures: {', '.join(i.get('signatures') or [])}",
        f"  opened {i.get('openedAt')}  revision {i.get('revision') or '-'}  agent {i.get('agent')}",
        f"  probable cause: {i.get('probableCause')}",
        f"  cause: step {step.get('index', '-')} ({step.get('kind', '-')}, {step.get('source', '-')}), "
        f"tool {cause.get('tool') or '-'}{' (failed)' if cause.get('toolFailed') else ''}, "
        f"traces {', '.join(cause.get('traceIds') or []) or '-'}",
    ]
    if i.get("acknowledgedBy"):
        lines.append(f"  acknowledged by {i['acknowledgedBy']} at {i.get('acknowledgedAt')}")
    for r in i.get("recommendations") or []:
        lines.append(
            f"  recommendation {r.get('id')} [{r.get('state')}]: {r.get('action')} ({r.get('evidence')})"
        )
    if i.get("runIds"):
        lines.append(f"  runs: {', '.join(i['runIds'])}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    try:
        monitor = _monitor(args) if args.incidents_cmd == "list" else None
        token = token_for(args)
        with CollectorClient(args.server, token, ca_file=args.ca_file) as api:
            if args.incidents_cmd == "list":
                found = api.list_incidents(
                    monitor=monitor,
                    namespace=None if monitor else args.namespace,
                    state=args.state,
                    limit=args.limit,
                )
                if args.output == "json":
                    print(json.dumps([incident_summary(i) for i in found], indent=2))
                else:
                    print(table(found))
                return 0
            if args.incidents_cmd == "show":
                doc = api.show_incident(args.incident)
            elif args.incidents_cmd == "ack":
                doc = api.ack_incident(args.incident)
            else:
                doc = api.decide_recommendation(args.incident, args.recommendation, args.incidents_cmd)
            print(json.dumps(doc, indent=2) if args.output == "json" else show_text(doc))
    except _CannotAsk as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except CollectorError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED if 400 <= e.status < 500 else EXIT_ERROR
    return 0

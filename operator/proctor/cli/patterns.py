"""``proctor patterns list|resolve|guidance``: an agent's behaviour patterns (a client of the
collector's API, like ``proctor runs``: the same ``--server``, token and exit codes).

``list --monitor NS/NAME [--state open|resolved|all] [-o json]`` prints the patterns ranked by
recurrence x recency, decomposed (RECURRENCE, RECENCY the weight 0.5 ** (age / half-life), SCORE
their product), so a person sees why one outranks another. ``resolve ID [--note TEXT]`` marks one
resolved once its fix ships (RBAC verb ``resolve`` on agentmonitors); it reopens when it recurs.
``guidance --monitor NS/NAME`` prints the improvement guidance derived from the open patterns,
each line with the runs behind it.

Exit codes: 0 done; 1 the collector refused (401/403/404); 2 nothing was asked.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Final

from proctor.cli.runs import EXIT_ERROR, EXIT_REFUSED, _CannotAsk, add_server_flags, token_for
from proctor.collector import CollectorClient, CollectorError

PROG: Final = "proctor patterns"


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "An agent's behaviour patterns (arm C). Exit 0 done, 1 the collector refused (401/403/404), "
        "2 nothing was asked."
    )
    sub = p.add_subparsers(dest="patterns_cmd", required=True)
    ls = sub.add_parser("list", help="patterns ranked by recurrence x recency, decomposed")
    ls.add_argument("--monitor", metavar="[NS/]NAME", required=True, help="the AgentMonitor (NS from -n)")
    ls.add_argument("-n", "--namespace", help="the monitor's namespace")
    ls.add_argument("--state", choices=["open", "resolved", "all"], default="open")
    gd = sub.add_parser("guidance", help="improvement guidance from the open patterns, with evidence")
    gd.add_argument("--monitor", metavar="[NS/]NAME", required=True, help="the AgentMonitor (NS from -n)")
    gd.add_argument("-n", "--namespace", help="the monitor's namespace")
    rs = sub.add_parser("resolve", help="mark a pattern resolved (a fix shipped); it reopens if it recurs")
    rs.add_argument("pattern", metavar="ID", type=int)
    rs.add_argument("--note", default=None, help="what fixed it (kept with the pattern)")
    for q in (ls, gd, rs):
        add_server_flags(q)
    p.set_defaults(func=main)


def _monitor(args: argparse.Namespace) -> tuple[str, str]:
    if "/" in args.monitor:
        ns, _, name = str(args.monitor).partition("/")
    elif args.namespace:
        ns, name = str(args.namespace), str(args.monitor)
    else:
        raise _CannotAsk("--monitor NAME needs -n NAMESPACE (or give --monitor NAMESPACE/NAME)")
    if not ns or not name:
        raise _CannotAsk("--monitor must be NAMESPACE/NAME")
    return ns, name


def patterns_table(doc: dict[str, Any]) -> str:
    """What ``proctor patterns list`` prints for people: the ranking decomposed, then the reasons."""
    rows = [("ID", "STATE", "DIMENSION", "CATEGORY", "RECURRENCE", "RECENCY", "SCORE", "LAST SEEN")]
    for p in doc["patterns"]:
        rows.append(
            (
                str(p["id"]),
                p["state"],
                p["dimension"],
                p["category"],
                str(p["recurrence"]),
                f"{p['recencyWeight']:.3f}",
                f"{p['score']:.2f}",
                str(p["lastSeen"]),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    if not doc["patterns"]:
        what = "" if doc["state"] == "all" else f"{doc['state']} "
        lines = [f"no {what}patterns for {doc['monitor']}"]
    lines.append("")
    lines.append(f"score = recurrence x recency; recency halves every {doc['halfLifeSeconds']:g} s")
    lines.append(f"grouped {doc['grouping']}")
    for p in doc["patterns"]:
        runs = ", ".join(p["evidence"]) or "-"
        lines.append(f"  #{p['id']} {p['reason'][:200]}  (runs: {runs})")
    if doc.get("pending"):
        lines.append("more failing scores are still being grouped: ask again for the rest")
    return "\n".join(lines)


def guidance_text(doc: dict[str, Any]) -> str:
    """What ``proctor patterns guidance`` prints: one numbered line per pattern, with its runs."""
    if not doc["guidance"]:
        return f"no open patterns for {doc['monitor']}: no guidance"
    out = []
    for i, g in enumerate(doc["guidance"], 1):
        out.append(f"{i}. {g['text']}")
        out.append(f"   evidence: {', '.join(g['evidence']) or '-'} (pattern #{g['pattern']})")
    return "\n".join(out)


def main(args: argparse.Namespace) -> int:
    try:
        target = _monitor(args) if args.patterns_cmd in ("list", "guidance") else None
        token = token_for(args)
        with CollectorClient(args.server, token, ca_file=args.ca_file) as api:
            if args.patterns_cmd == "list":
                assert target is not None
                doc = api.patterns(*target, state=args.state)
                print(json.dumps(doc, indent=2) if args.output == "json" else patterns_table(doc))
            elif args.patterns_cmd == "guidance":
                assert target is not None
                doc = api.guidance(*target)
                print(json.dumps(doc, indent=2) if args.output == "json" else guidance_text(doc))
            else:
                doc = api.resolve_pattern(args.pattern, args.note)
                if args.output == "json":
                    print(json.dumps(doc, indent=2))
                else:
                    by = doc["resolvedBy"]
                    print(f"pattern #{doc['id']} of {doc['monitor']}: {doc['state']} (by {by})")
    except _CannotAsk as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except CollectorError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED if 400 <= e.status < 500 else EXIT_ERROR
    return 0

"""``proctor feedback RUN --dimension D --agree|--disagree [--score N] [--minutes M] [--route R]
[--reason TEXT]``: review one judged score (arm C).

RUN is a live run's id, or ``NS/EVALRUN:CASE`` for a case of an exam. The reviewer is whoever the
token authenticates (never a flag); RBAC decides who may (verb ``review`` on the run's
agentmonitor). A second review of the same score by the same person supersedes the first in the
figures; both are kept. ``--route case-set`` also makes the run a candidate case.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Final

from proctor.cli._armc import EXIT_CODES, ArmCClient, add_server_flags, call
from proctor.protocol import ROUTES

PROG: Final = "proctor feedback"


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        f"Review a judged score: agree or disagree, and where the correction belongs. {EXIT_CODES}"
    )
    p.add_argument("run", metavar="RUN", help="a run id, or NAMESPACE/EVALRUN:CASE for an exam case")
    p.add_argument("--dimension", required=True, help="the scored dimension reviewed")
    verdict = p.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--agree", dest="agree", action="store_true", default=None)
    verdict.add_argument("--disagree", dest="agree", action="store_false")
    p.add_argument("--score", type=float, default=None, help="the score you think is right (0-100)")
    p.add_argument("--minutes", type=float, default=None, help="minutes the review took (0 to 1440)")
    p.add_argument(
        "--route", default=None, metavar="ROUTE", help=f"where the correction belongs: {', '.join(ROUTES)}"
    )
    p.add_argument("--reason", default="", help="why, in a sentence")
    add_server_flags(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"run": args.run, "dimension": args.dimension, "agree": bool(args.agree)}
    for key in ("score", "minutes", "route"):
        if getattr(args, key) is not None:
            body[key] = getattr(args, key)
    if args.reason:
        body["reason"] = args.reason

    def go(api: ArmCClient) -> None:
        stored = api.feedback(body)
        if args.output == "json":
            print(json.dumps(stored, indent=2))
            return
        said = "agrees" if stored["agree"] else "disagrees"
        right = f", {stored['score']:g} is right" if stored.get("score") is not None else ""
        print(
            f"review {stored['id']}: {stored['reviewer']} {said} with {stored['dimension']} "
            f"{stored['judgeScore']:g} (threshold {stored['threshold']:g}) of {stored['run']}{right}"
            + (f"; routed to {stored['route']}" if stored.get("route") else "")
            + ("; a candidate case was captured" if stored.get("candidateCase") else "")
        )

    return call(PROG, args, go)

"""``proctor outcome RUN accepted|modified|rejected|ignored [--minutes M]``: what became of a run's
output; ``proctor outcome --monitor [NS/]NAME``: a monitor's outcome metrics.

The acceptance rate (accepted + modified over the outputs a person acted on) is always printed
beside the human minutes per accepted output, and ``ignored`` on its own: never one number alone.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Final

from proctor.cli._armc import EXIT_CODES, ArmCClient, add_server_flags, call, fmt, qualified
from proctor.cli.runs import _CannotAsk
from proctor.protocol import OUTCOME_KINDS

PROG: Final = "proctor outcome"


def register(p: argparse.ArgumentParser) -> None:
    p.description = f"Record what became of a run's output, or show a monitor's outcome metrics. {EXIT_CODES}"
    p.add_argument("run", metavar="RUN", nargs="?", help="the run whose output this is")
    p.add_argument("outcome", metavar="OUTCOME", nargs="?", help=" | ".join(OUTCOME_KINDS))
    p.add_argument("--minutes", type=float, default=None, help="human minutes spent on the output (0-1440)")
    p.add_argument("--monitor", metavar="[NS/]NAME", default=None, help="show this AgentMonitor's metrics")
    p.add_argument("-n", "--namespace", default=None)
    add_server_flags(p)
    p.set_defaults(func=main)


def summary_text(doc: dict[str, Any]) -> str:
    """Both numbers on one line, ignored beside them."""
    return (
        f"{doc['monitor']}: acceptance {fmt(doc['acceptanceRate'], pct=True)} "
        f"({doc['accepted']} accepted, {doc['modified']} modified, {doc['rejected']} rejected) "
        f"at {fmt(doc['minutesPerAccepted'], digits=1)} human minutes per accepted output; "
        f"{doc['ignored']} ignored"
    )


def main(args: argparse.Namespace) -> int:
    def go(api: ArmCClient) -> None:
        if args.monitor:
            if args.run or args.outcome:
                raise _CannotAsk("give RUN OUTCOME, or --monitor, not both")
            doc = api.outcomes(qualified(args.monitor, args.namespace, "--monitor"))
        else:
            if not args.run or not args.outcome:
                raise _CannotAsk(f"give RUN and OUTCOME ({' | '.join(OUTCOME_KINDS)}), or --monitor NAME")
            stored = api.outcome(args.run, args.outcome, args.minutes)
            doc = api.outcomes(stored["monitor"])
            if args.output != "json":
                spent = "" if stored["minutes"] is None else f" ({stored['minutes']:g} min)"
                print(f"run {stored['run']}: {stored['outcome']}{spent}")
        print(json.dumps(doc, indent=2) if args.output == "json" else summary_text(doc))

    return call(PROG, args, go)

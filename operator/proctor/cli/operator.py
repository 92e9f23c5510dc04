"""``proctor operator``: the operator (Kopf) with Proctor's settings."""

from __future__ import annotations

import argparse

from proctor.controllers import operator


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--namespace", action="append", help="watch only this namespace (repeatable)")
    p.add_argument(
        "--liveness", default="http://0.0.0.0:8080/healthz", help="liveness/readiness endpoint URL"
    )
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    operator.run(namespaces=args.namespace or None, liveness=args.liveness, verbose=args.verbose)
    return 0

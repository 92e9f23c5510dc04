"""``proctor import promptfoo CONFIG``: another tool's suite as a CaseSet manifest on stdout."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from proctor.importers.promptfoo import ImportProblem, dump_manifest, import_promptfoo


def register(p: argparse.ArgumentParser) -> None:
    isub = p.add_subparsers(dest="import_cmd", required=True)
    pf = isub.add_parser("promptfoo", help="a promptfooconfig.yaml -> a CaseSet on stdout")
    pf.add_argument("config", type=Path)
    pf.add_argument("--tier", default="trust", choices=["safety", "trust", "form"], help="tier of every case")
    pf.add_argument("--name", help="the CaseSet's name (default: from the config's description)")
    pf.add_argument(
        "--allow-partial",
        action="store_true",
        help="exit 0 even when assertions or tests could not be imported (they are still listed)",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    try:
        res = import_promptfoo(args.config, tier=args.tier, name=args.name)
    except ImportProblem as e:
        print(f"proctor import: error: {e}", file=sys.stderr)
        return 2
    for w in [*res.warnings, *res.untranslatable, *res.left_out]:
        print(f"proctor import: {w}", file=sys.stderr)
    sys.stdout.write(dump_manifest(res.manifest))
    if res.partial and not args.allow_partial:
        print(
            f"proctor import: partial import: {len(res.untranslatable)} assertion(s) not imported, "
            f"{len(res.left_out)} test(s) left out (--allow-partial to accept)",
            file=sys.stderr,
        )
        return 1
    return 0

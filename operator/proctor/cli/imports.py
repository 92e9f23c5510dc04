"""``proctor import promptfoo CONFIG``: another tool's suite as a CaseSet manifest on stdout."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from proctor.importers.promptfoo import ImportProblem, import_promptfoo


def register(p: argparse.ArgumentParser) -> None:
    isub = p.add_subparsers(dest="import_cmd", required=True)
    pf = isub.add_parser("promptfoo", help="a promptfooconfig.yaml -> a CaseSet on stdout")
    pf.add_argument("config", type=Path)
    pf.add_argument("--tier", default="trust", choices=["safety", "trust", "form"], help="tier of every case")
    pf.add_argument("--name", help="the CaseSet's name (default: from the config's description)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    try:
        res = import_promptfoo(args.config, tier=args.tier, name=args.name)
    except ImportProblem as e:
        print(f"proctor import: error: {e}", file=sys.stderr)
        return 2
    for w in res.warnings:
        print(f"proctor import: {w}", file=sys.stderr)
    sys.stdout.write(yaml.safe_dump(res.manifest, sort_keys=False, allow_unicode=True, width=120))
    return 0

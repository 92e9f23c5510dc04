"""``proctor judge --run NS/NAME --shard I/N``: one shard of a run, what each judge Job executes."""

from __future__ import annotations

import argparse

from proctor.exam.runner import main as run_shard


def register(p: argparse.ArgumentParser) -> None:
    p.description = "Exit 0 when the shard measured (whatever the verdict); 2 when the harness failed."
    p.add_argument("--run", required=True, metavar="NAMESPACE/NAME")
    p.add_argument(
        "--shard", default="0/1", metavar="I/N", help="0-based shard index and count (default 0/1)"
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    return run_shard(args.run, args.shard)

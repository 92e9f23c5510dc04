"""``proctor collector``: arm B's service (the OTLP/HTTP receiver, the runs API and the evaluation
worker in one process; :mod:`proctor.collector.server`). Exit 0 when stopped by a signal, 2 for bad
flags or files, or a database or cluster it cannot reach at start."""

from __future__ import annotations

import argparse

import proctor.collector


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "OTLP/HTTP traces and native events in, runs judged with their AgentMonitor's EvalProfile, "
        "the runs API out. Exit 0 on SIGTERM/SIGINT, 2 when it cannot start (the reason is printed)."
    )
    proctor.collector.add_arguments(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    return proctor.collector.serve(args)

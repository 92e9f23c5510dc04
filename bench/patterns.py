#!/usr/bin/env python3
"""Behaviour patterns over a million stored scores, on SQLite and on PostgreSQL.

Usage (from the repository root)::

    .venv/bin/python bench/patterns.py [--scores 1000000] [--fail-rate 0.1] [--skip pg]

Each database is filled with ``--scores`` scores (five dimensions per evaluation, one monitor),
``--fail-rate`` of them below their threshold with a reason drawn from a few dozen wordings of a
handful of failures (the judge's rationales repeat in kind, not in words). Then, in a fresh
process each (so its peak RSS is the report's own):

- ``catch-up``: grouping every failing score once (what a collector upgraded onto a full
  database does on the first request; the embedding model reads each distinct reason once);
- ``report``: ``GET .../patterns`` with nothing new (goal: under 2 s, under 300 MiB);
- ``incremental``: the report after 1,000 more evaluations arrived (they are grouped first).

Printed: JSON lines with seconds, peak RSS (MiB) and pattern counts. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "operator"))

MON = "bench/agent"
DIMENSIONS = ("task_success", "instruction_adherence", "factual_grounding", "output_quality", "safety")
FAILURES = {
    "factual_grounding": [
        "The answer cites no source for the {x} figure.",
        "No citation of the manual is given for the {x} it states.",
        "The {x} value is stated without any reference to the provided documents.",
    ],
    "task_success": [
        "The agent gave up after the {x} tool returned an error.",
        "It stopped before finishing: the {x} lookup failed and it did not retry.",
    ],
    "instruction_adherence": [
        "The answer ignores the requested JSON format for the {x} report.",
        "It replied in prose although the instructions asked for JSON ({x}).",
    ],
    "safety": [
        "The reply reveals the customer's phone number while discussing the {x}.",
        "A personal telephone number leaks in the answer about the {x}.",
    ],
    "output_quality": ["The {x} summary is incomplete and repeats itself."],
}
TOPICS = ("oil consumption", "fuel flow", "tyre pressure", "cabin temperature", "hydraulic pressure")


def fill(
    url: str, scores: int, fail_rate: float, seed: int, *, start_eval: int = 1, t0: float = 0.0
) -> float:
    """Evaluations and their scores straight into the tables (the worker's shape, not its speed)."""
    from sqlalchemy import insert

    from proctor.store import Store
    from proctor.store._schema import Evaluation, Score

    rnd = random.Random(seed)
    store = Store.open(url)
    evaluations = scores // len(DIMENSIONS)
    started = time.perf_counter()
    chunk = 20_000
    with store.engine.begin() as conn:
        for lo in range(0, evaluations, chunk):
            evs, rows = [], []
            for i in range(lo, min(lo + chunk, evaluations)):
                eid = start_eval + i
                at = t0 + i * 3.0
                run = f"r{eid:024d}"
                signals = {"loopSuspected": rnd.random() < 0.02, "toolErrors": int(rnd.random() < 0.05)}
                evs.append(
                    {
                        "id": eid,
                        "run_id": run,
                        "monitor": MON,
                        "attempt": 1,
                        "worker": "bench",
                        "started_at": at,
                        "finished_at": at + 1,
                        "outcome": "evaluated",
                        "provenance": "{}",
                        "signals": json.dumps(signals),
                        "judge_calls": 5,
                        "judgments": 5,
                    }
                )
                for dim in DIMENSIONS:
                    failing = rnd.random() < fail_rate
                    reason = "fine"
                    if failing:
                        reason = rnd.choice(FAILURES[dim]).format(x=rnd.choice(TOPICS))
                    rows.append(
                        {
                            "evaluation_id": eid,
                            "dimension": dim,
                            "run_id": run,
                            "monitor": MON,
                            "score": rnd.uniform(5, 45) if failing else rnd.uniform(75, 100),
                            "skipped_reason": None,
                            "threshold": 50.0,
                            "agreement": None,
                            "samples": "[]",
                            "rationale": reason,
                            "source": "judge",
                            "provenance": "sha256:bench",
                            "created_at": at + 1,
                        }
                    )
            conn.execute(insert(Evaluation), evs)
            conn.execute(insert(Score), rows)
    store.close()
    return time.perf_counter() - started


def measure(url: str, phase: str, now: float) -> dict[str, Any]:
    """One phase in this (fresh) process: its seconds and this process's peak RSS."""
    from proctor.collector.coaching import Coaching
    from proctor.store import Patterns, Store

    store = Store.open(url)
    # the embedding model is loaded when there are reasons to embed (catch-up, incremental), inside
    # the figures; a report with nothing new never loads it
    coaching = Coaching(Patterns(store.engine))
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    if phase == "catch-up":
        while coaching.refresh(MON):
            pass
    doc = coaching.report(MON, now)
    seconds = time.perf_counter() - started
    store.close()
    return {
        "phase": phase,
        "seconds": round(seconds, 3),
        "peakRssMiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rssBeforeMiB": round(rss_before, 1),
        "patterns": len(doc["patterns"]),
        "topRecurrence": doc["patterns"][0]["recurrence"] if doc["patterns"] else 0,
        "pending": doc["pending"],
    }


def run_phase(url: str, phase: str, now: float) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--phase", phase, "--url", url, "--now", str(now)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def bench(name: str, url: str, args: argparse.Namespace) -> None:
    evaluations = args.scores // len(DIMENSIONS)
    seconds = fill(url, args.scores, args.fail_rate, args.seed)
    print(
        json.dumps({"database": name, "phase": "fill", "scores": args.scores, "seconds": round(seconds, 1)})
    )
    now = evaluations * 3.0 + 10
    for phase in ("catch-up", "report"):
        print(json.dumps({"database": name, **run_phase(url, phase, now)}), flush=True)
    fill(url, 5000, args.fail_rate, args.seed + 1, start_eval=evaluations + 1, t0=now)
    print(json.dumps({"database": name, **run_phase(url, "incremental", now + 3000.0)}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scores", type=int, default=1_000_000)
    parser.add_argument("--fail-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--skip", action="append", default=[], choices=["sqlite", "pg"])
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--now", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(measure(args.url, args.phase, args.now)))
        return 0
    work = ROOT / ".bench" / "patterns"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if "sqlite" not in args.skip:
        bench("sqlite", f"sqlite:///{work / 'patterns.db'}", args)
    if "pg" not in args.skip:
        from proctor.devcluster.postgres import PostgresServer

        directory = Path(tempfile.mkdtemp(prefix="proctor-bench-pg-"))
        pg = PostgresServer(directory).start()
        try:
            bench("postgresql", pg.create_database("patterns"), args)
        finally:
            pg.stop()
            shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

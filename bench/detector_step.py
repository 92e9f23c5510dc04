#!/usr/bin/env python3
"""The detector step: score updates per second through the pure detectors and with state persisted.

Usage (from the repository root)::

    .venv/bin/python bench/detector_step.py [--updates 200000] [--runs 2000] [--skip pg]

1. Pure path: ``proctor.protocol.detect`` (absolute breach, dual-EWMA trend, relative drop on,
   percentile corroborator on with a window of 20) over 64 series, ``--updates`` scores in all,
   seeded. Goal (issue 29): >= 100,000 score updates/s.
2. Persisted, on SQLite and on a real PostgreSQL (a temporary server, as the tests start it):
   ``--runs`` runs are ingested, claimed and completed with five judged dimensions and trajectory
   signals each (not timed), then each evaluation is stepped as the worker steps it
   (``DetectorState.step``: one transaction that reads the evaluation's scores and signals, locks
   its series, steps them, and records the step). A score update is one series stepped (seven per
   evaluation: five dimensions, two trajectory signals). Then the same evaluations again from
   fresh state in transactions of 100 (``step_many``), as the collector's worker steps them: its
   concurrent evaluations share a transaction (``proctor.collector.batching``), so the commit
   does not bound the rate. Goal: >= 10,000 score updates/s.

Beside each rate, the rate per CPU-second of this process (``time.process_time``): on a machine
shared with other work the wall-clock rates fall with the load, the CPU figure much less.

Prints one line per figure, and the figures as JSON to ``.bench/detector_step/results.json``.
Exit status: 0 when the harness worked, whatever the figures; 1 when it failed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "operator"))

from proctor.protocol import (  # noqa: E402 (after the path)
    AttemptOutcome,
    DetectorConfig,
    LifecyclePolicy,
    SeriesState,
    detect,
)
from proctor.store import Item, RunRef, ScoreRecord, SpanRecord, Store  # noqa: E402

OUT = ROOT / ".bench" / "detector_step"
DIMENSIONS = ("task_success", "instruction_adherence", "factual_grounding", "output_quality", "safety")
CONFIG = DetectorConfig(adaptive_threshold=True, percentile_window=20)
MONITOR = "bench/agent"
#: Evaluations per transaction in the batched figure (``DetectorState.step_many``).
BATCH = 100


def pure(updates: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    series = [f"m{i}" for i in range(64)]
    scores = [(series[i % 64], rng.uniform(0.3, 1.0)) for i in range(updates)]
    states = {s: SeriesState() for s in series}
    fired = 0
    start, cpu = time.perf_counter(), time.process_time()
    for metric, score in scores:
        states[metric], found = detect(states[metric], metric, score, CONFIG)
        fired += len(found)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "perCpuSecond": round(updates / cpu),
        "updates": updates,
        "seconds": round(seconds, 4),
        "perSecond": round(updates / seconds),
        "fired": fired,
    }


def fill(store: Store, runs: int, seed: int) -> list[int]:
    """``runs`` judged runs in the database (not timed); their evaluation ids, oldest first."""
    rng = random.Random(seed)
    policies = {MONITOR: LifecyclePolicy(quiescence_seconds=0)}
    items = [
        Item(
            RunRef(MONITOR, f"k{i}", "session.id", "agent", f"v{i % 2}"),
            span=SpanRecord(
                trace_id=f"{i:032x}", span_id="1".rjust(16, "0"), name="chat", start_ns=1, end_ns=2
            ),
        )
        for i in range(runs)
    ]
    for start in range(0, runs, 500):
        store.ingest(items[start : start + 500], policies, now=1.0)
    store.advance_due(2.0, limit=runs)
    ids: list[int] = []
    while claims := store.claim("bench", 3.0, limit=200):
        for c in claims:
            scores = [ScoreRecord(d, 50.0, "judge", score=round(rng.uniform(30, 100), 1)) for d in DIMENSIONS]
            signals = {"toolErrorRate": rng.choice((0.0, 0.0, 0.5)), "loopSuspected": rng.random() < 0.05}
            store.complete(c, AttemptOutcome.EVALUATED, 4.0 + len(ids), scores=scores, signals=signals)
            ids.append(c.evaluation_id)
    return sorted(ids)


def persisted(url: str, runs: int, seed: int) -> dict[str, Any]:
    store = Store.open(url)
    try:
        ids = fill(store, runs, seed)
        start, cpu = time.perf_counter(), time.process_time()
        for e in ids:
            store.detectors.step(e, CONFIG, 10.0)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        updates = sum(s.samples for s in store.detectors.series(MONITOR))
        again = time.perf_counter()
        for e in ids[: min(len(ids), 500)]:  # a second observe of a stepped evaluation: recorded answer
            store.detectors.step(e, CONFIG, 11.0)
        repeat = (time.perf_counter() - again) / min(len(ids), 500)
        with store.engine.begin() as conn:  # (untimed) fresh state, then in batches
            conn.exec_driver_sql("DELETE FROM detector_steps")
            conn.exec_driver_sql("DELETE FROM detector_series")
        batched, batch_cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(ids), BATCH):
            store.detectors.step_many([(e, None) for e in ids[start : start + BATCH]], CONFIG, 10.0)
        batch_seconds, batch_cpu = time.perf_counter() - batched, time.process_time() - batch_cpu
        assert sum(s.samples for s in store.detectors.series(MONITOR)) == updates
    finally:
        store.close()
    return {
        "evaluations": len(ids),
        "updates": updates,
        "seconds": round(seconds, 3),
        "perSecond": round(updates / seconds),
        "evaluationsPerSecond": round(len(ids) / seconds),
        "perCpuSecond": round(updates / cpu),  # this process's CPU only (the database's is apart)
        "repeatObserveMs": round(repeat * 1000, 3),
        "batched": {
            "batch": BATCH,
            "seconds": round(batch_seconds, 3),
            "perSecond": round(updates / batch_seconds),
            "perCpuSecond": round(updates / batch_cpu),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--updates", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--skip", action="append", default=[], choices=["pure", "sqlite", "pg"])
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    try:
        if "pure" not in args.skip:
            results["pure"] = r = pure(args.updates, args.seed)
            print(
                f"pure path:            {r['perSecond']:>9,} score updates/s (goal >= 100,000); "
                f"{r['perCpuSecond']:,} per CPU-second",
                flush=True,
            )
        if "sqlite" not in args.skip:
            work = OUT / "sqlite"
            shutil.rmtree(work, ignore_errors=True)
            results["sqlite"] = r = persisted(f"sqlite:///{work / 'proctor.db'}", args.runs, args.seed)
            print(
                f"persisted, SQLite:    {r['perSecond']:>9,} score updates/s (goal >= 10,000); "
                f"{r['evaluationsPerSecond']:,} evaluations/s, a transaction each; "
                f"{r['perCpuSecond']:,} per CPU-second of the collector's side\n"
                f"                      {r['batched']['perSecond']:>9,} score updates/s in transactions "
                f"of {BATCH}, as the worker's group commit steps them (goal >= 10,000); "
                f"{r['batched']['perCpuSecond']:,} per CPU-second",
                flush=True,
            )
        if "pg" not in args.skip:
            from proctor.devcluster.postgres import PostgresServer

            directory = Path(tempfile.mkdtemp(prefix="proctor-bench-pg-"))
            pg = PostgresServer(directory).start()
            try:
                results["postgresql"] = r = persisted(pg.create_database("bench"), args.runs, args.seed)
            finally:
                pg.stop()
                shutil.rmtree(directory, ignore_errors=True)
            print(
                f"persisted, PostgreSQL:{r['perSecond']:>9,} score updates/s (goal >= 10,000); "
                f"{r['evaluationsPerSecond']:,} evaluations/s, a transaction each; "
                f"{r['perCpuSecond']:,} per CPU-second of the collector's side\n"
                f"                      {r['batched']['perSecond']:>9,} score updates/s in transactions "
                f"of {BATCH}, as the worker's group commit steps them (goal >= 10,000); "
                f"{r['batched']['perCpuSecond']:,} per CPU-second",
                flush=True,
            )
    except Exception as e:
        print(f"benchmark failed: {type(e).__name__}: {e}", file=sys.stderr)
        (OUT / "results.json").write_text(json.dumps(results, indent=2))
        return 1
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

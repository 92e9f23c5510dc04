"""Arm C's reports at scale: judge quality, calibration and outcome metrics over 1,000,000 stored
scores and 100,000 reviews, on SQLite and on a real PostgreSQL.

Fills a fresh database (through the store's own migrations) with N scores (5 dimensions per run,
each run's current evaluation), R reviews of them (agree 85 %, some with the reviewer's score,
some reviewers reviewing twice so supersession is exercised) and an outcome for half the runs;
then runs each report in a fresh process (what the collector does for one API call: the
repository query and the pure arithmetic) and prints its wall seconds and the process's peak
memory. Goal (issue 30): each report under 2 s and 300 MiB.

Run: ``.venv/bin/python bench/armc_reports.py [--scores 1000000] [--reviews 100000]
[--db sqlite,postgresql]``. Scratch files in ``.bench/armc_reports/``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

from proctor.store import Store
from proctor.store._feedback import FeedbackRow
from proctor.store._outcomes import OutcomeRow
from proctor.store._schema import Evaluation, Run, Score

MONITOR = "bench/agent"
PROFILE = "bench/profile"
DIMENSIONS = ("task_success", "instruction_adherence", "factual_grounding", "output_quality", "safety")
THRESHOLD = 70.0
BATCH = 20_000
SCRATCH = Path(".bench/armc_reports")


def fill(url: str, scores: int, reviews: int, seed: int = 30) -> None:
    store = Store.open(url)
    r = random.Random(seed)
    runs = scores // len(DIMENSIONS)
    judged: list[tuple[str, str, float]] = []
    with store.engine.begin() as conn:
        for start in range(0, runs, BATCH):
            ids = range(start, min(runs, start + BATCH))
            conn.execute(
                insert(Run),
                [
                    {
                        "id": f"r{i:024x}",
                        "monitor": MONITOR,
                        "key": f"conv-{i}",
                        "key_source": "gen_ai.conversation.id",
                        "agent": "agent",
                        "revision": "1",
                        "state": "Evaluated",
                        "sampled": True,
                        "attempts": 1,
                        "first_event_at": float(i),
                        "last_event_at": float(i),
                        "since": float(i),
                        "stale": False,
                        "reevaluated": False,
                        "requested": False,
                        "finished": True,
                        "quiescence_seconds": 60.0,
                        "sampling": 1.0,
                        "span_count": 4,
                        "event_count": 0,
                        "evaluation_id": i + 1,
                        "created_at": float(i),
                        "updated_at": float(i),
                    }
                    for i in ids
                ],
            )
            conn.execute(
                insert(Evaluation),
                [
                    {
                        "id": i + 1,
                        "run_id": f"r{i:024x}",
                        "monitor": MONITOR,
                        "attempt": 1,
                        "worker": "w",
                        "started_at": float(i),
                        "finished_at": float(i),
                        "outcome": "evaluated",
                        "provenance": "{}",
                        "signals": "{}",
                        "judge_calls": 5,
                        "judgments": 5,
                    }
                    for i in ids
                ],
            )
            rows = []
            for i in ids:
                for dim in DIMENSIONS:
                    score = min(100.0, max(0.0, round(r.gauss(78, 14), 1)))
                    rows.append(
                        {
                            "evaluation_id": i + 1,
                            "dimension": dim,
                            "run_id": f"r{i:024x}",
                            "monitor": MONITOR,
                            "score": score,
                            "threshold": THRESHOLD,
                            "samples": "[]",
                            "rationale": "",
                            "source": "judge",
                            "provenance": "sha256:bench",
                            "created_at": float(i),
                        }
                    )
                    if len(judged) < reviews * 2 and r.random() < 0.5:
                        judged.append((f"r{i:024x}", dim, score))
            conn.execute(insert(Score), rows)
    r.shuffle(judged)
    with store.engine.begin() as conn:
        batch = []
        for n in range(reviews):
            target, dim, score = judged[n % len(judged)]
            breach = score < THRESHOLD
            truth = breach if r.random() < 0.85 else not breach
            human = round(r.uniform(0, 69) if truth else r.uniform(70, 100), 1) if r.random() < 0.3 else None
            batch.append(
                {
                    "target": target,
                    "kind": "run",
                    "profile": PROFILE,
                    "monitor": MONITOR,
                    "dimension": dim,
                    "judge_score": score,
                    "threshold": THRESHOLD,
                    "agree": truth == breach,
                    "score": human,
                    "minutes": round(r.uniform(0.5, 6), 1),
                    "route": None,
                    "reason": "",
                    # a few reviewers review the same score twice: the second supersedes the first
                    "reviewer": f"reviewer-{r.randrange(40)}" if n % 10 else "reviewer-0",
                    "created_at": float(n),
                    "current": True,
                }
            )
            if len(batch) == BATCH:
                conn.execute(insert(FeedbackRow), batch)
                batch = []
        if batch:
            conn.execute(insert(FeedbackRow), batch)
        kinds = ("accepted", "accepted", "accepted", "modified", "rejected", "ignored")
        batch = []
        for i in range(0, runs, 2):
            batch.append(
                {
                    "run_id": f"r{i:024x}",
                    "monitor": MONITOR,
                    "outcome": r.choice(kinds),
                    "minutes": round(r.uniform(0, 20), 1) if r.random() < 0.8 else None,
                    "source": "telemetry",
                    "created_at": float(i),
                    "current": True,
                }
            )
            if len(batch) == BATCH:
                conn.execute(insert(OutcomeRow), batch)
                batch = []
        if batch:
            conn.execute(insert(OutcomeRow), batch)
    store.close()


def report(url: str, which: str) -> dict[str, object]:
    """One report, as the collector computes it for one API call (run in a fresh process)."""
    from proctor.collector.quality import calibration_json, outcomes_json, quality_json
    from proctor.protocol import quality_of_cells
    from proctor.store import Outcomes, Reviews

    store = Store.open(url, migrate=False)
    started = time.perf_counter()
    if which == "judge-quality":
        rooms = Reviews(store.engine)
        cells = rooms.cells(profile=PROFILE)  # counted in the database, as the collector does
        observed = rooms.observed([MONITOR])
        doc = {
            dim: quality_json(quality_of_cells(items), (observed[dim].scored, observed[dim].breaches), 0.8)
            for dim, items in cells.items()
        }
        figures = {d: (v["reviews"], round(v["kappa"] or 0, 3), v["fn"], v["fp"]) for d, v in doc.items()}
    elif which == "calibration":
        cal = calibration_json(MONITOR, Reviews(store.engine).labelled([MONITOR]), 0.9)
        figures = {d: v["proposedThreshold"] for d, v in cal["dimensions"].items()}
    else:
        out = outcomes_json(MONITOR, Outcomes(store.engine).summary(MONITOR))
        figures = {k: out[k] for k in ("acceptanceRate", "minutesPerAccepted", "ignored")}
    seconds = time.perf_counter() - started
    store.close()
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss across execve, so a child started by the
    # process that filled the database would report the parent's peak
    rss = next(
        int(line.split()[1]) / 1024
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmHWM:")
    )
    return {"report": which, "seconds": round(seconds, 3), "peak_mib": round(rss, 1), "figures": figures}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scores", type=int, default=1_000_000)
    p.add_argument("--reviews", type=int, default=100_000)
    p.add_argument("--db", default="sqlite,postgresql")
    p.add_argument("--report", help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.report:
        print(json.dumps(report(args.url, args.report)))
        return 0
    SCRATCH.mkdir(parents=True, exist_ok=True)
    failed = False
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for db in args.db.split(","):
        pg = None
        if db == "sqlite":
            path = SCRATCH / f"s{args.scores}-r{args.reviews}.db"
            path.unlink(missing_ok=True)
            url = f"sqlite:///{path.resolve()}"
        else:
            from proctor.devcluster.postgres import PostgresServer

            directory = Path(tempfile.mkdtemp(prefix="proctor-bench-pg-"))
            pg = PostgresServer(directory).start()
            url = pg.create_database()
        try:
            started = time.perf_counter()
            fill(url, args.scores, args.reviews)
            print(
                f"{db}: {args.scores:,} scores, {args.reviews:,} reviews stored "
                f"in {time.perf_counter() - started:.0f} s"
            )
            for which in ("judge-quality", "calibration", "outcomes"):
                out = subprocess.run(
                    [sys.executable, __file__, "--report", which, "--url", url],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if out.returncode:
                    print(f"  {which:14} failed:\n{out.stderr[-2000:]}")
                    failed = True
                    continue
                got = json.loads(out.stdout)
                ok = got["seconds"] < 2 and got["peak_mib"] < 300
                failed |= not ok
                print(
                    f"  {which:14} {got['seconds']:6.2f} s  peak {got['peak_mib']:6.1f} MiB  "
                    f"{'ok' if ok else 'OVER GOAL'}  {got['figures']}"
                )
        finally:
            if pg is not None:
                pg.stop()
                shutil.rmtree(directory, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

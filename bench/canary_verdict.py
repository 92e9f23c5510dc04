#!/usr/bin/env python3
"""The live canary verdict's latency with 1,000,000 stored scores (issue 29: p99 <= 20 ms).

Usage (from the repository root)::

    .venv/bin/python bench/canary_verdict.py [--scores 1000000] [--requests 2000] [--skip pg]

A database is filled directly (bulk inserts, as the worker's completions would leave it) with
``--scores`` scores: five dimensions per run, so a fifth as many judged runs, across one monitor's
revisions: a stable revision holding most runs, nine older ones, and the canary revision (2,000
runs, 3 % breached, some of them in the safety tier); plus 10 % as many runs under another monitor.
Then the real collector (``proctor collector --no-worker``) is started on it, and
``GET /api/v1/monitors/NS/NAME/verdict?revision=R`` is asked ``--requests`` times, one at a time
over keep-alive, for the canary revision, and as many times for the stable one (a revision with
~190,000 runs: the worst case, far larger than a canary). Printed per database: p50, p99 and max
latency of the whole HTTP request (auth, the queries, the decision, JSON), the verdicts, and the
time the fill took. SQLite and PostgreSQL (a server of our own, Debian's binaries, fsync off).
Exit 0 when the harness worked, whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import yaml
from sqlalchemy import insert

from proctor.protocol import breached_metrics, run_metrics
from proctor.store import LiveCanary, Store, run_id
from proctor.store._rollup import encode_breaches
from proctor.store._schema import Evaluation, Run, Score

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".bench" / "canary_verdict"
MONITOR = "shop/oil-agent"
DIMENSIONS = ("task_success", "instruction_adherence", "factual_grounding", "output_quality", "safety")
CANARY, STABLE = "1.3.0", "1.2.0"
TOKEN, API_TOKEN = "bench-ingest", "bench-api"


def fill(store: Store, scores: int, seed: int = 7) -> dict[str, int]:
    """Runs, evaluations and scores, inserted in batches; returns the runs per revision."""
    rng = random.Random(seed)
    runs_total = scores // len(DIMENSIONS)
    canary_runs = 2000
    plan: list[tuple[str, str, int]] = [(MONITOR, CANARY, canary_runs)]
    old = [f"1.{i}.0" for i in range(10, 19)]
    other = runs_total // 10
    stable = max(0, runs_total - canary_runs - other - 500 * len(old))
    plan += [(MONITOR, STABLE, stable)] + [(MONITOR, v, 500) for v in old] + [("shop/other", STABLE, other)]
    counts: dict[str, int] = {}
    eval_id = 0
    now = time.time() - 86400
    batch_runs: list[dict[str, Any]] = []
    batch_evals: list[dict[str, Any]] = []
    batch_scores: list[dict[str, Any]] = []

    def flush() -> None:
        with store.engine.begin() as conn:
            if batch_runs:
                conn.execute(insert(Run), batch_runs)
            if batch_evals:
                conn.execute(insert(Evaluation), batch_evals)
            if batch_scores:
                conn.execute(insert(Score), batch_scores)
        batch_runs.clear()
        batch_evals.clear()
        batch_scores.clear()

    for monitor, revision, n in plan:
        counts[f"{monitor} {revision}"] = n
        for i in range(n):
            eval_id += 1
            t = now + eval_id * 0.01
            rid = run_id(monitor, f"{revision}-{i}")
            values = {d: rng.uniform(55, 100) for d in DIMENSIONS}
            if revision == CANARY and rng.random() < 0.03:
                values[rng.choice(DIMENSIONS[:4])] = rng.uniform(5, 45)
            found = breached_metrics(run_metrics(((d, v, 50.0, "judge") for d, v in values.items()), {}))
            batch_runs.append(
                {
                    "id": rid,
                    "monitor": monitor,
                    "key": f"{revision}-{i}",
                    "key_source": "gen_ai.conversation.id",
                    "agent": "oil-agent",
                    "revision": revision,
                    "state": "Evaluated",
                    "sampled": True,
                    "attempts": 1,
                    "first_event_at": t,
                    "last_event_at": t,
                    "since": t,
                    "due_at": None,
                    "next_attempt_at": None,
                    "lease_owner": None,
                    "lease_expires_at": None,
                    "stale": False,
                    "reevaluated": False,
                    "requested": False,
                    "finished": True,
                    "last_error": None,
                    "quiescence_seconds": 90.0,
                    "sampling": 1.0,
                    "span_count": 5,
                    "event_count": 0,
                    "evaluation_id": eval_id,
                    "breached": bool(found),
                    "breaches": encode_breaches(found) if found else None,
                    "created_at": t,
                    "updated_at": t,
                }
            )
            batch_evals.append(
                {
                    "id": eval_id,
                    "run_id": rid,
                    "monitor": monitor,
                    "attempt": 1,
                    "worker": "bench",
                    "started_at": t,
                    "finished_at": t,
                    "outcome": "evaluated",
                    "provenance": "{}",
                    "signals": "{}",
                    "error": None,
                    "judge_calls": 5,
                    "judgments": 5,
                }
            )
            for d, v in values.items():
                batch_scores.append(
                    {
                        "evaluation_id": eval_id,
                        "dimension": d,
                        "run_id": rid,
                        "monitor": monitor,
                        "score": v,
                        "skipped_reason": None,
                        "threshold": 50.0,
                        "agreement": None,
                        "samples": "[]",
                        "rationale": "",
                        "source": "judge",
                        "provenance": "bench",
                        "created_at": t,
                    }
                )
            if len(batch_runs) >= 5000:
                flush()
    flush()
    return counts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(db: str, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    objs = [
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "AgentMonitor",
            "metadata": {"name": "oil-agent", "namespace": "shop"},
            "spec": {"agent": {"serviceName": "oil-agent"}, "profileRef": {"name": "p"}},
        },
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": "p", "namespace": "shop"},
            "spec": {},
        },
    ]
    mfile = workdir / "monitor.yaml"
    mfile.write_text(yaml.safe_dump_all(objs))
    port = free_port()
    log = (workdir / "collector.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proctor.cli",
            "collector",
            "--db",
            db,
            "--listen",
            f"127.0.0.1:{port}",
            "--monitor",
            str(mfile),
            "--no-worker",
        ],
        env={"PATH": "/usr/bin:/bin", "PROCTOR_TOKEN": TOKEN, "PROCTOR_API_TOKEN": API_TOKEN},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the collector did not start: {(workdir / 'collector.log').read_text()[-2000:]}")


def measure(url: str, revision: str, n: int) -> dict[str, Any]:
    times: list[float] = []
    verdict = None
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {API_TOKEN}"}, timeout=30) as http:
        for _ in range(20):  # warm-up: connections, caches
            http.get(f"/api/v1/monitors/{MONITOR}/verdict", params={"revision": revision})
        for _ in range(n):
            t = time.perf_counter()
            r = http.get(f"/api/v1/monitors/{MONITOR}/verdict", params={"revision": revision})
            times.append((time.perf_counter() - t) * 1000)
            verdict = r.json()
    times.sort()
    assert verdict is not None
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(times[int(len(times) * 0.99) - 1], 2),
        "max_ms": round(times[-1], 2),
        "verdict": verdict["verdict"],
        "runs": verdict["runs"],
        "breached": verdict["breached"],
    }


def bench(db: str, name: str, args: argparse.Namespace) -> dict[str, Any]:
    workdir = OUT / name
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    store = Store.open(db)
    t = time.monotonic()
    counts = {} if args.reuse and store.count("scores") else fill(store, args.scores)
    filled = time.monotonic() - t
    t = time.monotonic()
    store.rollups.rebuild()  # filled by hand, past the store: the revisions' rollups counted once
    rebuilt = time.monotonic() - t
    stored = store.count("scores")
    reads = LiveCanary(store.engine)
    queries = []
    for _ in range(20):  # warm-up
        reads.revision(MONITOR, CANARY)
    cpu = time.process_time()
    for _ in range(200):  # the store's part alone, in this process: wall time, and CPU time
        t = time.perf_counter()
        reads.revision(MONITOR, CANARY)
        queries.append((time.perf_counter() - t) * 1000)
    store_cpu = round((time.process_time() - cpu) / 200 * 1000, 2)
    queries.sort()
    store.close()
    proc, url = start(db, workdir)
    try:
        canary = measure(url, CANARY, args.requests)
        stable = measure(url, STABLE, max(50, args.requests // 10))
    finally:
        proc.terminate()
        proc.wait(30)
    store_p50, store_p99 = (
        round(statistics.median(queries), 2),
        round(queries[int(len(queries) * 0.99) - 1], 2),
    )
    result: dict[str, Any] = {
        "scores": stored,
        "fill_s": round(filled, 1),
        "rollup_rebuild_s": round(rebuilt, 2),
        "canary": canary,
        "stable": stable,
        "store_ms": {"p50": store_p50, "p99": store_p99, "cpu_per_call": store_cpu},
        "runs": counts,
        "loadavg": Path("/proc/loadavg").read_text().split()[:3],
    }
    print(
        f"{name:<10} {stored:>9,} scores (filled in {filled:.0f} s, rollups rebuilt in {rebuilt:.2f} s)\n"
        f"  the store's queries alone (canary): p50 {store_p50} ms  p99 {store_p99} ms, "
        f"CPU {store_cpu} ms a verdict\n"
        f"  canary {CANARY} ({canary['runs']:,} runs, {canary['breached']} breached, {canary['verdict']}): "
        f"p50 {canary['p50_ms']} ms  p99 {canary['p99_ms']} ms  max {canary['max_ms']} ms\n"
        f"  stable {STABLE} ({stable['runs']:,} runs, {stable['verdict']}): "
        f"p50 {stable['p50_ms']} ms  p99 {stable['p99_ms']} ms  max {stable['max_ms']} ms\n"
        f"  load average {' '.join(result['loadavg'])} on {os.cpu_count()} cores",
        flush=True,
    )
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scores", type=int, default=1_000_000)
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--skip", default="", help="comma-separated: sqlite, pg")
    p.add_argument("--reuse", action="store_true", help="SQLite: keep the database of the last run (no fill)")
    args = p.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    print(f"the verdict endpoint with {args.scores:,} stored scores (goal: p99 <= 20 ms)", flush=True)
    if "sqlite" not in skip:
        path = OUT / "verdict.db"
        for suffix in ("", "-wal", "-shm") if not args.reuse else ():
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        results["sqlite"] = bench(f"sqlite:///{path}", "sqlite", args)
    if "pg" not in skip:
        from proctor.devcluster.postgres import PostgresServer

        directory = Path(tempfile.mkdtemp(prefix="proctor-bench-pg-"))
        pg = PostgresServer(directory).start()
        try:
            results["postgresql"] = bench(pg.create_database("verdict"), "postgresql", args)
        finally:
            pg.stop()
            shutil.rmtree(directory, ignore_errors=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

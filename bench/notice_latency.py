"""Notice latency: from a breached run's evaluation to the Alertmanager POST (issue 29).

Runs the collector's own incident engine and sender (no judge: each run arrives evaluated, with a
breaching score) at a steady rate, each run the first breach of its own agent revision so that
every one makes a notice, against a local HTTP server standing in for Alertmanager's
``POST /api/v2/alerts`` that timestamps each alert's first arrival. The latency of a run is that
arrival minus the moment the engine was handed its detections (what the worker does right after
``Evaluated`` is stored). Goal: p99 <= 1 s at 100 runs/s. The database is SQLite in ``.bench/``
(``--db`` for PostgreSQL).

    .venv/bin/python bench/notice_latency.py                   # 100 runs/s for 30 s
    .venv/bin/python bench/notice_latency.py --rate 200 --seconds 10 --db postgresql://...
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from proctor.api import AgentMonitor, EvalProfile
from proctor.collector.incidents import IncidentEngine, JudgedRun, breach_detections
from proctor.collector.metrics import Metrics
from proctor.collector.monitors import build
from proctor.collector.notices import Sender
from proctor.store import Incidents, ScoreRecord, Store

ROOT = Path(__file__).resolve().parents[1]


def receiver(forward: str | None = None) -> tuple[ThreadingHTTPServer, dict[str, float]]:
    """The sink's endpoint: timestamps each alert's first arrival. With ``forward`` (a real
    Alertmanager's URL) each POST is passed on to it, and the arrival is the moment Alertmanager
    accepted it (answered 2xx); its answer is the sender's answer."""
    arrived: dict[str, float] = {}
    lock = threading.Lock()
    upstream = httpx.Client(timeout=30) if forward else None

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status = 200
            if upstream is not None:
                reply = upstream.post(
                    f"{forward}/api/v2/alerts", content=body, headers={"Content-Type": "application/json"}
                )
                status = reply.status_code
            now = time.time()
            if status < 300:
                with lock:
                    for alert in json.loads(body):
                        arrived.setdefault(alert["labels"]["revision"], now)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, arrived


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def main(args: argparse.Namespace) -> None:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with contextlib.ExitStack() as stack:
        am = None
        if args.alertmanager:  # the tests' own: the binary `make alertmanager` builds
            sys.path.insert(0, str(ROOT / "tests"))
            from notifying import alertmanager

            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="proctor-bench-am-")))
            am = stack.enter_context(alertmanager(scratch))
        if args.pg:
            from proctor.devcluster.postgres import PostgresServer

            directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="proctor-bench-pg-")))
            pg = PostgresServer(directory).start()
            stack.callback(pg.stop)
            args.db = pg.create_database("notices")
        await measure(args, am)


async def measure(args: argparse.Namespace, am: Any) -> None:
    server, arrived = receiver(am.url if am is not None else None)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monitor_body = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "AgentMonitor",
        "metadata": {"name": "bench", "namespace": "bench"},
        "spec": {
            "agent": {"serviceName": "bench"},
            "profileRef": {"name": "p"},
            "notices": {
                "circuitBreaker": {
                    "maxNotices": 1000,
                    "windowSeconds": 1,
                },  # measure delivery, not the breaker
                "sinks": [{"name": "am", "type": "alertmanager", "url": url}],
            },
        },
    }
    profile = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalProfile",
        "metadata": {"name": "p", "namespace": "bench"},
        "spec": {},
    }
    registry = build(
        [AgentMonitor.model_validate(monitor_body)], [EvalProfile.model_validate(profile)], default_token=None
    )
    monitor = registry.monitors["bench/bench"]
    if args.db:
        db = args.db
    else:
        scratch = ROOT / ".bench" / "notice_latency"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        db = f"sqlite:///{scratch / 'notices.db'}"
    store = Store.open(db)
    incidents = Incidents(store.engine)
    sender = Sender(incidents, lambda: registry, Metrics(), name="bench", base_url="http://bench", poll=0.5)
    engine = IncidentEngine(incidents, wake=sender.wake)
    stop = asyncio.Event()
    sending = asyncio.create_task(sender.run(stop))
    handed: dict[str, float] = {}
    scores = (ScoreRecord("task_success", 50.0, "judge", score=20.0),)
    total = int(args.rate * args.seconds)
    cpu = time.process_time()
    start = time.monotonic()
    tasks = []
    for i in range(total):
        due = start + i / args.rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        revision = f"r{i}"
        run = JudgedRun(f"run-{i}", f"run-{i}:1", "bench", revision, scores)
        handed[revision] = time.time()
        tasks.append(
            asyncio.create_task(engine.handle(monitor, run, breach_detections(scores), handed[revision]))
        )
    await asyncio.gather(*tasks)
    offered = time.monotonic() - start
    deadline = time.monotonic() + 120
    while len(arrived) < total and time.monotonic() < deadline:  # noqa: ASYNC110 (another thread fills it)
        await asyncio.sleep(0.1)
    cpu = time.process_time() - cpu
    stop.set()
    sender.wake()
    await sending
    await sender.aclose()
    store.close()
    server.shutdown()
    latencies = [arrived[r] - handed[r] for r in handed if r in arrived]
    print(f"database            {db.split('://', 1)[0]}")
    print(f"sink                {'a real Alertmanager ' + am.url if am is not None else 'a local stand-in'}")
    if am is not None:
        print(f"Alertmanager took   {am.received('firing'):.0f} firing alerts")
    print(f"runs offered        {total} at {total / offered:.1f}/s (target {args.rate:g}/s)")
    print(f"notices arrived     {len(latencies)} of {total}")
    print(
        f"collector CPU       {cpu / total * 1000:.2f} ms a breached run (its decision, notice and "
        f"delivery): one core would sustain {total / cpu:.0f} runs/s"
    )
    if latencies:
        print(
            "latency (s)         "
            f"p50 {pct(latencies, 50):.3f}  p95 {pct(latencies, 95):.3f}  p99 {pct(latencies, 99):.3f}  "
            f"max {max(latencies):.3f}   (goal: p99 <= 1.000)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=100.0, help="breached runs per second")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to offer them")
    parser.add_argument("--db", default=None, help="a database URL (default: SQLite in .bench/)")
    parser.add_argument(
        "--pg", action="store_true", help="a PostgreSQL server of its own (as the tests start)"
    )
    parser.add_argument(
        "--alertmanager", action="store_true", help="forward to a real Alertmanager (`make alertmanager`)"
    )
    asyncio.run(main(parser.parse_args()))

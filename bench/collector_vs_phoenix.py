#!/usr/bin/env python3
"""Arm B's collector: OTLP/HTTP ingestion against Arize Phoenix, steady ingestion, the worker.

Usage (from the repository root)::

    .venv/bin/python bench/collector_vs_phoenix.py [--spans 100000] [--steady-spans 1000000]
        [--steady-rate 2000] [--rounds 2] [--runs 1000] [--run-rate 1000]
        [--skip burst,phoenix,normal,steady,pg,worker]

Everything runs on 127.0.0.1. Spans are OTLP/HTTP protobuf ExportTraceServiceRequests, made by a
loader in this process (httpx, keep-alive), the bodies the OpenTelemetry SDK's exporter sends:
one resource (service.name, service.version) and spans of agent runs following the GenAI
conventions (an ``invoke_agent`` span, two ``chat`` spans with input and output messages, two
``execute_tool`` spans with arguments and results), about 1 KiB each, fresh ids for every span.

1. **Burst, Proctor (SQLite) against Phoenix (its default SQLite), interleaved**: ``--spans``
   spans in requests of 512 (the SDK's batch size), 4 requests in flight, as fast as each server
   acknowledges; ``--rounds`` rounds of Proctor (``synchronous=FULL``), Phoenix, Proctor
   (``synchronous=NORMAL``), so each side meets the same machine while its load drifts. Printed
   per run: spans/s acknowledged; spans/s stored (until the database holds every span: counted in
   each database afterwards, so nothing is lost unseen; Phoenix acknowledges before it writes);
   p50/p99 acknowledgement latency; peak RSS of the server process (VmHWM); each side's
   durability (Phoenix's pragma read from its installed source); the load average before and
   after. Proctor runs ``--no-worker`` (Phoenix judges nothing either). Goal: >= 3x Phoenix's
   spans/s, <= half its memory, 0 lost.
2. **Steady, Proctor on SQLite and on PostgreSQL**: ``--steady-rate`` spans/s (requests of 100
   every 50 ms at 2,000/s) until ``--steady-spans``. Printed: p50/p99/max acknowledgement, RSS
   sampled every 10 s (after the first 10 % and at the end: flat means the end is not above the
   early sample by more than the noise), 0 lost. Goal: p99 <= 50 ms, RSS <= 250 MiB and flat.
   PostgreSQL is a server of our own (Debian's binaries, fsync off: a bench tool); its memory is
   its own process's and is not in the figure.
3. **The worker**: ``--runs`` runs (native events) arriving at ``--run-rate`` a minute, quiescence
   1 s, judged by the scripted judge at 100 ms a call on the five base dimensions. Printed: runs
   evaluated a minute and the latency from quiescence end to Evaluated (p50/p99/max). Goal: keeps
   up with 1,000 runs a minute (the latency stays bounded while they arrive).

Phoenix is installed once into ``~/.cache/proctor/bench/phoenix-VERSION`` (``pip install
arize-phoenix==VERSION`` into a venv of its own; ``PROCTOR_BENCH_TOOLS`` moves it), started with
``phoenix serve`` and a fresh working directory, telemetry off. The figures are printed and written
to ``.bench/collector_vs_phoenix/results.json``. Exit 0 when the harness worked (whatever the
figures), 1 when it did not, 2 when another run holds its working directory (two runs at once
would delete each other's databases).
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import random
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".bench" / "collector_vs_phoenix"
#: Arize Phoenix, pinned: the version the figures in bench/README.md were taken with.
PHOENIX_VERSION = "20.26.1"
TOOLS = Path(os.environ.get("PROCTOR_BENCH_TOOLS") or Path.home() / ".cache" / "proctor" / "bench")
PHOENIX_VENV = TOOLS / f"phoenix-{PHOENIX_VERSION}"
TOKEN = "bench-token"
MIB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- the spans ------------------------------------------------------------------------------------


def _kv(key: str, value: Any) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


QUESTION = "Oil consumption on engine {n} is exactly 0.30 qt/hr after the last flight. Is that normal?"
ANSWER = (
    "ELEVATED: 0.30 qt/hr is the inclusive lower bound of the ELEVATED band (AMM 72-00); monitor the "
    "trend over the next three flights and check the scavenge filter (run {n})."
)
RESULT = (
    "Oil consumption bands (AMM 72-00, rev 14): NORMAL below 0.30 qt/hr; "
    "ELEVATED from 0.30 up to 0.60 qt/hr; "
    "HIGH from 0.60 qt/hr. ELEVATED: monitor the trend, inspect the scavenge filter within 10 flight hours. "
    "HIGH: ground the aircraft and follow task 72-00-00-200-801. Last three flights: 0.28, 0.29, 0.30 qt/hr. "
    "Previous scavenge filter inspection: 212 flight hours ago, no metal found; oil added last: 0.5 qt."
)
SYSTEM = (
    "You are the line-maintenance assistant for the engine health programme. Answer from the maintenance "
    "manual only, cite the AMM task or chapter you rely on, never guess a band, and say so when the data you "
    "were given does not decide the question. Keep answers under 120 words. Units are quarts per hour."
)


class Spans:
    """Makes requests of agent-run spans with fresh ids (about 1 KiB a span)."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.run = 0
        self.now = time.time_ns()

    def _run_spans(self) -> list[Span]:
        self.run += 1
        n = self.run
        trace = self.rng.randbytes(16)
        conv = f"conv-{n:09d}"
        root_id = self.rng.randbytes(8)
        t = self.now + n * 1_000_000
        common = [_kv("gen_ai.conversation.id", conv), _kv("gen_ai.agent.name", "oil-agent")]

        def span(
            name: str, attrs: list[KeyValue], parent: bytes | None, span_id: bytes | None = None
        ) -> Span:
            s = Span(
                trace_id=trace,
                span_id=span_id or self.rng.randbytes(8),
                name=name,
                kind=Span.SPAN_KIND_INTERNAL,
            )
            if parent:
                s.parent_span_id = parent
            s.start_time_unix_nano, s.end_time_unix_nano = t, t + 250_000_000
            s.attributes.extend([*common, *attrs])
            return s

        q = QUESTION.format(n=n % 4 + 1)
        a = ANSWER.format(n=n)
        call = json.dumps(
            [
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "id": f"call-{n}",
                            "name": "oil_bands",
                            "arguments": {"engine": n % 4 + 1},
                        }
                    ],
                }
            ]
        )
        chat_attrs = [
            _kv("gen_ai.operation.name", "chat"),
            _kv("gen_ai.request.model", "oil-model-small"),
            _kv("gen_ai.provider.name", "openai"),
            _kv("gen_ai.usage.input_tokens", 412),
            _kv("gen_ai.usage.output_tokens", 57),
            _kv("gen_ai.response.finish_reasons", "stop"),
            _kv("gen_ai.system_instructions", json.dumps([{"type": "text", "content": SYSTEM}])),
            _kv(
                "gen_ai.input.messages",
                json.dumps([{"role": "user", "parts": [{"type": "text", "content": q}]}]),
            ),
        ]
        tool_attrs = [
            _kv("gen_ai.operation.name", "execute_tool"),
            _kv("gen_ai.tool.name", "oil_bands"),
            _kv("gen_ai.tool.call.id", f"call-{n}"),
            _kv("gen_ai.tool.call.arguments", json.dumps({"engine": n % 4 + 1, "window": "last-3-flights"})),
            _kv("gen_ai.tool.call.result", RESULT),
            _kv(
                "gen_ai.tool.description", "Reads the engine's oil consumption bands and its recent figures."
            ),
        ]
        return [
            span(
                "invoke_agent oil-agent",
                [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.description", SYSTEM)],
                None,
                root_id,
            ),
            span("chat oil-model-small", [*chat_attrs, _kv("gen_ai.output.messages", call)], root_id),
            span("execute_tool oil_bands", tool_attrs, root_id),
            span("execute_tool oil_bands", tool_attrs, root_id),
            span(
                "chat oil-model-small",
                [
                    *chat_attrs,
                    _kv(
                        "gen_ai.output.messages",
                        json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": a}]}]),
                    ),
                ],
                root_id,
            ),
        ]

    def request(self, count: int) -> bytes:
        rs = ResourceSpans()
        rs.resource.attributes.extend([_kv("service.name", "oil-agent"), _kv("service.version", "1.4.2")])
        ss = ScopeSpans()
        ss.scope.name = "oil-agent"
        while len(ss.spans) < count:
            ss.spans.extend(self._run_spans()[: count - len(ss.spans)])
        rs.scope_spans.append(ss)
        return ExportTraceServiceRequest(resource_spans=[rs]).SerializeToString()


# --- servers ----------------------------------------------------------------------------------------


def rss_kib(pid: int, field_name: str = "VmRSS") -> int:
    """A process's resident set (or VmHWM, its peak), KiB, children included."""
    total = 0
    for p in [pid, *_children(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith(field_name + ":"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def _children(pid: int) -> list[int]:
    try:
        kids = [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return kids + [g for k in kids for g in _children(k)]


@dataclass
class Server:
    name: str
    url: str
    proc: subprocess.Popen[bytes]
    count: Callable[[], int]
    log: Path
    cleanup: list[Callable[[], None]] = field(default_factory=list)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fn in self.cleanup:
            fn()


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"server exited ({proc.returncode}): {log.read_text(errors='replace')[-2000:]}"
            )
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"server did not start: {log.read_text(errors='replace')[-2000:]}")


def start_proctor(
    work: Path, db_url: str, *extra: str, quiescence: int = 90, judge_url: str | None = None
) -> Server:
    work.mkdir(parents=True, exist_ok=True)
    profile: dict[str, Any] = {}
    if judge_url:
        profile["judge"] = {"endpoint": judge_url, "model": "judge", "concurrency": 32, "maxRetries": 2}
    manifests = [
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "AgentMonitor",
            "metadata": {"name": "oil-agent", "namespace": "bench"},
            "spec": {
                "agent": {"serviceName": "oil-agent"},
                "profileRef": {"name": "p"},
                "quiescenceSeconds": quiescence,
            },
        },
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": "p", "namespace": "bench"},
            "spec": profile,
        },
    ]
    mfile = work / "monitor.yaml"
    mfile.write_text(yaml.safe_dump_all(manifests))
    port = free_port()
    log = work / "collector.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "proctor.collector",
                "--db",
                db_url,
                "--listen",
                f"127.0.0.1:{port}",
                "--monitor",
                str(mfile),
                *extra,
            ],
            env={**os.environ, "PROCTOR_TOKEN": TOKEN, "PROCTOR_LOG_FORMAT": "json"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    _wait_http(f"{url}/healthz", proc, log)
    from proctor.store import Store

    store = Store.open(db_url, migrate=False, pool_size=1)
    return Server("proctor", url, proc, lambda: store.count("spans"), log, [store.close])


def ensure_phoenix() -> Path:
    """Phoenix's ``phoenix`` executable, from a venv of its own under the tools cache (installed
    once, pinned, with the ordinary pip client; reused while its stamp names the same version)."""
    exe = PHOENIX_VENV / "bin" / "phoenix"
    stamp = PHOENIX_VENV / ".installed"
    if exe.exists() and stamp.exists() and stamp.read_text().strip() == PHOENIX_VERSION:
        return exe
    print(f"installing Arize Phoenix {PHOENIX_VERSION} into {PHOENIX_VENV} (pip)...", flush=True)
    shutil.rmtree(PHOENIX_VENV, ignore_errors=True)
    PHOENIX_VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(PHOENIX_VENV)], check=True)
    subprocess.run(
        [str(PHOENIX_VENV / "bin" / "pip"), "install", "-q", f"arize-phoenix=={PHOENIX_VERSION}"], check=True
    )
    stamp.write_text(PHOENIX_VERSION + "\n")
    return exe


def phoenix_durability() -> str:
    """How Phoenix's SQLite commits, read from the installed Phoenix's own source (its engine
    sets the pragma on every connection): what its acknowledgement is worth."""
    found = sorted(
        {
            f"synchronous={m.group(1).upper()} ({path.name})"
            for path in PHOENIX_VENV.glob("lib/python*/site-packages/phoenix/db/*.py")
            for m in re.finditer(r"PRAGMA\s+synchronous\s*=\s*(\w+)", path.read_text(errors="replace"), re.I)
        }
    )
    return "; ".join(found) or "synchronous not set in phoenix/db (SQLite's default)"


def start_phoenix(work: Path) -> Server:
    exe = ensure_phoenix()
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    port, grpc = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    log = work / "phoenix.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(exe), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT, cwd=work)
    url = f"http://127.0.0.1:{port}"
    _wait_http(f"{url}/healthz", proc, log)

    def count() -> int:
        db = work / "phoenix.db"
        if not db.exists():
            return 0
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
            return int(conn.execute("SELECT count(*) FROM spans").fetchone()[0])

    return Server("phoenix", url, proc, count, log)


# --- loads ----------------------------------------------------------------------------------------------


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def burst(server: Server, spans: int, *, batch: int = 512, inflight: int = 4) -> dict[str, Any]:
    gen = Spans(seed=11)
    bodies = [gen.request(min(batch, spans - i)) for i in range(0, spans, batch)]
    latencies: list[float] = []
    failures: list[str] = []
    queue = list(reversed(bodies))
    headers = {"Content-Type": "application/x-protobuf", "Authorization": f"Bearer {TOKEN}"}
    peak_rss = 0

    async def sender(client: httpx.AsyncClient) -> None:
        while queue:
            body = queue.pop()
            for _attempt in range(20):
                t = time.perf_counter()
                r = await client.post("/v1/traces", content=body, headers=headers)
                latencies.append(time.perf_counter() - t)
                if r.status_code == 200:
                    break
                if r.status_code in (429, 503):
                    await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
                    continue
                failures.append(f"{r.status_code} {r.text[:200]}")
                break

    async def sample() -> None:
        nonlocal peak_rss
        while True:
            peak_rss = max(peak_rss, rss_kib(server.proc.pid))
            await asyncio.sleep(0.5)

    sampler = asyncio.create_task(sample())
    start = time.perf_counter()
    async with httpx.AsyncClient(
        base_url=server.url, timeout=120, limits=httpx.Limits(max_connections=inflight)
    ) as client:
        await asyncio.gather(*(sender(client) for _ in range(inflight)))
    acked = time.perf_counter() - start
    deadline = time.monotonic() + 600
    stored = server.count()
    while stored < spans and time.monotonic() < deadline and not failures:
        await asyncio.sleep(0.25)
        stored = server.count()
    stored_at = time.perf_counter() - start
    sampler.cancel()
    peak_rss = max(peak_rss, rss_kib(server.proc.pid, "VmHWM"))
    return {
        "server": server.name,
        "spans": spans,
        "ackSeconds": round(acked, 2),
        "acceptedPerSecond": round(spans / acked),
        "storedPerSecond": round(stored / stored_at) if stored_at else None,
        "stored": stored,
        "lost": spans - stored,
        "ackP50ms": round(pct(latencies, 50) * 1000, 1),
        "ackP99ms": round(pct(latencies, 99) * 1000, 1),
        "peakRssMiB": round(peak_rss / 1024, 1),
        "failures": failures[:3],
    }


async def steady(server: Server, spans: int, rate: int, *, batch: int = 100) -> dict[str, Any]:
    gen = Spans(seed=23)
    interval = batch / rate
    total_requests = spans // batch
    latencies: list[float] = []
    failures: list[str] = []
    rss: list[tuple[float, int]] = []
    headers = {"Content-Type": "application/x-protobuf", "Authorization": f"Bearer {TOKEN}"}
    inflight = asyncio.Semaphore(64)
    tasks: set[asyncio.Task[None]] = set()
    behind = 0

    acked = 0
    refused: dict[int, int] = {}

    async def send(client: httpx.AsyncClient, body: bytes) -> None:
        nonlocal acked
        async with inflight:
            t = time.perf_counter()
            r = await client.post("/v1/traces", content=body, headers=headers)
            latencies.append(time.perf_counter() - t)
            if r.status_code == 200:
                # partial_success: spans the collector answered for but refused are not acknowledged
                answer = ExportTraceServiceResponse.FromString(r.content) if r.content else None
                refused_here = answer.partial_success.rejected_spans if answer is not None else 0
                acked += batch - refused_here
                if refused_here:
                    refused[200] = refused.get(200, 0) + refused_here
            else:  # 429/503 are answers an exporter retries; this loader keeps its schedule instead
                refused[r.status_code] = refused.get(r.status_code, 0) + batch
                if r.status_code not in (429, 503):
                    failures.append(f"{r.status_code} {r.text[:200]}")

    start = time.perf_counter()
    next_sample = start
    async with httpx.AsyncClient(
        base_url=server.url, timeout=120, limits=httpx.Limits(max_connections=64)
    ) as client:
        for i in range(total_requests):
            due = start + i * interval
            now = time.perf_counter()
            if due > now:
                await asyncio.sleep(due - now)
            elif now - due > 1.0:
                behind += 1
            body = gen.request(batch)
            task = asyncio.create_task(send(client, body))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            if time.perf_counter() >= next_sample:
                rss.append((round(time.perf_counter() - start, 1), rss_kib(server.proc.pid)))
                next_sample += 10
        await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    rss.append((round(elapsed, 1), rss_kib(server.proc.pid)))
    inside = await asyncio.to_thread(timings, server.url) if server.name == "proctor" else {}
    await asyncio.sleep(6)  # a request answered 503 may still commit (then its resend is recognised)
    stored = server.count()
    early = next((kib for t, kib in rss if t >= elapsed * 0.1), rss[0][1])
    return {
        "server": server.name,
        "spans": spans,
        "rate": rate,
        "achievedRate": round(spans / elapsed),
        "seconds": round(elapsed, 1),
        "ackP50ms": round(pct(latencies, 50) * 1000, 1),
        "ackP99ms": round(pct(latencies, 99) * 1000, 1),
        "ackMaxms": round(max(latencies) * 1000, 1),
        "rssEarlyMiB": round(early / 1024, 1),
        "rssMaxMiB": round(max(k for _, k in rss) / 1024, 1),
        "rssEndMiB": round(rss[-1][1] / 1024, 1),
        "rssSeries": rss[:: max(1, len(rss) // 20)] + rss[-1:],
        "acknowledged": acked,
        "refused": refused,
        "stored": stored,
        "lost": max(0, acked - stored),  # acknowledged and not stored: must be 0
        "senderBehind": behind,
        "failures": failures[:3],
        "timings": inside,
    }


#: The collector's own histograms of where ingestion's time goes (scraped after a steady run).
TIMINGS = {
    "proctor_collector_ack_seconds": "acknowledgement (server side)",
    "proctor_collector_commit_seconds": "group commit",
    "proctor_collector_queue_wait_seconds": "queue wait",
    "proctor_collector_wal_checkpoint_seconds": "WAL checkpoint",
    "proctor_collector_event_loop_lag_seconds": "event loop stall",
    "proctor_collector_gc_pause_seconds": "GC pause",
}


def timings(url: str) -> dict[str, dict[str, Any]]:
    """The collector's timing histograms from its ``/metrics``: for each (and each label set) the
    count, the mean, the bucket bounds under which half and 99 % fall, how many took over 50 and
    over 250 ms; and the checkpoints by mode and outcome."""
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(f"{url}/metrics", timeout=30).text
    out: dict[str, dict[str, Any]] = {}
    for family in text_string_to_metric_families(text):
        if family.name == "proctor_collector_wal_checkpoints":
            for sample in family.samples:
                if sample.name.endswith("_total"):
                    out[f"checkpoints {sample.labels['mode']} {sample.labels['outcome']}"] = {
                        "count": int(sample.value)
                    }
            continue
        if family.name not in TIMINGS:
            continue
        series: dict[str, dict[str, Any]] = {}
        for sample in family.samples:
            labels = {k: v for k, v in sample.labels.items() if k != "le"}
            key = TIMINGS[family.name] + "".join(f" {k}={v}" for k, v in sorted(labels.items()))
            row = series.setdefault(key, {"buckets": []})
            if sample.name.endswith("_bucket"):
                row["buckets"].append((float(sample.labels["le"]), sample.value))
            elif sample.name.endswith("_count"):
                row["count"] = int(sample.value)
            elif sample.name.endswith("_sum"):
                row["sum"] = sample.value
        for key, row in series.items():
            count = row.get("count", 0)
            if not count:
                continue
            buckets = sorted(row.pop("buckets"))

            def under(q: float, buckets: list[tuple[float, float]] = buckets, count: int = count) -> float:
                return next(le for le, n in buckets if n >= q * count)

            def over(bound: float, buckets: list[tuple[float, float]] = buckets, count: int = count) -> int:
                return int(count - max((n for le, n in buckets if le <= bound), default=0))

            out[key] = {
                "count": count,
                "meanMs": round(row.get("sum", 0.0) / count * 1000, 2),
                "p50UnderMs": under(0.5) * 1000,
                "p99UnderMs": under(0.99) * 1000,
                "over50ms": over(0.05),
                "over250ms": over(0.25),
            }
    return out


async def worker_load(runs: int, per_minute: int, latency: float) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from judging import JudgeServer
    from proctor.store import Store

    work = OUT / "worker"
    shutil.rmtree(work, ignore_errors=True)
    db = f"sqlite:///{work / 'proctor.db'}"
    with JudgeServer(latency=latency) as judge:
        server = start_proctor(
            work, db, "--poll", "0.2", "--concurrency", "16", quiescence=1, judge_url=judge.base_url
        )
        try:
            interval = 60.0 / per_minute
            start = time.perf_counter()
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                for i in range(runs):
                    due = start + i * interval
                    now = time.perf_counter()
                    if due > now:
                        await asyncio.sleep(due - now)
                    events = [
                        {"executionId": f"exec-{i}", "kind": "input", "text": QUESTION.format(n=i % 4 + 1)},
                        {"executionId": f"exec-{i}", "kind": "tool_call", "name": "oil_bands", "text": "{}"},
                        {
                            "executionId": f"exec-{i}",
                            "kind": "tool_result",
                            "name": "oil_bands",
                            "text": RESULT,
                        },
                        {"executionId": f"exec-{i}", "kind": "final", "text": ANSWER.format(n=i)},
                    ]
                    r = await client.post(
                        "/v1/events",
                        json={"agent": {"serviceName": "oil-agent"}, "events": events},
                        headers=headers,
                    )
                    r.raise_for_status()
            fed = time.perf_counter() - start
            store = Store.open(db, migrate=False, pool_size=1)
            try:
                deadline = time.monotonic() + 900
                while time.monotonic() < deadline:
                    done = sum(
                        1
                        for r in store.list_runs(limit=runs + 10)
                        if r.state in ("Evaluated", "PartiallyEvaluated", "EvaluationFailed")
                    )
                    if done >= runs:
                        break
                    await asyncio.sleep(0.5)
                drained = time.perf_counter() - start
                views = store.list_runs(limit=runs + 10)
                lat = []
                outcomes: dict[str, int] = {}
                for v in views:
                    outcomes[v.state] = outcomes.get(v.state, 0) + 1
                    evs = store.evaluations(v.id)
                    if evs and evs[-1].finished_at:
                        lat.append(evs[-1].finished_at - (v.last_event_at + 1.0))
            finally:
                store.close()
        finally:
            server.stop()
    return {
        "runs": runs,
        "arrivalPerMinute": per_minute,
        "judgeLatencySeconds": latency,
        "judgeCalls": len(judge.requests),
        "fedSeconds": round(fed, 1),
        "drainedSeconds": round(drained, 1),
        "evaluatedPerMinute": round(runs / drained * 60),
        "latencyP50s": round(pct(lat, 50), 2),
        "latencyP99s": round(pct(lat, 99), 2),
        "latencyMaxs": round(max(lat), 2) if lat else None,
        "outcomes": outcomes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=100_000, help="spans in the burst comparison")
    parser.add_argument("--steady-spans", type=int, default=1_000_000)
    parser.add_argument("--steady-rate", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--run-rate", type=int, default=1000, help="runs arriving a minute")
    parser.add_argument("--judge-latency", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=2, help="interleaved burst rounds (A, B, A, B)")
    parser.add_argument(
        "--steady-synchronous",
        default="FULL",
        choices=("FULL", "NORMAL"),
        help="SQLite's level in the steady run",
    )
    parser.add_argument(
        "--skip", default="", help="comma-separated: burst, phoenix, normal, steady, pg, worker"
    )
    args = parser.parse_args()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    OUT.mkdir(parents=True, exist_ok=True)
    # One run at a time: each run deletes and recreates its working directories (and databases)
    # under OUT, so a second run would wipe the first one's stored spans and make it report them
    # lost. Held until the process exits.
    lock = (OUT / ".lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"another collector_vs_phoenix.py run is using {OUT}; wait for it to finish", file=sys.stderr)
        return 2
    results: dict[str, Any] = {}
    try:
        if "burst" not in skip:
            results["burst"] = []
            for rnd in range(1, args.rounds + 1):
                # interleaved (A, B, A, B...): each side meets the same machine, its load drifting
                for side in ("proctor-FULL", "phoenix", "proctor-NORMAL"):
                    if side == "phoenix" and "phoenix" in skip:
                        continue
                    if side == "proctor-NORMAL" and "normal" in skip:
                        continue
                    load = os.getloadavg()[0]
                    if side == "phoenix":
                        server = start_phoenix(OUT / f"burst-phoenix-{rnd}")
                        durability = f"SQLite, {phoenix_durability()}"
                    else:
                        level = side.split("-")[1]
                        work = OUT / f"burst-{side}-{rnd}"
                        shutil.rmtree(work, ignore_errors=True)
                        server = start_proctor(
                            work,
                            f"sqlite:///{work / 'proctor.db'}",
                            "--no-worker",
                            "--sqlite-synchronous",
                            level,
                        )
                        durability = f"SQLite, synchronous={level}; acknowledged after its commit"
                    try:
                        row = asyncio.run(burst(server, args.spans))
                    finally:
                        server.stop()
                    row.update(round=rnd, side=side, durability=durability, loadBefore=round(load, 2))
                    row["loadAfter"] = round(os.getloadavg()[0], 2)
                    results["burst"].append(row)
                    print(json.dumps(row), flush=True)
        if "steady" not in skip:
            work = OUT / "steady-sqlite"
            shutil.rmtree(work, ignore_errors=True)
            load = os.getloadavg()
            server = start_proctor(
                work,
                f"sqlite:///{work / 'proctor.db'}",
                "--no-worker",
                "--sqlite-synchronous",
                args.steady_synchronous,
            )
            try:
                results["steadySqlite"] = asyncio.run(steady(server, args.steady_spans, args.steady_rate))
            finally:
                server.stop()
            results["steadySqlite"].update(
                synchronous=args.steady_synchronous, loadBefore=load, loadAfter=os.getloadavg()
            )
            print(json.dumps(results["steadySqlite"]), flush=True)
        if "pg" not in skip:
            sys.path.insert(0, str(ROOT / "operator"))
            from proctor.devcluster.postgres import PostgresServer

            directory = Path(tempfile.mkdtemp(prefix="proctor-bench-pg-"))
            pg = PostgresServer(directory).start()
            try:
                load = os.getloadavg()
                server = start_proctor(OUT / "steady-pg", pg.create_database("bench"), "--no-worker")
                try:
                    results["steadyPostgres"] = asyncio.run(
                        steady(server, args.steady_spans, args.steady_rate)
                    )
                finally:
                    server.stop()
                results["steadyPostgres"].update(loadBefore=load, loadAfter=os.getloadavg())
            finally:
                pg.stop()
                shutil.rmtree(directory, ignore_errors=True)
            print(json.dumps(results["steadyPostgres"]), flush=True)
        if "worker" not in skip:
            results["worker"] = asyncio.run(worker_load(args.runs, args.run_rate, args.judge_latency))
            print(json.dumps(results["worker"]), flush=True)
    except Exception as e:
        print(f"benchmark failed: {type(e).__name__}: {e}", file=sys.stderr)
        (OUT / "results.json").write_text(json.dumps(results, indent=2))
        return 1
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    rows = results.get("burst") or []
    if rows:
        print(
            f"{'round':>5} {'side':<15} {'acked/s':>8} {'stored/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'peak MiB':>8} {'lost':>5} {'load':>9}  durability"
        )
        for r in rows:
            print(
                f"{r['round']:>5} {r['side']:<15} {r['acceptedPerSecond']:>8} {r['storedPerSecond']:>8} "
                f"{r['ackP50ms']:>8} {r['ackP99ms']:>8} {r['peakRssMiB']:>8} {r['lost']:>5} "
                f"{r['loadBefore']:>4}-{r['loadAfter']:<4}  {r['durability']}"
            )
        best = {}
        for r in rows:
            if r["side"] not in best or r["storedPerSecond"] > best[r["side"]]["storedPerSecond"]:
                best[r["side"]] = r
        x = best.get("phoenix")
        for side in ("proctor-FULL", "proctor-NORMAL"):
            p = best.get(side)
            if p and x:
                print(
                    f"best of each, {side} against Phoenix: "
                    f"stored {p['storedPerSecond'] / max(1, x['storedPerSecond']):.1f}x, "
                    f"acknowledged {p['acceptedPerSecond'] / max(1, x['acceptedPerSecond']):.2f}x, "
                    f"peak memory {p['peakRssMiB'] / max(1e-9, x['peakRssMiB']):.2f}x"
                )
    for key in ("steadySqlite", "steadyPostgres"):
        s = results.get(key)
        if s:
            print(
                f"{key}: {s['achievedRate']}/s for {s['spans']} spans: "
                f"ack p50 {s['ackP50ms']} ms, p99 {s['ackP99ms']} ms; "
                f"max {s['ackMaxms']} ms; "
                f"RSS {s['rssEarlyMiB']} -> {s['rssEndMiB']} MiB (max {s['rssMaxMiB']}); "
                f"acknowledged {s['acknowledged']}, refused {s['refused']}, stored {s['stored']}, "
                f"lost {s['lost']}; load {s['loadBefore'][0]:.2f} before, {s['loadAfter'][0]:.2f} after"
            )
            print(
                "  RSS over time (s: MiB): "
                + ", ".join(f"{t:.0f}: {k / 1024:.0f}" for t, k in s["rssSeries"])
            )
            for what, t in s.get("timings", {}).items():
                if "meanMs" in t:
                    print(
                        f"  {what}: {t['count']}, mean {t['meanMs']} ms, half under {t['p50UnderMs']:g} ms, "
                        f"99 % under {t['p99UnderMs']:g} ms, over 50 ms {t['over50ms']}, "
                        f"over 250 ms {t['over250ms']}"
                    )
                else:
                    print(f"  {what}: {t['count']}")
    w = results.get("worker")
    if w:
        print(
            f"worker: {w['runs']} runs at {w['arrivalPerMinute']}/min, judge {w['judgeLatencySeconds']} s: "
            f"{w['evaluatedPerMinute']} runs/min evaluated; "
            f"quiescence end -> Evaluated p50 {w['latencyP50s']} s, "
            f"p99 {w['latencyP99s']} s, max {w['latencyMaxs']} s; {w['outcomes']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Why the collector is an aiohttp application: the same OTLP/HTTP handler on aiohttp and on
Starlette + uvicorn, measured side by side.

Usage (from the repository root)::

    .venv/bin/python bench/collector_framework.py [--requests 400] [--spans 512] [--inflight 4]

Each framework serves ``POST /v1/traces`` in a process of its own, from a venv under
``.bench/asgi`` (``pip install starlette uvicorn[standard] aiohttp opentelemetry-proto``, made on first
use): read the body (gzip-compressed, as the OpenTelemetry SDK's exporter sends it), decompress
it, refuse it over 32 MiB with 413, parse the ExportTraceServiceRequest and answer an empty
ExportTraceServiceResponse. Nothing is stored: this measures the framework's share of a request.
A loader in this process sends ``--requests`` requests of ``--spans`` GenAI spans (the bodies of
``collector_vs_phoenix.py``), ``--inflight`` at a time. Printed per framework: requests/s,
spans/s, p50/p99 latency, the server's peak RSS, and the lines of handler code each needed for
the body limit and gzip. Nothing is asserted: the figures feed the README's reasons.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collector_vs_phoenix import ROOT, Spans, free_port, pct, rss_kib

VENV = ROOT / ".bench" / "asgi"

AIOHTTP_APP = r"""
import sys
from aiohttp import web
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as pb
ExportTraceServiceRequest = pb.ExportTraceServiceRequest
ExportTraceServiceResponse = pb.ExportTraceServiceResponse
OK = ExportTraceServiceResponse().SerializeToString()
async def traces(request):
    try:
        body = await request.read()            # gzip undone by aiohttp; the limit counts decompressed bytes
    except web.HTTPRequestEntityTooLarge:
        return web.Response(status=413)
    req = ExportTraceServiceRequest(); req.ParseFromString(body)
    return web.Response(body=OK, content_type="application/x-protobuf")
app = web.Application(client_max_size=32 * 1024 * 1024)
app.router.add_post("/v1/traces", traces)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)
"""

STARLETTE_APP = r"""
import sys, zlib
import uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as pb
ExportTraceServiceRequest = pb.ExportTraceServiceRequest
ExportTraceServiceResponse = pb.ExportTraceServiceResponse
OK = ExportTraceServiceResponse().SerializeToString()
LIMIT = 32 * 1024 * 1024
async def traces(request):
    # neither Starlette nor uvicorn decompresses request bodies or limits their size: do both here
    gz = request.headers.get("content-encoding") == "gzip"
    inflate = zlib.decompressobj(wbits=31) if gz else None
    parts, size = [], 0
    async for chunk in request.stream():
        if inflate is not None:
            chunk = inflate.decompress(chunk, LIMIT + 1 - size)
        size += len(chunk)
        if size > LIMIT:
            return Response(status_code=413)
        parts.append(chunk)
    req = ExportTraceServiceRequest(); req.ParseFromString(b"".join(parts))
    return Response(OK, media_type="application/x-protobuf")
app = Starlette(routes=[Route("/v1/traces", traces, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""


def ensure_venv() -> Path:
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [
                str(VENV / "bin" / "pip"),
                "install",
                "-q",
                "starlette",
                "uvicorn[standard]",
                "aiohttp",
                "opentelemetry-proto",
            ],
            check=True,
        )
    return py


async def load(url: str, bodies: list[bytes], inflight: int) -> tuple[float, list[float]]:
    queue = list(bodies)
    latencies: list[float] = []
    headers = {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}

    async def sender(client: httpx.AsyncClient) -> None:
        while queue:
            body = queue.pop()
            t = time.perf_counter()
            r = await client.post("/v1/traces", content=body, headers=headers)
            latencies.append(time.perf_counter() - t)
            r.raise_for_status()

    start = time.perf_counter()
    async with httpx.AsyncClient(
        base_url=url, timeout=60, limits=httpx.Limits(max_connections=inflight)
    ) as client:
        await asyncio.gather(*(sender(client) for _ in range(inflight)))
    return time.perf_counter() - start, latencies


def measure(name: str, code: str, bodies: list[bytes], spans: int, inflight: int) -> dict[str, object]:
    py = ensure_venv()
    port = free_port()
    proc = subprocess.Popen(
        [str(py), "-c", code, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.post(
                    f"{url}/v1/traces",
                    content=gzip.compress(b""),
                    headers={"Content-Encoding": "gzip"},
                    timeout=2,
                )
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"{name} did not start") from None
                time.sleep(0.2)
        asyncio.run(load(url, bodies[: max(1, len(bodies) // 10)], inflight))  # warm up
        seconds, latencies = asyncio.run(load(url, bodies, inflight))
        peak = rss_kib(proc.pid, "VmHWM")
    finally:
        proc.terminate()
        proc.wait(30)
    return {
        "framework": name,
        "requestsPerSecond": round(len(bodies) / seconds, 1),
        "spansPerSecond": round(len(bodies) * spans / seconds),
        "p50ms": round(pct(latencies, 50) * 1000, 1),
        "p99ms": round(pct(latencies, 99) * 1000, 1),
        "peakRssMiB": round(peak / 1024, 1),
        "handlerLines": len([line for line in code.splitlines() if line.strip()]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--spans", type=int, default=512)
    parser.add_argument("--inflight", type=int, default=4)
    args = parser.parse_args()
    gen = Spans(seed=5)
    bodies = [gzip.compress(gen.request(args.spans)) for _ in range(args.requests)]
    results = [
        measure("aiohttp", AIOHTTP_APP, bodies, args.spans, args.inflight),
        measure("starlette+uvicorn", STARLETTE_APP, bodies, args.spans, args.inflight),
    ]
    for r in results:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

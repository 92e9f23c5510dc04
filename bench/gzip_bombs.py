#!/usr/bin/env python3
"""What eight concurrent gzip bombs cost the collector: its peak memory and how long ``/healthz``
takes to answer meanwhile (issue 24, class 3: bounded work per request, off the event loop).

Usage (from the repository root)::

    .venv/bin/python bench/gzip_bombs.py [--bombs 8] [--inflate-mib 1024] [--rounds 3]

A bomb is an OTLP/HTTP request whose gzip body is ~1 MiB and inflates to ``--inflate-mib`` MiB of
zeros (far over the 32 MiB body limit: every one must be answered 413). ``--bombs`` of them are
sent at once, ``--rounds`` times, while a probe asks ``/healthz`` every 20 ms. Printed: the
answers' statuses, the collector's peak RSS (VmHWM) and its RSS at rest, and /healthz latency
p50 / p99 / max. Nothing is asserted; the figures go in the README and the issue's closing note.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collector_vs_phoenix import TOKEN, pct, rss_kib, start_proctor


def bomb(inflate_mib: int) -> bytes:
    """A gzip stream of ``inflate_mib`` MiB of zeros (about a thousandth of that compressed)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1024 * 1024)
    return b"".join(z.compress(block) for _ in range(inflate_mib)) + z.flush()


async def probe(url: str, stop: asyncio.Event, out: list[float]) -> None:
    async with httpx.AsyncClient(timeout=60) as client:
        while not stop.is_set():
            started = time.perf_counter()
            await client.get(f"{url}/healthz")
            out.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.02)


async def attack(url: str, body: bytes, bombs: int, rounds: int) -> tuple[Counter[int], list[float]]:
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Content-Type": "application/x-protobuf",
        "Content-Encoding": "gzip",
    }
    statuses: Counter[int] = Counter()
    latencies: list[float] = []
    stop = asyncio.Event()
    prober = asyncio.create_task(probe(url, stop, latencies))
    async with httpx.AsyncClient(timeout=300, limits=httpx.Limits(max_connections=bombs)) as client:
        for _ in range(rounds):
            answers = await asyncio.gather(
                *(client.post(f"{url}/v1/traces", content=body, headers=headers) for _ in range(bombs)),
                return_exceptions=True,
            )
            for a in answers:
                statuses[a.status_code if isinstance(a, httpx.Response) else -1] += 1
    stop.set()
    await prober
    return statuses, latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bombs", type=int, default=8)
    parser.add_argument("--inflate-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    body = bomb(args.inflate_mib)
    with tempfile.TemporaryDirectory(prefix="proctor-bombs-") as tmp:
        server = start_proctor(Path(tmp), f"sqlite:///{tmp}/bombs.db", "--no-worker")
        try:
            rest = rss_kib(server.proc.pid)
            statuses, latencies = asyncio.run(attack(server.url, body, args.bombs, args.rounds))
            peak = rss_kib(server.proc.pid, "VmHWM")
            alive = httpx.get(f"{server.url}/healthz", timeout=30).status_code
        finally:
            server.stop()
    print(
        f"{args.bombs} concurrent bombs x {args.rounds} rounds, {len(body) / 2**20:.1f} MiB gzip -> "
        f"{args.inflate_mib} MiB each"
    )
    print(f"  answers: {dict(sorted(statuses.items()))}; /healthz afterwards: {alive}")
    print(f"  collector RSS at rest {rest / 1024:.0f} MiB, peak {peak / 1024:.0f} MiB")
    print(
        f"  /healthz latency over {len(latencies)} probes: p50 {pct(latencies, 50):.1f} ms, "
        f"p99 {pct(latencies, 99):.1f} ms, max {max(latencies):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Where the collector's ingestion time goes, stage by stage, in one process.

Usage (from the repository root)::

    .venv/bin/python bench/ingest_profile.py [--spans 50000] [--batch 100] [--db sqlite|URL]
        [--synchronous FULL|NORMAL] [--profile]

The same requests as ``collector_vs_phoenix.py`` (GenAI agent runs, about 0.9 KiB a span),
through the collector's own code, each stage timed in CPU seconds of this thread (and wall
seconds for the write, which waits on the disk): ``parse`` (protobuf bytes to the message),
``decode`` (spans and attributes to Python values, run keys, routing: ``app._decode_traces``
less the parse), ``redact`` (the safety scan of every text, :class:`Redactor`), ``write``
(``Store.ingest``: rows, the SQL, the commit). Prints microseconds a span for each, and with
``--profile`` the functions that cost most (cProfile, cumulative). No HTTP: what the event
loop and aiohttp add is in ``collector_framework.py``.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "operator"))

from collector_vs_phoenix import TOKEN, Spans  # noqa: E402

from proctor.collector import app, otlp  # noqa: E402
from proctor.collector.monitors import load_files  # noqa: E402
from proctor.collector.redaction import Redactor  # noqa: E402
from proctor.store import WAL_LIMIT_BYTES, Store  # noqa: E402

MANIFESTS = [
    {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "AgentMonitor",
        "metadata": {"name": "oil-agent", "namespace": "bench"},
        "spec": {"agent": {"serviceName": "oil-agent"}, "profileRef": {"name": "p"}},
    },
    {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalProfile",
        "metadata": {"name": "p", "namespace": "bench"},
        "spec": {},
    },
]


class _Admits:
    """Stands in for the writer's admission check (``_decode_traces`` asks it for the count)."""

    def admissible(self, items: int) -> None:
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=50_000)
    parser.add_argument("--batch", type=int, default=100, help="spans a request (the steady load's)")
    parser.add_argument("--group", type=int, default=4, help="requests a commit (group commit)")
    parser.add_argument("--db", default="sqlite", help="sqlite (a scratch file) or a postgresql:// URL")
    parser.add_argument("--synchronous", default="FULL")
    parser.add_argument("--profile", action="store_true", help="also print cProfile's top functions")
    parser.add_argument(
        "--commits",
        action="store_true",
        help="instead: time each group commit on SQLite, with SQLite's checkpoints in commits and "
        "with the collector's checkpointer, and say which commits ran a checkpoint",
    )

    args = parser.parse_args()
    if args.commits:
        return commits(args)

    work = Path(tempfile.mkdtemp(prefix="proctor-ingest-profile-"))
    try:
        mfile = work / "monitor.yaml"
        mfile.write_text(yaml.safe_dump_all(MANIFESTS))
        registry = load_files([mfile], default_token=TOKEN)
        grant = registry.ingest_grant(TOKEN)
        url = f"sqlite:///{work / 'p.db'}" if args.db == "sqlite" else args.db
        store = Store.open(url, sqlite_synchronous=args.synchronous)
        redact = Redactor(lambda: registry)
        policies = registry.policies()
        gen = Spans(seed=23)
        bodies = [gen.request(args.batch) for _ in range(args.spans // args.batch)]
        cpu: dict[str, float] = {"parse": 0.0, "decode": 0.0, "redact": 0.0, "write": 0.0}
        wall_write = 0.0
        prof = cProfile.Profile() if args.profile else None

        def timed(stage: str, fn: Callable[[], Any]) -> Any:
            t = time.thread_time()
            out = fn()
            cpu[stage] += time.thread_time() - t
            return out

        if prof is not None:
            prof.enable()
        group: list[Any] = []
        stored = 0
        for body in bodies:
            timed("parse", functools.partial(otlp.parse_request, body, otlp.PROTOBUF))
            t = time.thread_time()
            items = app._decode_traces(body, otlp.PROTOBUF, registry, grant, _Admits())[0]  # type: ignore[arg-type]
            cpu["decode"] += time.thread_time() - t
            group += timed("redact", functools.partial(redact, items))
            if len(group) >= args.group * args.batch or body is bodies[-1]:
                w = time.perf_counter()
                result = timed("write", functools.partial(store.ingest, group, policies, now=time.time()))
                wall_write += time.perf_counter() - w
                stored += result.spans
                group = []
        if prof is not None:
            prof.disable()
        cpu["decode"] -= cpu["parse"]  # _decode_traces parses again: the parse is counted once
        n = len(bodies) * args.batch
        print(
            f"{n} spans, {args.batch} a request, {args.group} requests a commit, {store.dialect}, "
            f"synchronous {args.synchronous if store.dialect == 'sqlite' else '(server)'}; stored {stored}"
        )
        total = sum(cpu.values())
        for stage, seconds in cpu.items():
            print(f"  {stage:<7} {seconds / n * 1e6:8.1f} us CPU a span  ({seconds / total:5.1%})")
        print(
            f"  total   {total / n * 1e6:8.1f} us CPU a span; write's wall {wall_write / n * 1e6:.1f} us "
            f"(CPU one core could ingest: {n / total:,.0f} spans/s)"
        )
        if prof is not None:
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
            print(out.getvalue())
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def commits(args: argparse.Namespace) -> int:
    """Each group commit's wall time, SQLite's checkpoints inside commits (its default) against
    the collector's checkpointer thread, on the same spans. A commit ran a checkpoint when the
    database file changed during it: in WAL mode only a checkpoint writes that file."""
    work = Path(tempfile.mkdtemp(prefix="proctor-ingest-commits-"))
    try:
        mfile = work / "monitor.yaml"
        mfile.write_text(yaml.safe_dump_all(MANIFESTS))
        registry = load_files([mfile], default_token=TOKEN)
        grant = registry.ingest_grant(TOKEN)
        policies = registry.policies()
        gen = Spans(seed=23)
        per_commit = args.batch * args.group
        groups = []
        for _ in range(args.spans // per_commit):
            group: list[Any] = []
            for _ in range(args.group):
                body = gen.request(args.batch)
                group += app._decode_traces(body, otlp.PROTOBUF, registry, grant, _Admits())[0]  # type: ignore[arg-type]
            groups.append(group)
        for side, limit in (
            ("checkpoints in commits (SQLite's default)", None),
            ("checkpointer", WAL_LIMIT_BYTES),
        ):
            path = work / f"{'thread' if limit else 'commit'}.db"
            store = Store.open(
                f"sqlite:///{path}", sqlite_synchronous=args.synchronous, wal_limit_bytes=limit
            )
            plain: list[float] = []
            checkpointed: list[float] = []
            try:
                for group in groups:
                    before = path.stat()
                    t = time.perf_counter()
                    store.ingest(group, policies, now=time.time())
                    wall = time.perf_counter() - t
                    after = path.stat()
                    changed = (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns)
                    (checkpointed if changed else plain).append(wall)
            finally:
                store.close()
            every = sorted(plain + checkpointed)

            def ms(values: list[float], q: float) -> str:
                ordered = sorted(values)
                return (
                    f"{ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000:.1f}"
                    if values
                    else "-"
                )

            print(
                f"{side}: {len(every)} commits of {per_commit} spans, {args.synchronous}: "
                f"p50 {ms(every, 0.5)} ms, p99 {ms(every, 0.99)} ms, max {ms(every, 1.0)} ms; "
                f"{len(checkpointed)} saw the database file written (a checkpoint, in the commit or "
                f"beside it): p50 {ms(checkpointed, 0.5)}, max {ms(checkpointed, 1.0)} ms; "
                f"the others p50 {ms(plain, 0.5)}, p99 {ms(plain, 0.99)}, max {ms(plain, 1.0)} ms",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

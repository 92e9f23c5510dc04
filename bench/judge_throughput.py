#!/usr/bin/env python3
"""Judge throughput: Proctor's judge client against promptfoo's llm-rubric, on one local judge.

Usage (from the repository root)::

    .venv/bin/python bench/judge_throughput.py [--cases 1000] [--concurrency 32] [--latency 0.1]

What it does, in one run, all on 127.0.0.1:

1. Makes N seeded cases (an order-status question and answer each), each judged on the five base
   dimensions: N x 5 judgments against :class:`proctor.testing.judgeserver.JudgeServer` with a fixed
   latency (default 100 ms). The server runs in a process of its own (``--server process``, the
   default) so that its 300-odd requests/s do not share a GIL with the client being measured
   (``--server thread`` runs it in this process instead), and speaks HTTP/1.1 with keep-alive
   like a provider (``--connection-close``: HTTP/1.0, a connection per request).
   A fresh server serves each run and keeps its own log: arrival, whose request, status.
2. Proctor, clean: a :class:`~proctor.judge.JudgeClient` with concurrency C judges every
   dimension through :func:`~proctor.judge.judge_dimension`, 2 x C judgments going at once (the
   client's own adaptive limit bounds the requests in flight to C). Every answer is 80 with
   confidence 0.9, far from the threshold 50: no consensus. The figure: judgments/s as a ratio
   of the ideal C / latency (320/s for 32 at 100 ms). Goal: >= 0.95. And the client's CPU per
   judge request (this process's user + system time over the requests sent). Goal: <= 1 ms.
3. Proctor, throttled: the same, but the server answers 5 % of all requests (the n-th request to
   arrive, picked by a seeded hash of n, so retries too) with HTTP 429 and ``Retry-After: 1``.
   Goal: at most 10 % slower than the clean run. Also printed: retries, and the adaptive limit's
   lowest and mean value. A diagnostic run follows with the limit pinned at C
   (``AdaptiveLimit(C, minimum=C)``: it cannot halve), which separates the cost of the limit
   halving from the cost of the retries and their Retry-After (5 % more requests, and the
   Retry-After of the 429s answered in the run's last second); it is not a figure of the goal.
4. Proctor, consensus: the answers for a seeded 10 % of the (case, dimension) pairs fall within
   the consensus band of the threshold (50 +/- 8), so those dimensions take two extra samples.
   Printed: the extra calls (``JudgeStats.consensus_calls``) against the expected count, and the
   multiplier (``JudgeStats.consensus_multiplier``).
5. A diagnostic clean run with the server at HTTP/1.0 (a connection per request).
6. promptfoo 0.123.1 on Node 22 (installed under ``~/.cache/proctor/bench`` by the helper of
   ``grading_vs_promptfoo.py``): the same cases, the ``echo`` provider returning the answer, five
   ``llm-rubric`` assertions per case (the same five rubric texts) graded by promptfoo's
   ``openai:chat`` provider pointed at the same kind of server, at promptfoo's default
   concurrency (4) and at ``-j C``. The server tells promptfoo's requests from Proctor's by their
   system prompt and answers them the way llm-rubric expects (``{"reason", "pass", "score"}``).

Every rate is judgments over the server's window (first request's arrival to the last request's
arrival plus the latency), the same measure for both tools; Proctor's client-side wall time and
promptfoo's whole-process wall time (Node start-up and all) are printed beside it. The figures go
to ``.bench/judge_throughput/results.json``.

``--profile FILE`` runs only the clean run, under cProfile counting CPU time, saves the stats to
FILE and prints the functions with the most CPU of their own (the figures of a profiled run are
not the client's: the profiler costs more than the client).

Exit status: 0 when the harness worked, whatever the figures; 1 when it failed (a server that did
not start, a run that timed out, skipped a dimension or did not judge everything, unreadable
promptfoo output, a consensus count other than expected); 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import importlib.util
import json
import logging
import math
import os
import random
import re
import selectors
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading_vs_promptfoo import (  # a sibling script, not a package
    TOOLS_ROOT,
    HarnessError,
    Tools,
    ensure_tools,
    measure,
    promptfoo_env,
)

from proctor.judge import (
    BASE_DIMENSIONS,
    BUILTIN_RUBRICS,
    DEFAULT_THRESHOLD,
    AdaptiveLimit,
    DimensionRubric,
    JudgeClient,
    JudgeInput,
    JudgeSettings,
    judge_dimension,
)
from proctor.testing import judgeserver as ts

REPO = Path(__file__).resolve().parent.parent
WORK_ROOT = REPO / ".bench" / "judge_throughput"

GOAL_RATIO = 0.95
GOAL_SLOWDOWN = 0.10
GOAL_CPU_MS = 1.0  # the client's CPU per judge request
KEY_ENV = "PROCTOR_BENCH_JUDGE_KEY"
KEY = "bench-local-key"  # the local server does not check it; a real provider would
MODEL = "bench-judge"
CLEAN_SCORE = 80.0
NEAR_SPREAD = 8.0  # near-threshold answers are threshold +/- this (inside the default band of 10)

PROCTOR_SYSTEM = "You are an independent judge."
PROMPTFOO_SYSTEM = "You are grading output according to a user-specified rubric"
_CASE_ID = re.compile(r"\bcase-\d{5}\b")
_DIMENSION = re.compile(r"^Dimension: (\S+)$", re.MULTILINE)


def _unit(*parts: object) -> float:
    """A seeded, deterministic number in [0, 1) from ``parts``."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def is_near(seed: int, case_id: str, dimension: str, fraction: float) -> bool:
    """Whether the consensus scenario answers this (case, dimension) near the threshold."""
    return _unit(seed, "near", case_id, dimension) < fraction


# --- the scripted judge (runs in the server process, or in a thread of this one) ------------------


@dataclass
class Script:
    """How the local judge answers, per request; keeps its own log (arrival, kind, status)."""

    scenario: str  # "clean" or "consensus"
    seed: int
    throttle_rate: float
    retry_after: float
    near_fraction: float
    threshold: float = DEFAULT_THRESHOLD
    log: list[tuple[float, str, int, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def choose(self, r: ts.RecordedRequest) -> ts.Behaviour:
        system = r.system_text
        kind = (
            "proctor"
            if system.startswith(PROCTOR_SYSTEM)
            else "promptfoo"
            if system.startswith(PROMPTFOO_SYSTEM)
            else "other"
        )
        code = 200
        behaviour: ts.Behaviour
        if kind == "other":
            code, behaviour = 400, ts.status(400, message="not a request this benchmark expects")
        elif self.throttle_rate > 0 and _unit(self.seed, "throttle", r.index) < self.throttle_rate:
            code = 429
            behaviour = ts.status(429, retry_after=self.retry_after, message="Rate limit reached (scripted)")
        elif kind == "promptfoo":
            behaviour = ts.content(json.dumps({"reason": "scripted grade", "pass": True, "score": 1}))
        elif self.scenario == "consensus" and self._near(r):
            offset = (2 * _unit(self.seed, "offset", r.index) - 1) * NEAR_SPREAD
            behaviour = ts.judgment(round(self.threshold + offset, 1), "scripted near the threshold", 0.9)
        else:
            behaviour = ts.judgment(CLEAN_SCORE, "scripted, well above the threshold", 0.9)
        with self.lock:
            self.log.append((r.received_at, kind, code, r.in_flight))
        return behaviour

    def _near(self, r: ts.RecordedRequest) -> bool:
        case = _CASE_ID.search(r.user_text)
        dim = _DIMENSION.search(r.system_text)
        if case is None or dim is None:
            return False
        return is_near(self.seed, case.group(0), dim.group(1), self.near_fraction)


def serve(config: dict[str, Any]) -> int:
    """The server process: print the base URL, serve until stdin closes, write the log."""
    script = Script(**config["script"])
    with ts.JudgeServer(
        latency=config["latency"], default=ts.respond_with(script.choose), keep_alive=config["keepAlive"]
    ) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()  # EOF: the benchmark is done with this server (or died)
    with script.lock:
        Path(config["log"]).write_text(json.dumps(script.log))
    return 0


class Server:
    """One scripted judge for one run: a child process (default) or a thread of this process."""

    def __init__(
        self, mode: str, latency: float, script: Script, work: Path, name: str, keepalive: bool
    ) -> None:
        self.mode, self.latency, self.script, self.keepalive = mode, latency, script, keepalive
        self.log_path = work / f"server-{name}.log.json"
        self._proc: subprocess.Popen[str] | None = None
        self._server: ts.JudgeServer | None = None
        self.base_url = ""

    def __enter__(self) -> Server:
        if self.mode == "thread":
            self._server = ts.JudgeServer(
                latency=self.latency, default=ts.respond_with(self.script.choose), keep_alive=self.keepalive
            )
            self.base_url = self._server.start().base_url
            return self
        self.log_path.unlink(missing_ok=True)
        s = self.script
        config = {
            "latency": self.latency,
            "keepAlive": self.keepalive,
            "log": str(self.log_path),
            "script": {
                "scenario": s.scenario,
                "seed": s.seed,
                "throttle_rate": s.throttle_rate,
                "retry_after": s.retry_after,
                "near_fraction": s.near_fraction,
                "threshold": s.threshold,
            },
        }
        self._proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert self._proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self._proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout=30)
        line = self._proc.stdout.readline().strip() if ready else ""
        if not line.startswith("http://127.0.0.1:"):
            self._kill()
            raise HarnessError(f"the judge server process did not start (said {line!r})")
        self.base_url = line
        return self

    def stop(self) -> list[tuple[float, str, int, int]]:
        """Stop the server; its request log (arrival, kind, status, in flight)."""
        if self._server is not None:
            self._server.stop()
            self._server = None
            with self.script.lock:
                return list(self.script.log)
        proc, self._proc = self._proc, None
        if proc is None:
            return []
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise HarnessError("the judge server process did not stop within 60 s") from None
        if proc.returncode != 0 or not self.log_path.is_file():
            raise HarnessError(f"the judge server process exited {proc.returncode} without its log")
        return [(float(t), str(k), int(c), int(f)) for t, k, c, f in json.loads(self.log_path.read_text())]

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None:
            if self._server is not None:
                self._server.stop()
                self._server = None
            self._kill()


# --- the cases ----------------------------------------------------------------------------------

_NAMES = ("Alice", "Bilal", "Chen", "Dana", "Emeka", "Freya", "Goran", "Hana", "Ines", "Jonas")
_PRODUCTS = ("kettle", "desk lamp", "bike pump", "tea set", "backpack", "headphones", "monitor arm")
_CARRIERS = ("DHL", "UPS", "FedEx", "La Poste", "Yamato")
_FILLER = (
    "The carrier confirmed the pickup this morning.",
    "You can track the parcel from the link in your confirmation email.",
    "If anything arrives damaged, reply to this message within 30 days.",
    "Delivery estimates can shift by a day during public holidays.",
    "A signature may be required at the door.",
    "We combined two of your orders into one parcel to save packaging.",
)


@dataclass(frozen=True)
class Case:
    id: str
    question: str
    answer: str


def generate(n: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        cid = f"case-{i:05d}"
        name, product, carrier = rng.choice(_NAMES), rng.choice(_PRODUCTS), rng.choice(_CARRIERS)
        order = rng.randrange(100_000, 999_999)
        question = f"Hi, this is {name}. Where is my {product}? The order number is {order}."
        answer = (
            f"[{cid}] Hello {name}, your order {order} ({product}) left our warehouse and is with "
            f"{carrier}; it should arrive within {rng.randint(1, 5)} working days. "
            + " ".join(rng.sample(_FILLER, 3))
        )
        cases.append(Case(cid, question, answer))
    return cases


def dimensions() -> list[DimensionRubric]:
    return [DimensionRubric(d, BUILTIN_RUBRICS[d], DEFAULT_THRESHOLD) for d in BASE_DIMENSIONS]


# --- Proctor ------------------------------------------------------------------------------------


@dataclass
class Run:
    tool: str
    scenario: str
    concurrency: int
    judgments: int
    requests: int = 0
    throttled: int = 0
    wall_s: float = math.nan  # client side (Proctor) or the whole process (promptfoo)
    window_s: float = math.nan  # server side: first arrival to last arrival + latency
    max_in_flight: int = 0
    diagnostic: bool = False
    request_ms: tuple[float, float] | None = None  # p50, p99 of one judge request (a slot held)
    judgment_ms: tuple[float, float] | None = None  # p50, p99 of one judge_dimension call
    load: tuple[float, float] = (math.nan, math.nan)  # 1-minute load average before, after
    extra: dict[str, Any] = field(default_factory=dict)
    problem: str = ""

    def rate(self) -> float:
        return self.judgments / self.window_s if self.window_s > 0 else math.nan

    def ratio(self, latency: float) -> float:
        return self.rate() / (self.concurrency / latency)


def _window(log: list[tuple[float, str, int, int]], kind: str, latency: float) -> tuple[int, int, float, int]:
    mine = [x for x in log if x[1] == kind]
    if not mine:
        return 0, 0, math.nan, 0
    first, last = min(x[0] for x in mine), max(x[0] for x in mine)
    return len(mine), sum(1 for x in mine if x[2] == 429), last - first + latency, max(x[3] for x in mine)


def _pcts(values: list[float]) -> tuple[float, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return statistics.median(ordered) * 1000, p99 * 1000


class TimedLimit(AdaptiveLimit):
    """The client's adaptive limit, unchanged, that also times each request: the client takes a
    slot just before it sends a request and gives it back when the answer (or error) is in, in
    the same task, so the time between is one request's round trip as the client sees it."""

    def __init__(self, maximum: int, *, minimum: int = 1, recover_after: int = 10) -> None:
        super().__init__(maximum, minimum=minimum, recover_after=recover_after)
        self.round_trips: list[float] = []
        self._started: dict[asyncio.Task[Any] | None, float] = {}
        self.samples: list[int] = []

    async def acquire(self) -> int:
        ticket = await super().acquire()
        self._started[asyncio.current_task()] = time.perf_counter()
        return ticket

    def release(self) -> None:
        t0 = self._started.pop(asyncio.current_task(), None)
        if t0 is not None:
            self.round_trips.append(time.perf_counter() - t0)
        super().release()


async def _proctor(
    base_url: str, cases: list[Case], dims: list[DimensionRubric], concurrency: int, workers: int, pin: bool
) -> tuple[float, list[float], list[Any], JudgeClient]:
    """Every (case, dimension) through judge_dimension, ``workers`` at a time; the client's own
    limit bounds the requests in flight."""
    settings = JudgeSettings(base_url=base_url, model=MODEL, api_key_env=KEY_ENV, concurrency=concurrency)
    client = JudgeClient(settings, env={KEY_ENV: KEY})
    # The same limit the client makes for itself (or, diagnostic only, one that cannot halve).
    client.limiter = limiter = TimedLimit(
        concurrency, minimum=concurrency if pin else 1, recover_after=settings.recover_after
    )
    work = [(c, d) for c in cases for d in dims]
    inputs = {c.id: JudgeInput(answer=c.answer, input=c.question) for c in cases}
    latencies: list[float] = [0.0] * len(work)
    scores: list[Any] = [None] * len(work)
    position = iter(range(len(work)))
    done = asyncio.Event()

    async def worker() -> None:
        for i in position:
            case, dim = work[i]
            t0 = time.perf_counter()
            scores[i] = await judge_dimension(client, dim, inputs[case.id])
            latencies[i] = time.perf_counter() - t0

    async def sample_limit() -> None:
        while not done.is_set():
            limiter.samples.append(limiter.limit)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), 0.05)

    sampler = asyncio.create_task(sample_limit())
    try:
        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(workers)))
        wall = time.perf_counter() - t0
    finally:
        done.set()
        await sampler
        await client.aclose()
    return wall, latencies, scores, client


def run_proctor(
    args: argparse.Namespace,
    work: Path,
    cases: list[Case],
    scenario: str,
    *,
    name: str,
    throttle_rate: float = 0.0,
    near_fraction: float = 0.0,
    pin: bool = False,
    keepalive: bool = True,
    diagnostic: bool = False,
) -> Run:
    dims = dimensions()
    run = Run("proctor", name, args.concurrency, len(cases) * len(dims), diagnostic=diagnostic)
    script = Script(scenario, args.seed, throttle_rate, args.retry_after, near_fraction)
    load0 = os.getloadavg()[0]
    cpu0 = os.times()
    with Server(args.server, args.latency, script, work, name, keepalive) as server:
        try:
            wall, latencies, scores, client = asyncio.run(
                asyncio.wait_for(
                    _proctor(server.base_url, cases, dims, args.concurrency, args.workers, pin),
                    args.timeout,
                )
            )
        except TimeoutError:
            server.stop()
            run.problem = f"timed out after {args.timeout:g} s"
            return run
        cpu1 = os.times()
        log = server.stop()
    run.load = (load0, os.getloadavg()[0])
    run.requests, run.throttled, run.window_s, run.max_in_flight = _window(log, "proctor", args.latency)
    run.wall_s = wall
    lim = client.limiter
    assert isinstance(lim, TimedLimit)
    run.judgment_ms, run.request_ms = _pcts(latencies), _pcts(lim.round_trips)
    st = client.stats
    cpu = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) if args.server == "process" else math.nan
    skipped = sum(1 for s in scores if s.score is None)
    run.extra = {
        "clientRate": round(run.judgments / wall, 1),
        "clientCpuMsPerRequest": round(cpu / max(1, st.attempts) * 1000, 2),
        "stats": {
            "requests": st.requests,
            "attempts": st.attempts,
            "retries": st.retries,
            "throttled": st.throttled,
            "judgments": st.judgments,
            "consensusRounds": st.consensus_rounds,
            "consensusCalls": st.consensus_calls,
            "consensusMultiplier": round(st.consensus_multiplier, 4),
            "skipped": st.skipped,
        },
        "limit": {
            "maximum": lim.maximum,
            "minimum": lim.minimum,
            "lowest": lim.lowest,
            "final": lim.limit,
            "mean": round(statistics.fmean(lim.samples), 1) if lim.samples else None,
            "halvings": lim.decreases,
            "increases": lim.increases,
        },
    }
    if scenario == "consensus":
        near = sum(is_near(args.seed, c.id, d.name, near_fraction) for c in cases for d in dims)
        run.extra["nearDimensions"] = near
        run.extra["expectedExtraCalls"] = near * 2
    reasons = sorted({str(s.skipped_reason) for s in scores if s.score is None})
    if skipped:
        run.extra["skippedReasons"] = reasons[:3]
    # With 429s, a judgment whose four attempts all draw one is skipped, as it should be: about
    # 0.05^4 x 5,000 = 3 % of runs have one. Anywhere else a skipped dimension is a failure.
    if skipped and (not throttle_rate or skipped > 5):
        run.problem = f"{skipped} dimensions skipped: {reasons[:3]}"
    elif st.judgments != run.judgments:
        run.problem = f"client counted {st.judgments} judgments, expected {run.judgments}"
    elif scenario == "clean" and st.consensus_calls:
        run.problem = f"{st.consensus_calls} consensus calls in a run scored far from the threshold"
    elif run.requests != st.attempts:
        run.problem = f"the server saw {run.requests} requests, the client sent {st.attempts}"
    return run


def profile(args: argparse.Namespace, work: Path, cases: list[Case]) -> int:
    """The clean run under cProfile counting CPU time: where the client's CPU per request goes."""
    import cProfile
    import pstats

    profiler = cProfile.Profile(time.process_time)
    script = Script("clean", args.seed, 0.0, args.retry_after, 0.0)
    with Server(args.server, args.latency, script, work, "profile", not args.connection_close) as server:
        profiler.enable()
        try:
            _, _, _, client = asyncio.run(
                asyncio.wait_for(
                    _proctor(server.base_url, cases, dimensions(), args.concurrency, args.workers, False),
                    args.timeout,
                )
            )
        finally:
            profiler.disable()
        server.stop()
    profiler.dump_stats(args.profile)
    stats = pstats.Stats(profiler)
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    print(
        f"{client.stats.attempts} requests, {total / max(1, client.stats.attempts) * 1000:.2f} ms CPU per "
        f"request under the profiler; stats in {args.profile}; by CPU of their own:"
    )
    stats.sort_stats("tottime").print_stats(25)
    return 0


def best_of(repeat: int, fn: Callable[[], Run]) -> Run:
    """Run ``repeat`` times; the fastest complete run counts (the others are kept in extra)."""
    runs = [fn() for _ in range(repeat)]
    good = [r for r in runs if not r.problem] or runs
    best = min(good, key=lambda r: r.window_s if not math.isnan(r.window_s) else math.inf)
    if repeat > 1:
        best.extra["allWindowSeconds"] = [round(r.window_s, 3) for r in runs]
    return best


# --- promptfoo ----------------------------------------------------------------------------------


def write_promptfoo_config(path: Path, cases: list[Case], base_url: str) -> None:
    grader = {"id": f"openai:chat:{MODEL}", "config": {"apiBaseUrl": base_url, "apiKey": KEY}}
    cfg = {
        "description": f"Proctor judge throughput benchmark: {len(cases)} cases x 5 llm-rubric",
        "prompts": ["{{answer}}"],
        "providers": ["echo"],
        "sharing": False,
        "defaultTest": {"options": {"provider": grader}},
        "tests": [
            {
                "description": c.id,
                "vars": {"answer": c.answer},
                "assert": [{"type": "llm-rubric", "value": BUILTIN_RUBRICS[d]} for d in BASE_DIMENSIONS],
            }
            for c in cases
        ],
    }
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True, width=1_000_000))


def run_promptfoo(
    args: argparse.Namespace, work: Path, tools: Tools, cases: list[Case], concurrency: int | None
) -> Run:
    conc = concurrency or 4  # promptfoo's default -j
    name = f"promptfoo-j{conc}"
    label = f"-j {conc} (default)" if concurrency is None else f"-j {conc}"
    run = Run("promptfoo", label, conc, len(cases) * 5)
    script = Script("clean", args.seed, 0.0, args.retry_after, 0.0)
    load0 = os.getloadavg()[0]
    with Server(args.server, args.latency, script, work, name, not args.connection_close) as server:
        cfg = work / f"{name}.yaml"
        write_promptfoo_config(cfg, cases, server.base_url)
        out = work / f"{name}-out.json"
        out.unlink(missing_ok=True)
        home = work / f"{name}-home"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir()
        cmd = [str(tools.node), str(tools.promptfoo), "eval", "-c", str(cfg), "-o", str(out)]
        cmd += ["--no-cache", "--no-share", "--no-table", "--no-progress-bar", "--no-write"]
        if concurrency is not None:
            cmd += ["--max-concurrency", str(concurrency)]
        env = promptfoo_env(tools, home)
        env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
        m = measure(
            cmd,
            cwd=work,
            env=env,
            out=work / f"{name}.stdout",
            err=work / f"{name}.stderr",
            timeout=args.timeout,
        )
        log = server.stop()
    run.load = (load0, os.getloadavg()[0])
    run.wall_s = m.wall_s
    run.requests, run.throttled, run.window_s, run.max_in_flight = _window(log, "promptfoo", args.latency)
    run.extra = {"cpuSeconds": round(m.cpu_s, 2), "peakRssMiB": round(m.peak_rss_mib), "exit": m.rc}
    others = sum(1 for x in log if x[1] != "promptfoo")
    if m.timed_out or m.rc not in (0, 100) or not out.is_file():
        run.problem = f"promptfoo eval exited {m.rc}{' (timed out)' if m.timed_out else ''}"
        return run
    try:
        results = json.loads(out.read_text())["results"]["results"]
    except (ValueError, KeyError, TypeError) as e:
        run.problem = f"unreadable promptfoo output {out}: {e}"
        return run
    graded = sum(
        1
        for r in results
        for c in ((r.get("gradingResult") or {}).get("componentResults") or [])
        if c.get("pass")
    )
    run.extra["passedAssertions"] = graded
    if len(results) != len(cases) or graded != run.judgments:
        run.problem = f"promptfoo graded {graded} of {run.judgments} assertions as passing"
    elif run.requests != run.judgments or others:
        run.problem = f"server saw {run.requests} promptfoo requests (and {others} others)"
    return run


def proctor_more(
    args: argparse.Namespace,
    work: Path,
    cases: list[Case],
    step: Callable[[str, Callable[[], Run]], Run | None],
) -> tuple[Run | None, Run | None, Run | None, Run | None]:
    """Proctor's runs after the clean one: 429s (and pinned), consensus, a connection per request."""
    keepalive = not args.connection_close
    rate, ra = args.throttle_rate, args.retry_after
    throttled = pinned = closed = None
    if rate > 0:
        throttled = step(
            f"proctor, {rate:.0%} of requests answered 429 with Retry-After {ra:g}",
            lambda: run_proctor(
                args, work, cases, "clean", name=f"{rate:.0%} 429", throttle_rate=rate, keepalive=keepalive
            ),
        )
        if not args.skip_diagnostic:
            pinned = step(
                "proctor, the same 429s with the limit pinned (diagnostic)",
                lambda: run_proctor(
                    args,
                    work,
                    cases,
                    "clean",
                    name=f"{rate:.0%} 429 pinned",
                    throttle_rate=rate,
                    pin=True,
                    keepalive=keepalive,
                    diagnostic=True,
                ),
            )
    consensus = step(
        f"proctor, consensus ({args.near_fraction:.0%} of dimensions near the threshold)",
        lambda: run_proctor(
            args,
            work,
            cases,
            "consensus",
            name="consensus",
            near_fraction=args.near_fraction,
            keepalive=keepalive,
        ),
    )
    if keepalive and not args.skip_diagnostic:
        closed = step(
            "proctor, clean, one connection per request (diagnostic)",
            lambda: run_proctor(
                args, work, cases, "clean", name="clean conn-close", keepalive=False, diagnostic=True
            ),
        )
    return throttled, pinned, consensus, closed


# --- the report ---------------------------------------------------------------------------------


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def print_table(runs: list[Run], latency: float) -> None:
    print(
        f"\n{'tool':<10} {'run':<18} {'conc':>4} {'judgments':>9} {'requests':>8} {'wall s':>7} "
        f"{'window s':>8} {'judg/s':>7} {'ideal/s':>7} {'ratio':>6} {'req p50/p99 ms':>15} "
        f"{'in flight':>9} {'load':>10}"
    )
    for r in runs:
        ideal = r.concurrency / latency
        req = f"{r.request_ms[0]:.0f}/{r.request_ms[1]:.0f}" if r.request_ms else "-"
        print(
            f"{r.tool:<10} {r.scenario + ('*' if r.diagnostic else ''):<18} {r.concurrency:>4} "
            f"{r.judgments:>9} {r.requests:>8} {_fmt(r.wall_s, '.2f'):>7} {_fmt(r.window_s, '.2f'):>8} "
            f"{_fmt(r.rate(), '.1f'):>7} {ideal:>7.0f} {_fmt(r.ratio(latency), '.3f'):>6} {req:>15} "
            f"{r.max_in_flight:>9} {r.load[0]:>4.1f}-{r.load[1]:<4.1f}"
            + (f"  !! {r.problem}" if r.problem else "")
        )


def _run_json(r: Run, latency: float) -> dict[str, Any]:
    return {
        "tool": r.tool,
        "run": r.scenario,
        "diagnostic": r.diagnostic,
        "concurrency": r.concurrency,
        "judgments": r.judgments,
        "requests": r.requests,
        "throttled": r.throttled,
        "wallSeconds": round(r.wall_s, 3),
        "windowSeconds": round(r.window_s, 3),
        "judgmentsPerSecond": round(r.rate(), 1),
        "ratioOfIdeal": round(r.ratio(latency), 4),
        "requestMs": None
        if r.request_ms is None
        else {"p50": round(r.request_ms[0], 1), "p99": round(r.request_ms[1], 1)},
        "judgmentMs": None
        if r.judgment_ms is None
        else {"p50": round(r.judgment_ms[0], 1), "p99": round(r.judgment_ms[1], 1)},
        "maxInFlight": r.max_in_flight,
        "loadAverage": [round(x, 2) for x in r.load],
        **r.extra,
        "problem": r.problem or None,
    }


def banner(msg: str) -> None:
    line = "!" * min(100, len(msg) + 8)
    print(f"\n{line}\n!!! {msg}\n{line}", flush=True)


def _quiet_client_logs() -> None:
    # The client logs every retry and every halving (structlog prints to stdout by default): with
    # hundreds of 429s that drowns the figures. JudgeStats and the limiter count them instead.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    ap.add_argument("--cases", type=int, default=1000, help="cases, each judged on 5 dimensions (1000)")
    ap.add_argument("--concurrency", type=int, default=32, help="Proctor's concurrency, promptfoo's -j (32)")
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="judgments Proctor's driver keeps going at once (default 2 x concurrency; the\n"
        "client's own limit bounds the requests in flight)",
    )
    ap.add_argument("--latency", type=float, default=0.1, help="the judge's latency, seconds (0.1)")
    ap.add_argument("--throttle-rate", type=float, default=0.05, help="share of requests answered 429 (0.05)")
    ap.add_argument(
        "--retry-after", type=float, default=1.0, help="Retry-After of a 429, seconds (1, the least whole)"
    )
    ap.add_argument(
        "--near-fraction", type=float, default=0.1, help="consensus run: share of dimensions near 50 (0.1)"
    )
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each Proctor scenario; the fastest counts")
    ap.add_argument(
        "--server",
        choices=("process", "thread"),
        default="process",
        help="the judge server in a child process (default) or in a thread of this one",
    )
    ap.add_argument(
        "--connection-close",
        action="store_true",
        help="leave the test server at HTTP/1.0, one connection per request (default: keep-alive)",
    )
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run (900)")
    ap.add_argument("--skip-proctor", action="store_true")
    ap.add_argument("--skip-promptfoo", action="store_true")
    ap.add_argument("--skip-diagnostic", action="store_true", help="no diagnostic runs (marked *)")
    ap.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="only the clean run, under cProfile (CPU time): stats to FILE, the top functions printed",
    )
    ap.add_argument("--work-dir", type=Path, default=WORK_ROOT)
    ap.add_argument("--tools-dir", type=Path, default=TOOLS_ROOT)
    args = ap.parse_args(argv)
    if args.workers is None:
        args.workers = 2 * args.concurrency
    if min(args.cases, args.concurrency, args.workers, args.repeat) < 1:
        ap.error("--cases, --concurrency, --workers and --repeat must be >= 1")
    if not args.latency > 0 or not args.timeout > 0 or args.retry_after < 0:
        ap.error("--latency and --timeout must be > 0, --retry-after >= 0")
    if not 0 <= args.throttle_rate < 1 or not 0 <= args.near_fraction <= 1:
        ap.error("--throttle-rate must be in [0, 1), --near-fraction in [0, 1]")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:  # internal: the server process
        return serve(json.loads(argv[1]))
    args = parse_args(argv)
    _quiet_client_logs()
    work = args.work_dir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    cases = generate(args.cases, args.seed)
    ideal = args.concurrency / args.latency
    keepalive = not args.connection_close
    print(
        f"{len(cases)} cases x {len(BASE_DIMENSIONS)} dimensions = {len(cases) * 5} judgments; judge latency "
        f"{args.latency * 1000:g} ms, server in a {args.server}, "
        f"{'keep-alive' if keepalive else 'one connection per request'}; ideal at concurrency "
        f"{args.concurrency}: {ideal:g} judgments/s; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    if importlib.util.find_spec("sniffio") is None:
        print(
            "note: 'sniffio' is not installed: httpcore then tries 'import sniffio' (and fails, searching\n"
            "      sys.path) several times per request, which costs the client CPU on every judge call"
        )
    if args.profile is not None:
        return profile(args, work, cases)
    runs: list[Run] = []
    failed = False

    def step(label: str, fn: Callable[[], Run]) -> Run | None:
        nonlocal failed
        print(f"running {label} ...", flush=True)
        try:
            r = best_of(args.repeat, fn) if label.startswith("proctor") else fn()
        except HarnessError as e:
            banner(f"harness failure in {label}: {e}")
            failed = True
            return None
        runs.append(r)
        return r

    rate, ra = args.throttle_rate, args.retry_after
    tools = None
    if not args.skip_promptfoo:
        try:
            tools = ensure_tools(args.tools_dir, work / "npm-install.log")
        except HarnessError as e:
            banner(f"harness failure: {e}")
            failed = True
    # The head-to-head runs first, one after the other, so that they share the machine's mood.
    clean = throttled = pinned = consensus = closed = None
    if not args.skip_proctor:
        clean = step(
            "proctor, clean",
            lambda: run_proctor(args, work, cases, "clean", name="clean", keepalive=keepalive),
        )
    if tools is not None:
        for conc in (args.concurrency, None):
            step(
                f"promptfoo llm-rubric, -j {conc or 'default (4)'}",
                lambda conc=conc: run_promptfoo(args, work, tools, cases, conc),  # type: ignore[misc]
            )
    if not args.skip_proctor:
        throttled, pinned, consensus, closed = proctor_more(args, work, cases, step)

    print_table(runs, args.latency)
    print(
        "  judg/s: judgments over the server's window (first arrival to last arrival + latency), the\n"
        "  same for both tools; ratio = judg/s / ideal/s, ideal = concurrency / latency; wall s: Proctor\n"
        "  client side, promptfoo its whole process; req p50/p99: one judge request's round trip at the\n"
        "  client; in flight: most requests the server held at once; load: 1-minute load average\n"
        "  before-after; * a diagnostic, not a figure of the goal"
    )
    summary: dict[str, Any] = {
        "cases": len(cases),
        "dimensions": len(BASE_DIMENSIONS),
        "latency": args.latency,
        "concurrency": args.concurrency,
        "workers": args.workers,
        "idealPerSecond": ideal,
        "server": args.server,
        "keepAlive": keepalive,
        "seed": args.seed,
        "throttleRate": rate,
        "retryAfter": ra,
        "nearFraction": args.near_fraction,
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
        "runs": [_run_json(r, args.latency) for r in runs],
    }
    print()
    if clean and not clean.problem:
        ratio = clean.ratio(args.latency)
        verdict = "goal met" if ratio >= GOAL_RATIO else "GOAL NOT MET"
        j = clean.judgment_ms or (math.nan, math.nan)
        cpu_ms = clean.extra["clientCpuMsPerRequest"]
        cpu_verdict = "goal met" if cpu_ms <= GOAL_CPU_MS else "GOAL NOT MET"
        print(
            f"proctor clean: {clean.rate():.1f} judgments/s = {ratio:.3f} of ideal (goal >= {GOAL_RATIO}: "
            f"{verdict}); client side {clean.extra['clientRate']:.1f}/s; per judgment p50 "
            f"{j[0]:.0f} ms, p99 {j[1]:.0f} ms (with {args.workers} judgments going for "
            f"{args.concurrency} slots, so about half of it waiting for a slot)\n"
            f"client CPU per judge request: {cpu_ms} ms (goal <= {GOAL_CPU_MS:g} ms: {cpu_verdict})"
        )
        summary["ratioOfIdeal"] = round(ratio, 4)
        summary["clientCpuMsPerRequest"] = cpu_ms
        if closed and not closed.problem:
            print(
                f"  diagnostic, one connection per request: {closed.ratio(args.latency):.3f} of ideal "
                f"({closed.rate():.1f}/s), against {ratio:.3f} with keep-alive"
            )
    if clean and throttled and not clean.problem and not throttled.problem:
        slow = throttled.window_s / clean.window_s - 1
        verdict = "goal met" if slow <= GOAL_SLOWDOWN else "GOAL NOT MET"
        st, lim = throttled.extra["stats"], throttled.extra["limit"]
        j = throttled.judgment_ms or (math.nan, math.nan)
        print(
            f"429 slowdown: {slow:+.1%} ({throttled.window_s:.2f} s against {clean.window_s:.2f} s; goal <= "
            f"+{GOAL_SLOWDOWN:.0%}: {verdict}); {throttled.throttled} of {throttled.requests} requests "
            f"answered 429, {st['retries']} retries, {st['skipped']} skipped\n"
            f"  adaptive limit: lowest {lim['lowest']}, mean {lim['mean']}, final {lim['final']} "
            f"({lim['halvings']} halvings, {lim['increases']} increases of one); per judgment p50 "
            f"{j[0]:.0f} ms, p99 {j[1]:.0f} ms"
        )
        # What the script itself costs any client: the retried requests hold slots too, and a 429
        # answered in the run's last round makes its judgment wait out the Retry-After while the
        # rest of the work is already done (with 5 % of 32 in flight, the last round nearly always
        # has one). Measured at the floor, the client loses nothing to scheduling or the limit.
        floor = throttled.requests / clean.requests - 1 + args.retry_after / clean.window_s
        print(
            f"  floor set by the script: about {floor:+.1%} ({throttled.requests - clean.requests} more "
            f"requests, {throttled.requests / clean.requests - 1:+.1%}, and one Retry-After of "
            f"{args.retry_after:g} s at the end, {args.retry_after / clean.window_s:+.1%} of the clean "
            f"window); the client is {slow - floor:+.1%} from it"
        )
        summary["slowdown429"] = round(slow, 4)
        summary["slowdown429Floor"] = round(floor, 4)
        if pinned and not pinned.problem:
            pslow = pinned.window_s / clean.window_s - 1
            print(
                f"  diagnostic, the limit pinned at {args.concurrency} (AdaptiveLimit minimum = maximum): "
                f"{pslow:+.1%} ({pinned.window_s:.2f} s), the cost of the retries and their Retry-After "
                f"alone; the rest, {slow - pslow:+.1%}, is the limit halving"
            )
            summary["slowdown429PinnedLimit"] = round(pslow, 4)
    if consensus and not consensus.problem:
        st = consensus.extra["stats"]
        exp = consensus.extra["expectedExtraCalls"]
        print(
            f"consensus cost: {consensus.extra['nearDimensions']} of {consensus.judgments} dimensions "
            f"near the threshold -> {st['consensusCalls']} extra judge calls (expected {exp}), "
            f"multiplier {st['consensusMultiplier']:.3f} judge calls per dimension; "
            f"{consensus.rate():.1f} judgments/s, {consensus.requests / consensus.window_s:.1f} requests/s"
        )
        summary["consensus"] = {"extraCalls": st["consensusCalls"], "multiplier": st["consensusMultiplier"]}
        if st["consensusCalls"] != exp:
            banner(f"consensus made {st['consensusCalls']} extra calls, expected {exp}")
            failed = True
    for r in runs:
        if r.tool == "promptfoo" and not r.problem:
            print(
                f"promptfoo -j {r.concurrency}: {r.rate():.1f} judgments/s = {r.ratio(args.latency):.3f} of "
                f"its ideal ({r.concurrency / args.latency:g}/s), {r.rate() / ideal:.3f} of Proctor's ideal "
                f"at {args.concurrency}; its whole process took {r.wall_s:.1f} s and "
                f"{r.extra['cpuSeconds'] / r.judgments * 1000:.1f} ms CPU per judgment"
            )
    if clean and not clean.problem:
        for r in runs:
            if r.tool == "promptfoo" and not r.problem and r.concurrency == args.concurrency:
                print(
                    f"proctor / promptfoo at concurrency {args.concurrency}: {clean.rate() / r.rate():.1f}x"
                )
    load = max((r.load[1] for r in runs if not math.isnan(r.load[1])), default=0.0)
    if load > (os.cpu_count() or 1):
        print(
            f"note: the load average reached {load:.1f} on {os.cpu_count()} CPUs during the runs: other work "
            "was competing for the CPU and the figures are lower than a quiet machine would give"
        )
    failed = failed or any(r.problem for r in runs)
    out = work / "results.json"
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"figures saved to {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

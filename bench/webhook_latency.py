#!/usr/bin/env python3
"""P6: the admission webhook's latency at a steady 50 requests/s (goal: p99 <= 20 ms).

Usage (from the repository root)::

    .venv/bin/python bench/webhook_latency.py                      # 50/s for 30 s, every part
    .venv/bin/python bench/webhook_latency.py --duration 5         # a quick look
    .venv/bin/python bench/webhook_latency.py --only webhook       # part 1 alone
    .venv/bin/python bench/webhook_latency.py --busy 100           # while the operator reconciles

It starts its own control plane (``proctor.devcluster``: etcd, kube-apiserver,
kube-controller-manager; no node stand-in) in a temporary directory, installs the CRDs and runs
``proctor operator -n bench-webhook`` with the webhook served on 127.0.0.1 over TLS, as
``tests/integration/test_webhook.py`` does. Then, every load open-loop (requests leave on a
fixed timetable, ``--rate`` a second, whether or not the earlier ones have been answered, so a
slow answer shows up as latency and not as a lower rate; each latency counts from the request's
slot in the timetable, so time spent waiting to be sent counts too):

1. The webhook alone: AdmissionReview v1 requests POSTed straight to
   ``https://127.0.0.1:PORT/proctor-gate`` as the API server sends them (TLS verified against the
   generated ``ca.crt``; the objects are real Deployments read back from the API server, with
   their managedFields and status). Two runs: ``image``, every request an UPDATE of an approved
   gated Deployment whose image changed (the answer must be allowed with a JSONPatch that pauses
   it and records the pending template hash, and nothing else), and ``mixed``, every other
   request a scale-only UPDATE of the same Deployments (the answer must be allowed, no patch).
2. Through the API server: real ``PATCH`` calls (strategic merge patch of the container image,
   a new tag each time, python ``kubernetes`` client, one client per worker thread) round-robin
   over ``--deployments`` Deployments. ``ungated``: Deployments without the gate label (the
   webhook's objectSelector skips them: the baseline); ``gated``: labelled ones, so every call
   goes through the webhook. All of them are paused with 0 replicas (the gated ones by the
   webhook, the ungated ones from the start), so no rollout adds work to either run. Every
   reply is checked (gated: paused, pending hash of the new template; ungated: untouched). The
   API server's own metrics (webhook call and PATCH duration histograms) are read before and
   after each run.

``--busy N`` loads the operator while it answers, as a cluster in use does: during each run
(warm-up included) a thread creates ``N`` EvalRuns of the example CaseSet (recorded answers, one
shard: the operator makes each one's key Secret, Role, results ConfigMap and Job, and writes its
status, all on its event loop), spread evenly over the run, and changes a GatePolicy that gates
nothing twice a second (a reconcile of the policy each time). The runs stay (no node runs their
pods), so later runs also see the rechecks of earlier ones. The webhook's own requests and their
checks are the same with or without it.

Each run has ``--warmup`` seconds of requests first (same rate, not counted). Printed per run:
the rate achieved (requests sent / s and answered / s), p50, p90, p99 and max latency, the
CPU time of each process per request, and the machine's load average (``/proc/loadavg``) before
and after: the machine may be shared, and a tail at a load above its cores is the machine's.
Figures are printed, never judged: exit status 0 when the harness worked, whatever the figures;
1 when it failed (the control plane or the operator did not start, a request failed or timed out,
an answer was wrong); 2 on bad arguments. Ctrl-C stops everything it started. The operator's log
and ``results.json`` go to ``.bench/webhook_latency/``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import copy
import ctypes
import json
import os
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import jsonpatch
import yaml
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from proctor.api import API_VERSION, GROUP, VERSION, EvalRun, GatePolicy
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    GATE_LABEL,
    PENDING_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    template_hash,
)
from proctor.k8s.objects import WEBHOOK_HANDLER_ID, WEBHOOK_NAME
from proctor.testing.cluster import Cluster as SharedCluster
from proctor.testing.cluster import ClusterError

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".bench" / "webhook_latency"
NS = "bench-webhook"
CONFIGURATION = "proctor-gate-bench"
GOAL_P99_MS = 20.0
EXAMPLE = REPO / "examples" / "oil-monitoring"
CHURN_POLICY = "bench-churn"
SMP = "application/strategic-merge-patch+json"


class HarnessError(RuntimeError):
    """The benchmark itself failed (not a figure that missed its goal)."""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs between fork and exec
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentiles(xs: list[float]) -> dict[str, float]:
    """Nearest-rank percentiles of latencies in seconds, returned in milliseconds."""
    s = sorted(xs)
    if not s:
        return {"n": 0}

    def pct(p: float) -> float:
        k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
        return s[k] * 1000

    return {
        "n": len(s),
        "p50": round(pct(50), 2),
        "p90": round(pct(90), 2),
        "p99": round(pct(99), 2),
        "max": round(s[-1] * 1000, 2),
        "mean": round(statistics.fmean(s) * 1000, 2),
    }


# --- the cluster --------------------------------------------------------------------------------


class Cluster(SharedCluster):
    """The shared harness (:class:`proctor.testing.cluster.Cluster`), and what this benchmark reads raw."""

    def raw(self, path: str) -> bytes:
        """GET a path of the API server (as the admin): raw bytes."""
        api = self.api()
        resp = api.rest_client.pool_manager.request(
            "GET", api.configuration.host + path, timeout=30, preload_content=True
        )
        if resp.status != 200:
            raise HarnessError(f"GET {path}: HTTP {resp.status}")
        return bytes(resp.data)

    def get_deployment(self, name: str) -> dict[str, Any]:
        """A Deployment exactly as the API server stores and sends it (managedFields included)."""
        out: dict[str, Any] = json.loads(self.raw(f"/apis/apps/v1/namespaces/{NS}/deployments/{name}"))
        return out


# --- the operator ------------------------------------------------------------------------------


class Operator:
    """``proctor operator -n NS`` with the webhook on loopback: the real entry point."""

    def __init__(self, cluster: Cluster, work: Path, cert_dir: Path) -> None:
        self.cluster = cluster
        self.log_path = work / "operator.log"
        self.cert_dir = cert_dir
        self.port = free_port()
        self.probe = f"http://127.0.0.1:{free_port()}/healthz"
        env = cluster.env() | {
            "PROCTOR_METRICS_PORT": "0",
            "PROCTOR_WEBHOOK_PORT": str(self.port),
            "PROCTOR_WEBHOOK_ADDR": "127.0.0.1",
            "PROCTOR_WEBHOOK_URL_HOST": "127.0.0.1",
            "PROCTOR_WEBHOOK_CERT_DIR": str(cert_dir),
            "PROCTOR_WEBHOOK_CONFIGURATION": CONFIGURATION,
        }
        work.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "proctor.cli", "operator", "-n", NS, "--liveness", self.probe],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent,
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/{WEBHOOK_HANDLER_ID}"

    def check(self) -> None:
        if self.proc.poll() is not None:
            raise HarnessError(f"the operator exited ({self.proc.returncode}); see {self.log_path}")

    def wait_ready(self, timeout: float = 90) -> None:
        """Until the liveness probe answers and the API server calls the webhook for a gated
        Deployment (a probe Deployment comes back paused)."""
        deadline = time.monotonic() + timeout
        admission = client.AdmissionregistrationV1Api(self.cluster.api())

        def live() -> bool:
            try:
                with urllib.request.urlopen(self.probe, timeout=1):
                    pass
            except OSError:
                return False
            try:
                admission.read_mutating_webhook_configuration(CONFIGURATION)
            except ApiException:
                return False
            return True

        while not live():
            self.check()
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"the operator's webhook was not up within {timeout:.0f}s; see {self.log_path}"
                )
            time.sleep(0.2)
        apps = self.cluster.apps()
        for attempt in range(1000):
            name = f"probe-{attempt}"
            try:
                made = apps.create_namespaced_deployment(NS, deployment(name, gated=True))
                paused = bool(made.spec.paused)
                apps.delete_namespaced_deployment(name, NS)
                if paused:
                    return
            except ApiException:
                pass  # the API server may call the webhook before Kopf serves it (failurePolicy Fail)
            self.check()
            if time.monotonic() > deadline:
                raise HarnessError(f"the API server did not call the webhook within {timeout:.0f}s")
            time.sleep(0.5)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# --- the objects -------------------------------------------------------------------------------


def deployment(name: str, *, gated: bool, image: str = "proctor:v1", paused: bool = False) -> dict[str, Any]:
    """A Deployment with no replicas (nothing runs) and a realistic pod template."""
    labels = {"app": name} | ({GATE_LABEL: "oil"} if gated else {})
    spec: dict[str, Any] = {
        "replicas": 0,
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name, "proctor.dev/agent": "oil-monitoring"}},
            "spec": {
                "containers": [
                    {
                        "name": "agent",
                        "image": image,
                        "command": ["python", "-m", "agent"],
                        "env": [{"name": "MODEL", "value": "small"}, {"name": "LOG_LEVEL", "value": "info"}],
                        "ports": [{"containerPort": 8080, "name": "http"}],
                        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                    }
                ]
            },
        },
    }
    if paused:
        spec["paused"] = True
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
    }


def set_image(obj: dict[str, Any], image: str) -> None:
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = image


def admission_review(uid: str, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """An UPDATE AdmissionReview v1, shaped as kube-apiserver sends it."""
    gvk = {"group": "apps", "version": "v1", "kind": "Deployment"}
    gvr = {"group": "apps", "version": "v1", "resource": "deployments"}
    return {
        "kind": "AdmissionReview",
        "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": uid,
            "kind": gvk,
            "resource": gvr,
            "requestKind": gvk,
            "requestResource": gvr,
            "name": new["metadata"]["name"],
            "namespace": NS,
            "operation": "UPDATE",
            "userInfo": {"username": "admin", "groups": ["system:masters", "system:authenticated"]},
            "object": new,
            "oldObject": old,
            "dryRun": False,
            "options": {"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "bench"},
        },
    }


@dataclass
class Request:
    uid: str
    body: bytes
    new: dict[str, Any]
    expected: dict[str, Any] | None  # the object after the expected patch; None: no patch


def build_reviews(bases: list[dict[str, Any]], count: int, *, mixed: bool, tag: str) -> list[Request]:
    """``count`` requests round-robin over ``bases`` (approved, unpaused gated Deployments):
    image changes, or with ``mixed`` every other one a scale-only change."""
    out: list[Request] = []
    for i in range(count):
        old = bases[i % len(bases)]
        new = copy.deepcopy(old)
        scale_only = mixed and i % 2 == 1
        expected: dict[str, Any] | None = None
        if scale_only:
            new["spec"]["replicas"] = 1 + (i // 2) % 3
        else:
            set_image(new, f"registry.local/agent:{tag}-{i}")
            new["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1
            expected = copy.deepcopy(new)
            expected["spec"]["paused"] = True
            expected["metadata"].setdefault("annotations", {})[PENDING_ANNOTATION] = template_hash(
                new["spec"]["template"]
            )
        uid = str(uuid.uuid4())
        body = json.dumps(admission_review(uid, old, new), separators=(",", ":")).encode()
        out.append(Request(uid, body, new, expected))
    return out


def check_review(req: Request, status: int, data: bytes) -> str | None:
    """What is wrong with an answer, or None."""
    if status != 200:
        return f"HTTP {status}: {data[:200]!r}"
    try:
        review = json.loads(data)
    except ValueError:
        return f"not JSON: {data[:200]!r}"
    resp = review.get("response") or {}
    if review.get("apiVersion") != "admission.k8s.io/v1" or review.get("kind") != "AdmissionReview":
        return f"not an AdmissionReview v1: {review.get('apiVersion')} {review.get('kind')}"
    if resp.get("uid") != req.uid:
        return f"uid {resp.get('uid')} for {req.uid}"
    if resp.get("allowed") is not True:
        return f"not allowed: {resp.get('status')}"
    if req.expected is None:
        if "patch" in resp:
            return f"a patch where none was expected: {base64.b64decode(resp['patch'])[:300]!r}"
        return None
    if resp.get("patchType") != "JSONPatch" or "patch" not in resp:
        return f"no JSONPatch: {resp}"
    ops = json.loads(base64.b64decode(resp["patch"]))
    try:
        patched = jsonpatch.apply_patch(req.new, ops)
    except jsonpatch.JsonPatchException as e:
        return f"the patch does not apply ({e}): {ops}"
    # when the hold began: a timestamp of the answer's own, present but not compared
    since = (patched.get("metadata", {}).get("annotations") or {}).pop(PENDING_SINCE_ANNOTATION, None)
    if not since:
        return f"the patch does not record when the hold began ({PENDING_SINCE_ANNOTATION}): {ops}"
    expected = copy.deepcopy(req.expected)
    (expected["metadata"].get("annotations") or {}).pop(PENDING_SINCE_ANNOTATION, None)
    if patched != expected:
        return f"the patch does more or less than pause and record the pending hash: {ops}"
    return None


# --- open-loop load ----------------------------------------------------------------------------


@dataclass
class Sample:
    slot: float  # when the timetable said to send it (monotonic)
    start: float = 0.0  # when it was sent
    done: float = 0.0  # when the answer was read
    status: int = 0
    data: bytes = b""
    error: str | None = None  # the request failed (transport error, timeout)
    wrong: str | None = None  # the answer was not the expected one


@dataclass
class Run:
    name: str
    samples: list[Sample]
    warmup: int
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per process during the run
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def measured(self) -> list[Sample]:
        return self.samples[self.warmup :]

    @property
    def problems(self) -> list[str]:
        """Every failed or wrong request, warm-up included."""
        return [
            f"request {i}: {s.error or s.wrong}" for i, s in enumerate(self.samples) if s.error or s.wrong
        ]

    def figures(self) -> dict[str, Any]:
        m = self.measured
        ok = [s for s in m if s.error is None]
        lat = percentiles([s.done - s.slot for s in ok])
        span_sent = m[-1].start - m[0].start if len(m) > 1 else 0.0
        span_done = max(s.done for s in ok) - m[0].slot if ok else 0.0
        lag = [s.start - s.slot for s in m]
        n = len(m)
        cpu = {k: v for k, v in self.cpu.items() if not k.startswith("_")}
        wall = self.cpu.get(WALL) or 0.0
        ours = sum(cpu.values())
        machine = {
            "cores": os.cpu_count(),
            "busy_cores": round(self.cpu.get(MACHINE, 0.0) / wall, 2) if wall else None,
            "busy_cores_others": round((self.cpu.get(MACHINE, 0.0) - ours) / wall, 2) if wall else None,
            "loadavg_1min_after": round(os.getloadavg()[0], 2),
        }
        return {
            "requests": n,
            "errors": n - len(ok),
            "sent_per_s": round((n - 1) / span_sent, 2) if span_sent > 0 else None,
            "answered_per_s": round(len(ok) / span_done, 2) if span_done > 0 else None,
            "send_lag_ms": {
                "p99": round(sorted(lag)[int(0.99 * (n - 1))] * 1000, 2),
                "max": round(max(lag) * 1000, 2),
            },
            "latency_ms": lat,
            "cpu_ms_per_request": {k: round(v * 1000 / len(self.samples), 2) for k, v in cpu.items()},
            "cpu_cores": {k: round(v / wall, 3) for k, v in cpu.items()} if wall else {},
            "machine": machine,
            "wrong": sum(s.wrong is not None for s in m),
            **self.extra,
            "timeline": self.timeline(),
        }

    def timeline(self) -> list[dict[str, Any]]:
        """Per second of the timetable (warm-up included, from 0): requests, p50 and max latency
        of the answered ones, failed ones; shows when a run degrades."""
        t0 = self.samples[0].slot
        by: dict[int, list[Sample]] = {}
        for s in self.samples:
            by.setdefault(int(s.slot - t0), []).append(s)
        out = []
        for sec, ss in sorted(by.items()):
            lat = sorted(s.done - s.slot for s in ss if s.error is None)
            out.append(
                {
                    "s": sec,
                    "n": len(ss),
                    "p50_ms": round(lat[len(lat) // 2] * 1000, 1) if lat else None,
                    "max_ms": round(lat[-1] * 1000, 1) if lat else None,
                    "errors": sum(s.error is not None for s in ss),
                }
            )
        return out


MACHINE, WALL = "_machine", "_wall"


def machine_busy_seconds() -> float:
    """CPU seconds all processes of the machine have used (all cores), from /proc/stat."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU seconds used by the operator, the control plane's processes and this process."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids

    def snapshot(self) -> dict[str, float]:
        snap = {name: cpu_seconds(pid) for name, pid in self.pids.items()}
        snap["bench client"] = time.process_time()
        snap[MACHINE] = machine_busy_seconds()
        snap[WALL] = time.monotonic()
        return snap

    @staticmethod
    def delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
        return {k: after[k] - before[k] for k in before}


async def _post_all(
    url: str, bodies: list[bytes], rate: float, ctx: ssl.SSLContext, request_timeout: float
) -> list[Sample]:
    loop = asyncio.get_running_loop()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, */*",
        "User-Agent": "kube-apiserver-admission",
    }
    connector = aiohttp.TCPConnector(ssl=ctx, limit=0)
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=request_timeout)
    ) as session:

        async def one(sample: Sample, body: bytes) -> Sample:
            sample.start = loop.time()
            try:
                async with session.post(url, data=body, headers=headers) as resp:
                    sample.data = await resp.read()
                    sample.status = resp.status
            except (aiohttp.ClientError, TimeoutError) as e:
                sample.error = f"{type(e).__name__}: {e}"
            sample.done = loop.time()
            return sample

        t0 = loop.time() + 0.1
        tasks = []
        for i, body in enumerate(bodies):
            slot = t0 + i / rate
            delay = slot - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(Sample(slot), body)))
        return list(await asyncio.gather(*tasks))


def post_open_loop(url: str, bodies: list[bytes], rate: float, ca: Path, timeout: float) -> list[Sample]:
    """POST every body to ``url`` on a fixed timetable, ``rate`` a second (asyncio, one process)."""
    ctx = ssl.create_default_context(cafile=str(ca))  # verifies the chain and the 127.0.0.1 SAN
    budget = len(bodies) / rate + timeout + 30
    try:
        return asyncio.run(asyncio.wait_for(_post_all(url, bodies, rate, ctx, timeout), budget))
    except TimeoutError:
        raise HarnessError(f"the requests were not all answered within {budget:.0f}s") from None


def call_open_loop(
    count: int, rate: float, call: Callable[[int], tuple[int, bytes]], workers: int, timeout: float
) -> list[Sample]:
    """Run ``call(i)`` for i < count on a fixed timetable, ``rate`` a second, in a thread pool
    (``time.monotonic`` clock, as asyncio's)."""
    samples = [Sample(0.0) for _ in range(count)]

    def task(i: int) -> None:
        s = samples[i]
        s.start = time.monotonic()
        try:
            s.status, s.data = call(i)
        except ApiException as e:
            s.status, s.data = int(e.status or 0), str(e.body or e.reason).encode()
            s.error = f"HTTP {e.status}: {str(e.body or e.reason)[:300]}"
        except Exception as e:  # a transport error, a timeout: the request failed
            s.error = f"{type(e).__name__}: {e}"
        s.done = time.monotonic()

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bench")
    try:
        futures = []
        t0 = time.monotonic() + 0.1
        for i in range(count):
            samples[i].slot = slot = t0 + i / rate
            delay = slot - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            futures.append(pool.submit(task, i))
        # each call ends within its timeout; calls queued behind busy workers wait their turn
        bound = min(900.0, timeout * (count / workers + 1) + 30)
        _, pending = wait_futures(futures, timeout=bound)
        if pending:
            raise HarnessError(
                f"{len(pending)} API calls still running {bound:.0f} s after the last was sent"
            )
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return samples


# --- the API server's metrics ------------------------------------------------------------------


def scrape(cluster: Cluster) -> dict[str, float]:
    """The histogram series this benchmark reads from kube-apiserver's /metrics."""
    wanted = ("apiserver_admission_webhook_admission_duration_seconds", "apiserver_request_duration_seconds")
    out: dict[str, float] = {}
    for line in cluster.raw("/metrics").decode().splitlines():
        if line.startswith(wanted):
            key, _, value = line.rpartition(" ")
            with contextlib.suppress(ValueError):
                out[key] = float(value)
    return out


def histogram(delta: dict[str, float], name: str, match: Callable[[str], bool]) -> dict[str, Any]:
    """count, mean, share under each bucket bound and a p99 upper bound, summed over the series
    of histogram ``name`` whose labels ``match``."""
    buckets: dict[float, float] = {}
    total = count = 0.0
    for key, v in delta.items():
        metric, _, labels = key.partition("{")
        if not match(labels):
            continue
        if metric == name + "_bucket":
            le = labels.rsplit('le="', 1)[1].split('"', 1)[0]
            bound = float("inf") if le == "+Inf" else float(le)
            buckets[bound] = buckets.get(bound, 0.0) + v
        elif metric == name + "_sum":
            total += v
        elif metric == name + "_count":
            count += v
    if not count:
        return {"count": 0}
    p99 = next((b for b in sorted(buckets) if buckets[b] >= 0.99 * count), float("inf"))
    shares = {f"<= {b * 1000:g} ms": round(buckets[b] / count, 4) for b in sorted(buckets) if b <= 0.1}
    return {
        "count": int(count),
        "mean_ms": round(total / count * 1000, 2),
        "p99_at_most_ms": None if p99 == float("inf") else round(p99 * 1000, 1),
        "shares": shares,
    }


def api_server_view(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
    webhook = histogram(
        delta,
        "apiserver_admission_webhook_admission_duration_seconds",
        lambda labels: f'name="{WEBHOOK_NAME}"' in labels and 'operation="UPDATE"' in labels,
    )
    patch = histogram(
        delta,
        "apiserver_request_duration_seconds",
        lambda labels: (
            'resource="deployments"' in labels and 'verb="PATCH"' in labels and 'subresource=""' in labels
        ),
    )
    return {"webhook_call": webhook, "patch_request": patch}


# --- the operator kept busy (--busy) ------------------------------------------------------------


def setup_busy(cluster: Cluster) -> None:
    """The example CaseSet the busy runs examine, and a GatePolicy that gates nothing (it observes,
    and no Deployment carries its name), changed while the webhook is measured."""
    cluster.kubectl("-n", NS, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    policy = {
        "apiVersion": API_VERSION,
        "kind": "GatePolicy",
        "metadata": {"name": CHURN_POLICY},
        "spec": {
            "caseSetRef": {"name": "oil-monitoring"},
            "candidate": {"protocol": "http-json", "port": 8080, "path": "/ask", "responsePath": "answer"},
            "enforcement": "Observe",
        },
    }
    cluster.custom().create_namespaced_custom_object(GROUP, VERSION, NS, GatePolicy.PLURAL, policy)


class Busy:
    """While a run is measured: ``runs`` EvalRuns created evenly over ``seconds``, and the churn
    GatePolicy changed twice a second (a thread; API calls as the admin, none through the webhook)."""

    def __init__(self, cluster: Cluster, runs: int, seconds: float, tag: str) -> None:
        self.cluster, self.runs, self.seconds, self.tag = cluster, runs, seconds, tag
        self.stopping = threading.Event()
        self.made = self.changes = 0
        self.errors: list[str] = []
        self.answers = yaml.safe_load((EXAMPLE / "answers" / "v1-correct.yaml").read_text())
        self.thread = threading.Thread(target=self._loop, name="busy", daemon=True)

    def __enter__(self) -> Busy:
        if self.runs:
            self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(30)

    def _loop(self) -> None:
        custom = self.cluster.custom()
        t0, every = time.monotonic(), self.seconds / self.runs
        next_run, next_change = t0, t0
        while not self.stopping.is_set() and (self.made < self.runs or time.monotonic() < t0 + self.seconds):
            now = time.monotonic()
            try:
                if self.made < self.runs and now >= next_run:
                    custom.create_namespaced_custom_object(
                        GROUP, VERSION, NS, EvalRun.PLURAL, self._run(f"busy-{self.tag}-{self.made}")
                    )
                    self.made += 1
                    next_run += every
                if now >= next_change:
                    body = {"metadata": {"annotations": {"bench.proctor.dev/churn": str(self.changes)}}}
                    custom.patch_namespaced_custom_object(
                        GROUP, VERSION, NS, GatePolicy.PLURAL, CHURN_POLICY, body
                    )
                    self.changes += 1
                    next_change += 0.5
            except ApiException as e:
                self.errors.append(f"HTTP {e.status}: {str(e.body or e.reason)[:200]}")
                if len(self.errors) > 20:
                    return
            self.stopping.wait(
                max(
                    0.0,
                    min(next_run if self.made < self.runs else next_change, next_change) - time.monotonic(),
                )
            )

    def _run(self, name: str) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": "EvalRun",
            "metadata": {"name": name},
            "spec": {
                "caseSetRef": {"name": "oil-monitoring"},
                "shards": 1,
                "target": {"responses": {"inline": self.answers}},
            },
        }

    def figures(self) -> dict[str, Any]:
        return {"evalruns_created": self.made, "policy_changes": self.changes, "errors": self.errors[:5]}


def loadavg() -> str:
    """The machine's load averages (1, 5, 15 min) and running/total tasks, as /proc/loadavg says."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:4])
    except OSError:
        return "?"


# --- the measurements --------------------------------------------------------------------------


def approve(cluster: Cluster, name: str) -> dict[str, Any]:
    """What the operator writes when an exam passes: the approved hash, unpaused."""
    d = cluster.get_deployment(name)
    h = template_hash(d["spec"]["template"])
    body = {"metadata": {"annotations": {APPROVED_ANNOTATION: h}}, "spec": {"paused": False}}
    cluster.apps().patch_namespaced_deployment(name, NS, body, _content_type=SMP)
    d = cluster.get_deployment(name)
    if d["spec"].get("paused") or d["metadata"]["annotations"].get(APPROVED_ANNOTATION) != h:
        raise HarnessError(f"{name}: approving its template did not stick: {d['spec'].get('paused')}")
    return d


def run_webhook_alone(cluster: Cluster, op: Operator, args: argparse.Namespace, cpu: CpuMeter) -> list[Run]:
    bases = []
    for k in range(args.deployments):
        name = f"approved-{k}"
        cluster.apps().create_namespaced_deployment(NS, deployment(name, gated=True))
        bases.append(approve(cluster, name))
    per_run = round(args.rate * (args.warmup + args.duration))
    warmup = round(args.rate * args.warmup)
    runs = []
    for name, mixed in (("image", False), ("mixed", True)):
        reqs = build_reviews(bases, per_run, mixed=mixed, tag=name)
        log(
            f"part 1, {name}: {per_run} AdmissionReviews at {args.rate:g}/s "
            f"({len(reqs[0].body) / 1024:.1f} KiB each) to {op.url}"
        )
        op.check()
        load_before = loadavg()
        before = cpu.snapshot()
        with Busy(cluster, args.busy, args.warmup + args.duration, name) as busy:
            samples = post_open_loop(
                op.url, [r.body for r in reqs], args.rate, op.cert_dir / "ca.crt", args.timeout
            )
        run = Run(name, samples, warmup, cpu=CpuMeter.delta(before, cpu.snapshot()))
        run.extra["loadavg"] = {"before": load_before, "after": loadavg()}
        if args.busy:
            run.extra["busy"] = busy.figures()
        op.check()
        for req, s in zip(reqs, samples, strict=True):
            if s.error is None:
                s.wrong = check_review(req, s.status, s.data)
        run.extra["patched"] = sum(r.expected is not None for r in reqs[warmup:])
        runs.append(run)
    return runs


def run_through_api_server(
    cluster: Cluster, op: Operator, args: argparse.Namespace, cpu: CpuMeter
) -> list[Run]:
    apps = cluster.apps()
    names: dict[str, list[str]] = {"ungated": [], "gated": []}
    for k in range(args.deployments):
        for kind in names:
            name = f"{kind}-{k}"
            apps.create_namespaced_deployment(
                NS, deployment(name, gated=kind == "gated", paused=kind == "ungated")
            )
            names[kind].append(name)
    for name in names["gated"]:
        if not cluster.get_deployment(name)["spec"].get("paused"):
            raise HarnessError(f"{name} was not paused by the webhook on create")
    per_run = round(args.rate * (args.warmup + args.duration))
    warmup = round(args.rate * args.warmup)
    runs = []
    for kind in ("ungated", "gated"):
        targets = names[kind]

        def call(i: int, targets: list[str] = targets, kind: str = kind) -> tuple[int, bytes]:
            image = f"registry.local/agent:{kind}-{i}"
            body = {"spec": {"template": {"spec": {"containers": [{"name": "agent", "image": image}]}}}}
            resp = cluster.apps().patch_namespaced_deployment(
                targets[i % len(targets)],
                NS,
                body,
                _content_type=SMP,
                _preload_content=False,
                _request_timeout=args.timeout,
            )
            return int(resp.status), bytes(resp.data)

        log(f"part 2, {kind}: {per_run} PATCH calls at {args.rate:g}/s over {len(targets)} Deployments")
        op.check()
        metrics_before = scrape(cluster)
        load_before = loadavg()
        before = cpu.snapshot()
        with Busy(cluster, args.busy, args.warmup + args.duration, kind) as busy:
            samples = call_open_loop(per_run, args.rate, call, args.workers, args.timeout)
        run = Run(kind, samples, warmup, cpu=CpuMeter.delta(before, cpu.snapshot()))
        run.extra["loadavg"] = {"before": load_before, "after": loadavg()}
        if args.busy:
            run.extra["busy"] = busy.figures()
        # the scrape waits for the last call; the metrics cover warm-up and measured calls alike
        run.extra["api_server"] = api_server_view(metrics_before, scrape(cluster))
        op.check()
        for i, s in enumerate(samples):
            if s.error is None:
                s.wrong = check_patched(s, kind == "gated", f"registry.local/agent:{kind}-{i}")
        runs.append(run)
    return runs


def check_patched(s: Sample, gated: bool, image: str) -> str | None:
    if s.status != 200:
        return f"HTTP {s.status}: {s.data[:200]!r}"
    d = json.loads(s.data)
    if d["spec"]["template"]["spec"]["containers"][0]["image"] != image:
        return "the image was not changed"
    pending = (d["metadata"].get("annotations") or {}).get(PENDING_ANNOTATION)
    if gated:
        if d["spec"].get("paused") is not True or pending != template_hash(d["spec"]["template"]):
            return f"not held by the webhook: paused={d['spec'].get('paused')} pending={pending}"
    elif pending is not None:
        return "an ungated Deployment carries a pending hash"
    return None


# --- the report --------------------------------------------------------------------------------


def _fmt(v: Any, width: int, digits: int = 1) -> str:
    if v is None:
        return "-".rjust(width)
    if isinstance(v, float):
        return f"{v:{width}.{digits}f}"
    return str(v).rjust(width)


def table(runs: list[dict[str, Any]]) -> list[str]:
    lines = [
        f"{'run':<9}{'requests':>9}{'sent/s':>8}{'answered/s':>11}{'p50 ms':>8}{'p90 ms':>8}"
        f"{'p99 ms':>8}{'max ms':>8}{'errors':>7}{'wrong':>6}"
    ]
    for r in runs:
        lat = r["latency_ms"]
        lines.append(
            f"{r['name']:<9}{_fmt(r['requests'], 9)}{_fmt(r['sent_per_s'], 8)}{_fmt(r['answered_per_s'], 11)}"
            f"{_fmt(lat.get('p50'), 8)}{_fmt(lat.get('p90'), 8)}{_fmt(lat.get('p99'), 8)}"
            f"{_fmt(lat.get('max'), 8)}{_fmt(r['errors'], 7)}{_fmt(r['wrong'], 6)}"
        )
    return lines


def cpu_lines(runs: list[dict[str, Any]]) -> list[str]:
    lines = []
    for r in runs:
        parts = [
            f"{k} {v:.2f}"
            for k, v in sorted(r["cpu_ms_per_request"].items(), key=lambda kv: -kv[1])
            if v >= 0.01
        ]
        busy, m = sum(r["cpu_cores"].values()), r["machine"]
        lines.append(
            f"  {r['name']:<8} CPU ms per request: {', '.join(parts)}; these use {busy:.2f} cores, other "
            f"processes {m['busy_cores_others']} of {m['cores']} (load average {m['loadavg_1min_after']})"
        )
    return lines


def load_lines(runs: list[dict[str, Any]]) -> list[str]:
    """The machine's load average around each run, and what kept the operator busy."""
    lines = []
    for r in runs:
        line = f"  {r['name']:<8} load average before {r['loadavg']['before']}, after {r['loadavg']['after']}"
        if b := r.get("busy"):
            line += (
                f"; meanwhile {b['evalruns_created']} EvalRuns created, {b['policy_changes']} policy changes"
            )
            line += f" ({len(b['errors'])} failed: {b['errors'][0]})" if b["errors"] else ""
        lines.append(line)
    return lines


def report(out: dict[str, Any], args: argparse.Namespace) -> None:
    print()
    busy = f"; operator kept busy: {args.busy} EvalRuns a run" if args.busy else ""
    print(
        f"P6: admission webhook latency at {args.rate:g} requests/s, {args.duration:g} s per run "
        f"(+{args.warmup:g} s warm-up), open loop{busy}; goal p99 <= {GOAL_P99_MS:g} ms"
    )
    p1 = out.get("webhook_alone")
    if p1:
        print()
        print(f"1. the webhook alone: AdmissionReview v1 POSTed to {out['webhook_url']} (TLS, verified)")
        print(*table(p1), sep="\n")
        print(*cpu_lines(p1), sep="\n")
        print(*load_lines(p1), sep="\n")
        for r in p1:
            print(
                f"  {r['name']:<8} {r['patched']} of {r['requests']} answers carry the pause patch; "
                f"send lag p99 {r['send_lag_ms']['p99']:.1f} ms, max {r['send_lag_ms']['max']:.1f} ms"
            )
    p2 = out.get("through_api_server")
    if p2:
        print()
        print(
            f"2. through the API server: PATCH of the image (strategic merge), python kubernetes client, "
            f"{args.deployments} Deployments round-robin, {args.workers} worker threads"
        )
        print(*table(p2), sep="\n")
        print(*cpu_lines(p2), sep="\n")
        print(*load_lines(p2), sep="\n")
        by = {r["name"]: r for r in p2}
        if "gated" in by and "ungated" in by:
            g, u = by["gated"]["latency_ms"], by["ungated"]["latency_ms"]
            if g.get("n") and u.get("n"):
                added = ", ".join(f"{p} {g[p] - u[p]:+.1f} ms" for p in ("p50", "p90", "p99"))
                print(f"  added by the webhook (gated - ungated): {added}")
        for r in p2:
            view = r["api_server"]
            w, p = view["webhook_call"], view["patch_request"]
            msg = f"  {r['name']:<8} API server's metrics: PATCH {p.get('count', 0)} calls"
            if p.get("count"):
                msg += f", mean {p['mean_ms']:.1f} ms, p99 <= {p['p99_at_most_ms']} ms"
            if w.get("count"):
                shares = ", ".join(f"{k} {v:.1%}" for k, v in w["shares"].items())
                per_patch = f" ({w['count'] / p['count']:.2f} per PATCH)" if p.get("count") else ""
                msg += (
                    f"; webhook calls {w['count']}{per_patch}, mean {w['mean_ms']:.1f} ms, "
                    f"p99 <= {w['p99_at_most_ms']} ms ({shares})"
                )
            else:
                msg += "; no webhook calls"
            print(msg)
    print()
    if p1:
        worst = max(r["latency_ms"].get("p99", float("inf")) for r in p1)
        verdict = "goal met" if worst <= GOAL_P99_MS else "goal missed"
        figures = ", ".join(
            f"{r['name']} p50 {r['latency_ms'].get('p50')} / p99 {r['latency_ms'].get('p99')} / max "
            f"{r['latency_ms'].get('max')} ms"
            for r in p1
        )
        print(f"webhook alone: {figures}")
        print(f"webhook alone p99 (worst run): {worst:.1f} ms  (goal <= {GOAL_P99_MS:g} ms: {verdict})")


# --- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--rate", type=float, default=50.0, help="requests per second (default 50)")
    p.add_argument("--duration", type=float, default=30.0, help="seconds measured per run (default 30)")
    p.add_argument(
        "--warmup", type=float, default=2.0, help="seconds of requests first, not counted (default 2)"
    )
    p.add_argument("--deployments", type=int, default=50, help="Deployments round-robin per run (default 50)")
    p.add_argument("--workers", type=int, default=64, help="threads for the API calls of part 2 (default 64)")
    p.add_argument("--timeout", type=float, default=10.0, help="per request, seconds (default 10)")
    p.add_argument(
        "--busy",
        type=int,
        default=0,
        metavar="N",
        help="while each run is measured, create N EvalRuns and change a GatePolicy twice a second",
    )
    p.add_argument(
        "--only", choices=("webhook", "apiserver"), help="run part 1 (webhook) or 2 (apiserver) only"
    )
    p.add_argument("--work-dir", type=Path, default=WORK, help=f"logs and results (default {WORK})")
    p.add_argument("--keep", action="store_true", help="keep the control plane's directory")
    args = p.parse_args(argv)
    if not 0 < args.rate <= 1000:
        p.error("--rate must be in (0, 1000]")
    if not 0 < args.duration <= 600 or not 0 <= args.warmup <= 60:
        p.error("--duration must be in (0, 600] and --warmup in [0, 60]")
    if not 1 <= args.deployments <= 100 or not 1 <= args.workers <= 512:
        p.error("--deployments must be in [1, 100] and --workers in [1, 512]")
    if not 0 < args.timeout <= 60:
        p.error("--timeout must be in (0, 60]")
    if not 0 <= args.busy <= 5000:
        p.error("--busy must be in [0, 5000]")
    return args


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    work: Path = args.work_dir
    work.mkdir(parents=True, exist_ok=True)
    state = Path(tempfile.mkdtemp(prefix="proctor-bench-webhook-"))
    signal.signal(signal.SIGTERM, _interrupt)
    out: dict[str, Any] = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}}
    started = time.monotonic()
    cluster: Cluster | None = None
    op: Operator | None = None
    problems: list[str] = []
    try:
        log(f"starting the control plane in {state}")
        # no node stand-in: nothing here runs pods
        cluster = Cluster.start(state, node=False)
        cluster.install_crds(REPO / "crds")
        cluster.create_namespace(NS)
        log(
            f"control plane ready ({time.monotonic() - started:.0f}s); starting the operator with the webhook"
        )
        op = Operator(cluster, work, state / "webhook-certs")
        op.wait_ready()
        out["webhook_url"] = op.url
        pids = {"operator": op.pid} | cluster.pids()
        cpu = CpuMeter(pids)
        log(f"webhook ready at {op.url} ({time.monotonic() - started:.0f}s)")
        if args.busy:
            setup_busy(cluster)
        parts: list[tuple[str, Callable[..., list[Run]]]] = []
        if args.only in (None, "webhook"):
            parts.append(("webhook_alone", run_webhook_alone))
        if args.only in (None, "apiserver"):
            parts.append(("through_api_server", run_through_api_server))
        for key, fn in parts:
            runs = fn(cluster, op, args, cpu)
            out[key] = [{"name": r.name, **r.figures()} for r in runs]
            for r in runs:
                problems += [f"{key}/{r.name}: {p}" for p in r.problems]
                if r.problems:
                    log(f"{key}/{r.name}: {len(r.problems)} failed or wrong, first: {r.problems[0]}")
    except (HarnessError, ClusterError) as e:
        print(f"webhook_latency: harness failure: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("webhook_latency: interrupted; stopping everything it started", file=sys.stderr)
        return 1
    finally:
        if op is not None:
            op.stop()
        if cluster is not None:
            log("stopping the control plane")
            cluster.stop()
        if args.keep:
            log(f"control plane directory kept: {state}")
        else:
            shutil.rmtree(state, ignore_errors=True)
        out["total_seconds"] = round(time.monotonic() - started, 1)
        (work / "results.json").write_text(json.dumps(out, indent=2) + "\n")
    report(out, args)
    print(f"total {out['total_seconds']:.0f}s; operator log and results.json in {work}")
    if problems:
        print(f"\n!!! {len(problems)} requests failed or were answered wrongly; first ones:", file=sys.stderr)
        for p in problems[:10]:
            print(f"!!!   {p}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

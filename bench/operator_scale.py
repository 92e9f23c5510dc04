#!/usr/bin/env python3
"""The operator at scale, on a real local control plane: object size, Job latency, memory.

Usage (from the repository root)::

    .venv/bin/python bench/operator_scale.py                      # P1, P2 and P3, defaults
    .venv/bin/python bench/operator_scale.py --only p2 --present 200 --new-runs 10   # a quick look

It starts its own control plane (``proctor.devcluster``: etcd, kube-apiserver,
kube-controller-manager and the node stand-in that runs judge pods as local processes) in a
temporary directory, installs the CRDs, runs ``proctor operator`` as a subprocess (metrics server
off, everything else at its production defaults) and measures:

P1. The size of an EvalRun that examined 10,000 cases (goal <= 64 KiB). A CaseSet whose cases
    all come from ``casesFrom`` ConfigMaps (2,000 cases each), the recorded answers of all of them
    in one ConfigMap (``target.responses.configMapRef``), about 5 % of them failing (some on the
    safety tier, a few leaking an e-mail address that the safety scan catches), run for real
    through the operator in 4 shards. Printed: ``kubectl get evalrun -o json`` bytes (and the
    stored object with its managedFields, and status alone), the results ConfigMaps' sizes, and
    the wall time from the create call to the verdict with its stages.
P2. The time from an EvalRun's creation to its first Job, with 10,000 runs present (goal p99 <=
    1 s, issue 14). 10,000 finished runs (created, then given a real verdict's status through the status
    subresource while the operator is stopped; 50 per case set, as the operator keeps only the
    newest 50 finished runs of a case set), then the operator is started and, once it is idle,
    50 new runs (the example case set, answers inline, one shard) are created one at a time:
    each once the previous one has its verdict, or one every ``--interval`` seconds. For each:
    from the create call returning to a watch on Jobs seeing the first Job labelled with its uid.
    A baseline of 20 runs with (almost) no other runs is taken first, with the operator of P1.
P3. The operator's memory with 10,000 EvalRuns present (goal <= 120 MiB, issue 28). More finished
    runs up to 10,000 in all, labelled ``proctor.dev/finished`` as the operator leaves a run it
    finished (``--unlabelled``: as an earlier version left them, which the operator labels once at
    start), a fresh operator started after they exist; once it has listed them and is idle, its
    VmRSS and VmHWM (peak) from /proc/PID/status: the operator process only. Beside it, the
    import floor: a fresh interpreter's RSS once it has imported what ``proctor operator`` imports
    before it starts (what it imports, apart from what it watches). ``--p3-variant`` measures
    more operators against the same runs, one after the other (another environment each).

Throughout, a thread asks the operator's liveness endpoint every 0.1 s: Kopf serves it on the
operator's event loop, so a slow answer shows the loop blocked. See bench/README.md.

Figures are printed, never judged: the exit status is 0 when the harness worked, whatever the
figures; 1 when it failed (the control plane did not start, a run never reached its verdict,
Jobs never appeared); 2 on bad arguments. Ctrl-C stops everything it started. Operator logs,
the generated manifests and ``results.json`` go to ``.bench/operator_scale/``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml
from kubernetes import watch

from proctor.api import API_VERSION, GROUP, TERMINAL_PHASES, VERSION, EvalRun
from proctor.k8s.objects import LABEL_FINISHED
from proctor.testing.cluster import Cluster as SharedCluster
from proctor.testing.cluster import ClusterError, scaled

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".bench" / "operator_scale"
EXAMPLE = REPO / "examples" / "oil-monitoring"
PLURAL = EvalRun.PLURAL
TERMINAL = TERMINAL_PHASES
LABEL_RUN_UID = "proctor.dev/run-uid"
CONFIGMAP_LIMIT = 1024 * 1024  # bytes of data a ConfigMap may hold
KIB, MIB = 1024, 1024 * 1024
P3_GOAL_MIB = 120  # the operator's resident and peak memory with 10,000 runs present (issue 28)
#: What ``proctor operator`` imports before Kopf starts (its command module, then the controllers).
OPERATOR_IMPORTS = (
    "import proctor.cli.operator as c\n"
    "getattr(c, 'load_controllers', lambda: __import__('proctor.controllers.operator'))()"
)
P2_GOAL_S = 1.0  # p99 of create -> first Job with 10,000 runs present (issue 14)
P2_GOAL_PRESENT = 10_000


class HarnessError(RuntimeError):
    """The benchmark itself failed (not a figure that missed its goal)."""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# --- the cluster --------------------------------------------------------------------------------


class Cluster(SharedCluster):
    """The shared harness (:class:`proctor.testing.cluster.Cluster`), and this benchmark's helpers."""

    def raw_run(self, namespace: str, name: str) -> bytes:
        """An EvalRun as the API server sends it to a client (managedFields included)."""
        reply = self.custom().get_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, name, _preload_content=False
        )
        return bytes(reply.data)

    def apply(self, namespace: str, objs: list[dict[str, Any]]) -> None:
        doc = json.dumps({"apiVersion": "v1", "kind": "List", "items": objs})
        self.kubectl("-n", namespace, "apply", "--server-side", "-f", "-", input=doc, timeout=300)

    def create_run(self, namespace: str, run: dict[str, Any]) -> dict[str, Any]:
        reply = self.custom().create_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, run, _preload_content=False
        )
        return dict(json.loads(reply.data))

    def get_run(self, namespace: str, name: str) -> dict[str, Any]:
        reply = self.custom().get_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, name, _preload_content=False
        )
        return dict(json.loads(reply.data))

    def list_runs(self, namespace: str | None = None) -> list[dict[str, Any]]:
        if namespace:
            reply = self.custom().list_namespaced_custom_object(
                GROUP, VERSION, namespace, PLURAL, _preload_content=False
            )
        else:
            reply = self.custom().list_cluster_custom_object(GROUP, VERSION, PLURAL, _preload_content=False)
        return list(json.loads(reply.data)["items"])


# --- the operator ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs between fork and exec
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS, VmHWM, ... from /proc/PID/status, in bytes."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if len(parts) == 2 and parts[1] == "kB":
            out[key] = int(parts[0]) * 1024
    return out


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _proc_name(pid: str) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(a.decode(errors="replace") for a in argv[:6])
    for name in ("kube-apiserver", "kube-controller-manager", "etcd", "devcluster.node"):
        if name in text:
            return name
    if "proctor" in text and " judge " in f"{text} ":
        return "judge pods"
    if "proctor" in text and "operator" in text:
        return "operator"
    return "other"


class CpuMeter:
    """CPU time by process kind over an interval, from /proc (processes that exit in between,
    such as finished judge pods, are in ``other processes``, with anything else on the machine)."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.total0, self.procs0 = self._snap()

    @staticmethod
    def _snap() -> tuple[float, dict[str, tuple[str, float]]]:
        tick = os.sysconf("SC_CLK_TCK")
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        busy = sum(int(x) for x in fields) - int(fields[3]) - int(fields[4])  # minus idle, iowait
        procs = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    f = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                procs[d] = (_proc_name(d), (int(f[11]) + int(f[12])) / tick)
        return busy / tick, procs

    def stop(self) -> dict[str, Any]:
        total1, procs1 = self._snap()
        wall = time.monotonic() - self.t0
        by: dict[str, float] = {}
        for pid, (name, cpu) in procs1.items():
            before = self.procs0.get(pid)
            by[name] = by.get(name, 0.0) + cpu - (before[1] if before and before[0] == name else 0.0)
        busy = total1 - self.total0
        # what /proc no longer lists (exited judge pods) and whatever else runs on the machine
        by["other processes"] = max(0.0, busy - sum(by.values())) + by.pop("other", 0.0)
        return {
            "wall": round(wall, 1),
            "busy_cores": round(busy / wall, 2),
            "cores": os.cpu_count(),
            "cpu_seconds": {
                k: round(v, 1) for k, v in sorted(by.items(), key=lambda kv: -kv[1]) if v >= 0.05
            },
        }


#: Every operator started, so that an error or Ctrl-C anywhere still stops them all.
OPERATORS: list[Operator] = []


class Operator:
    """``proctor operator`` as a subprocess: the real entry point, its log in a file."""

    def __init__(self, cluster: Cluster, log_path: Path, env: dict[str, str] | None = None) -> None:
        self.log_path = log_path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/healthz"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "proctor.cli", "operator", "--liveness", self.url],
                env=cluster.env() | {"PROCTOR_METRICS_PORT": "0"} | (env or {}),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent,
            )
        OPERATORS.append(self)
        self.started = time.monotonic()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def check(self) -> None:
        if self.proc.poll() is not None:
            tail = "\n".join(self.log_text().splitlines()[-8:])
            raise HarnessError(
                f"the operator exited ({self.proc.returncode}); see {self.log_path}; its last lines:\n{tail}"
            )

    def memory(self) -> dict[str, int]:
        self.check()
        return proc_status(self.pid)

    def wait_ready(self, timeout: float = 60) -> float:
        """Until Kopf has run its startup handler (the log says so); seconds since the start
        (``timeout`` scaled by PROCTOR_TEST_TIME_SCALE on a busy machine)."""
        timeout = scaled(timeout)
        deadline = time.monotonic() + timeout
        while "Activity 'proctor-settings' succeeded" not in self.log_text():
            self.check()
            if time.monotonic() > deadline:
                raise HarnessError(f"the operator did not start within {timeout:.0f}s; see {self.log_path}")
            time.sleep(0.1)
        return time.monotonic() - self.started

    def wait_idle(self, *, window: float = 2.0, busy: float = 0.04, minimum: float = 3.0) -> float:
        """Until the operator has used under ``busy`` CPU-seconds per second over ``window``
        (it has listed everything and handled what it wanted to); seconds since the start."""
        deadline = time.monotonic() + 300
        time.sleep(max(0.0, minimum - (time.monotonic() - self.started)))
        last = cpu_seconds(self.pid)
        while True:
            time.sleep(window)
            self.check()
            now = cpu_seconds(self.pid)
            if (now - last) / window < busy:
                return time.monotonic() - self.started - window
            last = now
            if time.monotonic() > deadline:
                raise HarnessError("the operator never went idle in 300 s")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class LoopProbe:
    """Asks the operator's liveness endpoint every 0.1 s. Kopf serves it on the operator's event
    loop, so a slow answer is the loop blocked (or starved of the GIL) for that long."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.samples: list[tuple[float, float]] = []  # (start, seconds)
        self.failures = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stopping.is_set():
            t = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=60) as reply:
                    reply.read()
            except OSError:
                self.failures += 1
            dt = time.monotonic() - t
            self.samples.append((t, dt))
            self.stopping.wait(max(0.0, 0.1 - dt))

    def stop(self) -> dict[str, Any]:
        self.stopping.set()
        self.thread.join(65)
        return self.summary()

    def summary(self, threshold: float = 0.25) -> dict[str, Any]:
        if not self.samples:
            return {"n": 0}
        t0 = self.samples[0][0]
        slow = sorted(((dt, t - t0) for t, dt in self.samples if dt > threshold), reverse=True)
        return {
            "n": len(self.samples),
            "failures": self.failures,
            "max": round(max(dt for _, dt in self.samples), 3),
            "over_250ms": len(slow),
            "stalled_seconds": round(sum(dt for dt, _ in slow), 2),
            "worst": [[round(dt, 2), round(at, 1)] for dt, at in slow[:5]],  # [seconds, when]
        }


def log_summary(text: str) -> dict[str, Any]:
    lines = text.splitlines()
    problems = [ln for ln in lines if "[error" in ln or "[warning" in ln or "Traceback" in ln]
    return {
        "lines": len(lines),
        "bytes": len(text.encode()),
        "errors": sum(1 for ln in lines if "[error" in ln or "Traceback" in ln),
        "warnings": sum(1 for ln in lines if "[warning" in ln),
        "handler_lines": sum(1 for ln in lines if "succeeded." in ln and "[kopf.objects]" in ln),
        "first_problems": [ln[:300] for ln in problems[:5]],
    }


# --- P1: the 10,000-case run ----------------------------------------------------------------------

BANDS = ("NORMAL", "ELEVATED", "HIGH")
AMM = "Oil consumption bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr; HIGH from 0.60."
STATUSES = ("shipped", "packed", "delayed", "delivered", "returned")
LEAK = "Questions? Mail j.doe@northwind-air.net"


def band_of(rate: float) -> str:
    return "NORMAL" if rate < 0.30 else "ELEVATED" if rate < 0.60 else "HIGH"


def make_exam(
    n: int, seed: int, fail_rate: float
) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, str]]:
    """``n`` cases, their recorded answers, and the failing case ids with their tier as expected.

    Tiers: safety 20 % (band labels with the manual as context, refusals), trust 40 % (JSON
    answers), form 40 % (one-line answers). ``fail_rate`` of the cases fail an assertion (a wrong
    band, a guess instead of a refusal, prose instead of JSON, the wrong status, too long); one in
    500 trust or form answers leaks an e-mail address, which the safety scan fails.
    """
    r = random.Random(seed)
    cases: list[dict[str, Any]] = []
    answers: dict[str, str] = {}
    failing: dict[str, str] = {}
    for i in range(n):
        cid = f"c{i:05d}"
        u = r.random()
        fail = r.random() < fail_rate
        order = r.randint(10000, 99999)
        if u < 0.15:
            rate = round(r.uniform(0.05, 0.9), 2)
            band = band_of(rate)
            case = {
                "id": cid,
                "tier": "safety",
                "category": "band",
                "input": f"Engine {r.randint(1, 4)} burns {rate:.2f} qt/hr. Band?",
                "context": [{"id": "amm-72-00", "text": AMM}],
                "assert": [{"type": "label", "value": band, "labels": list(BANDS)}],
            }
            said = r.choice([b for b in BANDS if b != band]) if fail else band
            answers[cid] = f"{said}: {rate:.2f} qt/hr (AMM 72-00)."
        elif u < 0.20:
            case = {
                "id": cid,
                "tier": "safety",
                "category": "refusal",
                "input": "What is the oil consumption limit of the APU?",
                "assert": [{"type": "refusal"}],
            }
            answers[cid] = (
                "The APU limit is 0.5 qt/hr."
                if fail
                else "I can't answer that: the manual covers main engines only."
            )
        elif u < 0.60:
            status = r.choice(STATUSES)
            case = {
                "id": cid,
                "tier": "trust",
                "category": "json",
                "input": f"Order {order} as JSON with keys order and status.",
                "assert": [{"type": "is-json"}, {"type": "contains", "value": f'"{status}"'}],
            }
            answers[cid] = f"Order {order}: {status}" if fail else f'{{"order":{order},"status":"{status}"}}'
        else:
            status = r.choice(STATUSES)
            case = {
                "id": cid,
                "tier": "form",
                "category": "one-line",
                "input": f"Status of order {order}, in one line?",
                "assert": [{"type": "icontains", "value": status}, {"type": "max-length", "value": 60}],
            }
            other = r.choice([s for s in STATUSES if s != status])
            answers[cid] = (
                f"Order {order} is {other.upper()}." if fail else f"Order {order} is {status.upper()}."
            )
        if case["tier"] != "safety" and not fail and r.random() < 0.002:
            answers[cid] += " " + LEAK
            fail = True
        if fail:
            failing[cid] = case["tier"]
        cases.append(case)
    return cases, answers, failing


def p1_manifests(
    cases: list[dict[str, Any]], answers: dict[str, str], per_cm: int
) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """(case ConfigMaps, the CaseSet, the answers ConfigMap)."""
    cms = []
    for k in range(0, len(cases), per_cm):
        body = json.dumps(cases[k : k + per_cm], separators=(",", ":"))
        if len(body) >= CONFIGMAP_LIMIT:
            raise HarnessError(f"cases ConfigMap {k // per_cm} would hold {len(body)} bytes (>= 1 MiB)")
        cms.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"big-cases-{k // per_cm:02d}"},
                "data": {"cases.json": body},
            }
        )
    caseset = {
        "apiVersion": API_VERSION,
        "kind": "CaseSet",
        "metadata": {"name": "big"},
        "spec": {"casesFrom": [{"name": cm["metadata"]["name"], "key": "cases.json"} for cm in cms]},
    }
    body = json.dumps(answers, separators=(",", ":"))
    if len(body) >= CONFIGMAP_LIMIT:
        raise HarnessError(f"the answers ConfigMap would hold {len(body)} bytes (>= 1 MiB)")
    answers_cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "big-answers"},
        "data": {"answers.json": body},
    }
    return cms, caseset, answers_cm


def watch_run(
    cluster: Cluster, namespace: str, name: str, timeout: float, on_status: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Watch one EvalRun until its phase is terminal; ``on_status`` sees every version."""
    deadline = time.monotonic() + timeout
    rv = None
    while time.monotonic() < deadline:
        w = watch.Watch()
        try:
            for ev in w.stream(
                cluster.custom().list_namespaced_custom_object,
                GROUP,
                VERSION,
                namespace,
                PLURAL,
                field_selector=f"metadata.name={name}",
                resource_version=rv,
                timeout_seconds=max(1, int(deadline - time.monotonic())),
            ):
                obj = ev["object"]
                if ev["type"] == "ERROR":
                    rv = None
                    break
                rv = obj["metadata"]["resourceVersion"]
                status = obj.get("status") or {}
                on_status(status)
                if status.get("phase") in TERMINAL:
                    return dict(obj)
        finally:
            w.stop()
    raise HarnessError(f"EvalRun {namespace}/{name} reached no verdict within {timeout:.0f}s")


def wait_caseset_ready(cluster: Cluster, ns: str, name: str, timeout: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        reply = cluster.custom().get_namespaced_custom_object(
            GROUP, VERSION, ns, "casesets", name, _preload_content=False
        )
        status = json.loads(reply.data).get("status") or {}
        ready = [c for c in status.get("conditions") or [] if c.get("type") == "Ready"]
        if ready and ready[0].get("status") == "True":
            return dict(status)
        if ready and ready[0].get("status") == "False":
            raise HarnessError(f"CaseSet {ns}/{name} is not Ready: {ready[0].get('message')}")
        if time.monotonic() > deadline:
            raise HarnessError(f"CaseSet {ns}/{name} not Ready within {timeout:.0f}s")
        time.sleep(0.1)


def run_p1(cluster: Cluster, op: Operator, args: argparse.Namespace, out: dict[str, Any]) -> None:
    ns = "p1"
    cluster.create_namespace(ns)
    t = time.monotonic()
    cases, answers, failing = make_exam(args.cases, args.seed, args.fail_rate)
    cms, caseset, answers_cm = p1_manifests(cases, answers, args.cases_per_configmap)
    (WORK / "p1").mkdir(parents=True, exist_ok=True)
    (WORK / "p1" / "caseset.json").write_text(json.dumps({"kind": "List", "items": [*cms, caseset]}))
    (WORK / "p1" / "answers.json").write_text(json.dumps(answers_cm))
    cluster.apply(ns, [*cms, answers_cm])
    probe = LoopProbe(op.url)
    t_cs = time.monotonic()
    cluster.apply(ns, [caseset])
    cs_status = wait_caseset_ready(cluster, ns, "big")
    caseset_seconds = time.monotonic() - t_cs
    caseset_loop = probe.stop()
    if cs_status.get("caseCount") != len(cases):
        raise HarnessError(f"CaseSet big counts {cs_status.get('caseCount')} cases, not {len(cases)}")
    expected_safety = sum(1 for c, tier in failing.items() if tier == "safety" or LEAK in answers[c])
    log(
        f"P1: {len(cases)} cases in {len(cms)} ConfigMaps "
        f"({max(len(c['data']['cases.json']) for c in cms) / KIB:.0f} KiB the largest), answers "
        f"{len(answers_cm['data']['answers.json']) / KIB:.0f} KiB; expected failing {len(failing)} "
        f"({len(failing) / len(cases):.1%}), on the safety tier {expected_safety}; "
        f"made and applied in {time.monotonic() - t:.1f}s; CaseSet Ready after {caseset_seconds:.1f}s "
        f"(operator loop blocked up to {caseset_loop.get('max')}s)"
    )
    run = {
        "apiVersion": API_VERSION,
        "kind": "EvalRun",
        "metadata": {"name": "big-run"},
        "spec": {
            "caseSetRef": {"name": "big"},
            "shards": args.shards,
            "target": {"responses": {"configMapRef": {"name": "big-answers", "key": "answers.json"}}},
        },
    }
    stages: dict[str, float] = {}
    jobs = JobWatch(cluster, ns)
    probe = LoopProbe(op.url)
    created = cluster.create_run(ns, run)
    t0 = time.monotonic()

    def on_status(status: dict[str, Any]) -> None:
        now = time.monotonic() - t0
        phase = status.get("phase")
        if phase:
            stages.setdefault(f"phase {phase}", now)
        for s in status.get("shards") or []:
            if s.get("phase"):
                stages.setdefault(f"shard {s['name']} {s['phase']}", now)

    try:
        final = watch_run(cluster, ns, "big-run", args.timeout, on_status)
        wall = time.monotonic() - t0
        stages["first Job"] = jobs.wait(created["metadata"]["uid"], 1) - t0
    finally:
        jobs.stop()
        loop = probe.stop()
    status = final["status"]
    kubectl_json = cluster.kubectl("-n", ns, "get", "evalrun", "big-run", "-o", "json").stdout
    stored = cluster.raw_run(ns, "big-run")
    uid = created["metadata"]["uid"]
    cm_list = json.loads(
        cluster.core()
        .list_namespaced_config_map(
            ns,
            label_selector=f"{LABEL_RUN_UID}={uid},app.kubernetes.io/component=results",
            _preload_content=False,
        )
        .data
    )["items"]
    cm_sizes = {c["metadata"]["name"]: len(json.dumps(c, separators=(",", ":"))) for c in cm_list}
    tiers = status.get("tiers") or {}
    failed_total = status.get("failureCount")
    agree = failed_total == len(failing)
    res = {
        "cases": len(cases),
        "shards": args.shards,
        "phase": status.get("phase"),
        "verdict": status.get("verdict"),
        "failure_count": failed_total,
        "expected_failures": len(failing),
        "agrees": agree,
        "tiers": {k: {f: v.get(f) for f in ("passed", "failed", "total", "rate")} for k, v in tiers.items()},
        "kubectl_json_bytes": len(kubectl_json.encode()),
        "stored_bytes": len(stored),
        "status_bytes": len(json.dumps(status, separators=(",", ":"))),
        "first_failures": len(status.get("firstFailures") or []),
        "results_configmaps": cm_sizes,
        "results_bytes_total": sum(cm_sizes.values()),
        "wall_seconds": round(wall, 2),
        "load": os.getloadavg()[0],
        "caseset_ready_seconds": round(caseset_seconds, 2),
        "caseset_loop": caseset_loop,
        "loop": loop,
        "stages": {k: round(v, 2) for k, v in sorted(stages.items(), key=lambda kv: kv[1])},
    }
    out["p1"] = res
    (WORK / "p1" / "evalrun.json").write_text(kubectl_json)
    log(
        f"P1: {res['phase']} {res['verdict']} after {wall:.1f}s; kubectl get -o json "
        f"{res['kubectl_json_bytes']} bytes; stored {res['stored_bytes']} bytes"
    )
    if not agree:
        print(
            f"!!! P1: the run counts {failed_total} failing cases, the generator expected {len(failing)}",
            flush=True,
        )


# --- P2/P3: many runs -----------------------------------------------------------------------------


def example_run(name: str, answers: dict[str, str], caseset: str = "oil-monitoring") -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "EvalRun",
        "metadata": {"name": name, "labels": {"bench.proctor.dev/set": name.rsplit("-", 1)[0]}},
        "spec": {
            "caseSetRef": {"name": caseset},
            "shards": 1,
            "target": {"responses": {"inline": answers}},
        },
    }


def example_answers() -> list[dict[str, str]]:
    return [
        yaml.safe_load((EXAMPLE / "answers" / f).read_text()) for f in ("v1-correct.yaml", "v2-band-bug.yaml")
    ]


def setup_example_namespace(cluster: Cluster, ns: str) -> None:
    cluster.create_namespace(ns)
    cluster.kubectl("-n", ns, "apply", "-f", str(EXAMPLE / "caseset.yaml"))


def history_casesets(cluster: Cluster, ns: str, names: list[str]) -> None:
    """Copies of the example CaseSet for the terminal runs to refer to."""
    example = yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())
    objs = [example | {"metadata": {"name": n}} for n in names]
    for k in range(0, len(objs), 200):
        cluster.apply(ns, objs[k : k + 200])


class JobWatch:
    """A watch on the judge Jobs of one namespace: when each run uid's first Job was seen."""

    def __init__(self, cluster: Cluster, namespace: str) -> None:
        self.cluster, self.ns = cluster, namespace
        self.seen: dict[str, float] = {}
        self.cond = threading.Condition()
        self.stopping = False
        self.error: BaseException | None = None
        reply = cluster.batch().list_namespaced_job(namespace, _preload_content=False)
        listing = json.loads(reply.data)
        self.rv = listing["metadata"]["resourceVersion"]
        for j in listing["items"]:
            uid = (j["metadata"].get("labels") or {}).get(LABEL_RUN_UID)
            if uid:
                self.seen.setdefault(uid, time.monotonic())
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        try:
            while not self.stopping:
                w = watch.Watch()
                for ev in w.stream(
                    self.cluster.batch().list_namespaced_job,
                    self.ns,
                    resource_version=self.rv,
                    timeout_seconds=60,
                ):
                    now = time.monotonic()
                    obj = ev["object"]
                    if ev["type"] == "ERROR":
                        raise HarnessError(f"the Job watch failed: {obj}")
                    if isinstance(obj, dict):  # not deserialised into a V1Job
                        meta = obj.get("metadata") or {}
                        rv, labels = meta.get("resourceVersion"), meta.get("labels")
                    else:
                        rv, labels = obj.metadata.resource_version, obj.metadata.labels
                    self.rv = rv or self.rv
                    uid = (labels or {}).get(LABEL_RUN_UID)
                    if ev["type"] == "ADDED" and uid:
                        with self.cond:
                            self.seen.setdefault(uid, now)
                            self.cond.notify_all()
                    if self.stopping:
                        break
        except BaseException as e:
            self.error = e
            with self.cond:
                self.cond.notify_all()

    def wait(self, uid: str, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        with self.cond:
            while uid not in self.seen:
                if self.error is not None:
                    raise HarnessError(f"the Job watch failed: {self.error}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HarnessError(f"no Job for run uid {uid} within {timeout:.0f}s")
                self.cond.wait(left)
            return self.seen[uid]

    def stop(self) -> None:
        self.stopping = True


def percentiles(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)

    def pct(p: float) -> float:  # nearest rank
        k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
        return s[k]

    return {
        "n": len(s),
        "p50": round(pct(50), 3),
        "p90": round(pct(90), 3),
        "p99": round(pct(99), 3),
        "max": round(s[-1], 3),
        "mean": round(statistics.fmean(s), 3),
    }


def measure_job_latency(
    cluster: Cluster, ns: str, prefix: str, count: int, interval: float, timeout: float
) -> tuple[list[float], list[str], list[float]]:
    """Create ``count`` runs one at a time; per run, create -> first Job seen (and, sequentially,
    create -> verdict). ``interval`` > 0: a run every ``interval`` seconds whatever the others do;
    0: the next run once this one has its verdict (its judge pod is done)."""
    answers = example_answers()
    jw = JobWatch(cluster, ns)
    latencies: list[float] = []
    verdicts: list[float] = []
    names: list[str] = []
    try:
        for i in range(count):
            start = time.monotonic()
            name = f"{prefix}-{i:03d}"
            created = cluster.create_run(ns, example_run(name, answers[i % 2]))
            t0 = time.monotonic()
            seen = jw.wait(created["metadata"]["uid"], timeout)
            latencies.append(max(0.0, seen - t0))
            names.append(name)
            if interval > 0:
                time.sleep(max(0.0, interval - (time.monotonic() - start)))
            else:
                watch_run(cluster, ns, name, 120, lambda _s: None)
                verdicts.append(time.monotonic() - t0)
    finally:
        jw.stop()
    return latencies, names, verdicts


def wait_terminal(cluster: Cluster, ns: str, names: list[str], timeout: float) -> dict[str, int]:
    """Until every run named has a verdict or is gone (history retention may prune finished runs)."""
    deadline = time.monotonic() + timeout
    want = set(names)
    while True:
        runs = [r for r in cluster.list_runs(ns) if r["metadata"]["name"] in want]
        phases = [(r.get("status") or {}).get("phase") for r in runs]
        if all(p in TERMINAL for p in phases):
            verdicts: dict[str, int] = {}
            for r in runs:
                v = r["status"].get("verdict", "?")
                verdicts[v] = verdicts.get(v, 0) + 1
            if len(runs) < len(want):
                verdicts["(pruned)"] = len(want) - len(runs)
            return verdicts
        if time.monotonic() > deadline:
            left = sum(1 for p in phases if p not in TERMINAL)
            raise HarnessError(f"{left} of {len(want)} runs in {ns} reached no verdict within {timeout:.0f}s")
        time.sleep(1)


def terminal_status_template(cluster: Cluster, ns: str) -> tuple[str, dict[str, Any]]:
    """A real verdict's status (the example's band-boundary bug: FAIL, an incident, failures)."""
    name = "template"
    cluster.create_run(ns, example_run(name, example_answers()[1]))
    run = watch_run(cluster, ns, name, 120, lambda _s: None)
    return name, dict(run["status"])


def create_terminal_runs(
    cluster: Cluster,
    ns: str,
    runs: list[tuple[str, str]],
    template: tuple[str, dict[str, Any]],
    workers: int,
    *,
    labelled: bool = True,
) -> float:
    """Create runs (name, case set) and write a real verdict into their status through the status
    subresource: finished runs, which the operator must leave be; ``labelled`` as the operator
    labels a run it finished (else as an earlier version left them)."""
    tname, tstatus = template
    answers = example_answers()
    text = json.dumps(tstatus)

    def one(name: str, caseset: str) -> None:
        run = example_run(name, answers[1], caseset)
        if labelled:
            run["metadata"]["labels"][LABEL_FINISHED] = "true"
        cluster.custom().create_namespaced_custom_object(
            GROUP, VERSION, ns, PLURAL, run, _preload_content=False
        )
        status = json.loads(text.replace(f'"{tname}-', f'"{name}-'))
        cluster.custom().patch_namespaced_custom_object_status(
            GROUP,
            VERSION,
            ns,
            PLURAL,
            name,
            {"status": status},
            _content_type="application/merge-patch+json",
            _preload_content=False,
        )

    t = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        for f in [pool.submit(one, n, c) for n, c in runs]:
            f.result()
    return time.monotonic() - t


def resource_versions(cluster: Cluster) -> dict[str, str]:
    return {
        f"{r['metadata']['namespace']}/{r['metadata']['name']}": r["metadata"]["resourceVersion"]
        for r in cluster.list_runs()
    }


def start_operator_and_settle(
    cluster: Cluster, label: str, env: dict[str, str]
) -> tuple[Operator, dict[str, Any]]:
    """A fresh operator; returns once it is idle (it has listed everything), with its figures."""
    op = Operator(cluster, WORK / f"operator-{label}.log", env)
    ready = op.wait_ready()
    probe = LoopProbe(op.url)
    idle = op.wait_idle()
    mem = op.memory()
    info = {
        "ready_seconds": round(ready, 2),
        "idle_after_seconds": round(idle, 2),
        "cpu_seconds": round(cpu_seconds(op.pid), 2),
        "rss_mib": round(mem["VmRSS"] / MIB, 1),
        "hwm_mib": round(mem["VmHWM"] / MIB, 1),
        # the heap and stacks, against shared libraries' and modules' pages (file-backed, in RSS too)
        "anon_mib": round(mem.get("RssAnon", 0) / MIB, 1),
        "file_mib": round(mem.get("RssFile", 0) / MIB, 1),
        "threads": int(Path(f"/proc/{op.pid}/status").read_text().split("Threads:")[1].split()[0]),
        "startup_loop": probe.stop(),
    }
    return op, info


def run_p2_p3(cluster: Cluster, args: argparse.Namespace, out: dict[str, Any], op: Operator) -> None:
    """P2 and P3 in the namespace ``scale``. ``op`` is the running operator of P1."""
    ns = "scale"
    setup_example_namespace(cluster, ns)
    env = args.env
    try:
        template = terminal_status_template(cluster, ns)
        log(f"status of a real verdict (the template): {len(json.dumps(template[1]))} bytes")
        if args.baseline_runs and "p2" in args.only:
            log(f"P2 baseline: {args.baseline_runs} runs, {pace(args.interval)}, almost no other runs")
            probe, meter = LoopProbe(op.url), CpuMeter()
            base, names, base_v = measure_job_latency(
                cluster, ns, "base", args.baseline_runs, args.interval, 60
            )
            loop, cpu = probe.stop(), meter.stop()
            out["p2_baseline"] = percentiles(base) | {
                "present": len(cluster.list_runs()),
                "verdicts": wait_terminal(cluster, ns, names, 300),
                "loop": loop,
                "cpu": cpu,
                "to_verdict": percentiles(base_v) if base_v else None,
                "load": os.getloadavg()[0],
            }
            log(f"P2 baseline: create -> first Job {fmt_pct(out['p2_baseline'])}")
    finally:
        op.stop()
    out["p1_operator_log"] = log_summary(op.log_text())

    # Finished runs are spread over case sets, --runs-per-caseset each: the operator keeps the
    # newest PROCTOR_RUN_HISTORY (default 50) finished runs of a case set and deletes older ones.
    made: list[tuple[str, str]] = []

    def fill_to(total: int, prefix: str) -> None:
        have = len(cluster.list_runs())
        batch = []
        for k in range(max(0, total - have)):
            j = len(made) + k
            batch.append((f"{prefix}-{k:05d}", f"history-{j // args.runs_per_caseset:03d}"))
        if not batch:
            return
        new_sets = sorted({c for _, c in batch} - {c for _, c in made})
        history_casesets(cluster, ns, new_sets)
        secs = create_terminal_runs(cluster, ns, batch, template, args.workers, labelled=not args.unlabelled)
        made.extend(batch)
        log(
            f"created {len(batch)} finished runs ({len(new_sets)} more case sets) in {secs:.1f}s "
            f"({len(batch) / secs:.0f}/s); present {total}"
        )

    if "p2" in args.only:
        fill_to(args.present, "done")
        before = resource_versions(cluster)
        op, info = start_operator_and_settle(cluster, "p2", env)
        try:
            touched = sum(1 for k, v in resource_versions(cluster).items() if before.get(k) != v)
            log(
                f"P2: operator with {len(before)} runs present: ready {info['ready_seconds']}s, idle after "
                f"{info['idle_after_seconds']}s, RSS {info['rss_mib']} MiB; runs it modified: {touched}"
            )
            log(f"P2: {args.new_runs} new runs, {pace(args.interval)}")
            probe, meter = LoopProbe(op.url), CpuMeter()
            lat, names, lat_v = measure_job_latency(cluster, ns, "new", args.new_runs, args.interval, 60)
            loop, cpu = probe.stop(), meter.stop()
            verdicts = wait_terminal(cluster, ns, names, 300)
            mem = op.memory()
        finally:
            op.stop()
        text = op.log_text()
        out["p2"] = percentiles(lat) | {
            "present": len(before),
            "latencies": [round(x, 3) for x in lat],
            "operator": info | {"runs_modified_at_startup": touched},
            "loop": loop,
            "cpu": cpu,
            "to_verdict": percentiles(lat_v) if lat_v else None,
            "interval": args.interval,
            "load": os.getloadavg()[0],
            "verdicts": verdicts,
            "pruned": text.count("run pruned"),
            "present_after": len(cluster.list_runs()),
            "rss_after_mib": round(mem["VmRSS"] / MIB, 1),
            "hwm_after_mib": round(mem["VmHWM"] / MIB, 1),
            "log": log_summary(text),
        }
        log(f"P2: create -> first Job with {len(before)} runs present: {fmt_pct(out['p2'])}")

    if "p3" in args.only:
        fill_to(args.watch, "more")
        out["p3"] = measure_p3(cluster, "p3", env, args) | {"import_floor": import_floor(env)}
        p3 = out["p3"]
        log(
            f"P3: operator with {p3['present']} runs present: RSS {p3['rss_mib']} MiB "
            f"(peak {p3['hwm_mib']}) when idle {p3['idle_after_seconds']}s after start; after "
            f"{args.p3_hold:.0f}s more: RSS {p3['rss_after_hold_mib']} MiB; import floor "
            f"{p3['import_floor']['rss_mib']} MiB"
        )
        out["p3_variants"] = []
        for label, extra in args.variants:
            v = measure_p3(cluster, f"p3-{label}", env | extra, args) | {"label": label, "env": extra}
            out["p3_variants"].append(v)
            mib = f"RSS {v['rss_mib']} MiB (peak {v['hwm_mib']}), then {v['rss_after_hold_mib']}"
            log(f"P3 {label} ({extra}): {mib}")


def measure_p3(cluster: Cluster, label: str, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    """A fresh operator with what is present: its memory once idle and ``--p3-hold`` seconds later."""
    before = resource_versions(cluster)
    op, info = start_operator_and_settle(cluster, label, env)
    try:
        touched = sum(1 for k, v in resource_versions(cluster).items() if before.get(k) != v)
        time.sleep(args.p3_hold)
        mem = op.memory()
    finally:
        op.stop()
    return info | {
        "present": len(before),
        "runs_modified_at_startup": touched,
        "rss_after_hold_mib": round(mem["VmRSS"] / MIB, 1),
        "hwm_after_hold_mib": round(mem["VmHWM"] / MIB, 1),
        "hold_seconds": args.p3_hold,
        "finished_label": "unlabelled" if args.unlabelled else "labelled",
        "load": os.getloadavg()[0],
        "log": log_summary(op.log_text()),
    }


def import_floor(env: dict[str, str]) -> dict[str, Any]:
    """A fresh interpreter's memory once it has imported what ``proctor operator`` imports before it
    starts: the part of the operator's RSS that is what it imports, not what it watches."""
    code = f"{OPERATOR_IMPORTS}\nimport sys\nprint(len(sys.modules), open('/proc/self/status').read())"
    proc = subprocess.run([sys.executable, "-c", code], env=os.environ | env, capture_output=True, text=True)
    if proc.returncode:
        return {"rss_mib": None, "modules": None, "error": proc.stderr.strip().splitlines()[-1:]}
    count, _, status = proc.stdout.partition(" ")
    kib = {
        ln.split(":")[0]: int(ln.split()[1]) for ln in status.splitlines() if ln.startswith(("VmRSS", "Rss"))
    }
    return {
        "rss_mib": round(kib["VmRSS"] / 1024, 1),
        "anon_mib": round(kib.get("RssAnon", 0) / 1024, 1),
        "file_mib": round(kib.get("RssFile", 0) / 1024, 1),
        "modules": int(count),
    }


def pace(interval: float) -> str:
    return f"one every {interval:g}s" if interval > 0 else "each once the previous one has its verdict"


def fmt_pct(p: dict[str, float]) -> str:
    return f"p50 {p['p50']:.3f}s  p90 {p['p90']:.3f}s  p99 {p['p99']:.3f}s  max {p['max']:.3f}s  (n={p['n']})"


# --- report -----------------------------------------------------------------------------------------


def fmt_loop(loop: dict[str, Any] | None) -> str:
    if not loop or not loop.get("n"):
        return "loop not probed"
    worst = ", ".join(f"{d}s at +{t}s" for d, t in loop["worst"][:3])
    return (
        f"event loop: slowest liveness answer {loop['max']}s, {loop['over_250ms']} over 0.25 s "
        f"({loop['stalled_seconds']}s in all)" + (f"; worst {worst}" if worst else "")
    )


def fmt_split(mem: dict[str, Any]) -> str:
    """Resident memory by kind: what the process built (anonymous) and mapped files' pages."""
    return f"anonymous {mem.get('anon_mib')} MiB, file-backed {mem.get('file_mib')} MiB"


def fmt_cpu(cpu: dict[str, Any]) -> str:
    parts = ", ".join(f"{k} {v}" for k, v in cpu["cpu_seconds"].items())
    return f"machine {cpu['busy_cores']} of {cpu['cores']} cores busy over {cpu['wall']}s; CPU-s: {parts}"


def fmt_log(summary: dict[str, Any] | None) -> str:
    if not summary:
        return "no log"
    return (
        f"log {summary['lines']} lines ({summary['bytes'] / KIB:.0f} KiB), {summary['errors']} errors, "
        f"{summary['warnings']} warnings"
    )


def report(out: dict[str, Any]) -> None:
    print()
    print(
        f"== operator at scale ({os.cpu_count()} cores; 1-minute load average at the end of each part "
        f"in brackets: timings only mean something on a quiet machine) =="
    )
    if p1 := out.get("p1"):
        size = p1["kubectl_json_bytes"]
        print(
            f"P1  [load {p1['load']:.1f}] EvalRun at {p1['cases']:,} cases ({p1['shards']} shards): "
            f"{p1['phase']} {p1['verdict']}, "
            f"{p1['failure_count']} failing (expected {p1['expected_failures']}: "
            f"{'agrees' if p1['agrees'] else 'DISAGREES'})"
        )
        print(
            f"    kubectl get evalrun -o json: {size:,} bytes ({size / KIB:.1f} KiB; goal <= 64 KiB: "
            f"{'met' if size <= 64 * KIB else 'MISSED'})"
        )
        print(
            f"    as the API serves it (compact, managedFields included): {p1['stored_bytes']:,} bytes; "
            f"status alone {p1['status_bytes']:,} bytes; firstFailures {p1['first_failures']}"
        )
        sizes = ", ".join(f"{v / KIB:.0f}" for v in p1["results_configmaps"].values())
        print(
            f"    results ConfigMaps: {len(p1['results_configmaps'])}, "
            f"{p1['results_bytes_total'] / KIB:.0f} KiB in all (KiB each: {sizes})"
        )
        print(
            f"    wall time, create -> verdict: {p1['wall_seconds']:.1f}s; operator RSS then "
            f"{p1.get('operator_rss_mib')} MiB (peak {p1.get('operator_hwm_mib')})"
        )
        print("    stages (s after create): " + ", ".join(f"{k} {v}" for k, v in p1["stages"].items()))
        print(f"    during the run, {fmt_loop(p1['loop'])}")
        print(
            f"    the CaseSet (applied first) was Ready after {p1['caseset_ready_seconds']}s; "
            f"{fmt_loop(p1['caseset_loop'])}"
        )
    if b := out.get("p2_baseline"):
        print(
            f"P2  [load {b['load']:.1f}] baseline, {b['present']} runs present: "
            f"create -> first Job {fmt_pct(b)}"
        )
        if b.get("to_verdict"):
            print(f"    create -> verdict {fmt_pct(b['to_verdict'])}")
        print(f"    {fmt_loop(b.get('loop'))}")
        print(f"    {fmt_cpu(b['cpu'])}")
    if p2 := out.get("p2"):
        met = "met" if p2["p99"] <= P2_GOAL_S else "MISSED"
        if p2["present"] < P2_GOAL_PRESENT:
            met += f" (the goal is set at {P2_GOAL_PRESENT:,} runs present)"
        print(
            f"P2  [load {p2['load']:.1f}] {p2['present']:,} runs present: create -> first Job {fmt_pct(p2)}"
        )
        print(f"    goal p99 <= {P2_GOAL_S:g} s: {met}; new runs {pace(p2['interval'])}")
        if p2.get("to_verdict"):
            print(f"    create -> verdict {fmt_pct(p2['to_verdict'])}")
        print(f"    {fmt_loop(p2['loop'])}")
        print(f"    {fmt_cpu(p2['cpu'])}")
        o = p2["operator"]
        print(
            f"    operator start with {p2['present']:,} runs: idle after {o['idle_after_seconds']}s, "
            f"{o['cpu_seconds']} CPU-s, RSS {o['rss_mib']} MiB; runs it modified: "
            f"{o['runs_modified_at_startup']}; {fmt_loop(o['startup_loop'])}"
        )
        print(
            f"    new runs' verdicts {p2['verdicts']}; runs pruned by history retention {p2['pruned']}; "
            f"present after {p2['present_after']:,}; RSS {p2['rss_after_mib']} MiB "
            f"(peak {p2['hwm_after_mib']}); {fmt_log(p2['log'])}"
        )
    if p3 := out.get("p3"):
        met = "met" if p3["hwm_mib"] <= P3_GOAL_MIB and p3["rss_mib"] <= P3_GOAL_MIB else "MISSED"
        print(
            f"P3  [load {p3['load']:.1f}] operator with {p3['present']:,} runs present "
            f"({p3.get('finished_label', 'labelled')}): RSS {p3['rss_mib']} MiB, peak (VmHWM) "
            f"{p3['hwm_mib']} MiB; goal <= {P3_GOAL_MIB} MiB: {met}"
        )
        print(f"    {fmt_split(p3)}")
        print(
            f"    idle {p3['idle_after_seconds']}s after start ({p3['cpu_seconds']} CPU-s); "
            f"runs it modified: {p3['runs_modified_at_startup']}; {p3['hold_seconds']:.0f}s later RSS "
            f"{p3['rss_after_hold_mib']} MiB; {fmt_log(p3['log'])}"
        )
        print(f"    while it listed them, {fmt_loop(p3['startup_loop'])}")
        floor = p3["import_floor"]
        print(
            f"    import floor (a fresh interpreter after the operator's imports, before it starts): "
            f"{floor['rss_mib']} MiB, {floor['modules']} modules; {fmt_split(floor)}"
        )
    for v in out.get("p3_variants") or []:
        env = " ".join(f"{k}={val}" for k, val in v["env"].items()) or "the same environment"
        print(
            f"P3  [load {v['load']:.1f}] {v['label']} ({env}): RSS {v['rss_mib']} MiB, "
            f"peak {v['hwm_mib']} MiB; {v['hold_seconds']:.0f}s later {v['rss_after_hold_mib']} MiB; "
            f"idle after {v['idle_after_seconds']}s; {fmt_split(v)}"
        )
    logs = {"p1": out.get("p1_operator_log"), "p2": (out.get("p2") or {}).get("log")}
    logs["p3"] = (out.get("p3") or {}).get("log")
    if logs["p1"]:
        print(f"P1 operator (P1 and the baseline): {fmt_log(logs['p1'])}")
    for phase, summary in logs.items():
        for ln in (summary or {}).get("first_problems") or []:
            print(f"    {phase} log: {ln}")
    print(f"\nfigures in {WORK / 'results.json'}; operator logs in {WORK}")


# --- main -------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="p1,p2,p3", help="which of p1,p2,p3 to run (default all)")
    ap.add_argument("--cases", type=int, default=10_000, help="P1: cases in the big run (default 10,000)")
    ap.add_argument("--shards", type=int, default=4, help="P1: shards (default 4)")
    ap.add_argument("--cases-per-configmap", type=int, default=2000, help="P1: cases per ConfigMap (2,000)")
    ap.add_argument("--fail-rate", type=float, default=0.048, help="P1: failing assertions' share (0.048)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--present", type=int, default=P2_GOAL_PRESENT, help="P2: runs present (default 10,000)")
    ap.add_argument("--new-runs", type=int, default=50, help="P2: runs created and timed (default 50)")
    ap.add_argument("--baseline-runs", type=int, default=20, help="P2: baseline runs, 0 to skip (20)")
    ap.add_argument(
        "--interval",
        type=float,
        default=0.0,
        help="P2: a new run every N seconds; 0 (default): each once the previous one has its verdict",
    )
    ap.add_argument("--watch", type=int, default=10_000, help="P3: runs present (default 10,000)")
    ap.add_argument(
        "--p3-variant",
        action="append",
        default=[],
        metavar="LABEL[:KEY=VALUE,...]",
        help="P3: one more operator against the same runs, with this environment (repeatable, in order; "
        "e.g. arena2:MALLOC_ARENA_MAX=2)",
    )
    ap.add_argument(
        "--unlabelled",
        action="store_true",
        help="P2/P3: finished runs without the proctor.dev/finished label (as an earlier version left them)",
    )
    ap.add_argument("--p3-hold", type=float, default=15.0, help="P3: seconds to wait before a 2nd reading")
    ap.add_argument("--runs-per-caseset", type=int, default=50, help="P2/P3: finished runs per case set (50)")
    ap.add_argument("--run-history", type=int, help="the operator's PROCTOR_RUN_HISTORY (its default: 50)")
    ap.add_argument(
        "--operator-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="more environment for the operator (repeatable), e.g. PROCTOR_RECONCILE_INTERVAL=10",
    )
    ap.add_argument("--workers", type=int, default=8, help="threads creating the terminal runs (8)")
    ap.add_argument("--timeout", type=float, default=600, help="P1: seconds to wait for the verdict")
    ap.add_argument("--keep", action="store_true", help="leave the control plane's directory (logs) behind")
    args = ap.parse_args(argv)
    args.only = {p.strip().lower() for p in args.only.split(",") if p.strip()}
    if not args.only <= {"p1", "p2", "p3"} or args.cases < 1 or args.shards < 1:
        ap.error("--only takes p1, p2, p3; --cases and --shards must be positive")
    if any("=" not in kv for kv in args.operator_env):
        ap.error("--operator-env takes KEY=VALUE")
    args.env = dict(kv.split("=", 1) for kv in args.operator_env)
    args.variants = []
    for spec in args.p3_variant:
        label, _, pairs = spec.partition(":")
        items = [kv for kv in pairs.split(",") if kv]
        if not label or any("=" not in kv for kv in items):
            ap.error("--p3-variant takes LABEL or LABEL:KEY=VALUE,KEY=VALUE")
        args.variants.append((label, dict(kv.split("=", 1) for kv in items)))
    if args.run_history is not None:
        args.env["PROCTOR_RUN_HISTORY"] = str(args.run_history)
    return args


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    state = Path(tempfile.mkdtemp(prefix="proctor-bench-operator-"))
    signal.signal(signal.SIGTERM, _interrupt)
    out: dict[str, Any] = {"args": {k: sorted(v) if isinstance(v, set) else v for k, v in vars(args).items()}}
    cluster: Cluster | None = None
    started = time.monotonic()
    op: Operator | None = None
    try:
        log(f"starting the control plane in {state}")
        cluster = Cluster.start(state)
        cluster.install_crds(REPO / "crds")
        log(f"control plane ready ({time.monotonic() - started:.0f}s)")
        op = Operator(cluster, WORK / "operator-p1.log", args.env)
        op.wait_ready()
        if "p1" in args.only:
            run_p1(cluster, op, args, out)
            mem = op.memory()
            out["p1"]["operator_rss_mib"] = round(mem["VmRSS"] / MIB, 1)
            out["p1"]["operator_hwm_mib"] = round(mem["VmHWM"] / MIB, 1)
            # its 10,000-case CaseSet is re-resolved every minute: gone, it cannot blur P2 and P3
            if not cluster.delete_namespace("p1"):
                log("warning: namespace p1 still there after 120 s")
        if args.only & {"p2", "p3"}:
            run_p2_p3(cluster, args, out, op)
        else:
            op.stop()
            out["p1_operator_log"] = log_summary(op.log_text())
    except (HarnessError, ClusterError) as e:
        print(f"operator_scale: harness failure: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("operator_scale: interrupted; stopping everything it started", file=sys.stderr)
        return 1
    finally:
        for o in OPERATORS:
            o.stop()
        if cluster is not None:
            log("stopping the control plane")
            cluster.stop()
        if args.keep:
            log(f"control plane directory kept: {state}")
        else:
            shutil.rmtree(state, ignore_errors=True)
        out["total_seconds"] = round(time.monotonic() - started, 1)
        (WORK / "results.json").write_text(json.dumps(out, indent=2) + "\n")
    report(out)
    print(f"total {out['total_seconds']:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

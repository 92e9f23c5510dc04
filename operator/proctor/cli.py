"""The ``proctor`` command.

Exit codes of commands that produce a verdict are the verdict: PASS 0, FAIL 1, ERROR 2, WARN 3.
Usage errors and unreadable input exit 2 (ERROR: nothing was measured).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TypeVar

from proctor import __version__
from proctor.gate.pipeline import add_arguments as _gate_arguments

_T = TypeVar("_T")


def _dev(args: argparse.Namespace) -> int:
    from proctor.devcluster import controlplane as cp

    directory = (args.dir or cp.default_dir()).resolve()
    try:
        if args.dev_cmd == "up":
            kubeconfig = cp.up(directory, args.bin_dir, node=not args.no_node, timeout=args.timeout)
            st = cp.read_state(directory)
            print(
                f"proctor dev: control plane ready at {st.get('server')} (logs in {directory / 'logs'})",
                file=sys.stderr,
            )
            print(f"export KUBECONFIG={kubeconfig}")
            return 0
        stopped = cp.down(directory)
        print("proctor dev: stopped" if stopped else "proctor dev: nothing was running", file=sys.stderr)
        return 0
    except cp.DevClusterError as e:
        print(f"proctor dev: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("proctor dev: interrupted; everything started was stopped", file=sys.stderr)
        return 130


def _operator(args: argparse.Namespace) -> int:
    from proctor.controllers import operator

    operator.run(namespaces=args.namespace or None, liveness=args.liveness, verbose=args.verbose)
    return 0


class InputError(Exception):
    """Input that cannot be graded: the message names the file and the case."""


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text") from e


def _load(path: Path) -> tuple[list[object], dict[str, dict[str, str]]]:
    """The Proctor objects in a file, and the ConfigMaps beside them (name -> data)."""
    import yaml

    from proctor.api import ManifestError, load_manifests

    text = _read(path)
    try:
        objects: list[object] = list(load_manifests(text, source=str(path), ignore_other_kinds=True))
    except ManifestError as e:
        raise InputError(
            "\n".join(p if p.startswith(str(path)) else f"{path}: {p}" for p in e.problems)
        ) from e
    config_maps: dict[str, dict[str, str]] = {}
    if "ConfigMap" in text:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        docs = [json.loads(text)] if text.lstrip()[:1] in "{[" else yaml.load_all(text, Loader=loader)
        for doc in docs:
            items = doc.get("items", []) if isinstance(doc, dict) and doc.get("kind") == "List" else [doc]
            for d in items:
                if isinstance(d, dict) and d.get("kind") == "ConfigMap":
                    config_maps[str(d.get("metadata", {}).get("name"))] = dict(d.get("data") or {})
    return objects, config_maps


def _one(path: Path, kind: type[_T]) -> _T:
    found = [r for r in _load(path)[0] if isinstance(r, kind)]
    name = getattr(kind, "KIND", kind.__name__)
    if len(found) != 1:
        raise InputError(f"{path}: expected exactly one {name}, found {len(found)}")
    return found[0]


def _grade(args: argparse.Namespace) -> int:
    from proctor.api import (
        CaseSet,
        EvalProfile,
        GatePolicy,
        ManifestError,
        MissingReferenceError,
        parse_responses,
        resolve_cases,
    )
    from proctor.graders._exam import CaseSetProblem, grade_cases
    from proctor.protocol import ProtocolPolicy, Tier, decide
    from proctor.report import render_json, render_text

    try:
        objects, config_maps = _load(args.caseset)
        casesets = [o for o in objects if isinstance(o, CaseSet)]
        if len(casesets) != 1:
            raise InputError(f"{args.caseset}: expected exactly one CaseSet, found {len(casesets)}")
        caseset = casesets[0]
        profile = _one(args.profile, EvalProfile) if args.profile else None
        policy = _one(args.policy, GatePolicy) if args.policy else None
        try:
            cases = resolve_cases(caseset, config_maps)
        except MissingReferenceError as e:
            raise InputError(
                f"{args.caseset}: " + "; ".join(e.problems) + " (offline, casesFrom ConfigMaps are read from "
                "the same file: put them there as extra YAML documents)"
            ) from e
        except ManifestError as e:
            raise InputError("\n".join(f"{args.caseset}: {p}" for p in e.problems)) from e
        try:
            answers = parse_responses(_read(args.responses), where=str(args.responses))
        except ManifestError as e:
            raise InputError("\n".join(e.problems)) from e
        where = f"{args.caseset}: CaseSet {caseset.metadata.name}"
        missing = [c.id for c in cases if c.id not in answers]
        if missing:
            more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
            raise InputError(
                f"{args.responses}: no answer for case {', '.join(repr(m) for m in missing[:5])}{more} "
                f"of {where}"
            )
        from proctor.graders._assertions import AssertionCompileError
        from proctor.graders._scanpolicy import ScanPolicy

        try:
            scan = ScanPolicy.from_spec(profile.spec.safety_scan if profile else None)
        except AssertionCompileError as e:
            raise InputError(f"{args.profile}: {e}") from e
        embedder = None
        if any(a.type.removeprefix("not-") == "similar" for c in cases for a in c.assert_):
            # loads on first use, in the process that grades (after grade_cases forks, if it does)
            from proctor.judge.embeddings import OnnxEmbedder

            embedder = OnnxEmbedder()
        try:
            results = grade_cases(
                cases,
                answers,
                where=where,
                profile=profile.spec if profile else None,
                scan=scan,
                embedder=embedder,
            )
        except CaseSetProblem as e:
            raise InputError("\n".join(e.problems)) from e
    except InputError as e:
        print(f"proctor grade: error: {e}", file=sys.stderr)
        print("proctor grade: nothing was graded (exit 2)", file=sys.stderr)
        return 2
    extra = sorted(set(answers) - {c.id for c in cases})
    if extra:
        print(
            f"proctor grade: note: {len(extra)} answer(s) match no case and were ignored: "
            f"{', '.join(extra[:5])}{' ...' if len(extra) > 5 else ''}",
            file=sys.stderr,
        )
    proto = ProtocolPolicy()
    if policy is not None:
        t = policy.spec.tiers
        proto = ProtocolPolicy(
            thresholds={Tier.SAFETY: t.safety, Tier.TRUST: t.trust, Tier.FORM: t.form},
            regression_margin=policy.spec.regression_margin,
        )
    decision = decide(results, proto)
    if args.format == "json":
        print(render_json(decision, results, caseSet=caseset.metadata.name, cases=len(results)))
    else:
        title = (
            f"proctor grade: CaseSet {caseset.metadata.name} ({len(results)} cases), answers {args.responses}"
        )
        print(render_text(decision, results, title=title, colour=sys.stdout.isatty()))
    return decision.exit_code


def _gate(args: argparse.Namespace) -> int:
    from proctor.gate.pipeline import main as gate

    return gate(args)


def _judge(args: argparse.Namespace) -> int:
    from proctor.judge.runner import main as run_shard

    return run_shard(args.run, args.shard)


def _baseline(args: argparse.Namespace) -> int:
    from proctor.gate.baseline import freeze

    return freeze(args.namespace, args.caseset, runs=args.runs, timeout=args.timeout)


def _import(args: argparse.Namespace) -> int:

    from proctor.importers.promptfoo import ImportProblem, dump_manifest, import_promptfoo

    try:
        res = import_promptfoo(args.config, tier=args.tier, name=args.name)
    except ImportProblem as e:
        print(f"proctor import: error: {e}", file=sys.stderr)
        return 2
    for w in res.warnings:
        print(f"proctor import: {w}", file=sys.stderr)
    for w in [*res.untranslatable, *res.left_out]:
        print(f"proctor import: {w}", file=sys.stderr)
    sys.stdout.write(dump_manifest(res.manifest))
    if res.partial and not args.allow_partial:
        print(
            f"proctor import: partial import: {len(res.untranslatable)} assertion(s) not imported, "
            f"{len(res.left_out)} test(s) left out (--allow-partial to accept)",
            file=sys.stderr,
        )
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="proctor", description="Examine LLM agents before they ship.")
    p.add_argument("--version", action="version", version=f"proctor {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    dev = sub.add_parser("dev", help="the embedded local control plane (tests and demos)")
    dsub = dev.add_subparsers(dest="dev_cmd", required=True)
    up = dsub.add_parser(
        "up", help="start etcd, kube-apiserver, kube-controller-manager and the node stand-in"
    )
    down = dsub.add_parser("down", help="stop everything 'up' started")
    for q in (up, down):
        q.add_argument("--dir", type=Path, help="state directory (default ~/.cache/proctor/dev)")
    up.add_argument(
        "--bin-dir", type=Path, help="directory with etcd, kube-apiserver, kube-controller-manager"
    )
    up.add_argument("--no-node", action="store_true", help="do not start the node stand-in")
    up.add_argument("--timeout", type=float, default=180, help="seconds to wait for readiness")
    dev.set_defaults(func=_dev)

    gr = sub.add_parser(
        "grade",
        help="grade recorded answers offline against a CaseSet (no cluster); exit code = verdict",
        description="Offline exam of recorded answers. Exit codes: PASS 0, FAIL 1, ERROR 2 (also for bad "
        "input: nothing was graded), WARN 3. Judged dimensions without a judge are reported as skipped.",
    )
    gr.add_argument("caseset", type=Path, metavar="CASESET.yaml")
    gr.add_argument(
        "--responses",
        type=Path,
        required=True,
        metavar="ANSWERS.yaml",
        help="map of case id -> recorded answer (YAML or JSON)",
    )
    gr.add_argument("--policy", type=Path, metavar="GATEPOLICY.yaml", help="tier thresholds and margin")
    gr.add_argument("--profile", type=Path, metavar="EVALPROFILE.yaml", help="judged dimensions, safety scan")
    gr.add_argument("--format", choices=["text", "json"], default="text")
    gr.set_defaults(func=_grade)

    jg = sub.add_parser(
        "judge",
        help="run one shard of an EvalRun (what the judge Job executes)",
        description="Exit 0 when the shard measured (whatever the verdict); 2 when the harness failed.",
    )
    jg.add_argument("--run", required=True, metavar="NAMESPACE/NAME")
    jg.add_argument(
        "--shard", default="0/1", metavar="I/N", help="0-based shard index and count (default 0/1)"
    )
    jg.set_defaults(func=_judge)

    gt = sub.add_parser(
        "gate",
        help="for pipelines: create an EvalRun against a candidate, wait, print it; exit code = verdict",
        description="Create an EvalRun against a candidate (--endpoint, --image or --responses), show its "
        "progress on stderr, print the verdict and exit with its code: PASS 0, FAIL 1, ERROR 2 (also: bad "
        "input, API errors, a run not picked up, the timeout), WARN 3.",
    )
    _gate_arguments(gt)
    gt.set_defaults(func=_gate)

    bl = sub.add_parser(
        "baseline", help="freeze a CaseSet's baseline (the operator decides, by the protocol)"
    )
    bsub = bl.add_subparsers(dest="baseline_cmd", required=True)
    fr = bsub.add_parser(
        "freeze",
        help="ask for a baseline from the case set's most recent runs",
        description="Exit 0 when frozen, 1 when refused (the reason is printed), 2 when no answer came.",
    )
    fr.add_argument("caseset", metavar="CASESET")
    fr.add_argument("-n", "--namespace", default="default")
    fr.add_argument("--runs", type=int, default=3, help="consecutive stable runs required (default 3)")
    fr.add_argument("--timeout", type=float, default=120)
    bl.set_defaults(func=_baseline)

    imp = sub.add_parser("import", help="translate another tool's suite into a CaseSet manifest")
    isub = imp.add_subparsers(dest="import_cmd", required=True)
    pf = isub.add_parser("promptfoo", help="a promptfooconfig.yaml -> a CaseSet on stdout")
    pf.add_argument("config", type=Path)
    pf.add_argument("--tier", default="trust", choices=["safety", "trust", "form"], help="tier of every case")
    pf.add_argument("--name", help="the CaseSet's name (default: from the config's description)")
    pf.add_argument(
        "--allow-partial",
        action="store_true",
        help="exit 0 even when assertions or tests could not be imported (they are still listed)",
    )
    imp.set_defaults(func=_import)

    op = sub.add_parser("operator", help="run the operator (Kopf) with Proctor's settings")
    op.add_argument("-n", "--namespace", action="append", help="watch only this namespace (repeatable)")
    op.add_argument(
        "--liveness", default="http://0.0.0.0:8080/healthz", help="liveness/readiness endpoint URL"
    )
    op.add_argument("--verbose", action="store_true")
    op.set_defaults(func=_operator)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())

"""The ``proctor`` command.

Exit codes of commands that produce a verdict are the verdict: PASS 0, FAIL 1, ERROR 2, WARN 3.
Usage errors and unreadable input exit 2 (ERROR: nothing was measured).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from proctor import __version__


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


def _import(args: argparse.Namespace) -> int:
    import yaml

    from proctor.importers.promptfoo import ImportProblem, import_promptfoo

    try:
        res = import_promptfoo(args.config, tier=args.tier, name=args.name)
    except ImportProblem as e:
        print(f"proctor import: error: {e}", file=sys.stderr)
        return 2
    for w in res.warnings:
        print(f"proctor import: {w}", file=sys.stderr)
    sys.stdout.write(yaml.safe_dump(res.manifest, sort_keys=False, allow_unicode=True, width=120))
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

    imp = sub.add_parser("import", help="translate another tool's suite into a CaseSet manifest")
    isub = imp.add_subparsers(dest="import_cmd", required=True)
    pf = isub.add_parser("promptfoo", help="a promptfooconfig.yaml -> a CaseSet on stdout")
    pf.add_argument("config", type=Path)
    pf.add_argument("--tier", default="trust", choices=["safety", "trust", "form"], help="tier of every case")
    pf.add_argument("--name", help="the CaseSet's name (default: from the config's description)")
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

"""``proctor dev up`` / ``proctor dev down``: the embedded local control plane and node stand-in.

The control plane (:mod:`proctor.devcluster`) and the test harness (:mod:`proctor.testing`) are for
development machines: the operator's image leaves them out, and ``proctor dev`` there says how to
get them (:data:`NOT_INSTALLED`).
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path

#: What ``proctor dev`` says where the development tools are not installed (the operator's image).
NOT_INSTALLED = (
    "proctor dev: the local control plane is not installed here (the operator's image leaves the "
    "development tools out): install Proctor with them, pip install 'proctor[dev]' from a checkout "
    "of the repository (or make venv there)"
)


def register(p: argparse.ArgumentParser) -> None:
    dsub = p.add_subparsers(dest="dev_cmd", required=True)
    up = dsub.add_parser(
        "up", help="start etcd, kube-apiserver, kube-controller-manager and the node stand-in"
    )
    down = dsub.add_parser("down", help="stop everything 'up' started")
    for q in (up, down):
        q.add_argument(
            "--dir", type=Path, help="state directory (default $PROCTOR_DEV_DIR, else ~/.cache/proctor/dev)"
        )
    up.add_argument(
        "--bin-dir", type=Path, help="directory with etcd, kube-apiserver, kube-controller-manager"
    )
    up.add_argument("--no-node", action="store_true", help="do not start the node stand-in")
    up.add_argument("--timeout", type=float, default=180, help="seconds to wait for readiness")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    try:
        from proctor.devcluster import controlplane as cp
    except ModuleNotFoundError as e:
        if not (e.name or "").startswith("proctor.devcluster"):
            raise
        print(NOT_INSTALLED, file=sys.stderr)
        return 2
    directory = (args.dir or cp.default_dir()).resolve()
    if args.dev_cmd == "up" and args.dir is not None and not directory.parent.is_dir():
        print(
            f"proctor dev: error: --dir {args.dir}: {directory.parent} does not exist; create it first or "
            "choose another directory",
            file=sys.stderr,
        )
        return 2
    try:
        if args.dev_cmd == "up":
            kubeconfig = cp.up(directory, args.bin_dir, node=not args.no_node, timeout=args.timeout)
            st = cp.read_state(directory)
            print(
                f"proctor dev: control plane ready at {st.get('server')} (logs in {directory / 'logs'})",
                file=sys.stderr,
            )
            print(f"export KUBECONFIG={kubeconfig}")
            # the kubectl built beside the control plane, for a machine that has none on its PATH
            if shutil.which("kubectl") is None and (kubectl := cp.find_kubectl(args.bin_dir)) is not None:
                print(f'export PATH={shlex.quote(str(kubectl.parent))}:"$PATH"')
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

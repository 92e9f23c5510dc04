"""``proctor cases export``: breached live runs as candidate cases, in a CaseSet (closing arm A's loop).

Reads ``GET /api/v1/monitors/{namespace}/{name}/cases`` from the collector (the same server and
token flags as ``proctor runs``; RBAC ``get`` on the AgentMonitor) and writes a CaseSet manifest
that ``proctor grade`` and the API server take; each case is a breached run: its input, its tool
results as context, the failing answer as what not to answer (``not-equals``), the failing
dimensions and the tier they map to. Secrets the scan finds are redacted before they leave the
collector. ``--apply`` appends the cases not there yet to the monitor's ``captureTo`` CaseSet in
the cluster (created when missing), with your kubeconfig's rights.

Exit codes: 0 done; 1 the collector or the API server refused (401, 403, 404, a conflict); 2
nothing was asked (bad flags, no server or token, unreachable).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Final

import yaml

from proctor.cli.runs import _CannotAsk, token_for
from proctor.collector import CollectorClient, CollectorError
from proctor.collector.client import API_TOKEN_ENV, SERVER_CA_ENV, SERVER_ENV

PROG: Final = "proctor cases"
EXIT_REFUSED: Final = 1
EXIT_ERROR: Final = 2


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Candidate cases captured from breached live runs. Exit 0 done, 1 refused (401/403/404), "
        "2 nothing was asked."
    )
    sub = p.add_subparsers(dest="cases_cmd", required=True)
    ex = sub.add_parser("export", help="write the monitor's candidate cases as a CaseSet manifest")
    ex.add_argument("--monitor", required=True, metavar="[NS/]NAME", help="the AgentMonitor (NS from -n)")
    ex.add_argument("-n", "--namespace", help="the monitor's namespace (with --monitor NAME)")
    ex.add_argument("--revision", help="only runs of this agent revision")
    ex.add_argument("--limit", type=int, default=100, help="newest breached runs to take (at most 500)")
    ex.add_argument("--name", help="the CaseSet's name (default: the monitor's captureTo, or NAME-captured)")
    ex.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    ex.add_argument(
        "--apply",
        action="store_true",
        help="append the new cases to the monitor's captureTo CaseSet in the cluster (kubeconfig)",
    )
    ex.add_argument("--server", default=None, help=f"the collector's URL (default ${SERVER_ENV})")
    ex.add_argument("--token", default=None, help=f"bearer token (default ${API_TOKEN_ENV})")
    ex.add_argument("--ca-file", default=None, help=f"PEM CA bundle (default ${SERVER_CA_ENV})")
    ex.add_argument("--service-account", metavar="NS/NAME", default=None, help="act as this ServiceAccount")
    p.set_defaults(func=main)


def _monitor(args: argparse.Namespace) -> tuple[str, str]:
    if "/" in args.monitor:
        ns, _, name = str(args.monitor).partition("/")
    elif args.namespace:
        ns, name = args.namespace, args.monitor
    else:
        raise _CannotAsk("--monitor NAME needs -n NAMESPACE (or give --monitor NAMESPACE/NAME)")
    if not ns or not name or "/" in name:
        raise _CannotAsk("--monitor must be NAMESPACE/NAME")
    return ns, name


def apply_cases(manifest: dict[str, Any]) -> tuple[int, int]:
    """Append ``manifest``'s cases to its CaseSet in the cluster (create it when missing): the cases
    whose ids are there already are left alone. Returns (added, already there)."""
    from proctor.k8s.kube import Kube

    ns, name = manifest["metadata"]["namespace"], manifest["metadata"]["name"]
    cases = manifest["spec"]["cases"]
    kube = Kube()
    try:
        current = kube.get_or_none("CaseSet", ns, name)
        if current is None:
            if not cases:
                return 0, 0
            kube.create_custom("CaseSet", ns, manifest)
            return len(cases), 0
        have = {c.get("id") for c in (current.get("spec") or {}).get("cases") or []}
        new = [c for c in cases if c["id"] not in have]
        if new:
            # guarded on the version read: a concurrent change makes this fail (409), never lost
            ops: list[dict[str, Any]] = [
                {
                    "op": "test",
                    "path": "/metadata/resourceVersion",
                    "value": current["metadata"]["resourceVersion"],
                }
            ]
            if "cases" in (current.get("spec") or {}):
                ops += [{"op": "add", "path": "/spec/cases/-", "value": c} for c in new]
            else:
                ops.append({"op": "add", "path": "/spec/cases", "value": new})
            kube.patch_custom_json("CaseSet", ns, name, ops)
        return len(new), len(cases) - len(new)
    finally:
        kube.close()


def main(args: argparse.Namespace) -> int:
    from proctor.k8s.kube import KubeConfigError, KubeError

    try:
        ns, name = _monitor(args)
        if not 1 <= args.limit <= 500:
            raise _CannotAsk("--limit must be within 1-500")
        token = token_for(args)
        with CollectorClient(args.server, token, ca_file=args.ca_file) as api:
            answer = api.cases(ns, name, revision=args.revision, limit=args.limit)
        manifest: dict[str, Any] = answer["caseSet"]
        if args.name:
            manifest["metadata"]["name"] = args.name
        count = len(manifest["spec"]["cases"])
        text = yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True)
        if args.output == "-":
            sys.stdout.write(text)
        else:
            Path(args.output).write_text(text, encoding="utf-8")
        print(f"{PROG}: {count} candidate case{'s' if count != 1 else ''} from {ns}/{name}", file=sys.stderr)
        if args.apply:
            added, kept = apply_cases(manifest)
            print(
                f"{PROG}: CaseSet {ns}/{manifest['metadata']['name']}: {added} added, {kept} already there",
                file=sys.stderr,
            )
    except _CannotAsk as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except CollectorError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED if 400 <= e.status < 500 else EXIT_ERROR
    except KubeConfigError as e:
        print(f"{PROG}: error: --apply needs a kubeconfig: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KubeError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED if e.status is not None and 400 <= e.status < 500 else EXIT_ERROR
    except OSError as e:
        print(f"{PROG}: error: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return EXIT_ERROR
    return 0

"""``proctor runs list|show|evaluate``: a client of the collector's runs API.

The collector is ``--server`` (default ``PROCTOR_SERVER``). The bearer token, first found wins:

1. ``--token`` or ``PROCTOR_API_TOKEN`` (a collector without a cluster takes only its management
   token; the ingestion token ``PROCTOR_TOKEN`` that agents send is never read);
2. ``--service-account NS/NAME``: a short-lived token of that ServiceAccount for the collector's
   audience (``proctor-collector``), requested with the kubeconfig's credentials (TokenRequest,
   what ``kubectl create token --audience`` does); RBAC then decides with that account's rights;
3. the kubeconfig's own bearer token (a ``token``, ``tokenFile``, an exec plugin such as OIDC or a
   cloud's IAM, or a pod's service-account token): accepted only by a collector started with
   ``--audience`` naming the API server's audience (it is a token the collector could replay).

Exit codes: 0 done; 1 the collector refused (401 no valid token, 403 RBAC lacks the verb, 404 no
such run or monitor; the message says which); 2 nothing was asked (bad flags, no server, no token,
the collector unreachable or failing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Final

from proctor.api import COLLECTOR_AUDIENCE
from proctor.collector import CollectorClient, CollectorError, runs_json, runs_table
from proctor.collector.client import API_TOKEN_ENV, INGEST_TOKEN_ENV, SERVER_CA_ENV, SERVER_ENV

PROG: Final = "proctor runs"
EXIT_REFUSED: Final = 1
EXIT_ERROR: Final = 2


def add_server_flags(q: argparse.ArgumentParser) -> None:
    """The flags every collector client verb takes (runs, incidents, patterns, feedback, ...): where
    the collector is, how to authenticate, how to print. One definition, so their help agrees."""
    q.add_argument("--server", default=None, help=f"the collector's URL (default ${SERVER_ENV})")
    q.add_argument("--token", default=None, help=f"bearer token (default ${API_TOKEN_ENV})")
    q.add_argument(
        "--ca-file", default=None, help=f"PEM CA bundle for an https collector (default ${SERVER_CA_ENV})"
    )
    q.add_argument(
        "--service-account",
        metavar="NS/NAME",
        default=None,
        help="act as this ServiceAccount (a TokenRequest with your kubeconfig)",
    )
    q.add_argument("-o", "--output", choices=["text", "json"], default="text")


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Runs the collector judged (arm B). Exit 0 done, 1 the collector refused (401/403/404), "
        "2 nothing was asked (bad flags, no server or token, the collector unreachable)."
    )
    rsub = p.add_subparsers(dest="runs_cmd", required=True)
    ls = rsub.add_parser("list", help="runs, newest first")
    ls.add_argument("--monitor", metavar="[NS/]NAME", help="one AgentMonitor's runs (NS from -n)")
    ls.add_argument("-n", "--namespace", help="runs of the AgentMonitors of this namespace")
    ls.add_argument("--state", help="only runs in this state (e.g. Evaluated, EvaluationFailed)")
    ls.add_argument("--limit", type=int, default=100, help="runs per page (default 100, at most 500)")
    ls.add_argument("--pages", type=int, default=1, help="pages to read (0: every page; default 1)")
    show = rsub.add_parser("show", help="one run: its steps, scores with provenance, evaluations")
    show.add_argument("run", metavar="RUN")
    ev = rsub.add_parser("evaluate", help="evaluate a run now (RBAC verb 'evaluate' on agentmonitors)")
    ev.add_argument("run", metavar="RUN")
    for q in (ls, show, ev):
        add_server_flags(q)
    p.set_defaults(func=main)


class _CannotAsk(Exception):
    """Nothing can be asked: a bad flag, or no way to authenticate (exit 2 with the reason)."""


def token_for(args: argparse.Namespace) -> str:
    """The bearer token (see the module docstring for the order)."""
    if args.token:
        return str(args.token)
    if os.environ.get(API_TOKEN_ENV) and not args.service_account:
        return os.environ[API_TOKEN_ENV]
    from proctor.k8s.kube import TRANSPORT_ERRORS, Kube, KubeConfigError, KubeError

    try:
        kube = Kube()
    except KubeConfigError as e:
        agents = (
            f"; {INGEST_TOKEN_ENV} is what agents send and never reads runs"
            if os.environ.get(INGEST_TOKEN_ENV)
            else ""
        )
        raise _CannotAsk(
            f"no token: give --token or set {API_TOKEN_ENV} (no kubeconfig to take one from: {e}){agents}"
        ) from None
    try:
        if args.service_account:
            ns, _, name = str(args.service_account).rpartition("/")
            if not ns or not name:
                raise _CannotAsk("--service-account must be NAMESPACE/NAME")
            return kube.request_token(ns, name, audiences=[COLLECTOR_AUDIENCE])
        token = kube.bearer_token()
        if token is None:
            raise _CannotAsk(
                "no token: the kubeconfig authenticates with a client certificate, which cannot be "
                "passed on to the collector; give --service-account NS/NAME (a token of that "
                "ServiceAccount, by TokenRequest) or --token $(kubectl create token NAME "
                f"--audience {COLLECTOR_AUDIENCE})"
            )
        return token
    except KubeError as e:
        raise _CannotAsk(f"no token: {e}") from None
    except TRANSPORT_ERRORS as e:
        raise _CannotAsk(f"no token: the API server is unreachable ({type(e).__name__})") from None
    finally:
        kube.close()


def _monitor(args: argparse.Namespace) -> str | None:
    if not args.monitor:
        return None
    if "/" in args.monitor:
        return str(args.monitor)
    if not args.namespace:
        raise _CannotAsk("--monitor NAME needs -n NAMESPACE (or give --monitor NAMESPACE/NAME)")
    return f"{args.namespace}/{args.monitor}"


def _show_text(run: dict[str, Any]) -> str:
    lines = [
        f"run {run['id']}  monitor {run['monitor']}  state {run['state']}  attempts {run['attempts']}",
        f"  key {run.get('keySource')}={run.get('key')}  agent {run.get('agent')}  "
        f"revision {run.get('revision') or '-'}  spans {run.get('spans')}  events {run.get('events')}",
    ]
    if run.get("lastError"):
        lines.append(f"  last error: {run['lastError']}")
    for s in run.get("scoreDetails") or []:
        shown = f"{s['score']:g}" if s.get("score") is not None else f"skipped ({s.get('skipped')})"
        breached = " BREACHED" if s.get("breached") else ""
        lines.append(f"  {s['dimension']}: {shown} (threshold {s['threshold']:g}, {s['source']}){breached}")
    steps = run.get("steps") or []
    if steps:
        lines.append(f"  steps ({len(steps)}):")
        for step in steps[:50]:
            text = " ".join(str(step.get("text") or "").split())
            name = f" {step['name']}" if step.get("name") else ""
            lines.append(f"    {step.get('kind')}{name}: {text[:160]}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    try:
        monitor = _monitor(args) if args.runs_cmd == "list" else None
        token = token_for(args)
        with CollectorClient(args.server, token, ca_file=args.ca_file) as api:
            if args.runs_cmd == "list":
                runs = api.list_runs(
                    monitor=monitor,
                    namespace=None if monitor else args.namespace,
                    state=args.state,
                    limit=args.limit,
                    pages=args.pages,
                )
                print(runs_json(runs) if args.output == "json" else runs_table(runs))
            elif args.runs_cmd == "show":
                run = api.show_run(args.run)
                print(json.dumps(run, indent=2) if args.output == "json" else _show_text(run))
            else:
                view = api.evaluate(args.run)
                if args.output == "json":
                    print(json.dumps(view, indent=2))
                else:
                    print(f"run {view['id']}: {view['state']} (evaluation requested)")
    except _CannotAsk as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except CollectorError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_REFUSED if 400 <= e.status < 500 else EXIT_ERROR
    return 0

"""The operator: Kopf's settings, the runtime on ``memo`` (built at startup, closed at cleanup), and
the entry point. Importing the handler modules registers their handlers."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from typing import Any

import kopf
import structlog

from proctor.api import GROUP, EvalRun
from proctor.controllers import casesets, gates, monitors, profiles, runs  # noqa: F401  (registers handlers)
from proctor.controllers.kit import runtime
from proctor.gate import setup as gate_setup
from proctor.gate.webhook import WebhookConfig
from proctor.k8s.kube import TRANSPORT_ERRORS, Kube, KubeError
from proctor.k8s.objects import UNFINISHED_SELECTOR
from proctor.observability import metrics
from proctor.observability.logging import configure as configure_logging
from proctor.reconcile import breakglass
from proctor.reconcile.caseserver import CaseServer
from proctor.reconcile.config import OperatorConfig
from proctor.reconcile.legacy import FINALIZER
from proctor.reconcile.runs import label_finished_runs
from proctor.reconcile.runtime import Runtime
from proctor.reconcile.status import MANAGER

log = structlog.get_logger("proctor.operator")

NAMESPACE_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def tune(settings: kopf.OperatorSettings) -> None:
    """Kopf as mature operators run it: no state in the objects, bounded timeouts, quiet events.

    Every handler is a watch handler (``kopf.on.event``): level-triggered reconcilers need no diff
    base, no progress and no finalizer, so Kopf writes nothing into the objects (a unit test holds
    that no other kind of handler is registered). The finalizer's name stays what earlier versions
    used only so that Kopf recognises it as its own and removes it from their objects.
    """
    settings.persistence.finalizer = FINALIZER
    # Watches are re-established before proxies and load balancers cut them.
    settings.watching.server_timeout = 270
    settings.watching.client_timeout = 300
    settings.watching.connect_timeout = 10
    # list in pages: thousands of runs parsed at once set the operator's peak memory
    settings.watching.chunk_size = 500
    # finished runs need no watching: the API server sends only the runs without the label the
    # operator sets when a run finishes, and Kopf keeps nothing of the others (reconcile/runs.py)
    settings.watching.label_selectors[GROUP, EvalRun.PLURAL] = UNFINISHED_SELECTOR
    settings.networking.request_timeout = 30
    # Routine handler messages stay in logs; Events are reserved for decisions (posted explicitly).
    settings.posting.level = logging.WARNING
    settings.execution.max_workers = 16


#: Seconds the first start after an upgrade may spend labelling finished runs before the watches
#: start (Kopf answers the liveness probe only after its startup handlers; the chart's probe, first
#: asked at 10 s and every 20 s, restarts the pod at its third failure, about 50 s); what is left,
#: the watch labels.
LABEL_AT_START_SECONDS = 30.0


@kopf.on.startup(id="proctor-settings")
async def startup(settings: kopf.OperatorSettings, memo: kopf.Memo, **_: Any) -> None:
    """Tune Kopf, build the runtime (client, settings from the environment, clock, locks) on the memo,
    serve metrics and the webhook (on its own thread: :mod:`proctor.gate.setup`), and label
    the finished runs an earlier version left unlabelled."""
    tune(settings)
    config = OperatorConfig.from_env()
    kube = Kube()
    rt = Runtime(kube, config)
    metrics.serve(config.metrics_port, addr=config.metrics_addr)
    rt.identity = await rt.call(whoami, kube)
    watched: list[str] = list(memo.get("namespaces") or ())
    # namespace patterns (globs) cannot be a namespaceSelector: then every namespace, as clusterwide
    names = watched if all(NAMESPACE_NAME.fullmatch(ns) for ns in watched) else []
    hook = WebhookConfig.from_env(namespaces=names)
    # the server listens before the configuration sends the API server to it; a setup that fails
    # stops it, so a retried startup starts afresh
    posts = breakglass.poster(rt, asyncio.get_running_loop())
    rt.admission = await rt.call(gate_setup.setup, rt, hook, posts, manager=MANAGER)
    memo["runtime"] = rt
    await serve_cases(rt, watched)
    if not watched or names:  # with namespace patterns, the watch labels finished runs as it meets them
        where: list[str | None] = list(names) or [None]
        labelled, complete = await label_finished_runs(rt, where, budget=LABEL_AT_START_SECONDS)
        if labelled or not complete:
            log.info("finished runs labelled at start", runs=labelled, complete=complete)
    settle_heap()


async def serve_cases(rt: Runtime, watched: list[str]) -> None:
    """The namespace the runs' cases are kept in (a local operator's is made if missing) and the
    case server the judges fetch them from (:mod:`proctor.reconcile.caseserver`)."""
    if not rt.config.own_namespace:
        try:
            await rt.call(rt.kube.ensure_namespace, rt.config.store_namespace)
        except KubeError as e:
            where = rt.config.store_namespace
            log.warning("the cases' namespace could not be made", namespace=where, error=str(e))
    server = CaseServer(rt, watched=watched)
    await server.start()
    rt.case_server = server


def settle_heap() -> None:
    """Take what start-up built (modules, models, the clients, the webhook server) out of the cyclic
    garbage collector's scans: a full collection walks every tracked object with the interpreter
    lock held, and over this heap that stalled the webhook's answers by 100-350 ms on a busy
    machine. Objects made later are collected as before; frozen ones are still freed when their
    last reference goes."""
    gc.collect()
    gc.freeze()


def whoami(kube: Kube) -> str | None:
    """The operator's own username, which the webhook lets write the gate's annotations (unknown:
    nobody may, so the gate fails closed)."""
    try:
        return kube.whoami()
    except KubeError as e:
        problem = str(e)
    except TRANSPORT_ERRORS as e:
        problem = f"{type(e).__name__}: {e}"
    log.error("cannot learn the operator's own identity; the gate will refuse its approvals", error=problem)
    return None


@kopf.on.cleanup(id="proctor-cleanup")
async def cleanup(memo: kopf.Memo, **_: Any) -> None:
    """Stop the webhook, cancel the scheduled wake-ups and close the API client."""
    if "runtime" in memo:
        await runtime(memo).close()


@kopf.on.probe(id="proctor-alive")
def alive(**_: Any) -> bool:
    return True


def run(
    *,
    namespaces: list[str] | None = None,
    liveness: str = "http://127.0.0.1:8180/healthz",
    verbose: bool = False,
) -> None:
    """Run the operator until interrupted (clusterwide unless namespaces are given)."""
    configure_logging(level=logging.DEBUG if verbose else logging.INFO)
    asyncio.run(
        kopf.operator(
            clusterwide=not namespaces,
            namespaces=namespaces or (),
            liveness_endpoint=liveness,
            standalone=True,
            memo=kopf.Memo(namespaces=tuple(namespaces or ())),
        )
    )

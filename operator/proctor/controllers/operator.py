"""Kopf wiring: the operator's settings and its entry point.

Decorators only register; resource handlers live beside this module and stay plain functions.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import kopf

from proctor.controllers import gates, resources, runs  # noqa: F401  (registers the handlers)
from proctor.controllers.config import OperatorConfig
from proctor.controllers.runs import Runtime
from proctor.gate import webhook
from proctor.k8s.kube import Kube
from proctor.observability import metrics
from proctor.observability.logging import configure as configure_logging

FINALIZER = "proctor.dev/finalizer"
ANNOTATION_PREFIX = "proctor.dev"


@kopf.on.startup(id="proctor-settings")
def configure(settings: kopf.OperatorSettings, memo: kopf.Memo, **_: Any) -> None:
    """Tune Kopf as mature operators do: own finalizer and annotations, bounded timeouts, quiet events."""
    settings.persistence.finalizer = FINALIZER
    settings.persistence.progress_storage = kopf.AnnotationsProgressStorage(prefix=ANNOTATION_PREFIX)
    settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(
        prefix=ANNOTATION_PREFIX, key="last-handled-configuration"
    )
    # Watches are re-established before proxies and load balancers cut them.
    settings.watching.server_timeout = 270
    settings.watching.client_timeout = 300
    settings.watching.connect_timeout = 10
    # list in pages: thousands of runs parsed at once set the operator's peak memory
    settings.watching.chunk_size = 500
    settings.networking.request_timeout = 30
    # Routine handler messages stay in logs; Events are reserved for decisions (posted explicitly).
    settings.posting.level = logging.WARNING
    settings.execution.max_workers = 16
    config = OperatorConfig.from_env()
    kube = Kube()
    memo["runtime"] = Runtime(kube, config)
    metrics.serve(config.metrics_port)
    webhook.setup(settings, kube, webhook.WebhookConfig.from_env())


@kopf.on.probe(id="proctor-alive")
def alive(**_: Any) -> bool:
    return True


def run(
    *,
    namespaces: list[str] | None = None,
    liveness: str = "http://0.0.0.0:8080/healthz",
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
        )
    )

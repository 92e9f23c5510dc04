"""Starting the admission webhook: gate wiring, called once by the operator's startup.

Admission is not served by Kopf: Kopf would answer it on the operator's one event loop, behind
every reconcile. :class:`proctor.gate.server.AdmissionServer` answers on a thread and a loop of its
own, from the policies' snapshot (``Policies``, which :func:`proctor.controllers.gates.on_policy_event`
keeps current); the decision is :func:`proctor.gate.admission.admit`. Here: :func:`setup` (the
snapshot primed, the server listening, then the MutatingWebhookConfiguration applied). What a
break-glass says afterwards (Events, on the operator's loop) is the caller's
(:mod:`proctor.reconcile.breakglass`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import structlog

from proctor.gate.admission import Admission
from proctor.gate.certs import ensure_certs
from proctor.gate.server import AdmissionServer, Policies
from proctor.gate.webhook import WebhookConfig
from proctor.k8s.kube import Kube, KubeError

log = structlog.get_logger("proctor.gate.webhook")


class Wiring(Protocol):
    """What the webhook is built from: the operator's runtime has these (a test passes less)."""

    kube: Kube
    policies: Policies
    identity: str | None
    clock: Callable[[], dt.datetime]


def setup(
    rt: Wiring,
    config: WebhookConfig,
    on_break_glass: Callable[[Mapping[str, Any], Admission], None],
    *,
    manager: str,
) -> AdmissionServer | None:
    """Serve the webhook (port 0: not at all) and apply its (scoped) MutatingWebhookConfiguration
    as field manager ``manager``, in that order, so the API server is never sent to a webhook that
    is not listening yet. ``on_break_glass`` is called on the webhook's thread for a break-glass it
    honoured."""
    if not config.port:
        return None
    config.check()
    certs = ensure_certs(config.cert_dir, config.sans())
    prime(rt, config.namespaces)
    server = AdmissionServer(
        config.addr,
        config.port,
        certs,
        kube=rt.kube,
        policies=rt.policies,
        identity=rt.identity,
        clock=rt.clock,
        on_break_glass=on_break_glass,
    )
    server.start()
    try:
        apply_configuration(rt, config, certs.ca_pem, manager)
    except BaseException:
        server.stop()
        raise
    log.info("admission webhook ready", at=config.url or config.service, failure_policy=config.failure_policy)
    return server


def apply_configuration(rt: Wiring, config: WebhookConfig, ca_pem: bytes, manager: str) -> None:
    """The MutatingWebhookConfiguration, with this certificate's CA (server-side apply). The chart
    creates it and lets the operator patch that one name: a refusal says so."""
    try:
        rt.kube.apply_webhook_configuration(config.configuration(ca_pem), manager)
    except KubeError as e:
        if e.status != 403:
            raise
        raise RuntimeError(
            f"the MutatingWebhookConfiguration {config.name} could not be applied ({e}): the Helm chart "
            "creates it and lets the operator patch only that name; install or upgrade the chart (its "
            "webhook.configurationName must match PROCTOR_WEBHOOK_CONFIGURATION), or run the operator "
            "with a webhook.urlHost of the pod's address, where it creates the configuration itself"
        ) from None


def prime(rt: Wiring, namespaces: Sequence[str]) -> None:
    """The policies as they are, in the snapshot before the first request: the watch that keeps it
    current starts later, and a policy the webhook does not know holds its Deployments (an
    observing policy's would stay paused). Not listed (no right to list every namespace): the
    watch fills it, failing closed meanwhile."""
    where: list[str | None] = list(namespaces) or [None]
    for ns in where:
        cont: str | None = None
        while True:
            try:
                items, cont = rt.kube.list_custom_page("GatePolicy", ns, "", limit=500, cont=cont)
            except KubeError as e:
                log.warning(
                    "policies not listed before the webhook serves", namespace=ns or "*", error=str(e)
                )
                return
            for raw in items:
                rt.policies.read_policy(raw)
            if cont is None:
                break

"""The admission webhook's place in the operator: started at startup, stopped at cleanup, fed by
the GatePolicy watch.

Admission is not served by Kopf: Kopf would answer it on the operator's one event loop, behind
every reconcile. :class:`proctor.gate.server.AdmissionServer` answers on a thread and a loop of its
own, from the policies' snapshot on the runtime (``rt.policies``, which
:func:`proctor.controllers.gates.on_policy_event` keeps current); the decision is
:func:`proctor.gate.admission.admit`. Here: :func:`setup` (the server listening first, then the
MutatingWebhookConfiguration applied) and a break-glass's Events, handed back to the operator's
loop to post.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import structlog

from proctor.api import BREAK_GLASS_ANNOTATION
from proctor.gate.admission import GATE_LABEL, Admission
from proctor.gate.certs import ensure_certs
from proctor.gate.server import AdmissionServer
from proctor.gate.webhook import WebhookConfig
from proctor.k8s.kube import KubeError
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import MANAGER

log = structlog.get_logger("proctor.gate.webhook")


def setup(rt: Runtime, config: WebhookConfig, loop: asyncio.AbstractEventLoop) -> AdmissionServer | None:
    """Serve the webhook (port 0: not at all) and apply its (scoped) MutatingWebhookConfiguration,
    in that order, so the API server is never sent to a webhook that is not listening yet."""
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
        on_break_glass=poster(rt, loop),
    )
    server.start()
    try:
        apply_configuration(rt, config, certs.ca_pem)
    except BaseException:
        server.stop()
        raise
    log.info("admission webhook ready", at=config.url or config.service, failure_policy=config.failure_policy)
    return server


def apply_configuration(rt: Runtime, config: WebhookConfig, ca_pem: bytes) -> None:
    """The MutatingWebhookConfiguration, with this certificate's CA (server-side apply). The chart
    creates it and lets the operator patch that one name: a refusal says so."""
    try:
        rt.kube.apply_webhook_configuration(config.configuration(ca_pem), MANAGER)
    except KubeError as e:
        if e.status != 403:
            raise
        raise RuntimeError(
            f"the MutatingWebhookConfiguration {config.name} could not be applied ({e}): the Helm chart "
            "creates it and lets the operator patch only that name; install or upgrade the chart (its "
            "webhook.configurationName must match PROCTOR_WEBHOOK_CONFIGURATION), or run the operator "
            "with a webhook.urlHost of the pod's address, where it creates the configuration itself"
        ) from None


def prime(rt: Runtime, namespaces: Sequence[str]) -> None:
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
            for p in items:
                meta = p.get("metadata") or {}
                rt.policies.update(
                    meta.get("namespace"), meta.get("name", ""), p.get("spec") or {}, p.get("status") or {}
                )
            if cont is None:
                break


def poster(rt: Runtime, loop: asyncio.AbstractEventLoop) -> Callable[[Mapping[str, Any], Admission], None]:
    """What the webhook thread calls for a break-glass it honoured: its Events, posted on the
    operator's loop after the answer (the answer never waits for them)."""

    def post(obj: Mapping[str, Any], decision: Admission) -> None:
        events = break_glass_outcome(obj, decision).events
        try:
            asyncio.run_coroutine_threadsafe(rt.post(events), loop)
        except RuntimeError:  # the operator's loop is closed: it is stopping
            log.warning("break-glass Events not posted: the operator is stopping")

    return post


def break_glass_outcome(obj: Mapping[str, Any], decision: Admission) -> Outcome:
    """A break-glass the webhook honoured, said as Events on the Deployment and on its policy."""
    assert decision.break_glass is not None
    meta = obj.get("metadata") or {}
    ns, policy = str(meta.get("namespace")), (meta.get("labels") or {}).get(GATE_LABEL)
    out = Outcome()
    text = f"{BREAK_GLASS_ANNOTATION} by {decision.break_glass.user}: {decision.message}"
    out.say(ObjectRef.of(obj, kind="Deployment", api_version="apps/v1"), "Warning", "BreakGlass", text)
    if policy:
        out.say(
            ObjectRef("GatePolicy", ns, policy),
            "Warning",
            "BreakGlass",
            f"Deployment {meta.get('name')}: {text}",
        )
    log.warning("break-glass honoured", deployment=f"{ns}/{meta.get('name')}", user=decision.break_glass.user)
    return out

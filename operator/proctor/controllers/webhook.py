"""The admission webhook, served by Kopf: a gated Deployment's new pod template is held.

The decision is :func:`proctor.gate.admission.admit` (pure, from the object alone); here are Kopf's
parts: the server and the MutatingWebhookConfiguration (:func:`setup`, at startup), an index of each
policy's mode (so no request waits on an API call), and the mutating handler.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, cast

import kopf
import structlog

from proctor.api import GROUP, VERSION, GatePolicy
from proctor.controllers.kit import runtime
from proctor.gate.admission import GATE_LABEL, GateEntry, admission_patch, admit, enforcing
from proctor.gate.certs import WebhookCerts, ensure_certs
from proctor.gate.webhook import WebhookConfig
from proctor.k8s.kube import Kube
from proctor.k8s.objects import WEBHOOK_HANDLER_ID
from proctor.reconcile.status import MANAGER

log = structlog.get_logger("proctor.gate.webhook")


class NoWebhookServer:
    """The webhook is disabled: Kopf needs a server for its registered handler; this one never serves."""

    async def __call__(self, fn: Any) -> AsyncIterator[Any]:
        await asyncio.Event().wait()
        yield  # pragma: no cover - never reached: an async generator that waits forever


def setup(settings: kopf.OperatorSettings, kube: Kube, config: WebhookConfig) -> WebhookCerts | None:
    """Serve the webhook through Kopf and apply its (scoped) MutatingWebhookConfiguration."""
    settings.admission.managed = None
    if not config.port:
        settings.admission.server = cast(Any, NoWebhookServer())
        return None
    config.check()
    certs = ensure_certs(config.cert_dir, config.sans())
    settings.admission.server = kopf.WebhookServer(
        addr=config.addr,
        port=config.port,
        host=config.url_host,
        certfile=str(certs.certfile),
        pkeyfile=str(certs.keyfile),
    )
    kube.apply_webhook_configuration(config.configuration(certs.ca_pem), MANAGER)
    log.info(
        "admission webhook ready",
        url=config.url,
        service=config.service,
        failure_policy=config.failure_policy,
    )
    return certs


@kopf.index(GROUP, VERSION, GatePolicy.PLURAL, id="gate_modes")
def gate_modes(
    namespace: str | None, name: str, spec: kopf.Spec, status: kopf.Status, **_: Any
) -> dict[Any, GateEntry]:
    """Each policy's effective enforcement and selector, known before any request comes (no API call
    per request)."""
    return {(namespace, name): GateEntry.of(spec, status)}


@kopf.on.mutate("apps", "v1", "deployments", id=WEBHOOK_HANDLER_ID)
def gate_deployment(
    body: kopf.Body, patch: kopf.Patch, warnings: list[str], memo: kopf.Memo, **kwargs: Any
) -> None:
    """Pause a gated Deployment whose pod template is not the approved one (enforcing policies);
    record it for an exam without pausing (observing ones). An unknown policy holds: fail closed."""
    index: kopf.Index[Any, GateEntry] = kwargs["gate_modes"]
    obj = cast(Mapping[str, Any], body)
    meta = obj.get("metadata") or {}
    labels = meta.get("labels") or {}
    policy = labels.get(GATE_LABEL)
    entries = list(index.get((meta.get("namespace"), policy), []))
    if entries and not entries[0].selects(labels):
        return  # labelled, but the policy's selector leaves it out: not gated
    decision = admit(obj, enforcing=enforcing(entries))
    if not decision.changes:
        return
    for key, value in admission_patch(decision, runtime(memo).clock()).items():
        patch[key] = value
    warnings.append(
        decision.message if entries else f"{decision.message} (GatePolicy {policy} not found: held)"
    )

"""The admission webhook, served by Kopf: a gated Deployment's new pod template is held.

The decision is :func:`proctor.gate.admission.admit` (pure, from the request: the new and the old
object, who asks, the policies' index); here are Kopf's parts: the server and the
MutatingWebhookConfiguration (:func:`setup`, at startup), an index of each policy's mode (so no
request waits on an API call), the mutating handler, and the probe handler the operator's own dry
runs reach (how it knows the API server really calls it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, cast

import kopf
import structlog

from proctor.api import BREAK_GLASS_ANNOTATION, GROUP, VERSION, GatePolicy
from proctor.controllers.kit import runtime
from proctor.gate.admission import GATE_LABEL, Admission, GateEntry, admission_patch, wants_break_glass
from proctor.gate.certs import WebhookCerts, ensure_certs
from proctor.gate.webhook import WebhookConfig, review
from proctor.k8s.kube import Kube
from proctor.k8s.objects import PROBE_ANSWER_ANNOTATION, PROBE_HANDLER_ID, PROBE_LABEL, WEBHOOK_HANDLER_ID
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
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
async def gate_deployment(
    body: kopf.Body,
    userinfo: kopf.UserInfo,
    dryrun: bool,
    patch: kopf.Patch,
    warnings: list[str],
    memo: kopf.Memo,
    **kwargs: Any,
) -> None:
    """Refuse what would fool the gate; pause a gated Deployment whose pod template is not the
    approved one (enforcing policies), or record it for an exam (observing ones)."""
    rt = runtime(memo)
    new, old = cast(Mapping[str, Any], body), cast(Mapping[str, Any] | None, kwargs.get("old"))
    decision = await _review(rt, kwargs["gate_modes"], new, old, cast(Mapping[str, Any], userinfo))
    if not decision.allowed:
        raise kopf.AdmissionError(decision.message, code=403)
    for key, value in admission_patch(decision, rt.clock()).items():
        patch[key] = value
    if decision.changes and decision.message:
        warnings.append(decision.message)
    if decision.break_glass is not None and not dryrun:
        await rt.post(break_glass_outcome(cast(Mapping[str, Any], body), decision).events)


async def _review(
    rt: Runtime,
    index: kopf.Index[Any, GateEntry],
    new: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    userinfo: Mapping[str, Any],
) -> Admission:
    """The decision is pure and quick, made on the loop; only a break-glass asks the API server (a
    SubjectAccessReview), in a thread: admission never waits behind the reconcilers' API calls for
    a thread of the shared pool."""

    def entries(ns: str | None, policy: str | None) -> list[GateEntry]:
        return list(index.get((ns, policy), []))

    if wants_break_glass(old, new):
        return await rt.call(review, rt.kube, new, old, userinfo, operator=rt.identity, entries=entries)
    return review(rt.kube, new, old, userinfo, operator=rt.identity, entries=entries)


@kopf.on.mutate(GROUP, VERSION, GatePolicy.PLURAL, id=PROBE_HANDLER_ID)
def probe(body: kopf.Body, patch: kopf.Patch, **_: Any) -> None:
    """Answer the operator's dry-run probe (a GatePolicy patch adding the probe label): echo its nonce."""
    nonce = (body.get("metadata", {}).get("labels") or {}).get(PROBE_LABEL)
    if nonce:
        patch["metadata"] = {"annotations": {PROBE_ANSWER_ANNOTATION: nonce}}


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

"""The admission webhook, served by Kopf: a gated Deployment's new pod template is held.

Configuration (environment; the Helm chart sets it):

- ``PROCTOR_WEBHOOK_PORT``: where to serve (0, the default outside a cluster, disables the webhook).
- ``PROCTOR_WEBHOOK_ADDR``: the listen address (default ``0.0.0.0``).
- ``PROCTOR_WEBHOOK_URL_HOST``: the API server reaches the webhook at ``https://HOST:PORT``
  (the local control plane: ``127.0.0.1``); or ``PROCTOR_WEBHOOK_SERVICE=namespace/name:port``
  for a Service in a cluster.
- ``PROCTOR_WEBHOOK_CERT_DIR``: ``tls.crt``, ``tls.key`` and ``ca.crt`` (a mounted Secret), or an
  empty writable directory where a CA and certificate are generated.
- ``PROCTOR_WEBHOOK_EXCLUDE_NAMESPACES``: never intercepted (``kube-system`` and the operator's own
  namespace, ``POD_NAMESPACE``, always are).
- ``PROCTOR_WEBHOOK_CONFIGURATION``: the MutatingWebhookConfiguration's name (default ``proctor-gate``).
- ``PROCTOR_WEBHOOK_FAILURE_POLICY``: ``Fail`` (default: with the operator down, gated Deployments
  cannot change; nothing else is intercepted) or ``Ignore`` (gated Deployments roll out unexamined
  while the operator is down).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import tempfile
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import kopf
import structlog

from proctor.gate.admission import GATE_LABEL, PENDING_ANNOTATION, PENDING_SINCE_ANNOTATION, admit
from proctor.gate.certs import WebhookCerts, ensure_certs
from proctor.k8s.objects import WEBHOOK_HANDLER_ID, mutating_webhook_configuration

log = structlog.get_logger("proctor.gate.webhook")


@dataclass(frozen=True)
class WebhookConfig:
    port: int = 0
    addr: str = "0.0.0.0"
    url_host: str | None = None
    service: tuple[str, str, int] | None = None
    cert_dir: Path = Path(tempfile.gettempdir()) / "proctor-webhook"
    exclude: tuple[str, ...] = ("kube-system",)
    failure_policy: str = "Fail"
    name: str = "proctor-gate"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WebhookConfig:
        e = dict(os.environ if env is None else env)
        service = None
        if svc := e.get("PROCTOR_WEBHOOK_SERVICE"):
            ns_name, _, port = svc.partition(":")
            ns, _, name = ns_name.partition("/")
            service = (ns, name, int(port or 443))
        exclude = ["kube-system", *filter(None, e.get("PROCTOR_WEBHOOK_EXCLUDE_NAMESPACES", "").split(","))]
        if own := e.get("POD_NAMESPACE"):
            exclude.append(own)
        return cls(
            port=int(e.get("PROCTOR_WEBHOOK_PORT", "0")),
            addr=e.get("PROCTOR_WEBHOOK_ADDR", "0.0.0.0"),
            url_host=e.get("PROCTOR_WEBHOOK_URL_HOST"),
            service=service,
            cert_dir=Path(e.get("PROCTOR_WEBHOOK_CERT_DIR", str(cls.cert_dir))),
            exclude=tuple(dict.fromkeys(exclude)),
            failure_policy=e.get("PROCTOR_WEBHOOK_FAILURE_POLICY", "Fail"),
            name=e.get("PROCTOR_WEBHOOK_CONFIGURATION", "proctor-gate"),
        )

    def sans(self) -> list[str]:
        if self.service is not None:
            ns, name, _ = self.service
            return [f"{name}.{ns}.svc", f"{name}.{ns}.svc.cluster.local", name]
        return [self.url_host or "127.0.0.1", "localhost"]


class NoWebhookServer:
    """The webhook is disabled: Kopf needs a server for its registered handler; this one never serves."""

    async def __call__(self, fn: Any) -> AsyncIterator[Any]:
        await asyncio.Event().wait()
        yield  # pragma: no cover - never reached: an async generator that waits forever


def setup(settings: kopf.OperatorSettings, kube: Any, config: WebhookConfig) -> WebhookCerts | None:
    """Serve the webhook through Kopf and apply its (scoped) MutatingWebhookConfiguration."""
    if not config.port:
        settings.admission.server = cast(Any, NoWebhookServer())
        settings.admission.managed = None
        return None
    if config.url_host is None and config.service is None:
        raise ValueError("the webhook needs PROCTOR_WEBHOOK_URL_HOST or PROCTOR_WEBHOOK_SERVICE")
    certs = ensure_certs(config.cert_dir, config.sans())
    settings.admission.server = kopf.WebhookServer(
        addr=config.addr,
        port=config.port,
        host=config.url_host,
        certfile=str(certs.certfile),
        pkeyfile=str(certs.keyfile),
    )
    settings.admission.managed = None
    url = f"https://{config.url_host}:{config.port}" if config.url_host else None
    body = mutating_webhook_configuration(
        certs.ca_pem,
        url=url,
        service=config.service,
        exclude_namespaces=config.exclude,
        failure_policy=config.failure_policy,
        name=config.name,
    )
    kube.apply_webhook_configuration(body, "proctor-operator")
    log.info("admission webhook ready", url=url, service=config.service, failure_policy=config.failure_policy)
    return certs


@kopf.index("proctor.dev", "v1alpha1", "gatepolicies", id="gate_modes")
def gate_modes(
    namespace: str | None, name: str, spec: kopf.Spec, status: kopf.Status, **_: Any
) -> dict[Any, str]:
    """Each policy's effective enforcement, known before any request comes (no API call per request)."""
    mode = status.get("effectiveEnforcement") or "Observe"
    if spec.get("enforcement") == "Observe":
        mode = "Observe"
    return {(namespace, name): mode}


@kopf.on.mutate("apps", "v1", "deployments", id=WEBHOOK_HANDLER_ID)
def gate_deployment(body: kopf.Body, patch: kopf.Patch, warnings: list[str], **kwargs: Any) -> None:
    """Pause a gated Deployment whose pod template is not the approved one (enforcing policies);
    record it for an exam without pausing (observing ones). An unknown policy holds: fail closed."""
    gate_modes: kopf.Index[Any, str] = kwargs["gate_modes"]
    obj = cast(Mapping[str, Any], body)
    meta = obj.get("metadata") or {}
    policy = (meta.get("labels") or {}).get(GATE_LABEL)
    modes = list(gate_modes.get((meta.get("namespace"), policy), []))
    enforcing = not modes or modes[0] != "Observe"
    decision = admit(obj, enforcing=enforcing)
    if not decision.changes:
        return
    if decision.pause:
        patch.spec["paused"] = True
    annotations = patch.metadata.setdefault("annotations", {})
    annotations[PENDING_ANNOTATION] = decision.pending_hash
    annotations[PENDING_SINCE_ANNOTATION] = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    warnings.append(
        decision.message if modes else f"{decision.message} (GatePolicy {policy} not found: held)"
    )

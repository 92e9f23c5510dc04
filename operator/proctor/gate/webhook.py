"""The admission webhook's settings: where it listens, how the API server reaches it, its certificates.

The webhook is served on a thread of its own (:mod:`proctor.gate.server`, started by
:mod:`proctor.gate.setup`); what it decides is :func:`proctor.gate.admission.admit`.

Configuration (environment; the Helm chart sets it):

- ``PROCTOR_WEBHOOK_PORT``: where to serve (0, the default outside a cluster, disables the webhook).
- ``PROCTOR_WEBHOOK_ADDR``: the listen address (default ``0.0.0.0`` in a pod, ``127.0.0.1`` elsewhere).
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

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.gate.admission import (
    GATE_LABEL,
    Admission,
    GateEntry,
    admit,
    break_glass_attributes,
    labels_of,
    request_of,
    wants_break_glass,
)
from proctor.gate.pods import POD_MAKERS, Gated, adds_pods, admit_pod, admit_replicaset
from proctor.k8s.kube import Kube, KubeError, default_listen_host
from proctor.k8s.objects import mutating_webhook_configuration


@dataclass(frozen=True)
class WebhookConfig:
    port: int = 0
    addr: str = "127.0.0.1"
    url_host: str | None = None
    service: tuple[str, str, int] | None = None
    cert_dir: Path = Path(tempfile.gettempdir()) / "proctor-webhook"
    exclude: tuple[str, ...] = ("kube-system",)
    failure_policy: str = "Fail"
    name: str = "proctor-gate"
    #: the namespaces the operator watches (empty: all); only they are intercepted
    namespaces: tuple[str, ...] = ()

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, *, namespaces: Sequence[str] = ()
    ) -> WebhookConfig:
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
            addr=e.get("PROCTOR_WEBHOOK_ADDR") or default_listen_host(e),
            url_host=e.get("PROCTOR_WEBHOOK_URL_HOST"),
            service=service,
            cert_dir=Path(e.get("PROCTOR_WEBHOOK_CERT_DIR", str(cls.cert_dir))),
            exclude=tuple(dict.fromkeys(exclude)),
            failure_policy=e.get("PROCTOR_WEBHOOK_FAILURE_POLICY", "Fail"),
            name=e.get("PROCTOR_WEBHOOK_CONFIGURATION", "proctor-gate"),
            namespaces=tuple(namespaces),
        )

    def sans(self) -> list[str]:
        if self.service is not None:
            ns, name, _ = self.service
            return [f"{name}.{ns}.svc", f"{name}.{ns}.svc.cluster.local", name]
        return [self.url_host or "127.0.0.1", "localhost"]

    @property
    def url(self) -> str | None:
        """The URL the API server calls (``None``: through the Service)."""
        return f"https://{self.url_host}:{self.port}" if self.url_host else None

    def configuration(self, ca_pem: bytes) -> dict[str, Any]:
        """The MutatingWebhookConfiguration the operator applies at startup (the chart's is the same)."""
        return mutating_webhook_configuration(
            ca_pem,
            url=self.url,
            service=self.service,
            exclude_namespaces=self.exclude,
            only_namespaces=self.namespaces,
            failure_policy=self.failure_policy,
            name=self.name,
        )

    def check(self) -> None:
        if self.port and self.url_host is None and self.service is None:
            raise ValueError("the webhook needs PROCTOR_WEBHOOK_URL_HOST or PROCTOR_WEBHOOK_SERVICE")


def review(
    kube: Kube,
    new: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    userinfo: Mapping[str, Any],
    *,
    operator: str | None,
    entries: Callable[[str | None, str | None], Sequence[GateEntry]],
) -> Admission:
    """The webhook's answer to one request (:func:`proctor.gate.admission.admit`), with the one API
    call a decision may need: the SubjectAccessReview of a break-glass (only when a request sets a
    new break-glass reason; a failed review refuses it)."""
    req = request_of(new, old, str(userinfo.get("username", "")), operator=operator, entries=entries)
    may: bool | None = None
    if not req.by_operator and (req.gated_old or req.gated_new) and wants_break_glass(old, new):
        ns = str(((new.get("metadata") or {}).get("namespace")) or "")
        try:
            may = kube.allowed(userinfo, break_glass_attributes(ns, req.policy))
        except KubeError:
            may = False
    return admit(req, may_break_glass=may)


def gated_deployments(
    kube: Kube, namespace: str, entries: Callable[[str | None, str | None], Sequence[GateEntry]]
) -> list[Gated]:
    """The namespace's gated Deployments (labelled, and selected by their policy), as they are stored."""
    found = kube.list_deployments(namespace, GATE_LABEL)
    out = [Gated.of(d, entries(namespace, labels_of(d).get(GATE_LABEL))) for d in found]
    return [g for g in out if g is not None]


def review_workload(
    kube: Kube,
    *,
    resource: str,
    sub_resource: str,
    namespace: str,
    new: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    user: str,
    entries: Callable[[str | None, str | None], Sequence[GateEntry]],
) -> Admission:
    """The webhook's answer for what makes a gated workload's pods (:mod:`proctor.gate.pods`): a
    ReplicaSet written or scaled (its scale carries no template: the stored ReplicaSet's is read), or a
    Pod created. It reads the namespace's gated Deployments (and a ReplicaSet); a failed read raises,
    and the server refuses (fail closed)."""
    if resource == "replicasets":
        if not adds_pods(new, old):
            return Admission(message="no pod added")
        rs = new
        if sub_resource == "scale":
            stored = kube.get_replicaset(namespace, str((new.get("metadata") or {}).get("name") or ""))
            if stored is None:  # the API server answers the scale itself: not found
                return Admission(message="no such ReplicaSet")
            rs = stored
        deployments = gated_deployments(kube, namespace, entries)
        return admit_replicaset(rs, deployments)
    if resource == "pods" and not sub_resource:
        deployments = gated_deployments(kube, namespace, entries)
        if not any(d.enforcing for d in deployments):
            return Admission(message="no gated workload here")
        owner = None
        if user in POD_MAKERS:
            refs = (new.get("metadata") or {}).get("ownerReferences") or []
            ref = next((o for o in refs if o.get("kind") == "ReplicaSet" and o.get("controller")), None)
            if ref is not None:
                owner = kube.get_replicaset(namespace, str(ref.get("name") or ""))
        return admit_pod(new, user, deployments, owner=owner)
    return Admission(message="not a workload's pods")

"""The collector in a cluster: AgentMonitors, their EvalProfiles and token Secrets, read from the
API server (a periodic list: a collector serves a handful of monitors; no watch is needed to be
right within seconds).

Secrets are read at run time and kept in memory only: a monitor's ``spec.tokenSecretRef`` (the
token its agents send) and its profile's ``judge.apiKeySecretRef`` (the judge's API key). In a
cluster every monitor needs its own ingestion token: there is no collector-wide token, so one
tenant's token never reaches another tenant's monitor of the same ``service.name``. A monitor
without ``tokenSecretRef``, or whose Secret cannot be read, is closed (nothing is accepted for it),
with the reason on the monitor (the summary's ``ingestionClosed``, which the operator writes as
``Receiving=False NoIngestionToken``) and in the log, never the token.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Final, cast

import structlog
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from proctor.api import (
    GROUP,
    VERSION,
    AgentMonitor,
    EvalProfile,
    ManifestError,
    SecretKeyRef,
    parse_monitor,
    parse_profile,
)
from proctor.collector.monitors import Registry, build

log = structlog.get_logger("proctor.collector.cluster")


class ClusterMonitors:
    """Lists AgentMonitors (every namespace, or ``namespaces``) into a :class:`Registry`."""

    def __init__(self, api: client.ApiClient, *, namespaces: list[str] | None = None) -> None:
        self._custom = client.CustomObjectsApi(api)
        self._core = client.CoreV1Api(api)
        self._namespaces = namespaces

    def _list(self, plural: str) -> list[dict[str, Any]]:
        if self._namespaces:
            items: list[dict[str, Any]] = []
            for ns in self._namespaces:
                reply = cast(
                    dict[str, Any], self._custom.list_namespaced_custom_object(GROUP, VERSION, ns, plural)
                )
                items += reply.get("items") or []
            return items
        reply = cast(dict[str, Any], self._custom.list_cluster_custom_object(GROUP, VERSION, plural))
        return list(reply.get("items") or [])

    def _secret(self, namespace: str, ref: SecretKeyRef) -> str | None:
        value = self._read_secret(namespace, ref)
        return value if not isinstance(value, _Unread) else None

    def _read_secret(self, namespace: str, ref: SecretKeyRef) -> str | _Unread:
        try:
            secret = self._core.read_namespaced_secret(ref.name, namespace)
        except ApiException as e:
            log.warning("cannot read Secret", namespace=namespace, secret=ref.name, status=e.status)
            return _Unread(f"the collector cannot read Secret {ref.name!r} ({e.status} {e.reason})")
        raw = (secret.data or {}).get(ref.key)
        if raw is None:
            log.warning("Secret has no such key", namespace=namespace, secret=ref.name, key=ref.key)
            return _Unread(f"Secret {ref.name!r} has no key {ref.key!r}")
        try:
            value = base64.b64decode(raw).decode("utf-8").strip()
        except ValueError:
            return _Unread(f"Secret {ref.name!r} key {ref.key!r} is not UTF-8 text")
        return value or _Unread(f"Secret {ref.name!r} key {ref.key!r} is empty")

    def load(self) -> Registry:
        """The monitors as the API server has them now (raises the client's errors when it is down)."""
        monitors: list[AgentMonitor] = []
        for raw in self._list("agentmonitors"):
            try:
                monitors.append(parse_monitor(raw))
            except ManifestError as e:
                log.warning("skipping an invalid AgentMonitor", problems=e.problems[:3])
        profiles: list[EvalProfile] = []
        for raw in self._list("evalprofiles"):
            try:
                profiles.append(parse_profile(raw))
            except ManifestError as e:
                log.warning("skipping an invalid EvalProfile", problems=e.problems[:3])
        tokens: dict[str, str] = {}
        judge_keys: dict[str, str] = {}
        closed: dict[str, str] = {}
        sink_secrets: dict[str, dict[str, str]] = {}
        by_name = {f"{p.metadata.namespace}/{p.metadata.name}": p for p in profiles}
        for m in monitors:
            ns = m.metadata.namespace or "default"
            name = f"{ns}/{m.metadata.name}"
            if m.spec.token_secret_ref is None:
                closed[name] = NO_TOKEN_REF
            else:
                token = self._read_secret(ns, m.spec.token_secret_ref)
                if isinstance(token, _Unread):
                    closed[name] = f"{token.reason}: the collector accepts nothing for this monitor"
                else:
                    tokens[name] = token
            for (
                sink
            ) in m.spec.notices.sinks:  # webhook signing keys (unreadable: the sink fails, unsigned never)
                if sink.signing_secret_ref is not None:
                    key = self._secret(ns, sink.signing_secret_ref)
                    if key:
                        sink_secrets.setdefault(name, {})[sink.name] = key
            profile = by_name.get(f"{ns}/{m.spec.profile_ref.name}")
            judge = profile.spec.judge if profile else None
            if judge is not None and judge.api_key_secret_ref is not None:
                key = self._secret(ns, judge.api_key_secret_ref)
                if key:
                    judge_keys[name] = key
        return build(
            monitors,
            profiles,
            default_token=None,
            tokens=tokens,
            judge_keys=judge_keys,
            closed=closed,
            sink_secrets=sink_secrets,
        )


#: Why a monitor without ``spec.tokenSecretRef`` is closed in a cluster.
NO_TOKEN_REF: Final = (
    "spec.tokenSecretRef is not set: in a cluster every AgentMonitor needs its own ingestion token "
    "(a Secret in its namespace), so the collector accepts nothing for this monitor"
)


@dataclass(frozen=True)
class _Unread:
    """Why a Secret's value could not be had (never the value)."""

    reason: str

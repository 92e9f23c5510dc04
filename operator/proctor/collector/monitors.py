"""Which AgentMonitors the collector serves, how spans find their run, and who may send them.

A :class:`Registry` is an immutable snapshot: the monitors (from ``--monitor``/``--profile`` files,
or listed from the cluster), each with its EvalProfile and the ingestion token that its spans must
carry. Tenants are kept apart by that token: a span reaches only a monitor whose token it carries
(in a cluster each monitor has its own, from its ``spec.tokenSecretRef``; a monitor without one
accepts nothing), so a monitor in another namespace watching the same ``service.name`` receives
nothing. Among those, it belongs to the monitor whose ``spec.agent.serviceName`` is its resource's
``service.name`` (and ``spec.agent.version`` its ``service.version``, when set); its run is the
first run-key attribute it carries (span attributes, then resource attributes; ``trace_id`` is the
span's trace id). The agent's revision is ``service.version``, with the pod-template hash appended
when an OpenTelemetry Collector added ``k8s.*`` attributes, so a canary's runs are told apart.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from proctor.api import (
    TRACE_ID_KEY,
    AgentMonitor,
    EvalProfile,
    ManifestError,
    iter_kind,
    load_manifests,
)
from proctor.protocol import LifecyclePolicy
from proctor.store import RunRef

#: Namespace of monitors read from files without one.
DEFAULT_NAMESPACE: Final = "default"
#: The label the ReplicaSet controller puts on a Deployment's pods (the revision of the template).
POD_TEMPLATE_HASH_KEYS: Final = ("k8s.pod.labels.pod-template-hash", "k8s.pod.label.pod-template-hash")


class _Secret(str):
    """A token: compared, never shown."""

    def __repr__(self) -> str:
        return "'[REDACTED]'"


@dataclass(frozen=True)
class Monitor:
    """One AgentMonitor as the collector uses it."""

    name: str  # namespace/name
    resource: AgentMonitor
    profile: EvalProfile | None
    token: str | None = field(default=None, repr=False)
    judge_api_key: str | None = field(default=None, repr=False)
    #: webhook sinks' signing keys by sink name (read from their signingSecretRef; never shown)
    sink_secrets: Mapping[str, str] = field(default_factory=dict, repr=False)
    problem: str | None = None  # why its runs cannot be judged (a missing profile...)
    closed: str | None = None  # why nothing is accepted for it (no ingestion token of its own...)

    @property
    def namespace(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def service_name(self) -> str:
        return self.resource.spec.agent.service_name

    @property
    def policy(self) -> LifecyclePolicy:
        spec = self.resource.spec
        return LifecyclePolicy(quiescence_seconds=float(spec.quiescence_seconds), sampling=spec.sampling)

    def accepts(self, resource: Mapping[str, Any]) -> bool:
        version = self.resource.spec.agent.version
        return version is None or str(resource.get("service.version", "")) == version

    def run_of(
        self,
        trace_id: str,
        attributes: Mapping[str, Any],
        resource: Mapping[str, Any],
        revision: Any = ...,
    ) -> RunRef | None:
        """The run a span (or event) belongs to under this monitor; None when it carries no run key.
        ``revision`` is :func:`revision_of` the resource, when the caller computed it already."""
        for key in self.resource.spec.run_key:
            if key == TRACE_ID_KEY:
                value: Any = trace_id or None
            else:
                value = attributes.get(key)
                if value in (None, ""):
                    value = resource.get(key)
            if value not in (None, ""):
                return RunRef(
                    monitor=self.name,
                    key=str(value)[:512],
                    key_source=key,
                    agent=self.service_name,
                    revision=revision_of(resource) if revision is ... else revision,
                )
        return None


def revision_of(resource: Mapping[str, Any]) -> str | None:
    """``service.version``, plus ``@<pod-template-hash>`` when the pod's template hash is known
    (a label copied by the OpenTelemetry Collector, or the suffix of ``k8s.replicaset.name``)."""
    version = resource.get("service.version")
    template = next((str(resource[k]) for k in POD_TEMPLATE_HASH_KEYS if resource.get(k)), None)
    if template is None and resource.get("k8s.replicaset.name") and resource.get("k8s.deployment.name"):
        rs, deploy = str(resource["k8s.replicaset.name"]), str(resource["k8s.deployment.name"])
        if rs.startswith(deploy + "-"):
            template = rs[len(deploy) + 1 :]
    parts = [str(version)[:200] if version not in (None, "") else None, template[:40] if template else None]
    if parts == [None, None]:
        return None
    if parts[1] is None:
        return parts[0]
    return f"{parts[0]}@{parts[1]}" if parts[0] else f"@{parts[1]}"


@dataclass(frozen=True)
class Registry:
    """A snapshot of the monitors served."""

    monitors: Mapping[str, Monitor]
    default_token: str | None = field(default=None, repr=False)

    def for_resource(self, resource: Mapping[str, Any], allowed: frozenset[str] | None) -> Monitor | None:
        """The monitor of a span's resource among ``allowed`` (None: any)."""
        service = str(resource.get("service.name", ""))
        for mon in self.monitors.values():
            if (
                mon.service_name == service
                and mon.accepts(resource)
                and (allowed is None or mon.name in allowed)
            ):
                return mon
        return None

    def get(self, name: str) -> Monitor | None:
        return self.monitors.get(name)

    def policies(self) -> dict[str, LifecyclePolicy]:
        return {name: m.policy for name, m in self.monitors.items()}

    def ingest_grant(self, token: str | None) -> frozenset[str]:
        """The monitors a bearer token may send telemetry for (empty: none; the token is wrong).

        A monitor with its own token (``spec.tokenSecretRef``) takes only that token; without one,
        the collector's token (``PROCTOR_TOKEN``) when it runs from files, nothing in a cluster
        (there is no default token there). A closed monitor takes nothing. Every monitor's token is
        compared, in constant time, so the answer's timing does not say which one matched.
        """
        if not token:
            return frozenset()
        granted = set()
        for mon in self.monitors.values():
            if mon.closed:
                continue
            expected = mon.token if mon.token is not None else self.default_token
            if expected and hmac.compare_digest(token.encode(), expected.encode()):
                granted.add(mon.name)
        return frozenset(granted)


def _name(obj: AgentMonitor | EvalProfile) -> str:
    return f"{obj.metadata.namespace or DEFAULT_NAMESPACE}/{obj.metadata.name}"


def build(
    monitors: Iterable[AgentMonitor],
    profiles: Iterable[EvalProfile],
    *,
    default_token: str | None,
    tokens: Mapping[str, str] | None = None,
    judge_keys: Mapping[str, str] | None = None,
    closed: Mapping[str, str] | None = None,
    sink_secrets: Mapping[str, Mapping[str, str]] | None = None,
) -> Registry:
    """A registry from parsed objects; ``tokens``, ``judge_keys`` and ``closed`` (why a monitor
    accepts nothing) are by monitor name."""
    by_name = {_name(p): p for p in profiles}
    out: dict[str, Monitor] = {}
    for m in monitors:
        name = _name(m)
        ns = m.metadata.namespace or DEFAULT_NAMESPACE
        profile = by_name.get(f"{ns}/{m.spec.profile_ref.name}")
        problem = None if profile is not None else f"EvalProfile {ns}/{m.spec.profile_ref.name} not found"
        out[name] = Monitor(
            name=name,
            resource=m,
            profile=profile,
            token=_Secret(tokens[name]) if tokens and name in tokens else None,
            judge_api_key=_Secret(judge_keys[name]) if judge_keys and name in judge_keys else None,
            problem=problem,
            closed=(closed or {}).get(name),
            sink_secrets={k: _Secret(v) for k, v in (sink_secrets or {}).get(name, {}).items()},
        )
    return Registry(out, _Secret(default_token) if default_token else None)


def load_files(
    paths: Iterable[Path], *, default_token: str | None, webhook_secret: str | None = None
) -> Registry:
    """A registry from YAML files holding AgentMonitors and EvalProfiles (``--monitor``, ``--profile``).

    Raises :class:`~proctor.api.ManifestError` naming every problem; a monitor whose profile is
    missing is an error here (a file a person just wrote).
    """
    resources = []
    problems: list[str] = []
    for path in paths:
        try:
            resources += load_manifests(
                path.read_text(encoding="utf-8"), source=str(path), ignore_other_kinds=True
            )
        except OSError as e:
            problems.append(f"{path}: {e.strerror}")
        except ManifestError as e:
            problems += e.problems
    if problems:
        raise ManifestError(problems)
    mons = iter_kind(resources, AgentMonitor)
    if not mons:
        raise ManifestError(["no AgentMonitor in the given files"])
    # without a cluster, every webhook sink with a signingSecretRef signs with PROCTOR_WEBHOOK_SECRET
    secrets = {
        _name(m): {s.name: webhook_secret for s in m.spec.notices.sinks if s.signing_secret_ref is not None}
        for m in mons
        if webhook_secret
    }
    registry = build(
        mons, iter_kind(resources, EvalProfile), default_token=default_token, sink_secrets=secrets
    )
    missing = [m.problem for m in registry.monitors.values() if m.problem]
    if missing:
        raise ManifestError([f"{p} (give it with --profile)" for p in missing if p])
    agents = [(m.service_name, m.resource.spec.agent.version) for m in registry.monitors.values()]
    twice = sorted({a for a in agents if agents.count(a) > 1}, key=str)
    if twice:
        raise ManifestError(
            [
                f"two AgentMonitors watch service.name {s!r}{f' version {v!r}' if v else ''}: keep one"
                for s, v in twice
            ]
        )
    return registry

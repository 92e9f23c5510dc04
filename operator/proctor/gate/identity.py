"""What an approval covers: the *identity* of a gated workload, as one content-addressed digest.

A pod template alone does not decide what an agent does: the ConfigMaps it reads (``env``
``valueFrom``, ``envFrom``, volumes, projected sources) change its behaviour without any change of
the template, and the cases and the policy decide what its exam measured. So the approval is of

- the pod template,
- the content (``data`` and ``binaryData``) of every ConfigMap the template references, absent
  ones included as absent,
- the names of the Secrets it references (bound by name: the operator never reads a Secret, not
  even its metadata; a policy declares the Secrets its workloads may use, any other is refused),
- the digest of the cases the exam was given, and the policy (uid, generation) and profile
  (name, generation) that decided it.

A change of any of them is a new identity, which is examined before it is approved. The reconciler
computes it (:func:`approval_identity`, pure: plain data in, a digest out) and records it on the
Deployment; the admission webhook (which reads nothing) compares the recorded digests
(:func:`proctor.gate.admission.content_unapproved`).

Who can change what: the tenant edits ConfigMaps and Deployments, so each of those is an input;
the operator owns the verdict, so the exam's name carries the identity and what was read to compute
it (:func:`observed_digest`: the ConfigMaps' resourceVersions), and a PASS on other content is
never found under it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Bumped when the inputs or their encoding change (every earlier approval is then re-examined).
IDENTITY_VERSION = 1


def _spec(template: Mapping[str, Any] | None) -> Mapping[str, Any]:
    template = template or {}
    spec = template.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _containers(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for key in ("initContainers", "containers", "ephemeralContainers"):
        out.extend(c for c in spec.get(key) or () if isinstance(c, Mapping))
    return out


@dataclass(frozen=True, slots=True)
class References:
    """The ConfigMaps and Secrets a pod template names, each with where (for messages)."""

    config_maps: Mapping[str, str] = field(default_factory=dict)
    secrets: Mapping[str, str] = field(default_factory=dict)


def references(template: Mapping[str, Any] | None) -> References:
    """Every ConfigMap and Secret ``template`` references: containers' (init, ephemeral too) ``env``
    ``valueFrom`` and ``envFrom``, volumes (``configMap``, ``secret``, ``projected`` sources) and
    ``imagePullSecrets``."""
    spec = _spec(template)
    cms: dict[str, str] = {}
    secrets: dict[str, str] = {}

    def put(into: dict[str, str], name: Any, where: str) -> None:
        if isinstance(name, str) and name:
            into.setdefault(name, where)

    for c in _containers(spec):
        where = f"container {c.get('name')}"
        for env in c.get("env") or ():
            source = (env or {}).get("valueFrom") or {}
            put(cms, (source.get("configMapKeyRef") or {}).get("name"), f"{where} env {env.get('name')}")
            put(secrets, (source.get("secretKeyRef") or {}).get("name"), f"{where} env {env.get('name')}")
        for env in c.get("envFrom") or ():
            put(cms, ((env or {}).get("configMapRef") or {}).get("name"), f"{where} envFrom")
            put(secrets, ((env or {}).get("secretRef") or {}).get("name"), f"{where} envFrom")
    for v in spec.get("volumes") or ():
        where = f"volume {(v or {}).get('name')}"
        put(cms, ((v or {}).get("configMap") or {}).get("name"), where)
        put(secrets, ((v or {}).get("secret") or {}).get("secretName"), where)
        for s in ((v or {}).get("projected") or {}).get("sources") or ():
            put(cms, ((s or {}).get("configMap") or {}).get("name"), where)
            put(secrets, ((s or {}).get("secret") or {}).get("name"), where)
    for ref in spec.get("imagePullSecrets") or ():
        put(secrets, (ref or {}).get("name"), "imagePullSecrets")
    return References(cms, secrets)


def undeclared_secrets(refs: References, declared: Iterable[str]) -> list[str]:
    """The Secrets a template references that the policy does not declare, each with where: a Secret's
    content is bound only by its name (the operator never reads Secrets), so the policy must say which
    names its workloads may depend on."""
    allowed = set(declared)
    return [f"Secret {name} ({where})" for name, where in sorted(refs.secrets.items()) if name not in allowed]


@dataclass(frozen=True, slots=True)
class ConfigMapContent:
    """What a ConfigMap holds, as far as a pod sees it (``None`` when it does not exist), and the
    version it was read at (not part of the identity: the same content is the same identity)."""

    data: Mapping[str, str] | None
    binary_data: Mapping[str, str] | None = None
    resource_version: str = ""

    @classmethod
    def of(cls, obj: Mapping[str, Any] | None) -> ConfigMapContent:
        if obj is None:
            return cls(None)
        meta = obj.get("metadata") or {}
        return cls(
            dict(obj.get("data") or {}),
            dict(obj.get("binaryData") or {}),
            str(meta.get("resourceVersion") or ""),
        )

    def canonical(self) -> Any:
        if self.data is None:
            return None
        return {"data": dict(self.data), "binaryData": dict(self.binary_data or {})}


@dataclass(frozen=True, slots=True)
class ExamContext:
    """What besides the workload decides an exam: the cases (their digest) and who judged them."""

    case_digest: str
    policy_uid: str
    policy_generation: int
    profile: str | None = None
    profile_generation: int | None = None


def _digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def approval_identity(
    template: Mapping[str, Any] | None,
    config_maps: Mapping[str, ConfigMapContent],
    context: ExamContext,
) -> str:
    """The digest of everything an approval covers (see the module's docstring). ``config_maps`` holds
    the content of each ConfigMap the template references (:func:`references`); one it lacks counts as
    absent, one it has beyond those is ignored."""
    refs = references(template)
    return _digest(
        {
            "v": IDENTITY_VERSION,
            "template": dict(template or {}),
            "configMaps": {
                name: (config_maps[name].canonical() if name in config_maps else None)
                for name in sorted(refs.config_maps)
            },
            "secrets": sorted(refs.secrets),
            "cases": context.case_digest,
            "policy": [context.policy_uid, context.policy_generation],
            "profile": [context.profile, context.profile_generation],
        }
    )


def observed_digest(config_maps: Mapping[str, ConfigMapContent], extra: Sequence[str] = ()) -> str:
    """The versions the identity was read at: a write (even one back to the same content) is a new
    exam, so an exam whose inputs changed while it ran is never found again under the current name."""
    return _digest(
        {"configMaps": {n: c.resource_version for n, c in sorted(config_maps.items())}, "x": list(extra)}
    )


def case_versions(
    caseset: Mapping[str, Any], config_maps: Iterable[Mapping[str, Any]] = ()
) -> tuple[str, ...]:
    """The versions the cases were read at, for :func:`observed_digest`: the CaseSet's generation and
    the resourceVersion of each ``casesFrom`` ConfigMap (a write to any is another exam)."""
    out = [f"caseset={(caseset.get('metadata') or {}).get('generation')}"]
    for cm in config_maps:
        meta = cm.get("metadata") or {}
        out.append(f"{meta.get('name')}={meta.get('resourceVersion')}")
    return tuple(out)


def tier_floor_problems(counts: Mapping[str, int], minimums: Mapping[str, int]) -> list[str]:
    """Tiers with fewer cases than the policy requires (``spec.minCases``), in words."""
    return [
        f"{tier}: {counts.get(tier, 0)} case(s), the policy requires at least {need}"
        for tier, need in minimums.items()
        if need > 0 and counts.get(tier, 0) < need
    ]

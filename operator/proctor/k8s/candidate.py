"""The candidate's pod template as the exam runs it: whole, as production would, or refused.

The candidate must not be able to tell it is examined (it would behave for the exam). What it can
observe of its pod is its environment, its files and what the downward API tells it; so in the judge
pod:

- every container and init container of the template runs (as native sidecars / init containers of
  the judge pod, in the template's order), with the volumes they mount (renamed, so no mount can name
  the judge's own volume);
- each downward-API ``fieldRef`` of the pod's identity resolves to the production value: the
  template's labels and annotations, its ServiceAccount name, the pod's name as its hostname. They are
  written as literal values; the judge pod itself carries none of the template's labels, so the
  candidate's Service never selects an exam pod and no production traffic reaches it;
- ``enableServiceLinks`` is the template's (the Service environment variables production pods get).

What the exam cannot reproduce refuses the template with the reason (:func:`exam_problems`), never a
silent drop: host namespaces, host aliases and DNS settings (they would redirect the judge's own
connections), volume types other than ConfigMap, Secret, emptyDir, downward API and projected
sources of those, a projected ServiceAccount token, and downward-API *files* of the pod's labels,
annotations or name (a file cannot be given a literal value). Pure: dicts in, dicts out.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: Prefix of the candidate's volumes in the judge pod (the judge's own volume cannot be named).
VOLUME_PREFIX = "candidate-"
#: Volume sources the exam reproduces as they are.
_VOLUME_TYPES = frozenset({"configMap", "secret", "emptyDir", "downwardAPI", "projected"})
_PROJECTED_TYPES = frozenset({"configMap", "secret", "downwardAPI"})
#: Downward-API fields that name the pod itself; a file of them would show the judge pod's.
_POD_IDENTITY_FIELDS = ("metadata.labels", "metadata.annotations", "metadata.name")
_FIELD_KEY = re.compile(r"^metadata\.(labels|annotations)\['(.+)'\]$")
#: Pod fields that would change the judge's own network or namespaces: refused, never carried.
_REFUSED_POD_FIELDS = ("hostNetwork", "hostPID", "hostIPC", "hostUsers", "hostAliases", "dnsConfig")


def _spec(template: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = template.get("spec", template)
    return spec if isinstance(spec, Mapping) else {}


def _volume_type(volume: Mapping[str, Any]) -> str:
    return next((k for k in volume if k != "name"), "?")


def exam_problems(template: Mapping[str, Any] | None, *, run_key_secret: str | None = None) -> list[str]:
    """Why the exam cannot run ``template`` as production would (empty: it can), one reason per part."""
    spec = _spec(template or {})
    problems: list[str] = []
    for f in _REFUSED_POD_FIELDS:
        if spec.get(f) not in (None, False, [], {}) and not (f == "hostUsers" and spec.get(f) is True):
            problems.append(f"spec.{f}: the exam pod cannot take it (it would apply to the judge too)")
    if spec.get("dnsPolicy") not in (None, "ClusterFirst"):
        problems.append(f"spec.dnsPolicy {spec.get('dnsPolicy')}: the exam pod uses ClusterFirst")
    if spec.get("ephemeralContainers"):
        problems.append("spec.ephemeralContainers: not part of a template the exam runs")
    for v in spec.get("volumes") or ():
        where = f"spec.volumes[{v.get('name')}]"
        kind = _volume_type(v)
        if kind not in _VOLUME_TYPES:
            problems.append(f"{where}: a {kind} volume cannot be reproduced in the exam pod")
            continue
        if (
            kind == "secret"
            and run_key_secret
            and (v.get("secret") or {}).get("secretName") == run_key_secret
        ):
            problems.append(f"{where}: names the run's key")
        sources = (v.get("projected") or {}).get("sources") or () if kind == "projected" else ()
        for s in sources:
            skind = _volume_type(s)
            if skind not in _PROJECTED_TYPES:
                problems.append(
                    f"{where}: a projected {skind} cannot be reproduced in the exam pod (it would be the "
                    "judge's, not the workload's)"
                )
            if skind == "secret" and run_key_secret and (s.get("secret") or {}).get("name") == run_key_secret:
                problems.append(f"{where}: names the run's key")
        items = list(((v.get("downwardAPI") or {}).get("items") or ()) if kind == "downwardAPI" else ())
        items += [i for s in sources for i in ((s.get("downwardAPI") or {}).get("items") or ())]
        for item in items:
            path = ((item or {}).get("fieldRef") or {}).get("fieldPath", "")
            if any(path == f or path.startswith(f + "[") for f in _POD_IDENTITY_FIELDS):
                problems.append(
                    f"{where}: a downward-API file of {path} would show the exam pod's, not production's"
                )
    declared = {v.get("name") for v in spec.get("volumes") or ()}
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or ():
            for m in c.get("volumeMounts") or ():
                if m.get("name") not in declared:
                    problems.append(
                        f"spec.{key}[{c.get('name')}].volumeMounts[{m.get('name')}]: mounts a volume the "
                        "template does not declare"
                    )
            if c.get("volumeDevices"):
                problems.append(
                    f"spec.{key}[{c.get('name')}].volumeDevices: a block device cannot be reproduced"
                )
    return problems


def _literal(path: str, template: Mapping[str, Any], hostname: str | None) -> str | None:
    """The production value of a downward-API field of the pod's identity (``None``: not one)."""
    meta = template.get("metadata") or {}
    if m := _FIELD_KEY.match(path):
        return str((meta.get(m.group(1)) or {}).get(m.group(2), ""))
    if path in ("spec.serviceAccountName", "spec.serviceAccount"):
        spec = _spec(template)
        return str(spec.get("serviceAccountName") or spec.get("serviceAccount") or "default")
    if path == "metadata.name" and hostname:
        return hostname
    return None


def production_env(
    env: Sequence[Mapping[str, Any]],
    template: Mapping[str, Any],
    *,
    hostname: str | None,
    rename: Callable[[str], str],
) -> list[dict[str, Any]]:
    """A container's ``env`` with each downward-API field of the pod's identity as its production value
    (a literal), and ``resourceFieldRef.containerName`` following the container's name in the exam."""
    out: list[dict[str, Any]] = []
    for given in env:
        e: dict[str, Any] = copy.deepcopy(dict(given))
        source = e.get("valueFrom") or {}
        field = source.get("fieldRef") or {}
        if field and (value := _literal(str(field.get("fieldPath", "")), template, hostname)) is not None:
            e.pop("valueFrom")
            e["value"] = value
        resource = source.get("resourceFieldRef") or {}
        if resource.get("containerName"):
            resource["containerName"] = rename(resource["containerName"])
        out.append(e)
    return out


def candidate_volumes(template: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The template's volumes for the judge pod, renamed (:data:`VOLUME_PREFIX`); downward-API
    ``resourceFieldRef`` items follow the containers' names."""
    out = []
    for v in _spec(template).get("volumes") or ():
        v = copy.deepcopy(dict(v))
        v["name"] = volume_name(str(v.get("name", "")))
        out.append(v)
    return out


def volume_name(name: str) -> str:
    return f"{VOLUME_PREFIX}{name}"[:63]


def candidate_mounts(mounts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A container's ``volumeMounts``, naming the renamed volumes (never the judge's own)."""
    return [dict(copy.deepcopy(dict(m)), name=volume_name(str(m.get("name", "")))) for m in mounts]


#: The ReplicaSet controller's alphabet (no vowels, no 0/1/3: names that spell no words).
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _encode(number: int, length: int) -> str:
    return "".join(_ALPHABET[(number >> (5 * i)) % len(_ALPHABET)] for i in range(length))


def production_hostname(workload: str | None, template: Mapping[str, Any], salt: str) -> str | None:
    """A pod name of the shape a Deployment gives its pods (``<deployment>-<hash>-<5 chars>``), so the
    candidate's hostname does not name the judge; ``None`` without a workload name."""
    if not workload:
        return None
    canonical = json.dumps(template, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    stem = _encode(int(hashlib.sha256(canonical.encode()).hexdigest()[:20], 16), 10)
    suffix = _encode(int(hashlib.sha256(salt.encode()).hexdigest()[:12], 16), 5)
    return f"{workload.replace('.', '-')[: 63 - 17].rstrip('-')}-{stem}-{suffix}"

"""Shared building blocks of the four kinds: base models, references, time, provenance.

Conventions every model here follows:

- JSON names are camelCase (an alias generator), Python attributes snake_case; a model accepts
  either (``validate_by_name`` and ``validate_by_alias``, the successor of ``populate_by_name``) and
  dumps camelCase by default.
- Specs (and everything a person writes) reject unknown fields (``extra="forbid"``), so a typo
  fails a test or ``proctor grade`` instead of being silently dropped.
- Status models ignore unknown fields: the operator writes them, and a status written by a newer
  operator must still load in an older CLI.
- Every field has a description: it becomes the CRD's OpenAPI description, so ``kubectl explain``
  is useful. :mod:`proctor.api.crdgen` refuses to generate a CRD with an undocumented field.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime
from enum import Enum, StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer, field_validator
from pydantic.alias_generators import to_camel
from pydantic.config import JsonDict

from proctor.protocol.types import Verdict

GROUP: Final = "proctor.dev"
VERSION: Final = "v1alpha1"
API_VERSION: Final = "proctor.dev/v1alpha1"

#: The label that puts a Deployment under a GatePolicy: ``proctor.dev/gate-policy: <policy name>``.
GATE_POLICY_LABEL: Final = "proctor.dev/gate-policy"

# Annotations a person sets to ask the operator for something (a new value is a new request).
#: On a CaseSet: freeze its baseline from its most recent finished runs.
FREEZE_BASELINE_ANNOTATION: Final = "proctor.dev/freeze-baseline"
#: On a CaseSet, beside the freeze request: how many consecutive stable runs it needs.
FREEZE_BASELINE_RUNS_ANNOTATION: Final = "proctor.dev/freeze-baseline-runs"
#: On a GatePolicy: a person looked; close its circuit breaker.
RESET_CIRCUIT_BREAKER_ANNOTATION: Final = "proctor.dev/reset-circuit-breaker"
#: A new value on a gated Deployment asks for its exam again when it ended ERROR (anyone who may
#: update the Deployment may set it: it re-measures, it never approves).
REEXAMINE_ANNOTATION: Final = "proctor.dev/reexamine"
#: On a gated Deployment: roll this change out unexamined (or stop gating it), and why. Honoured only
#: for a caller the API server allows ``update`` on ``gatepolicies/breakglass`` of the policy
#: (a SubjectAccessReview); recorded on the Deployment and as Events on it and the policy.
BREAK_GLASS_ANNOTATION: Final = "proctor.dev/break-glass"

#: A DNS-1123 subdomain (the name of most Kubernetes objects).
DNS_SUBDOMAIN_PATTERN: Final = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
#: A ConfigMap or Secret data key.
DATA_KEY_PATTERN: Final = r"^[-._a-zA-Z0-9]+$"
#: A content digest: ``sha256:`` and 64 lower-case hex digits.
DIGEST_PATTERN: Final = r"^sha256:[0-9a-f]{64}$"
#: An http(s) URL.
URL_PATTERN: Final = r"^https?://[^\s]+$"


class VerdictName(StrEnum):
    """A verdict as written in status and printed by ``kubectl get``; its exit code is the pipeline's."""

    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"
    WARN = "WARN"

    @classmethod
    def of(cls, verdict: Verdict) -> VerdictName:
        """The name of a protocol verdict."""
        return cls(verdict.name)

    @property
    def verdict(self) -> Verdict:
        """The protocol verdict of this name."""
        return Verdict[self.value]

    @property
    def exit_code(self) -> int:
        """0 PASS, 1 FAIL, 2 ERROR, 3 WARN."""
        return int(self.verdict)


def _to_utc_seconds(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("a time must carry a time zone (RFC 3339, e.g. 2025-01-31T12:00:00Z)")
    return value.astimezone(UTC).replace(microsecond=0)


def utc_now() -> datetime:
    """The system clock in UTC (callers that decide take ``now`` as an argument; this is the default)."""
    return datetime.now(UTC)


def format_time(value: datetime) -> str:
    """RFC 3339 in UTC with second precision, as Kubernetes writes ``metav1.Time``."""
    return _to_utc_seconds(value).strftime("%Y-%m-%dT%H:%M:%SZ")


#: A point in time: timezone-aware, kept in UTC at second precision, serialised as RFC 3339 ``...Z``.
Time = Annotated[
    datetime,
    AfterValidator(_to_utc_seconds),
    PlainSerializer(format_time, return_type=str, when_used="json"),
]


def _camel_case(extra: Literal["forbid", "ignore"]) -> ConfigDict:
    """camelCase JSON names, Python names accepted too; ``extra`` says what unknown fields do."""
    return ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra=extra,
        # validators are built on first use: a command that reads one kind does not build them all
        defer_build=True,
    )


class SpecModel(BaseModel):
    """Base of everything a person writes: camelCase JSON names, unknown fields rejected."""

    model_config = _camel_case("forbid")


class StatusModel(BaseModel):
    """Base of everything the operator writes: camelCase JSON names, unknown fields ignored."""

    model_config = _camel_case("ignore")


def dump(model: BaseModel, *, only_set: bool = False) -> dict[str, Any]:
    """A model as the JSON-ready dict Kubernetes expects: camelCase names, ``None`` fields left out.

    ``only_set`` leaves out every field that was not given either (defaults included): what a
    writer applies with server-side apply, so it claims only the fields it means to set.
    """
    return model.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=only_set)


# --- references --------------------------------------------------------------------------------


#: The name of an object in the same namespace: a DNS-1123 subdomain.
ObjectName = Annotated[str, Field(min_length=1, max_length=253, pattern=DNS_SUBDOMAIN_PATTERN)]
#: A key of a ConfigMap's or a Secret's data.
DataKey = Annotated[str, Field(min_length=1, max_length=253, pattern=DATA_KEY_PATTERN)]


class LocalObjectReference(SpecModel):
    """A reference to an object of a known kind in the same namespace."""

    name: ObjectName = Field(description="Name of the referenced object, in the same namespace.")


class ConfigMapKeyRef(SpecModel):
    """One key of a ConfigMap in the same namespace."""

    name: ObjectName = Field(description="Name of the ConfigMap, in the same namespace.")
    key: DataKey = Field(description="The key in the ConfigMap's data.")


class SecretKeyRef(SpecModel):
    """One key of a Secret in the same namespace. The value is read at run time and never written anywhere."""

    name: ObjectName = Field(description="Name of the Secret, in the same namespace.")
    key: DataKey = Field(description="The key in the Secret's data.")


class OwnerReference(BaseModel):
    """One object another belongs to, as ``metadata.ownerReferences`` lists it (the part Proctor reads)."""

    model_config = _camel_case("ignore")

    api_version: str | None = Field(default=None, description="API version of the owner.")
    kind: str | None = Field(default=None, description="Kind of the owner.")
    name: str | None = Field(default=None, description="Name of the owner.")
    uid: str | None = Field(default=None, description="UID of the owner.")
    controller: bool | None = Field(default=None, description="Whether the owner is the managing controller.")


class ObjectMeta(BaseModel):
    """The part of Kubernetes object metadata Proctor reads; other metadata fields are ignored.

    Read once from an object as the API returned it (:meth:`of`), a Kubernetes built-in or one of
    Proctor's kinds, so the code below the handlers asks typed fields, not a dict, what it is."""

    model_config = _camel_case("ignore")

    name: str | None = Field(default=None, max_length=253, description="Name of the object.")
    generate_name: str | None = Field(
        default=None, description="Prefix the API server completes into a unique name when name is empty."
    )
    namespace: str | None = Field(default=None, description="Namespace of the object.")
    uid: str | None = Field(default=None, description="Unique id the API server gives the object.")
    resource_version: str | None = Field(
        default=None, description="Opaque version of the object, for optimistic concurrency."
    )
    generation: int | None = Field(
        default=None, description="Sequence number of the spec; the API server increments it on spec changes."
    )
    labels: dict[str, str] = Field(default_factory=dict, description="Labels of the object.")
    annotations: dict[str, str] = Field(default_factory=dict, description="Annotations of the object.")
    creation_timestamp: Time | None = Field(default=None, description="When the object was created.")
    deletion_timestamp: Time | None = Field(
        default=None, description="When deletion was requested, if it was."
    )
    owner_references: list[OwnerReference] = Field(
        default_factory=list, description="The objects this object belongs to (garbage collection)."
    )
    finalizers: list[str] = Field(
        default_factory=list, description="Finalizers that must be removed before the object is deleted."
    )

    @field_validator("labels", "annotations", mode="before")
    @classmethod
    def _no_map(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_validator("owner_references", "finalizers", mode="before")
    @classmethod
    def _no_list(cls, value: Any) -> Any:
        return [] if value is None else value

    @classmethod
    def of(cls, obj: Mapping[str, Any] | None) -> ObjectMeta:
        """The metadata of ``obj`` as the API returned it (None, or none given: empty)."""
        return cls.model_validate((obj or {}).get("metadata") or {})

    def owners(self, kind: str, *, controller: bool = False) -> list[OwnerReference]:
        """The owners of ``kind`` (with ``controller``: only one that is the managing controller)."""
        return [o for o in self.owner_references if o.kind == kind and (o.controller or not controller)]


class KindModel(SpecModel):
    """Base of the four kinds: their API version and metadata (each adds its kind, spec and status)."""

    api_version: Literal["proctor.dev/v1alpha1"] = Field(default=API_VERSION, description=API_VERSION)
    metadata: ObjectMeta = Field(default_factory=ObjectMeta, description="Standard object metadata.")


def policy_digest(document: Any) -> str:
    """``sha256:...`` of a policy document given as plain data (mappings, sequences, scalars,
    dataclasses, enums, pydantic models). Equal documents give equal digests whatever the order of
    mapping keys; an integral float equals its integer (``50.0`` and ``50``)."""
    payload = json.dumps(
        _canonical(document), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, Enum):
        return _canonical(value.value)
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a policy document cannot hold {value}")
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = _canonical(k)
            if not isinstance(key, str):
                raise TypeError(f"policy document keys must be strings, got {k!r}")
            out[key] = _canonical(v)
        return out
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canonical(getattr(value, f.name)) for f in fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _canonical(dump(mode="json", by_alias=True, exclude_none=True))
    if isinstance(value, set | frozenset):
        items = [_canonical(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    raise TypeError(f"cannot digest a {type(value).__name__} in a policy document")


class Provenance(StatusModel):
    """Content-addressed versions (``sha256:...``) of everything a result depends on.

    Two results with the same provenance are comparable; a change to any part is a new version,
    never a silent drift.
    """

    digest: str | None = Field(
        default=None,
        pattern=DIGEST_PATTERN,
        description="Digest of all the parts below together: equal digests mean comparable results.",
    )
    case_set: str | None = Field(
        default=None, pattern=DIGEST_PATTERN, description="Content digest of the case set's cases."
    )
    judge_prompt: str | None = Field(
        default=None, pattern=DIGEST_PATTERN, description="Digest of the judge prompt templates and rubrics."
    )
    grounding: str | None = Field(
        default=None, pattern=DIGEST_PATTERN, description="Digest of the grounding policy and documents."
    )
    consensus: str | None = Field(
        default=None, pattern=DIGEST_PATTERN, description="Digest of the consensus policy (band, samples)."
    )
    scoring: str | None = Field(
        default=None, pattern=DIGEST_PATTERN, description="Digest of the scoring policy (thresholds, tiers)."
    )
    engine: str | None = Field(
        default=None,
        pattern=DIGEST_PATTERN,
        description="Digest of the engine: the grader and safety-scan versions and the judge model.",
    )


def cel(rule: str, message: str, *, field_path: str | None = None, reason: str | None = None) -> JsonDict:
    """One CEL ``x-kubernetes-validations`` entry (kept next to the model it checks)."""
    out: JsonDict = {"rule": rule, "message": message}
    if field_path is not None:
        out["fieldPath"] = field_path
    if reason is not None:
        out["reason"] = reason
    return out

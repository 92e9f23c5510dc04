"""EvalProfile: what a run is judged on, and by which judge.

A profile selects judged *dimensions* (scored 0-100 by an independent model): the five base
dimensions, plus a domain profile's, plus custom rubric dimensions that extend the set or replace
it; a breach threshold per dimension (default 50); the judge endpoint; grounding documents; and the
deterministic safety scan, which fails safety with certainty even when the judge is unavailable.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, ClassVar, Final, Literal

from pydantic import ConfigDict, Field, model_validator

from proctor.api.common import (
    DIGEST_PATTERN,
    URL_PATTERN,
    ConfigMapKeyRef,
    KindModel,
    Provenance,
    SecretKeyRef,
    SpecModel,
    StatusModel,
    cel,
)
from proctor.api.conditions import Condition
from proctor.protocol import DEFAULT_BAND, DEFAULT_DIMENSION_THRESHOLD, DEFAULT_RECALL_FLOOR

#: The breach threshold of a dimension when nothing overrides it.
#: Judgments within this many points of the threshold are sampled twice more (the protocol's band).
DEFAULT_CONSENSUS_BAND: Final = DEFAULT_BAND

#: A dimension name: lower-case snake case.
DIMENSION_NAME_PATTERN: Final = r"^[a-z][a-z0-9_]*$"
MAX_DIMENSIONS: Final = 64

#: Where a resolved dimension comes from.
DimensionSource = Literal["base", "domain", "custom"]


class DomainProfile(StrEnum):
    """A built-in profile: the base five dimensions plus the domain's own."""

    GENERIC = "generic"
    CODING = "coding"
    SUPPORT = "support"
    RAG = "rag"
    DATA = "data"
    MARKETING = "marketing"


class DimensionMode(StrEnum):
    """Whether custom dimensions extend the built-in set or replace it."""

    EXTEND = "Extend"
    REPLACE = "Replace"


#: Every profile judges these.
BASE_DIMENSIONS: Final[tuple[str, ...]] = (
    "task_success",
    "instruction_adherence",
    "factual_grounding",
    "output_quality",
    "safety",
)

#: What each domain profile adds to the base five.
DOMAIN_DIMENSIONS: Final[dict[DomainProfile, tuple[str, ...]]] = {
    DomainProfile.GENERIC: (),
    DomainProfile.CODING: ("code_correctness", "test_outcome", "change_safety"),
    DomainProfile.SUPPORT: ("resolution_quality", "tone_empathy", "policy_compliance"),
    DomainProfile.RAG: ("retrieval_relevance", "citation_accuracy"),
    DomainProfile.DATA: ("query_correctness", "result_accuracy"),
    DomainProfile.MARKETING: ("brand_compliance", "creativity", "publishing_success"),
}

#: Every built-in dimension name, in a stable order.
BUILTIN_DIMENSIONS: Final[tuple[str, ...]] = tuple(
    dict.fromkeys([*BASE_DIMENSIONS, *(d for dims in DOMAIN_DIMENSIONS.values() for d in dims)])
)


def _cel_list(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(f"'{i}'" for i in items) + "]"


class RubricDimension(SpecModel):
    """A custom judged dimension: a name and the rubric the judge scores it against."""

    name: str = Field(
        min_length=1,
        max_length=63,
        pattern=DIMENSION_NAME_PATTERN,
        description="Name of the dimension (snake_case). "
        "A built-in name here replaces that dimension's rubric.",
    )
    rubric: str = Field(
        min_length=1,
        max_length=8192,
        pattern=r"\S",  # a blank rubric gives the judge nothing to score against
        description="What the judge checks, in plain words; it scores the answer 0-100 against it.",
    )
    threshold: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description="Breach threshold 0-100 for this dimension (default: spec.defaultThreshold).",
    )


#: The environment variable the judge's API key reaches the judge in (from ``apiKeySecretRef``, by
#: ``secretKeyRef``): the judge Job's template writes it, the judge client reads it.
JUDGE_API_KEY_ENV: Final = "PROCTOR_JUDGE_API_KEY"


class JudgeSpec(SpecModel):
    """The independent model that scores dimensions (any OpenAI-compatible chat endpoint)."""

    endpoint: str = Field(
        max_length=2048,
        pattern=URL_PATTERN,
        description="Base URL of the OpenAI-compatible API, e.g. https://llm.example.com/v1.",
    )
    model: str = Field(min_length=1, max_length=256, description="Model name sent with every judge request.")
    api_key_secret_ref: SecretKeyRef | None = Field(
        default=None,
        description="Secret key holding the API key, sent as a bearer token; read at run time, never "
        "copied into status, events, logs or results. Absent: no authentication.",
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature of the judge.")
    timeout_seconds: int = Field(default=60, ge=1, le=600, description="Timeout of one judge request.")
    concurrency: int = Field(
        default=16,
        ge=1,
        le=64,
        description="Judge requests in flight at once, per shard (halved automatically while the "
        "provider answers 429).",
    )
    consensus_band: float = Field(
        default=DEFAULT_CONSENSUS_BAND,
        ge=0,
        le=100,
        description="A judgment within this many points of its threshold (or low-confidence) is "
        "sampled twice more; the median and the agreement are reported.",
    )
    max_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Retries of a judge request on a timeout, 429 or 5xx, with backoff. A dimension "
        "that still gets no valid answer is skipped with the reason, never scored zero.",
    )


class GroundingDocument(SpecModel):
    """A document factual_grounding (and the RAG dimensions) are checked against."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel("has(self.text) != has(self.configMapRef)", "set exactly one of text or configMapRef")
            ]
        }
    )

    id: str = Field(
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
        description="Id of the document.",
    )
    text: str | None = Field(
        default=None, max_length=262144, description="The document text, inline (or use configMapRef)."
    )
    config_map_ref: ConfigMapKeyRef | None = Field(
        default=None, description="A ConfigMap key holding the document text (or use text)."
    )

    @model_validator(mode="after")
    def _one_source(self) -> GroundingDocument:
        if (self.text is None) == (self.config_map_ref is None):
            raise ValueError(f"grounding document {self.id!r}: set exactly one of text or configMapRef")
        return self


class GroundingSpec(SpecModel):
    """Documents that judged dimensions are grounded in, matched to each case by meaning."""

    documents: list[GroundingDocument] = Field(
        default_factory=list,
        max_length=256,
        description="The grounding documents (ids unique). "
        "A case's own context documents are always used too.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"]},
    )
    top_k: int = Field(
        default=3, ge=1, le=20, description="How many documents, most similar first, ground one case."
    )

    @model_validator(mode="after")
    def _unique_ids(self) -> GroundingSpec:
        seen: set[str] = set()
        for doc in self.documents:
            if doc.id in seen:
                raise ValueError(f"duplicate grounding document id {doc.id!r}")
            seen.add(doc.id)
        return self


class SafetyScanSpec(SpecModel):
    """The deterministic scan of every answer for secrets, credentials and PII.

    A finding fails its case and the run's safety tier, whatever the case's tier and whether or
    not the judge is available. Findings are reported redacted, never echoed.
    """

    enabled: bool = Field(default=True, description="Run the safety scan on every answer.")
    secrets: bool = Field(
        default=True, description="Look for secrets and credentials (keys, tokens, passwords)."
    )
    pii: bool = Field(
        default=True,
        description="Look for personal data (e-mail addresses, phone numbers, card and account numbers).",
    )
    allow: list[Annotated[str, Field(max_length=1024)]] = Field(
        default_factory=list,
        max_length=64,
        description="Regular expressions of strings that are not findings "
        "(e.g. documented test card numbers).",
    )


class JudgeTrustSpec(SpecModel):
    """How good the judge must be, on people's reviews, to be trusted."""

    recall_floor: float = Field(
        default=DEFAULT_RECALL_FLOOR,
        ge=0,
        le=1,
        description="The lowest acceptable lower 95% bound (Wilson) of the judge's recall on breaches, "
        "per dimension, 0-1: under it JudgeTrusted is False (MissesBreaches). Default 0.8.",
    )


class EvalProfileSpec(SpecModel):
    """Which dimensions a run is judged on, their thresholds, the judge, grounding and the safety scan."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "self.mode != 'Replace' || (has(self.dimensions) && size(self.dimensions) > 0)",
                    "mode Replace needs at least one custom dimension under dimensions",
                    field_path=".dimensions",
                ),
                cel(
                    "!has(self.thresholds) || self.thresholds.all(k, k in "
                    + _cel_list(BUILTIN_DIMENSIONS)
                    + " || (has(self.dimensions) && self.dimensions.exists(d, d.name == k)))",
                    "thresholds names a dimension that is neither built in nor defined under dimensions",
                    field_path=".thresholds",
                ),
                cel(
                    "!has(self.dimensions) || !has(self.thresholds) || "
                    "self.dimensions.all(d, !has(d.threshold) || !(d.name in self.thresholds))",
                    "a custom dimension's threshold is set twice (in dimensions and in thresholds); keep one",
                    field_path=".thresholds",
                ),
            ]
        }
    )

    profile: DomainProfile = Field(
        default=DomainProfile.GENERIC,
        description="Domain profile adding its dimensions to the base five (task_success, "
        "instruction_adherence, factual_grounding, output_quality, safety): generic (none), coding, "
        "support, rag, data or marketing.",
    )
    mode: DimensionMode = Field(
        default=DimensionMode.EXTEND,
        description="Extend: custom dimensions are added to the profile's (a built-in name replaces that "
        "rubric). Replace: only the custom dimensions are judged.",
    )
    dimensions: list[RubricDimension] = Field(
        default_factory=list,
        max_length=32,
        description="Custom rubric dimensions (names unique).",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    thresholds: dict[str, Annotated[float, Field(ge=0, le=100)]] = Field(
        default_factory=dict,
        max_length=MAX_DIMENSIONS,
        description="Breach threshold 0-100 per dimension name, overriding defaultThreshold.",
    )
    default_threshold: float = Field(
        default=DEFAULT_DIMENSION_THRESHOLD,
        ge=0,
        le=100,
        description="Breach threshold 0-100 of every dimension without its own.",
    )
    judge: JudgeSpec | None = Field(
        default=None,
        description="The judge. Absent: judged dimensions are reported as skipped (deterministic "
        "assertions and the safety scan still run).",
    )
    grounding: GroundingSpec | None = Field(
        default=None,
        description="Grounding documents. Absent: dimensions are grounded in each case's context only, "
        "and results say so.",
    )
    safety_scan: SafetyScanSpec = Field(
        default_factory=SafetyScanSpec,
        description="The deterministic safety scan (on by default).",
        json_schema_extra={"default": {}},
    )
    judge_trust: JudgeTrustSpec = Field(
        default_factory=JudgeTrustSpec,
        description="When the judge is trusted, from people's reviews of its scores (the JudgeTrusted "
        "condition; a GatePolicy may hold rollouts judged by an untrusted judge).",
        json_schema_extra={"default": {}},
    )

    @model_validator(mode="after")
    def _check(self) -> EvalProfileSpec:
        seen: set[str] = set()
        for dim in self.dimensions:
            if dim.name in seen:
                raise ValueError(f"duplicate custom dimension {dim.name!r}")
            seen.add(dim.name)
        if self.mode == DimensionMode.REPLACE and not self.dimensions:
            raise ValueError("mode Replace needs at least one custom dimension under dimensions")
        names = {d.name for d in self.resolved_dimensions()}
        unknown = sorted(set(self.thresholds) - names)
        if unknown:
            raise ValueError(
                f"thresholds names dimensions this profile does not judge: {', '.join(unknown)} "
                f"(judged: {', '.join(sorted(names))})"
            )
        twice = sorted(
            d.name for d in self.dimensions if d.threshold is not None and d.name in self.thresholds
        )
        if twice:
            raise ValueError(f"threshold set twice (in dimensions and in thresholds) for: {', '.join(twice)}")
        return self

    def resolved_dimensions(self) -> list[ResolvedDimension]:
        """The dimensions this profile judges, with their thresholds, in a stable order.

        Base five, then the domain's, then custom ones (Extend); or only the custom ones (Replace).
        A custom dimension named like a built-in one takes its place (and its rubric).
        """
        custom = {d.name: d for d in self.dimensions}
        out: list[ResolvedDimension] = []
        if self.mode == DimensionMode.EXTEND:
            builtin: list[tuple[str, DimensionSource]] = [(n, "base") for n in BASE_DIMENSIONS]
            builtin += [(n, "domain") for n in DOMAIN_DIMENSIONS[self.profile]]
            for name, source in builtin:
                c = custom.pop(name, None)
                out.append(self._resolve(name, "custom" if c else source, c))
        for name, c in custom.items():
            out.append(self._resolve(name, "custom", c))
        return out

    def _resolve(
        self, name: str, source: DimensionSource, custom: RubricDimension | None
    ) -> ResolvedDimension:
        if name in self.thresholds:
            threshold = self.thresholds[name]
        elif custom is not None and custom.threshold is not None:
            threshold = custom.threshold
        else:
            threshold = self.default_threshold
        return ResolvedDimension(name=name, threshold=threshold, source=source)

    def threshold_of(self, dimension: str) -> float:
        """The breach threshold of ``dimension`` under this profile."""
        for d in self.resolved_dimensions():
            if d.name == dimension:
                return d.threshold
        return self.thresholds.get(dimension, self.default_threshold)


class ResolvedDimension(StatusModel):
    """A dimension the profile judges, after resolution."""

    name: str = Field(max_length=63, description="Name of the dimension.")
    threshold: float = Field(ge=0, le=100, description="Its breach threshold, 0-100.")
    source: DimensionSource = Field(
        description="Where it comes from: the base five, the domain profile, or a custom rubric."
    )


class DimensionQuality(StatusModel):
    """One dimension's judge quality, from people's current reviews (the collector's figures)."""

    name: str = Field(max_length=63, description="Name of the dimension.")
    reviews: int = Field(
        ge=0, description="Current reviews (a later review by the same person replaces one)."
    )
    agreement: float | None = Field(
        default=None, ge=0, le=1, description="Judge-reviewer agreement at the threshold."
    )
    recall: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="The judge's recall on breaches reviewers saw (from 20 reviews).",
    )
    recall_lower: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Lower 95% (Wilson) bound of that recall: what trust is decided on.",
    )
    kappa: float | None = Field(
        default=None, ge=-1, le=1, description="Cohen's kappa, judge against reviewers."
    )
    provisional: bool = Field(default=True, description="Under 50 reviews: every figure is provisional.")
    trusted: bool | None = Field(
        default=None,
        description="Recall lower bound at or above the floor (absent: too few reviews to tell).",
    )


class EvalProfileStatus(StatusModel):
    """What the operator resolved from the profile."""

    observed_generation: int | None = Field(
        default=None, ge=0, description="The metadata.generation this status was computed from."
    )
    resolved_dimensions: list[ResolvedDimension] = Field(
        default_factory=list,
        max_length=MAX_DIMENSIONS,
        description="The dimensions a run under this profile is judged on, with thresholds.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    dimension_count: int | None = Field(
        default=None, ge=0, description="How many dimensions are judged (the DIMENSIONS column)."
    )
    provenance: Provenance | None = Field(
        default=None,
        description="Content-addressed versions of the judge prompt and the grounding, consensus, "
        "scoring and engine policies this profile runs under.",
    )
    grounding_digest: str | None = Field(
        default=None, pattern=DIGEST_PATTERN, description="Digest of the resolved grounding documents."
    )
    judge_quality: list[DimensionQuality] = Field(
        default_factory=list,
        max_length=MAX_DIMENSIONS,
        description="Per judged dimension, the judge's quality on people's reviews (from the collector).",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    conditions: list[Condition] = Field(
        default_factory=list,
        max_length=16,
        description="Conditions: Ready, JudgeTrusted.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
    )


class EvalProfile(KindModel):
    """EvalProfile says which dimensions a run is judged on, their breach thresholds, the judge
    (an OpenAI-compatible endpoint), grounding documents and the deterministic safety scan."""

    KIND: ClassVar[str] = "EvalProfile"
    PLURAL: ClassVar[str] = "evalprofiles"
    SINGULAR: ClassVar[str] = "evalprofile"
    SHORT_NAMES: ClassVar[tuple[str, ...]] = ("eprof",)

    kind: Literal["EvalProfile"] = Field(default="EvalProfile", description="EvalProfile")
    spec: EvalProfileSpec = Field(default_factory=EvalProfileSpec, description="What runs are judged on.")
    status: EvalProfileStatus | None = Field(default=None, description="What the operator resolved.")

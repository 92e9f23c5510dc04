"""CaseSet: the cases, chosen in advance, whose correct answer is known (DESIGN.md section 5a).

A case has an ``id``, a ``tier`` (safety / trust / form), a ``category``, an ``input`` (text or chat
messages), optional ``context`` documents, a ``reference`` answer, deterministic ``assert`` criteria
and the judged ``dimensions``. More cases come from ConfigMaps (``casesFrom``), for sets too large
for one object.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from proctor.api.assertions import Assertion
from proctor.api.common import (
    DATA_KEY_PATTERN,
    DIGEST_PATTERN,
    DNS_SUBDOMAIN_PATTERN,
    KindModel,
    SpecModel,
    StatusModel,
    Time,
    VerdictName,
    cel,
)
from proctor.api.conditions import Condition
from proctor.api.profile import DIMENSION_NAME_PATTERN
from proctor.protocol import Baseline, RunRecord
from proctor.protocol.types import Tier

#: A case id: letters, digits, '.', '_' and '-', starting and ending alphanumeric (a valid ConfigMap key).
CASE_ID_PATTERN: Final = r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$"
#: Most cases inline in one CaseSet; more go in ConfigMaps (casesFrom).
MAX_INLINE_CASES: Final = 2000
MAX_ASSERTIONS: Final = 32
MAX_CONTEXT_DOCUMENTS: Final = 64


class ChatRole(StrEnum):
    """Who speaks a chat message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


class ChatMessage(SpecModel):
    """One message of a chat input."""

    role: ChatRole = Field(description="Who speaks: system, user or assistant.")
    content: str = Field(max_length=262144, description="The text of the message.")


class ContextDocument(SpecModel):
    """A document given to the agent with the case (what its answer must be grounded in)."""

    id: str = Field(
        min_length=1,
        max_length=128,
        pattern=CASE_ID_PATTERN,
        description="Id of the document; 'cites' assertions check the answer names it.",
    )
    text: str = Field(max_length=262144, description="The text of the document.")


def _input_kind(value: Any) -> str | None:
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "messages"
    return None


#: A case's input: text, or a list of chat messages.
CaseInput = Annotated[
    Annotated[str, Tag("text")] | Annotated[list[ChatMessage], Tag("messages")],
    Discriminator(
        _input_kind,
        custom_error_type="case_input",
        custom_error_message="input must be text or a list of chat messages [{role, content}]",
    ),
]


#: Why a safety case without assertions and with ``dimensions: []`` is refused: it would pass on
#: any answer (only the safety scan would look at it), which for a tier with no budget is a gate
#: that cannot fail.
SAFETY_MEASURES_NOTHING = (
    "a safety case must measure something: give it an assertion, or judged dimensions "
    "(dimensions: [] with no assertion measures nothing)"
)


class Case(SpecModel):
    """One case: an input, what the answer must satisfy, and how much it matters (its tier)."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "!has(self.assert) || !self.assert.exists(a, a.type == 'cites' || a.type == 'not-cites') "
                    "|| (has(self.context) && size(self.context) > 0)",
                    "'cites' assertions need context documents",
                    field_path=".context",
                ),
                cel(
                    "self.tier != 'safety' || (has(self.assert) && size(self.assert) > 0) "
                    "|| !has(self.dimensions) || size(self.dimensions) > 0",
                    SAFETY_MEASURES_NOTHING,
                ),
            ]
        }
    )

    id: str = Field(
        min_length=1,
        max_length=128,
        pattern=CASE_ID_PATTERN,
        description="Id of the case, unique in the case set (letters, digits, '.', '_', '-').",
    )
    tier: Tier = Field(
        description="The tier, which sets the budget: safety (default threshold 100 %), "
        "trust (95 %) or form (90 %)."
    )
    category: str = Field(
        default="",
        max_length=128,
        description="A free-form category for reports (e.g. band-boundary, jailbreak, refusal).",
    )
    input: CaseInput = Field(
        description="What is sent to the agent: a text, or a list of chat messages [{role, content}].",
        json_schema_extra={"x-kubernetes-preserve-unknown-fields": True},
    )
    context: list[ContextDocument] = Field(
        default_factory=list,
        max_length=MAX_CONTEXT_DOCUMENTS,
        description="Documents given to the agent with the input (ids unique).",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"]},
    )
    reference: str | None = Field(
        default=None,
        max_length=65536,
        description="The known correct answer, for the judge and for 'similar' assertions.",
    )
    assert_: list[Assertion] = Field(
        default_factory=list,
        alias="assert",
        max_length=MAX_ASSERTIONS,
        description="Deterministic criteria on the answer; every one must pass (promptfoo vocabulary, "
        "any type takes a 'not-' prefix).",
    )
    dimensions: list[Annotated[str, Field(max_length=63, pattern=DIMENSION_NAME_PATTERN)]] | None = Field(
        default=None,
        max_length=32,
        description="Judged dimensions for this case. Absent: the profile's; empty: none.",
        json_schema_extra={"x-kubernetes-list-type": "set"},
    )

    @field_validator("context")
    @classmethod
    def _unique_context(cls, docs: list[ContextDocument]) -> list[ContextDocument]:
        seen: set[str] = set()
        for doc in docs:
            if doc.id in seen:
                raise ValueError(f"duplicate context document id {doc.id!r}")
            seen.add(doc.id)
        return docs

    @field_validator("dimensions")
    @classmethod
    def _unique_dimensions(cls, dims: list[str] | None) -> list[str] | None:
        if dims is not None and len(set(dims)) != len(dims):
            dup = sorted({d for d in dims if dims.count(d) > 1})
            raise ValueError(f"duplicate dimension {', '.join(dup)}")
        return dims

    @model_validator(mode="after")
    def _cross_checks(self) -> Case:
        if self.tier is Tier.SAFETY and not self.assert_ and self.dimensions == []:
            raise ValueError(SAFETY_MEASURES_NOTHING)
        context_ids = {d.id for d in self.context}
        for i, a in enumerate(self.assert_):
            if a.base_type == "cites":
                if not self.context:
                    raise ValueError(f"assert[{i}]: {a.type!r} needs context documents")
                missing = [v for v in (a.value or []) if v not in context_ids]
                if missing:
                    raise ValueError(
                        f"assert[{i}]: {a.type!r} names unknown context document(s) {', '.join(missing)} "
                        f"(context: {', '.join(sorted(context_ids))})"
                    )
            if a.base_type == "similar" and a.value is None and self.reference is None:
                raise ValueError(f"assert[{i}]: {a.type!r} needs a value or the case's reference")
        return self

    @property
    def messages(self) -> list[ChatMessage]:
        """The input as chat messages (a text input is one user message)."""
        if isinstance(self.input, str):
            return [ChatMessage(role=ChatRole.USER, content=self.input)]
        return list(self.input)


class CasesFrom(SpecModel):
    """A ConfigMap holding more cases: a YAML or JSON list of cases (or {cases: [...]}) per key."""

    name: str = Field(
        min_length=1,
        max_length=253,
        pattern=DNS_SUBDOMAIN_PATTERN,
        description="Name of the ConfigMap, in the same namespace.",
    )
    key: str | None = Field(
        default=None,
        max_length=253,
        pattern=DATA_KEY_PATTERN,
        description="The data key holding cases. Absent: every key, in key order.",
    )


class CaseSetSpec(SpecModel):
    """The cases, inline and from ConfigMaps."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "(has(self.cases) && size(self.cases) > 0) || "
                    "(has(self.casesFrom) && size(self.casesFrom) > 0)",
                    "a CaseSet needs cases or casesFrom",
                ),
            ]
        }
    )

    cases: list[Case] = Field(
        default_factory=list,
        max_length=MAX_INLINE_CASES,
        description="The cases (ids unique across the whole set, casesFrom included).",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"]},
    )
    cases_from: list[CasesFrom] = Field(
        default_factory=list,
        max_length=64,
        description="ConfigMaps holding more cases, for sets too large for one object.",
    )

    @field_validator("cases")
    @classmethod
    def _unique_ids(cls, cases: list[Case]) -> list[Case]:
        seen: dict[str, int] = {}
        for i, case in enumerate(cases):
            if case.id in seen:
                raise ValueError(f"duplicate case id {case.id!r} (cases[{seen[case.id]}] and cases[{i}])")
            seen[case.id] = i
        return cases

    @model_validator(mode="after")
    def _not_empty(self) -> CaseSetSpec:
        if not self.cases and not self.cases_from:
            raise ValueError("a CaseSet needs cases or casesFrom")
        return self


# --- status -------------------------------------------------------------------------------------


class TierCounts(StatusModel):
    """How many cases each tier has."""

    safety: int = Field(default=0, ge=0, description="Cases in the safety tier.")
    trust: int = Field(default=0, ge=0, description="Cases in the trust tier.")
    form: int = Field(default=0, ge=0, description="Cases in the form tier.")


class TierRates(StatusModel):
    """A pass rate in percent (0-100) per tier; absent where nothing was measured."""

    safety: float | None = Field(default=None, ge=0, le=100, description="Safety tier pass rate, percent.")
    trust: float | None = Field(default=None, ge=0, le=100, description="Trust tier pass rate, percent.")
    form: float | None = Field(default=None, ge=0, le=100, description="Form tier pass rate, percent.")

    def get(self, tier: Tier) -> float | None:
        """The rate of ``tier``."""
        value: float | None = getattr(self, tier.value)
        return value

    def as_mapping(self) -> dict[Tier, float | None]:
        """The rates keyed by tier, as :mod:`proctor.protocol` takes them."""
        return {tier: self.get(tier) for tier in Tier}

    @classmethod
    def from_mapping(cls, rates: Mapping[Tier, float | None]) -> TierRates:
        """Rates keyed by tier (missing tiers: not measured)."""
        return cls(safety=rates.get(Tier.SAFETY), trust=rates.get(Tier.TRUST), form=rates.get(Tier.FORM))


class RecentRun(StatusModel):
    """A finished run on this case set, kept to decide when a baseline may be frozen."""

    name: str = Field(max_length=253, description="Name of the EvalRun.")
    verdict: VerdictName = Field(description="Its verdict.")
    digest: str = Field(pattern=DIGEST_PATTERN, description="Case-set digest the run measured.")
    provenance: str = Field(
        pattern=DIGEST_PATTERN, description="Provenance digest of the run (judge prompt and policies)."
    )
    tiers: TierRates = Field(default_factory=TierRates, description="The run's pass rate per tier.")
    completion_time: Time | None = Field(default=None, description="When the run completed.")

    def to_record(self) -> RunRecord:
        """The run as :mod:`proctor.protocol` remembers it."""
        return RunRecord(
            name=self.name,
            verdict=self.verdict.verdict,
            digest=self.digest,
            provenance=self.provenance,
            rates=self.tiers.as_mapping(),
        )

    @classmethod
    def from_record(cls, record: RunRecord, *, completion_time: datetime | None = None) -> RecentRun:
        """A protocol run record, for status."""
        return cls(
            name=record.name,
            verdict=VerdictName.of(record.verdict),
            digest=record.digest,
            provenance=record.provenance,
            tiers=TierRates.from_mapping(record.rates),
            completion_time=completion_time,
        )


class FrozenBaseline(StatusModel):
    """Per-tier pass rates frozen after consecutive runs agreed; regressions are measured against it.

    Frozen only after N consecutive runs on the same digest and provenance with zero safety-tier
    variance; a freeze never turns a red run green.
    """

    tiers: TierRates = Field(default_factory=TierRates, description="The frozen pass rate per tier, percent.")
    frozen_from: list[Annotated[str, Field(max_length=253)]] = Field(
        default_factory=list, max_length=16, description="The EvalRuns the baseline was frozen from."
    )
    digest: str = Field(pattern=DIGEST_PATTERN, description="The case-set digest the baseline holds for.")
    provenance: str = Field(
        pattern=DIGEST_PATTERN,
        description="The provenance digest (judge prompt and policies) the baseline holds for.",
    )
    frozen_at: Time = Field(description="When the baseline was frozen.")

    def to_baseline(self) -> Baseline:
        """The baseline as :mod:`proctor.protocol` takes it."""
        return Baseline(
            rates=self.tiers.as_mapping(),
            digest=self.digest,
            provenance=self.provenance,
            runs=tuple(self.frozen_from),
        )

    @classmethod
    def from_baseline(cls, baseline: Baseline, *, frozen_at: datetime) -> FrozenBaseline:
        """A protocol baseline, for status."""
        return cls(
            tiers=TierRates.from_mapping(baseline.rates),
            frozen_from=list(baseline.runs),
            digest=baseline.digest,
            provenance=baseline.provenance,
            frozen_at=frozen_at,
        )


class CaseSetStatus(StatusModel):
    """What the operator found in the case set."""

    observed_generation: int | None = Field(
        default=None, ge=0, description="The metadata.generation this status was computed from."
    )
    case_count: int | None = Field(default=None, ge=0, description="Cases in the set, casesFrom included.")
    tiers: TierCounts | None = Field(default=None, description="Cases per tier.")
    digest: str | None = Field(
        default=None,
        pattern=DIGEST_PATTERN,
        description="Content digest of all the cases (sha256 of their canonical JSON, order-independent).",
    )
    baseline: FrozenBaseline | None = Field(
        default=None, description="The frozen baseline, once there is one."
    )
    recent_runs: list[RecentRun] = Field(
        default_factory=list,
        max_length=10,
        description="The latest finished runs on this set, newest last (for freezing the baseline).",
    )
    freeze_request: str | None = Field(
        default=None,
        max_length=253,
        description="The value of the proctor.dev/freeze-baseline annotation last acted on (set a new value "
        "to ask for a freeze; BaselineFrozen says whether it was allowed and why).",
    )
    conditions: list[Condition] = Field(
        default_factory=list,
        max_length=16,
        description="Conditions: Ready, BaselineFrozen.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
    )


class CaseSet(KindModel):
    """CaseSet holds the cases of an exam, chosen in advance, whose correct answer is known: id, tier
    (safety / trust / form), input, context, reference, deterministic assertions and judged dimensions."""

    KIND: ClassVar[str] = "CaseSet"
    PLURAL: ClassVar[str] = "casesets"
    SINGULAR: ClassVar[str] = "caseset"
    SHORT_NAMES: ClassVar[tuple[str, ...]] = ("cset",)

    kind: Literal["CaseSet"] = Field(default="CaseSet", description="CaseSet")
    spec: CaseSetSpec = Field(description="The cases.")
    status: CaseSetStatus | None = Field(default=None, description="What the operator found.")

    def digest(self) -> str:
        """Content digest of the inline cases (casesFrom are not included: see :func:`content_digest`)."""
        return content_digest(self.spec.cases)


def canonical_case(case: Case) -> dict[str, Any]:
    """A case as the canonical dict the digest is computed from (defaults filled, ``None`` left out)."""
    return case.model_dump(mode="json", by_alias=True, exclude_none=True)


def content_digest(cases: Iterable[Case | Mapping[str, Any]]) -> str:
    """``sha256:`` of the canonical JSON of ``cases``.

    Stable across key order, YAML formatting, defaults written out or left implicit, and the order
    of the cases themselves (they are sorted by id): two sets that examine the same thing have the
    same digest. Raw dicts are validated as cases first.
    """
    canon = sorted(
        (canonical_case(c if isinstance(c, Case) else Case.model_validate(c)) for c in cases),
        key=lambda c: str(c["id"]),
    )
    blob = json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


def tier_counts(cases: Iterable[Case]) -> TierCounts:
    """How many of ``cases`` each tier has."""
    counts = {t: 0 for t in Tier}
    for case in cases:
        counts[case.tier] += 1
    return TierCounts(safety=counts[Tier.SAFETY], trust=counts[Tier.TRUST], form=counts[Tier.FORM])

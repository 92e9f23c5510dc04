"""EvalRun: one exam of one target on one case set, and its result.

The target is exactly one of a live ``endpoint``, a candidate ``podTemplate`` (run as a native
sidecar of the judge Job) or recorded ``responses``. Status keeps counts and the first failures; the
per-case detail lives in owned ConfigMaps (``status.results``), so status stays small at any case
count.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator, model_validator

from proctor.api.common import (
    URL_PATTERN,
    ConfigMapKeyRef,
    KindModel,
    LocalObjectReference,
    Provenance,
    SecretKeyRef,
    SpecModel,
    StatusModel,
    Time,
    VerdictName,
    cel,
)
from proctor.api.conditions import Condition
from proctor.api.policy import AgentProtocol, CandidateSpec
from proctor.protocol import Incident as ProtocolIncident
from proctor.protocol import Severity
from proctor.protocol import TierResult as ProtocolTierResult
from proctor.protocol.types import Tier

#: How many failures status keeps (the rest are in the results ConfigMaps).
MAX_FIRST_FAILURES: Final = 20
MAX_SHARDS: Final = 64


class RunPhase(StrEnum):
    """Where a run is in its life (seed 001's run state machine, for a Kubernetes exam)."""

    PENDING = "Pending"
    RUNNING = "Running"
    EVALUATING = "Evaluating"
    EVALUATED = "Evaluated"
    PARTIALLY_EVALUATED = "PartiallyEvaluated"
    FAILED = "Failed"

    @property
    def terminal(self) -> bool:
        """Whether the run is over (Evaluated, PartiallyEvaluated or Failed)."""
        return self.value in TERMINAL_PHASES

    @property
    def rank(self) -> int:
        """How far along the lifecycle the phase is: a run's phase never moves to a lower rank."""
        return 3 if self.terminal else list(RunPhase).index(self)


#: The phases a run ends in, as status spells them (the one list: readers of raw status use it too).
TERMINAL_PHASES: Final = frozenset(
    {RunPhase.EVALUATED.value, RunPhase.PARTIALLY_EVALUATED.value, RunPhase.FAILED.value}
)


class EndpointTarget(AgentProtocol):
    """A live agent endpoint, reached over HTTP from the judge Job."""

    url: str = Field(
        max_length=2048,
        pattern=URL_PATTERN,
        description="Full URL cases are POSTed to, e.g. http://agent.team.svc:8080/v1/chat/completions.",
    )
    api_key_secret_ref: SecretKeyRef | None = Field(
        default=None,
        description="Secret key holding a bearer token for the endpoint; "
        "read at run time, never written anywhere.",
    )
    timeout_seconds: int = Field(
        default=120, ge=1, le=3600, description="Timeout of one request to the agent."
    )


class RecordedResponses(SpecModel):
    """Recorded answers, graded offline: a map of case id to the agent's answer."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel("has(self.inline) != has(self.configMapRef)", "set exactly one of inline or configMapRef")
            ]
        }
    )

    inline: dict[str, str] | None = Field(default=None, description="Answers inline: case id -> answer text.")
    config_map_ref: ConfigMapKeyRef | None = Field(
        default=None,
        description="A ConfigMap key holding the answers as a YAML or JSON map of case id -> answer text.",
    )

    @model_validator(mode="after")
    def _one_source(self) -> RecordedResponses:
        if (self.inline is None) == (self.config_map_ref is None):
            raise ValueError("set exactly one of inline or configMapRef")
        return self


class RunTarget(SpecModel):
    """What is examined: exactly one of endpoint, podTemplate (with candidate) or responses."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "[has(self.endpoint), has(self.podTemplate), has(self.responses)].exists_one(x, x)",
                    "set exactly one of endpoint, podTemplate or responses",
                ),
                cel(
                    "has(self.candidate) == has(self.podTemplate)",
                    "candidate (port, path, protocol) is required with podTemplate and applies only to it",
                    field_path=".candidate",
                ),
            ]
        }
    )

    endpoint: EndpointTarget | None = Field(default=None, description="A live agent endpoint.")
    pod_template: dict[str, Any] | None = Field(
        default=None,
        description="The candidate's pod template (a PodTemplateSpec, e.g. a Deployment's spec.template); "
        "its serving container runs as a native sidecar of each judge Job.",
        json_schema_extra={"x-kubernetes-preserve-unknown-fields": True},
    )
    candidate: CandidateSpec | None = Field(
        default=None, description="How to reach the agent in podTemplate (port, path, protocol)."
    )
    responses: RecordedResponses | None = Field(default=None, description="Recorded answers, graded offline.")

    @model_validator(mode="after")
    def _exactly_one(self) -> RunTarget:
        given = [
            n
            for n, v in (
                ("endpoint", self.endpoint),
                ("podTemplate", self.pod_template),
                ("responses", self.responses),
            )
            if v is not None
        ]
        if len(given) != 1:
            raise ValueError(
                "set exactly one of endpoint, podTemplate or responses"
                + (f" (got {', '.join(given)})" if given else "")
            )
        if (self.candidate is None) != (self.pod_template is None):
            raise ValueError(
                "candidate (port, path, protocol) is required with podTemplate and applies only to it"
            )
        return self

    @property
    def kind(self) -> Literal["endpoint", "podTemplate", "responses"]:
        """Which target this is."""
        if self.endpoint is not None:
            return "endpoint"
        if self.pod_template is not None:
            return "podTemplate"
        return "responses"


class EvalRunSpec(SpecModel):
    """One exam. Immutable once created: to examine again, create another run."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel("self == oldSelf", "spec is immutable: create a new EvalRun to examine again"),
            ]
        }
    )

    case_set_ref: LocalObjectReference = Field(description="The CaseSet to examine on.")
    profile_ref: LocalObjectReference | None = Field(
        default=None,
        description="The EvalProfile (dimensions, judge). Absent: judged dimensions are skipped.",
    )
    policy_ref: LocalObjectReference | None = Field(
        default=None,
        description="The GatePolicy whose protocol (thresholds, regression margin) decides the verdict. "
        "Absent: default thresholds (safety 100, trust 95, form 90), no regression check.",
    )
    target: RunTarget = Field(description="What is examined: endpoint, podTemplate or responses.")
    shards: int = Field(
        default=1, ge=1, le=MAX_SHARDS, description="Judge Jobs the cases are split between (1-64)."
    )
    repeats: int = Field(
        default=1, ge=1, le=10, description="Times each case is asked (to measure variance); default once."
    )
    timeout_seconds: int = Field(
        default=1800,
        ge=60,
        le=86400,
        description="Deadline of each attempt (activeDeadlineSeconds of its judge Jobs); an attempt past it "
        "is retried with backoff like any harness failure, so a run may take up to PROCTOR_MAX_ATTEMPTS "
        "times this plus the backoff before it ends in ERROR.",
    )


# --- status -------------------------------------------------------------------------------------


def _round2(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


class TierSummary(StatusModel):
    """One tier's result: only measured cases count towards the rate."""

    passed: int = Field(default=0, ge=0, description="Measured cases that passed.")
    failed: int = Field(default=0, ge=0, description="Measured cases that failed.")
    unmeasured: int = Field(default=0, ge=0, description="Cases not measured: reported, never scored.")
    measured: int = Field(default=0, ge=0, description="Cases measured: passed + failed.")
    total: int = Field(default=0, ge=0, description="Cases in the tier: measured + unmeasured.")
    rate: Annotated[float | None, AfterValidator(_round2)] = Field(
        default=None,
        ge=0,
        le=100,
        description="passed / measured, percent, two decimals. Absent when nothing was measured.",
    )
    threshold: float = Field(ge=0, le=100, description="The tier's pass threshold, percent.")
    baseline: float | None = Field(
        default=None, ge=0, le=100, description="The frozen baseline rate, percent, if there is one."
    )

    @classmethod
    def from_result(cls, result: ProtocolTierResult, *, baseline: float | None = None) -> TierSummary:
        """A tier result of :mod:`proctor.protocol`, for status."""
        return cls(
            passed=result.passed,
            failed=result.failed,
            unmeasured=result.unmeasured,
            measured=result.measured,
            total=result.total,
            rate=result.rate,
            threshold=result.threshold,
            baseline=baseline,
        )


class TierSummaries(StatusModel):
    """Results per tier."""

    safety: TierSummary | None = Field(default=None, description="The safety tier.")
    trust: TierSummary | None = Field(default=None, description="The trust tier.")
    form: TierSummary | None = Field(default=None, description="The form tier.")

    def get(self, tier: Tier) -> TierSummary | None:
        """The result of ``tier``."""
        value: TierSummary | None = getattr(self, tier.value)
        return value

    @classmethod
    def from_results(
        cls,
        results: Mapping[Tier, ProtocolTierResult],
        *,
        baseline: Mapping[Tier, float | None] | None = None,
    ) -> TierSummaries:
        """The protocol's per-tier results (and the frozen baseline rates, if any), for status."""
        base = baseline or {}
        return cls.model_validate(
            {t.value: TierSummary.from_result(r, baseline=base.get(t)) for t, r in results.items()}
        )


class DimensionSummary(StatusModel):
    """One judged dimension across the run."""

    name: str = Field(max_length=63, description="Name of the dimension.")
    mean: Annotated[float | None, AfterValidator(_round2)] = Field(
        default=None, ge=0, le=100, description="Mean score of measured judgments, 0-100. Absent if none."
    )
    threshold: float = Field(ge=0, le=100, description="Its breach threshold.")
    measured: int = Field(default=0, ge=0, description="Judgments that produced a score.")
    skipped: int = Field(
        default=0,
        ge=0,
        description="Judgments skipped (judge failed or answered nonsense): never scored zero.",
    )
    breaches: int = Field(default=0, ge=0, description="Judgments below the threshold.")
    agreement: float | None = Field(
        default=None, ge=0, le=1, description="Mean agreement of consensus samples, 0-1 (1: samples agreed)."
    )


class FailureSummary(StatusModel):
    """One failed criterion of one case."""

    case: str = Field(max_length=128, description="Id of the case.")
    tier: Tier = Field(description="Tier of the case.")
    assertion: str = Field(
        max_length=128, description="The failed criterion: an assertion type, a dimension or safety-scan."
    )
    reason: str = Field(
        max_length=1024,
        description="Why, in words a person can act on (findings redacted); an assertion's reason, which "
        "may quote the expected answer, is withheld here (the full one is in the run's results in the "
        "operator's namespace).",
    )


class UnmeasuredSummary(StatusModel):
    """One case that could not be measured (reported, never scored)."""

    case: str = Field(max_length=128, description="Id of the case.")
    tier: Tier = Field(description="Tier of the case.")
    reason: str = Field(max_length=1024, description="Why it has no measurement (a judge error, no answer).")


class ResultsRef(StatusModel):
    """A ConfigMap holding per-case results."""

    config_map: str = Field(max_length=253, description="Name of the ConfigMap (owned by the run).")
    shard: str | None = Field(default=None, max_length=16, description="The shard that wrote it, I/N.")
    cases: int = Field(default=0, ge=0, description="How many case results it holds.")


class Incident(StatusModel):
    """The incident a failing run opens."""

    severity: Severity = Field(
        description="low, medium, high or critical (not an average): a safety breach is at least high; "
        "otherwise by depth below the threshold; three or more failing dimensions raise it a step.",
        json_schema_extra={"enum": [s.value for s in Severity if s is not Severity.NONE]},
    )
    signatures: list[Annotated[str, Field(max_length=128)]] = Field(
        default_factory=list, max_length=32, description="What broke, e.g. breach:safety, regression:trust."
    )
    failing: list[Annotated[str, Field(max_length=63)]] = Field(
        default_factory=list, max_length=64, description="The failing dimensions."
    )
    cause: str = Field(default="", max_length=2048, description="The probable cause, in a sentence or two.")

    @field_validator("severity")
    @classmethod
    def _opened(cls, severity: Severity) -> Severity:
        if severity is Severity.NONE:
            raise ValueError("an incident has a severity of low or above (no incident: leave it out)")
        return severity

    @classmethod
    def from_incident(cls, incident: ProtocolIncident) -> Incident | None:
        """An incident of :mod:`proctor.protocol`, for status; None when it opened none."""
        if not incident.opened:
            return None
        return cls(
            severity=incident.severity,
            signatures=list(incident.signatures)[:32],
            failing=list(incident.failing)[:64],
            cause=incident.probable_cause[:2048],
        )


class ShardPhase(StrEnum):
    """The state of one shard's judge Job."""

    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"


class ShardSummary(StatusModel):
    """Case counts one shard reported."""

    cases: int = Field(default=0, ge=0, description="Cases in the shard.")
    passed: int = Field(default=0, ge=0, description="Cases that passed.")
    failed: int = Field(default=0, ge=0, description="Cases that failed.")
    unmeasured: int = Field(
        default=0, ge=0, description="Cases not measured (answer missing or dimension skipped)."
    )


class ShardStatus(StatusModel):
    """One shard: its Job and what it reported."""

    name: str = Field(
        max_length=16, pattern=r"^[0-9]+/[0-9]+$", description="The shard, I/N (the runner's --shard)."
    )
    job: str | None = Field(default=None, max_length=63, description="Name of the judge Job.")
    phase: ShardPhase = Field(
        default=ShardPhase.PENDING, description="Pending, Running, Succeeded or Failed."
    )
    attempts: int = Field(default=0, ge=0, description="Attempts so far (the Job is retried with backoff).")
    job_phase: str | None = Field(
        default=None,
        max_length=16,
        description="State of the current attempt's Job as the operator saw it: Active, Succeeded, Failed or "
        "Missing.",
    )
    job_message: str | None = Field(
        default=None, max_length=1024, description="Why the last attempt's Job failed, when it did."
    )
    retry_at: Time | None = Field(
        default=None, description="When the next attempt may start (after a failed one, with backoff)."
    )
    summary: ShardSummary | None = Field(
        default=None, description="Counts the shard reported when it finished."
    )
    message: str | None = Field(default=None, max_length=1024, description="Why it failed, if it did.")
    reason: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[A-Za-z][A-Za-z0-9]*$",
        description="Why it failed, as a CamelCase reason; a permanent one (ConfigMapNotFound, "
        "ProfileNotFound, InvalidResponses, ...) ends the run in ERROR at once instead of a retry.",
    )
    results: list[Annotated[str, Field(max_length=253)]] = Field(
        default_factory=list,
        max_length=64,
        description="ConfigMaps (owned by the run) holding this shard's per-case results, in order.",
    )
    provenance: str | None = Field(
        default=None,
        max_length=80,
        description="sha256: digest of the judge prompts, rubrics, model and parameters the shard used.",
    )
    report_digest: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[0-9a-f]{64}$",
        description="sha256 of the report the operator believed: the one a pod of the shard's own Job "
        "vouched for in its judge container's termination message. The verdict is decided from that "
        "report, read again and checked against it.",
    )
    start_time: Time | None = Field(default=None, description="When the shard started.")
    completion_time: Time | None = Field(default=None, description="When the shard finished.")


class CaseSnapshot(StatusModel):
    """The cases as the run found them when it started, pinned for the rest of the run."""

    case_set: str = Field(max_length=253, description="The CaseSet they were resolved from.")
    digest: str = Field(
        max_length=80, description="sha256: of the cases (inline and casesFrom), as the run measures them."
    )
    cases: int = Field(ge=0, description="How many cases.")
    config_maps: list[Annotated[str, Field(max_length=253)]] = Field(
        default_factory=list,
        max_length=16,
        description="ConfigMaps holding the cases, gzipped JSON, in order, in the operator's own namespace "
        "(never the run's: the tenant cannot read them), deleted when the run is over. The judge Jobs get "
        "their shard's cases from the operator's case server, so a CaseSet changed or deleted during the "
        "run changes nothing.",
    )


class EvalRunStatus(StatusModel):
    """The result of the exam (per-case detail is in the results ConfigMaps)."""

    observed_generation: int | None = Field(
        default=None, ge=0, description="The metadata.generation this status was computed from."
    )
    phase: RunPhase | None = Field(
        default=None,
        description="Pending, Running, Evaluating, then Evaluated, PartiallyEvaluated "
        "(something was skipped: not clean) or Failed (nothing could be measured).",
    )
    verdict: VerdictName | None = Field(
        default=None,
        description="PASS (every tier clean), FAIL (a tier below threshold or regressed), "
        "ERROR (nothing measured, or a safety case unmeasured), WARN (thresholds met, not clean).",
    )
    exit_code: int | None = Field(
        default=None, ge=0, le=3, description="The verdict's exit code: 0, 1, 2 or 3."
    )
    message: str | None = Field(default=None, max_length=1024, description="One-line summary for people.")
    tiers: TierSummaries | None = Field(default=None, description="Results per tier.")
    dimensions: list[DimensionSummary] = Field(
        default_factory=list,
        max_length=64,
        description="Results per judged dimension.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    first_failures: list[FailureSummary] = Field(
        default_factory=list,
        max_length=MAX_FIRST_FAILURES,
        description=f"The first {MAX_FIRST_FAILURES} failures (all of them are in the results ConfigMaps).",
    )
    failure_count: int | None = Field(default=None, ge=0, description="Failed cases in all.")
    first_unmeasured: list[UnmeasuredSummary] = Field(
        default_factory=list,
        max_length=MAX_FIRST_FAILURES,
        description=f"The first {MAX_FIRST_FAILURES} cases that could not be measured, safety first "
        "(the tiers count them all).",
    )
    results: list[ResultsRef] = Field(
        default_factory=list, max_length=256, description="ConfigMaps with the per-case results."
    )
    incident: Incident | None = Field(default=None, description="The incident, when the run failed.")
    provenance: Provenance | None = Field(
        default=None,
        description="Content-addressed versions of the cases, judge prompt and policies measured under.",
    )
    snapshot: CaseSnapshot | None = Field(
        default=None,
        description="The cases pinned when the run started (what the judge Jobs read).",
    )
    shards: list[ShardStatus] = Field(
        default_factory=list,
        max_length=MAX_SHARDS,
        description="The shards and their judge Jobs.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    start_time: Time | None = Field(default=None, description="When the run started.")
    completion_time: Time | None = Field(default=None, description="When the run reached a terminal phase.")
    conditions: list[Condition] = Field(
        default_factory=list,
        max_length=16,
        description="Conditions: Finished (over, whatever came of it), Evaluated (measured: PASS, FAIL or "
        "WARN), Passed, Breached, Degraded.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
    )


class EvalRun(KindModel):
    """EvalRun is one exam: a case set and profile (and policy) against a target (a live endpoint, a
    candidate pod template, or recorded responses); status carries the verdict and the results."""

    KIND: ClassVar[str] = "EvalRun"
    PLURAL: ClassVar[str] = "evalruns"
    SINGULAR: ClassVar[str] = "evalrun"
    SHORT_NAMES: ClassVar[tuple[str, ...]] = ("erun",)

    kind: Literal["EvalRun"] = Field(default="EvalRun", description="EvalRun")
    spec: EvalRunSpec = Field(description="The exam.")
    status: EvalRunStatus | None = Field(default=None, description="The result.")

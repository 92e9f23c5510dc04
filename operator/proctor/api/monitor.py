"""AgentMonitor: arm B, a live agent watched in production (DESIGN.md section 7).

The monitor names the agent by its OpenTelemetry ``service.name`` (and optionally one
``service.version``), the EvalProfile its runs are judged by, how a run is keyed, how long a run
must be quiet before it is judged, the share of runs judged, and the settings of the detectors and
notices that act on the scores. Runs, events and scores live in the collector's database; the
status carries a summary that stays small at any traffic: counts by state, the latest score and
both EWMAs per dimension, a summary of open incidents, the consensus cost and conditions.

The names ``spec.agent.serviceName``, ``spec.profileRef.name``, ``spec.quiescenceSeconds``,
``spec.sampling`` and ``spec.observeOnly`` are stable: docs, checks and scripts rely on them.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, ClassVar, Final, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from proctor.api.common import (
    API_VERSION,
    DNS_SUBDOMAIN_PATTERN,
    URL_PATTERN,
    LocalObjectReference,
    ObjectMeta,
    SecretKeyRef,
    SpecModel,
    StatusModel,
    Time,
    cel,
)
from proctor.api.conditions import Condition
from proctor.api.profile import DIMENSION_NAME_PATTERN, MAX_DIMENSIONS
from proctor.protocol import (
    DEFAULT_CANARY_MAX_BREACHED_PERCENT,
    DEFAULT_CANARY_MIN_RUNS,
    DEFAULT_QUIESCENCE_SECONDS,
    RunState,
    Severity,
)

#: The run key when a monitor names none: the first of these attributes a span or event carries.
#: ``trace_id`` is the span's own trace id (every span has one, so every span belongs to a run).
DEFAULT_RUN_KEY: Final[tuple[str, ...]] = (
    "proctor.execution_id",
    "gen_ai.conversation.id",
    "session.id",
    "trace_id",
)
#: The run-key entry that stands for the span's trace id rather than an attribute.
TRACE_ID_KEY: Final = "trace_id"
#: The audience of the Kubernetes tokens the collector's management API accepts (TokenReview asks for
#: it): a token requested for the collector is worth nothing at the API server, and the operator never
#: hands the collector its own API-server token.
COLLECTOR_AUDIENCE: Final = "proctor-collector"
#: The collector's monitors API: its routes, its OpenAPI document, its client and the operator's
#: status reads all build their paths from this one prefix.
MONITORS_API: Final = "/api/v1/monitors"
#: One monitor's resource, as a route template (aiohttp and OpenAPI write parameters alike).
MONITOR_ROUTE: Final = MONITORS_API + "/{namespace}/{name}"


def monitor_path(namespace: str, name: str, tail: str = "") -> str:
    """The path of one monitor's resource (``tail`` such as ``/verdict``), for a client that has
    checked the two names are single path segments."""
    return f"{MONITORS_API}/{namespace}/{name}{tail}"


#: At most this many open incidents are listed in status (the count covers all of them).
MAX_LISTED_INCIDENTS: Final = 5
#: The annotation that holds a revision's live canary verdict at INCONCLUSIVE (a person looks
#: first): ``*`` for every revision, or a comma-separated list of revisions. Whoever may patch the
#: AgentMonitor may set it (the ``hold-canary`` recommendation, once approved, sets it too).
HOLD_CANARY_ANNOTATION: Final = "proctor.dev/hold-canary"
#: An OpenTelemetry attribute name (dotted, lower-case by convention; we accept what OTel accepts).
ATTRIBUTE_NAME_PATTERN: Final = r"^[A-Za-z_][A-Za-z0-9_.\-]*$"


class AgentSelector(SpecModel):
    """Which agent's telemetry this monitor reads."""

    service_name: str = Field(
        min_length=1,
        max_length=255,
        description="The agent's OpenTelemetry service.name resource attribute (on native events: "
        "agent.serviceName). Spans of other services are not this monitor's.",
    )
    version: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        description="Only this service.version. Absent: every version; each is told apart in status "
        "and metrics as a revision (service.version, or the pod-template hash when the OpenTelemetry "
        "Collector adds k8s.pod.* attributes).",
    )


class ThresholdDetector(SpecModel):
    """The absolute breach: a score below its dimension's threshold breaches the run (always on)."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "!has(self.thresholds) || self.thresholds.all(k, k.matches('"
                    + DIMENSION_NAME_PATTERN
                    + "'))",
                    "thresholds: a dimension name is lower-case snake_case",
                    field_path=".thresholds",
                )
            ]
        }
    )

    thresholds: dict[str, Annotated[float, Field(ge=0, le=100)]] = Field(
        default_factory=dict,
        max_length=MAX_DIMENSIONS,
        description="Breach threshold 0-100 per dimension, overriding the EvalProfile's for live runs.",
    )

    @model_validator(mode="after")
    def _names(self) -> Self:
        bad = sorted(k for k in self.thresholds if not re.fullmatch(DIMENSION_NAME_PATTERN, k))
        if bad:
            raise ValueError(f"thresholds: not a dimension name (lower-case snake_case): {', '.join(bad)}")
        return self


class TrendDetector(SpecModel):
    """The dual-EWMA trend: the fast average below the slow one by the margin flags a decline."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    # has(): the API server also checks the default {} of the parent field
                    "!has(self.fastSpan) || !has(self.slowSpan) || self.fastSpan < self.slowSpan",
                    "fastSpan must be shorter than slowSpan",
                    field_path=".fastSpan",
                )
            ]
        }
    )

    enabled: bool = Field(default=True, description="Run the trend detector (on by default).")
    fast_span: int = Field(default=3, ge=1, le=1000, description="Span of the fast EWMA, in runs.")
    slow_span: int = Field(default=10, ge=2, le=1000, description="Span of the slow EWMA, in runs.")
    margin: float = Field(
        default=5.0,
        ge=0,
        le=100,
        description="Points (0-100) the fast EWMA must sit below the slow one to flag a trend.",
    )
    min_samples: int = Field(
        default=5, ge=1, le=1000, description="Scores of a dimension before the trend is judged."
    )

    @model_validator(mode="after")
    def _spans(self) -> Self:
        if self.fast_span >= self.slow_span:
            raise ValueError("fastSpan must be shorter than slowSpan")
        return self


class RelativeDropDetector(SpecModel):
    """The relative drop: a score far below the agent's own baseline (the slow EWMA) alerts even
    above the absolute threshold (opt-in)."""

    enabled: bool = Field(default=False, description="Run the relative-drop detector.")
    margin: float = Field(
        default=15.0, ge=0, le=100, description="Points below the slow EWMA that count as a drop."
    )
    min_samples: int = Field(
        default=5, ge=1, le=1000, description="Scores of a dimension before a drop is judged."
    )


class PercentileDetector(SpecModel):
    """The percentile corroborator: the latest score in the low tail of its recent window.
    Advisory: it rides along on a notice and never causes one (opt-in: window 0 is off)."""

    window: int = Field(
        default=0, ge=0, le=10000, description="Recent scores compared against; 0 turns it off."
    )
    floor: float = Field(
        default=10.0, ge=0, le=100, description="The percentile (0-100) of the window that is the low tail."
    )


class SeriesScope(StrEnum):
    """What one series of scores is: per agent revision, or per session within a revision."""

    REVISION = "revision"
    SESSION = "session"


class DetectorsSpec(SpecModel):
    """The detectors run over each dimension's series of live scores (seed 000)."""

    by: SeriesScope = Field(
        default=SeriesScope.REVISION,
        description="revision: one series per dimension and agent revision. session: one per session "
        "too (session.id or gen_ai.conversation.id), for agents whose runs are the turns of a session.",
    )
    threshold: ThresholdDetector = Field(
        default_factory=ThresholdDetector,
        description="The absolute breach (always on; thresholds default to the EvalProfile's).",
        json_schema_extra={"default": {}},
    )
    trend: TrendDetector = Field(
        default_factory=TrendDetector,
        description="The dual-EWMA trend (spans 3 and 10 by default).",
        json_schema_extra={"default": {}},
    )
    relative_drop: RelativeDropDetector = Field(
        default_factory=RelativeDropDetector,
        description="The relative drop against the slow EWMA (off by default).",
        json_schema_extra={"default": {}},
    )
    percentile: PercentileDetector = Field(
        default_factory=PercentileDetector,
        description="The percentile corroborator (off by default).",
        json_schema_extra={"default": {}},
    )


class NoticeCircuitBreaker(SpecModel):
    """Stops a storm of notices: more than maxNotices within windowSeconds become one needs_human."""

    max_notices: int = Field(
        default=5,
        ge=1,
        le=1000,
        description="Notices within windowSeconds before the breaker trips (NeedsHuman=True).",
    )
    window_seconds: int = Field(
        default=3600, ge=1, le=604800, description="The sliding window notices are counted in."
    )


class SinkType(StrEnum):
    """Where a notice goes."""

    ALERTMANAGER = "alertmanager"
    WEBHOOK = "webhook"


class NoticeSink(SpecModel):
    """One destination of notices."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "self.type == 'webhook' || !has(self.signingSecretRef)",
                    "signingSecretRef applies to webhook sinks only",
                    field_path=".signingSecretRef",
                )
            ]
        }
    )

    name: str = Field(
        min_length=1, max_length=63, pattern=DNS_SUBDOMAIN_PATTERN, description="Name of the sink."
    )
    type: SinkType = Field(
        description="alertmanager: POST alerts to Alertmanager's v2 API at url. webhook: POST the notice "
        "as JSON to url, signed with HMAC-SHA256 when signingSecretRef is set."
    )
    url: str = Field(max_length=2048, pattern=URL_PATTERN, description="Where notices are sent.")
    signing_secret_ref: SecretKeyRef | None = Field(
        default=None,
        description="For webhook: the Secret key whose value signs each notice (header "
        "X-Proctor-Signature); read at run time, never written anywhere.",
    )

    @model_validator(mode="after")
    def _signing(self) -> Self:
        if self.type is not SinkType.WEBHOOK and self.signing_secret_ref is not None:
            raise ValueError("signingSecretRef applies to webhook sinks only")
        return self


class NoticesSpec(SpecModel):
    """What is posted when a detector fires, and how often."""

    cooldown_runs: int = Field(
        default=0,
        ge=0,
        le=100000,
        description="While the same conditions persist, post again after this many runs (0: post a "
        "persistent problem once, and again only when a new condition appears).",
    )
    circuit_breaker: NoticeCircuitBreaker = Field(
        default_factory=NoticeCircuitBreaker,
        description="The circuit breaker (default: more than 5 notices in an hour).",
        json_schema_extra={"default": {}},
    )
    sinks: list[NoticeSink] = Field(
        default_factory=list,
        max_length=16,
        description="Where notices go (names unique). Empty: notices are Events on the monitor only.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )

    @model_validator(mode="after")
    def _unique(self) -> Self:
        names = [s.name for s in self.sinks]
        if len(names) != len(set(names)):
            raise ValueError("notice sink names must be unique")
        return self


class ActionPolicy(StrEnum):
    """What approving a recommendation needs (seed 004: gate on reversibility, not on confidence)."""

    ALLOW = "Allow"  # the operator applies it when the incident opens (reversible actions only)
    REQUIRE_APPROVAL = "RequireApproval"  # a person (or an agent the policy lets) approves it first
    DENY = "Deny"  # never applied; approving it is refused


#: The recommendation catalogue (seed 001), by id: whether the action can be undone.
RECOMMENDATIONS: Final[dict[str, bool]] = {
    "rollback": False,
    "hold-canary": True,
    "capture-cases": True,
    "review-judge": True,
}


class ActionsSpec(SpecModel):
    """Per action of the recommendation catalogue: Allow, RequireApproval (default) or Deny."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "!has(self.rollback) || self.rollback != 'Allow'",
                    "rollback cannot be undone: it needs RequireApproval or Deny, never Allow",
                    field_path=".rollback",
                )
            ]
        }
    )

    rollback: ActionPolicy = Field(
        default=ActionPolicy.REQUIRE_APPROVAL,
        description="Roll the agent back to the last revision without an open incident (irreversible: "
        "RequireApproval or Deny).",
    )
    hold_canary: ActionPolicy = Field(
        default=ActionPolicy.REQUIRE_APPROVAL,
        description="Hold the canary of the breaching revision (its live verdict answers INCONCLUSIVE).",
    )
    capture_cases: ActionPolicy = Field(
        default=ActionPolicy.REQUIRE_APPROVAL,
        description="Add the breached runs as candidate cases to the monitor's captureTo CaseSet.",
    )
    review_judge: ActionPolicy = Field(
        default=ActionPolicy.REQUIRE_APPROVAL,
        description="Flag the judge for review on a dimension its samples disagreed on.",
    )

    @model_validator(mode="after")
    def _irreversible(self) -> Self:
        if self.rollback is ActionPolicy.ALLOW:
            raise ValueError(
                "actions.rollback cannot be undone: it needs RequireApproval or Deny, never Allow"
            )
        return self

    def policy_for(self, recommendation: str) -> ActionPolicy:
        """The policy of a catalogue id (``hold-canary`` -> ``holdCanary``)."""
        return ActionPolicy(getattr(self, recommendation.replace("-", "_")))


# --- the live canary verdict (armb-canary) ---------------------------------------------------------


class LiveCanarySpec(SpecModel):
    """How a revision's live verdict is decided (GET /api/v1/monitors/NS/NAME/verdict?revision=R)."""

    min_runs: int = Field(
        default=DEFAULT_CANARY_MIN_RUNS,
        ge=1,
        le=100000,
        description="Judged runs of the revision before it can PASS (or FAIL on the tolerance); "
        "INCONCLUSIVE until then. A safety-tier breach is FAIL at once.",
    )
    max_breached_percent: float = Field(
        default=DEFAULT_CANARY_MAX_BREACHED_PERCENT,
        ge=0,
        le=100,
        description="Percent of judged runs that may breach outside the safety tier (default 5: the "
        "trust tier's budget); more is FAIL.",
    )


class AgentMonitorSpec(SpecModel):
    """Which live agent is watched, how its runs are found and judged, and what acts on the scores."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "!has(self.runKey) || self.runKey.all(k, self.runKey.exists_one(j, j == k))",
                    "runKey names an attribute twice",
                    field_path=".runKey",
                ),
            ]
        }
    )

    agent: AgentSelector = Field(description="The agent, by its OpenTelemetry service.name.")
    profile_ref: LocalObjectReference = Field(
        description="The EvalProfile the runs are judged by (dimensions, thresholds, judge, safety scan)."
    )
    run_key: list[Annotated[str, Field(min_length=1, max_length=255, pattern=ATTRIBUTE_NAME_PATTERN)]] = (
        Field(
            default_factory=lambda: list(DEFAULT_RUN_KEY),
            min_length=1,
            max_length=16,
            description="Attributes that make a run, in order: a span or event belongs to the run named "
            "by the first of them it carries (span, then resource attributes). trace_id stands for the "
            "span's trace id. Default: proctor.execution_id, gen_ai.conversation.id, session.id, trace_id.",
            json_schema_extra={"default": list(DEFAULT_RUN_KEY)},
        )
    )
    quiescence_seconds: int = Field(
        default=int(DEFAULT_QUIESCENCE_SECONDS),
        ge=0,
        le=86400,
        description="Seconds without an event before a run is judged, so a late tool result or final "
        "output is not judged as missing (default 90).",
    )
    sampling: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description="Share of runs judged, 0-1, decided per run from its id (the same run is always in "
        "or out, on every replica). Runs not sampled are stored and counted, never judged.",
    )
    observe_only: bool = Field(
        default=False,
        description="Shadow mode: evaluate and record everything, notify nobody (condition Observing).",
    )
    detectors: DetectorsSpec = Field(
        default_factory=DetectorsSpec,
        description="The detectors over each dimension's scores.",
        json_schema_extra={"default": {}},
    )
    notices: NoticesSpec = Field(
        default_factory=NoticesSpec,
        description="Notices: cooldown, circuit breaker, sinks.",
        json_schema_extra={"default": {}},
    )
    actions: ActionsSpec = Field(
        default_factory=ActionsSpec,
        description="What approving each recommendation of an incident needs (default RequireApproval).",
        json_schema_extra={"default": {}},
    )
    capture_to: LocalObjectReference | None = Field(
        default=None,
        description="The CaseSet that breached runs are captured into as candidate cases "
        "(exported with proctor cases export). Absent: candidates stay in the database.",
    )
    target: LocalObjectReference | None = Field(
        default=None,
        description="The Deployment running the agent, in the monitor's own namespace: what an approved "
        "rollback rolls back (to the template its GatePolicy last approved, else the previous "
        "ReplicaSet's, as kubectl rollout undo). Absent: a rollback is refused with an Event.",
    )
    canary: LiveCanarySpec = Field(
        default_factory=LiveCanarySpec,
        description="The live canary verdict a rollout controller asks for (Argo Rollouts, Flagger).",
        json_schema_extra={"default": {}},
    )
    token_secret_ref: SecretKeyRef | None = Field(
        default=None,
        description="The Secret key holding the bearer token agents send with their telemetry "
        "(Authorization: Bearer ...): spans reach this monitor only with it. Required in a cluster "
        "(absent: the collector accepts nothing for the monitor, Receiving=False NoIngestionToken); "
        "a collector run from files uses its PROCTOR_TOKEN.",
    )

    @model_validator(mode="after")
    def _unique_key(self) -> Self:
        if len(self.run_key) != len(set(self.run_key)):
            raise ValueError("runKey names an attribute twice")
        return self


# --- status ----------------------------------------------------------------------------------------


class RunCounts(StatusModel):
    """How many of the monitor's runs are in each state."""

    total: int = Field(default=0, ge=0, description="Every run seen.")
    receiving: int = Field(default=0, ge=0, description="Runs whose events are arriving.")
    quiescing: int = Field(default=0, ge=0, description="Runs waiting out their quiescence.")
    ready_for_evaluation: int = Field(default=0, ge=0, description="Runs queued for the judge.")
    evaluating: int = Field(default=0, ge=0, description="Runs being judged.")
    evaluated: int = Field(default=0, ge=0, description="Runs with every dimension scored.")
    partially_evaluated: int = Field(
        default=0, ge=0, description="Runs with some dimensions skipped (with a reason)."
    )
    evaluation_failed: int = Field(default=0, ge=0, description="Runs no dimension could be scored for.")
    not_sampled: int = Field(default=0, ge=0, description="Runs left out by sampling (stored, not judged).")
    breached: int = Field(default=0, ge=0, description="Evaluated runs with a dimension below its threshold.")


#: The RunCounts field of each run state (one place: status, the API and metrics use it).
STATE_COUNT_FIELDS: Final[dict[RunState, str]] = {
    RunState.RECEIVING: "receiving",
    RunState.QUIESCING: "quiescing",
    RunState.READY: "ready_for_evaluation",
    RunState.EVALUATING: "evaluating",
    RunState.EVALUATED: "evaluated",
    RunState.PARTIALLY_EVALUATED: "partially_evaluated",
    RunState.EVALUATION_FAILED: "evaluation_failed",
    RunState.NOT_SAMPLED: "not_sampled",
}


class DimensionStatus(StatusModel):
    """One judged dimension's live series."""

    name: str = Field(max_length=63, description="Name of the dimension.")
    revision: str | None = Field(
        default=None,
        max_length=255,
        description="The agent revision the latest score and EWMAs are of: the newest one scored (each "
        "revision is its own series). Absent: the figures are the monitor's, all revisions together.",
    )
    latest: float | None = Field(
        default=None, ge=0, le=100, description="The latest score, 0-100 (absent until one was measured)."
    )
    fast_ewma: float | None = Field(
        default=None, ge=0, le=100, description="The fast EWMA of the scores (span detectors.trend.fastSpan)."
    )
    slow_ewma: float | None = Field(
        default=None, ge=0, le=100, description="The slow EWMA of the scores (span detectors.trend.slowSpan)."
    )
    samples: int = Field(default=0, ge=0, description="Scores measured so far (skipped ones not counted).")
    skipped: int = Field(
        default=0, ge=0, description="Evaluations that skipped this dimension (with a reason)."
    )
    threshold: float | None = Field(default=None, ge=0, le=100, description="Its breach threshold.")


class OutcomesStatus(StatusModel):
    """Arm C: what people did with the agent's delivered outputs (the latest word on each run).

    The acceptance rate is never shown without the human minutes per accepted output, and ignored
    outputs are counted on their own (seed 004 section 13)."""

    accepted: int = Field(default=0, ge=0, description="Outputs used as delivered.")
    modified: int = Field(default=0, ge=0, description="Outputs used after a person changed them.")
    rejected: int = Field(default=0, ge=0, description="Outputs a person turned down.")
    ignored: int = Field(default=0, ge=0, description="Outputs nobody acted on (not in the rate).")
    acceptance_rate: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="(accepted + modified) / (accepted + modified + rejected); read with minutesPerAccepted.",
    )
    minutes_per_accepted: float | None = Field(
        default=None, ge=0, description="Human minutes spent per accepted or modified output."
    )


class IncidentSummary(StatusModel):
    """One open incident, briefly (the full record is in the collector: proctor incidents show)."""

    id: str = Field(max_length=64, description="Id of the incident in the collector.")
    severity: Severity = Field(
        description="low, medium, high or critical.",
        json_schema_extra={"enum": [s.value for s in Severity if s is not Severity.NONE]},
    )
    signatures: list[Annotated[str, Field(max_length=128)]] = Field(
        default_factory=list, max_length=16, description="What fired, e.g. breach:safety, trend:task_success."
    )
    revision: str | None = Field(default=None, max_length=255, description="The agent revision it concerns.")
    opened_at: Time | None = Field(default=None, description="When it opened.")


class IncidentsStatus(StatusModel):
    """Open incidents: how many, the worst, the first few."""

    open: int = Field(default=0, ge=0, description="Open incidents.")
    worst_severity: Severity | None = Field(
        default=None,
        description="The worst severity among them (absent when none is open).",
        json_schema_extra={"enum": [s.value for s in Severity if s is not Severity.NONE]},
    )
    first: list[IncidentSummary] = Field(
        default_factory=list,
        max_length=MAX_LISTED_INCIDENTS,
        description=f"The oldest {MAX_LISTED_INCIDENTS} open incidents.",
    )


class AgentMonitorStatus(StatusModel):
    """A summary of the live agent's runs; the runs themselves are in the collector's database."""

    observed_generation: int | None = Field(
        default=None, ge=0, description="The metadata.generation this status was computed from."
    )
    runs: RunCounts | None = Field(default=None, description="Runs by state.")
    dimensions: list[DimensionStatus] = Field(
        default_factory=list,
        max_length=MAX_DIMENSIONS,
        description="Per judged dimension: the latest score and both EWMAs.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    incidents: IncidentsStatus | None = Field(default=None, description="Open incidents.")
    outcomes: OutcomesStatus | None = Field(
        default=None,
        description="Arm C: acceptance rate beside human minutes per accepted output, ignored apart.",
    )
    consensus_multiplier: float | None = Field(
        default=None,
        ge=1,
        description="Judge calls per judged dimension: the cost consensus puts on the evaluation bill "
        "(1.0: consensus never ran).",
    )
    revisions: list[Annotated[str, Field(max_length=255)]] = Field(
        default_factory=list, max_length=16, description="The agent revisions seen recently, newest first."
    )
    last_event_time: Time | None = Field(default=None, description="When the last event arrived.")
    last_evaluation_time: Time | None = Field(default=None, description="When a run was last evaluated.")
    conditions: list[Condition] = Field(
        default_factory=list,
        max_length=16,
        description="Conditions: Receiving, Breached, Degrading, NeedsHuman, Observing.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
    )


class AgentMonitor(SpecModel):
    """AgentMonitor watches a live agent (arm B): its OpenTelemetry traces become runs, each judged
    once with an EvalProfile when its events stop; detectors over the scores open incidents."""

    KIND: ClassVar[str] = "AgentMonitor"
    PLURAL: ClassVar[str] = "agentmonitors"
    SINGULAR: ClassVar[str] = "agentmonitor"
    SHORT_NAMES: ClassVar[tuple[str, ...]] = ("amon",)

    api_version: Literal["proctor.dev/v1alpha1"] = Field(
        default=API_VERSION, description="proctor.dev/v1alpha1"
    )
    kind: Literal["AgentMonitor"] = Field(default="AgentMonitor", description="AgentMonitor")
    metadata: ObjectMeta = Field(default_factory=ObjectMeta, description="Standard object metadata.")
    spec: AgentMonitorSpec = Field(description="The agent, its profile, the run lifecycle and detectors.")
    status: AgentMonitorStatus | None = Field(default=None, description="A summary of the live runs.")

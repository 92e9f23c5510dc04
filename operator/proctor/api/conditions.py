"""Kubernetes-convention conditions, and the one setter that owns their rules.

A condition is ``type`` / ``status`` (True, False, Unknown) / ``reason`` (a CamelCase constant) /
``message`` (for people) / ``lastTransitionTime`` / ``observedGeneration``. :func:`set_condition` keeps
``lastTransitionTime`` when the status did not change (the reason and message may change) and
moves it to ``now`` when it did; the clock is passed in.

Condition types, by kind, with their reasons (``status: reason``). The reasons of ``Passed``,
``BaselineFrozen`` and ``Deterministic`` are the protocol's own (``VerdictReason``,
``FreezeReason``, ``CanaryReason`` in :mod:`proctor.protocol`), so a decision and its condition
never disagree on a word.

``Ready`` (CaseSet, EvalProfile, GatePolicy): the spec is valid and everything it references exists.
    True: ``Resolved``. False: ``InvalidSpec``, ``InvalidCases``, ``DuplicateCaseIds``,
    ``ConfigMapNotFound``, ``SecretNotFound``, ``CaseSetNotFound``, ``ProfileNotFound``;
    ``WebhookUnreachable`` (an enforcing GatePolicy whose admission webhook the API server cannot
    call: no gated Deployment can change until it can).
``BaselineFrozen`` (CaseSet): a baseline is frozen and regressions are measured against it.
    True: ``StableRuns``. False: ``NotEnoughRuns``, ``RedRun``, ``CaseSetChanged``,
    ``ProvenanceChanged``, ``SafetyVariance``, ``TierVarianceOverBudget``.
``Finished`` (EvalRun): the run is over, whatever came of it (``kubectl wait --for=condition=Finished``).
    True: ``Evaluated``, ``PartiallyEvaluated``, ``Failed`` (the phase it ended in). False: ``Pending``,
    ``ShardsRunning``, ``RetryScheduled``.
``Evaluated`` (EvalRun): the agent was measured: the verdict is PASS, FAIL or WARN, one a gate can act
    on (``kubectl wait --for=condition=Evaluated``; an ERROR never satisfies it).
    True: ``Evaluated``, ``PartiallyEvaluated``. False: while the run is unfinished ``Pending``,
    ``ShardsRunning``, ``Evaluating``, ``RetryScheduled``; once it ended in ERROR, why nothing
    conclusive was measured: ``NothingMeasured``, ``SafetyUnmeasured`` (the protocol's),
    ``EvaluationFailed`` (a harness failure retried until it gave up), or one of
    :data:`PERMANENT_REASONS` (a mistake no retry can fix, found before a Job was launched or from
    the judge pod; the message names the object and the field): ``InvalidSpec``,
    ``CaseSetNotFound``, ``InvalidCases``, ``DuplicateCaseIds``, ``ConfigMapNotFound``,
    ``ProfileNotFound``, ``InvalidProfile``, ``PolicyNotFound``, ``InvalidPolicy``,
    ``InvalidResponses``, ``SecretNotFound``, ``ContainerConfigInvalid``, ``ImagePullFailed``,
    ``ContainerStartFailed``, ``PodRejected``, ``TemplateNotReproducible`` (a candidate pod template
    the exam cannot run whole, as production would).
``Breached`` (EvalRun): a tier is below its threshold or regressed (verdict FAIL).
    True: ``TierBelowThreshold``, ``RegressedFromBaseline``. False: ``WithinThresholds``.
    Unknown: ``InProgress`` (also when nothing was measured: no breach can be claimed).
``Passed`` (EvalRun): the verdict lets a gate pass.
    True: ``AllTiersClean`` (PASS); ``TierNotClean``, ``CasesUnmeasured`` (WARN, when WARN passes).
    False: ``TierBelowThreshold``, ``RegressedFromBaseline`` (FAIL); ``NothingMeasured``,
    ``SafetyUnmeasured`` (ERROR); a WARN reason when the policy does not let WARN pass.
    Unknown: ``InProgress``.
``Degraded`` (EvalRun): something was not measured (the result is real but partial).
    True: ``JudgeUnavailable``, ``DimensionsSkipped``, ``ShardFailed``, ``CasesUnmeasured``, or the
    permanent reason a run ended in ERROR with.
    False: ``AllMeasured``.
``RolloutBlocked`` (GatePolicy): a gated rollout is held.
    True: ``VerdictFailed`` (also when the canary FAILed an approved revision: Event
    ``CanaryFailed``, the approval revoked), ``VerdictError``, ``CanaryUnsettled`` (a PASS waits for
    the determinism canary), ``CircuitOpen``. False: ``NotBlocked``, ``ObserveOnly``.
    A Deployment whose exam's name is taken by a run that is not the policy's own is held with the
    Event reason ``ExamNotTrusted``; one whose identity cannot be examined (a Secret the policy does
    not declare, a tier below the policy's ``minCases``) with ``NotExaminable``.
``Enforcing`` (GatePolicy): rollouts are gated (held on FAIL/ERROR). True: ``Enforcing``,
    ``CanaryTampered`` (the canary's runs are not the policy's own: it enforces without them, fail
    closed), ``CanaryUnsettled`` (the canary finished without a stable safety tier, or runs again
    after the policy enforced: it still enforces and holds PASSes). False: ``ObserveOnly``
    (enforcement: Observe, the only way back once a policy enforced), ``CanaryPending`` (a new
    policy until its canary first finished: it records what it would do), ``WebhookDisabled`` (the
    operator serves no admission webhook: ``Enforce`` is refused, verdicts are only recorded).
``Deterministic`` (GatePolicy): the determinism canary showed zero safety-tier variance, so a PASS
    may be approved. True: ``ZeroSafetyVariance``. False:
    ``NotEnoughRuns``, ``RunsNotComparable``, ``RunWithoutMeasurement``, ``SafetyVariance``,
    ``TierVarianceOverBudget``. Unknown: ``CanaryTampered``.
``CircuitOpen`` (GatePolicy): some Deployment was blocked too often in the window (each counts its
    own); a person should look.
    True: ``TooManyBlocks``. False: ``WithinBudget``.
``JudgeTrusted`` (EvalProfile): people's reviews show the judge catches breaches, per dimension the
    lower 95% bound of its recall at or above ``spec.judgeTrust.recallFloor``.
    True: ``RecallAboveFloor``. False: ``MissesBreaches`` (the message names each dimension and its
    bound). Unknown: ``TooFewReviews`` (under 20 reviews of a dimension, or no breach a reviewer saw),
    ``CollectorNotConfigured``, ``CollectorUnavailable``, ``CollectorRefused``.
``JudgeTrusted`` (GatePolicy): the same, for the profile its exams are judged by (copied from the
    profile's condition; ``JudgeTrustUnknown`` while it has none). With ``judgeTrust: Hold`` a passing
    verdict judged by an untrusted judge holds the rollout (RolloutBlocked ``JudgeNotTrusted``).
``Receiving`` (AgentMonitor): the agent's telemetry is arriving (an event within the last
    ``max(300 s, 2 x quiescenceSeconds)``, as the collector reports it).
    True: ``RunsArriving``. False: ``NoRecentRuns``, ``ProfileNotFound``, ``InvalidSpec``,
    ``NoIngestionToken`` (no ``spec.tokenSecretRef``, or the collector cannot read its Secret: the
    collector accepts no telemetry for the monitor).
    Unknown (the operator cannot ask the collector; the last figures stay in status):
    ``CollectorNotConfigured`` (no ``PROCTOR_COLLECTOR_URL``), ``CollectorUnavailable``,
    ``CollectorRefused`` (401/403: the operator's token, or its RBAC ``get`` on agentmonitors),
    ``NotServedByCollector`` (the collector does not serve this monitor's namespace).
``Breached`` (AgentMonitor): the latest score of a live series (a dimension or trajectory signal of
    an agent revision stepped within the hour of the newest) is below its threshold.
    True: ``DimensionBelowThreshold``, ``SafetyScanFinding``. False: ``WithinThresholds``.
    Unknown: ``NothingMeasured``, ``DetectorsNotRunning`` (a collector that does not run them).
``Degrading`` (AgentMonitor): a live series declines without (yet) breaching: its fast EWMA below
    the slow one by the margin, or its latest score far below its slow EWMA.
    True: ``TrendDeclining``, ``RelativeDrop``. False: ``Stable``. Unknown: ``NothingMeasured``,
    ``DetectorsNotRunning``.
``NeedsHuman`` (AgentMonitor): the notice circuit breaker tripped; notices are held until a person
    looks. True: ``TooManyNotices``. False: ``WithinBudget``. Unknown: ``DetectorsNotRunning``.
``Observing`` (AgentMonitor): shadow mode, everything is evaluated and recorded, nobody notified.
    True: ``ObserveOnly``. False: ``Notifying``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum

from pydantic import Field

from proctor.api.common import StatusModel, Time
from proctor.protocol import CanaryReason, FreezeReason, TrustReason, VerdictReason

#: Kubernetes' metav1.Condition type pattern (an optional DNS prefix, then a name).
CONDITION_TYPE_PATTERN = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
)
#: Kubernetes' metav1.Condition reason pattern (CamelCase in practice).
REASON_PATTERN = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"


class ConditionStatus(StrEnum):
    """The three-way status of a condition."""

    TRUE = "True"
    FALSE = "False"
    UNKNOWN = "Unknown"


class ConditionType(StrEnum):
    """The condition types Proctor writes (see the module docstring for which kind carries which)."""

    READY = "Ready"
    FINISHED = "Finished"
    BASELINE_FROZEN = "BaselineFrozen"
    EVALUATED = "Evaluated"
    BREACHED = "Breached"
    PASSED = "Passed"
    DEGRADED = "Degraded"
    ROLLOUT_BLOCKED = "RolloutBlocked"
    ENFORCING = "Enforcing"
    DETERMINISTIC = "Deterministic"
    CIRCUIT_OPEN = "CircuitOpen"
    RECEIVING = "Receiving"
    DEGRADING = "Degrading"
    NEEDS_HUMAN = "NeedsHuman"
    OBSERVING = "Observing"
    JUDGE_TRUSTED = "JudgeTrusted"


class Reason(StrEnum):
    """The reasons Proctor writes (CamelCase, stable: alerts and scripts match on them)."""

    # Ready
    RESOLVED = "Resolved"
    INVALID_SPEC = "InvalidSpec"
    INVALID_CASES = "InvalidCases"
    DUPLICATE_CASE_IDS = "DuplicateCaseIds"
    CONFIG_MAP_NOT_FOUND = "ConfigMapNotFound"
    SECRET_NOT_FOUND = "SecretNotFound"
    CASE_SET_NOT_FOUND = "CaseSetNotFound"
    PROFILE_NOT_FOUND = "ProfileNotFound"
    # Ready and Enforcing of a GatePolicy: the admission webhook
    WEBHOOK_UNREACHABLE = "WebhookUnreachable"
    WEBHOOK_DISABLED = "WebhookDisabled"
    # permanent failures of a run (also CaseSetNotFound, ProfileNotFound, InvalidSpec, InvalidCases,
    # DuplicateCaseIds, ConfigMapNotFound, SecretNotFound): see PERMANENT_REASONS
    POLICY_NOT_FOUND = "PolicyNotFound"
    INVALID_PROFILE = "InvalidProfile"
    INVALID_POLICY = "InvalidPolicy"
    INVALID_RESPONSES = "InvalidResponses"
    CONTAINER_CONFIG_INVALID = "ContainerConfigInvalid"
    IMAGE_PULL_FAILED = "ImagePullFailed"
    CONTAINER_START_FAILED = "ContainerStartFailed"
    POD_REJECTED = "PodRejected"
    #: a candidate pod template the exam cannot reproduce whole (a volume type, a host namespace, a
    #: downward-API file of the pod's own labels): refused with the part named, never dropped silently
    TEMPLATE_NOT_REPRODUCIBLE = "TemplateNotReproducible"
    # BaselineFrozen (the protocol's FreezeReason)
    STABLE_RUNS = FreezeReason.STABLE_RUNS
    NOT_ENOUGH_RUNS = FreezeReason.NOT_ENOUGH_RUNS
    RED_RUN = FreezeReason.RED_RUN
    CASE_SET_CHANGED = FreezeReason.CASE_SET_CHANGED
    PROVENANCE_CHANGED = FreezeReason.PROVENANCE_CHANGED
    SAFETY_VARIANCE = FreezeReason.SAFETY_VARIANCE
    TIER_VARIANCE_OVER_BUDGET = FreezeReason.TIER_VARIANCE_OVER_BUDGET
    # Finished and Evaluated
    PENDING = "Pending"
    SHARDS_RUNNING = "ShardsRunning"
    EVALUATING = "Evaluating"
    RETRY_SCHEDULED = "RetryScheduled"
    EVALUATED = "Evaluated"
    PARTIALLY_EVALUATED = "PartiallyEvaluated"
    EVALUATION_FAILED = "EvaluationFailed"
    FAILED = "Failed"
    # Passed (the protocol's VerdictReason)
    ALL_TIERS_CLEAN = VerdictReason.ALL_TIERS_CLEAN
    TIER_NOT_CLEAN = VerdictReason.TIER_NOT_CLEAN
    CASES_UNMEASURED = VerdictReason.CASES_UNMEASURED
    TIER_BELOW_THRESHOLD = VerdictReason.TIER_BELOW_THRESHOLD
    REGRESSED_FROM_BASELINE = VerdictReason.REGRESSED_FROM_BASELINE
    NOTHING_MEASURED = VerdictReason.NOTHING_MEASURED
    SAFETY_UNMEASURED = VerdictReason.SAFETY_UNMEASURED
    IN_PROGRESS = "InProgress"
    # Breached
    WITHIN_THRESHOLDS = "WithinThresholds"
    # Degraded (also CasesUnmeasured)
    JUDGE_UNAVAILABLE = "JudgeUnavailable"
    DIMENSIONS_SKIPPED = "DimensionsSkipped"
    SHARD_FAILED = "ShardFailed"
    ALL_MEASURED = "AllMeasured"
    # RolloutBlocked
    VERDICT_FAILED = "VerdictFailed"
    VERDICT_ERROR = "VerdictError"
    CIRCUIT_OPEN = "CircuitOpen"
    NOT_BLOCKED = "NotBlocked"
    OBSERVE_ONLY = "ObserveOnly"
    #: an EvalRun the gate would have read is not the policy's own (its spec, owner or labels)
    EXAM_NOT_TRUSTED = "ExamNotTrusted"
    #: what the workload would be approved on cannot be examined: a Secret the policy does not declare,
    #: fewer cases in a tier than the policy's floor, cases that do not resolve
    NOT_EXAMINABLE = "NotExaminable"
    #: a PASS waits: the determinism canary has not (again) shown a stable safety tier
    CANARY_UNSETTLED = "CanaryUnsettled"
    #: the canary FAILed the revision it examined: that approval is revoked
    CANARY_FAILED = "CanaryFailed"
    # Deterministic (the protocol's CanaryReason; also NotEnoughRuns, SafetyVariance,
    # TierVarianceOverBudget)
    ZERO_SAFETY_VARIANCE = CanaryReason.ZERO_SAFETY_VARIANCE
    RUNS_NOT_COMPARABLE = CanaryReason.RUNS_NOT_COMPARABLE
    RUN_WITHOUT_MEASUREMENT = CanaryReason.RUN_WITHOUT_MEASUREMENT
    CANARY_TAMPERED = "CanaryTampered"
    # CircuitOpen
    TOO_MANY_BLOCKS = "TooManyBlocks"
    WITHIN_BUDGET = "WithinBudget"
    # AgentMonitor: Receiving, Breached (also WithinThresholds, NothingMeasured), Degrading,
    # NeedsHuman (also WithinBudget), Observing (also ObserveOnly)
    RUNS_ARRIVING = "RunsArriving"
    NO_RECENT_RUNS = "NoRecentRuns"
    DIMENSION_BELOW_THRESHOLD = "DimensionBelowThreshold"
    SAFETY_SCAN_FINDING = "SafetyScanFinding"
    TREND_DECLINING = "TrendDeclining"
    RELATIVE_DROP = "RelativeDrop"
    STABLE = "Stable"
    TOO_MANY_NOTICES = "TooManyNotices"
    NOTIFYING = "Notifying"
    COLLECTOR_NOT_CONFIGURED = "CollectorNotConfigured"
    COLLECTOR_UNAVAILABLE = "CollectorUnavailable"
    COLLECTOR_REFUSED = "CollectorRefused"
    NOT_SERVED_BY_COLLECTOR = "NotServedByCollector"
    NO_INGESTION_TOKEN = "NoIngestionToken"
    DETECTORS_NOT_RUNNING = "DetectorsNotRunning"
    # JudgeTrusted (EvalProfile, GatePolicy; the protocol's TrustReason; also the Collector* reasons)
    RECALL_ABOVE_FLOOR = TrustReason.RECALL_ABOVE_FLOOR
    MISSES_BREACHES = TrustReason.MISSES_BREACHES
    TOO_FEW_REVIEWS = TrustReason.TOO_FEW_REVIEWS
    #: a GatePolicy's profile has no JudgeTrusted condition yet (or no profile)
    JUDGE_TRUST_UNKNOWN = "JudgeTrustUnknown"
    #: RolloutBlocked: a passing verdict held because the policy's judge misses breaches (judgeTrust: Hold)
    JUDGE_NOT_TRUSTED = "JudgeNotTrusted"


#: Why a run ends in ERROR at once, never retried: a mistake in what it was given (a reference that does
#: not exist or is not usable, an invalid spec, a missing Secret, ConfigMap or key, an image that cannot
#: run, a pod the API server refuses). Found before a Job is launched where it can be; otherwise from the
#: judge pod (the kubelet's waiting reason, the Job controller's ``FailedCreate`` Event) or from the
#: runner's report. Every other failure (a crash, a timeout, a 5xx, a node lost) is retried with backoff.
PERMANENT_REASONS: frozenset[str] = frozenset(
    {
        Reason.INVALID_SPEC,
        Reason.CASE_SET_NOT_FOUND,
        Reason.INVALID_CASES,
        Reason.DUPLICATE_CASE_IDS,
        Reason.CONFIG_MAP_NOT_FOUND,
        Reason.SECRET_NOT_FOUND,
        Reason.PROFILE_NOT_FOUND,
        Reason.INVALID_PROFILE,
        Reason.POLICY_NOT_FOUND,
        Reason.INVALID_POLICY,
        Reason.INVALID_RESPONSES,
        Reason.CONTAINER_CONFIG_INVALID,
        Reason.IMAGE_PULL_FAILED,
        Reason.CONTAINER_START_FAILED,
        Reason.POD_REJECTED,
        Reason.TEMPLATE_NOT_REPRODUCIBLE,
    }
)


class Condition(StatusModel):
    """One aspect of the object's current state, in the Kubernetes convention."""

    type: str = Field(
        min_length=1,
        max_length=316,
        pattern=CONDITION_TYPE_PATTERN,
        description="Type of the condition, in CamelCase (e.g. Ready, RolloutBlocked).",
    )
    status: ConditionStatus = Field(description="Status of the condition: True, False or Unknown.")
    reason: str = Field(
        min_length=1,
        max_length=1024,
        pattern=REASON_PATTERN,
        description="A CamelCase, machine-readable reason for the status (stable: alerts match on it).",
    )
    message: str = Field(
        default="", max_length=32768, description="A human-readable explanation of the status."
    )
    last_transition_time: Time = Field(
        description="When the status last changed (not the reason or message), RFC 3339."
    )
    observed_generation: int | None = Field(
        default=None,
        ge=0,
        description="The metadata.generation of the object this condition was set from.",
    )


def _status(value: ConditionStatus | bool | str) -> ConditionStatus:
    if isinstance(value, bool):
        return ConditionStatus.TRUE if value else ConditionStatus.FALSE
    return ConditionStatus(value)


def set_condition(
    conditions: Iterable[Condition],
    type: str,
    status: ConditionStatus | bool,
    reason: str,
    message: str,
    *,
    now: datetime,
    observed_generation: int | None,
) -> list[Condition]:
    """Return a new list with condition ``type`` set; the input is not modified.

    ``lastTransitionTime`` is kept when the status did not change (reason, message and
    observedGeneration are updated regardless) and becomes ``now`` when it did or when the
    condition is new. Other conditions keep their order; a new one is appended. ``status`` may be a
    bool for the common True/False case.
    """
    new_status = _status(status)
    out: list[Condition] = []
    found = False
    for cond in conditions:
        if cond.type != type:
            out.append(cond)
            continue
        if found:  # a duplicate type (should not happen): the first one wins, the rest go
            continue
        found = True
        transition = cond.last_transition_time if cond.status == new_status else now
        out.append(
            Condition(
                type=type,
                status=new_status,
                reason=reason,
                message=message,
                last_transition_time=transition,
                observed_generation=observed_generation,
            )
        )
    if not found:
        out.append(
            Condition(
                type=type,
                status=new_status,
                reason=reason,
                message=message,
                last_transition_time=now,
                observed_generation=observed_generation,
            )
        )
    return out


def get_condition(conditions: Sequence[Condition] | None, type: str) -> Condition | None:
    """The condition of ``type``, or None."""
    for cond in conditions or ():
        if cond.type == type:
            return cond
    return None


def condition_status(conditions: Sequence[Condition] | None, type: str) -> ConditionStatus:
    """The status of condition ``type``; Unknown when it is absent."""
    cond = get_condition(conditions, type)
    return ConditionStatus.UNKNOWN if cond is None else cond.status


def is_true(conditions: Sequence[Condition] | None, type: str) -> bool:
    """Whether condition ``type`` is present and True."""
    return condition_status(conditions, type) == ConditionStatus.TRUE


def is_false(conditions: Sequence[Condition] | None, type: str) -> bool:
    """Whether condition ``type`` is present and False."""
    return condition_status(conditions, type) == ConditionStatus.FALSE

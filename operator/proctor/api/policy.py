"""GatePolicy: what passing means, and which rollouts wait for the exam.

The protocol (tier thresholds, regression margin against the frozen baseline, the determinism
canary, WARN handling) and the gate (which Deployments, how to reach a candidate, Enforce or
Observe, Hold or Rollback, the circuit breaker) live here.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, ClassVar, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from proctor.api.common import (
    DNS_SUBDOMAIN_PATTERN,
    KindModel,
    LocalObjectReference,
    SpecModel,
    StatusModel,
    Time,
    VerdictName,
    cel,
)
from proctor.api.conditions import Condition
from proctor.protocol import DEFAULT_CANARY_RUNS as DEFAULT_CANARY_RUNS  # the protocol's defaults
from proctor.protocol import DEFAULT_REGRESSION_MARGIN as DEFAULT_REGRESSION_MARGIN
from proctor.protocol import ProtocolPolicy
from proctor.protocol.types import DEFAULT_THRESHOLDS, Tier


class Enforcement(StrEnum):
    """Whether a failing verdict holds the rollout (Enforce) or is only reported (Observe, shadow mode)."""

    ENFORCE = "Enforce"
    OBSERVE = "Observe"


class OnFail(StrEnum):
    """What the gate does with a rollout that failed: hold it paused, or roll the template back."""

    HOLD = "Hold"
    ROLLBACK = "Rollback"


class JudgeTrustAction(StrEnum):
    """What the gate does when the profile's judge misses breaches (its JudgeTrusted is False):
    Warn says so in the policy's JudgeTrusted condition and lets verdicts stand; Hold also holds
    every rollout whose verdict would pass, as a FAIL does, until reviews show the judge again clears
    the floor (or a person sets Warn)."""

    HOLD = "Hold"
    WARN = "Warn"


class CandidateProtocol(StrEnum):
    """How a case is sent to the agent and its answer read back."""

    OPENAI_CHAT = "openai-chat"
    HTTP_JSON = "http-json"


class AgentProtocol(SpecModel):
    """How a case is sent to the agent and its answer read back (shared by candidates and endpoints)."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "self.protocol != 'http-json' || has(self.responsePath)",
                    "protocol http-json needs responsePath (where the answer is in the response)",
                    field_path=".responsePath",
                ),
                cel(
                    "self.protocol == 'http-json' || (!has(self.requestTemplate) && !has(self.responsePath))",
                    "requestTemplate and responsePath apply to protocol http-json only",
                ),
            ]
        }
    )

    protocol: CandidateProtocol = Field(
        default=CandidateProtocol.OPENAI_CHAT,
        description="Request protocol. openai-chat: POST an OpenAI chat-completions request, read "
        "choices[0].message.content. http-json: POST requestTemplate, read the answer at responsePath.",
    )
    model: str | None = Field(
        default=None, max_length=256, description="For openai-chat: the model name sent in each request."
    )
    request_template: str | None = Field(
        default=None,
        max_length=65536,
        description="For http-json: the JSON request body, with {{input}} replaced by the case input as a "
        'JSON string and {{messages}} by the chat messages as a JSON array. Default: {"input": {{input}}}.',
    )
    response_path: str | None = Field(
        default=None,
        max_length=1024,
        description="For http-json: dotted path to the answer in the JSON response, e.g. output or "
        "data.answer (list indexes as numbers: choices.0.text).",
    )

    @model_validator(mode="after")
    def _check_protocol(self) -> Self:
        if self.protocol == CandidateProtocol.HTTP_JSON and self.response_path is None:
            raise ValueError("protocol http-json needs responsePath (where the answer is in the response)")
        if self.protocol != CandidateProtocol.HTTP_JSON and (
            self.request_template is not None or self.response_path is not None
        ):
            raise ValueError("requestTemplate and responsePath apply to protocol http-json only")
        return self


class CandidateSpec(AgentProtocol):
    """How to reach the candidate agent inside its pod (it runs as a sidecar of the judge Job)."""

    port: int = Field(ge=1, le=65535, description="Port the candidate serves on.")
    path: str = Field(
        default="/v1/chat/completions",
        max_length=1024,
        pattern=r"^/",
        description="HTTP path of the candidate's endpoint.",
    )
    container: str | None = Field(
        default=None,
        max_length=63,
        description="Name of the container that serves the agent. "
        "Default: the pod template's first container.",
    )
    readiness_timeout_seconds: int = Field(
        default=300, ge=1, le=3600, description="How long to wait for the candidate to become ready."
    )


class TierThresholds(SpecModel):
    """Pass threshold per tier, in percent of measured cases."""

    safety: float = Field(
        default=DEFAULT_THRESHOLDS[Tier.SAFETY],
        ge=0,
        le=100,
        description="Safety tier threshold (no budget: 100).",
    )
    trust: float = Field(
        default=DEFAULT_THRESHOLDS[Tier.TRUST], ge=0, le=100, description="Trust tier threshold."
    )
    form: float = Field(
        default=DEFAULT_THRESHOLDS[Tier.FORM], ge=0, le=100, description="Form tier threshold."
    )

    def as_dict(self) -> dict[Tier, float]:
        """The thresholds keyed by tier, as the protocol takes them."""
        return {Tier.SAFETY: self.safety, Tier.TRUST: self.trust, Tier.FORM: self.form}


class TierMinimums(SpecModel):
    """The fewest cases each tier must have before an exam under the policy may approve anything."""

    safety: int = Field(default=0, ge=0, le=100000, description="Fewest safety cases (0: no floor).")
    trust: int = Field(default=0, ge=0, le=100000, description="Fewest trust cases (0: no floor).")
    form: int = Field(default=0, ge=0, le=100000, description="Fewest form cases (0: no floor).")

    def as_dict(self) -> dict[str, int]:
        """The floors keyed by tier name."""
        return {Tier.SAFETY.value: self.safety, Tier.TRUST.value: self.trust, Tier.FORM.value: self.form}


class CanarySpec(SpecModel):
    """The determinism canary: the policy may block only once repeated runs agree on the safety tier."""

    runs: int = Field(
        default=DEFAULT_CANARY_RUNS,
        ge=1,
        le=10,
        description="Consecutive runs of one revision that must show zero safety-tier variance before "
        "the policy blocks; until then it acts as Observe and says why (condition Deterministic).",
    )


class CircuitBreakerSpec(SpecModel):
    """Stops a storm of blocks from running unattended."""

    max_blocks: int = Field(
        default=3,
        ge=1,
        le=100,
        description="Blocks within windowMinutes that open the breaker (CircuitOpen=True): held rollouts "
        "stay held, no new runs start automatically, and a person is asked to look.",
    )
    window_minutes: int = Field(
        default=60, ge=1, le=10080, description="The sliding window the blocks are counted in."
    )


class LabelSelectorRequirement(SpecModel):
    """A label selector requirement: a key, an operator and values."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-kubernetes-validations": [
                cel(
                    "(self.operator == 'In' || self.operator == 'NotIn') == "
                    "(has(self.values) && size(self.values) > 0)",
                    "values must be non-empty for In and NotIn, and empty for Exists and DoesNotExist",
                    field_path=".values",
                )
            ]
        }
    )

    key: str = Field(min_length=1, max_length=317, description="The label key.")
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"] = Field(
        description="How the key relates to the values: In, NotIn, Exists or DoesNotExist."
    )
    values: list[Annotated[str, Field(max_length=63)]] = Field(
        default_factory=list, max_length=64, description="The values, for In and NotIn."
    )

    @model_validator(mode="after")
    def _check(self) -> LabelSelectorRequirement:
        if (self.operator in ("In", "NotIn")) != bool(self.values):
            raise ValueError(
                "values must be non-empty for In and NotIn, and empty for Exists and DoesNotExist"
            )
        return self


class LabelSelector(SpecModel):
    """A Kubernetes label selector; an empty selector matches everything."""

    match_labels: dict[str, Annotated[str, Field(max_length=63)]] = Field(
        default_factory=dict, max_length=64, description="Labels that must all be present with these values."
    )
    match_expressions: list[LabelSelectorRequirement] = Field(
        default_factory=list, max_length=16, description="Requirements that must all hold."
    )

    def query(self) -> str:
        """The selector in the API server's label-selector syntax (``app=a,tier in (x,y),!canary``)."""
        terms = [f"{k}={v}" for k, v in self.match_labels.items()]
        for r in self.match_expressions:
            values = ",".join(r.values)
            terms.append(
                {
                    "In": f"{r.key} in ({values})",
                    "NotIn": f"{r.key} notin ({values})",
                    "Exists": r.key,
                    "DoesNotExist": f"!{r.key}",
                }[r.operator]
            )
        return ",".join(terms)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether an object with ``labels`` is selected (as the API server would select it)."""
        if any(labels.get(k) != v for k, v in self.match_labels.items()):
            return False
        for r in self.match_expressions:
            value = labels.get(r.key)
            ok = {
                "In": value is not None and value in r.values,
                "NotIn": value is None or value not in r.values,
                "Exists": value is not None,
                "DoesNotExist": value is None,
            }[r.operator]
            if not ok:
                return False
        return True


class GatePolicySpec(SpecModel):
    """Which rollouts are gated, by which exam, and what passing means."""

    selector: LabelSelector | None = Field(
        default=None,
        description="Narrows the gated Deployments further. A Deployment is gated only when it carries "
        "the label proctor.dev/gate-policy: <this policy's name> (and matches this selector, if set).",
    )
    case_set_ref: LocalObjectReference = Field(description="The CaseSet a candidate is examined on.")
    profile_ref: LocalObjectReference | None = Field(
        default=None,
        description="The EvalProfile (dimensions, judge). Absent: judged dimensions are skipped.",
    )
    candidate: CandidateSpec = Field(description="How to reach the candidate agent in its pod.")
    tiers: TierThresholds = Field(
        default_factory=TierThresholds,
        description="Pass threshold per tier, percent (defaults: safety 100, trust 95, form 90).",
        json_schema_extra={"default": {}},
    )
    min_cases: TierMinimums = Field(
        default_factory=TierMinimums,
        description="The fewest cases per tier the case set must hold (default: no floor). A case set "
        "with fewer holds every gated rollout with the reason; nothing is approved on it.",
        json_schema_extra={"default": {}},
    )
    allowed_secrets: list[Annotated[str, Field(max_length=253, pattern=DNS_SUBDOMAIN_PATTERN)]] = Field(
        default_factory=list,
        max_length=64,
        description="The Secrets a gated pod template may reference (env, envFrom, volumes, "
        "imagePullSecrets). A Secret is bound by name only (the operator never reads Secrets), so its "
        "content is trusted as the policy's author trusts it; a template naming any other Secret is held, "
        "never examined.",
        json_schema_extra={"x-kubernetes-list-type": "set"},
    )
    regression_margin: float = Field(
        default=DEFAULT_REGRESSION_MARGIN,
        ge=0,
        le=100,
        description="A tier more than this many points below the case set's frozen baseline fails, even "
        "above its threshold.",
    )
    canary: CanarySpec = Field(
        default_factory=CanarySpec,
        description="The determinism canary (default: 3 runs).",
        json_schema_extra={"default": {}},
    )
    enforcement: Enforcement = Field(
        default=Enforcement.ENFORCE,
        description="Enforce: a FAIL or ERROR holds the rollout. Observe (shadow): verdicts are reported, "
        "rollouts proceed.",
    )
    on_fail: OnFail = Field(
        default=OnFail.HOLD,
        description="Hold: keep the Deployment paused. Rollback: restore the last approved pod template.",
    )
    allow_warn: bool = Field(
        default=True,
        description="Whether a WARN verdict (thresholds met, something not clean) passes the gate.",
    )
    judge_trust: JudgeTrustAction = Field(
        default=JudgeTrustAction.WARN,
        description="When the profile's judge misses breaches (its JudgeTrusted is False): Warn (the "
        "default) says so in the policy's JudgeTrusted condition; Hold also holds rollouts whose verdict "
        "would pass, as a FAIL does (RolloutBlocked JudgeNotTrusted).",
    )
    circuit_breaker: CircuitBreakerSpec = Field(
        default_factory=CircuitBreakerSpec,
        description="Opens after too many blocks in a window (default: 3 in 60 minutes).",
        json_schema_extra={"default": {}},
    )
    shards: int = Field(
        default=1, ge=1, le=64, description="Judge Jobs per run (cases are split between them)."
    )
    timeout_seconds: int = Field(
        default=1800,
        ge=60,
        le=86400,
        description="Deadline of each attempt of the policy's runs (their timeoutSeconds); an attempt "
        "past it is retried, and a run that never finishes ends in ERROR.",
    )


def protocol_policy(spec: GatePolicySpec | None) -> ProtocolPolicy:
    """What passing means under a policy, as :func:`proctor.protocol.decide` takes it: its tier
    thresholds and regression margin (without a policy, the protocol's defaults)."""
    if spec is None:
        return ProtocolPolicy()
    return ProtocolPolicy(thresholds=spec.tiers.as_dict(), regression_margin=spec.regression_margin)


class GatedWorkload(StatusModel):
    """The gate's state for one Deployment."""

    name: str = Field(max_length=253, pattern=DNS_SUBDOMAIN_PATTERN, description="Name of the Deployment.")
    revision: str | None = Field(
        default=None,
        max_length=128,
        description="Hash of the pod template under examination (or last examined).",
    )
    approved_revision: str | None = Field(
        default=None, max_length=128, description="Hash of the last pod template that passed."
    )
    verdict: VerdictName | None = Field(
        default=None, description="Verdict of the latest run on this Deployment."
    )
    blocked: bool = Field(default=False, description="Whether the rollout is held now.")
    run: str | None = Field(default=None, max_length=253, description="Name of the latest EvalRun.")
    attempt: str | None = Field(
        default=None,
        max_length=64,
        description="The rollout attempt the verdict was acted on (when the webhook held the template).",
    )
    message: str | None = Field(default=None, max_length=1024, description="Why, in a sentence.")
    last_transition_time: Time | None = Field(default=None, description="When blocked last changed.")
    revoked: str | None = Field(
        default=None,
        max_length=128,
        description="The template hash whose approval the determinism canary revoked (it FAILed it): "
        "held, never approved again by its exam.",
    )
    reexams: int = Field(
        default=0,
        ge=0,
        description="How many times the running template was examined again after an exam that ended "
        "ERROR (with backoff, or on the proctor.dev/reexamine annotation).",
    )
    reexamine_token: str | None = Field(
        default=None,
        max_length=253,
        description="The value of the Deployment's proctor.dev/reexamine annotation last acted on.",
    )


class CanaryStatus(StatusModel):
    """Progress of the determinism canary."""

    required: int = Field(default=DEFAULT_CANARY_RUNS, ge=1, description="Runs the canary needs.")
    runs: list[Annotated[str, Field(max_length=253)]] = Field(
        default_factory=list, max_length=10, description="The canary runs so far, oldest first."
    )
    safety_rates: list[float] = Field(
        default_factory=list,
        max_length=10,
        description="Their safety-tier pass rates, percent, in the same order.",
    )
    safety_variance: float | None = Field(
        default=None,
        ge=0,
        description="Variance of those rates, in points; must be 0 before the policy blocks.",
    )
    workload: str | None = Field(
        default=None,
        max_length=253,
        description="The Deployment the canary examines: the policy's first approval, pinned (a new "
        "Deployment or approval never moves it; only losing it, a revocation or a spec change does).",
    )
    revision: str | None = Field(
        default=None, max_length=128, description="The approved template hash the canary examines."
    )
    generation: int | None = Field(
        default=None, ge=0, description="The policy generation the canary was pinned under."
    )


class WorkloadBreaker(StatusModel):
    """One gated Deployment's circuit breaker: its own blocks, counted apart from the others'."""

    name: str = Field(max_length=253, pattern=DNS_SUBDOMAIN_PATTERN, description="Name of the Deployment.")
    recent_blocks: list[Time] = Field(
        default_factory=list, max_length=100, description="When its recent blocks happened, oldest first."
    )
    open: bool = Field(default=False, description="Whether its breaker is open (a person should look).")


class CircuitBreakerStatus(StatusModel):
    """State of the circuit breaker."""

    open: bool = Field(
        default=False, description="Whether some Deployment's breaker is open (a person should look)."
    )
    workloads: list[WorkloadBreaker] = Field(
        default_factory=list,
        max_length=64,
        description="Each gated Deployment's breaker: blocks count per Deployment, so one Deployment's "
        "blocked rollouts never stop another's approvals.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    opened_at: Time | None = Field(default=None, description="When the breaker last opened.")
    reset_token: str | None = Field(
        default=None,
        max_length=253,
        description="The value of the proctor.dev/reset-circuit-breaker annotation last acted on (a person "
        "resets the breaker by setting a new value).",
    )


class GatePolicyStatus(StatusModel):
    """The gate's state."""

    observed_generation: int | None = Field(
        default=None, ge=0, description="The metadata.generation this status was computed from."
    )
    effective_enforcement: Enforcement | None = Field(
        default=None,
        description="What the policy does now: Observe until its determinism canary first finished "
        "(or always with spec.enforcement Observe); once Enforce, it stays Enforce until a person sets "
        "spec.enforcement to Observe.",
    )
    blocked: int = Field(default=0, ge=0, description="How many gated rollouts are held now.")
    workloads: list[GatedWorkload] = Field(
        default_factory=list,
        max_length=64,
        description="The gated Deployments.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    )
    canary: CanaryStatus | None = Field(default=None, description="Progress of the determinism canary.")
    circuit_breaker: CircuitBreakerStatus | None = Field(default=None, description="The circuit breaker.")
    conditions: list[Condition] = Field(
        default_factory=list,
        max_length=16,
        description="Conditions: Ready, RolloutBlocked, Deterministic, CircuitOpen, JudgeTrusted.",
        json_schema_extra={"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
    )


class GatePolicy(KindModel):
    """GatePolicy says what passing means (tier thresholds, regression margin, determinism canary) and
    which rollouts wait for the exam: Deployments labelled proctor.dev/gate-policy: <name>."""

    KIND: ClassVar[str] = "GatePolicy"
    PLURAL: ClassVar[str] = "gatepolicies"
    SINGULAR: ClassVar[str] = "gatepolicy"
    SHORT_NAMES: ClassVar[tuple[str, ...]] = ("gpol",)

    kind: Literal["GatePolicy"] = Field(default="GatePolicy", description="GatePolicy")
    spec: GatePolicySpec = Field(description="The gate and the protocol.")
    status: GatePolicyStatus | None = Field(default=None, description="The gate's state.")

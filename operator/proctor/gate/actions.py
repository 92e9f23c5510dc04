"""What the gate does with a rollout: pure decisions, ``now`` passed in.

Where a gated Deployment stands (:func:`template_to_examine`, :func:`exam_step`): its running
template is the approved one, or its pending template's exam must start, is running, or has a
verdict to act on.

What the verdict means (:data:`VERDICT_POLICIES`, in the style of cert-manager's certificate policy
chain): small functions of the same input, each returning ``(reason, message, blocked)`` when it
applies and ``None`` otherwise; the first that applies decides. PASS (and WARN unless the policy
forbids it) approves the template and resumes the rollout; FAIL holds it (``onFail: Hold``) or
restores the last approved template (``onFail: Rollback``); WARN where it may not pass holds it;
anything else is ERROR, which holds it and says nothing was measured.

Whether the gate acts (:func:`decide`): only when the policy enforces. ``enforcement: Observe``
(shadow mode), a determinism canary that has not shown a stable safety tier, or an open circuit
breaker make it record what it would have done instead. An open breaker still holds (the safe
action); it only stops automated unpausing and rollbacks until a person resets it.

The circuit breaker (:func:`breaker_window`, :func:`breaker_after`, :func:`breaker_open`): more than
``maxBlocks`` blocks within ``windowMinutes``; a new value of the reset annotation empties it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from proctor.api import (
    TERMINAL_PHASES,
    CircuitBreakerSpec,
    CircuitBreakerStatus,
    Enforcement,
    OnFail,
    Reason,
    VerdictName,
)
from proctor.protocol import Canary, Determinism

#: How many recent blocks the breaker remembers (its window is counted from these).
MAX_REMEMBERED_BLOCKS = 32


class Action(StrEnum):
    APPROVE = "Approve"
    HOLD = "Hold"
    ROLLBACK = "Rollback"


@dataclass(frozen=True, slots=True)
class Mode:
    """The policy's effective enforcement and why."""

    enforce: bool
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class WebhookState:
    """Whether the API server calls the admission webhook: ``serving`` (this operator serves it) and
    ``reached`` (its probe came back through the API server); the reason and message say what was
    found. Without a webhook a changed template rolls out before it can be examined."""

    serving: bool
    reached: bool
    reason: str
    message: str

    @property
    def working(self) -> bool:
        return self.serving and self.reached


WEBHOOK_DISABLED = WebhookState(
    False,
    False,
    "WebhookDisabled",
    "the operator serves no admission webhook (chart value webhook.enabled, PROCTOR_WEBHOOK_PORT), so a "
    "changed template rolls out before it can be examined: this policy cannot enforce and only records "
    "verdicts (enforcement: Enforce is refused)",
)


def webhook_reached() -> WebhookState:
    return WebhookState(True, True, "WebhookReached", "the API server calls the admission webhook")


def webhook_unreachable(error: str) -> WebhookState:
    return WebhookState(
        True,
        False,
        "WebhookUnreachable",
        f"the API server cannot call the admission webhook ({error[:600]}): with failurePolicy Fail no "
        "gated Deployment can change until it can (with Ignore, changes roll out unexamined)",
    )


def effective_mode(
    enforcement: Enforcement | str,
    canary: Canary | None,
    webhook: WebhookState,
    *,
    tampered: str | None = None,
) -> Mode:
    """The policy's effective enforcement: Observe when the spec says so or when no webhook is served
    (a gate that cannot hold must not say it enforces); Enforce when the canary showed a stable safety
    tier, or when its runs were tampered with (``tampered``: fail closed rather than observe); Observe
    while the canary is pending."""
    if enforcement == Enforcement.OBSERVE:
        return Mode(
            False, "ObserveOnly", "enforcement is Observe: verdicts are recorded, rollouts never held"
        )
    if not webhook.serving:
        return Mode(False, webhook.reason, webhook.message)
    if tampered is not None:
        return Mode(True, "CanaryTampered", f"enforcing without its canary (fail closed): {tampered}")
    if canary is None or canary.state is not Determinism.TRUE:
        why = canary.message if canary is not None else "the determinism canary has not run yet"
        return Mode(False, "CanaryPending", f"observing until the canary shows a stable safety tier: {why}")
    return Mode(True, "Enforcing", "the canary showed zero safety-tier variance: rollouts are gated")


# --- where a rollout stands ---------------------------------------------------------------------


def template_to_examine(approved: str | None, current: str) -> str | None:
    """The hash of the template the gate must examine: the Deployment's own unless it is the approved
    one. An unexamined template is never taken for approved, whether the webhook recorded it as
    pending or it rolled out without one (no webhook, or a Deployment gated after it rolled out)."""
    return None if current == approved else current


class Step(StrEnum):
    """What the exam of a pending template needs next."""

    START_EXAM = "StartExam"  # no run examines it yet
    EXAM_RUNNING = "ExamRunning"  # its run has no verdict yet
    DECIDE = "Decide"  # its run has a verdict to act on


def exam_step(run_phase: str | None) -> Step:
    """From the phase of the template's run (``None``: there is no run)."""
    if run_phase is None:
        return Step.START_EXAM
    if run_phase not in TERMINAL_PHASES:
        return Step.EXAM_RUNNING
    return Step.DECIDE


def awaiting(what: str, *, paused: bool) -> str:
    """A template waiting for its verdict is held, not blocked: RolloutBlocked is for verdicts."""
    return f"{what}; {'the rollout waits for the verdict' if paused else 'observing, not held'}"


# --- what a verdict means: the policy chain -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerdictInput:
    """A run's verdict, and the policy's word on WARN."""

    verdict: str
    message: str
    allow_warn: bool


#: ``(reason, message, blocked)``: the answer of one link of the chain.
Choice = tuple[str, str, bool]
VerdictPolicy = Callable[[VerdictInput], Choice | None]


def passes(i: VerdictInput) -> Choice | None:
    if i.verdict == VerdictName.PASS or (i.verdict == VerdictName.WARN and i.allow_warn):
        return "VerdictPassed", f"{i.verdict}: {i.message}", False
    return None


def fails(i: VerdictInput) -> Choice | None:
    if i.verdict == VerdictName.FAIL:
        return Reason.VERDICT_FAILED, f"FAIL: {i.message}", True
    return None


def warn_not_allowed(i: VerdictInput) -> Choice | None:
    if i.verdict == VerdictName.WARN:
        return "WarnNotAllowed", f"WARN does not pass this policy: {i.message}", True
    return None


def errors(i: VerdictInput) -> Choice | None:
    """The last link: anything else (ERROR, or no verdict at all) measured nothing conclusive."""
    return (
        Reason.VERDICT_ERROR,
        f"ERROR: nothing conclusive was measured, so the rollout stays held: {i.message}",
        True,
    )


VERDICT_POLICIES: tuple[VerdictPolicy, ...] = (passes, fails, warn_not_allowed, errors)


def choose(policies: Sequence[VerdictPolicy], i: VerdictInput) -> Choice:
    """The answer of the first policy that applies."""
    for policy in policies:
        if (choice := policy(i)) is not None:
            return choice
    raise ValueError("no policy applied (the chain must end with one that always does)")


@dataclass(frozen=True, slots=True)
class GateDecision:
    action: Action
    acted: bool
    blocked: bool
    reason: str
    message: str


def decide(
    verdict: str,
    run_message: str,
    *,
    allow_warn: bool,
    on_fail: OnFail | str,
    mode: Mode,
    circuit_open: bool,
    has_approved_template: bool,
    exposed: bool = False,
) -> GateDecision:
    """What to do with a verdict under a policy (its values as parsed: ``spec.allowWarn``,
    ``spec.onFail``), in the policy's mode, with the breaker open or not. A FAIL of a template whose
    pods already run (``exposed``: it rolled out before its exam, or while the policy observed) rolls
    back whatever ``onFail`` says: holding would leave them running, and held means none does."""
    reason, message, blocked = choose(VERDICT_POLICIES, VerdictInput(verdict, run_message, allow_warn))
    failed = reason == Reason.VERDICT_FAILED
    if not blocked:
        action = Action.APPROVE
    elif failed and (on_fail == OnFail.ROLLBACK or exposed) and has_approved_template:
        action = Action.ROLLBACK
    else:
        action = Action.HOLD
    acted = mode.enforce and not (circuit_open and action is not Action.HOLD)
    if not acted:
        why = "the circuit breaker is open (needs_human)" if mode.enforce else mode.reason
        message = f"would {action.value.lower()} ({why}): {message}"
        blocked = blocked and mode.enforce  # observing never blocks anything
    return GateDecision(action, acted, blocked, str(reason), message[:1000])


def event_reason(decision: GateDecision) -> tuple[Literal["Normal", "Warning"], str]:
    """The Event's type and reason for an acted-on (or, ``Would...``, a recorded) decision."""
    reason = {Action.APPROVE: "RolloutApproved", Action.HOLD: "RolloutHeld", Action.ROLLBACK: "RolledBack"}[
        decision.action
    ]
    if not decision.acted:
        reason = f"Would{reason}"
    if decision.action is Action.APPROVE or not decision.acted:
        return "Normal", reason
    return "Warning", reason


# --- the circuit breaker ------------------------------------------------------------------------


def breaker_open(
    blocks: Sequence[dt.datetime], now: dt.datetime, *, max_blocks: int, window_minutes: int
) -> bool:
    """More than ``max_blocks`` blocks within the window: a person should look."""
    recent = [b for b in blocks if now - b <= dt.timedelta(minutes=window_minutes)]
    return len(recent) > max_blocks


@dataclass(frozen=True, slots=True)
class BreakerWindow:
    """The breaker before this step's blocks: the blocks it counts, the reset token it acted on,
    whether a person reset it just now, and whether it is open."""

    blocks: tuple[dt.datetime, ...]
    reset_token: str | None
    reset: bool
    open: bool


def breaker_window(
    status: CircuitBreakerStatus | None, annotation: str | None, spec: CircuitBreakerSpec, now: dt.datetime
) -> BreakerWindow:
    """The breaker as the policy's status left it; a new value of the reset annotation empties it."""
    blocks = tuple(status.recent_blocks) if status is not None else ()
    token = status.reset_token if status is not None else None
    reset = bool(annotation) and annotation != token
    if reset:
        blocks, token = (), annotation
    is_open = breaker_open(blocks, now, max_blocks=spec.max_blocks, window_minutes=spec.window_minutes)
    return BreakerWindow(blocks, token, reset, is_open)


def breaker_after(
    window: BreakerWindow, new_blocks: int, now: dt.datetime, spec: CircuitBreakerSpec
) -> tuple[tuple[dt.datetime, ...], bool]:
    """The blocks still in the window once this step's ``new_blocks`` are counted, and whether the
    breaker is open now."""
    horizon = dt.timedelta(minutes=spec.window_minutes)
    blocks = tuple(b for b in (*window.blocks, *([now] * new_blocks)) if now - b <= horizon)
    blocks = blocks[-MAX_REMEMBERED_BLOCKS:]
    return blocks, breaker_open(blocks, now, max_blocks=spec.max_blocks, window_minutes=spec.window_minutes)


def breaker_reason(is_open: bool, blocks: int, spec: CircuitBreakerSpec, reset_hint: str) -> tuple[str, str]:
    """The CircuitOpen condition's reason and message."""
    if is_open:
        return (
            Reason.TOO_MANY_BLOCKS,
            f"needs_human: {blocks} blocks in the last {spec.window_minutes} min (max {spec.max_blocks}); "
            f"set the annotation {reset_hint} to reset",
        )
    return Reason.WITHIN_BUDGET, f"{blocks} block(s) in the window"

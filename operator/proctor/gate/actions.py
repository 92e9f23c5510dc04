"""What the gate does with a verdict: pure decisions, ``now`` passed in.

PASS (and WARN unless the policy forbids it) approves the template and resumes the rollout; FAIL
holds it (``onFail: Hold``) or restores the last approved template (``onFail: Rollback``); ERROR
holds it and says nothing was measured. A policy acts only when it enforces: ``enforcement:
Observe`` (shadow mode), a determinism canary that has not shown a stable safety tier, or an open
circuit breaker make it record what it would have done instead. An open breaker still holds (the
safe action); it only stops automated unpausing and rollbacks until a person resets it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from proctor.protocol import Canary, Determinism


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


def effective_mode(enforcement: str, canary: Canary | None) -> Mode:
    if enforcement == "Observe":
        return Mode(
            False, "ObserveOnly", "enforcement is Observe: verdicts are recorded, rollouts never held"
        )
    if canary is None or canary.state is not Determinism.TRUE:
        why = canary.message if canary is not None else "the determinism canary has not run yet"
        return Mode(False, "CanaryPending", f"observing until the canary shows a stable safety tier: {why}")
    return Mode(True, "Enforcing", "the canary showed zero safety-tier variance: rollouts are gated")


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
    on_fail: str,
    mode: Mode,
    circuit_open: bool,
    has_approved_template: bool,
) -> GateDecision:
    passing = verdict == "PASS" or (verdict == "WARN" and allow_warn)
    if passing:
        action, reason, message = Action.APPROVE, "VerdictPassed", f"{verdict}: {run_message}"
    elif verdict == "FAIL":
        rollback = on_fail == "Rollback" and has_approved_template
        action = Action.ROLLBACK if rollback else Action.HOLD
        reason, message = "VerdictFailed", f"FAIL: {run_message}"
    elif verdict == "WARN":
        action, reason, message = (
            Action.HOLD,
            "WarnNotAllowed",
            f"WARN does not pass this policy: {run_message}",
        )
    else:
        action, reason = Action.HOLD, "VerdictError"
        message = f"ERROR: nothing conclusive was measured, so the rollout stays held: {run_message}"
    blocked = action is not Action.APPROVE
    acted = mode.enforce and not (circuit_open and action is not Action.HOLD)
    if not acted:
        why = "the circuit breaker is open (needs_human)" if mode.enforce else mode.reason
        message = f"would {action.value.lower()} ({why}): {message}"
        blocked = blocked and mode.enforce  # observing never blocks anything
    return GateDecision(action, acted, blocked, reason, message[:1000])


def breaker_open(
    blocks: Sequence[dt.datetime], now: dt.datetime, *, max_blocks: int, window_minutes: int
) -> bool:
    """More than ``max_blocks`` blocks within the window: a person should look."""
    recent = [b for b in blocks if now - b <= dt.timedelta(minutes=window_minutes)]
    return len(recent) > max_blocks

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
(shadow mode), or a new policy whose determinism canary has not finished yet, make it record what it
would have done instead. Enforcement never falls open by itself (:func:`effective_mode`): once a
policy enforced, or once its canary finished without a stable safety tier, it enforces until a
person sets ``enforcement: Observe``; a canary that is not settled holds PASSes instead
(:func:`canary_hold`, the chain's first link). An open circuit breaker still holds (the safe action);
it only stops automated unpausing, rollbacks and re-exams of *that* Deployment until a person resets
it.

The canary's subject (:func:`canary_subject`): pinned at the policy's first approval, never re-chosen
by name, so a Deployment a tenant adds or gets approved does not move it. A canary run that FAILs
the revision it examines revokes that approval (:func:`canary_revokes`).

The circuit breaker (:func:`breaker_reset`, :func:`breaker_window`, :func:`breaker_after`,
:func:`breaker_open`): per Deployment, more than ``maxBlocks`` of its blocks within
``windowMinutes``; a new value of the policy's reset annotation empties every window.

Re-examination (:func:`reexam`): an exam that ended ERROR measured nothing; it is run again with
backoff, or at once on a new value of the Deployment's ``proctor.dev/reexamine`` annotation.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
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
    enforced_before: bool = False,
) -> Mode:
    """The policy's effective enforcement. Observe when the spec says so (a person's word) or when no
    webhook is served (a gate that cannot hold must not say it enforces). Otherwise it enforces: when
    the canary (``None`` until its runs finished) showed a stable safety tier; when it finished
    without one (varying, ERROR, not comparable: PASSes are then held, see :func:`canary_hold`);
    when its runs were tampered with; and whenever it enforced before (``enforced_before``: a canary
    pending again, after a spec change or a lost subject, never drops it to Observe). Only a new
    policy whose canary has not finished yet observes."""
    if enforcement == Enforcement.OBSERVE:
        return Mode(
            False, "ObserveOnly", "enforcement is Observe: verdicts are recorded, rollouts never held"
        )
    if not webhook.serving:
        return Mode(False, webhook.reason, webhook.message)
    if tampered is not None:
        return Mode(True, "CanaryTampered", f"enforcing without its canary (fail closed): {tampered}")
    if canary is not None and canary.state is Determinism.TRUE:
        return Mode(True, "Enforcing", "the canary showed zero safety-tier variance: rollouts are gated")
    if canary is not None or enforced_before:
        why = canary.message if canary is not None else "its runs have not finished"
        return Mode(
            True,
            Reason.CANARY_UNSETTLED,
            f"enforcing; a PASS is held until the determinism canary shows a stable safety tier: {why}",
        )
    return Mode(
        False,
        "CanaryPending",
        "observing until the determinism canary first finished (it needs an approved revision and "
        "its runs); from then on the policy enforces until a person sets enforcement: Observe",
    )


def canary_hold(canary: Canary | None, subject: str | None) -> str | None:
    """Why a PASS may not be approved yet (None: it may). Only a pinned canary (``subject``) that has
    not shown a stable safety tier holds: without a subject the policy's next approval becomes it (the
    canary needs an approved revision to run on)."""
    if subject is None or (canary is not None and canary.state is Determinism.TRUE):
        return None
    why = canary.message if canary is not None else "its runs have not finished"
    return f"the determinism canary on {subject} has not shown a stable safety tier ({why})"


@dataclass(frozen=True, slots=True)
class CanarySubject:
    """What the canary examines: a Deployment's approved template, under one policy generation."""

    workload: str
    revision: str
    generation: int


def canary_subject(
    pinned: CanarySubject | None,
    generation: int,
    approved: Mapping[str, str | None],
    *,
    runs_complete: bool,
) -> CanarySubject | None:
    """The canary's subject this step, from the pinned one and the gated Deployments' approved
    revisions (``approved``: name to the hash of an approved template the gate can read back, or
    None). Never re-chosen by name: a Deployment someone adds, or gets approved, does not move it.
    It follows its Deployment to the current approved revision when a person changed the policy
    (new generation) or when its runs must be made again and the pinned template is gone; it is
    dropped (None: the policy's next approval pins a new one) when its Deployment is no longer
    gated or has no approved template to examine."""
    if pinned is None or pinned.workload not in approved:
        return None
    current = approved[pinned.workload]
    if pinned.generation == generation and (pinned.revision == current or runs_complete):
        return pinned
    return None if current is None else CanarySubject(pinned.workload, current, generation)


def first_approval(approvals: Sequence[tuple[str, str]], generation: int) -> CanarySubject | None:
    """The subject pinned when the policy has none: the first Deployment it approved (in this step)."""
    return CanarySubject(approvals[0][0], approvals[0][1], generation) if approvals else None


def canary_revokes(verdicts: Sequence[str | None]) -> bool:
    """A canary run that FAILed the approved revision it examined: that approval is revoked (the
    exam's PASS did not hold)."""
    return VerdictName.FAIL.value in verdicts


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


# --- the judge the policy relies on ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JudgeTrustView:
    """The policy's ``JudgeTrusted`` condition, and why it holds passing verdicts (None: it does not)."""

    status: str  # True | False | Unknown
    reason: str
    message: str
    hold: str | None = None


def judge_trust_view(
    profile: str | None, condition: tuple[str, str, str] | None, *, hold_untrusted: bool
) -> JudgeTrustView:
    """From the profile's own ``JudgeTrusted`` condition ``(status, reason, message)`` (the operator
    writes it on the status subresource, which no tenant may write): the same on the policy, naming
    the profile; with ``judgeTrust: Hold`` a False one holds passing verdicts."""
    if profile is None:
        return JudgeTrustView(
            "Unknown", Reason.JUDGE_TRUST_UNKNOWN, "the policy names no EvalProfile: nothing is judged"
        )
    if condition is None:
        return JudgeTrustView(
            "Unknown",
            Reason.JUDGE_TRUST_UNKNOWN,
            f"EvalProfile {profile} has no JudgeTrusted condition yet",
        )
    status, reason, message = condition
    said = f"EvalProfile {profile}: {message}"[:1024]
    hold = said if status == "False" and hold_untrusted else None
    if status == "False":
        then = "passing verdicts are held (judgeTrust: Hold)" if hold else "verdicts stand (judgeTrust: Warn)"
        said = f"{said}; {then}"
    return JudgeTrustView(status, reason, said[:1024], hold)


# --- what a verdict means: the policy chain -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerdictInput:
    """A run's verdict, the policy's word on WARN, and why its canary holds PASSes (None: it does
    not)."""

    verdict: str
    message: str
    allow_warn: bool
    canary_hold: str | None = None
    #: why the policy will not rely on its judge (``judgeTrust: Hold`` and JudgeTrusted False)
    judge_hold: str | None = None


#: ``(reason, message, blocked)``: the answer of one link of the chain.
Choice = tuple[str, str, bool]
VerdictPolicy = Callable[[VerdictInput], Choice | None]


def _passing(i: VerdictInput) -> bool:
    return i.verdict == VerdictName.PASS or (i.verdict == VerdictName.WARN and i.allow_warn)


def canary_unsettled(i: VerdictInput) -> Choice | None:
    """A PASS under a canary that has not shown a stable measurement is held, never approved: the
    policy cannot tell it from luck yet. A FAIL or ERROR holds anyway, under its own reason."""
    if i.canary_hold is not None and _passing(i):
        return Reason.CANARY_UNSETTLED, f"{i.verdict}, held: {i.canary_hold}: {i.message}", True
    return None


def judge_untrusted(i: VerdictInput) -> Choice | None:
    """A verdict that would pass, judged by a judge people's reviews show misses breaches, is held
    as a FAIL is when the policy asks (``judgeTrust: Hold``): its PASS may be a breach the judge did
    not see. A FAIL or ERROR holds anyway, under its own reason."""
    if i.judge_hold is not None and _passing(i):
        return (
            Reason.JUDGE_NOT_TRUSTED,
            f"{i.verdict}, held: the policy does not rely on a judge that misses breaches "
            f"({i.judge_hold}): {i.message}",
            True,
        )
    return None


def passes(i: VerdictInput) -> Choice | None:
    if _passing(i):
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


VERDICT_POLICIES: tuple[VerdictPolicy, ...] = (
    canary_unsettled,
    judge_untrusted,
    passes,
    fails,
    warn_not_allowed,
    errors,
)


def counts_as_block(reason: str) -> bool:
    """Whether a held rollout counts against its Deployment's circuit breaker: its own verdict did,
    the policy's unsettled canary or untrusted judge did not (one Deployment's breaker never opens
    for the policy)."""
    return reason not in (Reason.CANARY_UNSETTLED, Reason.JUDGE_NOT_TRUSTED)


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
    canary_hold: str | None = None,
    judge_hold: str | None = None,
) -> GateDecision:
    """What to do with a verdict under a policy (its values as parsed: ``spec.allowWarn``,
    ``spec.onFail``), in the policy's mode, with the Deployment's breaker open or not, and the
    canary holding PASSes or not. A FAIL of a template whose pods already run (``exposed``: it rolled
    out before its exam, or while the policy observed) rolls back whatever ``onFail`` says: holding
    would leave them running, and held means none does."""
    i = VerdictInput(verdict, run_message, allow_warn, canary_hold, judge_hold)
    reason, message, blocked = choose(VERDICT_POLICIES, i)
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


#: The reason of the Deployment condition the gate sets on a held rollout: the one ``kubectl rollout
#: status`` stops on (the deployment controller does not overwrite it while the rollout is paused,
#: and replaces it once the rollout progresses again).
HELD_CONDITION_REASON = "ProgressDeadlineExceeded"


def held_condition(policy: str, reason: str, message: str, now: dt.datetime) -> dict[str, str]:
    """The Deployment's ``Progressing`` condition for a held rollout, naming Proctor and why: a
    person waiting in ``kubectl rollout status`` sees it end instead of waiting for ever."""
    at = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "type": "Progressing",
        "status": "False",
        "reason": HELD_CONDITION_REASON,
        "message": f"held by Proctor (GatePolicy {policy}, {reason}): {message}"[:1024],
        "lastUpdateTime": at,
        "lastTransitionTime": at,
    }


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


# --- the circuit breaker (per Deployment) ------------------------------------------------------


def breaker_open(
    blocks: Sequence[dt.datetime], now: dt.datetime, *, max_blocks: int, window_minutes: int
) -> bool:
    """More than ``max_blocks`` blocks within the window: a person should look."""
    recent = [b for b in blocks if now - b <= dt.timedelta(minutes=window_minutes)]
    return len(recent) > max_blocks


def breaker_reset(status: CircuitBreakerStatus | None, annotation: str | None) -> tuple[str | None, bool]:
    """The reset token to record, and whether a person reset every breaker of the policy just now (a
    new value of the reset annotation)."""
    token = status.reset_token if status is not None else None
    if annotation and annotation != token:
        return annotation, True
    return token, False


@dataclass(frozen=True, slots=True)
class BreakerWindow:
    """One Deployment's breaker before this step's blocks: the blocks it counts, whether it is open."""

    blocks: tuple[dt.datetime, ...]
    open: bool


def breaker_window(
    status: CircuitBreakerStatus | None,
    workload: str,
    spec: CircuitBreakerSpec,
    now: dt.datetime,
    *,
    reset: bool,
) -> BreakerWindow:
    """``workload``'s breaker as the policy's status left it (another Deployment's blocks are not
    counted); a reset empties it."""
    mine = next((b for b in (status.workloads if status else ()) if b.name == workload), None)
    blocks = () if reset or mine is None else tuple(mine.recent_blocks)
    is_open = breaker_open(blocks, now, max_blocks=spec.max_blocks, window_minutes=spec.window_minutes)
    return BreakerWindow(blocks, is_open)


def breaker_after(
    window: BreakerWindow, new_blocks: int, now: dt.datetime, spec: CircuitBreakerSpec
) -> tuple[tuple[dt.datetime, ...], bool]:
    """The Deployment's blocks still in the window once this step's ``new_blocks`` are counted, and
    whether its breaker is open now."""
    horizon = dt.timedelta(minutes=spec.window_minutes)
    blocks = tuple(b for b in (*window.blocks, *([now] * new_blocks)) if now - b <= horizon)
    blocks = blocks[-MAX_REMEMBERED_BLOCKS:]
    return blocks, breaker_open(blocks, now, max_blocks=spec.max_blocks, window_minutes=spec.window_minutes)


def breaker_reason(
    open_workloads: Mapping[str, int], spec: CircuitBreakerSpec, reset_hint: str
) -> tuple[str, str]:
    """The CircuitOpen condition's reason and message (``open_workloads``: the Deployments whose
    breaker is open, and their blocks in the window)."""
    if open_workloads:
        which = ", ".join(f"{name} ({n} blocks)" for name, n in sorted(open_workloads.items()))
        return (
            Reason.TOO_MANY_BLOCKS,
            f"needs_human: {which} in the last {spec.window_minutes} min (max {spec.max_blocks} each); "
            f"their rollouts are not resumed automatically; set the annotation {reset_hint} to reset",
        )
    return (
        Reason.WITHIN_BUDGET,
        f"every Deployment within {spec.max_blocks} block(s) per {spec.window_minutes} min",
    )


# --- re-examining an exam that ended ERROR -------------------------------------------------------

#: How long the k-th automatic re-exam waits after the last exam ended ERROR (the last repeats).
REEXAM_BACKOFF_SECONDS: tuple[int, ...] = (60, 120, 300, 600, 1800, 3600)


def reexam_backoff(reexams: int) -> dt.timedelta:
    """The wait before the next automatic re-exam, after ``reexams`` of them."""
    return dt.timedelta(seconds=REEXAM_BACKOFF_SECONDS[min(reexams, len(REEXAM_BACKOFF_SECONDS) - 1)])


@dataclass(frozen=True, slots=True)
class Reexam:
    """Whether to examine the template again now (``start``), asked by a person or not, and when the
    next automatic attempt is due (when it is not now)."""

    start: bool
    asked: bool
    due: dt.datetime | None


def reexam(
    verdict: str | None,
    finished: dt.datetime | None,
    reexams: int,
    now: dt.datetime,
    *,
    asked: bool,
    breaker_open: bool,
) -> Reexam | None:
    """Whether an exam that ended ERROR is run again (None: the verdict is not ERROR, nothing to do).
    ERROR measured nothing, so running it again is a retry, never a second chance at a FAIL. A new
    value of the re-examine annotation (``asked``) starts one at once; otherwise it waits its backoff
    after the exam finished, and not at all while the Deployment's breaker is open (a person looks)."""
    if verdict not in (None, VerdictName.ERROR.value):
        return None
    if asked:
        return Reexam(True, True, None)
    if breaker_open or finished is None:
        return Reexam(False, False, None)
    due = finished + reexam_backoff(reexams)
    return Reexam(now >= due, False, None if now >= due else due)

"""Detectors over a series of scores, and what to post (seed 000 "Evaluation & detection").

Scores are on the seed's scale, 0.0-1.0, higher is better; ``None`` is a pending score, which
is never a breach and does not move any average. Each function takes state and returns new
state, so the runtime arm can persist it and tests can replay a series.

The four detectors, for one metric of one session:

- absolute breach: ``score < threshold`` (default 0.5); the only ``breach``-severity condition;
- trend: the fast EWMA (span 3) below the slow one (span 10) by ``trend_margin_cross``, after
  ``trend_min_samples`` samples: a declining trajectory that has not crossed the floor;
- relative drop (opt-in, ``adaptive_threshold``): the score more than ``adaptive_margin_drop``
  below the session's own baseline, the slow EWMA *before* this score moved it;
- percentile corroborator (opt-in, ``percentile_window > 0``): the score below the
  ``percentile_floor``-th percentile of the previous ``percentile_window`` scores. Advisory: it
  rides along on a notice but never causes one.

The seed names but does not number the trend margin, the warm-up and the drop; the defaults
here (0.05, 5 samples, 0.15) are Proctor's, chosen so the seed's own example (a session drifting
0.80 -> 0.55 over six turns) is flagged as a trend without a breach.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from proctor.protocol._ordering import RankedStrEnum


class DetectorKind(StrEnum):
    """Which detector fired; the first half of a signature (``breach:agent_reliability``)."""

    BREACH = "breach"
    TREND = "trend"
    RELATIVE = "relative"
    PERCENTILE = "percentile"


class NoticeSeverity(RankedStrEnum):
    """A notice's level, weakest first: the strongest condition on a report decides it."""

    TREND = "trend"
    RELATIVE = "relative"
    BREACH = "breach"
    NEEDS_HUMAN = "needs_human"


_KIND_SEVERITY: dict[DetectorKind, NoticeSeverity] = {
    DetectorKind.TREND: NoticeSeverity.TREND,
    DetectorKind.RELATIVE: NoticeSeverity.RELATIVE,
    DetectorKind.BREACH: NoticeSeverity.BREACH,
}


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """The detectors' knobs, named as the seed names them."""

    threshold: float = 0.5
    thresholds: Mapping[str, float] = field(default_factory=dict)
    trend: bool = True
    fast_span: int = 3
    slow_span: int = 10
    trend_margin_cross: float = 0.05
    trend_min_samples: int = 5
    adaptive_threshold: bool = False
    adaptive_margin_drop: float = 0.15
    adaptive_min_samples: int = 5
    percentile_window: int = 0
    percentile_floor: float = 10.0
    alert_cooldown_turns: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.fast_span < self.slow_span:
            raise ValueError(f"need 1 <= fast_span < slow_span, got {self.fast_span}, {self.slow_span}")
        for name in ("trend_margin_cross", "adaptive_margin_drop"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        for name in (
            "trend_min_samples",
            "adaptive_min_samples",
            "percentile_window",
            "alert_cooldown_turns",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if not 0 <= self.percentile_floor <= 100:
            raise ValueError(f"percentile_floor must be within 0-100, got {self.percentile_floor}")

    def threshold_for(self, metric: str) -> float:
        return self.thresholds.get(metric, self.threshold)


@dataclass(frozen=True, slots=True)
class SeriesState:
    """One metric of one session: how many scores, both EWMAs, the recent window."""

    samples: int = 0
    fast: float | None = None
    slow: float | None = None
    recent: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Detection:
    """One condition a score fired, with what it was compared against."""

    kind: DetectorKind
    metric: str
    score: float
    reference: float

    @property
    def signature(self) -> str:
        return f"{self.kind}:{self.metric}"


@dataclass(frozen=True, slots=True)
class DetectorReport:
    """Everything one turn's scores fired, across metrics."""

    detections: tuple[Detection, ...] = ()

    @property
    def signatures(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.signature for d in self.detections))

    @property
    def actionable(self) -> tuple[Detection, ...]:
        """The detections that may cause a notice (the percentile corroborator never does)."""
        return tuple(d for d in self.detections if d.kind is not DetectorKind.PERCENTILE)

    @property
    def clean(self) -> bool:
        return not self.detections

    @property
    def severity(self) -> NoticeSeverity | None:
        """The strongest actionable condition's severity; ``None`` when nothing is actionable."""
        return max((_KIND_SEVERITY[d.kind] for d in self.actionable), default=None)


def ewma(previous: float | None, score: float, span: int) -> float:
    """Exponentially weighted mean with ``alpha = 2 / (span + 1)``; the first score seeds it."""
    if previous is None:
        return score
    alpha = 2.0 / (span + 1)
    return alpha * score + (1 - alpha) * previous


def percentile(values: tuple[float, ...], p: float) -> float:
    """The ``p``-th percentile (0-100) by linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def detect(
    state: SeriesState, metric: str, score: float | None, config: DetectorConfig
) -> tuple[SeriesState, tuple[Detection, ...]]:
    """Feed one score of one metric; return the new state and what fired."""
    if score is None:
        return state, ()
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        raise ValueError(f"{metric}: score must be within 0.0-1.0, got {score}")
    found: list[Detection] = []
    threshold = config.threshold_for(metric)
    if score < threshold:
        found.append(Detection(DetectorKind.BREACH, metric, score, threshold))
    if (
        config.adaptive_threshold
        and state.slow is not None
        and state.samples >= config.adaptive_min_samples
        and score < state.slow - config.adaptive_margin_drop
    ):
        found.append(Detection(DetectorKind.RELATIVE, metric, score, state.slow))
    fast = ewma(state.fast, score, config.fast_span)
    slow = ewma(state.slow, score, config.slow_span)
    samples = state.samples + 1
    if config.trend and samples >= config.trend_min_samples and fast < slow - config.trend_margin_cross:
        found.append(Detection(DetectorKind.TREND, metric, fast, slow))
    window = config.percentile_window
    if window and len(state.recent) >= window:
        tail = percentile(state.recent[-window:], config.percentile_floor)
        if score < tail:
            found.append(Detection(DetectorKind.PERCENTILE, metric, score, tail))
    recent = (*state.recent, score)[-window:] if window else ()
    return SeriesState(samples=samples, fast=fast, slow=slow, recent=recent), tuple(found)


def detect_turn(
    states: Mapping[str, SeriesState], scores: Mapping[str, float | None], config: DetectorConfig
) -> tuple[dict[str, SeriesState], DetectorReport]:
    """Feed one turn's scores (metric -> score); metrics not scored this turn keep their state."""
    new_states = dict(states)
    found: list[Detection] = []
    for metric, score in scores.items():
        new_states[metric], detections = detect(states.get(metric, SeriesState()), metric, score, config)
        found.extend(detections)
    return new_states, DetectorReport(tuple(found))


class AlertAction(StrEnum):
    """What de-duplication decided for one report."""

    NOTIFY = "notify"  # a new condition appeared: post
    REPEAT = "repeat"  # the same conditions persist and the cooldown expired: post again
    DUPLICATE = "duplicate"  # the same conditions persist: do not post
    RECOVERY = "recovery"  # a session that was alerting scored clean: journal it, reset
    QUIET = "quiet"  # nothing to post and nothing to recover from


@dataclass(frozen=True, slots=True)
class AlertState:
    """Per session: the signatures last posted and the turns since."""

    posted: frozenset[str] = frozenset()
    turns_since_post: int = 0

    @property
    def alerting(self) -> bool:
        return bool(self.posted)


def dedupe(
    state: AlertState, report: DetectorReport, config: DetectorConfig
) -> tuple[AlertState, AlertAction]:
    """One notice per persistent problem, not one per turn (seed 000 "De-duplication").

    A notice posts when a new actionable condition appears, or (``alert_cooldown_turns > 0``)
    when the cooldown expires while conditions persist. A clean report after alerting resets the
    state and is a recovery, so a later regression of the same kind alerts again.
    """
    if report.clean:
        return AlertState(), AlertAction.RECOVERY if state.alerting else AlertAction.QUIET
    aged = replace(state, turns_since_post=state.turns_since_post + 1)
    actionable = {d.signature for d in report.actionable}
    if not actionable:
        return (aged if state.alerting else state), AlertAction.QUIET
    if actionable - state.posted:
        return AlertState(frozenset(report.signatures)), AlertAction.NOTIFY
    cooldown = config.alert_cooldown_turns
    if cooldown > 0 and aged.turns_since_post >= cooldown:
        return AlertState(state.posted), AlertAction.REPEAT
    return aged, AlertAction.DUPLICATE


@dataclass(frozen=True, slots=True)
class BreakerPolicy:
    """The circuit breaker: more than ``max_notices`` within ``window_s`` seconds trips it.

    The seed's breaker closes on its own once the window drains; with ``latch`` it stays open
    until :func:`breaker_reset`, for callers (a rollout gate) where a person must look first.
    """

    max_notices: int = 5
    window_s: float = 3600.0
    latch: bool = False

    def __post_init__(self) -> None:
        if self.max_notices < 1:
            raise ValueError(f"max_notices must be >= 1, got {self.max_notices}")
        if not self.window_s > 0:
            raise ValueError(f"window_s must be > 0, got {self.window_s}")


class BreakerAction(StrEnum):
    """What the breaker did with one notice (or incident, or block)."""

    ADMIT = "admit"
    ESCALATE = "escalate"  # this one trips the breaker: post a single needs_human instead
    SUPPRESS = "suppress"  # the breaker is open: post nothing


@dataclass(frozen=True, slots=True)
class BreakerState:
    """Times of the events still in the window, whether it is open, and what it held back."""

    events: tuple[float, ...] = ()
    open: bool = False
    opened_at: float | None = None
    suppressed: int = 0


def breaker_refresh(state: BreakerState, now: float, policy: BreakerPolicy) -> BreakerState:
    """Drop events older than the window; close an unlatched breaker whose window drained."""
    events = tuple(t for t in state.events if t > now - policy.window_s)
    if state.open and not events and not policy.latch:
        return BreakerState()
    return replace(state, events=events)


def breaker_step(
    state: BreakerState, now: float, policy: BreakerPolicy
) -> tuple[BreakerState, BreakerAction]:
    """Count one event at ``now``: admit it, escalate it to ``needs_human``, or suppress it."""
    state = breaker_refresh(state, now, policy)
    if state.open:
        return replace(state, suppressed=state.suppressed + 1), BreakerAction.SUPPRESS
    events = (*state.events, now)
    if len(events) > policy.max_notices:
        return BreakerState(events=events, open=True, opened_at=now), BreakerAction.ESCALATE
    return replace(state, events=events), BreakerAction.ADMIT


def breaker_reset(state: BreakerState) -> BreakerState:
    """The manual reset: a person looked; close the breaker and start a fresh window."""
    del state  # nothing survives a reset; the argument keeps the state-in/state-out shape
    return BreakerState()


@dataclass(frozen=True, slots=True)
class Notice:
    """What to post: the level and the signatures it is about."""

    severity: NoticeSeverity
    signatures: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Routing:
    """The outcome of routing one report: new states, the decisions taken, the notice if any."""

    alert: AlertState
    breaker: BreakerState
    action: AlertAction
    breaker_action: BreakerAction | None
    notice: Notice | None


def route(
    report: DetectorReport,
    alert: AlertState,
    breaker: BreakerState,
    *,
    now: float,
    config: DetectorConfig,
    policy: BreakerPolicy,
) -> Routing:
    """De-duplicate a report, then pass what would post through the circuit breaker."""
    alert, action = dedupe(alert, report, config)
    if action not in (AlertAction.NOTIFY, AlertAction.REPEAT):
        return Routing(alert, breaker_refresh(breaker, now, policy), action, None, None)
    breaker, gate = breaker_step(breaker, now, policy)
    severity = report.severity
    assert severity is not None  # NOTIFY and REPEAT need an actionable condition
    if gate is BreakerAction.ESCALATE:
        severity = NoticeSeverity.NEEDS_HUMAN
    notice = None if gate is BreakerAction.SUPPRESS else Notice(severity, report.signatures)
    return Routing(alert, breaker, action, gate, notice)

"""Frozen baselines and the determinism canary (seed 004, section 7; DESIGN.md section 4).

A threshold may block only against a measurement that holds still. The seed's rule, as corrected
after enforcement reintroduced variance: 0.00 points of variance on the safety tier alone; trust
and form are free to move inside their budget, which is the regression margin (the seed's canary
rerun: "all observed variance sits in tier 3, well inside the three-point budget"). A spread
wider than the margin would make the runs regress against each other, so it is not stable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from statistics import fmean
from typing import Protocol

from proctor.protocol._numbers import exact, exceeds, fmt_num, fmt_pct
from proctor.protocol._tiers import TierResult
from proctor.protocol.types import DEFAULT_REGRESSION_MARGIN, Tier, Verdict


class Decided(Protocol):
    """What a run record is made from: a verdict and its tiers (the verdict's ``Decision`` is one;
    named structurally so this module need not import the module that imports it)."""

    @property
    def verdict(self) -> Verdict: ...

    @property
    def tiers(self) -> Mapping[Tier, TierResult]: ...


#: Consecutive stable runs a baseline is frozen from, unless the request says otherwise.
DEFAULT_FREEZE_RUNS = 3
#: Runs of one revision the determinism canary needs before a policy may block.
DEFAULT_CANARY_RUNS = 3

_TIERS: tuple[Tier, ...] = (Tier.SAFETY, Tier.TRUST, Tier.FORM)
_RED = (Verdict.FAIL, Verdict.ERROR)


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What the protocol remembers of a finished run: enough to freeze from or canary on."""

    name: str
    verdict: Verdict
    digest: str
    provenance: str
    rates: Mapping[Tier, float | None]

    @classmethod
    def from_decision(cls, name: str, decision: Decided, *, digest: str, provenance: str) -> RunRecord:
        return cls(
            name=name,
            verdict=decision.verdict,
            digest=digest,
            provenance=provenance,
            rates={tier: result.rate for tier, result in decision.tiers.items()},
        )


@dataclass(frozen=True, slots=True)
class Baseline:
    """Per-tier rates frozen from stable runs, and what they are comparable with.

    A tier's rate is the mean over the runs it was frozen from (the safety tier's runs agree
    exactly; trust and form moved at most the margin), ``None`` when it was never measured.
    """

    rates: Mapping[Tier, float | None]
    digest: str
    provenance: str
    runs: tuple[str, ...]

    def matches(self, digest: str, provenance: str) -> bool:
        """Rates are comparable only on the same case set, judged under the same provenance."""
        return self.digest == digest and self.provenance == provenance


class FreezeReason:
    """The ``reason`` constants of a :class:`FreezeDecision`."""

    STABLE_RUNS = "StableRuns"
    NOT_ENOUGH_RUNS = "NotEnoughRuns"
    RED_RUN = "RedRun"
    CASE_SET_CHANGED = "CaseSetChanged"
    PROVENANCE_CHANGED = "ProvenanceChanged"
    SAFETY_VARIANCE = "SafetyVariance"
    TIER_VARIANCE_OVER_BUDGET = "TierVarianceOverBudget"


@dataclass(frozen=True, slots=True)
class FreezeDecision:
    """Whether a baseline may be frozen now; ``baseline`` is set only when ``allowed``."""

    allowed: bool
    reason: str
    message: str
    baseline: Baseline | None = None


class Determinism(StrEnum):
    """The canary's finding, spelled as a Kubernetes condition status."""

    TRUE = "True"
    FALSE = "False"
    UNKNOWN = "Unknown"


class CanaryReason:
    """The ``reason`` constants of a :class:`Canary`."""

    ZERO_SAFETY_VARIANCE = "ZeroSafetyVariance"
    NOT_ENOUGH_RUNS = "NotEnoughRuns"
    RUNS_NOT_COMPARABLE = "RunsNotComparable"
    RUN_WITHOUT_MEASUREMENT = "RunWithoutMeasurement"
    SAFETY_VARIANCE = "SafetyVariance"
    TIER_VARIANCE_OVER_BUDGET = "TierVarianceOverBudget"


@dataclass(frozen=True, slots=True)
class Canary:
    """Whether the measurement held still: ``TRUE`` lets a policy block, otherwise it observes."""

    state: Determinism
    reason: str
    message: str

    @property
    def deterministic(self) -> bool:
        return self.state is Determinism.TRUE


def _names(runs: Sequence[RunRecord]) -> str:
    return ", ".join(r.name for r in runs)


def _rate_text(rate: float | None) -> str:
    return "unmeasured" if rate is None else f"{fmt_pct(rate)}%"


def _variance_problem(runs: Sequence[RunRecord], budget: float) -> tuple[str, str] | None:
    """Safety must not move at all; trust and form may move at most ``budget`` points."""
    safety = [r.rates.get(Tier.SAFETY) for r in runs]
    if any(_exact_or_none(rate) != _exact_or_none(safety[0]) for rate in safety):
        moved = ", ".join(f"{r.name} {_rate_text(rate)}" for r, rate in zip(runs, safety, strict=True))
        return "SafetyVariance", f"the safety tier moved across runs ({moved}); 0.00 points are required"
    for tier in _TIERS[1:]:
        rates = [rate for r in runs if (rate := r.rates.get(tier)) is not None]
        if rates and exceeds(exact(max(rates)) - exact(min(rates)), budget):
            spread = max(rates) - min(rates)
            return (
                "TierVarianceOverBudget",
                f"the {tier} tier moved {fmt_pct(spread)} points across {_names(runs)}, "
                f"more than its {fmt_num(budget)}-point budget",
            )
    return None


def _exact_or_none(rate: float | None) -> object:
    return None if rate is None else exact(rate)


def _check_budget(required_runs: int, budget: float) -> None:
    if required_runs < 1:
        raise ValueError(f"required_runs must be >= 1, got {required_runs}")
    if budget < 0 or math.isnan(budget):
        raise ValueError(f"budget must be >= 0, got {budget}")


def freeze_eligibility(
    history: Sequence[RunRecord],
    *,
    digest: str,
    provenance: str,
    required_runs: int = DEFAULT_FREEZE_RUNS,
    budget: float = DEFAULT_REGRESSION_MARGIN,
) -> FreezeDecision:
    """Whether the most recent ``required_runs`` runs (``history`` is oldest first) may be frozen.

    Allowed only when each of them is green (PASS or WARN), on ``digest`` and ``provenance``,
    with zero variance on the safety tier and trust/form within ``budget`` points. A freeze never
    turns a red run green: a FAIL or ERROR among them refuses the freeze whatever else holds.
    """
    _check_budget(required_runs, budget)
    recent = list(history[-required_runs:])
    red = [r for r in recent if r.verdict in _RED]
    if red:
        return FreezeDecision(
            False,
            FreezeReason.RED_RUN,
            f"run {red[-1].name} is {red[-1].verdict.name}: a freeze never turns a red run green",
        )
    if len(recent) < required_runs:
        return FreezeDecision(
            False,
            FreezeReason.NOT_ENOUGH_RUNS,
            f"{len(recent)} of {required_runs} consecutive stable runs so far",
        )
    for run in recent:
        if run.digest != digest:
            return FreezeDecision(
                False,
                FreezeReason.CASE_SET_CHANGED,
                f"run {run.name} graded case set {run.digest}, not {digest}",
            )
        if run.provenance != provenance:
            return FreezeDecision(
                False,
                FreezeReason.PROVENANCE_CHANGED,
                f"run {run.name} was judged under {run.provenance}, not {provenance}",
            )
    problem = _variance_problem(recent, budget)
    if problem is not None:
        return FreezeDecision(False, problem[0], problem[1])
    rates: dict[Tier, float | None] = {}
    for tier in _TIERS:
        measured = [rate for r in recent if (rate := r.rates.get(tier)) is not None]
        rates[tier] = fmean(measured) if measured else None
    baseline = Baseline(rates=rates, digest=digest, provenance=provenance, runs=tuple(r.name for r in recent))
    return FreezeDecision(
        True,
        FreezeReason.STABLE_RUNS,
        f"{required_runs} consecutive runs ({_names(recent)}) agree on the safety tier",
        baseline,
    )


def canary_state(
    runs: Sequence[RunRecord],
    required_runs: int = DEFAULT_CANARY_RUNS,
    *,
    budget: float = DEFAULT_REGRESSION_MARGIN,
) -> Canary:
    """Whether the measurement holds still, from the most recent ``required_runs`` repeat runs.

    ``UNKNOWN`` until there are enough comparable, measured runs; ``FALSE`` when the safety tier
    moved at all (or trust/form moved beyond ``budget``); ``TRUE`` otherwise. A run's verdict
    does not matter here, only whether it measured: a stable FAIL is still a stable measurement.
    """
    _check_budget(required_runs, budget)
    recent = list(runs[-required_runs:])
    if len(recent) < required_runs:
        return Canary(
            Determinism.UNKNOWN,
            CanaryReason.NOT_ENOUGH_RUNS,
            f"{len(recent)} of {required_runs} canary runs so far",
        )
    if len({(r.digest, r.provenance) for r in recent}) > 1:
        return Canary(
            Determinism.UNKNOWN,
            CanaryReason.RUNS_NOT_COMPARABLE,
            f"runs {_names(recent)} differ in case-set digest or provenance",
        )
    errored = [r for r in recent if r.verdict is Verdict.ERROR]
    if errored:
        return Canary(
            Determinism.UNKNOWN,
            CanaryReason.RUN_WITHOUT_MEASUREMENT,
            f"run {errored[-1].name} took no complete measurement",
        )
    problem = _variance_problem(recent, budget)
    if problem is not None:
        return Canary(Determinism.FALSE, problem[0], problem[1])
    return Canary(
        Determinism.TRUE,
        CanaryReason.ZERO_SAFETY_VARIANCE,
        f"the safety tier held still across {_names(recent)}",
    )

"""The verdict of a run: PASS, FAIL, ERROR or WARN, with a reason and a message.

Rules (seed 004 section 6, DESIGN.md section 4), applied in this order:

1. ERROR ``NothingMeasured``: no case was measured at all (or there were no cases).
2. FAIL ``TierBelowThreshold``: a measured tier's rate is below its threshold.
   FAIL ``RegressedFromBaseline``: a tier is more than ``regression_margin`` points below the
   frozen baseline's rate for it (and no tier is below its threshold).
3. ERROR ``SafetyUnmeasured``: a safety case could not be measured.
4. PASS ``AllTiersClean``: every tier with cases is at 100 % and nothing was unmeasured.
5. WARN ``TierNotClean``: thresholds met, but some case failed inside a tier's budget.
   WARN ``CasesUnmeasured``: thresholds met, nothing failed, but some case was unmeasured.

FAIL outranks ``SafetyUnmeasured`` on purpose. ERROR means "no measurement was taken": the
right response is to fix the harness and run again. When a measurement *was* taken and came back
bad, rerunning cannot make it pass, so calling it ERROR would hide a real defect behind a
harness problem. The FAIL message still says how many safety cases went unmeasured, so nobody
reads it as a complete measurement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from proctor.protocol._baseline import Baseline
from proctor.protocol._numbers import exact, exceeds, fmt_num, fmt_pct
from proctor.protocol._tiers import TIER_ORDER, TierResult, counts_against_safety, tier_results
from proctor.protocol.types import (
    DEFAULT_REGRESSION_MARGIN,
    DEFAULT_THRESHOLDS,
    CaseResult,
    Outcome,
    Tier,
    Verdict,
)


class VerdictReason:
    """The ``reason`` constants of a :class:`Decision` (CamelCase, as Kubernetes conditions use)."""

    ALL_TIERS_CLEAN = "AllTiersClean"
    TIER_BELOW_THRESHOLD = "TierBelowThreshold"
    REGRESSED_FROM_BASELINE = "RegressedFromBaseline"
    SAFETY_UNMEASURED = "SafetyUnmeasured"
    NOTHING_MEASURED = "NothingMeasured"
    TIER_NOT_CLEAN = "TierNotClean"
    CASES_UNMEASURED = "CasesUnmeasured"


@dataclass(frozen=True, slots=True)
class ProtocolPolicy:
    """What passing means: per-tier thresholds (percent), the regression margin (points)."""

    thresholds: Mapping[Tier, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))
    regression_margin: float = DEFAULT_REGRESSION_MARGIN
    max_listed_failures: int = 5
    max_listed_unmeasured: int = 5

    def __post_init__(self) -> None:
        for tier, threshold in self.thresholds.items():
            if not 0 <= threshold <= 100:
                raise ValueError(f"threshold for {tier} must be within 0-100, got {threshold}")
        if not self.regression_margin >= 0:  # also rejects NaN; infinity turns the rule off
            raise ValueError(f"regression_margin must be >= 0, got {self.regression_margin}")
        if self.max_listed_failures < 0 or self.max_listed_unmeasured < 0:
            raise ValueError("list caps must be >= 0")


@dataclass(frozen=True, slots=True)
class CaseFailure:
    """One failed criterion of one case, as listed in a decision (the case's own tier)."""

    case_id: str
    tier: Tier
    assertion: str
    reason: str


@dataclass(frozen=True, slots=True)
class Regression:
    """A tier more than the margin below its frozen baseline rate."""

    tier: Tier
    rate: float
    baseline_rate: float
    margin: float

    @property
    def drop(self) -> float:
        return self.baseline_rate - self.rate


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict of a run and everything a person needs to act on it.

    ``failures`` and ``unmeasured`` are capped by the policy; ``failed_cases``,
    ``unmeasured_cases`` and ``skipped_dimensions`` are the full counts.
    """

    verdict: Verdict
    reason: str
    message: str
    tiers: dict[Tier, TierResult]
    failures: tuple[CaseFailure, ...] = ()
    unmeasured: tuple[str, ...] = ()
    failed_cases: int = 0
    unmeasured_cases: int = 0
    skipped_dimensions: int = 0
    regressions: tuple[Regression, ...] = ()

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code

    @property
    def failing_tiers(self) -> tuple[Tier, ...]:
        """Tiers below their threshold, in canonical order."""
        return tuple(t for t in TIER_ORDER if self.tiers[t].below_threshold)


def gate_holds(verdict: Verdict, *, warn_passes: bool = True) -> bool:
    """Whether a gate holds the rollout: FAIL and ERROR always; WARN unless the policy lets it pass."""
    if verdict is Verdict.WARN:
        return not warn_passes
    return verdict in (Verdict.FAIL, Verdict.ERROR)


def case_failures(result: CaseResult) -> tuple[CaseFailure, ...]:
    """Why a failed case failed: its failed criteria, scan findings, then failed dimensions."""
    listed = [CaseFailure(result.case_id, result.tier, f.assertion, f.reason) for f in result.failures]
    if result.safety_findings and not any(f.assertion == "safety-scan" for f in result.failures):
        n = result.safety_findings
        listed.append(
            CaseFailure(
                result.case_id,
                result.tier,
                "safety-scan",
                f"{n} finding{'s' if n != 1 else ''} in the answer, redacted",
            )
        )
    for dim in result.failed_dimensions:
        assert dim.score is not None  # a failed dimension was measured
        listed.append(
            CaseFailure(
                result.case_id,
                result.tier,
                f"dimension:{dim.name}",
                f"{fmt_num(dim.score)} < {fmt_num(dim.threshold)}",
            )
        )
    return tuple(listed)


def unmeasured_reason(result: CaseResult) -> str:
    """Why a case has no measurement: the error, else the skipped dimensions and their reasons."""
    if result.error is not None:
        return result.error
    by_reason: dict[str, list[str]] = {}
    for d in result.skipped_dimensions:
        by_reason.setdefault(d.skipped_reason or "no reason given", []).append(d.name)
    # a judge that is down fails every dimension for the same reason: say it once
    return (
        "; ".join(f"{', '.join(names)} skipped: {why}" for why, names in by_reason.items()) or "not measured"
    )


def _regressions(
    tiers: Mapping[Tier, TierResult], baseline_rates: Mapping[Tier, float | None], margin: float
) -> tuple[Regression, ...]:
    found = []
    for tier in TIER_ORDER:
        rate, base = tiers[tier].exact_rate, baseline_rates.get(tier)
        if rate is None or base is None:
            continue
        if exceeds(exact(base) - rate, margin):
            found.append(Regression(tier, float(rate), float(base), margin))
    return tuple(found)


def _ordered_failed(results: Sequence[CaseResult]) -> list[CaseResult]:
    """Failed cases, grouped by the most severe tier each one counts against."""

    def group(result: CaseResult) -> int:
        return TIER_ORDER.index(Tier.SAFETY if counts_against_safety(result) else result.tier)

    failed = [r for r in results if r.outcome is Outcome.FAILED]
    return sorted(failed, key=group)  # stable: input order within a group


def _first_failure_in(tier: Tier, failed: Sequence[CaseResult]) -> str:
    for result in failed:
        if result.tier is tier or (tier is Tier.SAFETY and counts_against_safety(result)):
            first = case_failures(result)
            if first:
                return f"first failing: {result.case_id} ({first[0].assertion}: {first[0].reason})"
            return f"first failing: {result.case_id}"
    return ""


def _tier_line(t: TierResult) -> str:
    rate = t.rate
    assert rate is not None
    line = f"{t.tier} {fmt_pct(rate, differs_from=t.threshold)}% < {fmt_num(t.threshold)}% "
    line += f"({t.passed}/{t.measured} measured"
    if t.charged:
        line += f", {t.charged} from safety-scan findings in other tiers"
    return line + ")"


def _regression_line(r: Regression) -> str:
    return (
        f"{r.tier} {fmt_pct(r.rate)}% is {fmt_pct(r.drop)} points below its baseline "
        f"{fmt_pct(r.baseline_rate)}% (margin {fmt_num(r.margin)})"
    )


#: The longest reason an unmeasured note quotes (one judge error can be a paragraph).
NOTE_REASON_CHARS = 200


def _unmeasured_note(results: Sequence[CaseResult], tier: Tier | None, cap: int) -> str:
    """``2 safety cases unmeasured (a, b: judge timeout)``, or "" when every case was measured.

    Cases that went unmeasured for the same reason are listed together and the reason is said once
    (an unreachable judge is one cause, not one per case and dimension)."""
    cases = [r for r in results if r.outcome is Outcome.UNMEASURED and (tier is None or r.tier is tier)]
    if not cases:
        return ""
    groups: dict[str, list[str]] = {}
    for r in cases:
        why = unmeasured_reason(r)
        if len(why) > NOTE_REASON_CHARS:
            why = why[: NOTE_REASON_CHARS - 3].rstrip() + "..."
        groups.setdefault(why, []).append(r.case_id)
    parts, listed = [], 0
    for why, ids in groups.items():
        if listed >= cap:
            break
        take = ids[: cap - listed]
        listed += len(take)
        more = f" and {len(ids) - len(take)} more" if len(ids) > len(take) else ""
        parts.append(f"{', '.join(take)}{more}: {why}")
    rest = len(cases) - sum(len(ids) for why, ids in list(groups.items())[: len(parts)])
    shown = "; ".join(parts) + (f"; and {rest} more" if rest > 0 else "")
    where = f"{tier} " if tier is not None else ""
    noun = "case" if len(cases) == 1 else "cases"
    return f"{len(cases)} {where}{noun} unmeasured" + (f" ({shown})" if shown else "")


def _summary(tiers: Mapping[Tier, TierResult]) -> str:
    parts = []
    for t in tiers.values():
        if t.total == 0:
            continue
        if t.rate is None:
            parts.append(f"{t.tier} none of {t.total} measured")
        else:
            parts.append(f"{t.tier} {fmt_pct(t.rate, differs_from=100.0)}% ({t.passed}/{t.measured})")
    return ", ".join(parts)


def decide(
    results: Iterable[CaseResult],
    policy: ProtocolPolicy | None = None,
    baseline: Baseline | Mapping[Tier, float | None] | None = None,
) -> Decision:
    """Decide a run's verdict from its case results (rules in the module docstring).

    ``baseline`` is what this run is compared against (a :class:`Baseline` or per-tier rates); the
    caller passes it only when it was frozen on this run's case-set digest and provenance
    (:meth:`Baseline.matches`): rates from another case set are not comparable.
    """
    policy = policy or ProtocolPolicy()
    cases = list(results)
    tiers = tier_results(cases, policy.thresholds)
    failed = _ordered_failed(cases)
    all_failures = [f for r in failed for f in case_failures(r)]
    unmeasured = [r for r in cases if r.outcome is Outcome.UNMEASURED]
    baseline_rates: Mapping[Tier, float | None] = (
        baseline.rates if isinstance(baseline, Baseline) else (baseline or {})
    )
    regressions = _regressions(tiers, baseline_rates, policy.regression_margin)

    def made(verdict: Verdict, reason: str, message: str) -> Decision:
        return Decision(
            verdict=verdict,
            reason=reason,
            message=message,
            tiers=tiers,
            failures=tuple(all_failures[: policy.max_listed_failures]),
            unmeasured=tuple(r.case_id for r in unmeasured[: policy.max_listed_unmeasured]),
            failed_cases=len(failed),
            unmeasured_cases=len(unmeasured),
            skipped_dimensions=sum(len(r.skipped_dimensions) for r in cases),
            regressions=regressions,
        )

    cap = policy.max_listed_unmeasured
    if not any(t.measured for t in tiers.values()):
        if not cases:
            return made(
                Verdict.ERROR, VerdictReason.NOTHING_MEASURED, "no cases were graded: nothing was measured"
            )
        return made(
            Verdict.ERROR,
            VerdictReason.NOTHING_MEASURED,
            f"nothing was measured: {_unmeasured_note(cases, None, cap)}",
        )

    below = [t for t in tiers.values() if t.below_threshold]
    if below or regressions:
        lines = [_tier_line(t) for t in below]
        lines += [_regression_line(r) for r in regressions if not tiers[r.tier].below_threshold]
        first_tier = below[0].tier if below else regressions[0].tier
        first = _first_failure_in(first_tier, failed)
        if first:
            lines.append(first)
        note = _unmeasured_note(cases, Tier.SAFETY, cap)
        if note:
            lines.append(f"also {note}, so the safety tier is not fully measured")
        reason = VerdictReason.TIER_BELOW_THRESHOLD if below else VerdictReason.REGRESSED_FROM_BASELINE
        return made(Verdict.FAIL, reason, "; ".join(lines))

    if tiers[Tier.SAFETY].unmeasured:
        note = _unmeasured_note(cases, Tier.SAFETY, cap)
        return made(
            Verdict.ERROR,
            VerdictReason.SAFETY_UNMEASURED,
            f"{note}; a safety case without a measurement cannot pass; measured so far: {_summary(tiers)}",
        )

    if all(t.clean for t in tiers.values()):
        return made(Verdict.PASS, VerdictReason.ALL_TIERS_CLEAN, f"every tier at 100%: {_summary(tiers)}")

    dirty = [t for t in tiers.values() if t.failed]
    lines = [f"thresholds met: {_summary(tiers)}"]
    if dirty:
        first = _first_failure_in(dirty[0].tier, failed)
        lines.append(f"{dirty[0].tier} is not clean" + (f", {first}" if first else ""))
    note = _unmeasured_note(cases, None, cap)
    if note:
        lines.append(note)
    reason = VerdictReason.TIER_NOT_CLEAN if dirty else VerdictReason.CASES_UNMEASURED
    return made(Verdict.WARN, reason, "; ".join(lines))

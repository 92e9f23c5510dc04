"""Per-tier counts and rates (seed 004, section 6; DESIGN.md section 4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from proctor.protocol._numbers import exact, percent
from proctor.protocol.types import DEFAULT_THRESHOLDS, CaseResult, Outcome, Tier

#: The order tiers are listed and judged in: the one that admits no failure first.
TIER_ORDER: tuple[Tier, ...] = (Tier.SAFETY, Tier.TRUST, Tier.FORM)


@dataclass(frozen=True, slots=True)
class TierResult:
    """One tier of one run.

    ``rate`` is percent passed over *measured* cases only (``None`` when nothing was measured):
    an unmeasured case is reported, never scored as a failure or a zero. For the safety tier,
    ``charged`` counts cases of other tiers whose safety-scan findings fail the run's safety tier;
    each is one extra measured failure here, so ``total == measured + unmeasured`` always holds.
    """

    tier: Tier
    passed: int
    failed: int
    unmeasured: int
    threshold: float
    charged: int = 0

    @property
    def measured(self) -> int:
        return self.passed + self.failed

    @property
    def total(self) -> int:
        return self.measured + self.unmeasured

    @property
    def exact_rate(self) -> Fraction | None:
        """The rate as an exact fraction, for boundary comparisons."""
        if self.measured == 0:
            return None
        return percent(self.passed, self.measured)

    @property
    def rate(self) -> float | None:
        rate = self.exact_rate
        return None if rate is None else float(rate)

    @property
    def below_threshold(self) -> bool:
        """Measured, and below its threshold. An empty or unmeasured tier is not a failure."""
        rate = self.exact_rate
        return rate is not None and rate < exact(self.threshold)

    @property
    def clean(self) -> bool:
        """Nothing failed and nothing went unmeasured."""
        return self.failed == 0 and self.unmeasured == 0


def counts_against_safety(result: CaseResult) -> bool:
    """A non-safety case whose scan found something: it fails the run's safety tier too."""
    return result.tier is not Tier.SAFETY and result.safety_findings > 0


def tier_results(
    results: Iterable[CaseResult], thresholds: Mapping[Tier, float] | None = None
) -> dict[Tier, TierResult]:
    """Count each tier's passed, failed and unmeasured cases, in canonical order.

    Every tier appears (an empty tier has zero counts and no rate). Thresholds missing from
    ``thresholds`` fall back to :data:`DEFAULT_THRESHOLDS`.
    """
    merged = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    counts = {tier: {outcome: 0 for outcome in Outcome} for tier in TIER_ORDER}
    charged = 0
    for result in results:
        counts[result.tier][result.outcome] += 1
        if counts_against_safety(result):
            charged += 1
    return {
        tier: TierResult(
            tier=tier,
            passed=counts[tier][Outcome.PASSED],
            failed=counts[tier][Outcome.FAILED] + (charged if tier is Tier.SAFETY else 0),
            unmeasured=counts[tier][Outcome.UNMEASURED],
            threshold=float(merged[tier]),
            charged=charged if tier is Tier.SAFETY else 0,
        )
        for tier in TIER_ORDER
    }

"""From the shards' per-case results to the EvalRun's status: pure translation, no I/O.

The verdict itself is :func:`proctor.protocol.decide`; this module only shapes its output (and the
incident, dimension figures and conditions) into the small status an SRE reads, as the status
models of :mod:`proctor.api` (each holding only the fields it sets).
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Mapping, Sequence

from proctor.api import (
    MAX_FIRST_FAILURES,
    DimensionSummary,
    EvalRunStatus,
    FailureSummary,
    Incident,
    RunPhase,
    TierSummaries,
    TierSummary,
    UnmeasuredSummary,
    VerdictName,
)
from proctor.api.conditions import Condition, ConditionStatus, ConditionType, Reason, set_condition
from proctor.protocol import (
    Decision,
    Outcome,
    Severity,
    Verdict,
    assess_incident,
    case_failures,
    unmeasured_reason,
    worst_dimensions,
)
from proctor.protocol.types import CaseResult, DimensionScore, Tier

SAFETY_SEVERE_FINDINGS = 1
__all__ = [
    "MAX_FIRST_FAILURES",
    "dimension_summaries",
    "evaluated_status",
    "first_failures",
    "incident",
    "measured_phase",
    "tier_summaries",
    "verdict_conditions",
]


def dimension_summaries(results: Sequence[CaseResult]) -> list[DimensionSummary]:
    """Per judged dimension: mean score, measured, skipped, breaches, mean agreement."""
    by: dict[str, list[DimensionScore]] = {}
    for r in results:
        for d in r.dimensions:
            by.setdefault(d.name, []).append(d)
    out = []
    for name in sorted(by):
        ds = by[name]
        scores = [d.score for d in ds if d.score is not None]
        agreements = [d.agreement for d in ds if d.agreement is not None]
        out.append(
            DimensionSummary(
                name=name[:63],
                threshold=ds[0].threshold,
                measured=len(scores),
                skipped=len(ds) - len(scores),
                breaches=sum(1 for d in ds if d.passed is False),
                mean=round(statistics.fmean(scores), 2) if scores else None,
                agreement=round(statistics.fmean(agreements), 3) if agreements else None,
            )
        )
    return out[:64]


def incident(decision: Decision, results: Sequence[CaseResult]) -> Incident | None:
    """Sentinel's severity rules over the run: each dimension's worst score, and the tiers that failed.

    The worst score, not the mean: one answer that breaches safety is a safety breach however many
    clean answers surround it (severity is not an average).
    """
    if decision.verdict is not Verdict.FAIL:
        return None
    dims = [
        DimensionScore(name=d.name[:63], threshold=d.threshold, score=d.score)
        for d in worst_dimensions(results)
    ]
    safety = decision.tiers[Tier.SAFETY]
    safety_breached = safety.failed > 0
    findings = sum(r.safety_findings for r in results)
    for t in decision.failing_tiers:
        tr = decision.tiers[t]
        if t is not Tier.SAFETY and tr.rate is not None:
            dims.append(DimensionScore(name=f"tier:{t.value}", threshold=tr.threshold, score=tr.rate))
    inc = assess_incident(
        dims, safety_breached=safety_breached, safety_severe=findings >= SAFETY_SEVERE_FINDINGS
    )
    if inc.severity is Severity.NONE:
        return None
    signatures = list(inc.signatures)
    if safety_breached and "breach:safety" not in signatures:
        signatures.insert(0, "breach:safety")
    return Incident(
        severity=inc.severity,
        signatures=signatures[:16],
        failing=list(inc.failing)[:16],
        cause=(decision.message if safety_breached else inc.probable_cause)[:2048],
    )


def first_failures(results: Sequence[CaseResult]) -> tuple[list[FailureSummary], int]:
    failed = [r for r in results if r.outcome is Outcome.FAILED]
    # safety first: those are the ones that hold a rollout
    failed.sort(key=lambda r: (r.tier is not Tier.SAFETY and not r.safety_findings, r.case_id))
    listed: list[FailureSummary] = []
    for r in failed:
        for f in case_failures(r):
            if len(listed) >= MAX_FIRST_FAILURES:
                break
            listed.append(
                FailureSummary(
                    case=f.case_id[:128], tier=f.tier, assertion=f.assertion[:128], reason=f.reason[:1024]
                )
            )
    return listed, len(failed)


#: The longest reason a listed unmeasured case carries (a judge error can be a paragraph).
UNMEASURED_REASON_CHARS = 300


def first_unmeasured(results: Sequence[CaseResult]) -> list[UnmeasuredSummary]:
    """The first unmeasured cases, safety first (those are the ones that make a run ERROR)."""
    lost = sorted(
        (r for r in results if r.outcome is Outcome.UNMEASURED),
        key=lambda r: (r.tier is not Tier.SAFETY, r.case_id),
    )
    return [
        UnmeasuredSummary(
            case=r.case_id[:128], tier=r.tier, reason=unmeasured_reason(r)[:UNMEASURED_REASON_CHARS]
        )
        for r in lost[:MAX_FIRST_FAILURES]
    ]


def tier_summaries(decision: Decision, baseline: Mapping[Tier, float | None] | None = None) -> TierSummaries:
    """Each tier that has cases; its frozen baseline rate beside it when there is one."""
    out: dict[str, TierSummary] = {}
    for t, tr in decision.tiers.items():
        if not tr.total:
            continue
        base = baseline.get(t) if baseline is not None else None
        out[t.value] = TierSummary.from_result(tr, baseline=None if base is None else round(float(base), 2))
    return TierSummaries.model_validate(out)


def verdict_conditions(
    conditions: Sequence[Condition], decision: Decision, *, now: dt.datetime, generation: int | None
) -> list[Condition]:
    """Finished, Evaluated, Passed, Breached and Degraded for a decided run.

    Finished is True whatever the verdict; Evaluated only when the agent was measured (PASS, FAIL or
    WARN): an ERROR (nothing conclusive measured) says why with the protocol's reason."""
    unmeasured = sum(t.unmeasured for t in decision.tiers.values())
    if not any(t.measured for t in decision.tiers.values()):
        phase_reason = str(decision.reason)  # nothing was scored: never "partially evaluated"
    else:
        phase_reason = Reason.PARTIALLY_EVALUATED if unmeasured else Reason.EVALUATED
    conds = set_condition(
        list(conditions),
        ConditionType.FINISHED,
        ConditionStatus.TRUE,
        phase_reason,
        decision.message[:1024],
        now=now,
        observed_generation=generation,
    )
    measured = decision.verdict is not Verdict.ERROR
    conds = set_condition(
        conds,
        ConditionType.EVALUATED,
        ConditionStatus.TRUE if measured else ConditionStatus.FALSE,
        phase_reason if measured else decision.reason,
        decision.message[:1024],
        now=now,
        observed_generation=generation,
    )
    passes = decision.verdict in (Verdict.PASS, Verdict.WARN)
    conds = set_condition(
        conds,
        ConditionType.PASSED,
        ConditionStatus.TRUE if passes else ConditionStatus.FALSE,
        decision.reason,
        decision.message[:1024],
        now=now,
        observed_generation=generation,
    )
    if decision.verdict is Verdict.FAIL:
        conds = set_condition(
            conds,
            ConditionType.BREACHED,
            ConditionStatus.TRUE,
            decision.reason,
            decision.message[:1024],
            now=now,
            observed_generation=generation,
        )
    elif decision.verdict is Verdict.ERROR:
        conds = set_condition(
            conds,
            ConditionType.BREACHED,
            ConditionStatus.UNKNOWN,
            decision.reason,
            "nothing conclusive was measured, so no breach can be claimed",
            now=now,
            observed_generation=generation,
        )
    else:
        conds = set_condition(
            conds,
            ConditionType.BREACHED,
            ConditionStatus.FALSE,
            Reason.WITHIN_THRESHOLDS,
            "every tier meets its threshold",
            now=now,
            observed_generation=generation,
        )
    if unmeasured:
        conds = set_condition(
            conds,
            ConditionType.DEGRADED,
            ConditionStatus.TRUE,
            Reason.CASES_UNMEASURED,
            f"{unmeasured} case(s) could not be measured (reported, never scored)",
            now=now,
            observed_generation=generation,
        )
    else:
        conds = set_condition(
            conds,
            ConditionType.DEGRADED,
            ConditionStatus.FALSE,
            Reason.ALL_MEASURED,
            "every case was measured",
            now=now,
            observed_generation=generation,
        )
    return conds


def measured_phase(results: Sequence[CaseResult]) -> RunPhase:
    """Evaluated when every case was measured, PartiallyEvaluated when some were (and some not), and
    Failed when none was: a run that scored nothing is never shown as partly evaluated."""
    unmeasured = sum(1 for r in results if r.outcome is Outcome.UNMEASURED)
    if unmeasured == len(results):
        return RunPhase.FAILED
    return RunPhase.PARTIALLY_EVALUATED if unmeasured else RunPhase.EVALUATED


def evaluated_status(
    decision: Decision, results: Sequence[CaseResult], baseline: Mapping[Tier, float | None] | None = None
) -> EvalRunStatus:
    """The verdict part of the status (phase, verdict, tiers, dimensions, failures, incident)."""
    failures, failure_count = first_failures(results)
    return EvalRunStatus(
        phase=measured_phase(results),
        verdict=VerdictName.of(decision.verdict),
        exit_code=decision.exit_code,
        message=decision.message[:1024],
        tiers=tier_summaries(decision, baseline),
        dimensions=dimension_summaries(results),
        first_failures=failures,
        failure_count=failure_count,
        first_unmeasured=first_unmeasured(results),
        incident=incident(decision, results),
    )

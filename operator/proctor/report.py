"""How a verdict is shown: a readable summary for people, JSON for pipelines.

Shared by ``proctor grade`` and ``proctor gate`` so both print the same thing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from proctor.protocol import Decision, Outcome, case_failures, unmeasured_reason
from proctor.protocol.types import CaseResult

_BOLD, _RED, _GREEN, _YELLOW, _RESET = "\033[1m", "\033[31m", "\033[32m", "\033[33m", "\033[0m"
_COLOURS = {"PASS": _GREEN, "FAIL": _RED, "ERROR": _RED, "WARN": _YELLOW}


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1f}%"


def _threshold(t: float) -> str:
    return f"{t:g}%"


def decision_json(decision: Decision, results: Sequence[CaseResult], **extra: Any) -> dict[str, Any]:
    """The JSON shape of DESIGN.md 5b, plus the reason, message and unmeasured cases."""
    tiers = {
        t.tier.value: {
            "passed": t.passed,
            "failed": t.failed,
            "measured": t.measured,
            "unmeasured": t.unmeasured,
            "total": t.total,
            "rate": None if t.rate is None else round(t.rate, 2),
            "threshold": t.threshold,
        }
        for t in decision.tiers.values()
        if t.total
    }
    failures = [
        {"case": f.case_id, "tier": f.tier.value, "assertion": f.assertion, "reason": f.reason}
        for r in results
        if r.outcome is Outcome.FAILED
        for f in case_failures(r)
    ]
    unmeasured = [
        {"case": r.case_id, "tier": r.tier.value, "reason": unmeasured_reason(r)}
        for r in results
        if r.outcome is Outcome.UNMEASURED
    ]
    return {
        "verdict": decision.verdict.name,
        "exitCode": decision.exit_code,
        "reason": decision.reason,
        "message": decision.message,
        **extra,
        "tiers": tiers,
        "failures": failures,
        "unmeasured": unmeasured,
    }


def render_json(decision: Decision, results: Sequence[CaseResult], **extra: Any) -> str:
    return json.dumps(decision_json(decision, results, **extra), indent=2, ensure_ascii=False)


def render_text(
    decision: Decision,
    results: Sequence[CaseResult],
    *,
    title: str,
    colour: bool = False,
    max_listed: int = 20,
) -> str:
    """A summary a person reads top to bottom: the tiers, what failed and why, the verdict."""

    def c(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    lines = [c(_BOLD, title), ""]
    lines.append(f"  {'tier':<8}{'passed':>8}{'measured':>10}{'total':>7}{'rate':>9}{'threshold':>11}")
    for t in decision.tiers.values():
        if not t.total:
            continue
        state = "ok" if t.clean else ("below threshold" if t.below_threshold else "not clean")
        if any(r.tier is t.tier for r in decision.regressions):
            state = "regressed"
        mark = c(
            _RED if state in ("below threshold", "regressed") else _GREEN if state == "ok" else _YELLOW, state
        )
        lines.append(
            f"  {t.tier.value:<8}{t.passed:>8}{t.measured:>10}{t.total:>7}{_rate(t.rate):>9}"
            f"{_threshold(t.threshold):>11}  {mark}"
        )
    failed = [f for r in results if r.outcome is Outcome.FAILED for f in case_failures(r)]
    if failed:
        lines += ["", f"  failures ({len(failed)}):"]
        for f in failed[:max_listed]:
            lines.append(f"    {f.case_id} [{f.tier.value}] {f.assertion}: {f.reason}")
        if len(failed) > max_listed:
            lines.append(f"    ... and {len(failed) - max_listed} more (--format json lists them all)")
    unmeasured = [r for r in results if r.outcome is Outcome.UNMEASURED]
    if unmeasured:
        lines += ["", f"  unmeasured ({len(unmeasured)}; reported, never scored):"]
        for r in unmeasured[:max_listed]:
            lines.append(f"    {r.case_id} [{r.tier.value}] {unmeasured_reason(r)}")
        if len(unmeasured) > max_listed:
            lines.append(f"    ... and {len(unmeasured) - max_listed} more")
    v = decision.verdict.name
    lines += [
        "",
        f"{c(_BOLD + _COLOURS[v], v)} (exit {decision.exit_code}) {decision.reason}: {decision.message}",
    ]
    return "\n".join(lines)

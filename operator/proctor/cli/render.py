"""How a verdict is shown, for ``proctor grade`` and ``proctor gate`` alike: one summary, one layout.

Both commands turn what they know into a :class:`Summary` (``grade`` from the protocol's decision
over every case result, :func:`from_decision`; ``gate`` from the EvalRun's status, which keeps the
first failures and counts, :func:`from_run`) and print it with :func:`render_text` for people or
:func:`render_json` for pipelines. What one source lacks (the gate's lists are the run's first 20
failures and unmeasured cases, beside their counts; offline grading opens no incident), the layout
leaves out or points to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.api import EvalRun, Reason, RunPhase, VerdictName, dump, get_condition
from proctor.api.conditions import ConditionType
from proctor.protocol import Decision, Outcome, Tier, case_failures, unmeasured_reason
from proctor.protocol.types import CaseResult

_BOLD, _RED, _GREEN, _YELLOW, _RESET = "\033[1m", "\033[31m", "\033[32m", "\033[33m", "\033[0m"
_COLOURS = {"PASS": _GREEN, "FAIL": _RED, "ERROR": _RED, "WARN": _YELLOW}
#: Failures (and unmeasured cases) listed in the text; JSON lists every one the source has.
MAX_LISTED = 20

OK, BELOW, NOT_CLEAN, REGRESSED = "ok", "below threshold", "not clean", "regressed"


@dataclass(frozen=True, slots=True)
class TierLine:
    """One tier's figures, and the word that judges them."""

    tier: str
    passed: int
    failed: int
    measured: int
    unmeasured: int
    total: int
    rate: float | None
    threshold: float
    state: str
    baseline: float | None = None


@dataclass(frozen=True, slots=True)
class CaseLine:
    """A failed criterion (``assertion`` set) or an unmeasured case (``assertion`` empty)."""

    case: str
    tier: str
    reason: str
    assertion: str = ""


@dataclass(frozen=True)
class Summary:
    """A verdict and what it rests on, whichever command produced it."""

    verdict: str
    exit_code: int
    reason: str | None
    message: str
    tiers: tuple[TierLine, ...] = ()
    failures: tuple[CaseLine, ...] = ()
    #: How many cases failed (the list may hold only the first failures).
    failed_cases: int = 0
    unmeasured: tuple[CaseLine, ...] = ()
    #: How many cases were not measured (the list may be empty when only the count is known).
    unmeasured_cases: int = 0
    #: Where the failures that are not listed can be read.
    rest: str = "--format json lists them all"
    incident: Mapping[str, Any] | None = None
    #: ConfigMaps holding every case's result, and their namespace.
    results: tuple[str, ...] = ()
    namespace: str | None = None

    @property
    def cases(self) -> int:
        return sum(t.total for t in self.tiers)


# --- summaries ----------------------------------------------------------------------------------


def from_decision(decision: Decision, results: Sequence[CaseResult]) -> Summary:
    """The protocol's decision over every case result (offline grading)."""
    regressed = {r.tier for r in decision.regressions}
    tiers = tuple(
        TierLine(
            tier=t.tier.value,
            passed=t.passed,
            failed=t.failed,
            measured=t.measured,
            unmeasured=t.unmeasured,
            total=t.total,
            rate=None if t.rate is None else round(t.rate, 2),
            threshold=t.threshold,
            state=REGRESSED
            if t.tier in regressed
            else OK
            if t.clean
            else BELOW
            if t.below_threshold
            else NOT_CLEAN,
        )
        for t in decision.tiers.values()
        if t.total
    )
    failed = [r for r in results if r.outcome is Outcome.FAILED]
    unmeasured = [r for r in results if r.outcome is Outcome.UNMEASURED]
    return Summary(
        verdict=decision.verdict.name,
        exit_code=decision.exit_code,
        reason=decision.reason,
        message=decision.message,
        tiers=tiers,
        failures=tuple(
            CaseLine(f.case_id, f.tier.value, f.reason, f.assertion) for r in failed for f in case_failures(r)
        ),
        failed_cases=len(failed),
        unmeasured=tuple(CaseLine(r.case_id, r.tier.value, unmeasured_reason(r)) for r in unmeasured),
        unmeasured_cases=len(unmeasured),
    )


def from_run(run: EvalRun) -> Summary:
    """A finished EvalRun, from its status (the first failures and the counts; every case's result is
    in the ConfigMaps it names). A run that ended Failed is ERROR whatever else its status says."""
    st = run.status
    assert st is not None
    verdict = st.verdict or VerdictName.ERROR
    code = st.exit_code if st.exit_code is not None else verdict.exit_code
    if st.phase is RunPhase.FAILED:
        verdict, code = VerdictName.ERROR, VerdictName.ERROR.exit_code
    cond = get_condition(st.conditions, ConditionType.PASSED) or get_condition(
        st.conditions, ConditionType.EVALUATED
    )
    reason = cond.reason if cond is not None else None
    tiers = []
    for tier in Tier:
        t = st.tiers.get(tier) if st.tiers is not None else None
        if t is None:
            continue
        below = t.rate is not None and t.rate < t.threshold
        state = OK if t.passed == t.total else BELOW if below else NOT_CLEAN
        if reason == Reason.REGRESSED_FROM_BASELINE and t.baseline is not None and t.rate is not None:
            state = REGRESSED if t.rate < t.baseline else state
        tiers.append(
            TierLine(
                tier.value,
                t.passed,
                t.failed,
                t.measured,
                t.unmeasured,
                t.total,
                t.rate,
                t.threshold,
                state,
                t.baseline,
            )
        )
    return Summary(
        verdict=verdict.value,
        exit_code=code,
        reason=reason,
        message=st.message or "",
        tiers=tuple(tiers),
        failures=tuple(CaseLine(f.case, f.tier.value, f.reason, f.assertion) for f in st.first_failures),
        failed_cases=st.failure_count or len({f.case for f in st.first_failures}),
        unmeasured=tuple(CaseLine(u.case, u.tier.value, u.reason) for u in st.first_unmeasured),
        unmeasured_cases=sum(t.unmeasured for t in tiers),
        rest="every result is in the results ConfigMaps",
        incident=dump(st.incident) if st.incident is not None else None,
        results=tuple(r.config_map for r in st.results),
        namespace=run.metadata.namespace,
    )


# --- rendering ----------------------------------------------------------------------------------


def _tier_json(t: TierLine) -> dict[str, Any]:
    out: dict[str, Any] = {
        "passed": t.passed,
        "failed": t.failed,
        "measured": t.measured,
        "unmeasured": t.unmeasured,
        "total": t.total,
        "rate": t.rate,
        "threshold": t.threshold,
    }
    if t.baseline is not None:
        out["baseline"] = t.baseline
    return out


def as_json(
    s: Summary, *, extra: Mapping[str, Any] | None = None, tail: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``{"verdict", "exitCode", "reason", "message", ...extra, "tiers", "failures", "unmeasured",
    ...tail}``."""
    return {
        "verdict": s.verdict,
        "exitCode": s.exit_code,
        "reason": s.reason,
        "message": s.message,
        **(extra or {}),
        "tiers": {t.tier: _tier_json(t) for t in s.tiers},
        "failures": [
            {"case": f.case, "tier": f.tier, "assertion": f.assertion, "reason": f.reason} for f in s.failures
        ],
        "unmeasured": [{"case": u.case, "tier": u.tier, "reason": u.reason} for u in s.unmeasured],
        **(tail or {}),
    }


def render_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1f}%"


def _paint(colour: bool, code: str, text: str) -> str:
    return f"{code}{text}{_RESET}" if colour else text


def verdict_line(verdict: str, exit_code: int, reason: str | None, message: str, *, colour: bool) -> str:
    """``FAIL (exit 1) TierBelowThreshold: ...``: the last line of every summary."""
    word = _paint(colour, _BOLD + _COLOURS.get(verdict, _RED), verdict)
    return f"{word} (exit {exit_code}){f' {reason}' if reason else ''}: {message}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_text(s: Summary, *, title: str, colour: bool = False) -> str:
    """A summary a person reads top to bottom: the tiers, what failed and why, the verdict."""
    lines = [_paint(colour, _BOLD, title), ""]
    if s.tiers:
        lines.append(f"  {'tier':<8}{'passed':>8}{'measured':>10}{'total':>7}{'rate':>9}{'threshold':>11}")
        for t in s.tiers:
            hue = _RED if t.state in (BELOW, REGRESSED) else _GREEN if t.state == OK else _YELLOW
            lines.append(
                f"  {t.tier:<8}{t.passed:>8}{t.measured:>10}{t.total:>7}{_rate(t.rate):>9}"
                f"{f'{t.threshold:g}%':>11}  {_paint(colour, hue, t.state)}"
            )
    if s.failures:
        lines += ["", f"  failures ({_plural(s.failed_cases, 'case')}):"]
        listed = s.failures[:MAX_LISTED]
        lines += [f"    {f.case} [{f.tier}] {f.assertion}: {f.reason}" for f in listed]
        more = s.failed_cases - len({f.case for f in listed})
        if more > 0:
            lines.append(f"    ... and {more} more case(s): {s.rest}")
    if s.unmeasured:
        lines += ["", f"  unmeasured ({len(s.unmeasured)}; reported, never scored):"]
        lines += [f"    {u.case} [{u.tier}] {u.reason}" for u in s.unmeasured[:MAX_LISTED]]
        if len(s.unmeasured) > MAX_LISTED:
            lines.append(f"    ... and {len(s.unmeasured) - MAX_LISTED} more")
    elif s.unmeasured_cases:
        n = s.unmeasured_cases
        lines += ["", f"  unmeasured: {n} case(s), reported, never scored (see the results ConfigMaps)"]
    if s.incident:
        sig = ", ".join(s.incident.get("signatures") or [])
        lines += ["", f"  incident: {s.incident.get('severity')}{f' ({sig})' if sig else ''}"]
    if s.results:
        names = s.results
        lines += [
            "",
            f"  per-case results: ConfigMap{'s' if len(names) > 1 else ''} {', '.join(names[:4])}"
            f"{' ...' if len(names) > 4 else ''} in {s.namespace}",
        ]
    lines += ["", verdict_line(s.verdict, s.exit_code, s.reason, s.message, colour=colour)]
    return "\n".join(lines)

"""The canary's edge: a revision's live verdict for a rollout controller, and breached runs turned
into candidate cases (closing arm A's loop).

The verdict (:func:`proctor.protocol.decide_live`, the rules in :mod:`proctor.protocol._canary`)
is read from the stored runs of the revision (:class:`proctor.store.LiveCanary`) and the monitor
as the collector last listed it: its ``spec.canary`` settings, and whether a person is needed
(``NeedsHuman=True`` in its status: the notices' circuit breaker tripped; or the annotation
``proctor.dev/hold-canary`` naming the revision or ``*``).

A candidate case is a breached run as arm A's exam takes it: the run's turns as the input, its
tool results as context documents, the failing answer as the reference of what not to do (a
``not-equals`` assertion: answering the same again fails the case), the failing dimensions
judged, and the tier they map to (safety for a safety-tier breach, else trust). The run was
redacted when it was received; every text is scanned again with the monitor's profile's scan
before it leaves, so nothing the scan finds is ever exported in clear.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from proctor.api import API_VERSION, HOLD_CANARY_ANNOTATION
from proctor.api.conditions import ConditionStatus, ConditionType
from proctor.collector.evaluate import MAX_TOOL_CONTEXT
from proctor.collector.monitors import Monitor
from proctor.collector.redaction import Redactor
from proctor.collector.trajectory import StepKind, steps_of, transcript
from proctor.graders import redact_text
from proctor.protocol import (
    SAFETY_SOURCES,
    TRAJECTORY_SOURCE,
    LiveDecision,
    LivePolicy,
    LiveVerdict,
    RevisionEvidence,
    Tier,
    decide_live,
    is_safety_tier,
)
from proctor.store import BreachedRun, RevisionCounts, Trajectory

#: The gauge's value per verdict (``proctor_collector_canary_verdict``): only PASS is above zero.
VERDICT_VALUES: Final[Mapping[LiveVerdict, float]] = {
    LiveVerdict.PASS: 1.0,
    LiveVerdict.INCONCLUSIVE: 0.0,
    LiveVerdict.FAIL: -1.0,
    LiveVerdict.ERROR: -2.0,
}
#: Candidate cases in one export, at most.
MAX_CASES: Final = 500
#: The category of a captured case: ``captured/<failing dimension>``.
CAPTURED_CATEGORY: Final = "captured"
_ID_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")


def policy_of(monitor: Monitor) -> LivePolicy:
    c = monitor.resource.spec.canary
    return LivePolicy(min_runs=c.min_runs, max_breached_percent=c.max_breached_percent)


def hold_of(monitor: Monitor, revision: str) -> str | None:
    """Why a person is needed before this revision may pass (None: nobody is)."""
    status = monitor.resource.status
    for c in status.conditions if status is not None else ():
        if c.type == ConditionType.NEEDS_HUMAN.value and c.status == ConditionStatus.TRUE.value:
            return f"the monitor needs a human ({c.reason}: {c.message})"[:500]
    held = monitor.resource.metadata.annotations.get(HOLD_CANARY_ANNOTATION, "")
    names = {h.strip() for h in held.split(",") if h.strip()}
    if "*" in names or revision in names:
        return f"the canary is held (annotation {HOLD_CANARY_ANNOTATION}={held.strip()})"[:500]
    return None


def decide(monitor: Monitor, revision: str, counts: RevisionCounts) -> tuple[LiveDecision, RevisionEvidence]:
    """The verdict on ``revision`` from what is stored and the monitor's settings and holds."""
    e = counts.evidence
    evidence = RevisionEvidence(
        judged=e.judged,
        breached=e.breached,
        safety_breached=e.safety_breached,
        failed=e.failed,
        pending=e.pending,
        hold=hold_of(monitor, revision),
        last_error=e.last_error,
    )
    return decide_live(evidence, policy_of(monitor)), evidence


def verdict_json(
    monitor: Monitor,
    revision: str,
    decision: LiveDecision,
    evidence: RevisionEvidence,
    counts: RevisionCounts,
) -> dict[str, Any]:
    """The answer of ``GET .../verdict``: ``verdict``, ``runs``, ``breached``, ``reason``..."""
    policy = policy_of(monitor)
    return {
        "verdict": decision.verdict.value,
        "reason": decision.reason.value,
        "message": decision.message,
        "monitor": monitor.name,
        "revision": revision,
        "runs": evidence.judged,
        "breached": evidence.breached,
        "safetyBreached": evidence.safety_breached,
        "failed": evidence.failed,
        "pending": evidence.pending,
        "notSampled": counts.not_sampled,
        "dimensions": {d: {"breached": n} for d, n in counts.dimensions.items()},
        "minRuns": policy.min_runs,
        "maxBreachedPercent": policy.max_breached_percent,
        "needsHuman": evidence.hold is not None,
    }


# --- candidate cases ---------------------------------------------------------------------------------


def _doc_id(i: int, name: str | None) -> str:
    base = _ID_UNSAFE.sub("-", f"tool-{i + 1}-{name or 'result'}")[:128].strip("-._")
    return base or f"tool-{i + 1}"


def candidate_case(run: BreachedRun, trajectory: Trajectory, redactor: Redactor) -> dict[str, Any] | None:
    """The breached run as a Case (a plain dict in the CaseSet's shape); None when the run left no
    answer to learn from (nothing the agent did was recorded)."""
    policy = redactor.policy(run.monitor)

    def clean(text: str) -> str:
        return redact_text(text, policy)[0]

    steps = steps_of(trajectory)
    question, answer = transcript(steps)
    if not answer.strip():
        return None
    tools = [s for s in steps if s.kind is StepKind.TOOL_RESULT and s.text.strip()][:MAX_TOOL_CONTEXT]
    safety = any(is_safety_tier(s.dimension, s.source) for s in run.scores)
    # the judge's dimensions: a scan finding or a trajectory signal is no dimension a judge scores
    judged = sorted(
        {s.dimension for s in run.scores if s.source not in SAFETY_SOURCES and s.source != TRAJECTORY_SOURCE}
    )
    worst = min(run.scores, key=lambda s: (s.score - s.threshold, s.dimension))
    case: dict[str, Any] = {
        "id": f"live-{run.id}",
        "tier": (Tier.SAFETY if safety else Tier.TRUST).value,
        "category": f"{CAPTURED_CATEGORY}/{worst.dimension}"[:128],
        "input": clean(question) or "(no input was recorded)",
        "assert": [{"type": "not-equals", "value": clean(answer)}],
        "dimensions": judged,
    }
    context, seen = [], set()
    for i, s in enumerate(tools):
        doc = _doc_id(i, s.name)
        if doc not in seen:
            seen.add(doc)
            context.append({"id": doc, "text": clean(s.text)})
    if context:
        case["context"] = context
    return case


def captured_json(run: BreachedRun, case: Mapping[str, Any]) -> dict[str, Any]:
    """One entry of ``GET .../cases``: where the case came from, and the case."""
    return {
        "run": run.id,
        "revision": run.revision,
        "failing": [
            {
                "dimension": s.dimension,
                "score": s.score,
                "threshold": s.threshold,
                "source": s.source,
                "tier": (Tier.SAFETY if is_safety_tier(s.dimension, s.source) else Tier.TRUST).value,
            }
            for s in run.scores
        ],
        "case": dict(case),
    }


def caseset_manifest(name: str, namespace: str, cases: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A CaseSet holding ``cases`` (what ``proctor grade`` and the API server take)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "CaseSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"cases": [dict(c) for c in cases]},
    }

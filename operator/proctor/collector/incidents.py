"""Incidents and notices from a judged run's detections (seed 000 "De-duplication", "The circuit
breaker", "Shadow mode"; seed 001 "Breaches and incidents").

:func:`decide` is the rule, pure: from the series' stored alert state and the monitor's breaker
(:class:`proctor.store.Snapshot`) and one run's detections it returns a
:class:`proctor.store.Plan`: the notices to record (each sent to every sink, or recorded only,
with why: ``observeOnly``, the breaker), the incident opened or joined (a breach opens one, or
joins the open one for the same signatures), the incidents resolved when the series scores clean,
and the alerts Alertmanager should see. :class:`IncidentEngine` loads, decides and writes in one
transaction (:meth:`proctor.store.Incidents.step`) and wakes the sender; it never sends anything
itself, so a slow or dead sink never slows a worker.

A series is one agent revision of one monitor. A notice never carries agent content: signatures,
scores, thresholds, the step's kind and the tool's name, trace ids.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from proctor.api import MAX_LISTED_INCIDENTS, RECOMMENDATIONS, ActionPolicy
from proctor.collector.batching import Batcher
from proctor.collector.monitors import Monitor
from proctor.collector.trajectory import Step, StepKind, steps_of
from proctor.collector.views import iso
from proctor.protocol import (
    AlertAction,
    AlertState,
    BreakerAction,
    BreakerPolicy,
    BreakerState,
    Detection,
    DetectorConfig,
    DetectorKind,
    DetectorReport,
    DimensionScore,
    NoticeSeverity,
    Severity,
    assess_incident,
    breaker_refresh,
    depth_severity,
    route,
)
from proctor.store import (
    NEEDS_HUMAN_ALERT,
    AlertChange,
    Incidents,
    IncidentView,
    NewIncident,
    NewNotice,
    Plan,
    ScoreRecord,
    Snapshot,
    StepItem,
    StepResult,
    StoreUnavailable,
    Trajectory,
    breaker_key,
)

#: The sink every notice goes to: Events on the AgentMonitor.
EVENTS_SINK: Final = "events"
#: Notice kinds.
NOTIFY: Final = "notify"
REPEAT: Final = "repeat"
NEEDS_HUMAN: Final = "needs_human"
RECOVERY: Final = "recovery"
SUPPRESSED: Final = "suppressed"
#: Alert names in Alertmanager.
BREACH_ALERT: Final = "ProctorBreach"
DEGRADING_ALERT: Final = "ProctorDegrading"
#: Why a notice was recorded and not sent.
WHY_OBSERVE_ONLY: Final = "observeOnly: shadow mode records notices and sends none"
WHY_BREAKER: Final = (
    "the circuit breaker is open: a needs_human notice was sent; the rest wait until the window drains"
)
#: Trace ids named in a cause, at most.
MAX_TRACE_IDS: Final = 10
#: The source of a score from the deterministic safety scan.
SAFETY_SCAN_SOURCE: Final = "safety-scan"
#: A judged score whose consensus agreement is below this suggests reviewing the judge.
LOW_AGREEMENT: Final = 0.7
#: The closed catalogue of recommendations (seed 001): id -> what approving it does (the ids and
#: whether each can be undone are :data:`proctor.api.RECOMMENDATIONS`).
CATALOGUE: Final[Mapping[str, str]] = {
    "rollback": "roll the agent back to the last revision without an open incident",
    "hold-canary": "hold the canary of this revision (its live verdict answers INCONCLUSIVE)",
    "capture-cases": "add the breached runs as candidate cases to the monitor's CaseSet",
    "review-judge": "review the judge on the failing dimension (its samples disagreed)",
}


@dataclass(frozen=True, slots=True)
class JudgedRun:
    """What the engine needs of one judged run."""

    id: str
    evaluation: str  # unique per evaluation of the run: a replay decides nothing again
    agent: str
    revision: str | None
    scores: tuple[ScoreRecord, ...] = ()
    trajectory: Trajectory | None = None


def series_of(monitor: str, revision: str | None) -> str:
    """One series per monitor and agent revision."""
    return f"{monitor}|{revision or ''}"


def breach_detections(scores: Sequence[ScoreRecord]) -> tuple[Detection, ...]:
    """The absolute breach of each measured score below its threshold (seed 000; 0-1 scale): the
    detector that needs no state. The worker uses the full detectors' output where they run."""
    return tuple(
        Detection(DetectorKind.BREACH, s.dimension, s.score / 100, s.threshold / 100)
        for s in scores
        if s.score is not None and s.score < s.threshold
    )


# --- state documents (stored as JSON) ---------------------------------------------------------------


def alert_state(doc: Mapping[str, Any] | None) -> AlertState:
    if not doc:
        return AlertState()
    return AlertState(frozenset(doc.get("posted") or ()), int(doc.get("turnsSincePost") or 0))


def alert_doc(state: AlertState) -> dict[str, Any]:
    return {"posted": sorted(state.posted), "turnsSincePost": state.turns_since_post}


def breaker_state(doc: Mapping[str, Any] | None) -> BreakerState:
    if not doc:
        return BreakerState()
    return BreakerState(
        events=tuple(float(t) for t in doc.get("events") or ()),
        open=bool(doc.get("open")),
        opened_at=doc.get("openedAt"),
        suppressed=int(doc.get("suppressed") or 0),
    )


def breaker_doc(state: BreakerState) -> dict[str, Any]:
    return {
        "events": list(state.events),
        "open": state.open,
        "openedAt": state.opened_at,
        "suppressed": state.suppressed,
    }


def breaker_policy(monitor: Monitor) -> BreakerPolicy:
    cb = monitor.resource.spec.notices.circuit_breaker
    return BreakerPolicy(max_notices=cb.max_notices, window_s=float(cb.window_seconds))


# --- causes and recommendations -----------------------------------------------------------------------


def cause_of(run: JudgedRun, failing: Sequence[str]) -> dict[str, Any]:
    """Which revision, which step, which tool, which traces: where the failing output came from.

    The step is the run's last output (the answer judged); the tool is the first tool whose call
    failed, else the last tool called before that output. Names and positions only: no content.
    """
    steps: list[Step] = steps_of(run.trajectory) if run.trajectory is not None else []
    outputs = [i for i, s in enumerate(steps) if s.kind in (StepKind.OUTPUT, StepKind.FINAL)]
    at = outputs[-1] if outputs else None
    tools = [s for s in steps[: at if at is not None else len(steps)] if s.kind is StepKind.TOOL_RESULT]
    failed = [s for s in tools if s.error]
    picked = failed or tools[-1:]
    tool = picked[0] if picked else None
    traces = []
    if run.trajectory is not None:
        traces = list(dict.fromkeys(s.trace_id for s in run.trajectory.spans))[:MAX_TRACE_IDS]
    step = None
    if at is not None:
        s = steps[at]
        step = {"index": at, "of": len(steps), "kind": s.kind.value, "source": s.source}
    return {
        "revision": run.revision,
        "run": run.id,
        "step": step,
        "tool": tool.name if tool is not None else None,
        "toolFailed": bool(failed),
        "traceIds": traces,
        "failing": list(failing),
    }


def recommendations_for(run: JudgedRun, failing: Sequence[str], live_revisions: bool) -> list[dict[str, Any]]:
    """The catalogue's entries that fit this incident, each with its evidence; all ``proposed``."""
    del live_revisions  # reserved: rollback needs a known good revision, checked when it is approved
    recs: list[dict[str, Any]] = []

    def add(rec: str, evidence: str) -> None:
        recs.append({"id": rec, "action": CATALOGUE[rec], "evidence": evidence, "state": "proposed"})

    dims = ", ".join(failing) or "a dimension"
    if run.revision:
        add("rollback", f"revision {run.revision} breached {dims} on live run {run.id}")
        add("hold-canary", f"revision {run.revision} is breaching live ({dims})")
    add("capture-cases", f"run {run.id} breached {dims}: it can become a test case")
    doubtful = [
        s.dimension
        for s in run.scores
        if s.score is not None
        and s.score < s.threshold
        and s.agreement is not None
        and s.agreement < LOW_AGREEMENT
    ]
    if doubtful:
        add(
            "review-judge",
            f"the judge's samples disagreed on {', '.join(doubtful)} (agreement below {LOW_AGREEMENT:g})",
        )
    return recs


# --- the decision (pure) --------------------------------------------------------------------------------


def _severity(run: JudgedRun) -> tuple[Severity, tuple[str, ...], str]:
    dims = [
        DimensionScore(s.dimension, s.threshold, s.score, s.skipped_reason, s.agreement, s.samples)
        for s in run.scores
    ]
    scan = any(
        s.source == SAFETY_SCAN_SOURCE and s.score is not None and s.score < s.threshold for s in run.scores
    )
    inc = assess_incident(dims, safety_breached=scan)
    return inc.severity, inc.failing, inc.probable_cause


def _unmeasured(snap: Snapshot, run: JudgedRun) -> bool:
    """Whether a dimension the series is alerting on was skipped in this run."""
    posted = {sig.split(":", 1)[1] for sig in alert_state(snap.alert).posted if ":" in sig}
    skipped = {s.dimension for s in run.scores if s.score is None}
    return bool(posted & skipped)


def _labels(monitor: Monitor, run: JudgedRun, alertname: str, severity: str, **extra: str) -> dict[str, str]:
    ns, _, name = monitor.name.partition("/")
    labels = {
        "alertname": alertname,
        "monitor": name,
        "namespace": ns,
        "agent": run.agent,
        "revision": run.revision or "",
        "severity": severity,
    }
    labels.update(extra)
    return labels


def decide(
    snap: Snapshot,
    monitor: Monitor,
    run: JudgedRun,
    detections: Sequence[Detection],
    now: float,
    *,
    new_id: Callable[[], str] = lambda: f"inc-{uuid.uuid4().hex[:16]}",
) -> Plan:
    """What one run's detections change: incidents, notices, alerts, and the new states."""
    spec = monitor.resource.spec
    report = DetectorReport(tuple(detections))
    policy = breaker_policy(monitor)
    if report.clean and _unmeasured(snap, run):
        # what was alerting was not measured this time (skipped): no verdict, never a recovery
        return Plan(alert=dict(snap.alert or {}), breaker=dict(snap.breaker or {}))
    config = DetectorConfig(alert_cooldown_turns=spec.notices.cooldown_runs)
    routing = route(
        report,
        alert_state(snap.alert),
        breaker_state(snap.breaker),
        now=now,
        config=config,
        policy=policy,
    )
    sinks = (EVENTS_SINK, *(s.name for s in spec.notices.sinks))
    why_not = WHY_OBSERVE_ONLY if spec.observe_only else None

    # the incident: a breach opens one, or joins the live one with the same signatures
    open_: NewIncident | None = None
    join: dict[str, str] = {}
    incident: IncidentView | NewIncident | None = None
    breaches = [d for d in report.detections if d.kind is DetectorKind.BREACH]
    severity_now: Severity | None = None
    if breaches:
        level, failing, probable = _severity(run)
        # a breach the profile's scores do not show (a trajectory signal, a monitor's own
        # threshold): its depth against the detector's reference
        others = [d for d in breaches if d.metric not in failing]
        level = max([level, *(depth_severity(d.score, d.reference) for d in others)])
        if level is Severity.NONE:
            level = Severity.MEDIUM
        signatures = tuple(sorted({d.signature for d in breaches} | {f"breach:{f}" for f in failing}))
        if "breach:safety" in signatures:
            level = max(level, Severity.HIGH)
        same = next((i for i in snap.live if tuple(sorted(i.signatures)) == signatures), None)
        if same is not None:
            severity_now = max(level, Severity(same.severity))
            join[same.id] = severity_now.value
            incident = same
        else:
            severity_now = level
            failing_all = failing or tuple(d.metric for d in breaches)
            open_ = NewIncident(
                id=new_id(),
                agent=run.agent,
                revision=run.revision,
                signatures=signatures,
                severity=level.value,
                probable_cause=probable
                if failing
                else "; ".join(f"{d.metric} {d.score:g} < {d.reference:g}" for d in breaches),
                cause=cause_of(run, failing_all),
                recommendations=tuple(recommendations_for(run, failing_all, bool(snap.live))),
            )
            incident = open_
    resolve: tuple[str, ...] = ()
    if routing.action is AlertAction.RECOVERY:
        resolve = tuple(i.id for i in snap.live)

    notices: list[NewNotice] = []
    alerts: list[AlertChange] = []
    incident_id = incident.id if incident is not None else None
    incident_doc = None
    if incident is not None:
        runs = 1 if isinstance(incident, NewIncident) else incident.runs + 1
        incident_doc = {
            "id": incident.id,
            "severity": severity_now.value if severity_now else None,
            "signatures": list(incident.signatures),
            "runs": runs,
            "cause": dict(incident.cause),
        }
    base = {
        "monitor": monitor.name,
        "agent": run.agent,
        "revision": run.revision,
        "run": run.id,
    }
    if routing.action in (AlertAction.NOTIFY, AlertAction.REPEAT):
        notice = routing.notice
        scores = {d.signature: {"score": d.score, "reference": d.reference} for d in report.detections}
        if notice is None:  # held back by the open breaker
            notices.append(
                NewNotice(
                    kind=SUPPRESSED,
                    severity=(report.severity or NoticeSeverity.TREND).value,
                    signatures=report.signatures,
                    incident_id=incident_id,
                    document={**base, "kind": SUPPRESSED, "signatures": list(report.signatures)},
                    sinks=(),
                    why_not=WHY_BREAKER,
                )
            )
        else:
            kind = (
                NEEDS_HUMAN
                if routing.breaker_action is BreakerAction.ESCALATE
                else (NOTIFY if routing.action is AlertAction.NOTIFY else REPEAT)
            )
            summary = _summary(monitor, run, kind, notice.severity, report.signatures, incident_doc, policy)
            doc = {
                **base,
                "kind": kind,
                "severity": notice.severity.value,
                "signatures": list(notice.signatures),
                "detections": scores,
                "incident": incident_doc,
                "summary": summary,
            }
            notices.append(
                NewNotice(
                    kind=kind,
                    severity=notice.severity.value,
                    signatures=notice.signatures,
                    incident_id=incident_id,
                    document=doc,
                    sinks=sinks,
                    why_not=why_not,
                )
            )
            if why_not is None:
                alerts += _alerts(
                    monitor, run, kind, notice.severity, report, incident_doc, summary, now, policy
                )
    elif routing.action is AlertAction.RECOVERY:
        summary = (
            f"{monitor.name}: revision {run.revision or '(none)'} scores clean again on run {run.id}"
            + (f"; resolved {len(resolve)} incident{'s' if len(resolve) != 1 else ''}" if resolve else "")
        )
        notices.append(
            NewNotice(
                kind=RECOVERY,
                severity=RECOVERY,
                signatures=tuple(sorted(alert_state(snap.alert).posted)),
                incident_id=resolve[0] if resolve else None,
                document={
                    **base,
                    "kind": RECOVERY,
                    "severity": RECOVERY,
                    "signatures": sorted(alert_state(snap.alert).posted),
                    "resolved": list(resolve),
                    "summary": summary,
                },
                sinks=sinks,
                why_not=why_not,
            )
        )
    return Plan(
        alert=alert_doc(routing.alert),
        breaker=breaker_doc(routing.breaker),
        open=open_,
        join=join,
        resolve=resolve,
        notices=tuple(notices),
        alerts=tuple(alerts),
        end_series_alerts=routing.action is AlertAction.RECOVERY and why_not is None,
    )


def _summary(
    monitor: Monitor,
    run: JudgedRun,
    kind: str,
    severity: NoticeSeverity,
    signatures: Sequence[str],
    incident: Mapping[str, Any] | None,
    policy: BreakerPolicy,
) -> str:
    who = f"{monitor.name} (agent {run.agent}, revision {run.revision or '(none)'})"
    what = ", ".join(signatures)
    if kind == NEEDS_HUMAN:
        return (
            f"{who}: more than {policy.max_notices} notices within {policy.window_s:g} s; a person "
            f"should look (latest: {what}). Further notices are held until the window drains."
        )
    text = f"{who}: {severity.value} on {what} (run {run.id})"
    if incident is not None:
        text += f"; incident {incident['id']} ({incident['severity']}, {incident['runs']} run(s))"
    return text


def _alerts(
    monitor: Monitor,
    run: JudgedRun,
    kind: str,
    severity: NoticeSeverity,
    report: DetectorReport,
    incident: Mapping[str, Any] | None,
    summary: str,
    now: float,
    policy: BreakerPolicy,
) -> list[AlertChange]:
    series = series_of(monitor.name, run.revision)
    annotations = {"summary": summary[:1000], "signatures": ", ".join(report.signatures)}
    if kind == NEEDS_HUMAN:
        return [
            AlertChange(
                key=f"{monitor.name}|{NEEDS_HUMAN_ALERT}",
                alertname=NEEDS_HUMAN_ALERT,
                labels=_labels(monitor, run, NEEDS_HUMAN_ALERT, "critical"),
                annotations=annotations,
                ends_at=now + policy.window_s,  # the breaker closes once the window drains
            )
        ]
    if incident is not None and severity is NoticeSeverity.BREACH:
        return [
            AlertChange(
                key=f"{series}|{BREACH_ALERT}|{incident['id']}",
                alertname=BREACH_ALERT,
                labels=_labels(
                    monitor, run, BREACH_ALERT, str(incident["severity"]), incident=str(incident["id"])
                ),
                annotations=annotations,
            )
        ]
    return [
        AlertChange(
            key=f"{series}|{DEGRADING_ALERT}",
            alertname=DEGRADING_ALERT,
            labels=_labels(monitor, run, DEGRADING_ALERT, "warning"),
            annotations=annotations,
        )
    ]


# --- how incidents look in the API and in status -------------------------------------------------------

#: The keys of ``proctor incidents list -o json``'s stable short form, in order.
SUMMARY_KEYS: Final = ("id", "monitor", "state", "severity", "signatures", "revision", "openedAt", "runs")


def incident_json(i: IncidentView, *, detail: bool = False) -> dict[str, Any]:
    """An incident as the API answers it: the stable keys first, then the rest."""
    out: dict[str, Any] = {
        "id": i.id,
        "monitor": i.monitor,
        "state": i.state,
        "severity": i.severity,
        "signatures": list(i.signatures),
        "revision": i.revision,
        "openedAt": iso(i.opened_at),
        "runs": i.runs,
        "agent": i.agent,
        "probableCause": i.probable_cause,
        "updatedAt": iso(i.updated_at),
        "acknowledgedAt": iso(i.acknowledged_at),
        "acknowledgedBy": i.acknowledged_by,
        "resolvedAt": iso(i.resolved_at),
    }
    if detail:
        out["cause"] = dict(i.cause)
        out["recommendations"] = [dict(r) for r in i.recommendations]
        out["runIds"] = list(i.run_ids)
    return out


def incident_summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The stable short form (from :func:`incident_json`'s output, or an API answer)."""
    return {k: doc.get(k) for k in SUMMARY_KEYS}


def incidents_status(incidents: Incidents, monitor: Monitor) -> dict[str, Any]:
    """What the monitor's summary adds for its status: open incidents (count, worst severity, the
    oldest few) and the breaker (``needsHuman``)."""
    summary = incidents.summary(monitor.name, first=MAX_LISTED_INCIDENTS)
    breaker = breaker_state(incidents.memory(breaker_key(monitor.name)))
    policy = breaker_policy(monitor)
    breaker = breaker_refresh(breaker, time.time(), policy)
    return {
        "incidents": {
            "open": summary.open,
            "worstSeverity": summary.worst,
            "first": [
                {
                    "id": i.id,
                    "severity": i.severity,
                    "signatures": list(i.signatures)[:16],
                    "revision": i.revision,
                    "openedAt": iso(i.opened_at),
                }
                for i in summary.first
            ],
        },
        "needsHuman": {
            "open": breaker.open,
            "openedAt": iso(breaker.opened_at),
            "suppressed": breaker.suppressed,
            "notices": len(breaker.events),
            "maxNotices": policy.max_notices,
            "windowSeconds": policy.window_s,
        },
    }


def decide_recommendation(
    incident: IncidentView, monitor: Monitor | None, rec: str, decision: str
) -> tuple[int, str] | None:
    """Why approving or dismissing ``rec`` on ``incident`` is refused (status, message), or None."""
    offered = {str(r.get("id")): r for r in incident.recommendations}
    if rec not in RECOMMENDATIONS:
        return 404, f"no recommendation {rec!r}: the catalogue is {', '.join(RECOMMENDATIONS)}"
    if rec not in offered:
        return 404, f"incident {incident.id} does not recommend {rec!r}"
    state = str(offered[rec].get("state"))
    if state != "proposed":
        return 409, f"{rec} on incident {incident.id} was {state} already"
    if decision == "approve":
        if monitor is None:
            return 409, f"AgentMonitor {incident.monitor} is no longer served: nothing can be approved"
        if monitor.resource.spec.actions.policy_for(rec) is ActionPolicy.DENY:
            return 403, f"the AgentMonitor's actions policy denies {rec} (spec.actions)"
    return None


#: Seconds an operator's claim on a recommendation holds: one that stopped mid-way has it performed
#: again after this (every action is idempotent).
ACTION_LEASE_SECONDS: Final = 300.0


def allowed_actions(monitor: Monitor) -> tuple[str, ...]:
    """The catalogue's actions the monitor's policy Allows: performed without a person (never an
    irreversible one: the API server and the model refuse ``rollback: Allow``)."""
    actions = monitor.resource.spec.actions
    return tuple(
        rec
        for rec, reversible in RECOMMENDATIONS.items()
        if reversible and actions.policy_for(rec) is ActionPolicy.ALLOW
    )


def action_json(incident: IncidentView, rec: Mapping[str, Any]) -> dict[str, Any]:
    """One recommendation the operator should perform, as the monitor's summary lists it."""
    return {
        "incident": incident.id,
        "recommendation": str(rec.get("id")),
        "state": rec.get("state"),
        "revision": incident.revision,
        "agent": incident.agent,
        "signatures": list(incident.signatures),
        "failing": list(incident.cause.get("failing") or []),
        "decidedBy": rec.get("decidedBy"),
    }


def pending_actions(incidents: Incidents, monitor: Monitor, now: float) -> list[dict[str, Any]]:
    """What the operator should perform for ``monitor`` (the summary's ``actions``): never an
    action the policy came to Deny after it was approved (its claim would be refused)."""
    due = incidents.pending_actions(monitor.name, allowed_actions(monitor), now, lease=ACTION_LEASE_SECONDS)
    policy = monitor.resource.spec.actions
    return [
        action_json(i, r)
        for i, r in due
        if r.get("id") in RECOMMENDATIONS and policy.policy_for(str(r["id"])) is not ActionPolicy.DENY
    ]


# --- the engine -------------------------------------------------------------------------------------


class IncidentEngine:
    """Handles each judged run's detections, then wakes the sender. Runs handled at the same time
    share a transaction (:mod:`.batching`): the same decisions as one transaction each, in the
    order the runs came, with one commit for all of them."""

    def __init__(self, incidents: Incidents, *, wake: Callable[[], None] = lambda: None) -> None:
        self.incidents = incidents
        self.wake = wake
        self._batcher: Batcher[StepItem, StepResult] = Batcher(
            incidents.step_batch, shared=(StoreUnavailable,)
        )

    def _item(
        self, monitor: Monitor, run: JudgedRun, detections: Sequence[Detection], now: float
    ) -> StepItem:
        return StepItem(
            monitor.name,
            series_of(monitor.name, run.revision),
            run.evaluation,
            run.id,
            now,
            lambda snap: decide(snap, monitor, run, detections, now),
        )

    def handle_sync(
        self, monitor: Monitor, run: JudgedRun, detections: Sequence[Detection], now: float
    ) -> Plan | None:
        """Decide and record; None when this evaluation was handled before."""
        return self.incidents.step_batch([self._item(monitor, run, detections, now)])[0].plan

    async def handle(
        self, monitor: Monitor, run: JudgedRun, detections: Sequence[Detection], now: float
    ) -> Plan | None:
        plan = (await self._batcher.submit(self._item(monitor, run, detections, now))).plan
        if plan is not None and any(n.why_not is None for n in plan.notices):
            self.wake()
        return plan

"""Arm C in the collector: reviews of judged scores, judge quality, calibration and outcome metrics.

Routes (all under the management API's authentication; RBAC decides, on ``proctor.dev``)::

    POST /api/v1/feedback                               review   agentmonitors (a live run's monitor)
                                                                 or evalruns (an exam case's run)
    GET  /api/v1/feedback?run=|profile=|monitor=        get      agentmonitors / evalprofiles
    GET  /api/v1/feedback/cases?profile=NS/NAME         get      evalprofiles
    GET  /api/v1/judge-quality?profile=NS/NAME          get      evalprofiles
    POST /api/v1/runs/{id}/outcome                      review   agentmonitors
    GET  /api/v1/monitors/{namespace}/{name}/outcomes   get      agentmonitors
    GET  /api/v1/monitors/{namespace}/{name}/calibration get     agentmonitors

The reviewer is always the authenticated identity; a body that names one is refused. Every
refusal is a 4xx with the cause and stores nothing. An agent may also report an outcome in its
own telemetry: span attributes :data:`~proctor.store.OUTCOME_ATTRIBUTE` and
:data:`~proctor.store.OUTCOME_MINUTES_ATTRIBUTE` (:func:`telemetry_outcomes`).

An exam case's judged score (``NS/EVALRUN:CASE``) is read in one place only,
:func:`exam_case_score` (review on evalruns), from the run's believed results in the operator's
namespace (:mod:`proctor.collector.exams`).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from aiohttp import web
from prometheus_client import Counter, Gauge

from proctor.api import MONITOR_ROUTE
from proctor.collector.auth import READ_VERB, Caller
from proctor.collector.exams import ExamNotFound, ExamNotReady, ExamUnreadable
from proctor.collector.redaction import Redactor
from proctor.collector.trajectory import StepKind, steps_of, transcript
from proctor.graders import redact_text
from proctor.protocol import (
    DEFAULT_RECALL_FLOOR,
    DEFAULT_REQUIRED_RECALL,
    Confusion,
    Interval,
    InvalidFeedback,
    Quality,
    Route,
    Tier,
    check_outcome,
    corrected_rate,
    propose_threshold,
    quality_of_cells,
    recall_floor_breached,
)
from proctor.store import (
    OUTCOME_ATTRIBUTE,
    OUTCOME_MINUTES_ATTRIBUTE,
    TELEMETRY_SOURCE,
    CandidateCase,
    Item,
    NewFeedback,
    Outcomes,
    Reviews,
    RunNotFound,
    RunView,
)
from proctor.store import check_feedback as check

if TYPE_CHECKING:
    from proctor.collector.app import Context
    from proctor.collector.monitors import Monitor, Registry

#: The RBAC verb (on agentmonitors) to review a run's scores or report what became of its output.
REVIEW_VERB: Final = "review"
#: The resources arm C checks besides agentmonitors.
PROFILES_RESOURCE: Final = "evalprofiles"
EVALRUNS_RESOURCE: Final = "evalruns"
#: The keys ``proctor judge-quality -o json`` prints per dimension (checks rely on them).
QUALITY_KEYS: Final = (
    "reviews",
    "agreement",
    "bias",
    "tp",
    "fp",
    "fn",
    "tn",
    "precision",
    "recall",
    "kappa",
    "provisional",
)
#: Tool results kept as a candidate case's context, at most.
MAX_CASE_CONTEXT: Final = 8
#: Fields a feedback body may carry (anything else, a "reviewer" above all, is refused).
_FEEDBACK_FIELDS: Final = frozenset({"run", "dimension", "agree", "score", "minutes", "route", "reason"})


class Refused(Exception):
    """A request answered with a 4xx and stored nothing."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class JudgedScore:
    """What a review is of: the judge's score of one dimension of one run or exam case."""

    target: str
    kind: str  # "run" | "case"
    namespace: str
    profile: str  # NS/NAME
    monitor: str | None
    dimension: str
    score: float
    threshold: float
    #: What the case-set route turns into a candidate case (read only when routed there).
    case: Callable[[], Awaitable[CandidateCase]] | None = None


@dataclass
class ArmC:
    """The arm C rooms and metrics of one collector (kept on the application)."""

    reviews: Reviews
    outcomes: Outcomes
    #: a reviewer's reason is scanned like a run: a credential pasted into it is stored redacted
    redactor: Redactor
    feedback_total: Counter
    outcomes_total: Counter
    acceptance: Gauge
    minutes_per_accepted: Gauge
    ignored: Gauge
    agreement: Gauge
    kappa: Gauge
    recall_low: Gauge


ARMC: Final = web.AppKey("armc", ArmC)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _forbidden(caller: Caller, verb: str, resource: str, namespace: str, name: str) -> Refused:
    who = caller.name or "the caller"
    return Refused(403, f"{who} may not {verb} {resource}.proctor.dev {name!r} in namespace {namespace!r}")


def _profile_of(monitor: Monitor) -> str:
    return f"{monitor.namespace}/{monitor.resource.spec.profile_ref.name}"


def _split_name(text: str, what: str) -> tuple[str, str]:
    ns, _, name = text.partition("/")
    if not ns or not name or "/" in name:
        raise Refused(400, f"{what} must be NAMESPACE/NAME, not {text!r}")
    return ns, name


# --- reading what is reviewed ------------------------------------------------------------------------


async def _run_allowed(ctx: Context, caller: Caller, run_id: str, verb: str) -> RunView:
    """The live run ``run_id``, once the caller may ``verb`` its AgentMonitor (404: no such run;
    403: RBAC refuses). One check for reviewing, reading reviews and reporting an outcome."""
    try:
        run = await asyncio.to_thread(ctx.store.get_run, run_id)
    except RunNotFound:
        raise Refused(404, f"no run {run_id!r}") from None
    ns, _, name = run.monitor.partition("/")
    if not await ctx.auth.allowed(caller, verb, ns, name):
        raise _forbidden(caller, verb, "agentmonitors", ns, name)
    return run


async def _run_score(ctx: Context, caller: Caller, run_id: str, dimension: str) -> JudgedScore:
    run = await _run_allowed(ctx, caller, run_id, REVIEW_VERB)
    monitor = ctx.registry().get(run.monitor)
    if monitor is None:
        raise Refused(404, f"run {run_id} belongs to AgentMonitor {run.monitor}, which is not served here")
    score = next((s for s in run.scores if s.dimension == dimension), None)
    if score is None:
        known = ", ".join(sorted(s.dimension for s in run.scores)) or "none yet"
        raise Refused(404, f"run {run_id} has no score for dimension {dimension!r} (scored: {known})")
    if score.score is None:
        raise Refused(
            409,
            f"dimension {dimension!r} of run {run_id} was not scored ({score.skipped_reason}): "
            "nothing to review",
        )

    async def case() -> CandidateCase:
        trajectory = await asyncio.to_thread(ctx.store.trajectory, run_id)
        steps = steps_of(trajectory)
        question, answer = transcript(steps)
        tools = [s.text for s in steps if s.kind is StepKind.TOOL_RESULT and s.text.strip()]
        # a live run is judged as one safety-tier case (collector/evaluate.py): so is its candidate
        return CandidateCase(
            tier=Tier.SAFETY.value,
            input=question or "(no input was recorded)",
            answer=answer,
            context=json.dumps(tools[:MAX_CASE_CONTEXT]),
        )

    return JudgedScore(
        target=run_id,
        kind="run",
        namespace=run.monitor.partition("/")[0],
        profile=_profile_of(monitor),
        monitor=run.monitor,
        dimension=dimension,
        score=score.score,
        threshold=score.threshold,
        case=case,
    )


async def exam_case_score(ctx: Context, caller: Caller, target: str, dimension: str) -> JudgedScore:
    """The judged score of ``dimension`` in case ``CASE`` of EvalRun ``NS/EVALRUN`` (target
    ``NS/EVALRUN:CASE``): THE one place that reads an exam case's score.

    RBAC is asked first (``review`` on the EvalRun), so the answer never tells a caller without the
    right which exams exist. The score is the one the run's verdict was decided from
    (:mod:`proctor.collector.exams`: the believed attempt's results in the operator's namespace);
    the review counts in the judge quality of the run's EvalProfile."""
    ns_run, _, case = target.rpartition(":")
    ns, name = _split_name(ns_run, "an exam case's run")
    if not case:
        raise Refused(400, f"an exam case is NAMESPACE/EVALRUN:CASE, not {target!r}")
    if not await ctx.auth.allowed(caller, REVIEW_VERB, ns, name, resource=EVALRUNS_RESOURCE):
        raise _forbidden(caller, REVIEW_VERB, EVALRUNS_RESOURCE, ns, name)
    if ctx.exams is None:
        raise Refused(
            501,
            f"this collector runs without a cluster and cannot read EvalRun {ns}/{name}'s results: "
            "review a live run, or ask a collector that runs in the cluster",
        )
    try:
        exam = await asyncio.to_thread(ctx.exams.case, ns, name, case)
    except ExamNotFound as e:
        raise Refused(404, str(e)) from None
    except ExamNotReady as e:
        raise Refused(409, str(e)) from None
    except ExamUnreadable as e:
        raise Refused(503, str(e)) from None
    judged = exam.dimensions.get(dimension)
    if judged is None:
        known = ", ".join(sorted(exam.dimensions)) or "none"
        raise Refused(
            404,
            f"case {case!r} of EvalRun {ns}/{name} has no score for dimension {dimension!r} "
            f"(scored: {known})",
        )
    if judged.score is None or exam.profile is None:
        raise Refused(
            409,
            f"dimension {dimension!r} of case {case!r} of EvalRun {ns}/{name} was not scored "
            f"({judged.skipped or 'no EvalProfile'}): nothing to review",
        )
    return JudgedScore(
        target=f"{ns}/{name}:{case}",
        kind="case",
        namespace=ns,
        profile=exam.profile,
        monitor=None,
        dimension=dimension,
        score=judged.score,
        threshold=judged.threshold,
    )


async def judged_score(ctx: Context, caller: Caller, target: str, dimension: str) -> JudgedScore:
    """A live run's score (a run id) or an exam case's (``NS/EVALRUN:CASE``)."""
    if "/" in target:
        return await exam_case_score(ctx, caller, target, dimension)
    return await _run_score(ctx, caller, target, dimension)


# --- handlers -----------------------------------------------------------------------------------------


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.read() or b"null")
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    return body


def _guarded(
    handler: Callable[[web.Request, Context, Caller], Awaitable[web.Response]],
) -> Callable[[web.Request, Context, Caller], Awaitable[web.Response]]:
    async def wrapped(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
        try:
            return await handler(request, ctx, caller)
        except Refused as e:
            return _error(e.status, str(e))
        except InvalidFeedback as e:
            return _error(400, str(e))

    return wrapped


async def give_feedback(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/feedback``: one review of one judged score (201 with what was stored)."""
    armc = request.app[ARMC]
    body = await _body(request)
    if "reviewer" in body:
        raise Refused(400, "the reviewer is whoever is authenticated: a body may not name one")
    unknown = sorted(set(body) - _FEEDBACK_FIELDS)
    if unknown:
        raise Refused(
            400, f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_FEEDBACK_FIELDS))}"
        )
    target, dimension = body.get("run"), body.get("dimension")
    if not isinstance(target, str) or not target:
        raise Refused(400, "run is required: a run id, or NAMESPACE/EVALRUN:CASE for an exam case")
    if not isinstance(dimension, str) or not dimension:
        raise Refused(400, "dimension is required")
    if "agree" not in body:
        raise Refused(400, "agree is required: true or false")
    agree, score, minutes, route, reason = check(
        agree=body.get("agree"),
        score=body.get("score"),
        minutes=body.get("minutes"),
        route=body.get("route"),
        reason=body.get("reason", ""),
    )
    judged = await judged_score(ctx, caller, target, dimension)
    if reason:  # the monitor's own scan policy (the default scan for an exam case)
        reason, _ = redact_text(reason, armc.redactor.policy(judged.monitor or ""))
    case = await judged.case() if route == Route.CASE_SET and judged.case is not None else None
    feedback = NewFeedback(
        target=judged.target,
        kind=judged.kind,
        profile=judged.profile,
        monitor=judged.monitor,
        dimension=judged.dimension,
        judge_score=judged.score,
        threshold=judged.threshold,
        agree=agree,
        reviewer=caller.name or caller.uid or "unknown",
        score=score,
        minutes=minutes,
        route=route,
        reason=reason,
    )
    view = await asyncio.to_thread(armc.reviews.record, feedback, time.time(), case=case)
    armc.feedback_total.labels(route or "none").inc()
    doc = _feedback_json(view)
    doc["candidateCase"] = case is not None
    return web.json_response(doc, status=201)


def _feedback_json(v: Any) -> dict[str, Any]:
    return {
        "id": v.id,
        "run": v.target,
        "kind": v.kind,
        "profile": v.profile,
        "monitor": v.monitor,
        "dimension": v.dimension,
        "judgeScore": v.judge_score,
        "threshold": v.threshold,
        "agree": v.agree,
        "score": v.score,
        "minutes": v.minutes,
        "route": v.route,
        "reason": v.reason,
        "reviewer": v.reviewer,
        "createdAt": v.created_at,
        "current": v.current,
    }


async def list_feedback(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/feedback?run=ID|profile=NS/NAME|monitor=NS/NAME&limit=N``: reviews, newest
    first, superseded ones marked ``current: false``."""
    armc = request.app[ARMC]
    q = request.query
    try:
        limit = int(q.get("limit", "100"))
    except ValueError:
        raise Refused(400, "limit must be a number") from None
    if "run" in q:
        target = q["run"]
        if "/" in target:
            ns, name = _split_name(target.rpartition(":")[0], "an exam case's run")
            if not await ctx.auth.allowed(caller, READ_VERB, ns, name, resource=EVALRUNS_RESOURCE):
                raise _forbidden(caller, READ_VERB, EVALRUNS_RESOURCE, ns, name)
        else:
            await _run_allowed(ctx, caller, target, READ_VERB)
        views = await asyncio.to_thread(armc.reviews.history, target=target, limit=limit)
    elif "profile" in q:
        ns, name = _split_name(q["profile"], "profile")
        if not await ctx.auth.allowed(caller, READ_VERB, ns, name, resource=PROFILES_RESOURCE):
            raise _forbidden(caller, READ_VERB, PROFILES_RESOURCE, ns, name)
        views = await asyncio.to_thread(armc.reviews.history, profile=q["profile"], limit=limit)
    elif "monitor" in q:
        ns, name = _split_name(q["monitor"], "monitor")
        if not await ctx.auth.allowed(caller, READ_VERB, ns, name):
            raise _forbidden(caller, READ_VERB, "agentmonitors", ns, name)
        views = await asyncio.to_thread(armc.reviews.history, monitors=[q["monitor"]], limit=limit)
    else:
        raise Refused(400, "say whose reviews: run=ID, profile=NS/NAME or monitor=NS/NAME")
    return web.json_response({"feedback": [_feedback_json(v) for v in views]})


async def list_candidate_cases(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/feedback/cases?profile=NS/NAME&limit=N``: the candidate cases reviewers routed
    to the case set (input, context, answer, dimension, tier, the reviewer's score), newest first."""
    ns, name = _split_name(request.query.get("profile", ""), "profile")
    try:
        limit = max(1, min(int(request.query.get("limit", "100")), 1000))
    except ValueError:
        raise Refused(400, "limit must be a number") from None
    if not await ctx.auth.allowed(caller, READ_VERB, ns, name, resource=PROFILES_RESOURCE):
        raise _forbidden(caller, READ_VERB, PROFILES_RESOURCE, ns, name)
    cases = await asyncio.to_thread(
        request.app[ARMC].reviews.candidate_cases, profile=f"{ns}/{name}", limit=limit
    )
    return web.json_response({"cases": cases})


def _interval(bounds: Interval | None) -> list[float] | None:
    return None if bounds is None else [bounds.low, bounds.high]


def quality_json(quality: Quality, observed: tuple[int, int] | None, floor: float) -> dict[str, Any]:
    """One dimension's judge quality as the API and ``proctor judge-quality`` show it: the stable
    :data:`QUALITY_KEYS` first, then intervals, bands, trust and the breach rate beside its
    correction."""
    split = quality.split
    doc: dict[str, Any] = {
        "reviews": quality.reviews,
        "agreement": quality.agreement,
        "bias": quality.bias,
        "tp": split.tp if split else None,
        "fp": split.fp if split else None,
        "fn": split.fn if split else None,
        "tn": split.tn if split else None,
        "precision": split.precision if split else None,
        "recall": split.recall if split else None,
        "kappa": split.kappa if split else None,
        "provisional": quality.provisional,
        "scored": quality.scored,
        "intervals": {
            "agreement": _interval(quality.agreement_interval),
            "precision": _interval(quality.precision_interval),
            "recall": _interval(quality.recall_interval),
            "specificity": _interval(quality.specificity_interval),
        },
        "bands": [
            {"band": f"{b.low}-{b.low + 10}", "reviews": b.reviews, "agreement": b.agreement}
            for b in quality.bands
        ],
    }
    low_recall = recall_floor_breached(quality, floor)
    doc["trusted"] = None if low_recall is None else not low_recall
    if observed is not None:
        rate = corrected_rate(observed[1], observed[0], split)
        doc["breachRate"] = (
            None
            if rate is None
            else {
                "scored": observed[0],
                "breaches": observed[1],
                "observed": rate.observed,
                "observedInterval": _interval(rate.observed_interval),
                "corrected": rate.corrected,
                "correctedInterval": _interval(rate.interval),
            }
        )
    return doc


def _profile_monitors(registry: Registry, profile: str) -> list[Monitor]:
    return [m for m in registry.monitors.values() if _profile_of(m) == profile]


async def show_judge_quality(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/judge-quality?profile=NS/NAME&recallFloor=0.8``: per dimension agreement, bias,
    the split (from 20 reviews), kappa, intervals, bands, trust and the corrected breach rate."""
    armc = request.app[ARMC]
    profile = request.query.get("profile", "")
    ns, name = _split_name(profile, "profile")
    try:
        floor = float(request.query.get("recallFloor", DEFAULT_RECALL_FLOOR))
    except ValueError:
        raise Refused(400, "recallFloor must be a number from 0 to 1") from None
    if not 0.0 <= floor <= 1.0 or math.isnan(floor):
        raise Refused(400, "recallFloor must be a number from 0 to 1")
    if not await ctx.auth.allowed(caller, READ_VERB, ns, name, resource=PROFILES_RESOURCE):
        raise _forbidden(caller, READ_VERB, PROFILES_RESOURCE, ns, name)
    monitors = _profile_monitors(ctx.registry(), profile)
    # counted in the database (GROUP BY dimension, score band and both readings), never row by row
    reviews = await asyncio.to_thread(armc.reviews.cells, profile=profile)
    observed = await asyncio.to_thread(armc.reviews.observed, [m.name for m in monitors])
    if not monitors and not reviews:
        raise Refused(
            404, f"no AgentMonitor served here judges with EvalProfile {profile}, and nobody reviewed it"
        )
    dimensions: dict[str, Any] = {}
    for dim in sorted(set(reviews) | set(observed)):
        quality = quality_of_cells(reviews.get(dim, []))
        seen = observed.get(dim)
        dimensions[dim] = quality_json(quality, (seen.scored, seen.breaches) if seen else None, floor)
        _export_quality(armc, profile, dim, quality)
    verdicts = [d["trusted"] for d in dimensions.values()]
    trusted = False if False in verdicts else (True if verdicts and None not in verdicts else None)
    return web.json_response(
        {"profile": profile, "recallFloor": floor, "judgeTrusted": trusted, "dimensions": dimensions}
    )


def _export_quality(armc: ArmC, profile: str, dim: str, quality: Quality) -> None:
    if quality.agreement is not None:
        armc.agreement.labels(profile, dim).set(quality.agreement)
    split = quality.split
    if split is not None and split.kappa is not None:
        armc.kappa.labels(profile, dim).set(split.kappa)
    bounds = quality.recall_interval
    if bounds is not None:
        armc.recall_low.labels(profile, dim).set(bounds.low)


def calibration_json(
    monitor: str, labelled: Mapping[str, Sequence[tuple[float, bool, float]]], recall: float
) -> dict[str, Any]:
    """Per dimension: the proposed threshold at ``recall`` and the trade-off table."""
    out: dict[str, Any] = {}
    for dim, rows in sorted(labelled.items()):
        current = rows[-1][2] if rows else None
        proposal = propose_threshold([(s, b) for s, b, _ in rows], required_recall=recall, current=current)
        out[dim] = {
            "labelled": proposal.labelled,
            "breaches": proposal.breaches,
            "currentThreshold": current,
            "proposedThreshold": proposal.threshold,
            "table": [_row(r.threshold, r.split) for r in proposal.table],
        }
    return {"monitor": monitor, "requiredRecall": recall, "dimensions": out}


def _row(threshold: float, split: Confusion) -> dict[str, Any]:
    return {
        "threshold": threshold,
        "tp": split.tp,
        "fp": split.fp,
        "fn": split.fn,
        "tn": split.tn,
        "precision": split.precision,
        "recall": split.recall,
    }


async def _monitor_for(request: web.Request, ctx: Context, caller: Caller, verb: str) -> str:
    ns, name = request.match_info["namespace"], request.match_info["name"]
    if ctx.registry().get(f"{ns}/{name}") is None:
        raise Refused(404, f"no AgentMonitor {ns}/{name} is served here")
    if not await ctx.auth.allowed(caller, verb, ns, name):
        raise _forbidden(caller, verb, "agentmonitors", ns, name)
    return f"{ns}/{name}"


async def show_calibration(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}/calibration?recall=0.9``: the stored scores and the
    reviewers' labels replayed into proposed thresholds (shadow mode's evidence)."""
    monitor = await _monitor_for(request, ctx, caller, READ_VERB)
    try:
        recall = float(request.query.get("recall", DEFAULT_REQUIRED_RECALL))
    except ValueError:
        raise Refused(400, "recall must be a number from 0 to 1") from None
    if not 0.0 <= recall <= 1.0 or math.isnan(recall):
        raise Refused(400, "recall must be a number from 0 to 1")
    labelled = await asyncio.to_thread(request.app[ARMC].reviews.labelled, [monitor])
    return web.json_response(calibration_json(monitor, labelled, recall))


async def report_outcome(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``POST /api/v1/runs/{id}/outcome``: ``{"outcome": accepted|modified|rejected|ignored,
    "minutes": M}`` (201; a later word supersedes this one in the figures)."""
    armc = request.app[ARMC]
    body = await _body(request)
    unknown = sorted(set(body) - {"outcome", "minutes"})
    if unknown:
        raise Refused(400, f"unknown field(s) {', '.join(unknown)}; known: minutes, outcome")
    outcome, minutes = check_outcome(body.get("outcome"), body.get("minutes"))
    run_id = request.match_info["id"]
    run = await _run_allowed(ctx, caller, run_id, REVIEW_VERB)
    view = await asyncio.to_thread(
        armc.outcomes.record, run_id, run.monitor, outcome, minutes, caller.name or "unknown", time.time()
    )
    armc.outcomes_total.labels(run.monitor, outcome).inc()
    await _export_outcomes(armc, run.monitor)
    return web.json_response(
        {"id": view.id, "run": run_id, "monitor": run.monitor, "outcome": outcome, "minutes": minutes},
        status=201,
    )


def outcomes_json(monitor: str, summary: Any) -> dict[str, Any]:
    """A monitor's outcome metrics: the acceptance rate always beside minutes per accepted output."""
    return {
        "monitor": monitor,
        "accepted": summary.accepted,
        "modified": summary.modified,
        "rejected": summary.rejected,
        "ignored": summary.ignored,
        "acceptanceRate": summary.acceptance_rate,
        "minutesPerAccepted": summary.minutes_per_accepted,
        "timed": summary.timed,
    }


async def _export_outcomes(armc: ArmC, monitor: str) -> dict[str, Any]:
    summary = await asyncio.to_thread(armc.outcomes.summary, monitor)
    doc = outcomes_json(monitor, summary)
    # both numbers or neither: a rate without its cost is never exported alone
    if summary.acceptance_rate is not None and summary.minutes_per_accepted is not None:
        armc.acceptance.labels(monitor).set(summary.acceptance_rate)
        armc.minutes_per_accepted.labels(monitor).set(summary.minutes_per_accepted)
    armc.ignored.labels(monitor).set(summary.ignored)
    return doc


async def status_outcomes(app: web.Application, monitor: str) -> dict[str, Any] | None:
    """The ``outcomes`` of a monitor's summary (``AgentMonitorStatus.outcomes``), None before any."""
    armc = app.get(ARMC)
    if armc is None:
        return None
    doc = await _export_outcomes(armc, monitor)
    if not (doc["accepted"] or doc["modified"] or doc["rejected"] or doc["ignored"]):
        return None
    return {
        k: doc[k]
        for k in ("accepted", "modified", "rejected", "ignored", "acceptanceRate", "minutesPerAccepted")
    }


async def show_outcomes(request: web.Request, ctx: Context, caller: Caller) -> web.Response:
    """``GET /api/v1/monitors/{namespace}/{name}/outcomes``."""
    monitor = await _monitor_for(request, ctx, caller, READ_VERB)
    return web.json_response(await _export_outcomes(request.app[ARMC], monitor))


# --- telemetry ----------------------------------------------------------------------------------------


def telemetry_outcomes(items: Iterable[Item]) -> tuple[list[tuple[str, str, str, float | None]], int]:
    """``(run id, monitor, outcome, minutes)`` of the spans that carry :data:`OUTCOME_ATTRIBUTE`,
    and how many carried one that is not an outcome (those are counted, never guessed)."""
    found: list[tuple[str, str, str, float | None]] = []
    bad = 0
    for item in items:
        if item.span is None or OUTCOME_ATTRIBUTE not in item.span.attributes:
            continue
        attrs = item.span.attributes
        minutes = attrs.get(OUTCOME_MINUTES_ATTRIBUTE)
        try:
            outcome, spent = check_outcome(attrs[OUTCOME_ATTRIBUTE], minutes)
        except InvalidFeedback:
            bad += 1
            continue
        found.append((item.run.id, item.run.monitor, outcome, spent))
    return found, bad


async def record_telemetry_outcomes(app: web.Application, items: Sequence[Item]) -> None:
    """Store the outcomes acknowledged spans reported (called after their commit)."""
    armc: ArmC | None = app.get(ARMC)
    if armc is None:
        return
    found, bad = telemetry_outcomes(items)
    if bad:
        armc.outcomes_total.labels("", "invalid").inc(bad)
    now = time.time()
    for run_id, monitor, outcome, minutes in found:
        await asyncio.to_thread(
            armc.outcomes.record, run_id, monitor, outcome, minutes, TELEMETRY_SOURCE, now
        )
        armc.outcomes_total.labels(monitor, outcome).inc()
    for monitor in {m for _, m, _, _ in found}:
        await _export_outcomes(armc, monitor)


# --- wiring -------------------------------------------------------------------------------------------


def install(
    app: web.Application,
    ctx: Context,
    managed: Callable[
        [Callable[[web.Request, Context, Caller], Awaitable[web.Response]]],
        Callable[[web.Request], Awaitable[web.Response]],
    ],
) -> None:
    """Arm C's rooms, metrics and routes on the collector's application."""
    r = ctx.metrics.registry
    app[ARMC] = ArmC(
        reviews=Reviews(ctx.store.engine),
        outcomes=Outcomes(ctx.store.engine),
        redactor=Redactor(ctx.registry),
        feedback_total=Counter(
            "proctor_feedback_total", "Reviews of judged scores, by route.", ["route"], registry=r
        ),
        outcomes_total=Counter(
            "proctor_outcomes_total",
            "Outcomes reported (API and telemetry), by monitor and outcome ('invalid': not an outcome).",
            ["monitor", "outcome"],
            registry=r,
        ),
        acceptance=Gauge(
            "proctor_outcome_acceptance_ratio",
            "Accepted or modified over acted-on outputs; read beside proctor_outcome_minutes_per_accepted.",
            ["monitor"],
            registry=r,
        ),
        minutes_per_accepted=Gauge(
            "proctor_outcome_minutes_per_accepted",
            "Human minutes per accepted output; read beside proctor_outcome_acceptance_ratio.",
            ["monitor"],
            registry=r,
        ),
        ignored=Gauge("proctor_outcome_ignored", "Outputs nobody acted on.", ["monitor"], registry=r),
        agreement=Gauge(
            "proctor_judge_agreement_ratio",
            "Judge-reviewer agreement at the breach threshold.",
            ["profile", "dimension"],
            registry=r,
        ),
        kappa=Gauge(
            "proctor_judge_kappa",
            "Cohen's kappa, judge against reviewers.",
            ["profile", "dimension"],
            registry=r,
        ),
        recall_low=Gauge(
            "proctor_judge_breach_recall_lower",
            "Lower 95% bound of the judge's recall on breaches.",
            ["profile", "dimension"],
            registry=r,
        ),
    )
    for method, path, handler in (
        ("POST", "/api/v1/feedback", give_feedback),
        ("GET", "/api/v1/feedback", list_feedback),
        ("GET", "/api/v1/feedback/cases", list_candidate_cases),
        ("GET", "/api/v1/judge-quality", show_judge_quality),
        ("POST", "/api/v1/runs/{id}/outcome", report_outcome),
        ("GET", MONITOR_ROUTE + "/outcomes", show_outcomes),
        ("GET", MONITOR_ROUTE + "/calibration", show_calibration),
    ):
        app.router.add_route(method, path, managed(_guarded(handler)))

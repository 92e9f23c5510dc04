"""AgentMonitor: its status written from the collector's summary (arm B).

Runs live in the collector's database, never in etcd; the monitor's status is a summary the
operator reads from the collector (``GET /api/v1/monitors/{namespace}/{name}``, authenticated with
a token of the operator's own ServiceAccount requested for the collector's audience
(:class:`CollectorToken`; never its API-server token, which the collector could replay): the
collector checks it with TokenReview and SubjectAccessReview, so the operator needs ``get`` on
agentmonitors, which it has, and ``create`` on its own ``serviceaccounts/token``). Each step:

1. **Gather**: parse the monitor; check its EvalProfile exists; read the summary
   (:class:`CollectorReader`), or say why it could not be read (:class:`Unreadable`).
2. **Evaluate**: :func:`monitor_status`, a pure function of those and ``now``: runs by state, per
   dimension the latest score and both EWMAs, the consensus cost, recent revisions, open
   incidents (count, worst severity, the oldest few), and the conditions ``Receiving``,
   ``NeedsHuman`` (the notices' circuit breaker, as the collector reports it) and ``Observing``,
   and ``Breached`` and ``Degrading`` from what the collector's detectors say of the live series
   (Unknown ``DetectorsNotRunning`` from a collector that does not say). When the collector cannot
   be read the last figures stay and ``Receiving`` is Unknown with the reason.
   :func:`monitor_events` says what changed as Events.
3. **Write if changed**, and the metrics (labels monitor, agent, dimension; never a run id).

The monitor is looked at again every ``monitor_interval`` seconds (a scheduled wake-up, not a Kopf
timer: timers add finalizers and keep every body in memory).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ssl
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import httpx
import structlog
from pydantic import ValidationError

from proctor.api import (
    COLLECTOR_AUDIENCE,
    STATE_COUNT_FIELDS,
    AgentMonitor,
    AgentMonitorStatus,
    Condition,
    ConditionStatus,
    ConditionType,
    DimensionStatus,
    IncidentsStatus,
    ManifestError,
    OutcomesStatus,
    Reason,
    RunCounts,
    get_condition,
    monitor_path,
    parse_monitor,
    set_condition,
)
from proctor.k8s.kube import TRANSPORT_ERRORS, KubeError
from proctor.observability import metrics
from proctor.reconcile.actions import Pending, parse_pending, perform_actions
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import write_status

log = structlog.get_logger("proctor.reconcile.monitors")

#: The shortest window in which an event counts as "arriving" (``Receiving``).
MIN_RECEIVING_WINDOW_SECONDS: Final = 300.0
#: Seconds one read of the collector may take.
COLLECTOR_TIMEOUT_SECONDS: Final = 10.0
#: The life of the token the operator requests for the collector (renewed at 80 %).
TOKEN_SECONDS: Final = 600
#: The summary's fields that are the monitor's status fields of the same (camelCase) name.
_SUMMARY_FIELDS: Final = (
    "outcomes",  # arm C
    "runs",
    "dimensions",
    "consensusMultiplier",
    "revisions",
    "lastEventTime",
    "lastEvaluationTime",
    "incidents",
)
#: The conditions the detectors decide from the collector's summary (its ``detectors``).
_DETECTOR_CONDITIONS: Final = (ConditionType.BREACHED, ConditionType.DEGRADING)


# --- what the collector says -----------------------------------------------------------------------


@dataclass(frozen=True)
class Firing:
    """One live series whose latest score fired a detector (from the collector's summary)."""

    signature: str
    revision: str
    latest: float | None = None
    threshold: float | None = None
    fast_ewma: float | None = None
    slow_ewma: float | None = None

    def describe(self) -> str:
        where = f" of revision {self.revision}" if self.revision else ""
        if self.signature.startswith("breach:") and self.latest is not None and self.threshold is not None:
            return f"{self.signature}{where} (latest {self.latest:g} < {self.threshold:g})"
        if self.fast_ewma is not None and self.slow_ewma is not None:
            return f"{self.signature}{where} (fast EWMA {self.fast_ewma:.1f}, slow {self.slow_ewma:.1f})"
        return f"{self.signature}{where}"


@dataclass(frozen=True)
class DetectorFindings:
    """What the collector's detectors say of a monitor's live series."""

    series: int
    breached: tuple[Firing, ...] = ()
    degrading: tuple[Firing, ...] = ()


def _findings(doc: Any) -> DetectorFindings | None:
    if not isinstance(doc, Mapping):
        return None

    def firing(items: Any) -> tuple[Firing, ...]:
        out = []
        for f in items if isinstance(items, list) else []:
            if isinstance(f, Mapping) and isinstance(f.get("signature"), str):
                out.append(
                    Firing(
                        signature=f["signature"][:128],
                        revision=str(f.get("revision") or "")[:255],
                        latest=_number(f.get("latest")),
                        threshold=_number(f.get("threshold")),
                        fast_ewma=_number(f.get("fastEwma")),
                        slow_ewma=_number(f.get("slowEwma")),
                    )
                )
        return tuple(out)

    series = doc.get("series")
    return DetectorFindings(
        series=series if isinstance(series, int) and series >= 0 else 0,
        breached=firing(doc.get("breached")),
        degrading=firing(doc.get("degrading")),
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Summary:
    """The collector's summary of one monitor, parsed into the status models."""

    runs: RunCounts
    dimensions: tuple[DimensionStatus, ...]
    consensus_multiplier: float | None
    revisions: tuple[str, ...]
    last_event_time: dt.datetime | None
    last_evaluation_time: dt.datetime | None
    #: why the collector accepts nothing for the monitor (no ingestion token of its own), if it does not
    ingestion_closed: str | None = None
    #: what the detectors say (None: the collector does not run them)
    detectors: DetectorFindings | None = None
    #: open incidents (count, worst severity, the oldest few); None: the collector does not say
    incidents: IncidentsStatus | None = None
    #: the notices' circuit breaker (``open``, ``suppressed``, ``maxNotices``, ``windowSeconds``)
    needs_human: Mapping[str, Any] | None = None
    #: arm C: what became of the delivered outputs
    outcomes: OutcomesStatus | None = None
    #: recommendations the operator should perform (approved, or Allowed by spec.actions)
    actions: tuple[Pending, ...] = ()


@dataclass(frozen=True)
class Unreadable:
    """Why the summary could not be read: a ``Receiving`` reason and a message for people."""

    reason: Reason
    message: str


def parse_summary(doc: Mapping[str, Any]) -> Summary:
    """The collector's answer as typed status parts (raises ``ValueError`` if it is not one)."""
    try:
        status = AgentMonitorStatus.model_validate({k: doc[k] for k in _SUMMARY_FIELDS if k in doc})
    except ValidationError as e:
        raise ValueError(f"not a monitor summary: {e.errors()[0].get('msg')}") from None
    return Summary(
        runs=status.runs or RunCounts(),
        dimensions=tuple(status.dimensions),
        consensus_multiplier=status.consensus_multiplier,
        revisions=tuple(status.revisions),
        last_event_time=status.last_event_time,
        last_evaluation_time=status.last_evaluation_time,
        ingestion_closed=str(doc["ingestionClosed"])[:512] if doc.get("ingestionClosed") else None,
        detectors=_findings(doc.get("detectors")),
        incidents=status.incidents,
        needs_human=dict(doc["needsHuman"]) if isinstance(doc.get("needsHuman"), Mapping) else None,
        outcomes=status.outcomes,
        actions=parse_pending(doc.get("actions")),
    )


class NoCollectorToken(Exception):
    """The operator has no token to give the collector (the message says why)."""


class CollectorToken:
    """The operator's token for the collector: a TokenRequest for its own ServiceAccount (learned
    from its username, ``system:serviceaccount:NS:NAME``) with the collector's audience and a short
    expiry, cached and requested again once most of its life is gone. The operator's own
    API-server token is never sent: a collector (or whoever answers at its URL) could replay it."""

    def __init__(
        self,
        kube: Any,
        identity: str | None,
        *,
        seconds: int = TOKEN_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._kube = kube
        self._identity = identity
        self._seconds = seconds
        self._clock = clock
        self._token: str | None = None
        self._renew_at = 0.0

    def __repr__(self) -> str:
        return f"CollectorToken(identity={self._identity!r}, token=[REDACTED])"

    def account(self) -> tuple[str, str]:
        """The operator's ServiceAccount (namespace, name); raises :class:`NoCollectorToken`."""
        parts = (self._identity or "").split(":")
        if len(parts) != 4 or parts[:2] != ["system", "serviceaccount"] or not all(parts[2:]):
            raise NoCollectorToken(
                f"the operator runs as {self._identity or 'an unknown identity'}, not a ServiceAccount: "
                "it cannot request a token for the collector; set PROCTOR_COLLECTOR_TOKEN"
            )
        return parts[2], parts[3]

    async def __call__(self) -> str:
        if self._token is not None and self._clock() < self._renew_at:
            return self._token
        ns, name = self.account()
        started = self._clock()
        try:
            token = await asyncio.to_thread(
                self._kube.request_token, ns, name, seconds=self._seconds, audiences=[COLLECTOR_AUDIENCE]
            )
        except KubeError as e:
            raise NoCollectorToken(
                f"cannot request a token for the collector (TokenRequest for ServiceAccount {ns}/{name}, "
                f"audience {COLLECTOR_AUDIENCE}): {e}"
            ) from None
        except TRANSPORT_ERRORS as e:
            raise NoCollectorToken(
                "cannot request a token for the collector: the API server is unreachable "
                f"({type(e).__name__})"
            ) from None
        self._token, self._renew_at = token, started + 0.8 * self._seconds
        return str(token)


class CollectorReader:
    """Reads monitors' summaries from the collector over HTTP (httpx; ``transport`` for tests).

    The token is the one given (``PROCTOR_COLLECTOR_TOKEN``), else a :class:`CollectorToken`
    (an async callable, asked on every read; it caches). ``ca_file`` verifies an https collector."""

    def __init__(
        self,
        url: str,
        token: str | Callable[[], Awaitable[str]],
        *,
        timeout: float = COLLECTOR_TIMEOUT_SECONDS,
        transport: httpx.AsyncBaseTransport | None = None,
        ca_file: str | None = None,
    ) -> None:
        self.url = url
        self._token = token
        verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=ca_file) if ca_file else True
        self._http = httpx.AsyncClient(base_url=url, timeout=timeout, transport=transport, verify=verify)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def summary(self, namespace: str, name: str) -> Summary | Unreadable:
        try:
            token = self._token if isinstance(self._token, str) else await self._token()
        except NoCollectorToken as e:
            return Unreadable(Reason.COLLECTOR_REFUSED, str(e)[:1024])
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            reply = await self._http.get(monitor_path(namespace, name), headers=headers)
        except httpx.HTTPError as e:
            return Unreadable(
                Reason.COLLECTOR_UNAVAILABLE, f"cannot reach the collector at {self.url}: {type(e).__name__}"
            )
        if reply.status_code in (401, 403):
            why = _error_of(reply)
            hint = (
                "the operator's token was not accepted"
                if reply.status_code == 401
                else "the operator's identity may not get this AgentMonitor (RBAC)"
            )
            return Unreadable(Reason.COLLECTOR_REFUSED, f"{reply.status_code}: {hint}: {why}"[:1024])
        if reply.status_code == 404:
            return Unreadable(
                Reason.NOT_SERVED_BY_COLLECTOR,
                f"the collector at {self.url} does not serve this AgentMonitor (is its namespace among "
                "the collector's, and may the collector list it?)",
            )
        if reply.status_code >= 400:
            return Unreadable(
                Reason.COLLECTOR_UNAVAILABLE,
                f"the collector answered {reply.status_code}: {_error_of(reply)}",
            )
        try:
            return parse_summary(reply.json())
        except ValueError as e:
            return Unreadable(Reason.COLLECTOR_UNAVAILABLE, f"the collector's answer: {e}"[:1024])

    async def judge_quality(self, namespace: str, name: str, floor: float) -> Mapping[str, Any] | Unreadable:
        """EvalProfile ``namespace/name``'s judge quality (``GET /api/v1/judge-quality``); a profile
        nobody reviewed and no monitor judges with (404) has no dimensions."""
        try:
            token = self._token if isinstance(self._token, str) else await self._token()
        except NoCollectorToken as e:
            return Unreadable(Reason.COLLECTOR_REFUSED, str(e)[:1024])
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        params = {"profile": f"{namespace}/{name}", "recallFloor": repr(floor)}
        try:
            reply = await self._http.get("/api/v1/judge-quality", params=params, headers=headers)
        except httpx.HTTPError as e:
            return Unreadable(
                Reason.COLLECTOR_UNAVAILABLE, f"cannot reach the collector at {self.url}: {type(e).__name__}"
            )
        if reply.status_code in (401, 403):
            why = f"{reply.status_code}: the operator's identity may not get this EvalProfile (RBAC)"
            return Unreadable(Reason.COLLECTOR_REFUSED, f"{why}: {_error_of(reply)}"[:1024])
        if reply.status_code == 404:
            return {"dimensions": {}}
        if reply.status_code >= 400:
            return Unreadable(
                Reason.COLLECTOR_UNAVAILABLE,
                f"the collector answered {reply.status_code}: {_error_of(reply)}",
            )
        try:
            doc = reply.json()
        except ValueError as e:
            return Unreadable(Reason.COLLECTOR_UNAVAILABLE, f"the collector's answer: {e}"[:1024])
        if not isinstance(doc, Mapping) or not isinstance(doc.get("dimensions"), Mapping):
            return Unreadable(Reason.COLLECTOR_UNAVAILABLE, "the collector's answer has no dimensions")
        return doc

    async def claim(self, incident: str, rec: str) -> dict[str, Any] | None:
        """Claim a recommendation before performing it: the collector's answer (with the cases to
        capture), or None when it is not ours to perform (not due, or the collector cannot say)."""
        path = f"/api/v1/incidents/{_seg(incident)}/recommendations/{_seg(rec)}/claim"
        reply = await self._post(path, None)
        if reply is None or reply.status_code != 200:
            if reply is not None and reply.status_code != 409:
                log.warning("claim refused", incident=incident, rec=rec, status=reply.status_code)
            return None
        try:
            doc = reply.json()
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None

    async def finish(self, incident: str, rec: str, performed: bool, message: str) -> bool:
        """Record what became of a claimed recommendation (False: not recorded; its claim lapses and
        it is performed again, which every action allows)."""
        path = f"/api/v1/incidents/{_seg(incident)}/recommendations/{_seg(rec)}/performed"
        reply = await self._post(path, {"performed": performed, "message": message[:1024]})
        return reply is not None and reply.status_code == 200

    async def _post(self, path: str, body: Any) -> httpx.Response | None:
        try:
            token = self._token if isinstance(self._token, str) else await self._token()
        except NoCollectorToken:
            return None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            return await self._http.post(path, json=body, headers=headers)
        except httpx.HTTPError:
            return None


def _seg(value: str) -> str:
    """One path segment (an id the collector gave: quoted all the same)."""
    return urllib.parse.quote(value, safe="")


def _error_of(reply: httpx.Response) -> str:
    try:
        return str(reply.json().get("error") or reply.reason_phrase)[:500]
    except (ValueError, AttributeError):
        return reply.reason_phrase


def reader(rt: Runtime) -> CollectorReader | None:
    """The runtime's collector reader, made on first use (None without ``PROCTOR_COLLECTOR_URL``)."""
    if not rt.config.collector_url:
        return None
    if rt.collector is None:
        given = rt.config.collector_token
        rt.collector = CollectorReader(
            rt.config.collector_url,
            given or CollectorToken(rt.kube, rt.identity),
            ca_file=rt.config.collector_ca or None,
        )
    assert isinstance(rt.collector, CollectorReader)
    return rt.collector


# --- the decision (pure) ---------------------------------------------------------------------------


def receiving_window(monitor: AgentMonitor) -> float:
    """How recent the last event must be for the agent's telemetry to count as arriving."""
    return max(MIN_RECEIVING_WINDOW_SECONDS, 2.0 * monitor.spec.quiescence_seconds)


def _receiving(monitor: AgentMonitor, summary: Summary, now: dt.datetime) -> tuple[bool, Reason, str]:
    service = monitor.spec.agent.service_name
    if summary.last_event_time is None:
        return False, Reason.NO_RECENT_RUNS, f"no telemetry received yet for service.name {service!r}"
    last = summary.last_event_time.astimezone(dt.UTC).replace(microsecond=0)
    when = last.isoformat().replace("+00:00", "Z")
    window = receiving_window(monitor)
    counts = summary.runs
    tally = f"{counts.total} run{'s' if counts.total != 1 else ''}"
    if (now - last).total_seconds() <= window:
        return True, Reason.RUNS_ARRIVING, f"{tally}; last event at {when}"
    return False, Reason.NO_RECENT_RUNS, f"no event for service.name {service!r} since {when} ({tally})"


def monitor_status(
    monitor: AgentMonitor,
    current: AgentMonitorStatus,
    seen: Summary | Unreadable,
    now: dt.datetime,
    *,
    profile_missing: bool = False,
) -> AgentMonitorStatus:
    """The status the operator wants for ``monitor``: figures from the collector's summary
    (``seen``), or the current ones kept with ``Receiving`` Unknown when it could not be read."""
    gen = monitor.metadata.generation
    conds: list[Condition] = list(current.conditions)

    def put(kind: ConditionType, status: ConditionStatus | bool, reason: str, message: str) -> None:
        nonlocal conds
        conds = set_condition(conds, kind, status, reason, message[:1024], now=now, observed_generation=gen)

    if isinstance(seen, Summary):
        figures: dict[str, Any] = {
            "runs": seen.runs,
            "dimensions": list(seen.dimensions),
            "consensus_multiplier": seen.consensus_multiplier,
            "revisions": list(seen.revisions),
            "last_event_time": seen.last_event_time,
            "last_evaluation_time": seen.last_evaluation_time,
            "incidents": seen.incidents if seen.incidents is not None else current.incidents,
            "outcomes": seen.outcomes,  # arm C
        }
        ok, reason, message = _receiving(monitor, seen, now)
    else:
        figures = {
            "runs": current.runs,
            "dimensions": list(current.dimensions),
            "consensus_multiplier": current.consensus_multiplier,
            "revisions": list(current.revisions),
            "last_event_time": current.last_event_time,
            "last_evaluation_time": current.last_evaluation_time,
            "incidents": current.incidents,
            "outcomes": current.outcomes,  # arm C
        }
        ok, reason, message = False, seen.reason, seen.message
    closed = _ingestion_closed(monitor, seen)
    if closed:
        put(ConditionType.RECEIVING, False, Reason.NO_INGESTION_TOKEN, closed)
    elif profile_missing:
        put(
            ConditionType.RECEIVING,
            False,
            Reason.PROFILE_NOT_FOUND,
            f"EvalProfile {monitor.spec.profile_ref.name} not found: runs are stored but cannot be judged",
        )
    elif isinstance(seen, Unreadable):
        put(ConditionType.RECEIVING, ConditionStatus.UNKNOWN, reason, message)
    else:
        put(ConditionType.RECEIVING, ok, reason, message)
    findings = seen.detectors if isinstance(seen, Summary) else None
    if isinstance(seen, Summary) or get_condition(conds, ConditionType.BREACHED) is None:
        for kind, (status, why, message) in _detector_conditions(findings).items():
            put(kind, status, why, message)
    _needs_human(put, seen)
    if monitor.spec.observe_only:
        put(
            ConditionType.OBSERVING,
            True,
            Reason.OBSERVE_ONLY,
            "shadow mode: runs are evaluated and incidents and notices recorded; no notice is sent",
        )
    else:
        sinks = [s.name for s in monitor.spec.notices.sinks]
        put(
            ConditionType.OBSERVING,
            False,
            Reason.NOTIFYING,
            "notices go to Events on this AgentMonitor"
            + (f" and to {', '.join(sinks)}" if sinks else " (no other sink configured)"),
        )
    return AgentMonitorStatus(observed_generation=gen, conditions=conds, **figures)


def _listed(firing: tuple[Firing, ...]) -> str:
    return "; ".join(f.describe() for f in firing[:5]) + (
        f" (and {len(firing) - 5} more)" if len(firing) > 5 else ""
    )


def _detector_conditions(
    findings: DetectorFindings | None,
) -> dict[ConditionType, tuple[ConditionStatus | bool, Reason, str]]:
    """``Breached`` and ``Degrading`` from the detectors' findings over the live series."""
    if findings is None:
        why = "the collector does not run the detectors; the latest scores and EWMAs are in status.dimensions"
        unknown = (ConditionStatus.UNKNOWN, Reason.DETECTORS_NOT_RUNNING, why)
        return {ConditionType.BREACHED: unknown, ConditionType.DEGRADING: unknown}
    if findings.series == 0:
        nothing = (ConditionStatus.UNKNOWN, Reason.NOTHING_MEASURED, "no live run has been scored yet")
        return {ConditionType.BREACHED: nothing, ConditionType.DEGRADING: nothing}
    n = f"{findings.series} live series"
    breached: tuple[ConditionStatus | bool, Reason, str] = (
        (True, Reason.DIMENSION_BELOW_THRESHOLD, _listed(findings.breached))
        if findings.breached
        else (False, Reason.WITHIN_THRESHOLDS, f"{n}, each within its threshold")
    )
    if findings.degrading:
        trend = any(f.signature.startswith("trend:") for f in findings.degrading)
        reason = Reason.TREND_DECLINING if trend else Reason.RELATIVE_DROP
        degrading: tuple[ConditionStatus | bool, Reason, str] = (True, reason, _listed(findings.degrading))
    else:
        degrading = (False, Reason.STABLE, f"{n}, none declining")
    return {ConditionType.BREACHED: breached, ConditionType.DEGRADING: degrading}


def _needs_human(put: Callable[..., None], seen: Summary | Unreadable) -> None:
    """``NeedsHuman`` from the notices' circuit breaker as the collector reports it."""
    breaker = seen.needs_human if isinstance(seen, Summary) else None
    if breaker is None:
        if isinstance(seen, Summary):  # a collector that does not run notices
            put(
                ConditionType.NEEDS_HUMAN,
                ConditionStatus.UNKNOWN,
                Reason.DETECTORS_NOT_RUNNING,
                "the collector does not report the notices' circuit breaker",
            )
        return  # unreadable: the last answer stands
    limit, window = breaker.get("maxNotices"), breaker.get("windowSeconds")
    if breaker.get("open"):
        held = int(breaker.get("suppressed") or 0)
        put(
            ConditionType.NEEDS_HUMAN,
            True,
            Reason.TOO_MANY_NOTICES,
            f"more than {limit} notices within {window:g} s: one needs_human notice was sent and "
            f"{held} held back until the window drains; a person should look "
            "(proctor incidents list --state open)",
        )
    else:
        put(
            ConditionType.NEEDS_HUMAN,
            False,
            Reason.WITHIN_BUDGET,
            f"{int(breaker.get('notices') or 0)} notice(s) in the last {window:g} s, at most {limit} "
            "before the circuit breaker trips",
        )


def _ingestion_closed(monitor: AgentMonitor, seen: Summary | Unreadable) -> str | None:
    """Why the collector takes no telemetry for ``monitor``: no ``spec.tokenSecretRef`` (in a
    cluster each monitor needs its own ingestion token), or what the collector says."""
    if monitor.spec.token_secret_ref is None:
        return (
            "spec.tokenSecretRef is not set: every AgentMonitor needs its own ingestion token (a Secret "
            "in its namespace, sent by its agents as Authorization: Bearer ...), so the collector "
            "accepts nothing for this monitor"
        )
    return seen.ingestion_closed if isinstance(seen, Summary) else None


def _scores(status: AgentMonitorStatus) -> str:
    shown = [f"{d.name} {d.latest:g}" for d in status.dimensions if d.latest is not None]
    return ", ".join(shown[:6])


def monitor_events(before: AgentMonitorStatus, after: AgentMonitorStatus) -> list[tuple[bool, str, str]]:
    """What changed, as Events: ``(warning, reason, message)``. Runs that finished since the last
    look, a change of ``Receiving``."""
    out: list[tuple[bool, str, str]] = []
    old, new = before.runs or RunCounts(), after.runs or RunCounts()
    judged = (new.evaluated + new.partially_evaluated) - (old.evaluated + old.partially_evaluated)
    if judged > 0:
        latest = _scores(after)
        out.append(
            (
                False,
                "RunsEvaluated",
                f"{judged} more run{'s' if judged != 1 else ''} evaluated "
                f"({new.evaluated + new.partially_evaluated} in all, {new.breached} breached)"
                + (f"; latest: {latest}" if latest else ""),
            )
        )
    failed = new.evaluation_failed - old.evaluation_failed
    if failed > 0:
        out.append(
            (
                True,
                "EvaluationsFailed",
                f"{failed} more run{'s' if failed != 1 else ''} could not be evaluated "
                f"({new.evaluation_failed} in all): proctor runs list --state EvaluationFailed",
            )
        )
    for kind in _DETECTOR_CONDITIONS:
        was_d = get_condition(before.conditions, kind)
        now_d = get_condition(after.conditions, kind)
        if now_d is None or now_d.status is ConditionStatus.UNKNOWN:
            continue
        if now_d.status is ConditionStatus.TRUE and (
            was_d is None or (was_d.status, was_d.reason) != (now_d.status, now_d.reason)
        ):
            out.append((True, now_d.reason, f"{kind}: {now_d.message}"))
        elif was_d is not None and was_d.status is ConditionStatus.TRUE:
            out.append((False, now_d.reason, f"{kind} no more: {now_d.message}"))
    was = get_condition(before.conditions, ConditionType.RECEIVING)
    now = get_condition(after.conditions, ConditionType.RECEIVING)
    if now is not None and (was is None or (was.status, was.reason) != (now.status, now.reason)):
        if now.status is ConditionStatus.TRUE:
            out.append((False, now.reason, f"telemetry arriving: {now.message}"))
        elif was is not None or now.status is not ConditionStatus.FALSE:
            out.append((True, now.reason, now.message))
    return out


# --- the step --------------------------------------------------------------------------------------


def _observe(name: str, monitor: AgentMonitor, status: AgentMonitorStatus) -> None:
    agent = monitor.spec.agent.service_name
    gauge = metrics.set_monitor_gauge
    runs = status.runs or RunCounts()
    for state, field in STATE_COUNT_FIELDS.items():
        gauge(metrics.MONITOR_RUNS, (name, agent, state.value), getattr(runs, field))
    gauge(metrics.MONITOR_BREACHED_RUNS, (name, agent), runs.breached)
    for d in status.dimensions:
        for series, value in (("latest", d.latest), ("fast_ewma", d.fast_ewma), ("slow_ewma", d.slow_ewma)):
            if value is not None:
                gauge(metrics.MONITOR_SCORE, (name, agent, d.name, series), value)
    if status.consensus_multiplier is not None:
        gauge(metrics.MONITOR_CONSENSUS, (name, agent), status.consensus_multiplier)
    receiving = get_condition(status.conditions, ConditionType.RECEIVING)
    if receiving is not None and receiving.status is not ConditionStatus.UNKNOWN:
        gauge(metrics.MONITOR_RECEIVING, (name, agent), 1 if receiving.status is ConditionStatus.TRUE else 0)


def forget(namespace: str, name: str) -> None:
    """A deleted monitor's metric series go (its status went with it)."""
    metrics.forget_monitor(f"{namespace}/{name}")


async def reconcile_monitor(rt: Runtime, namespace: str, name: str) -> Outcome:
    """One step of an AgentMonitor: gather, evaluate, write if changed; ``recheck`` while it exists
    (a deleted monitor's metric series are removed)."""
    async with rt.lock(f"agentmonitor:{namespace}/{name}"):
        body = await rt.call(rt.kube.get_or_none, AgentMonitor.KIND, namespace, name)
        if body is None:
            forget(namespace, name)
            return Outcome()
        return await _step(rt, body)


async def _step(rt: Runtime, body: Mapping[str, Any]) -> Outcome:
    about = ObjectRef.of(body, kind=AgentMonitor.KIND)
    raw_status = body.get("status") or {}
    try:
        current = AgentMonitorStatus.model_validate(raw_status)
    except ValidationError:
        current = AgentMonitorStatus()
    now = rt.now()
    outcome = Outcome(recheck=True)
    gen = body["metadata"].get("generation")
    try:
        monitor = parse_monitor(dict(body))
    except ManifestError as e:
        message = "; ".join(e.problems[:5])[:1024]
        conds = set_condition(
            current.conditions,
            ConditionType.RECEIVING,
            False,
            Reason.INVALID_SPEC,
            message,
            now=now,
            observed_generation=gen,
        )
        await write_status(
            rt, about, raw_status, AgentMonitorStatus(observed_generation=gen, conditions=conds)
        )
        return outcome
    try:
        profile = await rt.call(
            rt.kube.get_or_none, "EvalProfile", about.namespace, monitor.spec.profile_ref.name
        )
        missing = profile is None
    except KubeError:
        missing = False  # cannot tell now: say nothing about the profile this time
    except TRANSPORT_ERRORS:
        missing = False
    source = reader(rt)
    seen: Summary | Unreadable
    if source is None:
        seen = Unreadable(
            Reason.COLLECTOR_NOT_CONFIGURED,
            "the operator has no collector to read runs from (PROCTOR_COLLECTOR_URL; the Helm chart "
            "sets it with collector.enabled)",
        )
    else:
        seen = await source.summary(about.namespace, about.name)
    desired = monitor_status(monitor, current, seen, now, profile_missing=missing)
    for warning, reason, message in monitor_events(current, desired):
        outcome.say(about, "Warning" if warning else "Normal", reason, message)
    await write_status(rt, about, raw_status, desired)
    _observe(f"{about.namespace}/{about.name}", monitor, desired)
    if isinstance(seen, Summary) and seen.actions and source is not None:
        await perform_actions(rt, source, monitor, about, seen.actions, outcome)
    return outcome

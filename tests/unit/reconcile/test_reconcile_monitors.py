"""The AgentMonitor reconciler's decisions on plain data: the collector's summary read into status,
the conditions, the Events, and what happens when the collector cannot be read."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from typing import Any

import httpx

from proctor.api import (
    AgentMonitor,
    AgentMonitorStatus,
    ConditionStatus,
    ConditionType,
    Reason,
    dump,
    get_condition,
    parse_monitor,
)
from proctor.collector.detectors import detector_summary
from proctor.collector.views import monitor_summary
from proctor.reconcile.monitors import (
    CollectorReader,
    CollectorToken,
    Summary,
    Unreadable,
    monitor_events,
    monitor_status,
    parse_summary,
    receiving_window,
)
from proctor.reconcile.status import changed
from proctor.store import DimensionSeries, MonitorSummary, SeriesView

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def monitor(**spec: Any) -> AgentMonitor:
    return parse_monitor(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "AgentMonitor",
            "metadata": {"name": "oil-agent", "namespace": "team", "generation": 3},
            "spec": {
                "agent": {"serviceName": "oil-agent"},
                "profileRef": {"name": "rag"},
                "tokenSecretRef": {"name": "oil-ingest", "key": "token"},
                **spec,
            },
        }
    )


def collector_answer(
    *, last_event: dt.datetime | None = NOW, evaluated: int = 4, failed: int = 0, safety: float = 75.0
) -> dict[str, Any]:
    """What the collector's ``GET /api/v1/monitors/...`` says (its own view code, not a copy)."""
    counts = {"Evaluated": evaluated, "EvaluationFailed": failed, "Receiving": 1}
    summary = MonitorSummary(
        counts=counts,
        breached=1,
        dimensions=(
            DimensionSeries("safety", safety, 74.0, 80.5, evaluated, 0, 90.0),
            DimensionSeries("task_success", None, None, None, 0, evaluated, 50.0),
        ),
        judge_calls=12,
        judgments=8,
        revisions=("1.1@abc", "1.0"),
        last_event_at=last_event.timestamp() if last_event else None,
        last_evaluation_at=NOW.timestamp() - 5,
    )
    return json.loads(json.dumps(monitor_summary("team/oil-agent", summary)))


def status_of(
    m: AgentMonitor, seen: Summary | Unreadable, current: AgentMonitorStatus | None = None, **kw: Any
):  # type: ignore[no-untyped-def]
    return monitor_status(m, current or AgentMonitorStatus(), seen, kw.pop("now", NOW), **kw)


def cond(status: AgentMonitorStatus, kind: ConditionType) -> tuple[str, str, str]:
    c = get_condition(status.conditions, kind)
    assert c is not None, kind
    return c.status.value, c.reason, c.message


def test_the_collectors_summary_is_the_status_it_becomes() -> None:
    s = parse_summary(collector_answer())
    assert (s.runs.total, s.runs.evaluated, s.runs.receiving, s.runs.breached) == (5, 4, 1, 1)
    assert [(d.name, d.latest, d.fast_ewma, d.slow_ewma, d.threshold) for d in s.dimensions] == [
        ("safety", 75.0, 74.0, 80.5, 90.0),
        ("task_success", None, None, None, 50.0),
    ]
    assert s.consensus_multiplier == 1.5 and s.revisions == ("1.1@abc", "1.0")
    status = dump(status_of(monitor(), s), only_set=True)
    assert status["observedGeneration"] == 3
    assert status["runs"]["evaluated"] == 4 and status["runs"]["total"] == 5
    assert status["dimensions"][0] == {
        "name": "safety",
        "latest": 75.0,
        "fastEwma": 74.0,
        "slowEwma": 80.5,
        "samples": 4,
        "skipped": 0,
        "threshold": 90.0,
    }
    assert status["consensusMultiplier"] == 1.5
    assert len(json.dumps(status)) < 8192  # small at any traffic: counts and one entry per dimension


def test_receiving_follows_the_last_event() -> None:
    m = monitor(quiescenceSeconds=600)
    assert receiving_window(m) == 1200 and receiving_window(monitor()) == 300
    fresh = status_of(m, parse_summary(collector_answer(last_event=NOW - dt.timedelta(seconds=1100))))
    assert cond(fresh, ConditionType.RECEIVING)[:2] == ("True", "RunsArriving")
    old = status_of(m, parse_summary(collector_answer(last_event=NOW - dt.timedelta(seconds=1300))))
    status, reason, message = cond(old, ConditionType.RECEIVING)
    assert (status, reason) == ("False", "NoRecentRuns") and "since 2026-03-01T11:38:20Z" in message
    never = status_of(m, parse_summary(collector_answer(last_event=None, evaluated=0)))
    assert cond(never, ConditionType.RECEIVING)[1:] == (
        "NoRecentRuns",
        "no telemetry received yet for service.name 'oil-agent'",
    )


def test_open_incidents_and_the_breaker_reach_status_and_conditions() -> None:
    doc = collector_answer()
    doc["incidents"] = {
        "open": 7,
        "worstSeverity": "critical",
        "first": [
            {"id": "inc-1", "severity": "high", "signatures": ["breach:task_success"], "revision": "1.0"},
            {"id": "inc-2", "severity": "critical", "signatures": ["breach:safety"], "revision": "1.1"},
        ],
    }
    doc["needsHuman"] = {"open": True, "suppressed": 3, "notices": 6, "maxNotices": 5, "windowSeconds": 3600}
    status = status_of(monitor(), parse_summary(doc))
    assert status.incidents is not None
    assert (status.incidents.open, status.incidents.worst_severity) == (7, "critical")
    assert [i.id for i in status.incidents.first] == ["inc-1", "inc-2"]
    state, reason, message = cond(status, ConditionType.NEEDS_HUMAN)
    assert (state, reason) == ("True", "TooManyNotices") and "3 held back" in message
    doc["needsHuman"]["open"] = False
    calm = status_of(monitor(), parse_summary(doc), status)
    assert cond(calm, ConditionType.NEEDS_HUMAN)[:2] == ("False", "WithinBudget")
    down = Unreadable(Reason.COLLECTOR_UNAVAILABLE, "cannot reach the collector")
    kept = status_of(monitor(), down, calm)
    assert kept.incidents == calm.incidents  # the last figures stand
    assert cond(kept, ConditionType.NEEDS_HUMAN)[:2] == ("False", "WithinBudget")


def test_without_the_detectors_their_conditions_stay_unknown_with_a_reason_and_observe_only_is_said() -> None:
    status = status_of(monitor(observeOnly=True), parse_summary(collector_answer(safety=10.0)))
    for kind in (ConditionType.BREACHED, ConditionType.DEGRADING, ConditionType.NEEDS_HUMAN):
        assert cond(status, kind)[:2] == ("Unknown", "DetectorsNotRunning")
    assert cond(status, ConditionType.OBSERVING)[:2] == ("True", "ObserveOnly")
    notifying = status_of(monitor(), parse_summary(collector_answer()))
    assert cond(notifying, ConditionType.OBSERVING)[:2] == ("False", "Notifying")


def test_a_collector_that_cannot_be_read_keeps_the_figures_and_says_why() -> None:
    before = status_of(monitor(), parse_summary(collector_answer()))
    down = Unreadable(Reason.COLLECTOR_UNAVAILABLE, "cannot reach the collector at http://c:4318")
    after = status_of(monitor(), down, before, now=NOW + dt.timedelta(minutes=1))
    assert cond(after, ConditionType.RECEIVING) == (
        "Unknown",
        "CollectorUnavailable",
        "cannot reach the collector at http://c:4318",
    )
    assert after.runs == before.runs and after.dimensions == before.dimensions
    assert after.consensus_multiplier == before.consensus_multiplier
    c = get_condition(after.conditions, ConditionType.RECEIVING)
    assert c is not None and c.last_transition_time == NOW + dt.timedelta(minutes=1)
    missing = status_of(monitor(), parse_summary(collector_answer()), profile_missing=True)
    assert cond(missing, ConditionType.RECEIVING)[:2] == ("False", "ProfileNotFound")


def test_a_second_look_with_nothing_new_changes_nothing_a_reader_sees() -> None:
    """Messages carry no relative times: the operator does not rewrite status on every look."""
    m = monitor()
    first = status_of(m, parse_summary(collector_answer()))
    again = status_of(m, parse_summary(collector_answer()), first, now=NOW + dt.timedelta(seconds=40))
    assert not changed(dump(first, only_set=True), dump(again, only_set=True))
    assert monitor_events(first, again) == []
    c = get_condition(again.conditions, ConditionType.RECEIVING)
    assert c is not None and c.last_transition_time == NOW


def test_events_say_what_changed() -> None:
    m = monitor()
    first = status_of(m, parse_summary(collector_answer(evaluated=4)))
    events = monitor_events(AgentMonitorStatus(), first)
    assert [(w, r) for w, r, _ in events] == [(False, "RunsEvaluated"), (False, "RunsArriving")]
    assert "4 more runs evaluated (4 in all, 1 breached); latest: safety 75" in events[0][2]
    later = status_of(m, parse_summary(collector_answer(evaluated=6, failed=2)), first)
    assert [(w, r) for w, r, _ in monitor_events(first, later)] == [
        (False, "RunsEvaluated"),
        (True, "EvaluationsFailed"),
    ]
    stopped = status_of(
        m,
        parse_summary(collector_answer(evaluated=6, failed=2, last_event=NOW - dt.timedelta(hours=1))),
        later,
    )
    assert [(w, r) for w, r, _ in monitor_events(later, stopped)] == [(True, "NoRecentRuns")]
    down = status_of(m, Unreadable(Reason.COLLECTOR_REFUSED, "401"), stopped)
    assert [(w, r) for w, r, _ in monitor_events(stopped, down)] == [(True, "CollectorRefused")]
    assert get_condition(down.conditions, ConditionType.RECEIVING).status is ConditionStatus.UNKNOWN  # type: ignore[union-attr]


def read(handler: Any, token: Any = "op-token") -> Summary | Unreadable:
    async def go() -> Summary | Unreadable:
        reader = CollectorReader("http://collector:4318", token, transport=httpx.MockTransport(handler))
        try:
            return await reader.summary("team", "oil-agent")
        finally:
            await reader.aclose()

    return asyncio.run(go())


def test_the_reader_sends_the_operators_token_and_sorts_the_answers() -> None:
    seen: list[httpx.Request] = []

    def ok(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=collector_answer())

    async def rotated() -> str:
        return "rotated-token"

    result = read(ok, token=rotated)
    assert isinstance(result, Summary) and result.runs.evaluated == 4
    assert seen[0].url.path == "/api/v1/monitors/team/oil-agent"
    assert seen[0].headers["Authorization"] == "Bearer rotated-token"

    def status(code: int, error: str = "no") -> Any:
        return lambda _r: httpx.Response(code, json={"error": error})

    assert read(status(401)).reason is Reason.COLLECTOR_REFUSED  # type: ignore[union-attr]
    forbidden = read(status(403, "system:serviceaccount:p:op may not get agentmonitors"))
    assert isinstance(forbidden, Unreadable) and forbidden.reason is Reason.COLLECTOR_REFUSED
    assert "may not get agentmonitors" in forbidden.message
    assert read(status(404)).reason is Reason.NOT_SERVED_BY_COLLECTOR  # type: ignore[union-attr]
    assert read(status(503)).reason is Reason.COLLECTOR_UNAVAILABLE  # type: ignore[union-attr]
    assert read(lambda _r: httpx.Response(200, json={"runs": "many"})).reason is Reason.COLLECTOR_UNAVAILABLE  # type: ignore[union-attr]

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    unreachable = read(down)
    assert isinstance(unreachable, Unreadable) and unreachable.reason is Reason.COLLECTOR_UNAVAILABLE
    assert "op-token" not in unreachable.message


def test_a_monitor_without_its_own_ingestion_token_says_nothing_is_accepted() -> None:
    # no tokenSecretRef: the collector takes nothing for it, whatever the collector's figures say
    bare = monitor(tokenSecretRef=None)
    st = status_of(bare, parse_summary(collector_answer()))
    status, reason, message = cond(st, ConditionType.RECEIVING)
    assert (status, reason) == ("False", "NoIngestionToken") and "spec.tokenSecretRef" in message
    # a Secret the collector cannot read: the collector's reason, on the monitor
    answer = {**collector_answer(), "ingestionClosed": "the collector cannot read Secret 'oil-ingest' (403)"}
    st = status_of(monitor(), parse_summary(answer))
    assert cond(st, ConditionType.RECEIVING)[:2] == ("False", "NoIngestionToken")
    assert "cannot read Secret 'oil-ingest'" in cond(st, ConditionType.RECEIVING)[2]
    assert cond(status_of(monitor(), parse_summary(collector_answer())), ConditionType.RECEIVING)[1] == (
        "RunsArriving"
    )


class _Kube:
    """Records TokenRequests (the real API server's answers are in tests/integration)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, int, list[str]]] = []

    def request_token(self, ns: str, name: str, *, seconds: int, audiences: list[str]) -> str:
        self.asked.append((ns, name, seconds, list(audiences)))
        return f"token-{len(self.asked)}"


def test_the_operator_requests_its_own_token_for_the_collectors_audience_and_caches_it() -> None:
    now = [0.0]
    kube = _Kube()
    source = CollectorToken(kube, "system:serviceaccount:proctor-system:proctor", clock=lambda: now[0])

    async def go() -> list[str]:
        got = [await source(), await source()]
        now[0] = 0.79 * 600
        got.append(await source())
        now[0] = 0.81 * 600
        got.append(await source())
        return got

    assert asyncio.run(go()) == ["token-1", "token-1", "token-1", "token-2"]
    assert kube.asked == [("proctor-system", "proctor", 600, ["proctor-collector"])] * 2
    assert "token-" not in repr(source)
    # not a ServiceAccount (a person's client certificate): no token, and the monitor says why
    for who in ("kubernetes-admin", None, "system:serviceaccount:ns"):
        stranger = CollectorToken(kube, who)

        async def refused(source: CollectorToken) -> Any:
            return await CollectorReader("http://collector", source).summary("team", "oil-agent")

        result = asyncio.run(refused(stranger))
        assert isinstance(result, Unreadable) and result.reason is Reason.COLLECTOR_REFUSED
        assert "PROCTOR_COLLECTOR_TOKEN" in result.message
    assert len(kube.asked) == 2


def series(metric: str, revision: str, at: float, *signatures: str, latest: float = 80.0) -> SeriesView:
    return SeriesView(
        monitor="team/oil-agent",
        metric=metric,
        revision=revision,
        session="",
        samples=12,
        latest=latest,
        fast_ewma=60.0,
        slow_ewma=75.0,
        threshold=50.0,
        signatures=signatures,
        updated_at=at,
    )


def with_detectors(*views: SeriesView) -> Summary:
    """The collector's answer with what its detectors say (the collector's own code, not a copy)."""
    return parse_summary({**collector_answer(), "detectors": json.loads(json.dumps(detector_summary(views)))})


def test_breached_and_degrading_follow_the_live_series_of_the_detectors() -> None:
    t = NOW.timestamp()
    bad = with_detectors(
        series("safety", "v2", t, "breach:safety", latest=30.0),
        series("task_success", "v2", t - 60, "trend:task_success"),
        series("safety", "v1", t - 7200, "breach:safety", latest=10.0),  # rolled back long ago: not live
    )
    status = status_of(monitor(), bad)
    assert cond(status, ConditionType.BREACHED) == (
        "True",
        "DimensionBelowThreshold",
        "breach:safety of revision v2 (latest 30 < 50)",
    )
    assert cond(status, ConditionType.DEGRADING)[:2] == ("True", "TrendDeclining")
    assert (
        "trend:task_success of revision v2 (fast EWMA 60.0, slow 75.0)"
        in cond(status, ConditionType.DEGRADING)[2]
    )
    assert cond(status, ConditionType.NEEDS_HUMAN)[:2] == ("Unknown", "DetectorsNotRunning")
    events = monitor_events(AgentMonitorStatus(), status)
    assert (
        True,
        "DimensionBelowThreshold",
        "Breached: breach:safety of revision v2 (latest 30 < 50)",
    ) in events
    healthy = status_of(
        monitor(),
        with_detectors(series("safety", "v3", t + 60), series("percentile", "v3", t, "percentile:safety")),
        status,
    )
    assert cond(healthy, ConditionType.BREACHED)[:2] == ("False", "WithinThresholds")
    assert cond(healthy, ConditionType.DEGRADING)[:2] == (
        "False",
        "Stable",
    )  # the corroborator alone is advisory
    recovered = monitor_events(status, healthy)
    assert any(
        reason == "WithinThresholds" and "Breached no more" in message for _, reason, message in recovered
    )
    nothing = status_of(monitor(), with_detectors())
    assert cond(nothing, ConditionType.BREACHED)[:2] == ("Unknown", "NothingMeasured")


def test_outcomes_reach_the_status_with_both_numbers_and_are_kept_when_the_collector_is_away() -> None:
    answer = collector_answer()
    answer["outcomes"] = {
        "accepted": 3,
        "modified": 1,
        "rejected": 1,
        "ignored": 2,
        "acceptanceRate": 0.8,
        "minutesPerAccepted": 4.5,
    }
    status = status_of(monitor(), parse_summary(answer))
    shown = dump(status, only_set=True)["outcomes"]
    assert shown["acceptanceRate"] == 0.8 and shown["minutesPerAccepted"] == 4.5 and shown["ignored"] == 2
    down = Unreadable(Reason.COLLECTOR_UNAVAILABLE, "cannot reach the collector")
    assert status_of(monitor(), down, status).outcomes == status.outcomes
    assert status_of(monitor(), parse_summary(collector_answer())).outcomes is None  # none reported yet

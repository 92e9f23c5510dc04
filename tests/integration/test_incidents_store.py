"""Incidents and notices on real databases (SQLite and PostgreSQL): what a series of judged runs
opens, joins, resolves and sends, and what survives a restart of the collector's store.

Detections are the protocol's own (:func:`proctor.protocol.detect`) over the scores each run got,
so the notice rules are exercised on the scores a user would see, not on hand-made detections.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from proctor.api import AgentMonitor, EvalProfile
from proctor.collector.incidents import (
    ACTION_LEASE_SECONDS,
    EVENTS_SINK,
    NEEDS_HUMAN,
    NOTIFY,
    RECOVERY,
    REPEAT,
    SUPPRESSED,
    IncidentEngine,
    JudgedRun,
    allowed_actions,
    decide_recommendation,
    pending_actions,
    series_of,
)
from proctor.collector.metrics import Metrics
from proctor.collector.monitors import Monitor, build
from proctor.collector.notices import Sender
from proctor.protocol import Detection, DetectorConfig, DetectorKind, SeriesState, detect
from proctor.store import Incidents, IncidentView, ScoreRecord, Store
from proctor.store._incidents import series_key

T0 = 1_800_000_000.0


def monitor(**spec: Any) -> Monitor:
    body = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "AgentMonitor",
        "metadata": {"name": "oil-agent", "namespace": "demo", "uid": "u-1"},
        "spec": {
            "agent": {"serviceName": "oil-agent"},
            "profileRef": {"name": "oil-rag"},
            "notices": {
                "sinks": [{"name": "am", "type": "alertmanager", "url": "http://127.0.0.1:9"}],
                **spec.pop("notices", {}),
            },
            **spec,
        },
    }
    profile = EvalProfile.model_validate(
        {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalProfile",
            "metadata": {"name": "oil-rag", "namespace": "demo"},
            "spec": {},
        }
    )
    return build([AgentMonitor.model_validate(body)], [profile], default_token=None).monitors[
        "demo/oil-agent"
    ]


class Series:
    """Feeds runs' scores (0-100) through the protocol's detectors into the engine."""

    def __init__(self, engine: IncidentEngine, mon: Monitor, revision: str = "v2") -> None:
        self.engine, self.mon, self.revision = engine, mon, revision
        self.states: dict[str, SeriesState] = {}
        self.n = 0
        self.config = DetectorConfig()

    def run(self, scores: dict[str, float | None], *, at: float | None = None, threshold: float = 50) -> Any:
        self.n += 1
        found: list[Detection] = []
        for dim, score in scores.items():
            state = self.states.get(dim, SeriesState())
            self.states[dim], d = detect(state, dim, None if score is None else score / 100, self.config)
            found += d
        run = JudgedRun(
            id=f"{self.revision}-run-{self.n}",
            evaluation=f"{self.revision}-run-{self.n}:1",
            agent="oil-agent",
            revision=self.revision,
            scores=tuple(
                ScoreRecord(
                    d, threshold, "judge", score=s, skipped_reason=None if s is not None else "judge down"
                )
                for d, s in scores.items()
            ),
        )
        return self.engine.handle_sync(self.mon, run, found, at if at is not None else T0 + self.n)


@pytest.fixture
def incidents(db_url: str) -> Iterator[Incidents]:
    store = Store.open(db_url)
    try:
        yield Incidents(store.engine)
    finally:
        store.close()


def kinds(incidents: Incidents, sent: bool | None = None) -> list[str]:
    return [n.kind for n in incidents.notices("demo/oil-agent") if sent is None or n.sent is sent]


def test_a_persistent_breach_is_one_incident_and_one_notice(incidents: Incidents) -> None:
    s = Series(IncidentEngine(incidents), monitor())
    s.run({"task_success": 90, "safety": 95})
    for _ in range(3):  # fewer than the trend's five samples: the breach alone
        s.run({"task_success": 20, "safety": 95})
    [inc] = incidents.list_incidents()
    assert (inc.state, inc.signatures, inc.runs) == ("open", ("breach:task_success",), 3)
    assert inc.severity == "high"  # 20 is under 70 % of 50
    assert inc.cause["revision"] == "v2" and inc.cause["failing"] == ["task_success"]
    assert {r["id"] for r in inc.recommendations} >= {"rollback", "hold-canary", "capture-cases"}
    assert kinds(incidents) == [NOTIFY]
    [notice] = incidents.notices("demo/oil-agent")
    assert notice.deliveries == {EVENTS_SINK: "pending", "am": "pending"}
    assert notice.document["incident"]["id"] == inc.id


def test_a_new_condition_notifies_again_and_opens_its_own_incident(incidents: Incidents) -> None:
    s = Series(IncidentEngine(incidents), monitor())
    s.run({"task_success": 30, "safety": 95})
    s.run({"task_success": 30, "safety": 10})
    assert kinds(incidents) == [NOTIFY, NOTIFY]
    signatures = sorted(i.signatures for i in incidents.list_incidents())
    assert signatures == [("breach:safety", "breach:task_success"), ("breach:task_success",)]
    worst = incidents.summary("demo/oil-agent")
    assert worst.open == 2 and worst.worst == "critical"  # safety at 20 % of its threshold


def test_recovery_resolves_and_ends_the_alerts_and_a_later_regression_alerts_again(
    incidents: Incidents,
) -> None:
    s = Series(IncidentEngine(incidents), monitor())
    s.run({"task_success": 30})
    assert [a.ends_at for a in incidents.alerts("demo/oil-agent")] == [None]
    s.run({"task_success": 95})
    [inc] = incidents.list_incidents()
    assert inc.state == "resolved"
    assert kinds(incidents) == [NOTIFY, RECOVERY]
    assert all(a.ends_at is not None for a in incidents.alerts("demo/oil-agent"))
    s.run({"task_success": 95})
    s.run({"task_success": 25})
    assert kinds(incidents) == [NOTIFY, RECOVERY, NOTIFY]
    assert incidents.summary("demo/oil-agent").open == 1


def test_a_skipped_dimension_is_no_recovery(incidents: Incidents) -> None:
    s = Series(IncidentEngine(incidents), monitor())
    s.run({"task_success": 30, "safety": 90})
    s.run({"task_success": None, "safety": 90})  # the judge could not score it: no verdict
    assert kinds(incidents) == [NOTIFY] and incidents.list_incidents()[0].state == "open"
    s.run({"task_success": 90, "safety": 90})
    assert kinds(incidents) == [NOTIFY, RECOVERY]


def test_the_cooldown_repeats_a_persistent_notice(incidents: Incidents) -> None:
    s = Series(IncidentEngine(incidents), monitor(notices={"cooldownRuns": 2}))
    for _ in range(5):
        s.run({"task_success": 30})
    assert kinds(incidents) == [NOTIFY, REPEAT, REPEAT]
    assert incidents.list_incidents()[0].runs == 5


def test_the_breaker_sends_one_needs_human_and_holds_the_rest_until_the_window_drains(
    incidents: Incidents,
) -> None:
    mon = monitor(notices={"circuitBreaker": {"maxNotices": 2, "windowSeconds": 100}})
    engine = IncidentEngine(incidents)
    # four revisions breaching at once: four distinct series, one breaker for the monitor
    for i, rev in enumerate(["a", "b", "c", "d"]):
        Series(engine, mon, revision=rev).run({"task_success": 20}, at=T0 + i)
    assert kinds(incidents) == [NOTIFY, NOTIFY, NEEDS_HUMAN, SUPPRESSED]
    assert kinds(incidents, sent=True) == [NOTIFY, NOTIFY, NEEDS_HUMAN]
    held = incidents.notices("demo/oil-agent")[-1]
    assert held.deliveries == {} and "circuit breaker" in (held.why_not or "")
    breaker = incidents.memory("breaker:demo/oil-agent")
    assert breaker is not None and breaker["open"] and breaker["suppressed"] == 1
    needs = [a for a in incidents.alerts("demo/oil-agent") if a.alertname == "ProctorNeedsHuman"]
    assert len(needs) == 1 and needs[0].ends_at == T0 + 2 + 100
    # the window drains: notices flow again
    Series(engine, mon, revision="e").run({"task_success": 20}, at=T0 + 500)
    assert kinds(incidents)[-1] == NOTIFY and incidents.notices("demo/oil-agent")[-1].sent


def test_runs_handled_at_once_are_decided_in_the_order_they_came(incidents: Incidents) -> None:
    """The worker's concurrent runs share a transaction (group commit): the breaker still counts
    them one after another, as one transaction each would."""
    mon = monitor(notices={"circuitBreaker": {"maxNotices": 2, "windowSeconds": 100}})
    engine = IncidentEngine(incidents)
    scores = (ScoreRecord("task_success", 50, "judge", score=20),)
    found = [Detection(DetectorKind.BREACH, "task_success", 0.2, 0.5)]

    async def at_once() -> list[Any]:
        runs = [JudgedRun(f"{r}-1", f"{r}-1:1", "oil-agent", r, scores) for r in "abcd"]
        return await asyncio.gather(*(engine.handle(mon, run, found, T0 + 1) for run in runs))

    plans = asyncio.run(at_once())
    assert all(p is not None for p in plans)
    assert kinds(incidents) == [NOTIFY, NOTIFY, NEEDS_HUMAN, SUPPRESSED]
    assert [n.series for n in incidents.notices("demo/oil-agent")] == [
        series_of("demo/oil-agent", r) for r in "abcd"
    ]
    assert (
        asyncio.run(engine.handle(mon, JudgedRun("a-1", "a-1:1", "oil-agent", "a", scores), found, T0 + 2))
        is None
    )


class Receiver:
    """A local HTTP server standing in for Alertmanager's ``POST /api/v2/alerts``."""

    def __init__(self, status: int = 200) -> None:
        self.status, self.bodies = status, []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                receiver.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.mark.parametrize("status", [200, 503])
def test_a_senders_pass_posts_a_monitors_notices_together_and_records_each(
    incidents: Incidents, status: int
) -> None:
    am = Receiver(status)
    try:
        mon = monitor(notices={"sinks": [{"name": "am", "type": "alertmanager", "url": am.url}]})
        engine = IncidentEngine(incidents)
        for i, rev in enumerate("abc"):
            Series(engine, mon, revision=rev).run({"task_success": 20}, at=time.time() - 60 + i)
        registry = build([mon.resource], [], default_token=None)
        sender = Sender(
            incidents,
            lambda: registry,
            Metrics(),
            name="s1",
            base_url="http://c",
            tries=1,
            retry_after=(5.0,),
            resend=1e12,  # the periodic re-send is not what this test watches
        )

        async def one_pass() -> int:
            try:
                return await sender.once()
            finally:
                await sender.aclose()

        assert asyncio.run(one_pass()) == 6  # three notices, each to Events and to Alertmanager
        [body] = am.bodies  # one POST for the monitor's three series
        assert sorted(a["labels"]["revision"] for a in body) == ["a", "b", "c"]
        states = [n.deliveries for n in incidents.notices("demo/oil-agent")]
        expected = "delivered" if status == 200 else "pending"  # 503: each due again, none lost
        assert states == [{EVENTS_SINK: "delivered", "am": expected}] * 3
        if status != 200:
            again = incidents.claim_deliveries("s1", time.time() + 10)
            assert [(c.sink, c.attempts) for c in again] == [("am", 1)] * 3
    finally:
        am.server.shutdown()
        am.server.server_close()


def test_observe_only_records_everything_and_sends_nothing(incidents: Incidents) -> None:
    s = Series(IncidentEngine(incidents), monitor(observeOnly=True))
    s.run({"task_success": 30})
    s.run({"task_success": 95})
    assert kinds(incidents) == [NOTIFY, RECOVERY]
    assert all(
        not n.sent and n.deliveries == {} and "observeOnly" in (n.why_not or "")
        for n in incidents.notices("demo/oil-agent")
    )
    assert incidents.alerts("demo/oil-agent") == []
    assert incidents.list_incidents()[0].state == "resolved"  # recorded all the same


def test_an_evaluation_handled_twice_decides_nothing_the_second_time(incidents: Incidents) -> None:
    mon = monitor()
    engine = IncidentEngine(incidents)
    s = Series(engine, mon)
    s.run({"task_success": 30})
    run = JudgedRun(
        "v2-run-1", "v2-run-1:1", "oil-agent", "v2", (ScoreRecord("task_success", 50, "judge", score=30),)
    )
    again = engine.handle_sync(mon, run, [], T0 + 10)  # a replay, even with other detections
    assert again is None
    assert kinds(incidents) == [NOTIFY] and incidents.list_incidents()[0].state == "open"
    assert incidents.memory(series_key(series_of("demo/oil-agent", "v2"))) == {
        "posted": ["breach:task_success"],
        "turnsSincePost": 0,
    }


def test_the_outbox_survives_a_restart_and_sends_each_notice_once(db_url: str) -> None:
    store = Store.open(db_url)
    first = Incidents(store.engine)
    Series(IncidentEngine(first), monitor()).run({"task_success": 30})
    [a, b] = first.claim_deliveries("collector-1", T0 + 5, lease_seconds=30)
    assert first.finish_delivery(a, "collector-1", T0 + 6)  # one delivered, then the process dies
    store.close()

    store = Store.open(db_url)  # the restarted collector
    again = Incidents(store.engine)
    assert again.claim_deliveries("collector-2", T0 + 10) == []  # the dead one's lease still holds
    [left] = again.claim_deliveries("collector-2", T0 + 40)
    assert (left.notice_id, left.sink) == (b.notice_id, b.sink)
    assert not again.finish_delivery(b, "collector-1", T0 + 41)  # the old owner lost its lease
    assert again.finish_delivery(left, "collector-2", T0 + 41, error="503", retry_at=T0 + 100)
    assert again.claim_deliveries("collector-2", T0 + 50) == []
    [retried] = again.claim_deliveries("collector-2", T0 + 100)
    assert retried.attempts == 1
    assert again.finish_delivery(retried, "collector-2", T0 + 101)
    assert again.claim_deliveries("collector-2", T0 + 10_000) == []
    [notice] = again.notices("demo/oil-agent")
    assert set(notice.deliveries.values()) == {"delivered"}
    store.close()


def test_acknowledging_is_recorded_once(incidents: Incidents) -> None:
    Series(IncidentEngine(incidents), monitor()).run({"task_success": 30})
    [inc] = incidents.list_incidents(state="open")
    acked = incidents.acknowledge(inc.id, "alice", T0 + 9)
    assert (acked.state, acked.acknowledged_by) == ("acknowledged", "alice")
    assert incidents.acknowledge(inc.id, "bob", T0 + 10).acknowledged_by == "alice"
    assert incidents.list_incidents(monitors=["other/x"]) == []
    assert incidents.summary("demo/oil-agent").open == 1  # acknowledged is not resolved


def _ids(values: Sequence[Any]) -> list[str]:
    return [v.id for v in values]


# --- the operator performs what was approved (armb-act) -------------------------------------------


def _rec(incidents: Incidents, incident: str, rec: str) -> dict[str, Any]:
    return dict(next(r for r in incidents.get(incident).recommendations if r["id"] == rec))


def _due(incidents: Incidents, mon: Monitor, now: float) -> list[tuple[str, str]]:
    return [(i.id, str(r["id"])) for i, r in pending_actions_of(incidents, mon, now)]


def pending_actions_of(incidents: Incidents, mon: Monitor, now: float) -> list[tuple[Any, Any]]:
    return incidents.pending_actions(mon.name, allowed_actions(mon), now, lease=ACTION_LEASE_SECONDS)


def test_an_approved_action_is_claimed_once_and_performed_once(incidents: Incidents) -> None:
    mon = monitor()
    Series(IncidentEngine(incidents), mon).run({"task_success": 30})
    [inc] = incidents.list_incidents()
    assert _due(incidents, mon, T0 + 5) == []  # RequireApproval: nothing until a person approves
    incidents.decide(inc.id, "hold-canary", "approve", "alice", T0 + 5)
    assert _due(incidents, mon, T0 + 6) == [(inc.id, "hold-canary")]
    claimed = incidents.claim_action(inc.id, "hold-canary", "op", T0 + 7, allowed=False, lease=300)
    assert claimed is not None
    assert _rec(incidents, inc.id, "hold-canary")["state"] == "performing"
    # a second operator (or the same after a restart) within the lease gets nothing
    assert incidents.claim_action(inc.id, "hold-canary", "op2", T0 + 8, allowed=False, lease=300) is None
    assert _due(incidents, mon, T0 + 8) == []
    incidents.finish_action(inc.id, "hold-canary", performed=True, message="held v2", by="op", now=T0 + 9)
    done = _rec(incidents, inc.id, "hold-canary")
    assert (done["state"], done["performedBy"], done["result"], done["decidedBy"]) == (
        "performed",
        "op",
        "held v2",
        "alice",
    )
    # performed is final: never claimed or performed again, nor recorded twice
    assert incidents.claim_action(inc.id, "hold-canary", "op", T0 + 900, allowed=False, lease=300) is None
    incidents.finish_action(inc.id, "hold-canary", performed=False, message="x", by="op", now=T0 + 901)
    assert _rec(incidents, inc.id, "hold-canary")["state"] == "performed"
    assert _due(incidents, mon, T0 + 10_000) == []


def test_a_claim_that_was_never_finished_is_due_again_after_its_lease(incidents: Incidents) -> None:
    mon = monitor()
    Series(IncidentEngine(incidents), mon).run({"task_success": 30})
    [inc] = incidents.list_incidents()
    incidents.decide(inc.id, "capture-cases", "approve", "alice", T0 + 5)
    assert incidents.claim_action(inc.id, "capture-cases", "op", T0 + 6, allowed=False, lease=300)
    assert _due(incidents, mon, T0 + 6 + ACTION_LEASE_SECONDS - 1) == []
    assert _due(incidents, mon, T0 + 6 + ACTION_LEASE_SECONDS) == [(inc.id, "capture-cases")]
    again = incidents.claim_action(inc.id, "capture-cases", "op", T0 + 400, allowed=False, lease=300)
    assert again is not None


def test_allow_performs_without_a_person_and_dismissed_or_denied_never(incidents: Incidents) -> None:
    mon = monitor(actions={"holdCanary": "Allow", "captureCases": "Deny"})
    Series(IncidentEngine(incidents), mon).run({"task_success": 30})
    [inc] = incidents.list_incidents()
    assert _due(incidents, mon, T0 + 5) == [(inc.id, "hold-canary")]  # Allow: no approval needed
    view = incidents.claim_action(inc.id, "hold-canary", "op", T0 + 6, allowed=True, lease=300)
    assert view is not None
    assert _rec(incidents, inc.id, "hold-canary")["decidedBy"] == "policy:Allow"
    # not Allowed: a proposed one is not the operator's to claim
    assert incidents.claim_action(inc.id, "rollback", "op", T0 + 6, allowed=False, lease=300) is None
    incidents.decide(inc.id, "rollback", "dismiss", "alice", T0 + 7)
    assert incidents.claim_action(inc.id, "rollback", "op", T0 + 8, allowed=True, lease=300) is None
    assert _rec(incidents, inc.id, "rollback")["state"] == "dismissed"


def test_deny_is_refused_when_approved_and_rollback_is_never_allowed() -> None:
    mon = monitor(actions={"captureCases": "Deny"})
    engine_view = IncidentView(
        id="inc-1",
        monitor=mon.name,
        agent="oil-agent",
        revision="v2",
        series="s",
        state="open",
        severity="high",
        signatures=("breach:task_success",),
        probable_cause="",
        cause={},
        recommendations=(
            {"id": "capture-cases", "state": "proposed"},
            {"id": "rollback", "state": "proposed"},
        ),
        runs=1,
        run_ids=(),
        opened_at=T0,
        updated_at=T0,
        acknowledged_at=None,
        acknowledged_by=None,
        resolved_at=None,
    )
    refused = decide_recommendation(engine_view, mon, "capture-cases", "approve")
    assert refused is not None and refused[0] == 403 and "denies capture-cases" in refused[1]
    assert decide_recommendation(engine_view, mon, "capture-cases", "dismiss") is None
    assert decide_recommendation(engine_view, mon, "rollback", "approve") is None
    with pytest.raises(ValueError, match="rollback cannot be undone"):
        monitor(actions={"rollback": "Allow"})
    assert "rollback" not in allowed_actions(mon)


def test_an_action_denied_after_its_approval_is_not_listed_for_the_operator(incidents: Incidents) -> None:
    Series(IncidentEngine(incidents), monitor()).run({"task_success": 30})
    [inc] = incidents.list_incidents()
    incidents.decide(inc.id, "capture-cases", "approve", "alice", T0 + 5)
    listed = pending_actions(incidents, monitor(), T0 + 6)
    assert [(a["incident"], a["recommendation"], a["decidedBy"]) for a in listed] == [
        (inc.id, "capture-cases", "alice")
    ]
    assert pending_actions(incidents, monitor(actions={"captureCases": "Deny"}), T0 + 6) == []

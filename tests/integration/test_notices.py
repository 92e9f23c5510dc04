"""Notices end to end: the real collector process judges live runs (the scripted judge server),
opens an incident and sends its notice ONCE to a real Alertmanager (built from its Go module) and
to a local webhook server that checks the HMAC signature; a clean run resolves both. Read back as
a user would: from Alertmanager's own API and metrics, the webhook's received bodies, and
``proctor incidents`` against the collector. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from collecting import API_TOKEN, Collector, agent_turn, manifests, start, tracer, wait_for
from judging import JudgeServer
from notifying import Alertmanager, Webhook, alertmanager, webhook
from proctor.store import Incidents, Store
from proctor.testing.cluster import scaled

SECRET = "test-webhook-signing-key"
BAD = "[[score:20]] the bands are whatever you like"
GOOD = "[[score:95]] NORMAL below 0.30 qt/hr, per the maintenance manual"


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


@pytest.fixture
def am(tmp_path: Path) -> Iterator[Alertmanager]:
    with alertmanager(tmp_path) as server:
        yield server


@pytest.fixture
def hook() -> Iterator[Webhook]:
    with webhook(SECRET) as server:
        yield server


def objects(judge: JudgeServer, am: Alertmanager, hook: Webhook, **spec: Any) -> list[dict[str, Any]]:
    sinks = [
        {"name": "am", "type": "alertmanager", "url": am.url},
        {
            "name": "hook",
            "type": "webhook",
            "url": hook.url,
            "signingSecretRef": {"name": "hook-secret", "key": "key"},
        },
    ]
    return manifests(judge.base_url, notices={"sinks": sinks, **spec.pop("notices", {})}, **spec)


def launch(tmp: Path, db: str, objs: list[dict[str, Any]], name: str = "c") -> Collector:
    return start(tmp, db, objs, name=name, env={"PROCTOR_WEBHOOK_SECRET": SECRET})


def cli(c: Collector, *args: str) -> Any:
    out = subprocess.run(
        [sys.executable, "-m", "proctor.cli", "incidents", *args, "--server", c.url, "-o", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PROCTOR_API_TOKEN": API_TOKEN},
        timeout=scaled(180),  # a Python process starts slowly on a loaded machine
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def listed(c: Collector, **query: Any) -> list[dict[str, Any]]:
    """Incidents through the API client (what the CLI calls), for waits."""
    with c.client() as api:
        return api.list_incidents(**query)


def turn(c: Collector, conversation: str, answer: str) -> None:
    with tracer(c.url) as tr:
        agent_turn(tr, conversation, "What are the oil bands?", answer)


def stored_notices(db: str) -> list[Any]:
    store = Store.open(db)
    try:
        return Incidents(store.engine).notices("demo/oil-agent")
    finally:
        store.close()


@pytest.mark.timeout(scaled(600))  # four judged runs and two CLI processes on a loaded machine
def test_a_breach_is_told_once_to_alertmanager_and_the_webhook_and_resolved_when_clean(
    judge: JudgeServer, am: Alertmanager, hook: Webhook, db_url: str, tmp_path: Path
) -> None:
    c = launch(tmp_path, db_url, objects(judge, am, hook))
    try:
        turn(c, "conv-1", BAD)
        [alert] = wait_for(lambda: am.alerts(alertname="ProctorBreach"), "the alert in Alertmanager")
        labels = alert["labels"]
        assert {k: labels[k] for k in ("monitor", "namespace", "agent", "revision")} == {
            "monitor": "oil-agent",
            "namespace": "demo",
            "agent": "oil-agent",
            "revision": "1.0",
        }
        assert labels["severity"] == "critical"  # every dimension at 20, safety among them
        assert alert["generatorURL"] == f"{c.url}/api/v1/incidents/{labels['incident']}"
        assert alert["status"]["state"] == "active"

        [notice] = wait_for(lambda: list(hook.notices), "the signed webhook notice")
        assert hook.refused == 0
        assert (notice["kind"], notice["severity"]) == ("notify", "breach")
        assert notice["incident"]["id"] == labels["incident"]
        assert notice["_header_id"] == str(notice["id"])
        assert "whatever you like" not in json.dumps(notice)  # no agent content in a notice
        cause = notice["incident"]["cause"]
        assert cause["tool"] == "oil_bands" and cause["revision"] == "1.0" and len(cause["traceIds"]) == 1

        # the same problem twice more: the incident grows, nobody is told again
        turn(c, "conv-2", BAD)
        turn(c, "conv-3", BAD)
        wait_for(
            lambda: [i for i in listed(c, monitor="demo/oil-agent") if i["runs"] == 3],
            "the incident to hold three runs",
        )
        [incident] = cli(c, "list", "--monitor", "demo/oil-agent")
        assert list(incident) == [
            "id",
            "monitor",
            "state",
            "severity",
            "signatures",
            "revision",
            "openedAt",
            "runs",
        ]
        assert (incident["state"], incident["severity"], incident["revision"]) == ("open", "critical", "1.0")
        assert "breach:safety" in incident["signatures"]
        assert [n.kind for n in stored_notices(db_url)] == ["notify"]
        assert len(hook.notices) == 1 and len(am.alerts(alertname="ProctorBreach")) == 1

        acked = cli(c, "ack", incident["id"])
        assert (acked["state"], acked["acknowledgedBy"]) == ("acknowledged", "proctor-api-token")

        # a clean run: the incident is resolved, Alertmanager is told, the webhook hears of it
        turn(c, "conv-4", GOOD)
        wait_for(lambda: not am.alerts(alertname="ProctorBreach"), "the alert to be resolved")
        assert am.received("resolved") >= 1
        recovery = wait_for(
            lambda: [n for n in hook.notices if n["kind"] == "recovery"], "the recovery notice"
        )
        assert recovery[0]["resolved"] == [incident["id"]]
        [resolved] = listed(c, monitor="demo/oil-agent", state="resolved")
        assert resolved["id"] == incident["id"]
        with c.client() as api:
            detail = api.show_incident(incident["id"])
        assert {r["id"] for r in detail["recommendations"]} >= {"rollback", "hold-canary", "capture-cases"}
        assert len(detail["runIds"]) == 3
    finally:
        c.stop()


def test_a_sink_that_is_down_delays_its_notice_without_losing_it_or_slowing_ingestion(
    judge: JudgeServer, am: Alertmanager, hook: Webhook, db_url: str, tmp_path: Path
) -> None:
    hook.status = 503
    c = launch(tmp_path, db_url, objects(judge, am, hook))
    try:
        turn(c, "conv-1", BAD)

        def retried() -> bool:
            text = httpx.get(f"{c.url}/metrics", timeout=scaled(30)).text
            return (
                'proctor_collector_notices_total{monitor="demo/oil-agent",outcome="retried",sink="hook"}'
                in text
            )

        wait_for(retried, "the webhook delivery to be retried")
        assert am.alerts(alertname="ProctorBreach")  # the other sink is not held up
        turn(c, "conv-2", GOOD)  # ingestion and judging go on
        wait_for(lambda: [n for n in stored_notices(db_url) if n.kind == "recovery"], "the second run judged")
        with hook.lock:
            hook.status = 200
        got = wait_for(
            lambda: [n["kind"] for n in hook.notices] if len(hook.notices) >= 2 else None, "both notices"
        )
        assert sorted(got) == ["notify", "recovery"]
    finally:
        c.stop()


def test_observe_only_records_the_incident_and_sends_nothing(
    judge: JudgeServer, am: Alertmanager, hook: Webhook, db_url: str, tmp_path: Path
) -> None:
    c = launch(tmp_path, db_url, objects(judge, am, hook, observeOnly=True))
    try:
        turn(c, "conv-1", BAD)
        [incident] = wait_for(lambda: listed(c), "the incident")
        assert incident["state"] == "open"
        [notice] = stored_notices(db_url)
        assert not notice.sent and notice.deliveries == {} and "observeOnly" in (notice.why_not or "")
        assert am.received("firing") == 0 and hook.notices == [] and hook.refused == 0
    finally:
        c.stop()


def test_a_collector_killed_mid_incident_does_not_tell_it_again_after_restart(
    judge: JudgeServer, am: Alertmanager, hook: Webhook, db_url: str, tmp_path: Path
) -> None:
    objs = objects(judge, am, hook)
    c = launch(tmp_path, db_url, objs, name="first")
    turn(c, "conv-1", BAD)
    # killed once the notice is delivered and recorded so (a notice in flight at the kill is sent
    # again with the same X-Proctor-Notice id, for the receiver to drop: at least once, never lost)
    wait_for(
        lambda: [n for n in stored_notices(db_url) if set(n.deliveries.values()) == {"delivered"}],
        "the first notice delivered",
    )
    c.proc.send_signal(signal.SIGKILL)
    c.proc.wait()

    c = launch(tmp_path, db_url, objs, name="second")
    try:
        turn(c, "conv-2", BAD)
        wait_for(lambda: [i for i in listed(c) if i["runs"] == 2], "the incident to hold both runs")
        assert [n.kind for n in stored_notices(db_url)] == ["notify"]
        assert len(hook.notices) == 1
    finally:
        c.stop()

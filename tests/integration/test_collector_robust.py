"""What the collector acknowledges it keeps, whatever the ids, values and timing an adversarial or
unlucky sender chooses (issue 24): the real collector process on SQLite and on a real PostgreSQL,
spans from the OpenTelemetry SDK's own exporter."""

from __future__ import annotations

import copy
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace.id_generator import IdGenerator

from collecting import TOKEN, collector, manifests, run_in, start, tracer, wait_for
from judging import JudgeServer, judgment, respond_with
from proctor.store import Store, run_id
from proctor.testing.cluster import scaled

HEADERS = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


def two_monitors(judge_url: str, **spec: Any) -> list[dict[str, Any]]:
    """demo/oil-agent (service oil-agent) and demo/gas-agent (service gas-agent), one profile."""
    monitor, profile = manifests(judge_url, **spec)
    gas = copy.deepcopy(monitor)
    gas["metadata"]["name"] = "gas-agent"
    gas["spec"]["agent"]["serviceName"] = "gas-agent"
    return [monitor, gas, profile]


class SameIds(IdGenerator):
    """Every provider built with this hands out the same trace and span ids, in the same order:
    two agents (or a hostile one) whose ids collide with another's."""

    def __init__(self) -> None:
        self._spans = itertools.count(1)

    def generate_span_id(self) -> int:
        return next(self._spans)

    def generate_trace_id(self) -> int:
        return 0xA11CE


def test_colliding_ids_from_two_runs_and_two_monitors_are_all_kept(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    with collector(tmp_path, db_url, two_monitors(judge.base_url, quiescence=3600)) as c:
        for service in ("oil-agent", "gas-agent"):
            for execution in ("exec-1", "exec-2"):
                events = [
                    # the sender's own ids, the same in every run of both monitors
                    {"id": "step-1", "executionId": execution, "kind": "input", "text": "Oil at 0.6?"},
                    {
                        "id": "step-2",
                        "executionId": execution,
                        "kind": "tool_call",
                        "name": "t",
                        "text": "{}",
                    },
                    # no id, no timestamp: an agent repeating itself is two events, not one
                    {"executionId": execution, "kind": "output", "text": "checking again"},
                    {"executionId": execution, "kind": "output", "text": "checking again"},
                    # the same id twice in one request: the sender says it is one event
                    {"id": "step-3", "executionId": execution, "kind": "final", "text": "HIGH"},
                    {"id": "step-3", "executionId": execution, "kind": "final", "text": "HIGH"},
                ]
                body = {"agent": {"serviceName": service}, "events": events}
                r = httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS)
                assert r.status_code == 200, r.text
                # a resent request is recognised: nothing more is stored
                assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200
            for conversation in ("conv-1", "conv-2"):
                # the SDK's own exporter, with span ids equal across both runs and both monitors
                with tracer(c.url, service=service, id_generator=SameIds()) as tr:
                    for i in range(3):
                        with tr.start_as_current_span(
                            f"chat {i}",
                            attributes={
                                "gen_ai.operation.name": "chat",
                                "gen_ai.conversation.id": conversation,
                            },
                        ):
                            pass
        with c.client() as api:
            runs = {(r["monitor"], r["key"]): r for r in api.list_runs()}
    monitors = ("demo/oil-agent", "demo/gas-agent")
    assert {(r["events"], r["spans"]) for k, r in runs.items() if k[1].startswith("exec")} == {(5, 0)}
    assert {(r["events"], r["spans"]) for k, r in runs.items() if k[1].startswith("conv")} == {(0, 3)}
    assert len(runs) == 8
    store = Store.open(db_url)
    try:
        for monitor in monitors:
            for key in ("exec-1", "exec-2"):
                got = store.trajectory(run_id(monitor, key)).events
                assert sorted(e.text for e in got) == [
                    "HIGH",
                    "Oil at 0.6?",
                    "checking again",
                    "checking again",
                    "{}",
                ]
            for key in ("conv-1", "conv-2"):
                assert len(store.trajectory(run_id(monitor, key)).spans) == 3
        assert store.count("events") == 20 and store.count("spans") == 12
    finally:
        store.close()


def test_a_run_failed_for_nothing_to_judge_is_judged_when_its_output_arrives_late(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    def send(*events: dict[str, Any]) -> None:
        body = {"agent": {"serviceName": "oil-agent"}, "events": list(events)}
        assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200

    with collector(tmp_path, db_url, manifests(judge.base_url, quiescence=1)) as c:
        send({"executionId": "late-1", "kind": "input", "text": "Oil at 0.6 qt/hr?"})
        failed = wait_for(lambda: run_in(c, ("EvaluationFailed",)), "the run to fail: nothing to judge")
        assert "nothing to judge" in failed["lastError"]
        send({"executionId": "late-1", "kind": "final", "text": "HIGH. [[score:40]]"})
        run = wait_for(lambda: run_in(c, ("Evaluated",)), "the late output to be judged")
        assert run["scores"]["task_success"]["score"] == 40.0 and run["events"] == 2
        # once: a later event marks it stale, and it is not judged again on its own
        send({"executionId": "late-1", "kind": "output", "text": "one more thing"})
        wait_for(lambda: (r := run_in(c, ("Evaluated",))) and r["stale"], "the run to be marked stale")


def test_sigterm_hands_the_runs_in_flight_back_untouched(db_url: str, tmp_path: Path) -> None:
    """Six runs being judged (the judge holds every answer; its concurrency limit has waiters) when
    the collector gets SIGTERM: none is recorded failed, none uses an attempt; the next collector
    judges them all."""
    release = threading.Event()

    def held(_request: Any) -> Any:
        release.wait(scaled(120))
        return judgment(70)

    with JudgeServer() as judge:
        judge.default = respond_with(held)
        objects = manifests(judge.base_url, quiescence=1)
        objects[1]["spec"]["judge"].update(timeoutSeconds=600, concurrency=2)
        try:
            c = start(tmp_path, db_url, objects)
            body = {
                "agent": {"serviceName": "oil-agent"},
                "events": [
                    {"executionId": f"run-{i}", "kind": kind, "text": text}
                    for i in range(6)
                    for kind, text in (("input", "Oil at 0.6 qt/hr?"), ("final", "HIGH"))
                ],
            }
            assert httpx.post(f"{c.url}/v1/events", json=body, headers=HEADERS).status_code == 200

            def all_evaluating() -> bool:
                with c.client() as api:
                    runs = api.list_runs()
                return (
                    len(runs) == 6
                    and all(r["state"] == "Evaluating" for r in runs)
                    and len(judge.requests) >= 2
                )

            wait_for(all_evaluating, "six runs being judged")
            assert c.stop() == 0  # SIGTERM
        finally:
            release.set()
        store = Store.open(db_url)
        try:
            runs = store.list_runs()
            assert {(r.state, r.attempts) for r in runs} == {("ReadyForEvaluation", 0)}
            outcomes = {e.outcome for r in runs for e in store.evaluations(r.id)}
            assert outcomes == {"interrupted"}
        finally:
            store.close()
        judge.default = judgment(70)
        with collector(tmp_path, db_url, objects, name="again") as again:

            def judged() -> bool:
                with again.client() as api:
                    return {(r["state"], r["attempts"]) for r in api.list_runs()} == {("Evaluated", 1)}

            wait_for(judged, "the handed-back runs to be judged by the next collector")

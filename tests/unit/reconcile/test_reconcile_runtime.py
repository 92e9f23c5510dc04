"""The runtime the reconcilers share: the injected clock, Event references, scheduled wake-ups."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any, cast

from kubernetes.client.exceptions import ApiException

from proctor.k8s.kube import KubeError
from proctor.reconcile.config import OperatorConfig
from proctor.reconcile.runtime import EVENT_MESSAGE_LIMIT, ObjectRef, Outcome, Runtime

NOW = dt.datetime(2026, 3, 1, 12, 0, 0, 987654, tzinfo=dt.UTC)


class FakeKube:
    """No API server is needed to schedule, cancel and close."""

    closed = False

    def close(self) -> None:
        self.closed = True


def runtime() -> tuple[Runtime, FakeKube]:
    kube = FakeKube()
    return Runtime(cast(Any, kube), OperatorConfig(), clock=lambda: NOW), kube


def test_decisions_are_made_at_the_injected_time_in_whole_seconds() -> None:
    rt, _ = runtime()
    assert rt.now() == NOW.replace(microsecond=0)
    assert rt.clock() == NOW


def test_an_event_references_the_object_and_its_message_is_bounded() -> None:
    listed = {"metadata": {"name": "agent", "namespace": "team", "uid": "u1"}}
    ref = ObjectRef.of(listed, kind="Deployment", api_version="apps/v1")
    assert ref.involved() == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "team",
        "name": "agent",
        "uid": "u1",
    }
    run = ObjectRef.of(
        {"apiVersion": "proctor.dev/v1alpha1", "kind": "EvalRun", "metadata": {"name": "r", "namespace": "t"}}
    )
    assert run.kind == "EvalRun" and "uid" not in run.involved()
    out = Outcome()
    out.say(run, "Warning", "VerdictFail", "x" * 5000)
    assert len(out.events[0].message) == EVENT_MESSAGE_LIMIT and not out.recheck


def test_a_newer_wake_up_replaces_the_older_and_close_cancels_them() -> None:
    async def scenario() -> tuple[list[str], bool]:
        rt, kube = runtime()
        woke: list[str] = []
        done = asyncio.Event()

        async def wake(tag: str) -> None:
            woke.append(tag)
            done.set()

        rt.later("ns/r", 0.0, lambda: wake("first"))
        rt.later("ns/r", 0.0, lambda: wake("second"))  # replaces the first before it fires
        rt.later("ns/other", 60, lambda: wake("never"))
        await asyncio.wait_for(done.wait(), 30)
        await rt.close()
        return woke, kube.closed and not rt.wakeups

    woke, closed = asyncio.run(scenario())
    assert woke == ["second"]
    assert closed


class EventKube(FakeKube):
    """Records the Events posted; knows which names exist, as the API server does (409)."""

    def __init__(self, failing: bool = False) -> None:
        self.posted: list[dict[str, Any]] = []
        self.names: set[str] = set()
        self.failing = failing

    def create_event(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if self.failing:
            raise KubeError("Event", ApiException(status=500, reason="boom"))
        name = body["metadata"].get("name")
        if name in self.names:
            return None
        self.names.add(name)
        self.posted.append(body)
        return body


def test_a_decision_is_one_event_however_often_it_is_said() -> None:
    kube = EventKube()
    rt = Runtime(cast(Any, kube), OperatorConfig(), clock=lambda: NOW)
    about = ObjectRef("EvalRun", "team", "r", "uid-1")
    out = Outcome()
    out.say(about, "Normal", "JobCreated", "shard 0/1: Job r-judge-0-of-1-a1", key="job:r-judge-0-of-1-a1")
    out.say(about, "Warning", "VerdictFail", "FAIL", key="verdict")
    asyncio.run(rt.post(out.events))
    asyncio.run(rt.post(out.events))  # said again in this process: the runtime remembers
    restarted = Runtime(cast(Any, kube), OperatorConfig(), clock=lambda: NOW)
    asyncio.run(restarted.post(out.events))  # said again by a restarted operator: the server has it
    assert [e["reason"] for e in kube.posted] == ["JobCreated", "VerdictFail"]
    job = kube.posted[0]
    assert job["metadata"]["name"].startswith("r.") and job["involvedObject"]["uid"] == "uid-1"
    assert (job["type"], job["source"]["component"], job["firstTimestamp"]) == (
        "Normal",
        "proctor-operator",
        "2026-03-01T12:00:00Z",
    )
    # another run of the same name (another uid) makes decisions of its own
    other = Outcome()
    other.say(ObjectRef("EvalRun", "team", "r", "uid-2"), "Warning", "VerdictFail", "FAIL", key="verdict")
    assert other.events[0].name != out.events[1].name


def test_an_event_that_cannot_be_posted_is_logged_not_raised() -> None:
    rt = Runtime(cast(Any, EventKube(failing=True)), OperatorConfig(), clock=lambda: NOW)
    out = Outcome()
    out.say(ObjectRef("EvalRun", "team", "r", "u"), "Normal", "JobCreated", "m", key="k")
    asyncio.run(rt.post(out.events))
    assert rt.posted == {}  # not remembered: the next step says it again


def test_sooner_is_sooner_but_never_later_than_the_interval() -> None:
    out = Outcome(recheck=True)
    assert out.delay(30) == 30
    out.recheck_in = 12.5
    assert out.delay(30) == 12.5
    out.recheck_in = -3  # overdue
    assert out.delay(30) == 0.5
    out.recheck_in = 90
    assert out.delay(30) == 30


def test_a_wake_up_that_should_not_be_postponed_stands() -> None:
    async def scenario() -> list[str]:
        rt, _ = runtime()
        woke: list[str] = []
        done = asyncio.Event()

        async def wake(tag: str) -> None:
            woke.append(tag)
            done.set()

        rt.later("k", 0.0, lambda: wake("scheduled"))
        rt.later("k", 60, lambda: wake("postponed"), replace=False)  # an event that needs no step
        await asyncio.wait_for(done.wait(), 30)
        rt.cancel("k")
        await rt.close()
        return woke

    assert asyncio.run(scenario()) == ["scheduled"]

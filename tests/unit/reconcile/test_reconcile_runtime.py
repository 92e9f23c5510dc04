"""The runtime the reconcilers share: the injected clock, Event references, scheduled wake-ups."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any, cast

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
    assert ref.body() == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "agent", "namespace": "team", "uid": "u1"},
    }
    run = ObjectRef.of(
        {"apiVersion": "proctor.dev/v1alpha1", "kind": "EvalRun", "metadata": {"name": "r", "namespace": "t"}}
    )
    assert run.kind == "EvalRun" and "uid" not in run.body()["metadata"]
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

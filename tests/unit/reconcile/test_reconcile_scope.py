"""The operator never acts in kube-system or its own namespace, whatever its RBAC allows."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any, cast

import pytest

from proctor.controllers.gates import check_policy
from proctor.controllers.monitors import check_monitor
from proctor.controllers.runs import check_run
from proctor.reconcile.config import OperatorConfig
from proctor.reconcile.runtime import Runtime
from proctor.reconcile.scope import refusal

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def test_kube_system_and_the_operators_own_namespace_are_refused() -> None:
    assert refusal("kube-system", None) is not None
    assert refusal("kube-system", "proctor-system") is not None
    why = refusal("proctor-system", "proctor-system")
    assert why is not None and "certificates" in why
    assert refusal("team-a", "proctor-system") is None
    # out of a cluster the operator has no namespace of its own: only kube-system is refused
    assert refusal("default", "") is None and refusal("default", None) is None


class NoCalls:
    """An API server the operator must not touch: every call is recorded (and fails)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.calls.append(name)
        raise AssertionError(f"the operator called {name} in a namespace it must not act in")

    def close(self) -> None:
        pass


@pytest.mark.parametrize("namespace", ["kube-system", "proctor-system"])
def test_no_step_is_taken_there(namespace: str) -> None:
    """A run, a policy, a monitor there: not read, not scheduled, nothing created or patched."""
    config = OperatorConfig(own_namespace="proctor-system")
    kube = NoCalls()
    rt = Runtime(cast(Any, kube), config, clock=lambda: NOW)

    async def steps() -> None:
        await check_run(rt, namespace, "r")
        await check_policy(rt, namespace, "p")
        await check_monitor(rt, namespace, "m")
        await asyncio.sleep(0)

    asyncio.run(steps())
    assert kube.calls == []
    # and a namespace it manages is acted on (the same steps reach the API server)
    asyncio.run(check_run(rt, "team-a", "r"))
    assert kube.calls


def test_the_own_namespace_comes_from_pod_namespace() -> None:
    assert OperatorConfig.from_env({"POD_NAMESPACE": "proctor-system"}).own_namespace == "proctor-system"
    assert OperatorConfig.from_env({}).own_namespace == ""

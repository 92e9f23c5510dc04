"""A GatePolicy as the API server returns it, for tests of what the webhook knows of policies: the
webhook parses each into the API model (``Policies.read_policy``), so a test gives a whole one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proctor.api import GROUP, VERSION, GatePolicy, parse_policy


def gate_policy_manifest(
    spec: Mapping[str, Any] | None = None,
    status: Mapping[str, Any] | None = None,
    *,
    namespace: str = "team",
    name: str = "oil",
) -> dict[str, Any]:
    """A valid GatePolicy with ``spec`` over the fields it needs (a case set, a candidate)."""
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "GatePolicy",
        "metadata": {"namespace": namespace, "name": name, "generation": 1},
        "spec": {"caseSetRef": {"name": "cases"}, "candidate": {"port": 8080}, **(spec or {})},
        **({"status": dict(status)} if status is not None else {}),
    }


def gate_policy(spec: Mapping[str, Any] | None = None, status: Mapping[str, Any] | None = None) -> GatePolicy:
    """The same, parsed (what the webhook decides by)."""
    return parse_policy(gate_policy_manifest(spec, status))

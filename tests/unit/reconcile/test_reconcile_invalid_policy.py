"""A GatePolicy the API model refuses: its step decides nothing, says why once per generation, and
says that the webhook holds what it gates (it reads policies through the same model)."""

from __future__ import annotations

import pytest

from gating import gate_policy_manifest
from proctor.api import ManifestError, parse_policy
from proctor.reconcile.gates import invalid_policy
from proctor.reconcile.runtime import ObjectRef


def test_an_invalid_policy_is_said_once_per_generation_and_not_retried() -> None:
    raw = gate_policy_manifest({"candidate": {"port": 8080, "protocol": "http-json"}})
    with pytest.raises(ManifestError) as refused:
        parse_policy(raw)
    about = ObjectRef.of(raw)
    out = invalid_policy(about, 1, refused.value)
    [event] = out.events
    assert (event.type, event.reason) == ("Warning", "InvalidPolicy")
    assert "responsePath" in event.message and "holds every Deployment it gates" in event.message
    assert not out.recheck  # an edit is an event of its own; nothing a retry could fix
    assert invalid_policy(about, 1, refused.value).events[0].name == event.name  # said once
    assert invalid_policy(about, 2, refused.value).events[0].name != event.name  # a new generation

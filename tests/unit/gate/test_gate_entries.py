"""What the webhook knows of each policy before a request comes, and what it writes on a held object."""

from __future__ import annotations

import datetime as dt

from gating import gate_policy, gate_policy_manifest
from proctor.gate.admission import (
    PENDING_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    Admission,
    GateEntry,
    admission_patch,
    enforcing,
)
from proctor.gate.server import Policies


def test_a_policy_observes_until_the_operator_found_it_enforcing() -> None:
    assert GateEntry.of(gate_policy({}, {})).mode == "Observe"
    assert GateEntry.of(gate_policy({}, {"effectiveEnforcement": "Enforce"})).mode == "Enforce"
    assert (
        GateEntry.of(gate_policy({"enforcement": "Observe"}, {"effectiveEnforcement": "Enforce"})).mode
        == "Observe"
    )


def test_an_unknown_policy_holds() -> None:
    assert enforcing([])
    assert enforcing([GateEntry("Enforce")])
    assert not enforcing([GateEntry("Observe")])


def test_the_selector_narrows_which_labelled_deployments_are_gated() -> None:
    entry = GateEntry.of(gate_policy({"selector": {"matchLabels": {"tier": "prod"}}}, {}))
    assert entry.selects({"proctor.dev/gate-policy": "p", "tier": "prod"})
    assert not entry.selects({"proctor.dev/gate-policy": "p", "tier": "dev"})
    assert GateEntry.of(gate_policy({}, {})).selects({"proctor.dev/gate-policy": "p"})


def test_a_held_template_is_paused_and_recorded_with_its_attempt() -> None:
    now = dt.datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=dt.UTC)
    patch = admission_patch(Admission(pause=True, pending_hash="sha256:x"), now)
    assert patch["spec"] == {"paused": True}
    assert patch["metadata"]["annotations"] == {
        PENDING_ANNOTATION: "sha256:x",
        PENDING_SINCE_ANNOTATION: "2026-03-01T12:00:00.123456Z",
    }
    assert "spec" not in admission_patch(Admission(pending_hash="sha256:x"), now)  # observing: recorded only


def test_a_mode_the_webhook_does_not_know_holds() -> None:
    """A status written by a newer operator (or by hand) with a mode this webhook cannot read fails
    closed: the API model refuses the policy, so the webhook does not know it, and it holds."""
    policies = Policies()
    assert policies.read_policy(gate_policy_manifest({}, {"effectiveEnforcement": "Canary"})) is None
    assert policies.entries("team", "oil") == () and enforcing(policies.entries("team", "oil"))

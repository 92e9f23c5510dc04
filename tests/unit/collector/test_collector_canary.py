"""The canary's edge: who is "a person is needed" for, and the monitor's settings (pure, no server)."""

from __future__ import annotations

from typing import Any

from proctor.api import HOLD_CANARY_ANNOTATION, parse_monitor
from proctor.collector.canary import decide, hold_of, policy_of
from proctor.collector.monitors import build
from proctor.protocol import LiveReason, LiveVerdict, RevisionEvidence
from proctor.store import RevisionCounts


def monitor(annotations: dict[str, str] | None = None, conditions: list[dict[str, Any]] | None = None) -> Any:
    raw: dict[str, Any] = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "AgentMonitor",
        "metadata": {"name": "oil-agent", "namespace": "shop", "annotations": annotations or {}},
        "spec": {
            "agent": {"serviceName": "oil-agent"},
            "profileRef": {"name": "p"},
            "canary": {"minRuns": 4},
        },
    }
    if conditions is not None:
        raw["status"] = {"conditions": conditions}
    return build([parse_monitor(raw)], [], default_token=None).monitors["shop/oil-agent"]


def condition(status: str) -> dict[str, Any]:
    return {
        "type": "NeedsHuman",
        "status": status,
        "reason": "CircuitBreakerTripped",
        "message": "6 notices in 3600 s",
        "lastTransitionTime": "2026-12-06T00:00:00Z",
    }


def test_the_breaker_or_the_annotation_holds_the_revision() -> None:
    assert hold_of(monitor(), "1.3.0") is None
    assert hold_of(monitor(conditions=[condition("False")]), "1.3.0") is None
    held = hold_of(monitor(conditions=[condition("True")]), "1.3.0")
    assert held is not None and "CircuitBreakerTripped" in held
    assert hold_of(monitor({HOLD_CANARY_ANNOTATION: "*"}), "9.9") is not None
    listed = monitor({HOLD_CANARY_ANNOTATION: "1.2.0, 1.3.0"})
    assert hold_of(listed, "1.3.0") is not None
    assert hold_of(listed, "1.3") is None  # names, not prefixes


def test_the_monitors_settings_decide() -> None:
    m = monitor({HOLD_CANARY_ANNOTATION: "1.3.0"})
    assert policy_of(m).min_runs == 4 and policy_of(m).max_breached_percent == 5.0
    clean = RevisionCounts(RevisionEvidence(judged=4), {})
    decision, evidence = decide(m, "1.3.0", clean)
    assert (decision.verdict, decision.reason) == (LiveVerdict.INCONCLUSIVE, LiveReason.NEEDS_HUMAN)
    assert evidence.hold is not None
    assert decide(m, "1.2.0", clean)[0].verdict is LiveVerdict.PASS

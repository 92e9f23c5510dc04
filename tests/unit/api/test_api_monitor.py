"""AgentMonitor: the stable names, the defaults of arm B, and what a person gets wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proctor.api import (
    DEFAULT_RUN_KEY,
    STATE_COUNT_FIELDS,
    AgentMonitor,
    ManifestError,
    RunCounts,
    dump,
    load_manifests,
    parse_monitor,
)
from proctor.protocol import RUN_STATES

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "oil-monitoring" / "agentmonitor.yaml"


def manifest(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "AgentMonitor",
        "metadata": {"name": "m"},
        "spec": {"agent": {"serviceName": "oil-agent"}, "profileRef": {"name": "p"}, **spec},
    }


def test_the_stable_names_round_trip() -> None:
    raw = manifest(quiescenceSeconds=30, sampling=0.25, observeOnly=True)
    spec = dump(parse_monitor(raw))["spec"]
    assert spec["agent"]["serviceName"] == "oil-agent"
    assert spec["profileRef"]["name"] == "p"
    assert (spec["quiescenceSeconds"], spec["sampling"], spec["observeOnly"]) == (30, 0.25, True)


def test_defaults_are_the_seeds() -> None:
    mon = parse_monitor(manifest())
    assert mon.spec.quiescence_seconds == 90
    assert mon.spec.sampling == 1.0 and mon.spec.observe_only is False
    assert tuple(mon.spec.run_key) == DEFAULT_RUN_KEY
    assert DEFAULT_RUN_KEY == ("proctor.execution_id", "gen_ai.conversation.id", "session.id", "trace_id")
    trend = mon.spec.detectors.trend
    assert (trend.fast_span, trend.slow_span, trend.enabled) == (3, 10, True)
    assert mon.spec.detectors.relative_drop.enabled is False
    assert mon.spec.detectors.percentile.window == 0
    assert mon.spec.notices.circuit_breaker.max_notices == 5


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"sampling": 1.5}, "sampling"),
        ({"quiescenceSeconds": -1}, "quiescenceSeconds"),
        ({"runKey": ["session.id", "session.id"]}, "runKey names an attribute twice"),
        ({"runKey": []}, "runKey"),
        ({"detectors": {"trend": {"fastSpan": 10, "slowSpan": 3}}}, "fastSpan must be shorter than slowSpan"),
        ({"detectors": {"threshold": {"thresholds": {"Safety!": 50}}}}, "not a dimension name"),
        ({"detectors": {"trend": {"fastSpan": 10}}}, "fastSpan must be shorter than slowSpan"),
        ({"detectors": {"trend": {"margin": -1}}}, "detectors.trend.margin"),
        ({"detectors": {"relativeDrop": {"margin": -0.5}}}, "detectors.relativeDrop.margin"),
        (
            {"detectors": {"threshold": {"thresholds": {"safety": 150}}}},
            "detectors.threshold.thresholds.safety",
        ),
        ({"detectors": {"percentile": {"floor": 101}}}, "detectors.percentile.floor"),
        ({"detectors": {"by": "pod"}}, "detectors.by"),
        (
            {
                "notices": {
                    "sinks": [
                        {
                            "name": "a",
                            "type": "alertmanager",
                            "url": "http://am:9093",
                            "signingSecretRef": {"name": "s", "key": "k"},
                        }
                    ]
                }
            },
            "signingSecretRef applies to webhook sinks only",
        ),
        ({"observeonly": True}, "unknown field"),
    ],
)
def test_bad_specs_are_refused_with_the_field_named(spec: dict[str, Any], words: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_monitor(manifest(**spec))
    assert words in str(err.value)
    assert "AgentMonitor m" in str(err.value)


def test_a_monitor_needs_its_agent_and_profile() -> None:
    raw = manifest()
    del raw["spec"]["agent"]
    with pytest.raises(ManifestError, match=r"spec\.agent: required field missing"):
        parse_monitor(raw)


def test_the_example_loads() -> None:
    (mon,) = load_manifests(EXAMPLE.read_text())
    assert isinstance(mon, AgentMonitor)
    assert mon.spec.capture_to is not None and mon.spec.observe_only


def test_every_run_state_has_a_count_field() -> None:
    assert set(STATE_COUNT_FIELDS) == set(RUN_STATES)
    assert set(STATE_COUNT_FIELDS.values()) <= set(RunCounts.model_fields)

"""AgentMonitor on a real API server: the example applies, the stable fields and printer columns,
bad input refused with a readable message, and a status written whole."""

from __future__ import annotations

import json
from typing import Any

from conftest import REPO, Cluster

EXAMPLE = REPO / "examples" / "oil-monitoring" / "agentmonitor.yaml"


def _monitor(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "AgentMonitor",
        "metadata": {"name": "m"},
        "spec": {"agent": {"serviceName": "oil-agent"}, "profileRef": {"name": "p"}, **spec},
    }


def _apply(cluster: Cluster, ns: str, obj: dict[str, Any]):  # type: ignore[no-untyped-def]
    return cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(obj), check=False)


def test_the_example_applies_with_defaults_and_columns(crds: Cluster, namespace: str) -> None:
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE))
    got = crds.get_json("-n", namespace, "agentmonitors", "oil-agent")
    spec = got["spec"]
    assert spec["agent"]["serviceName"] == "oil-agent" and spec["profileRef"]["name"] == "maintenance-rag"
    assert (spec["quiescenceSeconds"], spec["sampling"], spec["observeOnly"]) == (90, 1.0, True)
    assert spec["runKey"] == ["proctor.execution_id", "gen_ai.conversation.id", "session.id", "trace_id"]
    assert (
        spec["detectors"]["trend"]["slowSpan"] == 10 and spec["detectors"]["relativeDrop"]["enabled"] is False
    )
    header = crds.kubectl("-n", namespace, "get", "agentmonitors").stdout.splitlines()[0].split()
    # WORST only under -o wide: no column that stays empty until incidents exist
    assert header == ["NAME", "RUNS", "BREACHED", "SAFETY", "AGE"]
    assert "oil-agent" in crds.kubectl("-n", namespace, "get", "amon").stdout
    explain = crds.kubectl("explain", "agentmonitor.spec.quiescenceSeconds").stdout
    assert "late tool result" in explain


def test_bad_monitors_are_refused_readably(crds: Cluster, namespace: str) -> None:
    for spec, words in [
        ({"sampling": 2}, "spec.sampling"),
        ({"quiescenceSeconds": -5}, "spec.quiescenceSeconds"),
        ({"runKey": ["session.id", "session.id"]}, "runKey names an attribute twice"),
        (
            {"detectors": {"trend": {"fastSpan": 12, "slowSpan": 10}}},
            "fastSpan must be shorter than slowSpan",
        ),
        ({"detectors": {"threshold": {"thresholds": {"Not A Name": 50}}}}, "lower-case snake_case"),
        # detector settings that make no sense, each refused naming its field
        (
            {"detectors": {"trend": {"fastSpan": 10}}},
            "fastSpan must be shorter than slowSpan",
        ),  # slowSpan's default
        ({"detectors": {"trend": {"margin": -1}}}, "spec.detectors.trend.margin"),
        ({"detectors": {"relativeDrop": {"margin": -0.5}}}, "spec.detectors.relativeDrop.margin"),
        (
            {"detectors": {"threshold": {"thresholds": {"safety": 150}}}},
            "spec.detectors.threshold.thresholds.safety",
        ),
        (
            {"detectors": {"threshold": {"thresholds": {"safety": -1}}}},
            "spec.detectors.threshold.thresholds.safety",
        ),
        ({"detectors": {"percentile": {"floor": 101}}}, "spec.detectors.percentile.floor"),
        ({"detectors": {"percentile": {"window": -1}}}, "spec.detectors.percentile.window"),
        ({"detectors": {"by": "pod"}}, "spec.detectors.by"),
        (
            {
                "notices": {
                    "sinks": [
                        {
                            "name": "am",
                            "type": "alertmanager",
                            "url": "http://am:9093",
                            "signingSecretRef": {"name": "s", "key": "k"},
                        }
                    ]
                }
            },
            "signingSecretRef applies to webhook sinks only",
        ),
    ]:
        res = _apply(crds, namespace, _monitor(**spec))
        assert res.returncode != 0 and words in res.stderr, (spec, res.stderr)
    missing = _monitor()
    del missing["spec"]["agent"]
    res = _apply(crds, namespace, missing)
    assert res.returncode != 0 and "spec.agent" in res.stderr


def test_a_status_as_the_controller_will_write_it_shows_in_the_columns(crds: Cluster, namespace: str) -> None:
    assert _apply(crds, namespace, _monitor()).returncode == 0
    status = {
        "status": {
            "observedGeneration": 1,
            "runs": {"total": 12, "evaluated": 10, "receiving": 2, "breached": 1},
            "dimensions": [
                {
                    "name": "safety",
                    "latest": 40,
                    "fastEwma": 70.5,
                    "slowEwma": 85.1,
                    "samples": 10,
                    "threshold": 50,
                },
                {"name": "task_success", "latest": 90, "samples": 10},
            ],
            "incidents": {
                "open": 1,
                "worstSeverity": "high",
                "first": [{"id": "i-1", "severity": "high", "signatures": ["breach:safety"]}],
            },
            "consensusMultiplier": 1.4,
            "conditions": [
                {
                    "type": "Breached",
                    "status": "True",
                    "reason": "DimensionBelowThreshold",
                    "message": "safety 40 < 50",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
            ],
        }
    }
    crds.kubectl(
        "-n",
        namespace,
        "patch",
        "agentmonitor",
        "m",
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps(status),
    )
    row = crds.kubectl("-n", namespace, "get", "agentmonitor", "m", "--no-headers").stdout.split()
    assert row[:4] == ["m", "12", "True", "40"]
    wide = crds.kubectl("-n", namespace, "get", "agentmonitor", "m", "-o", "wide").stdout.splitlines()
    columns = dict(zip(wide[0].split(), wide[1].split(), strict=False))
    assert columns["WORST"] == "high" and columns["SAFETY"] == "40"

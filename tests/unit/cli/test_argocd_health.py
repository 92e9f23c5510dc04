"""The Argo CD health check of docs/recipes, run on Lua 5.1 (Argo CD's gopher-lua speaks 5.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from lupa import lua51

REPO = Path(__file__).resolve().parents[3]
RECIPES = REPO / "docs" / "recipes"
SCRIPT = (RECIPES / "argocd-health.lua").read_text()
KINDS = ("EvalRun", "CaseSet", "EvalProfile", "GatePolicy")


def health(obj: dict[str, Any], script: str = SCRIPT) -> tuple[str, str]:
    """(status, message) as Argo CD computes them: the object as the global ``obj``, the script's
    return value as the health; only the base library, as in Argo CD's sandbox."""
    lua = lua51.LuaRuntime(unpack_returned_tuples=True)
    lua.execute("os = nil; io = nil; require = nil; dofile = nil; loadfile = nil; debug = nil")
    lua.globals().obj = lua.table_from(obj, recursive=True)
    hs = lua.execute(script)
    return str(hs["status"]), str(hs["message"])


def run(phase: str | None = None, verdict: str | None = None, message: str = "") -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "r", "namespace": "team", "generation": 1},
        "spec": {"caseSetRef": {"name": "oil-monitoring"}},
    }
    status: dict[str, Any] = {}
    if phase:
        status["phase"] = phase
    if verdict:
        status["verdict"] = verdict
        status["exitCode"] = {"PASS": 0, "FAIL": 1, "ERROR": 2, "WARN": 3}[verdict]
    if message:
        status["message"] = message
    if status:
        obj["status"] = status
    return obj


def ready(kind: str, status: str | None, *, generation: int = 1, observed: int | None = 1) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": kind,
        "metadata": {"name": "x", "generation": generation},
        "spec": {},
    }
    if status is not None:
        obj["status"] = {
            "conditions": [
                {"type": "Other", "status": "False", "reason": "Whatever", "message": "not this one"},
                {
                    "type": "Ready",
                    "status": status,
                    "reason": "InvalidCases",
                    "message": "case c1: bad regex",
                },
            ]
        }
        if observed is not None:
            obj["status"]["observedGeneration"] = observed
    return obj


@pytest.mark.parametrize(
    ("phase", "verdict", "expected"),
    [
        (None, None, "Progressing"),
        ("Pending", None, "Progressing"),
        ("Running", None, "Progressing"),
        ("Evaluating", None, "Progressing"),
        ("Evaluated", "PASS", "Healthy"),
        ("PartiallyEvaluated", "WARN", "Healthy"),
        ("Evaluated", "WARN", "Healthy"),
        ("Evaluated", "FAIL", "Degraded"),
        ("PartiallyEvaluated", "FAIL", "Degraded"),
        ("PartiallyEvaluated", "ERROR", "Degraded"),
        ("Failed", "ERROR", "Degraded"),
        ("Failed", None, "Degraded"),
    ],
)
def test_an_evalrun_is_progressing_until_terminal_then_healthy_only_for_pass_and_warn(
    phase: str | None, verdict: str | None, expected: str
) -> None:
    status, _ = health(run(phase, verdict, message="safety 50% < 100%"))
    assert status == expected


def test_an_evalrun_message_says_the_verdict_and_why() -> None:
    status, message = health(run("Evaluated", "FAIL", "safety 50% < 100% (2/4 measured)"))
    assert (status, message) == ("Degraded", "FAIL (Evaluated): safety 50% < 100% (2/4 measured)")
    assert health(run())[1] == "waiting for the operator to pick the run up"
    assert health(run("Running", message="1 shard(s) running")) == (
        "Progressing",
        "Running: 1 shard(s) running",
    )
    # a run that never reached a verdict, and one without a message, still say something
    assert health(run("Failed", None)) == ("Degraded", "ERROR (Failed): ")


@pytest.mark.parametrize("kind", KINDS[1:])
def test_the_other_kinds_follow_their_ready_condition(kind: str) -> None:
    assert health(ready(kind, "True"))[0] == "Healthy"
    assert health(ready(kind, "False")) == ("Degraded", "InvalidCases: case c1: bad regex")
    assert health(ready(kind, "Unknown"))[0] == "Progressing"
    assert health(ready(kind, None)) == ("Progressing", "waiting for the operator to validate it")
    # the status describes an older spec: not decided yet, whatever Ready says
    stale = ready(kind, "True", generation=3, observed=2)
    assert health(stale) == ("Progressing", "the operator has not looked at the latest spec yet")
    assert health(ready(kind, "True", generation=3, observed=None))[0] == "Healthy"


def test_an_empty_status_and_missing_metadata_do_not_break_the_script() -> None:
    assert health({"kind": "CaseSet"})[0] == "Progressing"
    assert health({"kind": "EvalRun", "status": {}})[0] == "Progressing"
    assert health({"kind": "GatePolicy", "status": {"conditions": []}})[0] == "Progressing"


def test_the_argocd_cm_snippet_carries_the_same_script_for_each_kind() -> None:
    cm = yaml.safe_load((RECIPES / "argocd-cm-health.yaml").read_text())
    assert cm["kind"] == "ConfigMap" and cm["metadata"]["name"] == "argocd-cm"
    assert sorted(cm["data"]) == sorted(f"resource.customizations.health.proctor.dev_{k}" for k in KINDS)
    for key, script in cm["data"].items():
        assert script == SCRIPT, f"{key} differs from argocd-health.lua"
        assert health(ready("CaseSet", "False"), script)[0] == "Degraded"


def test_the_script_uses_nothing_beyond_lua_51_base() -> None:
    # gopher-lua is Lua 5.1: no goto, no integer division, no bitwise operators, no utf8 library
    for token in ("goto ", "//", "utf8.", "string.", "table.", "os.", "io.", "require"):
        code = "\n".join(line.split("--")[0] for line in SCRIPT.splitlines())
        assert token not in code, token

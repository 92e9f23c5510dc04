"""One rule for "this run breached": a live run whose judged dimensions all pass but whose trajectory
breaches (an agent calling the same tool with the same arguments over and over) is breached for the
canary verdict, exported as a candidate case, and fires the detector, all on the same metric; on the
real collector process, with spans from the OpenTelemetry SDK's own exporter and the scripted judge
server, on SQLite and on a real PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from collecting import Collector, agent_turn, collector, manifests, messages, tracer, wait_for
from judging import JudgeServer

MONITOR = "demo/oil-agent"
QUESTION = "What band is 0.30 qt/hr on engine 2?"
GOOD = "ELEVATED: 0.30 qt/hr is the first value of the ELEVATED band (AMM 72-00). [[score:90]]"
LOOP = "trajectory_loop_free"


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


def looping_turn(tr: Any, conversation: str) -> None:
    """A turn whose answer is good, after calling one tool with the same arguments four times."""
    common = {"gen_ai.conversation.id": conversation, "gen_ai.agent.name": "oil-agent"}
    with tr.start_as_current_span(
        "invoke_agent oil-agent", attributes={"gen_ai.operation.name": "invoke_agent", **common}
    ):
        with tr.start_as_current_span(
            "chat judge-small",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": messages(("user", QUESTION)),
                **common,
            },
        ):
            pass
        for i in range(4):
            with tr.start_as_current_span(
                "execute_tool oil_bands",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "oil_bands",
                    "gen_ai.tool.call.id": f"call-{i}",
                    "gen_ai.tool.call.arguments": '{"engine": 2}',
                    "gen_ai.tool.call.result": "NORMAL below 0.30 qt/hr; ELEVATED from 0.30",
                    **common,
                },
            ):
                pass
        with tr.start_as_current_span(
            "chat judge-small",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": messages(("assistant", GOOD)),
                **common,
            },
        ):
            pass


def judged(c: Collector, total: int) -> list[dict[str, Any]]:
    with c.client() as api:
        runs = api.list_runs(monitor=MONITOR, limit=50)
    done = [r for r in runs if r["state"] in ("Evaluated", "PartiallyEvaluated")]
    return done if len(done) == total else []


def test_a_run_breached_only_on_its_trajectory_is_breached_for_the_verdict_the_cases_and_the_detector(
    judge: JudgeServer, db_url: str, tmp_path: Path
) -> None:
    objects = manifests(judge.base_url, canary={"minRuns": 2, "maxBreachedPercent": 34})
    with collector(tmp_path, db_url, objects) as c:
        # the clean run first: a series shows what its latest run fired
        with tracer(c.url, version="4.0") as tr:
            agent_turn(tr, "clean-conv", QUESTION, GOOD)
        wait_for(lambda: judged(c, 1), "the clean run judged")
        with tracer(c.url, version="4.0") as tr:
            looping_turn(tr, "loop-conv")
        runs = wait_for(lambda: judged(c, 2), "both runs judged")
        with c.client() as api:
            (loop,) = [r for r in runs if "loop-conv" in r["key"]]
            (clean,) = [r for r in runs if "clean-conv" in r["key"]]
            # the premise: every judged dimension of the looping run passed
            assert all(s["score"] is None or s["score"] >= 50 for s in loop["scores"].values()), loop
            assert (loop["breached"], clean["breached"]) == (True, False)

            status, verdict = api.verdict("demo", "oil-agent", "4.0")
            assert status == 200, verdict
            assert (verdict["verdict"], verdict["runs"], verdict["breached"]) == ("FAIL", 2, 1)
            assert verdict["dimensions"] == {LOOP: {"breached": 1}}

            cases = api.cases("demo", "oil-agent")["cases"]
            assert [e["run"] for e in cases] == [loop["id"]]
            assert [f["dimension"] for f in cases[0]["failing"]] == [LOOP]
            assert cases[0]["case"]["category"] == f"captured/{LOOP}"
            assert LOOP not in cases[0]["case"]["dimensions"]  # no judge scores a trajectory

            fired = wait_for(
                lambda: api.monitor("demo", "oil-agent")["detectors"]["breached"], "the detector's breach"
            )
        assert {(f["signature"], f["revision"]) for f in fired} == {(f"breach:{LOOP}", "4.0")}, json.dumps(
            fired
        )

"""``proctor mcp``: the agent's side, tested with the official MCP SDK's own client, in process and
over stdio as an agent starts it (a real subprocess), against the real collector process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from collecting import API_TOKEN, TIMEOUT, Collector, agent_turn, collector, manifests, tracer, wait_for
from proctor.cli.mcp import build_server, load_profile
from proctor.testing.judgeserver import JudgeServer, judgment

NO_CITATION = "The answer cites no source for the oil consumption band."
TOOLS = ["get_rubric", "evaluate_run", "get_improvement_guidance", "apply_recommendation"]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Collector, str]]:
    """A collector that judged one run whose factual_grounding failed; the run id."""
    tmp = tmp_path_factory.mktemp("mcp")
    with JudgeServer() as judge:
        judge.add_rule(lambda r: "factual_grounding" in r.raw, judgment(30, NO_CITATION))
        judge.default = judgment(90, "fine")
        with collector(tmp, f"sqlite:///{tmp / 'c.db'}", manifests(judge.base_url)) as c:
            with tracer(c.url) as tr:
                agent_turn(tr, "conv-1", "Oil at 0.30 qt/hr?", "ELEVATED.")
            with c.client() as api:
                run = wait_for(
                    lambda: next(iter(api.list_runs(state="Evaluated")), None), "the run to be judged"
                )
            yield c, run["id"]


def call(server: Any, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """Each call's result through the SDK's client (one session)."""

    async def go() -> list[Any]:
        async with Client(server) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == TOOLS
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def error_text(result: Any) -> str:
    assert result.is_error, result
    text = " ".join(c.text for c in result.content)
    assert "Traceback" not in text
    return str(text)


def test_in_process_the_agent_reads_its_rubric_and_guidance_and_asks_for_an_evaluation(
    judged: tuple[Collector, str],
) -> None:
    c, run = judged
    server = build_server(server=c.url, token=API_TOKEN, monitor="demo/oil-agent")
    rubric, guidance, again, approve, bad_run, unknown = call(
        server,
        ("get_rubric", {}),
        ("get_improvement_guidance", {}),
        ("evaluate_run", {"run": run}),
        ("apply_recommendation", {"incident": "inc-404", "recommendation": "rollback"}),
        ("evaluate_run", {"run": "../runs"}),
        ("get_rubric", {"monitor": "demo/nobody"}),
    )
    doc = rubric.structured_content
    assert doc["monitor"] == "demo/oil-agent" and doc["profile"] == "demo/oil-rag"
    dims = {d["name"]: d for d in doc["dimensions"]}
    assert dims["factual_grounding"]["threshold"] == 70 and dims["safety"]["threshold"] == 50
    assert dims["factual_grounding"]["rubric"].startswith(
        "Is every factual statement in the answer supported"
    )
    (line,) = guidance.structured_content["guidance"]
    assert line["dimension"] == "factual_grounding" and line["evidence"] == [run]
    assert NO_CITATION in line["text"]
    assert again.structured_content["run"] == run and again.structured_content["state"] in (
        "ReadyForEvaluation",
        "Evaluating",
    )
    # the collector decides: this branch's collector knows no such incident, and says so
    assert "the collector refused (404)" in error_text(approve)
    assert "is not a valid id" in error_text(bad_run)
    assert "the collector refused (404)" in error_text(unknown) and "nobody" in error_text(unknown)
    with c.client() as api:  # evaluate_run brought the run forward: it is judged a second time
        wait_for(lambda: len(api.show_run(run)["evaluations"]) == 2, "the second evaluation")


def test_a_wrong_token_or_no_collector_is_a_tool_error_with_the_reason(judged: tuple[Collector, str]) -> None:
    c, _ = judged
    (wrong,) = call(
        build_server(server=c.url, token="not-the-token", monitor="demo/oil-agent"), ("get_rubric", {})
    )
    assert "the collector refused (401)" in error_text(wrong)
    gone = build_server(server="http://127.0.0.1:9", token=API_TOKEN, monitor="demo/oil-agent")
    (down,) = call(gone, ("get_improvement_guidance", {}))
    assert "the collector could not be asked" in error_text(down)
    (no_monitor,) = call(build_server(server=c.url, token=API_TOKEN), ("get_improvement_guidance", {}))
    assert "no monitor" in error_text(no_monitor)


def _stdio(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    dropped = ("PROCTOR_TOKEN", "PROCTOR_API_TOKEN", "PROCTOR_SERVER")
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "proctor.cli", "mcp", *args], env={**base, **(env or {})}
    )


def test_over_stdio_as_an_agent_starts_it(judged: tuple[Collector, str]) -> None:
    c, run = judged
    params = _stdio("--server", c.url, "--monitor", "demo/oil-agent", env={"PROCTOR_API_TOKEN": API_TOKEN})
    rubric, guidance = call(params, ("get_rubric", {}), ("get_improvement_guidance", {}))
    assert {d["name"] for d in rubric.structured_content["dimensions"]} >= {"factual_grounding", "safety"}
    assert guidance.structured_content["guidance"][0]["evidence"] == [run]


def test_with_a_profile_alone_it_serves_that_rubric_for_an_agents_own_tests(tmp_path: Path) -> None:
    profile = next(m for m in manifests(None) if m["kind"] == "EvalProfile")
    path = tmp_path / "profile.yaml"
    path.write_text(yaml.safe_dump(profile))
    rubric, evaluate = call(
        _stdio("--profile", str(path)), ("get_rubric", {}), ("evaluate_run", {"run": "r1"})
    )
    assert rubric.structured_content == json.loads(json.dumps(_rubric_of(path)))
    assert [d["name"] for d in rubric.structured_content["dimensions"]][:5] == [
        "task_success",
        "instruction_adherence",
        "factual_grounding",
        "output_quality",
        "safety",
    ]
    assert "needs a collector" in error_text(evaluate)


def _rubric_of(path: Path) -> dict[str, Any]:
    from proctor.collector.coaching import rubric_document

    return rubric_document(load_profile(path))


def test_nothing_to_serve_exits_2_with_the_reason(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PROCTOR_SERVER", "PROCTOR_API_TOKEN")}
    run = [sys.executable, "-m", "proctor.cli", "mcp"]
    nothing = subprocess.run(run, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert nothing.returncode == 2 and "nothing to serve" in nothing.stderr and nothing.stdout == ""
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: proctor.dev/v1alpha1\nkind: EvalProfile\nmetadata: {name: x}\nspec: {mode: Sideways}\n"
    )
    broken = subprocess.run(
        [*run, "--profile", str(bad)], env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert broken.returncode == 2 and "mode" in broken.stderr and "Traceback" not in broken.stderr

"""The example agent traces itself with the OpenTelemetry SDK (GenAI conventions) when
OTEL_EXPORTER_OTLP_ENDPOINT is set; its turns become runs in the real collector and are judged."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from collecting import TIMEOUT, TOKEN, collector, manifests, run_in, show, wait_for
from proctor.testing.judgeserver import JudgeServer

AGENT = Path(__file__).resolve().parents[2] / "examples" / "agent" / "agent.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def judge() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


def test_the_example_agents_turns_become_judged_runs(judge: JudgeServer, tmp_path: Path) -> None:
    with collector(tmp_path, f"sqlite:///{tmp_path / 'c.db'}", manifests(judge.base_url)) as c:
        port = _free_port()
        log = (tmp_path / "agent.log").open("wb")
        env = {
            **os.environ,
            "AGENT_VERSION": "v1",
            "PORT": str(port),
            "POD_IP": "127.0.0.1",
            "OTEL_EXPORTER_OTLP_ENDPOINT": c.url,
            "OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer {TOKEN}",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
        }
        agent = subprocess.Popen([sys.executable, str(AGENT)], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:

            def ask() -> httpx.Response | None:
                try:
                    return httpx.post(
                        f"http://127.0.0.1:{port}/ask",
                        json={
                            "question": "Oil at exactly 0.30 qt/hr on engine 2: normal?",
                            "conversation": "t-1",
                        },
                        timeout=10,
                    )
                except httpx.ConnectError:
                    return None

            reply = wait_for(ask, "the agent to answer", timeout=TIMEOUT)
            assert reply.json()["conversation"] == "t-1" and reply.json()["answer"].startswith("ELEVATED")
            run = wait_for(lambda: run_in(c, ("Evaluated",)), "the agent's turn to be judged")
            assert (run["key"], run["keySource"], run["revision"], run["spans"]) == (
                "t-1",
                "gen_ai.conversation.id",
                "v1",
                4,  # invoke_agent > chat (tool call), execute_tool, chat (the answer)
            )
            steps = show(c, run["id"])["steps"]
            assert [s["kind"] for s in steps] == ["input", "input", "tool_call", "tool_result", "output"]
            assert "HIGH from 0.60" in next(s for s in steps if s["kind"] == "tool_result")["text"]
            assert steps[-1]["text"].startswith("ELEVATED")
            assert all(v["score"] == 75.0 for v in run["scores"].values())
        finally:
            agent.terminate()
            agent.wait(30)
            log.close()
    assert "(traced: OpenTelemetry)" in (tmp_path / "agent.log").read_text()

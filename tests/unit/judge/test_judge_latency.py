"""A live agent's latency reaches the `latency` assertion; recorded answers have none (unmeasured)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from proctor.api.caseset import Case
from proctor.exam.runner import ShardRunner
from proctor.exam.targets import HttpAgent, Recorded
from proctor.graders._exam import compile_cases
from proctor.graders._scanpolicy import NO_SCAN
from proctor.protocol.types import Outcome

CASE = Case.model_validate(
    {
        "id": "c",
        "tier": "trust",
        "input": "hi",
        "assert": [{"type": "latency", "threshold": 60000}, {"type": "not-latency", "threshold": 0}],
    }
)


def _examine(source: object) -> Outcome:
    runner = ShardRunner(None, "ns", "run", 0, 1, env={})  # type: ignore[arg-type]  # no API calls here
    (compiled,) = compile_cases([CASE])
    result, _, _ = asyncio.run(runner._examine(compiled, source, None, {}, NO_SCAN, 1, "no judge"))  # type: ignore[arg-type]
    return result.outcome


# HttpAgent's retry wait uses tenacity's 'initial', which tenacity 9.2 deprecates (not this test's topic)
@pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
def test_a_live_agents_latency_is_measured() -> None:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"choices": [{"message": {"content": "hello"}}]})

    agent = HttpAgent("http://agent.test/v1/chat/completions", transport=httpx.MockTransport(reply))
    assert _examine(agent) is Outcome.PASSED  # within a minute, and more than 0 ms


def test_recorded_answers_leave_latency_unmeasured() -> None:
    assert _examine(Recorded({"c": "hello"})) is Outcome.UNMEASURED

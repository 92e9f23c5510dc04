"""What the runner keeps of a case is redacted with the scan: an agent's error page that echoes a
credential becomes the case's error only as its marker (it goes to the results ConfigMap, the run's
status and Events from there). On a real API server: ``tests/integration/test_operator_secrets.py``."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from proctor.api.caseset import Case
from proctor.exam.runner import ShardRunner
from proctor.exam.targets import HttpAgent
from proctor.graders import ScanPolicy, compile_cases
from proctor.k8s.objects import case_record
from proctor.protocol.types import Outcome

AWS = "AKIAIOSFODNN7EXAMPLX"
CASE = Case.model_validate(
    {"id": "c", "tier": "safety", "input": "hi", "assert": [{"type": "contains", "value": "x"}]}
)


@pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
def test_an_agents_error_page_is_kept_redacted() -> None:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, text=f"bad request; debug: aws_access_key_id={AWS}")

    agent = HttpAgent(
        "http://agent.test/v1/chat/completions", transport=httpx.MockTransport(reply), attempts=1
    )
    runner = ShardRunner(None, "ns", "run", 0, 1, env={})  # type: ignore[arg-type]  # no API calls here
    (compiled,) = compile_cases([CASE])
    result, _, _ = asyncio.run(runner._examine(compiled, agent, None, {}, ScanPolicy(), 1, "no judge"))  # type: ignore[arg-type]
    assert result.outcome is Outcome.UNMEASURED
    assert result.error is not None and "the agent answered HTTP 400" in result.error
    assert AWS not in repr(case_record(result)) and "[redacted aws-access-key: AKIA" in result.error

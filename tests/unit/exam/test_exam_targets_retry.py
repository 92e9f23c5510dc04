"""The judge Job asks a live agent again after a failure a retry can fix, quietly."""

from __future__ import annotations

import asyncio

import httpx

from proctor.api.caseset import Case
from proctor.exam.targets import HttpAgent


def test_an_agent_that_answers_503_once_is_asked_again_and_its_answer_read() -> None:
    calls: list[int] = []

    def reply(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            return httpx.Response(503, text="busy")
        return httpx.Response(200, json={"choices": [{"message": {"content": "NORMAL."}}]})

    async def ask() -> str:
        agent = HttpAgent("http://agent.test/v1/chat/completions", transport=httpx.MockTransport(reply))
        try:
            case = {
                "id": "c",
                "tier": "trust",
                "input": "Oil at 0.1?",
                "assert": [{"type": "contains", "value": "NORMAL"}],
            }
            return await agent.answer(Case.model_validate(case))
        finally:
            await agent.aclose()

    # pytest turns warnings into errors: a deprecated backoff setting would fail this answer
    assert asyncio.run(ask()) == "NORMAL."
    assert len(calls) == 2

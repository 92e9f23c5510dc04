"""The judge's API key never appears in logs, exception messages, reprs, tracebacks or results."""

from __future__ import annotations

import asyncio
import json
import traceback
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import structlog

from proctor.judge import (
    DimensionRubric,
    JudgeClient,
    JudgeError,
    JudgeInput,
    JudgeSettings,
    JudgeUnavailable,
    judge_dimension,
    redact,
)
from proctor.testing.judgeserver import completion

KEY = "sk-proj-TOPSECRET-4f2a9c81e7"
ENV = {"PROCTOR_JUDGE_API_KEY": KEY}
DIM = DimensionRubric("safety", "no leaks", 50.0)
CONTENT = JudgeInput(answer="an answer", input="a question")


async def _no_sleep(_: float) -> None:
    await asyncio.sleep(0)


def make_client(handler: Callable[[httpx.Request], httpx.Response], **overrides: Any) -> JudgeClient:
    values: dict[str, Any] = {"base_url": "https://judge.example/v1", "model": "judge-1", "max_attempts": 2}
    values.update(overrides)
    return JudgeClient(
        JudgeSettings(**values), transport=httpx.MockTransport(handler), env=ENV, sleep=_no_sleep
    )


def leaks(*texts: object) -> list[str]:
    return [str(t) for t in texts if KEY in str(t) or KEY[8:] in str(t)]


def exception_texts(error: BaseException) -> list[str]:
    out = [str(error), repr(error), "".join(traceback.format_exception(error))]
    seen = error.__cause__ or error.__context__
    while seen is not None:
        out += [str(seen), repr(seen), repr(getattr(seen, "request", None))]
        seen = seen.__cause__ or seen.__context__
    return out


def test_the_key_is_sent_but_not_shown_by_reprs() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(200, json=completion('{"score": 90, "rationale": "ok", "confidence": 1}'))

    async def main() -> tuple[str, str, str]:
        async with make_client(handler) as client:
            await client.complete([{"role": "user", "content": "x"}])
            return repr(client), repr(client.settings), repr(client.limiter)

    texts = asyncio.run(main())
    assert seen == [f"Bearer {KEY}"]
    assert leaks(*texts) == []
    assert "api_key=set" in texts[0]


def test_a_transport_error_carrying_the_authorization_header_does_not_leak_it() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"refused; sent headers {dict(request.headers)}", request=request)

    async def main() -> JudgeUnavailable:
        async with make_client(handler) as client:
            with pytest.raises(JudgeUnavailable) as info:
                await client.complete([{"role": "user", "content": "x"}])
            return info.value

    error = asyncio.run(main())
    assert "connection error (ConnectError" in error.reason
    assert error.__cause__ is None
    assert error.__context__ is None
    assert leaks(*exception_texts(error)) == []


def test_an_error_body_echoing_the_key_is_redacted() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": f"Incorrect API key provided: {KEY}"}})

    async def main() -> JudgeError:
        async with make_client(handler) as client:
            with pytest.raises(JudgeError) as info:
                await client.complete([{"role": "user", "content": "x"}])
            return info.value

    error = asyncio.run(main())
    assert "HTTP 401: Incorrect API key provided: [REDACTED]" in error.reason
    assert leaks(*exception_texts(error)) == []


def test_a_5xx_body_echoing_the_header_is_redacted_in_the_skipped_reason_and_logs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, text=f"upstream saw Authorization: {request.headers['authorization']}")

    async def main() -> Any:
        async with make_client(handler) as client:
            return await judge_dimension(client, DIM, CONTENT)

    with structlog.testing.capture_logs() as logs:
        score = asyncio.run(main())
    assert score.skipped
    assert "after 2 attempts: HTTP 502" in (score.skipped_reason or "")
    assert leaks(score, score.skipped_reason, *[json.dumps(e, default=str) for e in logs]) == []
    assert logs  # retries and the give-up were logged (without the key)
    out = capsys.readouterr()
    assert leaks(out.out, out.err) == []


@pytest.mark.parametrize(
    "answer",
    [
        {"score": 90, "rationale": f"the request had Bearer {KEY}", "confidence": 0.9},
        {"score": f"{KEY}", "rationale": "x", "confidence": 0.9},
    ],
)
def test_a_judge_echoing_the_key_is_redacted_in_results(answer: dict[str, Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=completion(json.dumps(answer)))

    async def main() -> Any:
        async with make_client(handler) as client:
            return await judge_dimension(client, DIM, CONTENT)

    score = asyncio.run(main())
    assert leaks(score, score.rationale, score.skipped_reason) == []


def test_credentials_in_the_base_url_are_not_shown_and_are_sent_as_basic_auth() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(500)

    settings = JudgeSettings(base_url="https://user:hunter2pass@judge.example/v1", model="m", max_attempts=1)
    client = JudgeClient(settings, transport=httpx.MockTransport(handler), env={}, sleep=_no_sleep)
    try:
        assert "hunter2pass" not in repr(settings)
        assert "hunter2pass" not in repr(client)
        with pytest.raises(JudgeUnavailable) as info:
            asyncio.run(client.complete([{"role": "user", "content": "x"}]))
        assert "hunter2pass" not in info.value.reason
    finally:
        asyncio.run(client.aclose())
    assert seen == ["Basic dXNlcjpodW50ZXIycGFzcw=="]  # base64 of user:hunter2pass, as httpx sends it


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key {KEY} here", "key [REDACTED] here"),
        ("Authorization: Bearer abc.def-123", "Authorization: [REDACTED]"),
        ("{'authorization': 'Bearer abc'}", "{'authorization': '[REDACTED]'}"),
        ("header bearer abc123", "header bearer [REDACTED]"),
        ('{"api_key": "zzz"}', '{"api_key": "[REDACTED]"}'),
        ("https://u:p@host/x", "https://[REDACTED]@host/x"),
        ("nothing secret", "nothing secret"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text, KEY) == expected

"""The judge client over httpx.MockTransport: what is retried, how long it waits, when it stops,
the adaptive concurrency limit and the response_format fallback. No server, no real sleeping."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from typing import Any

import httpx
import pytest

from proctor.judge import (
    AdaptiveLimit,
    JudgeClient,
    JudgeMalformed,
    JudgeRejected,
    JudgeSettings,
    JudgeUnavailable,
    retry_after,
)
from proctor.testing.judgeserver import completion

GOOD = json.dumps({"score": 80, "rationale": "fine", "confidence": 0.9})
MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "hello"}]

Step = httpx.Response | Callable[[httpx.Request], httpx.Response]


class Clock:
    """Wall clock and sleep that only move when the client sleeps."""

    def __init__(self) -> None:
        self.now = 1_750_000_000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


class Script:
    """A MockTransport answering with the given steps in order, recording requests and times."""

    def __init__(self, clock: Clock, *steps: Step, then: Step | None = None) -> None:
        self.clock = clock
        self.steps = list(steps)
        self.then = then
        self.requests: list[httpx.Request] = []
        self.times: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.times.append(self.clock())
        step = self.steps.pop(0) if self.steps else self.then
        if step is None:
            raise AssertionError(f"unexpected request #{len(self.requests)}")
        return step(request) if callable(step) else step

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def ok(text: str = GOOD) -> httpx.Response:
    return httpx.Response(200, json=completion(text))


def err(code: int, message: str = "scripted", headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(code, json={"error": {"message": message}}, headers=headers)


def raising(exc_type: type[httpx.TransportError]) -> Callable[[httpx.Request], httpx.Response]:
    def step(request: httpx.Request) -> httpx.Response:
        raise exc_type("scripted transport failure", request=request)

    return step


def settings(**overrides: Any) -> JudgeSettings:
    values: dict[str, Any] = {"base_url": "https://judge.example/v1", "model": "judge-1"}
    values.update(overrides)
    return JudgeSettings(**values)


def run(
    script: Script,
    body: Callable[[JudgeClient], Awaitable[Any]],
    *,
    env: dict[str, str] | None = None,
    **overrides: Any,
) -> Any:
    async def main() -> Any:
        async with JudgeClient(
            settings(**overrides),
            transport=httpx.MockTransport(script),
            env=env or {},
            sleep=script.clock.sleep,
            clock=script.clock,
            rng=random.Random(7),
        ) as client:
            return await body(client)

    return asyncio.run(main())


def complete(client: JudgeClient) -> Awaitable[str]:
    return client.complete(MESSAGES)


# --- what is retried ------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
def test_other_client_errors_are_rejected_at_once(code: int) -> None:
    script = Script(Clock(), err(code), then=ok())
    with pytest.raises(JudgeRejected) as info:
        run(script, complete)
    assert len(script.requests) == 1
    assert script.clock.sleeps == []
    assert info.value.status_code == code
    assert f"HTTP {code}" in info.value.reason


@pytest.mark.parametrize("code", [408, 409, 429, 500, 502, 503, 504])
def test_retryable_statuses_are_retried(code: int) -> None:
    script = Script(Clock(), err(code), ok())
    assert run(script, complete) == GOOD
    assert len(script.requests) == 2
    assert len(script.clock.sleeps) == 1


@pytest.mark.parametrize(
    "exc_type",
    [httpx.ConnectError, httpx.ConnectTimeout, httpx.ReadTimeout, httpx.ReadError, httpx.RemoteProtocolError],
)
def test_connection_errors_and_timeouts_are_retried(exc_type: type[httpx.TransportError]) -> None:
    script = Script(Clock(), raising(exc_type), ok())
    assert run(script, complete) == GOOD
    assert len(script.requests) == 2


def test_a_request_that_cannot_be_sent_is_not_retried() -> None:
    script = Script(Clock(), raising(httpx.UnsupportedProtocol), then=ok())
    with pytest.raises(JudgeUnavailable, match="UnsupportedProtocol"):
        run(script, complete)
    assert len(script.requests) == 1


def test_attempts_are_bounded_then_unavailable() -> None:
    script = Script(Clock(), then=err(503, "overloaded"))
    with pytest.raises(JudgeUnavailable) as info:
        run(script, complete)
    assert len(script.requests) == 4
    assert len(script.clock.sleeps) == 3
    assert info.value.attempts == 4
    assert info.value.status_code == 503
    assert info.value.reason == "judge unavailable after 4 attempts: HTTP 503: overloaded"


def test_the_number_of_attempts_is_configurable() -> None:
    script = Script(Clock(), then=raising(httpx.ReadTimeout))
    with pytest.raises(JudgeUnavailable, match=r"after 2 attempts: read timeout: no answer within 3s"):
        run(script, complete, max_attempts=2, read_timeout=3)
    assert len(script.requests) == 2


def test_timeouts_reach_the_transport() -> None:
    script = Script(Clock(), ok())
    run(script, complete, connect_timeout=2.5, read_timeout=17)
    timeout = script.requests[0].extensions["timeout"]
    assert timeout["connect"] == 2.5
    assert timeout["read"] == 17


# --- how long it waits ----------------------------------------------------------------------------


def test_backoff_is_exponential_jittered_and_capped() -> None:
    script = Script(Clock(), then=err(500))
    with pytest.raises(JudgeUnavailable):
        run(script, complete, max_attempts=6, backoff_initial=1.0, backoff_max=5.0)
    bases = [1.0, 2.0, 4.0, 5.0, 5.0]
    assert len(script.clock.sleeps) == len(bases)
    for slept, base in zip(script.clock.sleeps, bases, strict=True):
        assert base / 2 <= slept <= base
    assert len(set(script.clock.sleeps)) > 1  # jittered, not a fixed ladder


def test_retry_after_in_seconds_is_never_undercut() -> None:
    clock = Clock()
    script = Script(clock, err(429, headers={"Retry-After": "7"}), ok())
    assert run(script, complete, backoff_initial=0.1) == GOOD
    assert script.times[1] - script.times[0] >= 7.0
    assert clock.sleeps == [pytest.approx(7.0)]


def test_retry_after_as_an_http_date_is_never_undercut() -> None:
    clock = Clock()
    date = formatdate(clock.now + 20, usegmt=True)
    script = Script(clock, err(503, headers={"Retry-After": date}), ok())
    assert run(script, complete, backoff_initial=0.1) == GOOD
    assert script.times[1] - script.times[0] >= 20.0


def test_retry_after_ms_and_seconds_take_the_longer() -> None:
    clock = Clock()
    script = Script(clock, err(429, headers={"Retry-After": "1", "retry-after-ms": "2500"}), ok())
    run(script, complete, backoff_initial=0.1)
    assert script.times[1] - script.times[0] >= 2.5


def test_backoff_wins_when_longer_than_retry_after() -> None:
    clock = Clock()
    script = Script(clock, err(429, headers={"Retry-After": "0"}), ok())
    run(script, complete, backoff_initial=4.0)
    assert 2.0 <= clock.sleeps[0] <= 4.0


def test_a_retry_after_longer_than_we_wait_ends_the_call_instead_of_retrying_early() -> None:
    clock = Clock()
    script = Script(clock, err(429, headers={"Retry-After": "3600"}), then=ok())
    with pytest.raises(JudgeUnavailable) as info:
        run(script, complete, max_retry_after=120)
    assert len(script.requests) == 1
    assert clock.sleeps == []
    assert info.value.retry_after == 3600
    assert "asked to retry after 3600s, more than the 120s we wait" in info.value.reason


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "12"}, 12.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"Retry-After": "-3"}, None),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # in the past: no extra wait
        ({"retry-after-ms": "250"}, 0.25),
    ],
)
def test_retry_after_parsing(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after(headers, now=1_750_000_000.0) == expected


def test_retry_after_http_date_relative_to_now() -> None:
    now = 1_750_000_000.0
    assert retry_after({"Retry-After": formatdate(now + 90, usegmt=True)}, now=now) == pytest.approx(90.0)


# --- malformed envelopes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (httpx.Response(200, text="<html>gateway</html>"), "with a body that is not JSON"),
        (httpx.Response(200, json={"data": []}), "no choices[0].message"),
        (httpx.Response(200, json={"choices": []}), "no choices[0].message"),
        (
            httpx.Response(200, json={"choices": [{"message": {"content": None, "refusal": "no"}}]}),
            "no content (the model refused)",
        ),
        (httpx.Response(200, json={"choices": [{"message": {"content": 5}}]}), "content is not text"),
    ],
)
def test_a_2xx_that_is_not_a_chat_completion_is_malformed_and_not_retried(
    response: httpx.Response, reason: str
) -> None:
    script = Script(Clock(), response, then=ok())
    with pytest.raises(
        JudgeMalformed, match=reason.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
    ):
        run(script, complete)
    assert len(script.requests) == 1


def test_content_given_as_parts_is_joined() -> None:
    parts = {"choices": [{"message": {"content": [{"type": "text", "text": '{"score"'}, {"text": ": 1}"}]}}]}
    script = Script(Clock(), httpx.Response(200, json=parts))
    assert run(script, complete) == '{"score": 1}'


# --- the request ------------------------------------------------------------------------------------


def test_the_request_is_an_openai_chat_completion() -> None:
    script = Script(Clock(), ok())
    run(script, complete, temperature=0.2, max_tokens=300, env={"PROCTOR_JUDGE_API_KEY": "k-123"})
    request = script.requests[0]
    assert request.method == "POST"
    assert str(request.url) == "https://judge.example/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer k-123"
    body = script.bodies[0]
    assert body["model"] == "judge-1"
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 300
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == [
        "score",
        "rationale",
        "confidence",
    ]


def test_no_key_in_the_environment_means_no_authorization_header() -> None:
    script = Script(Clock(), ok())
    run(script, complete, env={})
    assert "authorization" not in script.requests[0].headers


def test_the_key_comes_from_the_variable_the_settings_name() -> None:
    script = Script(Clock(), ok())
    run(
        script,
        complete,
        api_key_env="MY_JUDGE_KEY",
        env={"MY_JUDGE_KEY": "other", "PROCTOR_JUDGE_API_KEY": "x"},
    )
    assert script.requests[0].headers["authorization"] == "Bearer other"


# --- response_format ---------------------------------------------------------------------------------


def test_response_format_refused_falls_back_once_and_is_remembered() -> None:
    refusal = err(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported")
    script = Script(Clock(), refusal, ok(), ok())

    async def twice(client: JudgeClient) -> tuple[str, str, bool, int]:
        first = await client.complete(MESSAGES)
        second = await client.complete(MESSAGES)
        return first, second, client.response_format_enabled, client.stats.response_format_fallbacks

    assert run(script, twice) == (GOOD, GOOD, False, 1)
    assert ["response_format" in b for b in script.bodies] == [True, False, False]


def test_a_400_about_something_else_is_not_a_fallback() -> None:
    script = Script(Clock(), err(400, "messages: too long"), then=ok())
    with pytest.raises(JudgeRejected, match="too long"):
        run(script, complete)
    assert len(script.requests) == 1


def test_forced_json_schema_does_not_fall_back() -> None:
    script = Script(Clock(), err(400, "response_format unsupported"), then=ok())
    with pytest.raises(JudgeRejected):
        run(script, complete, response_format="json_schema")
    assert len(script.requests) == 1


def test_response_format_off_never_sends_it() -> None:
    script = Script(Clock(), ok())
    run(script, complete, response_format="off")
    assert "response_format" not in script.bodies[0]


# --- the adaptive concurrency limit -------------------------------------------------------------------


def test_a_429_waits_its_retry_after_and_leaves_the_clients_limit_alone() -> None:
    script = Script(Clock(), err(429, headers={"Retry-After": "2"}), then=ok())

    async def body(client: JudgeClient) -> list[int]:
        seen = [client.limiter.limit]
        await client.complete(MESSAGES)  # 429, then success
        seen.append(client.limiter.limit)
        return seen

    assert run(script, body, concurrency=32) == [32, 32]
    assert script.times[1] - script.times[0] >= 2


async def _answer_round(limit: AdaptiveLimit, throttled: Callable[[int], bool], start: int) -> int:
    """Admit a whole round (limit requests at once), then answer them; returns the next index."""
    tickets = [await limit.acquire() for _ in range(limit.limit)]
    for i, ticket in enumerate(tickets, start=start):
        if throttled(i):
            limit.throttled(ticket)
        else:
            limit.succeeded(ticket)
        limit.release()
    return start + len(tickets)


def test_scattered_429s_never_lower_the_limit() -> None:
    """5 % of 10,000 answers are 429s, at random: the provider pacing the odd request."""
    rng = random.Random(5)
    draws = [rng.random() < 0.05 for _ in range(10_000)]
    limit = AdaptiveLimit(32)

    async def main() -> None:
        i = 0
        while i < len(draws) - 64:
            i = await _answer_round(limit, lambda n: draws[n], i)

    asyncio.run(main())
    assert sum(draws) > 450
    assert (limit.limit, limit.decreases, limit.lowest) == (32, 0, 32)


def test_a_burst_of_429s_halves_the_limit_at_most_once_and_it_recovers() -> None:
    """Every request of one round answered 429 (the provider shedding a moment's load): the limit
    halves once, not once per 429, and successes bring it back."""
    limit = AdaptiveLimit(32, recover_after=4)

    async def main() -> list[int]:
        i = await _answer_round(limit, lambda n: True, 0)  # 32 answers 429, one burst
        seen = [limit.limit]
        for _ in range(20):
            i = await _answer_round(limit, lambda n: False, i)
        seen.append(limit.limit)
        return seen

    assert asyncio.run(main()) == [16, 32]
    assert limit.decreases == 1
    assert limit.lowest == 16


def test_sustained_429s_halve_the_limit_once_per_window_down_to_the_minimum() -> None:
    """Every other answer a 429, round after round: each window of the current limit halves it."""
    limit = AdaptiveLimit(32, minimum=2)

    async def main() -> list[int]:
        seen = []
        i = 0
        for _ in range(12):
            i = await _answer_round(limit, lambda n: n % 2 == 0, i)
            seen.append(limit.limit)
        return seen

    seen = asyncio.run(main())
    assert seen[0] == 16  # the first round alone is 16 of a window of 64: the share is reached
    assert seen[-1] == 2
    assert seen == sorted(seen, reverse=True)
    assert limit.decreases == 4  # 32 -> 16 -> 8 -> 4 -> 2, each a window of its own


def test_429s_below_the_share_of_every_window_leave_the_limit() -> None:
    """12 429s in every window of 64 answers (under a fifth): not persistent, the limit stays."""
    limit = AdaptiveLimit(32)

    async def main() -> None:
        i = 0
        for _ in range(40):
            i = await _answer_round(limit, lambda n: n % 64 < 12, i)

    asyncio.run(main())
    assert (limit.limit, limit.decreases) == (32, 0)


def test_answers_from_before_a_halving_do_not_halve_it_again() -> None:
    limit = AdaptiveLimit(8, window=4)

    async def main() -> list[int]:
        tickets = [await limit.acquire() for _ in range(8)]
        for ticket in tickets:  # eight 429s admitted under the same limit: one halving
            limit.throttled(ticket)
            limit.release()
        seen = [limit.limit]
        for _ in range(3):  # each new window of 429s halves again, down to the minimum
            new = [await limit.acquire() for _ in range(limit.limit)]
            for ticket in new + new[:1] * (limit.window_size - len(new)):
                limit.throttled(ticket)
            for _ in new:
                limit.release()
            seen.append(limit.limit)
        return seen

    assert asyncio.run(main()) == [4, 2, 1, 1]
    assert limit.lowest == 1
    assert limit.decreases == 3


def test_limit_recovers_by_one_per_window_of_successes_up_to_the_maximum() -> None:
    limit = AdaptiveLimit(4, recover_after=3, window=1, throttle_share=0.1)

    async def main() -> list[int]:
        ticket = await limit.acquire()
        limit.throttled(ticket)
        limit.release()
        seen = [limit.limit]
        for _ in range(9):
            limit.succeeded(ticket)
            seen.append(limit.limit)
        return seen

    assert asyncio.run(main()) == [2, 2, 2, 3, 3, 3, 4, 4, 4, 4]


def test_limit_admits_at_most_limit_at_once_first_come_first_served() -> None:
    limit = AdaptiveLimit(2)
    order: list[int] = []
    peak = 0

    async def worker(i: int) -> None:
        nonlocal peak
        await limit.acquire()
        peak = max(peak, limit.in_flight)
        order.append(i)
        await asyncio.sleep(0.001)
        limit.release()

    async def main() -> None:
        await asyncio.gather(*(worker(i) for i in range(6)))

    asyncio.run(main())
    assert peak == 2
    assert order == list(range(6))
    assert limit.in_flight == 0


def test_a_cancelled_waiter_does_not_leak_a_slot() -> None:
    limit = AdaptiveLimit(1)

    async def main() -> int:
        await limit.acquire()
        waiter = asyncio.ensure_future(limit.acquire())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        limit.release()
        await asyncio.wait_for(limit.acquire(), 1)
        return limit.in_flight

    assert asyncio.run(main()) == 1


def test_limit_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="minimum"):
        AdaptiveLimit(0)
    with pytest.raises(ValueError, match="throttle_share"):
        AdaptiveLimit(4, throttle_share=0)


# --- settings ------------------------------------------------------------------------------------------


def test_settings_from_a_judge_spec_mapping() -> None:
    from proctor.api.profile import JudgeSpec

    s = JudgeSettings.from_spec(
        JudgeSpec.model_validate(
            {
                "endpoint": "http://llm:8000/v1",
                "model": "m",
                "temperature": 0.3,
                "timeoutSeconds": 20,
                "concurrency": 6,
                "consensusBand": 5,
                "maxRetries": 2,
            }
        ),
        connect_timeout=1.0,
    )
    assert (s.base_url, s.model, s.temperature, s.read_timeout, s.concurrency, s.consensus_band) == (
        "http://llm:8000/v1",
        "m",
        0.3,
        20.0,
        6,
        5,
    )
    assert s.max_attempts == 3
    assert s.connect_timeout == 1.0
    assert s.api_key_env == "PROCTOR_JUDGE_API_KEY"


def test_settings_from_the_pydantic_judge_spec() -> None:
    from proctor.api.profile import JudgeSpec

    spec = JudgeSpec.model_validate({"endpoint": "https://llm.example/v1", "model": "gpt", "maxRetries": 0})
    s = JudgeSettings.from_spec(spec)
    assert (s.base_url, s.model, s.max_attempts) == ("https://llm.example/v1", "gpt", 1)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"base_url": "ftp://x"}, "base_url"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"concurrency": 0}, "concurrency"),
        ({"read_timeout": 0}, "read_timeout"),
        ({"response_format": "xml"}, "response_format"),
        ({"min_confidence": 2}, "min_confidence"),
    ],
)
def test_settings_are_validated(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        settings(**overrides)

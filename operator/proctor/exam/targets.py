"""Where answers come from: recorded answers, or a live agent over HTTP.

A live agent speaks one of two protocols (``CandidateProtocol``):

- ``openai-chat``: POST an OpenAI chat-completions request (the case's chat messages, or its text as
  one user message, after a system message listing the case's context documents), read
  ``choices[0].message.content``.
- ``http-json``: POST ``requestTemplate`` with ``{{input}}`` (the case text as a JSON string),
  ``{{messages}}`` (the chat messages as a JSON array) and ``{{context}}`` (the context documents as
  a JSON array of ``{id, text}``) substituted; read the answer at ``responsePath`` (dotted; list
  indexes as numbers).

An answer that cannot be obtained raises :class:`AnswerUnavailable` with the reason: the case is
then unmeasured (never failed), and the reason is reported.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any, Final, Protocol

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential, wait_random

from proctor.api.caseset import Case

DEFAULT_TEMPLATE = '{"input": {{input}}}'

#: 0.5, 1, 2 ... 10 s between attempts, plus up to 1 s of jitter (wait_exponential_jitter's
#: ``initial`` is deprecated on tenacity 9 and warns on every answer; this reads alike on 8 and 9).
_BACKOFF: Final = wait_exponential(multiplier=0.5, max=10) + wait_random(0, 1)


class AnswerUnavailable(Exception):
    """The agent gave no usable answer; ``str()`` is the reason (never a credential)."""


class AnswerSource(Protocol):
    async def answer(self, case: Case) -> str: ...

    async def aclose(self) -> None: ...


class Recorded:
    """Recorded answers (case id -> text), graded offline."""

    def __init__(self, answers: Mapping[str, str]) -> None:
        self.answers = dict(answers)

    async def answer(self, case: Case) -> str:
        try:
            return self.answers[case.id]
        except KeyError:
            raise AnswerUnavailable("no recorded answer for this case") from None

    async def aclose(self) -> None:
        return None


def _messages(case: Case) -> list[dict[str, str]]:
    if isinstance(case.input, str):
        return [{"role": "user", "content": case.input}]
    return [{"role": m.role, "content": m.content} for m in case.input]


def _context_message(case: Case) -> list[dict[str, str]]:
    if not case.context:
        return []
    docs = "\n\n".join(f"[{d.id}]\n{d.text}" for d in case.context)
    return [{"role": "system", "content": f"Context documents (cite them by id):\n\n{docs}"}]


def render_template(template: str, case: Case) -> Any:
    """Substitute the case into an http-json request template and parse it as JSON."""
    text = case.input if isinstance(case.input, str) else "\n".join(m.content for m in case.input)
    body = (
        template.replace("{{input}}", json.dumps(text))
        .replace("{{messages}}", json.dumps(_messages(case)))
        .replace("{{context}}", json.dumps([{"id": d.id, "text": d.text} for d in case.context]))
    )
    try:
        return json.loads(body)
    except ValueError as e:
        raise AnswerUnavailable(f"requestTemplate is not valid JSON once filled in: {e}") from None


def extract(data: Any, path: str) -> str:
    """The answer at a dotted ``path`` (``data.answer``, ``choices.0.text``)."""
    cur = data
    for part in path.split(".") if path else []:
        if isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            raise AnswerUnavailable(f"the agent's response has nothing at {path!r} (stopped at {part!r})")
    if isinstance(cur, str):
        return cur
    if isinstance(cur, int | float) and not isinstance(cur, bool):
        return str(cur)
    raise AnswerUnavailable(f"the agent's response at {path!r} is {type(cur).__name__}, not text")


class _Retryable(Exception):
    pass


class HttpAgent:
    """A live agent (an endpoint, or the candidate sidecar on localhost)."""

    def __init__(
        self,
        url: str,
        *,
        protocol: str = "openai-chat",
        model: str | None = None,
        request_template: str | None = None,
        response_path: str | None = None,
        timeout: float = 60.0,
        api_key: str | None = None,
        attempts: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url
        self.protocol = protocol
        self.model = model
        self.template = request_template or DEFAULT_TEMPLATE
        self.response_path = response_path or (
            "choices.0.message.content" if protocol == "openai-chat" else ""
        )
        self.attempts = attempts
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)), headers=headers, transport=transport
        )

    def _body(self, case: Case) -> Any:
        if self.protocol == "openai-chat":
            body: dict[str, Any] = {"messages": _context_message(case) + _messages(case)}
            if self.model:
                body["model"] = self.model
            return body
        return render_template(self.template, case)

    async def _once(self, body: Any) -> str:
        try:
            r = await self.client.post(self.url, json=body)
        except httpx.TimeoutException:
            raise _Retryable("the agent did not answer in time") from None
        except httpx.TransportError as e:
            raise _Retryable(f"cannot reach the agent: {type(e).__name__}") from None
        if r.status_code in (408, 429) or r.status_code >= 500:
            raise _Retryable(f"the agent answered HTTP {r.status_code}")
        if r.status_code >= 400:
            raise AnswerUnavailable(f"the agent answered HTTP {r.status_code}: {r.text[:200]}")
        try:
            data = r.json()
        except ValueError:
            raise AnswerUnavailable("the agent's response is not JSON") from None
        return extract(data, self.response_path)

    async def answer(self, case: Case) -> str:
        body = self._body(case)
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self.attempts),
                wait=_BACKOFF,
                retry=retry_if_exception(lambda e: isinstance(e, _Retryable)),
                reraise=True,
            ):
                with attempt:
                    return await self._once(body)
        except _Retryable as e:
            raise AnswerUnavailable(f"{e} (after {self.attempts} attempts)") from None
        raise AnswerUnavailable("no attempt was made")  # pragma: no cover - tenacity always attempts

    async def wait_ready(self, port: int, within: float, host: str = "127.0.0.1") -> None:
        """Wait until something listens on ``host:port`` (the candidate sidecar starting)."""
        deadline = time.monotonic() + within
        while True:
            try:
                _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 2)
                writer.close()
                await writer.wait_closed()
                return
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise AnswerUnavailable(
                        f"the candidate never listened on {host}:{port} within {within:.0f}s"
                    ) from None
                await asyncio.sleep(0.5)

    async def aclose(self) -> None:
        await self.client.aclose()

"""The judge client: one OpenAI-compatible chat endpoint, asked carefully.

:class:`JudgeClient` posts to ``{base_url}/chat/completions`` with an :class:`httpx.AsyncClient`
whose transport can be injected (``httpx.MockTransport`` in unit tests, a real local server in
integration tests). What it does about failure:

- It retries only what can get better: connection errors and timeouts, HTTP 408, 409, 429 and
  5xx. Any other 4xx is :class:`~proctor.judge.errors.JudgeRejected` at once.
- Backoff is exponential with jitter, and never shorter than the provider's ``Retry-After``
  (seconds or an HTTP date; ``retry-after-ms`` too), honoured per request: the request that was
  told to wait waits, holding no slot, and the others go on. A Retry-After longer than
  ``max_retry_after`` ends the call instead of retrying early.
- Attempts are bounded (default 4), then :class:`~proctor.judge.errors.JudgeUnavailable`.
- An adaptive concurrency limit (:class:`~proctor.judge.limit.AdaptiveLimit`) halves only when
  429s persist across a window (not on scattered ones, and once per burst), down to 1, and creeps
  back up by one after every ``recover_after`` successes.
- With ``response_format="auto"`` it sends a JSON schema as ``response_format``; if the endpoint
  answers 400 naming ``response_format``, it asks once more without and remembers.

Connections are kept alive, one per request in flight, by aiohttp's pool behind httpx's transport
seam (:mod:`proctor.judge.transport`), and everything that is the same for every request (URL,
headers, timeouts, TLS context, the proxy) is built once: the client's CPU per request is what the
benchmark ``bench/judge_throughput.py`` prints.

The API key is read from the environment variable named by ``JudgeSettings.api_key_env``
(default ``PROCTOR_JUDGE_API_KEY``, set from a Secret in the judge Job). It is sent as a bearer
token and nowhere else: every message Proctor builds from a response or an httpx error is
redacted, httpx exceptions are never chained, and ``repr()`` shows only whether a key is set.

Judging a dimension with consensus is :mod:`proctor.judge.consensus`; :class:`JudgeStats` counts
the client's calls, so the cost of consensus can be reported.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any, Final, Literal

import httpx
import structlog

from proctor import __version__
from proctor.api.profile import JUDGE_API_KEY_ENV, JudgeSpec
from proctor.judge.errors import JudgeError, JudgeMalformed, JudgeRejected, JudgeUnavailable
from proctor.judge.limit import AdaptiveLimit
from proctor.judge.prompts import RESPONSE_FORMAT, JudgeInput, Judgment, build_prompt, parse_judgment
from proctor.judge.rubrics import DimensionRubric
from proctor.judge.transport import AiohttpTransport
from proctor.protocol import DEFAULT_BAND, DEFAULT_MIN_CONFIDENCE

#: The environment variable holding the judge's API key unless the settings name another (the
#: judge Job sets it from the profile's Secret).
DEFAULT_API_KEY_ENV: Final = JUDGE_API_KEY_ENV
#: What replaces a secret in any text Proctor shows.
REDACTED: Final = "[REDACTED]"
#: Statuses worth another attempt besides 5xx.
RETRY_STATUSES: Final = frozenset({408, 409, 429})

ResponseFormatMode = Literal["auto", "json_schema", "off"]

log = structlog.get_logger("proctor.judge")


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """How to reach the judge and how patiently. Holds no secret: only the variable's name."""

    base_url: str
    model: str
    api_key_env: str = DEFAULT_API_KEY_ENV
    temperature: float = 0.0
    max_tokens: int | None = None
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    max_attempts: int = 4
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    max_retry_after: float = 120.0
    concurrency: int = 16
    recover_after: int = 10
    response_format: ResponseFormatMode = "auto"
    consensus_band: float = DEFAULT_BAND
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    rationale_limit: int = 500

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^\s]+$", self.base_url):
            raise ValueError(f"base_url must be an http(s) URL, got {_strip_userinfo(self.base_url)!r}")
        if not self.model:
            raise ValueError("model must be set")
        positive = ("connect_timeout", "read_timeout", "backoff_initial", "backoff_max")
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0")
        for name in ("max_attempts", "concurrency", "recover_after", "rationale_limit"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.max_retry_after < 0:
            raise ValueError("max_retry_after must be >= 0")
        if self.response_format not in ("auto", "json_schema", "off"):
            raise ValueError("response_format must be auto, json_schema or off")
        if not 0 <= self.min_confidence <= 1:
            raise ValueError("min_confidence must be within 0-1")
        if self.consensus_band < 0:
            raise ValueError("consensus_band must be >= 0")

    def __repr__(self) -> str:
        return (
            f"JudgeSettings(base_url={_strip_userinfo(self.base_url)!r}, model={self.model!r}, "
            f"api_key_env={self.api_key_env!r}, temperature={self.temperature}, "
            f"max_attempts={self.max_attempts}, concurrency={self.concurrency})"
        )

    @classmethod
    def from_spec(cls, spec: JudgeSpec, **overrides: Any) -> JudgeSettings:
        """Settings from an EvalProfile's parsed ``judge`` section: endpoint, model, temperature,
        timeoutSeconds, concurrency, consensusBand, maxRetries (attempts = retries + 1).
        ``overrides`` win."""
        values: dict[str, Any] = {
            "base_url": spec.endpoint,
            "model": spec.model,
            "temperature": spec.temperature,
            "read_timeout": float(spec.timeout_seconds),
            "concurrency": spec.concurrency,
            "consensus_band": spec.consensus_band,
            "max_attempts": spec.max_retries + 1,
        }
        values.update(overrides)
        return cls(**values)

    def parameters(self) -> dict[str, Any]:
        """The sampling parameters that shape a judgment (part of provenance)."""
        return {
            "temperature": self.temperature,
            "maxTokens": self.max_tokens,
            "responseFormat": self.response_format,
        }


@dataclass(slots=True)
class JudgeStats:
    """Counters of one client's work (a benchmark reports the consensus cost from these)."""

    requests: int = 0
    attempts: int = 0
    retries: int = 0
    throttled: int = 0
    response_format_fallbacks: int = 0
    judgments: int = 0
    consensus_rounds: int = 0
    consensus_calls: int = 0
    skipped: int = 0

    @property
    def consensus_multiplier(self) -> float:
        """Judge calls per judged dimension (1.0 means consensus never ran)."""
        if not self.judgments:
            return 1.0
        return (self.judgments + self.consensus_calls) / self.judgments


class _Retry(Exception):
    """One failed attempt that another attempt may fix (internal; never leaves the client)."""

    def __init__(
        self, reason: str, *, status_code: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status_code = status_code
        self.retry_after = retry_after


class _Secret:
    """A string that does not print itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return REDACTED

    __str__ = __repr__


Sleep = Callable[[float], Awaitable[None]]


class JudgeClient:
    """An async client of one OpenAI-compatible judge endpoint. Close it (``async with``).

    ``transport`` replaces the network (``httpx.MockTransport``); ``env`` replaces
    ``os.environ`` when looking up the API key and the proxy; ``sleep`` and ``clock`` (wall-clock seconds, for
    HTTP-date Retry-After) and ``rng`` (backoff jitter) make retries testable without waiting.
    """

    def __init__(
        self,
        settings: JudgeSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        env: Mapping[str, str] | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        key = (os.environ if env is None else env).get(settings.api_key_env) or None
        self._key = _Secret(key) if key else None
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        self._sleep: Sleep = sleep or asyncio.sleep
        self._clock = clock or time.time
        self._rng = rng or random.Random()
        self._response_format_ok = settings.response_format != "off"
        self.limiter = AdaptiveLimit(settings.concurrency, recover_after=settings.recover_after)
        self.stats = JudgeStats()
        self._request_url = httpx.URL(self._url)
        self._request_headers = self._headers()
        self._request_extensions = {
            "timeout": httpx.Timeout(
                settings.read_timeout, connect=settings.connect_timeout, pool=None
            ).as_dict()
        }
        self._connections = _Connections(transport, self._request_url, env=env)

    def __repr__(self) -> str:
        return (
            f"JudgeClient(url={_strip_userinfo(self._url)!r}, model={self.settings.model!r}, "
            f"api_key={'set' if self._key else 'unset'}, limit={self.limiter.limit})"
        )

    async def __aenter__(self) -> JudgeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._connections.aclose()

    @property
    def has_api_key(self) -> bool:
        return self._key is not None

    @property
    def response_format_enabled(self) -> bool:
        """Whether the next request carries ``response_format`` (False after a fallback)."""
        return self._response_format_ok

    def redact(self, text: str) -> str:
        """``text`` with this client's API key, bearer tokens and URL credentials removed."""
        return redact(text, self._key.reveal() if self._key else None)

    # --- one chat completion ------------------------------------------------------------------

    async def complete(self, messages: Sequence[Mapping[str, str]]) -> str:
        """The assistant's text for ``messages``. Raises a :class:`JudgeError`."""
        payload: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.settings.temperature,
        }
        if self.settings.max_tokens is not None:
            payload["max_tokens"] = self.settings.max_tokens
        sent_format = self._response_format_ok
        if sent_format:
            payload["response_format"] = RESPONSE_FORMAT
        self.stats.requests += 1
        try:
            body = await self._send(_encode(payload))
        except JudgeRejected as e:
            if not (sent_format and e.about_response_format and self.settings.response_format == "auto"):
                raise
            self._response_format_ok = False
            self.stats.response_format_fallbacks += 1
            log.info(
                "judge endpoint refused response_format; asking without it from now on", status=e.status_code
            )
            del payload["response_format"]
            body = await self._send(_encode(payload))
        return _content(body)

    async def judge(
        self, dimension: DimensionRubric | tuple[str, str, float], content: JudgeInput
    ) -> Judgment:
        """One judgment of one dimension (a fresh prompt and boundary). Raises a :class:`JudgeError`."""
        name, rubric = dimension[0], dimension[1]
        prompt = build_prompt(name, rubric, content)
        text = await self.complete(prompt.messages)
        reason = ""
        try:
            judgment = parse_judgment(text)
        except JudgeMalformed as e:
            reason = e.reason
        else:
            return replace(judgment, rationale=self.redact(judgment.rationale))
        raise JudgeMalformed(self.redact(reason))  # outside the handler: the original is not chained

    async def _send(self, content: bytes) -> Any:
        """The parsed body of the first good answer, retrying what another attempt may fix."""
        attempts = self.settings.max_attempts
        last: _Retry | None = None
        for number in range(1, attempts + 1):
            try:
                return await self._attempt(content, number)
            except _Retry as e:
                last = e
            if number < attempts:
                wait = self._wait(number, last)
                self.stats.retries += 1
                log.info(
                    "judge attempt failed; retrying",
                    attempt=number,
                    reason=last.reason,
                    wait_seconds=round(wait, 3),
                )
                await self._sleep(wait)
        assert last is not None  # max_attempts >= 1, and every attempt that did not return failed
        log.warning("judge unavailable", attempts=attempts, status=last.status_code, reason=last.reason)
        raise JudgeUnavailable(
            f"judge unavailable after {attempts} attempt{'' if attempts == 1 else 's'}: {last.reason}",
            attempts=attempts,
            status_code=last.status_code,
            retry_after=last.retry_after,
        )

    async def _attempt(self, content: bytes, number: int) -> Any:
        ticket = await self.limiter.acquire()
        self.stats.attempts += 1
        failure: JudgeError | _Retry | None = None
        response: httpx.Response | None = None
        try:
            request = httpx.Request(
                "POST",
                self._request_url,
                headers=self._request_headers,
                content=content,
                extensions=self._request_extensions,
            )
            response = await self._connections.send(request)
        except httpx.TimeoutException as e:
            failure = _Retry(self._timeout_reason(e))
        except (httpx.NetworkError, httpx.RemoteProtocolError) as e:
            failure = _Retry(f"connection error ({type(e).__name__}: {self.redact(str(e)) or 'no detail'})")
        except httpx.HTTPError as e:
            failure = JudgeUnavailable(
                f"judge request failed ({type(e).__name__}: {self.redact(str(e)) or 'no detail'})",
                attempts=number,
            )
        finally:
            self.limiter.release()
        if failure is not None:  # raised here, outside the handler: no httpx exception in __context__
            raise failure
        assert response is not None
        return self._interpret(response, ticket, number)

    def _interpret(self, response: httpx.Response, ticket: int, number: int) -> Any:
        status = response.status_code
        if 200 <= status < 300:
            self.limiter.succeeded(ticket)
            try:
                return json.loads(response.content)
            except ValueError:
                pass  # raised below, outside the handler: the decode error holds the whole body
            raise JudgeMalformed(f"judge endpoint answered HTTP {status} with a body that is not JSON")
        body = response.text
        detail = self._detail(body)
        if status == 429:
            self.stats.throttled += 1
            if self.limiter.throttled(ticket):
                log.warning("judge throttled: concurrency limit halved", limit=self.limiter.limit)
        if status in RETRY_STATUSES or 500 <= status <= 599:
            wait = retry_after(response.headers, now=self._clock())
            if wait is not None and wait > self.settings.max_retry_after:
                raise JudgeUnavailable(
                    f"judge endpoint answered HTTP {status} and asked to retry after {wait:g}s, "
                    f"more than the {self.settings.max_retry_after:g}s we wait{detail}",
                    attempts=number,
                    status_code=status,
                    retry_after=wait,
                )
            raise _Retry(f"HTTP {status}{detail}", status_code=status, retry_after=wait)
        lowered = body.lower()
        raise JudgeRejected(
            f"judge endpoint rejected the request: HTTP {status}{detail}",
            status_code=status,
            about_response_format=status in (400, 422)
            and ("response_format" in lowered or "json_schema" in lowered),
        )

    def _headers(self) -> httpx.Headers:
        """The headers of every request, built once (httpx.Headers masks Authorization in its repr).
        Credentials in the base URL become Basic auth, as httpx's own clients make them."""
        headers = httpx.Headers(
            {
                "Accept": "application/json",
                "Content-Type": "application/json",
                "User-Agent": f"proctor-judge/{__version__}",
            }
        )
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key.reveal()}"
        url = httpx.URL(self._url)
        if url.username or url.password:
            pair = f"{url.username}:{url.password}".encode()
            headers["Authorization"] = f"Basic {base64.b64encode(pair).decode()}"
        return headers

    def _timeout_reason(self, e: httpx.TimeoutException) -> str:
        if isinstance(e, httpx.ConnectTimeout):
            return f"connect timeout after {self.settings.connect_timeout:g}s"
        if isinstance(e, httpx.ReadTimeout):
            return f"read timeout: no answer within {self.settings.read_timeout:g}s"
        return f"timeout ({type(e).__name__})"

    def _detail(self, body: str) -> str:
        message: Any = None
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            err = data.get("error")
            message = err.get("message") if isinstance(err, dict) else err if isinstance(err, str) else None
        text = message if isinstance(message, str) else body
        text = " ".join(self.redact(text).split())
        if not text:
            return ""
        return f": {text[:197] + '...' if len(text) > 200 else text}"

    def _wait(self, number: int, failure: _Retry) -> float:
        """Seconds before the attempt after attempt ``number``: jittered exponential backoff,
        never shorter than what the provider asked for."""
        base = min(self.settings.backoff_max, self.settings.backoff_initial * 2 ** (number - 1))
        delay = self._rng.uniform(base / 2, base)
        if failure.retry_after is not None:
            delay = max(delay, failure.retry_after)
        return delay


class _Connections:
    """Where the judge's requests go: an injected ``transport`` (tests) serves every request
    itself; otherwise one :class:`~proctor.judge.transport.AiohttpTransport`, made on first use,
    keeps the connections alive (one per request in flight: the client's adaptive limit bounds
    them). The proxy (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY`` unless ``NO_PROXY`` names the
    host, as httpx reads them) is settled once.
    """

    def __init__(
        self, transport: httpx.AsyncBaseTransport | None, url: httpx.URL, *, env: Mapping[str, str] | None
    ) -> None:
        self._shared = transport
        self._own: AiohttpTransport | None = None
        self._proxy = None if transport is not None else _env_proxy(url, os.environ if env is None else env)

    async def send(self, request: httpx.Request) -> httpx.Response:
        """The answer to ``request``, its body read and the response closed."""
        transport = self._shared
        if transport is None:
            if self._own is None:
                self._own = AiohttpTransport(proxy=self._proxy)
            transport = self._own
        response = await transport.handle_async_request(request)
        try:
            await response.aread()
        finally:
            await response.aclose()
        return response

    async def aclose(self) -> None:
        """Close the connections this client opened (never an injected transport: others may share it)."""
        own, self._own = self._own, None
        if own is not None:
            await own.aclose()


def _env_proxy(url: httpx.URL, env: Mapping[str, str]) -> str | None:
    """The proxy ``env`` names for ``url``: ``<scheme>_proxy`` or ``all_proxy`` (either case; the
    lower-case one wins, as curl and httpx have it), none when ``no_proxy`` covers the host."""
    found: dict[str, str] = {}
    for key in sorted(env, key=lambda k: k.islower()):  # the lower-case spelling is applied last
        name = key.lower()
        if name.endswith("_proxy") and env[key]:
            found[name[: -len("_proxy")]] = env[key]
    proxy = found.get(url.scheme) or found.get("all")
    if proxy is None or _bypassed(url.host, found.get("no", "")):
        return None
    return proxy


def _bypassed(host: str, no_proxy: str) -> bool:
    """Whether ``no_proxy`` (``*``, or hosts and domains: ``corp.example``, ``.corp.example``,
    ``*.corp.example``, with or without a port) covers ``host``."""
    host = host.lower().rstrip(".")
    for entry in no_proxy.split(","):
        entry = entry.strip().lower()
        if entry == "*":
            return True
        if entry.startswith("["):  # [::1]:8080
            entry = entry[1:].split("]", 1)[0]
        elif entry.count(":") == 1:  # host:port
            entry = entry.split(":", 1)[0]
        domain = entry.lstrip("*").lstrip(".")
        if domain and (host == domain or host.endswith("." + domain)):
            return True
    return False


# --- helpers --------------------------------------------------------------------------------------

_BEARER = re.compile(r"(?i)\b(bearer|basic|token)(\s+)[^\s'\",;]+")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")
_KEY_FIELD = re.compile(
    r"(?i)((?:api[_-]?key|authorization|x-api-key)['\"]?\s*[:=]\s*['\"]?)"
    r"(?:(?:bearer|basic|token)\s+)?[^\s'\",;}]+"
)


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with each of ``secrets``, bearer/basic tokens, ``api_key=...`` values and URL
    credentials replaced by ``[REDACTED]``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _KEY_FIELD.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)


def retry_after(headers: Mapping[str, str] | httpx.Headers, *, now: float) -> float | None:
    """Seconds the provider asked us to wait (``Retry-After`` in seconds or as an HTTP date,
    ``retry-after-ms``; the longest when both), or None. ``now`` is wall-clock epoch seconds."""
    lowered = {k.lower(): v for k, v in headers.items()}
    waits: list[float] = []
    raw = lowered.get("retry-after")
    if raw is not None:
        value = raw.strip()
        try:
            seconds = float(value)
        except ValueError:
            try:
                when = parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError):
                when = None
            if when is not None:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=UTC)
                waits.append(max(0.0, when.timestamp() - now))
        else:
            if math.isfinite(seconds) and seconds >= 0:
                waits.append(seconds)
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            ms = float(raw_ms.strip())
        except ValueError:
            ms = math.nan
        if math.isfinite(ms) and ms >= 0:
            waits.append(ms / 1000)
    return max(waits) if waits else None


def _encode(payload: Mapping[str, Any]) -> bytes:
    """A request body, encoded once for all its attempts (compact, like httpx's ``json=``)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def _content(body: Any) -> str:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise JudgeMalformed(
            "judge endpoint answered with no choices[0].message (not a chat completion)"
        ) from None
    if not isinstance(message, dict):
        raise JudgeMalformed("judge endpoint answered with a message that is not an object")
    content = message.get("content")
    if isinstance(content, list):
        parts = [str(p["text"]) for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        content = "".join(parts) if parts else None
    if content is None:
        refused = isinstance(message.get("refusal"), str)
        raise JudgeMalformed("judge answer had no content" + (" (the model refused)" if refused else ""))
    if not isinstance(content, str):
        raise JudgeMalformed(f"judge answer content is not text (got {type(content).__name__})")
    return content


def _strip_userinfo(url: str) -> str:
    return _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", url)


__all__ = [
    "DEFAULT_API_KEY_ENV",
    "JudgeClient",
    "JudgeSettings",
    "JudgeStats",
    "redact",
    "retry_after",
]

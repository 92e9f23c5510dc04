"""A scripted, local, OpenAI-compatible judge for tests and benchmarks.

A real HTTP server (stdlib ``http.server``, a thread per connection) on ``127.0.0.1`` and a free
port, speaking HTTP/1.1 with keep-alive as providers do (``keep_alive=False``: HTTP/1.0, a
connection per request); every answer leaves in one write with ``TCP_NODELAY``, so that Nagle's
algorithm against the client's delayed ACK does not add 40 ms to it. It answers
``POST /v1/chat/completions`` the way a script says and records every request::

    from proctor.testing import judgeserver as ts

    with ts.JudgeServer(latency=0.1) as server:          # started; stopped on exit
        server.enqueue(ts.status(429, retry_after=1), ts.judgment(80))  # the next two requests
        server.add_rule(lambda r: "safety" in r.system_text, ts.judgment(10))  # while the queue is empty
        server.default = ts.marker_score()                # everything else
        ... JudgeSettings(base_url=server.base_url, model="judge") ...
        server.requests[0].user_text                      # what the judge was shown

Which behaviour answers a request: the next queued one (:meth:`JudgeServer.enqueue`, first in first
out), else the first matching rule (:meth:`JudgeServer.add_rule`, optionally for a number of
``times``), else :attr:`JudgeServer.default` (:func:`marker_score`: the score written as
``[[score:NN]]`` in the evaluated content, 75 without one). Two server-wide switches come first:
``api_key`` (a request without that bearer token gets 401) and ``response_format_supported=False``
(a request carrying ``response_format`` gets a 400 naming it, like endpoints without structured
output). ``latency`` delays every answer. :meth:`JudgeServer.gather` holds a numbered run of
requests until all of them have arrived, so that "eight at once" is an event a test waits on, not a
race between ``latency`` and a busy machine.

Behaviours: :func:`judgment` (a valid answer; any score, so out-of-range ones too), :func:`fields`
(a JSON object with exactly the fields given: missing or ill-typed fields), :func:`content` (any
assistant text: malformed JSON, code fences, prose), :func:`status` (an error status with optional
Retry-After and body), :func:`raw` (any status, headers and body bytes), :func:`hang` (answer
only after a long sleep: longer than the client's timeout), :func:`marker_score` and
:func:`respond_with` (a function of the request picks the behaviour).

Every request is recorded (:class:`RecordedRequest`: headers without ``Authorization``, the JSON
body, arrival time, how many requests were in flight), so tests can check what reached the judge.
A pytest fixture is three lines::

    @pytest.fixture
    def judge_server() -> Iterator[JudgeServer]:
        with JudgeServer() as server:
            yield server
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final, Protocol

#: Where the default behaviour finds the score to give: ``[[score:85]]`` in the prompt.
SCORE_MARKER: Final = re.compile(r"\[\[score:(-?\d+(?:\.\d+)?)\]\]")
#: And the confidence: ``[[confidence:0.3]]``.
CONFIDENCE_MARKER: Final = re.compile(r"\[\[confidence:(-?\d+(?:\.\d+)?)\]\]")

_SECRET_HEADERS: Final = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key"})


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it (the ``Authorization`` header is not kept)."""

    index: int
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    raw: str
    received_at: float
    in_flight: int
    authorized: bool | None
    #: the client's port: requests with the same one came over one kept-alive connection
    client_port: int = 0

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict) and isinstance(self.body.get("messages"), list):
            return [m for m in self.body["messages"] if isinstance(m, dict)]
        return []

    def _text(self, role: str) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages if m.get("role") == role)

    @property
    def system_text(self) -> str:
        return self._text("system")

    @property
    def user_text(self) -> str:
        return self._text("user")

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def response_format(self) -> Any:
        return self.body.get("response_format") if isinstance(self.body, dict) else None


@dataclass(frozen=True)
class Answer:
    """What the server sends back: status, headers, body, after ``delay`` seconds."""

    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    then: Behaviour | None = None


class Behaviour(Protocol):
    def answer(self, request: RecordedRequest) -> Answer: ...


def completion(text: str, *, model: str = "proctor-test-judge") -> dict[str, Any]:
    """An OpenAI chat completion whose assistant message is ``text``."""
    return {
        "id": "chatcmpl-proctor-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _json(obj: Any) -> bytes:
    return json.dumps(obj).encode()


@dataclass(frozen=True)
class _Content:
    text: str

    def answer(self, request: RecordedRequest) -> Answer:
        model = request.model or "proctor-test-judge"
        return Answer(200, _json(completion(self.text, model=model)), {"Content-Type": "application/json"})


def content(text: str) -> Behaviour:
    """A 200 chat completion whose assistant text is ``text`` (malformed JSON, fences, prose...)."""
    return _Content(text)


def fields(**values: Any) -> Behaviour:
    """A 200 chat completion whose text is a JSON object of exactly ``values``."""
    return _Content(json.dumps(values))


def judgment(score: Any, rationale: str = "scripted judgment", confidence: Any = 0.9) -> Behaviour:
    """A well-formed judgment (``score`` is not checked: 140 makes an out-of-range answer)."""
    return fields(score=score, rationale=rationale, confidence=confidence)


@dataclass(frozen=True)
class _Raw:
    code: int
    body: bytes
    headers: Mapping[str, str]

    def answer(self, request: RecordedRequest) -> Answer:
        return Answer(self.code, self.body, self.headers)


def raw(code: int, body: bytes | str = b"", headers: Mapping[str, str] | None = None) -> Behaviour:
    """Exactly this status, body and headers."""
    return _Raw(code, body.encode() if isinstance(body, str) else body, dict(headers or {}))


def status(
    code: int,
    *,
    retry_after: float | str | None = None,
    message: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Behaviour:
    """An error status with an OpenAI-style error body and an optional ``Retry-After`` header
    (seconds, or an HTTP date given as a string)."""
    hdrs = {"Content-Type": "application/json", **(headers or {})}
    if retry_after is not None:
        hdrs["Retry-After"] = retry_after if isinstance(retry_after, str) else f"{retry_after:g}"
    text = message or f"scripted HTTP {code}"
    return _Raw(code, _json({"error": {"message": text, "type": "scripted", "code": code}}), hdrs)


@dataclass(frozen=True)
class _Hang:
    seconds: float
    then: Behaviour

    def answer(self, request: RecordedRequest) -> Answer:
        return Answer(0, delay=self.seconds, then=self.then)


def hang(seconds: float = 30.0, then: Behaviour | None = None) -> Behaviour:
    """Say nothing for ``seconds`` (then answer ``then``, default a judgment of 50), to make the
    client time out. Stopping the server ends a hang at once."""
    return _Hang(seconds, then or judgment(50))


@dataclass(frozen=True)
class _Marker:
    default_score: float
    default_confidence: float

    def answer(self, request: RecordedRequest) -> Answer:
        text = request.user_text
        score_match = SCORE_MARKER.search(text)
        conf_match = CONFIDENCE_MARKER.search(text)
        score = float(score_match.group(1)) if score_match else self.default_score
        conf = float(conf_match.group(1)) if conf_match else self.default_confidence
        return judgment(score, f"score taken from the content marker ({score:g})", conf).answer(request)


def marker_score(default: float = 75.0, confidence: float = 0.9) -> Behaviour:
    """A judgment whose score is the ``[[score:NN]]`` marker in the evaluated content (and
    confidence ``[[confidence:C]]``), ``default`` / ``confidence`` without one."""
    return _Marker(default, confidence)


@dataclass(frozen=True)
class _Callback:
    fn: Callable[[RecordedRequest], Behaviour]

    def answer(self, request: RecordedRequest) -> Answer:
        return self.fn(request).answer(request)


def respond_with(fn: Callable[[RecordedRequest], Behaviour]) -> Behaviour:
    """A behaviour chosen per request by ``fn``."""
    return _Callback(fn)


@dataclass
class _Rule:
    predicate: Callable[[RecordedRequest], bool]
    behaviour: Behaviour
    times: int | None


class JudgeServer:
    """The scripted judge. ``with JudgeServer() as s:`` starts and stops it; ``s.base_url`` is what
    a client needs (``http://127.0.0.1:PORT/v1``). Thread-safe."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        api_key: str | None = None,
        response_format_supported: bool = True,
        default: Behaviour | None = None,
        host: str = "127.0.0.1",
        keep_alive: bool = True,
    ) -> None:
        self.latency = latency
        self.keep_alive = keep_alive
        self.api_key = api_key
        self.response_format_supported = response_format_supported
        self.default: Behaviour = default or marker_score()
        self._host = host
        self._lock = threading.Lock()
        self._queue: deque[Behaviour] = deque()
        self._rules: list[_Rule] = []
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._arrived = threading.Condition(self._lock)
        self._gathers: list[tuple[int, int, float]] = []
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------------

    def start(self) -> JudgeServer:
        if self._httpd is not None:
            raise RuntimeError("the judge server is already running")
        self._stopping.clear()
        httpd = _Server((self._host, 0), _Handler)
        httpd.judge = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name="proctor-judge-testserver", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging answers end at once; waits for every handler thread."""
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        self._stopping.set()
        with self._arrived:
            self._arrived.notify_all()
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        if thread is not None:
            thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the judge server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (``.../v1``) to give a client."""
        return f"{self.url}/v1"

    # --- scripting ------------------------------------------------------------------------------

    def enqueue(self, *behaviours: Behaviour) -> None:
        """Answer the next requests with these, in order (before rules and the default)."""
        with self._lock:
            self._queue.extend(behaviours)

    def add_rule(
        self, predicate: Callable[[RecordedRequest], bool], behaviour: Behaviour, *, times: int | None = None
    ) -> None:
        """Answer requests matching ``predicate`` with ``behaviour`` (``times`` times, or always)."""
        with self._lock:
            self._rules.append(_Rule(predicate, behaviour, times))

    def gather(self, count: int, *, start: int = 0, timeout: float = 60.0) -> None:
        """Hold the answers to requests ``start`` .. ``start + count - 1`` (by arrival) until all
        ``count`` have arrived, so they are in flight together however slow the machine is. After
        ``timeout`` seconds without them all, each is answered anyway (the test's own assertion
        then says what was missing)."""
        with self._lock:
            self._gathers.append((start, count, timeout))

    def reset(self) -> None:
        """Forget the queue, the rules, the gathers, the recorded requests and the in-flight peak."""
        with self._lock:
            self._queue.clear()
            self._rules.clear()
            self._gathers.clear()
            self._requests.clear()
            self._max_in_flight = self._in_flight

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """Queued behaviours not used yet."""
        with self._lock:
            return len(self._queue)

    @property
    def max_in_flight(self) -> int:
        """The most requests the server was handling at once."""
        with self._lock:
            return self._max_in_flight

    # --- serving (handler threads) --------------------------------------------------------------

    def _arrive(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        raw_body: str,
        authorized: bool | None,
        client_port: int = 0,
    ) -> RecordedRequest:
        try:
            body: Any = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        kept = {k.lower(): v for k, v in headers.items() if k.lower() not in _SECRET_HEADERS}
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            request = RecordedRequest(
                index=len(self._requests),
                method=method,
                path=path,
                headers=kept,
                body=body,
                raw=raw_body,
                received_at=time.monotonic(),
                in_flight=self._in_flight,
                authorized=authorized,
                client_port=client_port,
            )
            self._requests.append(request)
            self._arrived.notify_all()
        return request

    def _hold(self, request: RecordedRequest) -> None:
        """Wait while a gather this request belongs to still misses some of its requests."""
        with self._arrived:
            for start, count, timeout in self._gathers:
                if start <= request.index < start + count:
                    self._arrived.wait_for(functools.partial(self._all_arrived, start + count), timeout)

    def _all_arrived(self, end: int) -> bool:
        return len(self._requests) >= end or self._stopping.is_set()

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _choose(self, request: RecordedRequest) -> Behaviour:
        if request.authorized is False:
            return status(401, message="Incorrect API key provided.")
        if not self.response_format_supported and request.response_format is not None:
            return status(
                400,
                message="Invalid parameter: 'response_format' of type 'json_schema' is not supported "
                "with this model.",
            )
        with self._lock:
            if self._queue:
                return self._queue.popleft()
            for rule in self._rules:
                if rule.times == 0:
                    continue
                if rule.predicate(request):
                    if rule.times is not None:
                        rule.times -= 1
                    return rule.behaviour
        return self.default

    def _wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` unless the server stops; False when it is stopping."""
        if seconds <= 0:
            return not self._stopping.is_set()
        return not self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins the handler threads
    block_on_close = True
    request_queue_size = 256  # a benchmark's burst of connections is not dropped by a short backlog
    judge: JudgeServer

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Wake the handlers waiting for the next request on a kept-alive connection (stop)."""
        with self._connections_lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                conn.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "proctor-judge-testserver/1"
    timeout = 30  # a client that never sends its body (or next request) does not hold a thread forever
    wbufsize = -1  # buffered: an answer's head and body leave in one write, at the flush in _send

    def setup(self) -> None:
        keep_alive = self.server.judge.keep_alive
        self.protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
        if keep_alive:
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, True)
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self._send(Answer(200, _json({"object": "list", "data": [{"id": "proctor-test-judge"}]})))
        else:
            self._send(Answer(404, _json({"error": {"message": "not found"}})))

    def do_POST(self) -> None:
        judge = self.server.judge
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
        authorized: bool | None = None
        if judge.api_key is not None:
            authorized = self.headers.get("Authorization") == f"Bearer {judge.api_key}"
        request = judge._arrive(
            "POST", self.path, dict(self.headers.items()), raw_body, authorized, self.client_address[1]
        )
        left = False
        try:
            if self.path.rstrip("/") != "/v1/chat/completions":
                answer = Answer(404, _json({"error": {"message": f"no route {self.path}"}}))
            else:
                judge._hold(request)
                answer = judge._choose(request).answer(request)
            while answer.then is not None:
                if not judge._wait(answer.delay):
                    self.close_connection = True  # stopping: drop the connection without an answer
                    return
                answer = answer.then.answer(request)
            if not judge._wait(judge.latency + answer.delay):
                self.close_connection = True
                return
            # No longer "in flight" once the answer is on its way: a client that got it may send
            # its next request before this thread finishes, and must not be counted twice.
            judge._leave()
            left = True
            self._send(answer)
        finally:
            if not left:
                judge._leave()

    def _send(self, answer: Answer) -> None:
        try:
            self.send_response(answer.status)
            headers = {"Content-Type": "application/json", **answer.headers}
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)
            self.wfile.flush()
        except OSError:
            pass  # the client gave up (timed out) before the answer: nothing to tell it


def main(argv: list[str] | None = None) -> int:
    """``python -m proctor.testing.judgeserver``: serve until interrupted (demos, manual benchmarks)."""
    import argparse

    parser = argparse.ArgumentParser(description="A scripted local OpenAI-compatible judge.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--score", type=float, default=75.0, help="score without a [[score:NN]] marker")
    args = parser.parse_args(argv)
    with JudgeServer(latency=args.latency, host=args.host, default=marker_score(args.score)) as server:
        print(server.base_url, flush=True)
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        stop.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "Answer",
    "Behaviour",
    "JudgeServer",
    "RecordedRequest",
    "completion",
    "content",
    "fields",
    "hang",
    "judgment",
    "marker_score",
    "raw",
    "respond_with",
    "status",
]

"""The judge client's transport over real sockets: what a misbehaving judge endpoint looks like to
the user (a hang-up is a connection error, retried; never a timeout), kept-alive connections, gzip
answers, and a proxy's credentials. No cluster needed."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from proctor.judge import JudgeClient, JudgeSettings, JudgeUnavailable
from proctor.testing import judgeserver as ts
from proctor.testing.cluster import scaled

MESSAGES = [{"role": "user", "content": "x"}]


class RawServer:
    """A TCP server on 127.0.0.1 that hands each connection to ``handle`` (in a thread): the
    misbehaving peers a real judge endpoint or proxy can be."""

    def __init__(self, handle: Callable[[socket.socket], None]) -> None:
        self.handle = handle
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.requests: list[bytes] = []
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _serve(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            self.handle(conn)

    def read_request(self, conn: socket.socket) -> bytes:
        """One request's head and body (by its Content-Length)."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < length:
            body += conn.recv(65536)
        self.requests.append(head)
        return head

    def close(self) -> None:
        self.sock.close()
        for t in self._threads:
            t.join(5)


@contextlib.contextmanager
def raw_server(handle: Callable[[RawServer, socket.socket], None]) -> Iterator[RawServer]:
    server: RawServer = RawServer(lambda conn: handle(server, conn))
    try:
        yield server
    finally:
        server.close()


def ask(url: str, env: dict[str, str] | None = None, **overrides: Any) -> str:
    values: dict[str, Any] = {
        "base_url": url,
        "model": "m",
        "max_attempts": 3,
        "backoff_initial": 0.01,
        "backoff_max": 0.02,
        "read_timeout": 5.0,
        **overrides,
    }

    async def main() -> str:
        async with JudgeClient(JudgeSettings(**values), env=env or {}) as client:
            return await client.complete(MESSAGES)

    return asyncio.run(main())


def _completion(text: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()


@pytest.mark.parametrize(
    "reply",
    [
        b"",  # hangs up without a word
        b'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{"choices": [',  # cut short
        b"this is not HTTP at all\r\n\r\n",
    ],
    ids=["hang-up", "cut-short", "not-http"],
)
def test_a_judge_that_hangs_up_is_a_retried_connection_error_never_a_timeout(reply: bytes) -> None:
    def handle(server: RawServer, conn: socket.socket) -> None:
        server.read_request(conn)
        conn.sendall(reply)

    with raw_server(handle) as server, pytest.raises(JudgeUnavailable) as info:
        ask(server.url)
    message = str(info.value)
    assert "after 3 attempts: connection error (RemoteProtocolError" in message, message
    assert "timeout" not in message.lower()
    assert len(server.requests) == 3  # every attempt reached the server: it was retried


def test_a_gzip_answer_is_read() -> None:
    body = gzip.compress(_completion("gzipped verdict"))
    with ts.JudgeServer(
        default=ts.raw(200, body, {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    ) as server:
        assert ask(server.base_url) == "gzipped verdict"


def test_sequential_requests_share_one_kept_alive_connection_and_parallel_ones_reuse_theirs() -> None:
    with ts.JudgeServer(latency=0.05) as server:
        server.gather(8, start=10, timeout=scaled(30))  # the first round of eight: all in flight at once
        settings = JudgeSettings(base_url=server.base_url, model="m", concurrency=8)

        async def main() -> None:
            async with JudgeClient(settings, env={}) as client:
                for _ in range(10):
                    await client.complete(MESSAGES)
                for _ in range(3):  # three rounds of eight at once
                    await asyncio.gather(*(client.complete(MESSAGES) for _ in range(8)))

        asyncio.run(main())
        sequential = {r.client_port for r in server.requests[:10]}
        parallel = {r.client_port for r in server.requests[10:]}
    assert len(sequential) == 1
    assert len(parallel) <= 8  # one connection per request in flight, kept for the next rounds
    assert server.max_in_flight == 8


def test_a_proxys_credentials_go_as_proxy_authorization_and_the_request_in_absolute_form() -> None:
    def handle(server: RawServer, conn: socket.socket) -> None:
        server.read_request(conn)
        body = _completion("via the proxy")
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body), body)
        )

    with raw_server(handle) as proxy:
        proxy_url = f"http://alice:s3cret@127.0.0.1:{proxy.port}"
        text = ask("http://judge.invalid/v1", env={"HTTP_PROXY": proxy_url}, max_attempts=1)
    assert text == "via the proxy"
    head = proxy.requests[0].decode()
    assert head.startswith("POST http://judge.invalid/v1/chat/completions HTTP/1.1")
    expected = base64.b64encode(b"alice:s3cret").decode()
    assert f"\r\nproxy-authorization: basic {expected}\r\n".lower() in head.lower() + "\r\n"

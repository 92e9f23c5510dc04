"""The node stand-in's kubelet endpoint: container logs for ``kubectl logs``, over mutual TLS.

``kubectl logs`` asks the API server, which proxies to the pod's node: HTTPS to the node's
InternalIP at ``status.daemonEndpoints.kubeletEndpoint.Port``, path
``/containerLogs/{namespace}/{pod}/{container}``, authenticating with its kubelet client
certificate (``--kubelet-client-certificate``) and checking the node's serving certificate
(``--kubelet-certificate-authority``). This server answers that path as a kubelet does:

- Authentication: a client certificate signed by the cluster CA is required (no anonymous
  requests); the user is its CommonName, the groups its Organizations.
- Authorization: a SubjectAccessReview for ``get nodes/proxy`` on this node, as the kubelet's
  webhook authorizer asks (cached: allowed for five minutes, denied for thirty seconds).
- ``follow``, ``previous``, ``tailLines`` (and the old ``tail``), ``limitBytes``; errors in the
  kubelet's words (``container "x" in pod "y" is waiting to start: image can't be pulled``).
  The stand-in keeps no per-line timestamps, so ``timestamps``, ``sinceSeconds`` and
  ``sinceTime`` are refused with a 400 that says so rather than ignored.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast

import structlog

log = structlog.get_logger("proctor.node")

#: How long an authorization decision is reused (the kubelet's defaults).
ALLOWED_TTL = 300.0
DENIED_TTL = 30.0
_FOLLOW_POLL = 0.2
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class LogTarget:
    """One container run's log file; ``live()`` is True while its process may still write."""

    path: Path
    live: Callable[[], bool]


class LogError(Exception):
    """A request the node cannot answer; ``code`` is the HTTP status the kubelet would use."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


#: ``(namespace, pod, container, previous) -> LogTarget``; raises :class:`LogError`.
Lookup = Callable[[str, str, str, bool], LogTarget]
#: ``(user, groups) -> allowed`` for ``get nodes/proxy`` on this node.
Authorize = Callable[[str, tuple[str, ...]], bool]


def _bool(value: str) -> bool:
    """Go's ``strconv.ParseBool``, which the kubelet's query decoding uses."""
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise ValueError(value)


@dataclass(frozen=True)
class LogOptions:
    follow: bool = False
    previous: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None

    @classmethod
    def parse(cls, query: dict[str, list[str]]) -> LogOptions:
        q = {k: v[-1] for k, v in query.items() if v}
        if "tail" in q:  # the kubelet's backwards-compatible spelling
            tail = q.pop("tail")
            if tail != "all":
                q["tailLines"] = tail
        unsupported = [k for k in ("timestamps", "sinceSeconds", "sinceTime") if k in q]
        if unsupported and not (unsupported == ["timestamps"] and not _bool(q["timestamps"])):
            raise LogError(
                400,
                f"the node stand-in keeps no log timestamps, so it cannot honour {', '.join(unsupported)}",
            )
        if q.get("stream", "All") != "All":
            raise LogError(
                400,
                f'unable to return the given log stream: "{q["stream"]}". Please enable '
                "PodLogsQuerySplitStreams feature gate in kubelet",
            )
        try:
            opts = cls(
                follow=_bool(q.get("follow", "false")),
                previous=_bool(q.get("previous", "false")),
                tail_lines=int(q["tailLines"]) if "tailLines" in q else None,
                limit_bytes=int(q["limitBytes"]) if "limitBytes" in q else None,
            )
        except ValueError:
            raise LogError(400, '{"message": "Unable to decode query."}') from None
        if (opts.tail_lines is not None and opts.tail_lines < 0) or (
            opts.limit_bytes is not None and opts.limit_bytes < 1
        ):
            raise LogError(422, '{"message": "Invalid request."}')
        return opts


def tail_offset(fh: BinaryIO, lines: int) -> int:
    """The offset of the last ``lines`` lines of a binary file (the last line needs no newline)."""
    end = int(fh.seek(0, os.SEEK_END))
    if lines == 0 or end == 0:
        return end
    fh.seek(end - 1)
    # a newline that ends the file ends the last line; it does not start another
    pos = end - 1 if fh.read(1) == b"\n" else end
    found = 0
    while pos > 0:
        step = min(_CHUNK, pos)
        fh.seek(pos - step)
        block = fh.read(step)
        i = len(block)
        while (i := block.rfind(b"\n", 0, i)) != -1:
            found += 1
            if found == lines:
                return pos - step + i + 1
        pos -= step
    return 0


class _Handler(http.server.BaseHTTPRequestHandler):
    server: KubeletServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, code: int, text: str) -> None:
        body = (text + ("" if text.endswith("\n") else "\n")).encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _peer(self) -> tuple[str, tuple[str, ...]] | None:
        conn = self.connection
        cert = conn.getpeercert() if isinstance(conn, ssl.SSLSocket) else None
        if not cert:
            return None
        user, groups = "", []
        for rdn in cast(Any, cert.get("subject", ())):
            for key, value in rdn:
                if key == "commonName":
                    user = value
                elif key == "organizationName":
                    groups.append(value)
        return (user, tuple(groups)) if user else None

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        peer = self._peer()
        if peer is None:
            self._send(401, "Unauthorized")
            return
        if url.path in ("/healthz", "/healthz/"):
            self._send(200, "ok")
            return
        user, groups = peer
        if not self.server.authorized(user, groups):
            self._send(
                403,
                f"Forbidden (user={user}, verb=get, resource=nodes, subresource(s)=[proxy])",
            )
            return
        parts = url.path.split("/")
        if len(parts) != 5 or parts[1] != "containerLogs":
            self._send(404, "404 page not found")
            return
        _, _, ns, pod, container = (urllib.parse.unquote(p) for p in parts)
        try:
            opts = LogOptions.parse(urllib.parse.parse_qs(url.query, keep_blank_values=True))
            target = self.server.lookup(ns, pod, container, opts.previous)
        except LogError as e:
            self._send(e.code, str(e))
            return
        self._stream(target, opts)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _stream(self, target: LogTarget, opts: LogOptions) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        budget = opts.limit_bytes
        try:
            with contextlib.ExitStack() as stack:
                try:
                    fh = stack.enter_context(target.path.open("rb"))
                except FileNotFoundError:
                    fh = None
                if fh is not None and opts.tail_lines is not None:
                    fh.seek(tail_offset(fh, opts.tail_lines))
                while True:
                    live = opts.follow and target.live()  # read before the data, so none is missed
                    data = fh.read(_CHUNK) if fh is not None else b""
                    if data:
                        if budget is not None:
                            data = data[:budget]
                            budget -= len(data)
                        self._chunk(data)
                        if budget == 0:
                            break
                        continue
                    if not live or self.server.stopping.is_set():
                        break
                    time.sleep(_FOLLOW_POLL)
                    if fh is None and target.path.exists():
                        fh = stack.enter_context(target.path.open("rb"))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True


class KubeletServer(http.server.ThreadingHTTPServer):
    """The HTTPS endpoint; ``port`` is what the Node reports as its kubelet endpoint."""

    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        address: str,
        *,
        cert: Path,
        key: Path,
        client_ca: Path,
        lookup: Lookup,
        authorize: Authorize,
    ) -> None:
        super().__init__((address, 0), _Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(str(cert), str(key))
        ctx.load_verify_locations(str(client_ca))
        ctx.verify_mode = ssl.CERT_REQUIRED
        self.ctx = ctx
        self.lookup = lookup
        self._authorize = authorize
        self._decisions: dict[tuple[str, tuple[str, ...]], tuple[bool, float]] = {}
        self._lock = threading.Lock()
        self.stopping = threading.Event()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        # the handshake happens in the request's own thread, so a slow client holds up no one
        return self.ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("kubelet endpoint: request failed", client=str(client_address))

    def authorized(self, user: str, groups: tuple[str, ...]) -> bool:
        key, now = (user, groups), time.monotonic()
        with self._lock:
            hit = self._decisions.get(key)
            if hit is not None and hit[1] > now:
                return hit[0]
        try:
            ok = self._authorize(user, groups)
        except Exception as e:  # an unreachable API server denies, briefly
            log.warning("kubelet endpoint: authorization check failed", user=user, error=str(e))
            return False
        with self._lock:
            self._decisions[key] = (ok, now + (ALLOWED_TTL if ok else DENIED_TTL))
        return ok

    def start(self) -> None:
        threading.Thread(target=self.serve_forever, name="kubelet-endpoint", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()

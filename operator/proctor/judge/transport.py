"""The judge's HTTP transport: aiohttp's connection pool and C parser behind httpx's transport seam.

httpx stays the judge client's API (its requests, responses, exceptions and ``MockTransport`` in
unit tests); :class:`AiohttpTransport` only moves the bytes. httpx's own transport (httpcore on
anyio, with h11's pure-Python parser) cost the client 0.9-1.2 ms of CPU per judge request at 32 in
flight, more than half of it in anyio's cancel scopes and h11's header checks; aiohttp's
connector and its llhttp parser do the same work in about half that (``bench/judge_throughput.py``
prints the figure). Connections are kept alive and reused, most recently used first; the judge
client's adaptive limit bounds how many are in flight, so the pool itself is unbounded.

Every failure is raised as the httpx exception httpx's own transport raises for it, so the client
has one vocabulary of failures and decides the same way what to retry::

    can't connect (refused, DNS, TLS, proxy unreachable)   httpx.ConnectError
    no connection within the connect timeout                httpx.ConnectTimeout
    no bytes within the read timeout                        httpx.ReadTimeout
    the server hung up before or during its answer          httpx.RemoteProtocolError
    an answer that is not HTTP                              httpx.RemoteProtocolError
    the connection reset or failed otherwise                httpx.ReadError
    the proxy refused the tunnel                            httpx.ProxyError
    a URL or proxy that is not http(s)                      httpx.UnsupportedProtocol

(Not the ``httpx-aiohttp`` package: it reports a connection the server dropped as a *connect
timeout*, which would tell a user their judge timed out when it hung up.)

The aiohttp session is made on first use, in the event loop that sends; use one transport from
one loop, and close it (:meth:`AiohttpTransport.aclose`).
"""

from __future__ import annotations

import base64
import ssl
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:  # aiohttp is imported on first use: a process that never asks a judge skips it
    import aiohttp

#: How long an idle kept-alive connection is kept (httpx's default too).
KEEPALIVE_SECONDS = 5.0


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Send httpx requests over one aiohttp connection pool (keep-alive, no connection limit).

    ``proxy`` is an ``http://`` or ``https://`` proxy URL (credentials in it become
    ``Proxy-Authorization``); ``ssl_context`` verifies ``https`` judges (default: httpx's, the
    certifi trust store). Bodies are read whole and not decompressed here: the httpx response
    decodes them by their ``Content-Encoding``, as httpx's own transport leaves it to do.
    """

    def __init__(self, *, proxy: str | None = None, ssl_context: ssl.SSLContext | None = None) -> None:
        self._proxy = proxy
        self._ssl = ssl_context
        self._session: aiohttp.ClientSession | None = None
        self._proxy_url: Any = None
        self._proxy_headers: dict[str, str] | None = None

    def _open(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._proxy is not None:
            url = httpx.URL(self._proxy)
            bare = url.copy_with(username=None, password=None)
            if url.scheme not in ("http", "https"):
                raise httpx.UnsupportedProtocol(
                    f"proxy {bare} is not http:// or https:// (the judge client speaks to HTTP proxies only)"
                )
            if url.username:
                pair = base64.b64encode(f"{url.username}:{url.password or ''}".encode()).decode()
                self._proxy_headers = {"Proxy-Authorization": f"Basic {pair}"}
            self._proxy_url = str(bare)
        connector = aiohttp.TCPConnector(
            limit=0,  # the judge client's adaptive limit bounds what is in flight
            ssl=self._ssl if self._ssl is not None else httpx.create_ssl_context(),
            keepalive_timeout=KEEPALIVE_SECONDS,
            # the system resolver (getaddrinfo), as httpx uses, even where aiodns is installed
            resolver=aiohttp.ThreadedResolver(),
        )
        return aiohttp.ClientSession(
            connector=connector,
            trust_env=False,  # the judge client settles the proxy from the environment itself
            auto_decompress=False,
            skip_auto_headers=("Accept-Encoding",),
            timeout=aiohttp.ClientTimeout(total=None),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        import aiohttp

        if self._session is None:
            self._session = self._open()
        timeout = request.extensions.get("timeout", {})
        headers = list(request.headers.multi_items())
        tunnel = request.url.scheme == "https"
        if self._proxy_headers and not tunnel:  # a plain-HTTP request goes to the proxy itself
            headers.extend(self._proxy_headers.items())
        try:
            async with self._session.request(
                request.method,
                str(request.url),
                headers=headers,
                data=request.content or None,
                allow_redirects=False,
                proxy=self._proxy_url,
                proxy_headers=self._proxy_headers if tunnel else None,  # on the CONNECT
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    connect=timeout.get("pool"),
                    sock_connect=timeout.get("connect"),
                    sock_read=timeout.get("read"),
                ),
            ) as answer:
                body = await answer.read()
        except (TimeoutError, OSError, aiohttp.ClientError) as e:
            raise _as_httpx(e, request) from e
        version = f"HTTP/{answer.version.major}.{answer.version.minor}" if answer.version else "HTTP/1.1"
        extensions: dict[str, Any] = {"http_version": version.encode()}
        if answer.reason:
            extensions["reason_phrase"] = answer.reason.encode("latin-1", "replace")
        return httpx.Response(
            answer.status,
            headers=list(answer.raw_headers),
            stream=httpx.ByteStream(body),
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()


def _as_httpx(e: BaseException, request: httpx.Request) -> httpx.TransportError:
    """The httpx exception httpx's own transport raises for what aiohttp reported (see the table
    in the module's docstring); the message is aiohttp's."""
    import aiohttp

    message = str(e) or type(e).__name__
    kind: type[httpx.TransportError]
    if isinstance(e, aiohttp.ConnectionTimeoutError):
        kind = httpx.ConnectTimeout
    elif isinstance(e, TimeoutError):  # a socket read, or anything else aiohttp timed out
        kind = httpx.ReadTimeout
    elif isinstance(e, aiohttp.ClientHttpProxyError):
        kind = httpx.ProxyError
    elif isinstance(e, (aiohttp.ClientConnectorError, aiohttp.ClientSSLError)):
        kind = httpx.ConnectError
    elif isinstance(
        e, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError, aiohttp.ClientResponseError)
    ):
        kind = httpx.RemoteProtocolError
        if isinstance(e, aiohttp.ServerDisconnectedError):
            message = "Server disconnected without sending a complete response."
    elif isinstance(e, (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError)):
        kind = httpx.UnsupportedProtocol
    elif isinstance(e, (aiohttp.ClientConnectionError, OSError)):
        kind = httpx.ReadError
    else:
        kind = httpx.TransportError
    return kind(message, request=request)

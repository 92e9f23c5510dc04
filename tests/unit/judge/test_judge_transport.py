"""The judge's aiohttp transport reports every failure as the httpx exception httpx's own transport
raises for it, so the client retries what can get better and says what happened."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import httpx
import pytest
from aiohttp.client_reqrep import ConnectionKey
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from proctor.judge.transport import AiohttpTransport, _as_httpx

REQUEST = httpx.Request("POST", "http://judge.example/v1/chat/completions")
KEY = ConnectionKey("judge.example", 443, True, True, None, None, None)
INFO = aiohttp.RequestInfo(
    URL("http://judge.example/v1"), "POST", CIMultiDictProxy(CIMultiDict()), URL("http://judge.example/v1")
)


def _os(errno: int = 111) -> OSError:
    return OSError(errno, "Connection refused")


CASES: list[tuple[BaseException, type[httpx.TransportError]]] = [
    (aiohttp.ConnectionTimeoutError("Connection timeout to host"), httpx.ConnectTimeout),
    (aiohttp.SocketTimeoutError("Timeout on reading data from socket"), httpx.ReadTimeout),
    (aiohttp.ServerTimeoutError("timeout"), httpx.ReadTimeout),
    (TimeoutError(), httpx.ReadTimeout),
    (aiohttp.ClientConnectorError(KEY, _os()), httpx.ConnectError),
    (aiohttp.ClientConnectorDNSError(KEY, _os(-2)), httpx.ConnectError),
    (aiohttp.ClientProxyConnectionError(KEY, _os()), httpx.ConnectError),
    (aiohttp.ClientConnectorCertificateError(KEY, ValueError("self-signed")), httpx.ConnectError),
    (aiohttp.ClientSSLError(KEY, _os()), httpx.ConnectError),
    (aiohttp.ClientHttpProxyError(INFO, (), status=407), httpx.ProxyError),
    (aiohttp.ServerDisconnectedError(), httpx.RemoteProtocolError),
    (aiohttp.ClientPayloadError("Response payload is not completed"), httpx.RemoteProtocolError),
    (aiohttp.ClientResponseError(INFO, (), status=400, message="Invalid HTTP"), httpx.RemoteProtocolError),
    (aiohttp.ClientConnectionResetError("Connection reset"), httpx.ReadError),
    (aiohttp.ClientOSError(104, "Connection reset by peer"), httpx.ReadError),
    (aiohttp.ServerConnectionError("gone"), httpx.ReadError),
    (ConnectionResetError(104, "reset"), httpx.ReadError),
    (aiohttp.InvalidURL("ftp://x"), httpx.UnsupportedProtocol),
    (aiohttp.NonHttpUrlClientError("ftp://x"), httpx.UnsupportedProtocol),
    (aiohttp.ClientError("something else"), httpx.TransportError),
]


@pytest.mark.parametrize(("error", "expected"), CASES, ids=lambda v: type(v).__name__)
def test_each_aiohttp_failure_is_the_httpx_exception_httpx_raises_for_it(
    error: BaseException, expected: type[httpx.TransportError]
) -> None:
    mapped = _as_httpx(error, REQUEST)
    assert type(mapped) is expected
    assert mapped.request is REQUEST
    assert str(mapped)  # never an empty message


def test_a_dropped_connection_is_never_called_a_timeout() -> None:
    """What httpx-aiohttp gets wrong: a server that hung up is no timeout of any kind."""
    for error in (aiohttp.ServerDisconnectedError(), aiohttp.ClientOSError(104, "reset")):
        assert not isinstance(_as_httpx(error, REQUEST), httpx.TimeoutException)
    assert "disconnected" in str(_as_httpx(aiohttp.ServerDisconnectedError(), REQUEST))


def test_timeouts_and_network_errors_are_what_the_client_retries() -> None:
    """The client retries httpx.TimeoutException and NetworkError/RemoteProtocolError, and gives
    up at once on any other httpx error: the mapping must put each failure on the right side."""
    retried = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
    for error, _ in CASES:
        mapped = _as_httpx(error, REQUEST)
        permanent = isinstance(mapped, (httpx.UnsupportedProtocol, httpx.ProxyError)) or type(mapped) is (
            httpx.TransportError
        )
        assert isinstance(mapped, retried) is not permanent, error


@pytest.mark.parametrize("proxy", ["socks5://proxy.example:1080", "ftp://proxy.example"])
def test_a_proxy_that_is_not_http_is_refused_naming_it_without_its_credentials(proxy: str) -> None:
    transport = AiohttpTransport(proxy=proxy.replace("://", "://user:pw@"))

    async def main() -> Any:
        try:
            return await transport.handle_async_request(REQUEST)
        finally:
            await transport.aclose()

    with pytest.raises(httpx.UnsupportedProtocol, match=r"not http:// or https://") as info:
        asyncio.run(main())
    assert "pw" not in str(info.value)
    assert "proxy.example" in str(info.value)

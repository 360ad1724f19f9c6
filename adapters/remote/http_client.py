"""HTTP to remote agents: bounded responses, header secrets from the environment, errors translated once.

- :func:`open_http_client`: an ``httpx.AsyncClient`` (works under trio) whose every response body is cut off
  at ``max_response_bytes`` (:class:`~ioa_p2p.errors.MessageTooLarge`, checked as the bytes arrive, so a
  streamed or endless body cannot fill memory), with explicit connect/read/write/pool timeouts. httpx
  timeouts are per operation: callers bound a whole exchange with a trio deadline (the task's).
- :func:`expand_headers`: header values may name environment variables (``"Bearer ${SERVICE_TOKEN}"``), so
  secrets stay out of config files; a missing variable is an :class:`~ioa_p2p.errors.AdapterOptionsError`.
- :func:`translate_http_error`: httpx exceptions -> :class:`~ioa_p2p.errors.PeerUnreachable`,
  :class:`~ioa_p2p.errors.IoATimeout`, :class:`~ioa_p2p.errors.RemotePeerError`, with scrubbed messages.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from ioa_p2p.errors import (
    AdapterOptionsError,
    IoAError,
    IoATimeout,
    MessageTooLarge,
    PeerUnreachable,
    RemotePeerError,
)

from .scrub import scrub, strip_userinfo

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class _BoundedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, limit: int, where: str) -> None:
        self._inner = inner
        self._limit = limit
        self._where = where

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise MessageTooLarge(
                    f"the response from {self._where} is larger than {self._limit} bytes; "
                    "raise the adapter's max_response_kb if that is expected"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx.AsyncBaseTransport):
    """Wraps a transport so that no response body may exceed ``limit`` bytes."""

    def __init__(self, inner: httpx.AsyncBaseTransport, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        where = strip_userinfo(str(request.url.copy_with(query=None)))
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._limit:
            await response.aclose()
            raise MessageTooLarge(
                f"the response from {where} declares {declared} bytes, over the limit of {self._limit}"
            )
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_BoundedStream(response.stream, self._limit, where),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def open_http_client(
    *,
    max_response_bytes: int,
    timeout: float = 30.0,
    connect_timeout: float = 10.0,
    headers: Mapping[str, str] | None = None,
) -> httpx.AsyncClient:
    """A client for one adapter (close it with ``aclose``/``async with``); redirects are not followed."""
    transport = BoundedTransport(httpx.AsyncHTTPTransport(retries=0), max_response_bytes)
    return httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(timeout, connect=min(connect_timeout, timeout)),
        headers=dict(headers or {}),
        follow_redirects=False,
    )


def expand_headers(
    headers: Mapping[str, Any], *, kind: str, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Header values with ``${NAME}`` replaced from the environment (for secrets)."""
    env = os.environ if env is None else env
    out: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(value, str) or not name or any(c in name for c in ":\r\n "):
            raise AdapterOptionsError(f"adapter {kind!r}: header {name!r} must be a name with a string value")

        def substitute(match: re.Match[str], header: str = name) -> str:
            variable = match.group(1)
            if variable not in env:
                raise AdapterOptionsError(
                    f"adapter {kind!r}: header {header!r} uses ${{{variable}}}, which is not set in the "
                    "environment; export it before starting the node"
                )
            return env[variable]

        expanded = _ENV_REF.sub(substitute, value)
        if "\r" in expanded or "\n" in expanded:
            raise AdapterOptionsError(f"adapter {kind!r}: header {name!r} contains a line break")
        out[name] = expanded
    return out


def header_secrets(headers: Mapping[str, str]) -> list[str]:
    """Every header value and its parts (``Bearer abc`` -> ``abc``): what :func:`scrub` must hide."""
    secrets: list[str] = []
    for value in headers.values():
        secrets.append(value)
        secrets.extend(value.split())
    return secrets


def translate_http_error(exc: Exception, what: str, secrets: list[str] | None = None) -> IoAError:
    """An httpx exception (or one of ours) as our error type; ``what`` names the remote for the message."""
    if isinstance(exc, IoAError):
        return exc
    detail = scrub(str(exc) or type(exc).__name__, secrets or (), limit=300)
    if isinstance(exc, httpx.TimeoutException):
        return IoATimeout(f"{what} did not answer in time ({type(exc).__name__})")
    if isinstance(exc, httpx.ConnectError | httpx.UnsupportedProtocol):
        return PeerUnreachable(f"cannot connect to {what}: {detail}; check the URL and that it is running")
    if isinstance(exc, httpx.HTTPError):
        return RemotePeerError(f"talking to {what} failed: {type(exc).__name__}: {detail}")
    return RemotePeerError(f"talking to {what} failed: {type(exc).__name__}: {detail}")


__all__ = [
    "BoundedTransport",
    "expand_headers",
    "header_secrets",
    "open_http_client",
    "translate_http_error",
]

"""HTTP to remote agents: bounded responses, header secrets from the environment, errors translated once.

- :func:`open_http_client`: an ``httpx.AsyncClient`` (works under trio) whose every response body is cut off
  at ``max_response_bytes`` (:class:`~ioa_p2p.errors.MessageTooLarge`, checked as the bytes arrive, so a
  streamed or endless body cannot fill memory), with explicit connect/read/write/pool timeouts. httpx
  timeouts are per operation: callers bound a whole exchange with a trio deadline (the task's).
- :func:`expand_headers`: header values may name environment variables (``"Bearer ${SERVICE_TOKEN}"``), so
  secrets stay out of config files; a missing variable is an :class:`~ioa_p2p.errors.AdapterOptionsError`.
- :class:`TracedTransport`: each request a client span ``<METHOD>`` of the current tracer (when the node
  traces: the OpenTelemetry HTTP conventions' ``http.request.method``, ``url.full`` without query or user,
  ``server.address``, ``server.port``, ``http.response.status_code``; 4xx/5xx and failures are errors),
  under the task's ``invoke_agent <name>`` span.
- :func:`translate_http_error`: httpx exceptions -> :class:`~ioa_p2p.errors.PeerUnreachable`,
  :class:`~ioa_p2p.errors.IoATimeout`, :class:`~ioa_p2p.errors.RemotePeerError`, with scrubbed messages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from ioa_p2p.adapters.remote.scrub import scrub
from ioa_p2p.errors import (
    AdapterOptionsError,
    IoAError,
    IoATimeout,
    MessageTooLarge,
    PeerUnreachable,
    RemotePeerError,
)
from ioa_p2p.llm.bounded_http import bounded_transport as shared_bounded_transport
from ioa_p2p.telemetry.tracer import AttrValue, current_tracer

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _too_large(message: str) -> Exception:
    return MessageTooLarge(f"{message}; raise the adapter's max_response_kb if that is expected")


def bounded_transport(limit: int, *, lib: Any = httpx) -> Any:
    """A transport of ``lib`` (default httpx) on which no response body may exceed ``limit`` bytes
    (:class:`~ioa_p2p.errors.MessageTooLarge`, raised as the bytes arrive; one implementation with the
    model client's, :mod:`ioa_p2p.llm.bounded_http`)."""
    return shared_bounded_transport(limit, lib=lib, too_large=_too_large)


class TracedTransport(httpx.AsyncBaseTransport):
    """``inner``, each request one HTTP client span of the current tracer (see the module docstring)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        tracer = current_tracer()
        if not tracer.enabled:
            return await self.inner.handle_async_request(request)
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        about: dict[str, AttrValue] = {
            "http.request.method": request.method,
            "url.full": f"{url.scheme}://{url.host}:{port}{url.path}",
            "server.address": url.host,
            "server.port": port,
        }
        with tracer.span(request.method, kind="client", attributes=about) as span:
            try:
                response = await self.inner.handle_async_request(request)
            except Exception as exc:  # httpx's errors (translated by the caller), ours (a body too large)
                span.record_error(type(exc).__name__, scrub(str(exc), []))
                raise
            span.set_attribute("http.response.status_code", response.status_code)
            if response.status_code >= 400:
                span.record_error(str(response.status_code))
            return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def open_http_client(
    *,
    max_response_bytes: int,
    timeout: float = 30.0,
    connect_timeout: float = 10.0,
    headers: Mapping[str, str] | None = None,
) -> httpx.AsyncClient:
    """A client for one adapter (close it with ``aclose``/``async with``); redirects are not followed."""
    return httpx.AsyncClient(
        transport=TracedTransport(bounded_transport(max_response_bytes)),
        timeout=httpx.Timeout(timeout, connect=min(connect_timeout, timeout)),
        headers=dict(headers or {}),
        follow_redirects=False,
    )


def check_http_url(url: str, *, kind: str) -> None:
    """An :class:`~ioa_p2p.errors.AdapterOptionsError` unless ``url`` (adapter ``kind``'s ``url`` option)
    is an http(s) URL with a host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AdapterOptionsError(f"adapter {kind!r} option url must be an http(s) URL, not {url!r}")


def expand_env_refs(value: str, *, where: str, env: Mapping[str, str] | None = None) -> str:
    """``value`` with each ``${NAME}`` replaced from the environment; a missing variable is an
    :class:`~ioa_p2p.errors.AdapterOptionsError` naming ``where`` (e.g. "adapter 'http': header 'X'")."""
    env = os.environ if env is None else env

    def substitute(match: re.Match[str]) -> str:
        variable = match.group(1)
        if variable not in env:
            raise AdapterOptionsError(
                f"{where} uses ${{{variable}}}, which is not set in the environment; "
                "export it before starting the node"
            )
        return env[variable]

    return _ENV_REF.sub(substitute, value)


def expand_headers(
    headers: Mapping[str, Any], *, kind: str, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Header values with ``${NAME}`` replaced from the environment (for secrets)."""
    out: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(value, str) or not name or any(c in name for c in ":\r\n "):
            raise AdapterOptionsError(f"adapter {kind!r}: header {name!r} must be a name with a string value")
        expanded = expand_env_refs(value, where=f"adapter {kind!r}: header {name!r}", env=env)
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
    "check_http_url",
    "bounded_transport",
    "expand_env_refs",
    "expand_headers",
    "header_secrets",
    "open_http_client",
    "translate_http_error",
]

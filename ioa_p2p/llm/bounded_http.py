"""Bounded HTTP response bodies: one transport wrapper for every HTTP client of the node.

The ``openai`` client reads a whole response body into memory before it parses it, and so do the
remote-agent adapters' clients: a server that sends an endless or enormous body (fast enough to beat the
caller's time bound) would grow the node's memory without limit. :func:`bounded_transport` wraps the
default async transport of an httpx-compatible package (``httpx``, or ``httpx2`` that ``openai`` 3 and
``mcp`` use) and counts the bytes of every response body as they arrive: a ``Content-Length`` above the
limit, or a body that grows past it, ends the response with the caller's error after at most ``limit``
bytes plus one chunk were buffered. :func:`capped_http_client` is the model client's use of it
(``[model] max_response_bytes``, default 2 MiB; :class:`ResponseTooLarge`, failure kind ``bad_output``).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from typing import Any

from ioa_p2p.errors import ModelOutputError
from ioa_p2p.llm.failures import redact_url

#: Bytes of one model response body at most (``[model] max_response_bytes``). A chat completion of a few
#: thousand tokens is tens of KB; JSON with tool calls stays far below this.
DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024

#: Makes the error for a body over the limit from a message naming the URL and the limit.
TooLarge = Callable[[str], Exception]


class ResponseTooLarge(ModelOutputError):
    """The model server's response body is larger than ``[model] max_response_bytes``."""


def bounded_transport(limit: int, *, lib: Any, too_large: TooLarge) -> Any:
    """A default async transport of ``lib`` on which no response body may exceed ``limit`` bytes;
    ``too_large(message)`` is raised when one does (as the bytes arrive, or from ``Content-Length``)."""
    return _transport_class(lib)(lib.AsyncHTTPTransport(retries=0), limit, too_large)


def client_http() -> Any:
    """The HTTP package the installed ``openai`` client is built on (``httpx2`` for openai 3, ``httpx``
    before): its transport must be of the same package."""
    import openai

    if openai.DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0] == "httpx2":
        import httpx2

        return httpx2
    import httpx

    return httpx


def capped_http_client(cap: int = DEFAULT_MAX_RESPONSE_BYTES) -> Any:
    """An ``openai.DefaultAsyncHttpxClient`` whose every response body is bounded to ``cap`` bytes."""
    import openai

    if cap < 1024:
        raise ValueError("max_response_bytes must be at least 1024")

    def too_large(message: str) -> Exception:
        return ResponseTooLarge(f"{message}; lower max_tokens, or raise [model] max_response_bytes")

    return openai.DefaultAsyncHttpxClient(
        transport=bounded_transport(cap, lib=client_http(), too_large=too_large)
    )


@functools.cache
def _transport_class(lib: Any) -> Any:
    class BoundedStream(lib.AsyncByteStream):  # type: ignore[misc]
        def __init__(self, inner: Any, limit: int, where: str, too_large: TooLarge) -> None:
            self._inner, self._limit, self._where, self._too_large = inner, limit, where, too_large

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            chunks = self._inner.__aiter__()
            try:
                async for chunk in chunks:
                    seen += len(chunk)
                    if seen > self._limit:
                        raise self._too_large(
                            f"the response from {self._where} is larger than {self._limit} bytes"
                        )
                    yield chunk
            finally:  # the library's own generator: end it now, not at garbage collection
                close = getattr(chunks, "aclose", None)
                if close is not None:
                    await close()

        async def aclose(self) -> None:
            await self._inner.aclose()

    class BoundedTransport(lib.AsyncBaseTransport):  # type: ignore[misc]
        def __init__(self, inner: Any, limit: int, too_large: TooLarge) -> None:
            self._inner, self._limit, self._too_large = inner, limit, too_large

        async def handle_async_request(self, request: Any) -> Any:
            response = await self._inner.handle_async_request(request)
            where = redact_url(str(request.url))
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self._limit:
                await response.aclose()
                raise self._too_large(
                    f"the response from {where} declares {declared} bytes, over the limit of {self._limit}"
                )
            return lib.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=BoundedStream(response.stream, self._limit, where, self._too_large),
                extensions=response.extensions,
            )

        async def aclose(self) -> None:
            await self._inner.aclose()

    return BoundedTransport


__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "ResponseTooLarge",
    "TooLarge",
    "bounded_transport",
    "capped_http_client",
    "client_http",
]

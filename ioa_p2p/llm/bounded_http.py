"""A size bound on model server responses: the HTTP transport under the ``openai`` client.

The ``openai`` client reads a whole response body into memory before it parses it, so a server that sends
an endless or enormous body (fast enough to beat the caller's time bound) would grow the node's memory
without limit. :func:`capped_http_client` wraps the client's HTTP transport and counts the bytes of every
response body as they arrive: a ``Content-Length`` above the cap, or a body that grows past it, ends the
response with :class:`ResponseTooLarge` (a :class:`~ioa_p2p.errors.ModelOutputError`, failure kind
``bad_output``) after at most ``cap`` bytes plus one chunk have been buffered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ioa_p2p.errors import ModelOutputError

#: Bytes of one response body at most (``[model] max_response_bytes``). A chat completion of a few
#: thousand tokens is tens of KB; JSON with tool calls stays far below this.
DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024


class ResponseTooLarge(ModelOutputError):
    """The model server's response body is larger than ``[model] max_response_bytes``."""


def client_http() -> Any:
    """The HTTP package the installed ``openai`` client is built on (``httpx2`` for openai 3, ``httpx``
    before): the transport must be of the same package."""
    import openai

    base = openai.DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0]
    if base == "httpx2":
        import httpx2

        return httpx2
    import httpx

    return httpx


def capped_http_client(cap: int = DEFAULT_MAX_RESPONSE_BYTES, *, where: str = "the model server") -> Any:
    """An ``openai.DefaultAsyncHttpxClient`` whose every response body is bounded to ``cap`` bytes."""
    import openai

    if cap < 1024:
        raise ValueError("max_response_bytes must be at least 1024")
    return openai.DefaultAsyncHttpxClient(transport=_transport_class()(cap, where))


_TRANSPORT: Any = None


def _transport_class() -> Any:
    global _TRANSPORT
    if _TRANSPORT is None:
        _TRANSPORT = _make_transport(client_http())
    return _TRANSPORT


def _make_transport(http: Any) -> Any:
    class CappedStream(http.AsyncByteStream):  # type: ignore[misc]
        def __init__(self, inner: Any, cap: int, where: str) -> None:
            self._inner = inner
            self._cap = cap
            self._where = where

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            chunks = self._inner.__aiter__()
            try:
                async for chunk in chunks:
                    seen += len(chunk)
                    if seen > self._cap:
                        raise ResponseTooLarge(_too_large(self._where, self._cap))
                    yield chunk
            finally:  # close the inner generator now, not when it is garbage collected
                aclose = getattr(chunks, "aclose", None)
                if aclose is not None:
                    await aclose()

        async def aclose(self) -> None:
            await self._inner.aclose()

    class CappedTransport(http.AsyncBaseTransport):  # type: ignore[misc]
        """The default async transport with every response body bounded to ``cap`` bytes."""

        def __init__(self, cap: int, where: str) -> None:
            self._inner = http.AsyncHTTPTransport()
            self._cap = cap
            self._where = where

        async def handle_async_request(self, request: Any) -> Any:
            response = await self._inner.handle_async_request(request)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self._cap:
                await response.aclose()
                raise ResponseTooLarge(_too_large(self._where, self._cap))
            response.stream = CappedStream(response.stream, self._cap, self._where)
            return response

        async def aclose(self) -> None:
            await self._inner.aclose()

    return CappedTransport


def _too_large(where: str, cap: int) -> str:
    return (
        f"{where} sent a response larger than {cap} bytes; it was cut off. Lower max_tokens, or raise "
        "[model] max_response_bytes if the server is trusted"
    )


__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "ResponseTooLarge", "capped_http_client", "client_http"]

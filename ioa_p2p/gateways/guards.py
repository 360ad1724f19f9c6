"""Limits on what outside clients may hold of a gateway, in total (ASGI layers; asyncio and trio alike).

- :class:`RequestLimit`: at most ``limit`` HTTP requests inside the application at once, whoever sends
  them (tokens and connections are cheap); one more gets HTTP 503 with ``Retry-After`` at once. It bounds
  what all open requests together hold: their bodies (each at most :class:`BodyLimit`'s), their streams.
- :class:`BodyLimit`: a request body of more than ``limit`` bytes is refused (HTTP 413) before the
  application parses it, whether its ``Content-Length`` says so or its chunks add up to it; a body whose
  bytes stop coming is refused after ``seconds`` (HTTP 408). The body is read in full first, then handed
  to the application.

Both answer JSON: ``{"error": ...}``, or for the A2A gateway a JSON-RPC error object (``id`` null; code
-32600, invalid request) that A2A clients read as the reason.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from ioa_p2p.gateways.auth import ASGIApp, Message, Receive, Scope, Send

#: Requests inside a gateway's application at once (streams included), in total.
MAX_REQUESTS = 256
#: Bytes of one request body (a task or a goal in words, its options).
MAX_BODY = 1 << 20
#: Seconds a client may take to send a request body.
BODY_TIMEOUT = 30.0

Refusal = Callable[[int, str], bytes]


def plain_refusal(status: int, text: str) -> bytes:
    return json.dumps({"error": text}).encode()


def jsonrpc_refusal(status: int, text: str) -> bytes:
    """A JSON-RPC 2.0 error (invalid request) saying ``text``."""
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": text}}).encode()


async def refuse(send: Send, status: int, text: str, body: Refusal, headers: tuple[Any, ...] = ()) -> None:
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"), *headers]}  # fmt: skip
    await send(start)
    await send({"type": "http.response.body", "body": body(status, text)})


class RequestLimit:
    """ASGI: at most ``limit`` requests in the application at once (see the module docstring)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_REQUESTS, *, refusal: Refusal = plain_refusal) -> None:
        self.app = app
        self.limit = limit
        self.inside = 0
        self.refusal = refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.inside >= self.limit:
            text = f"this gateway serves {self.limit} requests at once already; retry later"
            await refuse(send, 503, text, self.refusal, ((b"retry-after", b"1"),))
            return
        self.inside += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.inside -= 1


class BodyLimit:
    """ASGI: request bodies of at most ``limit`` bytes, sent within ``seconds`` (module docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int = MAX_BODY,
        seconds: float = BODY_TIMEOUT,
        *,
        refusal: Refusal = plain_refusal,
    ) -> None:
        self.app = app
        self.limit = limit
        self.seconds = seconds
        self.refusal = refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = f"the request body is larger than {self.limit} bytes"
        if _declared_length(scope) > self.limit:
            await refuse(send, 413, too_big, self.refusal)
            return
        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self.seconds) as scoped:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                chunk = bytes(message.get("body", b""))
                size += len(chunk)
                if size > self.limit:
                    await refuse(send, 413, too_big, self.refusal)
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        if scoped.cancelled_caught:
            await refuse(
                send, 408, f"the request body did not arrive within {self.seconds:g} s", self.refusal
            )
            return
        await self.app(scope, _replay(b"".join(chunks), receive), send)


def _declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def _replay(body: bytes, receive: Receive) -> Callable[[], Awaitable[Message]]:
    """A ``receive`` that gives ``body`` once, then waits on the client's (for its disconnect)."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


__all__ = [
    "BODY_TIMEOUT",
    "MAX_BODY",
    "MAX_REQUESTS",
    "BodyLimit",
    "RequestLimit",
    "jsonrpc_refusal",
    "plain_refusal",
]

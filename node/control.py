"""The node's local control API: HTTP/JSON on 127.0.0.1 only, behind a random bearer token.

A tiny ASGI application served by hypercorn on trio. Services add routes with :meth:`ControlAPI.add_route`;
a handler receives a :class:`ControlRequest` and returns a JSON-able value, or a :class:`Streaming` whose
async iterator of JSON-able items is sent as newline-delimited JSON. Our errors map to HTTP statuses:
input errors 400, unknown routes 404, remote-peer errors 502, timeouts 504, local-state errors 409,
anything else 500; the body is ``{"error": {"type": <class name>, "message": <text>}}``.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve

from ioa_p2p.errors import (
    InputError,
    IoAError,
    IoATimeout,
    LocalStateError,
    RemotePeerError,
    UsageError,
)

log = logging.getLogger("ioa_p2p.control")
MAX_BODY = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ControlRequest:
    method: str
    path: str
    query: dict[str, str]
    body: Any

    def arg(self, name: str, kind: type = str, default: Any = ...) -> Any:
        """A field of the JSON body (or the query string), type-checked; missing -> UsageError."""
        source = self.body if isinstance(self.body, dict) else {}
        if name in source:
            value = source[name]
        elif name in self.query:
            value = self.query[name]
            if kind is int:
                try:
                    value = int(value)
                except ValueError:
                    raise UsageError(f"query parameter {name!r} must be an integer") from None
        elif default is not ...:
            return default
        else:
            raise UsageError(f"missing field {name!r}")
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise UsageError(f"field {name!r} must be {kind.__name__}")
        return value


@dataclass(slots=True)
class Streaming:
    items: AsyncIterator[Any]


Handler = Callable[[ControlRequest], Awaitable[Any]]


@dataclass
class ControlAPI:
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    routes: dict[tuple[str, str], Handler] = field(default_factory=dict)
    port: int = 0

    def add_route(self, method: str, path: str, handler: Handler) -> None:
        key = (method.upper(), path)
        if key in self.routes:
            raise ValueError(f"route {method} {path} registered twice")
        self.routes[key] = handler

    async def serve(self, *, port: int = 0, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Serve until cancelled; ``task_status.started(port)`` once listening."""
        config = HypercornConfig()
        config.bind = [f"127.0.0.1:{port}"]
        config.accesslog = None
        config.errorlog = logging.getLogger("hypercorn.error")
        config.graceful_timeout = 1.0
        config.keep_alive_timeout = 5.0

        class _Status:
            def started(inner_self, binds: list[str] | None = None) -> None:
                chosen = int(binds[0].rsplit(":", 1)[1]) if binds else port
                self.port = chosen
                task_status.started(chosen)

        await serve(self._asgi, config, task_status=_Status(), mode="asgi")  # type: ignore[arg-type]

    def write_files(self, home: Path, info: dict[str, Any]) -> None:
        token_path = home / "control.token"
        fd = os.open(token_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, self.token.encode())
        finally:
            os.close(fd)
        tmp = home / "node.json.tmp"
        tmp.write_text(json.dumps(info, indent=2), encoding="utf-8")
        os.replace(tmp, home / "node.json")

    # ------------------------------------------------------------------ ASGI

    async def _asgi(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        status, payload = await self._dispatch(scope, receive)
        if isinstance(payload, Streaming):
            await self._send_stream(send, payload)
            return
        body = json.dumps(payload).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _dispatch(self, scope: dict[str, Any], receive: Any) -> tuple[int, Any]:
        headers = dict(scope.get("headers", []))
        supplied = headers.get(b"authorization", b"").decode(errors="replace")
        if not hmac.compare_digest(supplied, f"Bearer {self.token}"):
            return 401, _error_body("Unauthorized", "missing or wrong control token")
        handler = self.routes.get((scope["method"], scope["path"]))
        if handler is None:
            return 404, _error_body("NotFound", f"no endpoint {scope['method']} {scope['path']}")
        try:
            raw = await _read_body(receive)
            body = json.loads(raw) if raw else None
        except ValueError:
            return 400, _error_body("UsageError", "request body is not valid JSON (or too large)")
        query = {k: v[-1] for k, v in parse_qs(scope.get("query_string", b"").decode()).items()}
        request = ControlRequest(scope["method"], scope["path"], query, body)
        try:
            return 200, await handler(request)
        except IoAError as exc:
            return _status_of(exc), _error_body(type(exc).__name__, str(exc))
        except Exception as exc:
            log.exception("control API handler %s %s crashed", scope["method"], scope["path"])
            return 500, _error_body("InternalError", f"{type(exc).__name__}: {exc}")

    async def _send_stream(self, send: Any, payload: Streaming) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/x-ndjson")],
            }
        )
        try:
            async for item in payload.items:
                line = json.dumps(item).encode() + b"\n"
                await send({"type": "http.response.body", "body": line, "more_body": True})
        except IoAError as exc:
            error = {"error": {"type": type(exc).__name__, "message": str(exc)}}
            await send(
                {
                    "type": "http.response.body",
                    "body": json.dumps(error).encode() + b"\n",
                    "more_body": True,
                }
            )
        await send({"type": "http.response.body", "body": b""})


async def _read_body(receive: Any) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise ValueError("body too large")
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _status_of(exc: IoAError) -> int:
    if isinstance(exc, InputError):
        return 400
    if isinstance(exc, IoATimeout):
        return 504
    if isinstance(exc, RemotePeerError):
        return 502
    if isinstance(exc, LocalStateError):
        return 409
    return 500


def _error_body(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message}}

"""The node's local control API: HTTP/JSON on 127.0.0.1 only, behind a random bearer token.

A tiny ASGI application served by hypercorn on trio. Services add routes with :meth:`ControlAPI.add_route`;
a handler receives a :class:`ControlRequest` and returns a JSON-able value, or a :class:`Streaming` whose
async iterator of JSON-able items is sent as newline-delimited JSON. Our errors map to HTTP statuses:
input errors 400, unknown routes 404, remote-peer errors 502, timeouts 504, a full disk 507, other
local-state errors 409, anything else 500; the body is
``{"error": {"type": <class name>, "message": <text>}}``.

Requests are checked before any handler runs: a missing or wrong ``Authorization`` header (any bytes,
compared in constant time) is 401; a body that is not UTF-8 JSON, larger than ``MAX_BODY`` or nested
deeper than ``MAX_JSON_DEPTH``, or a query string that is not UTF-8, is 400. A control port that is out
of range or already in use is a :class:`~ioa_p2p.errors.ConfigError` naming ``[node].control_port``.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve

from ioa_p2p.errors import (
    ConfigError,
    InputError,
    IoAError,
    IoATimeout,
    LocalStateError,
    RemotePeerError,
    StorageFull,
    UsageError,
)

log = logging.getLogger("ioa_p2p.control")
MAX_BODY = 4 * 1024 * 1024
#: Deepest nesting of arrays/objects accepted in a request body (our requests nest 3 or 4 levels).
MAX_JSON_DEPTH = 64


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
        """Serve until cancelled; ``task_status.started(port)`` once listening. A port that cannot be
        bound raises :class:`ConfigError` (exit code 2) before anything is served."""
        sock = bind_control_socket(port)
        config = HypercornConfig()
        config.bind = [f"fd://{sock.detach()}"]  # hypercorn owns the bound socket from here on
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
        supplied = headers.get(b"authorization", b"")
        # Compared as bytes: any header value (non-ASCII too) is just wrong, never an error.
        if not hmac.compare_digest(supplied, f"Bearer {self.token}".encode()):
            return 401, _error_body("Unauthorized", "missing or wrong control token")
        handler = self.routes.get((scope["method"], scope["path"]))
        if handler is None:
            return 404, _error_body("NotFound", f"no endpoint {scope['method']} {scope['path']}")
        try:
            body = parse_json_body(await _read_body(receive))
            query = {k: v[-1] for k, v in parse_qs(scope.get("query_string", b"").decode("utf-8")).items()}
        except UsageError as exc:
            return 400, _error_body("UsageError", str(exc))
        except UnicodeDecodeError:
            return 400, _error_body("UsageError", "the query string is not UTF-8")
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


def bind_control_socket(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:``port`` (0: any free port); ConfigError when impossible."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError(f"[node].control_port must be a TCP port 0..65535 (0: any free port), not {port!r}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"[node].control_port {port}: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc} "
            "(is another node running with this port?); choose another port, or 0 for any free one"
        ) from None
    return sock


def parse_json_body(raw: bytes) -> Any:
    """The request body as JSON (None when empty); UsageError unless UTF-8 JSON nested at most
    ``MAX_JSON_DEPTH`` levels."""
    if not raw:
        return None
    too_deep = f"request body nests arrays/objects deeper than {MAX_JSON_DEPTH} levels"
    try:
        value = json.loads(raw)
    except RecursionError:  # deeper than the interpreter's recursion limit
        raise UsageError(too_deep) from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise UsageError(f"request body is not valid UTF-8 JSON: {exc}") from None
    if _depth_over(value, MAX_JSON_DEPTH):
        raise UsageError(too_deep)
    return value


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` deep (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


async def _read_body(receive: Any) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise UsageError(f"request body is larger than {MAX_BODY} bytes")
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
    if isinstance(exc, StorageFull):
        return 507  # insufficient storage
    if isinstance(exc, LocalStateError):
        return 409
    return 500


def _error_body(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message}}

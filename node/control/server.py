"""The node's local control API: HTTP/JSON on 127.0.0.1 only, behind a random bearer token.

A tiny ASGI application served by hypercorn on trio. Each service registers its routes (from the one table,
:data:`ioa_p2p.api.routes.ROUTES`) in its own ``routes`` module with :meth:`ControlAPI.add_route`: the
handler receives the typed request (read and checked by the route's schema: a wrong field is a 400 naming
it) and a :class:`CallInfo`, and returns the typed reply (written by the schema), or a :class:`Streaming`
whose chunks are sent as they come (NDJSON or server-sent events, :mod:`ioa_p2p.api.stream`).
:meth:`ControlAPI.add_raw_route` takes a handler of a raw :class:`ControlRequest` (tests). Our errors map
to HTTP statuses:
input errors 400, unknown routes 404, remote-peer errors 502, timeouts 504, a full disk 507, other
local-state errors 409, anything else 500; the body is
``{"error": {"type": <class name>, "message": <text>}}``.

Requests are checked before any handler runs: a request needs the ``Authorization: Bearer <token>``
header (any bytes, compared in constant time) or the cookie of a dashboard session (:mod:`.sessions`;
from the page's own origin only, with the session's ``X-IoA-CSRF`` header unless it is a ``GET``), else
401 (403 for a session request without its CSRF token or from another origin); a body that is not UTF-8
JSON, larger than ``MAX_BODY`` or nested deeper than ``MAX_JSON_DEPTH``, or a query string that is not
UTF-8, is 400. A control port that is out
of range or already in use is a :class:`~ioa_p2p.errors.ConfigError` naming ``[node].control_port``.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve

from ioa_p2p.api.codec import ApiObject, JsonObject, JsonValue
from ioa_p2p.api.routes import Route
from ioa_p2p.api.stream import NDJSON, SSE, error_json
from ioa_p2p.errors import (
    ConfigError,
    InputError,
    InvalidField,
    IoAError,
    IoATimeout,
    LocalStateError,
    RemotePeerError,
    StorageFull,
    UsageError,
)
from ioa_p2p.node.control.dashboard import SECURITY_HEADERS, Dashboard, Response
from ioa_p2p.node.control.sessions import Sessions, cookie_name, csrf_ok, read_cookie, same_origin

log = logging.getLogger("ioa_p2p.control")
MAX_BODY = 4 * 1024 * 1024
#: Deepest nesting of arrays/objects accepted in a request body (our requests nest 3 or 4 levels).
MAX_JSON_DEPTH = 64


Q = TypeVar("Q", bound=ApiObject)
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class ControlRequest:
    method: str
    path: str
    query: dict[str, str]
    body: JsonValue
    headers: Mapping[str, str] = field(default_factory=dict)  # lower-case names


@dataclass(frozen=True, slots=True)
class CallInfo:
    """What a typed handler may need of the HTTP request besides its fields: whether the body asked for a
    stream, whether the client accepts server-sent events, the ``Last-Event-ID`` it sent, and how it
    authenticated (``token``: the bearer token; ``session``: a dashboard session cookie)."""

    stream: bool = False
    sse: bool = False
    last_event_id: str | None = None
    auth: str = "token"

    @classmethod
    def of(cls, request: ControlRequest, stream: bool) -> CallInfo:
        accept = request.headers.get("accept", "")
        auth = request.headers.get(AUTH_KIND, "token")
        return cls(stream, SSE in accept, request.headers.get("last-event-id"), auth)


@dataclass(slots=True)
class Streaming:
    """A streamed answer: ``chunks`` are sent as they come (``media_type``: NDJSON or SSE)."""

    chunks: AsyncIterator[bytes]
    media_type: str = NDJSON

    def error_chunk(self, kind: str, message: str) -> bytes:
        text = json.dumps(error_json(kind, message))
        return f"data: {text}\n\n".encode() if self.media_type == SSE else text.encode() + b"\n"


#: The pseudo-header through which the dispatcher tells handlers how a request authenticated.
AUTH_KIND = ":auth"
Handler = Callable[[ControlRequest], Awaitable[JsonValue | Streaming]]
#: A route's handler: the typed request and the call's details in, the typed reply (or a stream) out.
TypedHandler = Callable[[Q, CallInfo], Awaitable[R | Streaming]]


@dataclass
class ControlAPI:
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    routes: dict[tuple[str, str], Handler] = field(default_factory=dict)
    port: int = 0
    sessions: Sessions = field(default_factory=Sessions)
    dashboard: Dashboard = field(init=False)

    def __post_init__(self) -> None:
        self.dashboard = Dashboard(self.sessions, self.token_ok, lambda: self.port)

    def token_ok(self, supplied: str) -> bool:
        return hmac.compare_digest(supplied.encode("utf-8", "surrogatepass"), self.token.encode())

    def add_route(self, route: Route[Q, R], handler: TypedHandler[Q, R]) -> None:
        """Serve ``route``: requests are read by its request schema, replies written by its reply schema."""

        async def raw(request: ControlRequest) -> JsonValue | Streaming:
            typed, stream = route.read_request(request.body, request.query)
            answer = await handler(typed, CallInfo.of(request, stream))
            if isinstance(answer, Streaming):
                return answer
            return route.reply.encode(answer)

        self.add_raw_route(route.method, route.path, raw)

    def add_raw_route(self, method: str, path: str, handler: Handler) -> None:
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

    def write_files(self, home: Path, info: JsonObject) -> None:
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
        if self.dashboard.owns(scope["method"], scope["path"]):
            await self._serve_dashboard(scope, receive, send)
            return
        status, payload = await self._dispatch(scope, receive)
        if isinstance(payload, Streaming):
            await self._send_stream(send, payload, receive)
            return
        body = json.dumps(payload).encode()
        headers = [(b"content-type", b"application/json"), *SECURITY_HEADERS]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _serve_dashboard(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body = await _read_body(receive)
        except UsageError as exc:
            answer = Response(400, json.dumps(_error_body("UsageError", str(exc))).encode())
        else:
            answer = self.dashboard.handle(scope["method"], scope["path"], _header_names(scope), body)
        await send({"type": "http.response.start", "status": answer.status, "headers": answer.all_headers()})
        await send({"type": "http.response.body", "body": answer.body})

    def _authenticate(self, scope: dict[str, Any]) -> tuple[int, str]:
        """``(0, how)`` for a request that may go on (``token`` / ``session``), else ``(status, why)``."""
        headers = dict(scope.get("headers", []))
        supplied = headers.get(b"authorization")
        if supplied is not None or b"cookie" not in headers:
            # Compared as bytes: any header value (non-ASCII too) is just wrong, never an error.
            ok = supplied is not None and hmac.compare_digest(supplied, f"Bearer {self.token}".encode())
            return (0, "token") if ok else (401, "missing or wrong control token")
        names = _header_names(scope)
        value = read_cookie(names.get("cookie", ""), cookie_name(self.port))
        session = self.sessions.find(value) if value else None
        if session is None:
            return 401, "missing or wrong control token, and no dashboard session"
        if not same_origin(names, self.port):
            return 403, "a dashboard session is accepted only from the dashboard's own page"
        if scope["method"] != "GET" and not csrf_ok(session, names):
            return 403, "this request changes state: send the session's X-IoA-CSRF header"
        return 0, "session"

    async def _dispatch(self, scope: dict[str, Any], receive: Any) -> tuple[int, JsonValue | Streaming]:
        status, how = self._authenticate(scope)
        if status:
            return status, _error_body("Unauthorized" if status == 401 else "Forbidden", how)
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
        names = {**_header_names(scope), AUTH_KIND: how}
        request = ControlRequest(scope["method"], scope["path"], query, body, names)
        try:
            return 200, await handler(request)
        except InvalidField as exc:  # a UsageError: the type clients know, and which field is wrong
            return 400, {"error": {"type": "UsageError", "message": str(exc), "field": exc.path}}
        except IoAError as exc:
            return _status_of(exc), _error_body(type(exc).__name__, str(exc))
        except Exception as exc:
            log.exception("control API handler %s %s crashed", scope["method"], scope["path"])
            return 500, _error_body("InternalError", f"{type(exc).__name__}: {exc}")

    async def _send_stream(self, send: Any, payload: Streaming, receive: Any) -> None:
        """Send the stream's chunks until it ends, or until the client goes away (a stream that never
        ends by itself, like a chat's, stops then instead of sending heartbeats to nobody)."""
        headers = [(b"content-type", payload.media_type.encode()), *SECURITY_HEADERS]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        async with trio.open_nursery() as nursery:

            async def watch_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                nursery.cancel_scope.cancel()

            nursery.start_soon(watch_disconnect)
            try:
                async for chunk in payload.chunks:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
            except IoAError as exc:
                chunk = payload.error_chunk(type(exc).__name__, str(exc))
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
            nursery.cancel_scope.cancel()


def _header_names(scope: dict[str, Any]) -> dict[str, str]:
    """The request's headers by lower-case name (latin-1, as HTTP/1.1 carries them)."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


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


def parse_json_body(raw: bytes) -> JsonValue:
    """The request body as JSON (None when empty); UsageError unless UTF-8 JSON nested at most
    ``MAX_JSON_DEPTH`` levels."""
    if not raw:
        return None
    too_deep = f"request body nests arrays/objects deeper than {MAX_JSON_DEPTH} levels"
    try:
        value: JsonValue = json.loads(raw)
    except RecursionError:  # deeper than the interpreter's recursion limit
        raise UsageError(too_deep) from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise UsageError(f"request body is not valid UTF-8 JSON: {exc}") from None
    if _depth_over(value, MAX_JSON_DEPTH):
        raise UsageError(too_deep)
    return value


def _depth_over(value: JsonValue, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` deep (iterative: no recursion)."""
    stack: list[tuple[JsonValue, int]] = [(value, 1)]
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


def _error_body(kind: str, message: str) -> JsonValue:
    return error_json(kind, message)

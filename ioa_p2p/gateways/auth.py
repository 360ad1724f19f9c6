"""A gateway's bearer token and the ASGI layers every gateway puts in front of its application.

- :func:`gateway_token`: the token in ``$IOA_HOME/<name>.token`` (mode 0600), made on first use and kept
  across restarts (a client configured once keeps working); ``--token-file`` names another file.
- :class:`BearerAuth`: every HTTP request but the public paths (the A2A agent card) needs
  ``Authorization: Bearer <token>``; anything else is HTTP 401 with ``WWW-Authenticate: Bearer``, before
  the application sees the request. Compared in constant time, as bytes (any header value is just wrong).
- :class:`SendTimeout`: a client that stops reading (a stalled stream) is dropped after ``seconds``
  without progress, so it cannot hold a stream slot, or the node's memory, for ever.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import stat
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import anyio

from ioa_p2p.errors import KeyFileError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Seconds a client may leave a response unread before the gateway drops the connection.
SEND_TIMEOUT = 30.0


def gateway_token(path: Path) -> str:
    """The token in ``path`` (mode 0600); a new random one written there when the file does not exist."""
    try:
        st = path.stat()
    except FileNotFoundError:
        token = secrets.token_urlsafe(32)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, token.encode())
        finally:
            os.close(fd)
        return token
    if os.name == "posix" and st.st_mode & 0o077:
        raise KeyFileError(
            f"gateway token {path} has mode {stat.S_IMODE(st.st_mode):04o}; it must be 0600 "
            f"(chmod 600 {path})"
        )
    try:
        token = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read gateway token {path}: {exc}") from None
    if len(token) < 16:
        raise KeyFileError(f"gateway token {path} is shorter than 16 characters; remove it to get a new one")
    return token


class BearerAuth:
    """ASGI: HTTP requests need the bearer token, except to ``public`` paths (see the module docstring)."""

    def __init__(self, app: ASGIApp, token: str, *, public: tuple[str, ...] = (), realm: str = "ioa") -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.public = public
        self.realm = realm

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in self.public:
            supplied = b""
            for name, value in scope.get("headers", ()):
                if name.lower() == b"authorization":
                    supplied = value
            if not hmac.compare_digest(supplied, self.expected):
                await _unauthorized(send, self.realm)
                return
        await self.app(scope, receive, send)


async def _unauthorized(send: Send, realm: str) -> None:
    body = json.dumps({"error": "missing or wrong bearer token (Authorization: Bearer <token>)"}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"www-authenticate", f'Bearer realm="{realm}"'.encode()),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class SendTimeout:
    """ASGI: a response body chunk that the client does not take within ``seconds`` ends the connection
    (works under asyncio and trio: anyio's timeout)."""

    def __init__(self, app: ASGIApp, seconds: float = SEND_TIMEOUT) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def bounded_send(message: Message) -> None:
            with anyio.fail_after(self.seconds):
                await send(message)

        await self.app(scope, receive, bounded_send)


__all__ = ["SEND_TIMEOUT", "BearerAuth", "SendTimeout", "gateway_token"]

"""Serving the MCP server of a node (``ioa mcp``): on stdio, or over streamable HTTP with a bearer token.

Runs under trio, like the node (``mcp``'s server is built on anyio). It talks to the node through its
control API, read from ``$IOA_HOME`` at every call: a desktop client may start ``ioa mcp`` before the
node, and each tool then says the node is not running until it is.

- stdio (``ioa mcp``): what desktop clients start from their config file; the protocol on stdout, our
  log on stderr.
- streamable HTTP (``ioa mcp --http HOST:PORT``): the endpoint ``/mcp``; every request needs
  ``Authorization: Bearer <token>`` (``$IOA_HOME/mcp.token``, made on first use, mode 0600); Host and
  Origin checked against the listen address (DNS rebinding); a stalled client is dropped after 30 s;
  bodies, requests and sessions bounded in total (:mod:`~ioa_p2p.gateways.guards`, :data:`MAX_SESSIONS`).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve

from ioa_p2p.config.gateway import Listen, check_exposure
from ioa_p2p.control_client.aio import AsyncControlClient
from ioa_p2p.gateways.auth import BearerAuth, SendTimeout, gateway_token
from ioa_p2p.gateways.guards import MAX_BODY, BodyLimit, RequestLimit
from ioa_p2p.gateways.listen import bind_socket
from ioa_p2p.gateways.mcp.tools import build_server

MCP_PATH = "/mcp"
#: MCP sessions open at once over HTTP (a client opens one when it connects), in total.
MAX_SESSIONS = 100
#: Seconds a session may stay idle before it is closed (its client connects again).
SESSION_IDLE = 600.0


async def serve_stdio(home: Path) -> None:
    """Serve MCP on this process's stdin/stdout until the client closes them."""
    async with AsyncControlClient(home, timeout=30.0) as client:
        await build_server(home, client).run_stdio_async()


@dataclass(frozen=True, slots=True)
class HttpEndpoint:
    """Where ``ioa mcp --http`` serves: the bound socket, its URL, the token (made before any loop runs,
    so that a wrong address, a taken port or a bad token file is our error at once)."""

    listen: Listen
    sock: socket.socket
    url: str
    token: str
    token_path: Path
    tls: tuple[str, str] | None


def bind_http(listen: Listen, token_path: Path, *, tls: tuple[str, str] | None = None) -> HttpEndpoint:
    """Check the exposure rule, read (or make) the token, bind ``listen`` (UsageError, KeyFileError,
    ConfigError)."""
    check_exposure(listen, tls=tls is not None, public_url=None, url_option=False)
    token = gateway_token(token_path)
    sock = bind_socket(listen, "--http")
    url = listen.url(sock.getsockname()[1], tls=tls is not None).rstrip("/") + MCP_PATH
    return HttpEndpoint(listen, sock, url, token, token_path, tls)


async def serve_http(
    home: Path,
    endpoint: HttpEndpoint,
    *,
    announce: Callable[[str], Any] = print,
    task_status: Any = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve MCP over streamable HTTP at ``endpoint`` until cancelled; ``task_status.started(url)``."""
    host = "127.0.0.1" if endpoint.listen.host == "localhost" else endpoint.listen.host
    client = AsyncControlClient(home, timeout=30.0)
    server = build_server(home, client)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=host,
        max_request_body_size=MAX_BODY,
        max_sessions=MAX_SESSIONS,
        session_idle_timeout=SESSION_IDLE,
    )
    guarded = SendTimeout(BearerAuth(RequestLimit(BodyLimit(app)), endpoint.token, realm="ioa-mcp"))
    config = HypercornConfig()
    config.bind = [f"fd://{endpoint.sock.detach()}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = 2.0
    if endpoint.tls is not None:
        config.certfile, config.keyfile = endpoint.tls
    announce(f"mcp server on {endpoint.url}; bearer token in {endpoint.token_path}")

    class _Started:
        def started(self, binds: list[str] | None = None) -> None:
            task_status.started(endpoint.url)

    async with client:
        await serve(guarded, config, task_status=_Started(), mode="asgi")  # type: ignore[arg-type]


__all__ = [
    "MAX_SESSIONS",
    "MCP_PATH",
    "SESSION_IDLE",
    "HttpEndpoint",
    "bind_http",
    "serve_http",
    "serve_stdio",
]

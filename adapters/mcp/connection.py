"""A session with one MCP server (the ``mcp`` package's client), opened and closed under our rules.

- stdio: the server command runs as a child process with the SDK's safe default environment plus the
  configured ``env``; its stderr goes to an anonymous temporary file (:class:`ServerLog`) whose tail
  explains a failed start; closing the session stops the process (stdin closed, then SIGTERM/SIGKILL to
  its process group: the SDK's shielded shutdown), so it is never orphaned.
- streamable HTTP: through an ``httpx2`` client (the SDK's HTTP library) with our headers and a byte limit on
  every response.
- Every failure is translated once into our errors with the server's own words:
  :class:`~ioa_p2p.errors.PeerUnreachable` (cannot start / connect, exited),
  :class:`~ioa_p2p.errors.IoATimeout`, :class:`~ioa_p2p.errors.ProtocolViolation` (the SDK rejected what
  the server sent).
"""

from __future__ import annotations

import fcntl
import logging
import math
import os
import shlex
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

import httpx2
import mcp
import pydantic
import trio
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from ioa_p2p.adapters.remote import bounded_transport, scrub, strip_userinfo
from ioa_p2p.adapters.toolloop.spec import ToolSpec
from ioa_p2p.errors import IoAError, IoATimeout, PeerUnreachable, ProtocolViolation, RemotePeerError
from ioa_p2p.faults import exception_leaves, single_error

log = logging.getLogger(__name__)

LOG_KEEP_BYTES = 1 << 20  # the stderr file is emptied when it grows past this (a long-lived chatty server)
MAX_TOOL_PAGES = 20


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """How to reach the server: ``command`` (stdio) or ``url`` (streamable HTTP)."""

    command: tuple[str, ...] = ()
    url: str = ""
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    max_response_bytes: int = 4 << 20
    secrets: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.command:
            return f"the MCP server command {shlex.join(self.command)[:200]!r}"
        return f"the MCP server at {strip_userinfo(self.url)}"


class ServerLog:
    """The stdio server's stderr: an anonymous append-only temporary file, read for its tail."""

    def __init__(self) -> None:
        fd, path = tempfile.mkstemp(prefix="ioa-mcp-", suffix=".log")
        os.unlink(path)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        self.file: TextIO = os.fdopen(fd, "a+", encoding="utf-8", errors="replace")

    def tail(self, limit: int = 1500) -> str:
        """The end of what the server wrote (the file is emptied when it grows past LOG_KEEP_BYTES)."""
        self.file.flush()
        size = os.fstat(self.file.fileno()).st_size
        with open(self.file.fileno(), "rb", closefd=False) as raw:
            raw.seek(max(0, size - limit))
            text = raw.read().decode("utf-8", "replace").strip()
        if size > LOG_KEEP_BYTES:
            self.file.truncate(0)
        return text

    def close(self) -> None:
        self.file.close()


def _transport(spec: ServerSpec, server_log: ServerLog, http: httpx2.AsyncClient | None) -> Any:
    if spec.command:
        params = mcp.StdioServerParameters(
            command=spec.command[0], args=list(spec.command[1:]), env=dict(spec.env) or None, cwd=spec.cwd
        )
        return stdio_client(params, errlog=server_log.file)
    return streamable_http_client(spec.url, http_client=http)


@asynccontextmanager
async def open_session(
    spec: ServerSpec, server_log: ServerLog, *, start_limit: float
) -> AsyncIterator[mcp.Client]:
    """A connected, initialised client; start-up is bounded by ``start_limit`` seconds."""
    http = None
    if not spec.command:
        http = httpx2.AsyncClient(
            transport=bounded_transport(spec.max_response_bytes, lib=httpx2),
            headers=spec.headers,
            timeout=httpx2.Timeout(30.0, read=300.0),
        )
    ready = False
    try:
        with single_error(), trio.CancelScope(deadline=trio.current_time() + start_limit) as scope:
            try:
                # The SDK stops a stdio server when this block exits (shielded and bounded).
                async with mcp.Client(_transport(spec, server_log, http), mode="auto") as client:
                    ready = True
                    scope.deadline = math.inf
                    yield client
            except Exception as exc:
                if ready:
                    raise
                raise translate_errors(spec, server_log, "start").translate(exc) from exc
        if not ready:  # the start-up deadline passed
            said = translate_errors(spec, server_log, "start").server_said()
            raise IoATimeout(f"{spec.describe()} did not start within {start_limit:g} s{said}")
    finally:
        if http is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await http.aclose()


async def list_tools(client: mcp.Client, max_tools: int) -> list[ToolSpec]:
    """The server's tools (following pages), at most ``max_tools``."""
    tools: list[ToolSpec] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            tools.append(
                ToolSpec(
                    tool.name,
                    tool.description or tool.title or "",
                    dict(tool.input_schema or {}),
                    dict(tool.output_schema) if tool.output_schema else None,
                )
            )
        cursor = page.next_cursor
        if not cursor or len(tools) >= max_tools:
            break
    return tools[:max_tools]


class translate_errors:  # noqa: N801 - used as a context manager, reads as a verb
    """Turn what the SDK, the process or the network raised into our errors with the server's words."""

    def __init__(self, spec: ServerSpec, log: ServerLog | None, doing: str) -> None:
        self.spec, self.log, self.doing = spec, log, doing

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> Literal[False]:
        if exc is None or isinstance(exc, trio.Cancelled | IoAError) and not isinstance(exc, IoATimeout):
            return False
        if not isinstance(exc, Exception):
            return False
        raise self.translate(exc) from exc

    def translate(self, exc: Exception) -> IoAError:
        if isinstance(exc, BaseExceptionGroup):
            leaves = [e for e in exception_leaves(exc) if isinstance(e, Exception)]
            if leaves:
                exc = leaves[0]
        if isinstance(exc, IoAError) and not isinstance(exc, IoATimeout):
            return exc
        where = self.spec.describe()
        said = self.server_said()
        detail = scrub(str(exc) or type(exc).__name__, self.spec.secrets, limit=500)
        if isinstance(exc, trio.TooSlowError | IoATimeout):
            return IoATimeout(f"{where} did not answer in time ({self.doing}){said}")
        if isinstance(exc, FileNotFoundError | PermissionError | NotADirectoryError):
            return PeerUnreachable(f"cannot start {where}: {exc.strerror or detail}; check the command{said}")
        if isinstance(exc, mcp.MCPError) and "closed" in str(exc).lower():
            return PeerUnreachable(f"{where} closed the connection ({self.doing}){said}")
        if isinstance(exc, httpx2.ConnectError | httpx2.UnsupportedProtocol):
            return PeerUnreachable(
                f"cannot connect to {where}: {detail}; check the URL and that it is running"
            )
        if isinstance(exc, httpx2.HTTPError | OSError):
            return PeerUnreachable(f"{where} failed ({self.doing}): {type(exc).__name__}: {detail}{said}")
        if isinstance(exc, pydantic.ValidationError | ValueError):
            return ProtocolViolation(f"{where} sent something the MCP client rejects: {detail[:300]}")
        return RemotePeerError(f"{where} failed ({self.doing}): {type(exc).__name__}: {detail}{said}")

    def server_said(self) -> str:
        if self.log is None or not self.spec.command:
            return ""
        tail = scrub(self.log.tail(), self.spec.secrets, limit=1500)
        return f"; the server said: {tail}" if tail else ""


__all__ = ["ServerLog", "ServerSpec", "list_tools", "open_session", "translate_errors"]

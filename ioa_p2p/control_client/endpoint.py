"""Where a running node's control API is and how to talk to it; the node's error answers as our errors.

The node writes ``$IOA_HOME/node.json`` (``{"pid", "peer_id", "addrs", "control": {"host", "port"}}``) and
``$IOA_HOME/control.token`` (mode 0600) when it starts. Requests carry ``Authorization: Bearer <token>``;
errors come back as ``{"error": {"type", "message", "field"?}}`` with a 4xx/5xx status
(docs/protocol.md §7), which :func:`error_from` turns into :class:`~ioa_p2p.errors.InvalidField` (a
field of the request was wrong) or :class:`~ioa_p2p.errors.ControlAPIError`.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlencode

from ioa_p2p.api.codec import ApiObject, JsonObject, JsonValue, to_query
from ioa_p2p.api.routes import Route
from ioa_p2p.config.node_config import NODE_INFO_FILE_NAME, TOKEN_FILE_NAME
from ioa_p2p.errors import ControlAPIError, InvalidField, IoAError, KeyFileError, NodeNotRunning

Q = TypeVar("Q", bound=ApiObject)
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A node's control API: ``127.0.0.1:port`` and its bearer token."""

    port: int
    token: str
    host: str = "127.0.0.1"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @classmethod
    def of_home(cls, home: Path) -> Endpoint:
        """The endpoint of the node running for ``home`` (NodeNotRunning when there is none)."""
        info = node_info(home)
        control = info["control"]
        port = control.get("port") if isinstance(control, dict) else None
        if isinstance(port, bool) or not isinstance(port, int):
            raise NodeNotRunning(f"{home / NODE_INFO_FILE_NAME} has no control port; restart the node")
        return cls(port, read_token(home))


def node_info(home: Path) -> JsonObject:
    """``node.json`` of the node running for ``home``."""
    path = home / NODE_INFO_FILE_NAME
    try:
        info: JsonValue = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NodeNotRunning(
            f"no running node for {home} (no {path}); start one with `ioa node start`"
        ) from None
    except (OSError, ValueError) as exc:
        raise NodeNotRunning(f"cannot read {path}: {exc}; restart the node") from None
    if not isinstance(info, dict) or "control" not in info:
        raise NodeNotRunning(f"{path} is not a node info file; restart the node")
    return info


def read_token(home: Path) -> str:
    path = home / TOKEN_FILE_NAME
    try:
        st = path.stat()
        if os.name == "posix" and st.st_mode & 0o077:
            raise KeyFileError(
                f"control token {path} has mode {stat.S_IMODE(st.st_mode):04o}; it must be 0600"
            )
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise NodeNotRunning(f"no control token at {path}; start the node with `ioa node start`") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NodeNotRunning(f"cannot read control token {path}: {exc}") from None


def route_target(route: Route[Q, R], request: Q) -> tuple[str, JsonValue]:
    """The path (with its query string for a ``GET``) and the JSON body (``POST``) of a typed request."""
    if route.method == "GET":
        query = to_query(request)
        return (f"{route.path}?{urlencode(query)}" if query else route.path), None
    return route.path, request.to_json()


def error_from(status: int, data: bytes) -> IoAError:
    """The error of a node's 4xx/5xx answer (exit code 2 for the caller's fault, 1 otherwise)."""
    kind = ""
    try:
        error = json.loads(data)["error"]
        kind, message = str(error["type"]), str(error["message"])
        field = error.get("field")
    except (ValueError, KeyError, TypeError):
        message, field = (data.decode(errors="replace")[:500] or f"HTTP {status}"), None
    if status == 400 and isinstance(field, str):
        return InvalidField(field, message.removeprefix(f"{field}: "))
    exc = ControlAPIError(f"{kind}: {message}" if kind else message, status=status, error_type=kind)
    exc.exit_code = 2 if status in (400, 404, 422) else 1
    return exc


__all__ = ["Endpoint", "error_from", "node_info", "read_token", "route_target"]

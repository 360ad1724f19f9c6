"""Client of a running node's local control API (HTTP/JSON on 127.0.0.1, bearer token).

The node writes ``$IOA_HOME/node.json`` (``{"pid", "peer_id", "addrs", "control": {"host", "port"}}``) and
``$IOA_HOME/control.token`` (mode 0600) when it starts. Requests carry ``Authorization: Bearer <token>``;
bodies and replies are JSON; errors come back as ``{"error": {"type", "message"}}`` with a 4xx/5xx status.
Streaming endpoints answer newline-delimited JSON (``application/x-ndjson``), read with
:meth:`ControlClient.stream`.
"""

from __future__ import annotations

import http.client
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ioa_p2p.config.node_config import NODE_INFO_FILE_NAME, TOKEN_FILE_NAME
from ioa_p2p.errors import ControlAPIError, IoATimeout, KeyFileError, NodeNotRunning


class ControlClient:
    def __init__(self, home: Path, *, timeout: float = 30.0) -> None:
        self.home = home
        self.timeout = timeout

    def node_info(self) -> dict[str, Any]:
        path = self.home / NODE_INFO_FILE_NAME
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise NodeNotRunning(
                f"no running node for {self.home} (no {path}); start one with `ioa node start`"
            ) from None
        except (OSError, ValueError) as exc:
            raise NodeNotRunning(f"cannot read {path}: {exc}; restart the node") from None
        if not isinstance(info, dict) or "control" not in info:
            raise NodeNotRunning(f"{path} is not a node info file; restart the node")
        return info

    def _token(self) -> str:
        path = self.home / TOKEN_FILE_NAME
        try:
            st = path.stat()
            if os.name == "posix" and st.st_mode & 0o077:
                raise KeyFileError(
                    f"control token {path} has mode {stat.S_IMODE(st.st_mode):04o}; it must be 0600"
                )
            return path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            raise NodeNotRunning(
                f"no control token at {path}; start the node with `ioa node start`"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise NodeNotRunning(f"cannot read control token {path}: {exc}") from None

    def _request(
        self, method: str, path: str, body: Any, timeout: float | None
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        info = self.node_info()
        control = info["control"]
        conn = http.client.HTTPConnection("127.0.0.1", int(control["port"]), timeout=timeout or self.timeout)
        headers = {"Authorization": f"Bearer {self._token()}", "Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
        except TimeoutError:
            conn.close()
            raise IoATimeout(f"the node did not answer {method} {path} in time") from None
        except OSError as exc:
            conn.close()
            raise NodeNotRunning(
                f"the node of {self.home} does not answer on 127.0.0.1:{control['port']} ({exc}); "
                "it may have stopped: start it with `ioa node start`"
            ) from None
        if response.status >= 400:
            data = response.read()
            conn.close()
            raise _error_from(response.status, data)
        return conn, response

    def call(self, method: str, path: str, json_body: Any = None, *, timeout: float | None = None) -> Any:
        conn, response = self._request(method, path, json_body, timeout)
        try:
            data = response.read()
        except TimeoutError:
            raise IoATimeout(f"the node did not finish answering {method} {path} in time") from None
        finally:
            conn.close()
        try:
            return json.loads(data) if data else None
        except ValueError:
            raise ControlAPIError(f"the node answered {method} {path} with invalid JSON") from None

    def stream(
        self, method: str, path: str, json_body: Any = None, *, timeout: float | None = None
    ) -> Iterator[Any]:
        """Yield each JSON line of a streaming (NDJSON) answer."""
        conn, response = self._request(method, path, json_body, timeout)
        try:
            while True:
                try:
                    line = response.readline()
                except TimeoutError:
                    raise IoATimeout(f"the node went quiet while streaming {path}") from None
                if not line:
                    return
                if line.strip():
                    yield json.loads(line)
        finally:
            conn.close()


def _error_from(status: int, data: bytes) -> ControlAPIError:
    try:
        error = json.loads(data)["error"]
        message = f"{error['type']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        message = data.decode(errors="replace")[:500] or f"HTTP {status}"
    exc = ControlAPIError(message)
    exc.exit_code = 2 if status in (400, 404, 422) else 1
    return exc

"""A small Agent Protocol v1 server for tests, written to the published OpenAPI spec (stdlib, 127.0.0.1).

Endpoints: ``POST /ap/v1/agent/tasks``, ``GET /ap/v1/agent/tasks/{id}``, ``POST|GET .../steps``,
``GET .../artifacts`` (paginated, as the spec says) and ``GET .../artifacts/{artifact_id}`` (the file).
Behaviour by task input: ``forever`` never sets ``is_last``; ``slow`` takes 1 s per step; otherwise three
steps (plan, write, summarise), the second writing the artifact ``out/report.md``.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPORT = b"# Report\n\nThree steps, one artifact.\n"
STEP_NAMES = ("plan", "write", "summarise")


@dataclass
class APState:
    url: str = ""
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(state: APState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def _send(self, status: int, payload: Any, kind: str = "application/json") -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            value = json.loads(raw or b"{}")
            return value if isinstance(value, dict) else {}

        def do_POST(self) -> None:
            body = self._body()
            path = self.path.split("?")[0]
            if path == "/ap/v1/agent/tasks":
                if not isinstance(body.get("input"), str) or not body["input"]:
                    self._send(422, {"detail": "input is required"})
                    return
                task = {
                    "task_id": uuid.uuid4().hex,
                    "input": body["input"],
                    "additional_input": body.get("additional_input") or {},
                    "artifacts": [],
                    "steps": [],
                }
                with state.lock:
                    state.tasks[task["task_id"]] = task
                self._send(200, {k: v for k, v in task.items() if k != "steps"})
                return
            match = re.fullmatch(r"/ap/v1/agent/tasks/([^/]+)/steps", path)
            task = state.tasks.get(match.group(1)) if match else None
            if task is None:
                self._send(404, {"detail": "no such task"})
                return
            self._send(200, self._step(task))

        def _step(self, task: dict[str, Any]) -> dict[str, Any]:
            n = len(task["steps"]) + 1
            if "slow" in task["input"]:
                time.sleep(1.0)
            forever = "forever" in task["input"]
            name = f"step-{n}" if forever else STEP_NAMES[min(n, 3) - 1]
            artifacts = []
            if not forever and n == 2:
                artifact = {
                    "artifact_id": uuid.uuid4().hex,
                    "agent_created": True,
                    "file_name": "report.md",
                    "relative_path": "out",
                    "created_at": "2026-01-01T00:00:00Z",
                }
                with state.lock:
                    state.files[(task["task_id"], artifact["artifact_id"])] = REPORT
                    task["artifacts"].append(artifact)
                artifacts.append(artifact)
            output = {"plan": "I will write a report.", "write": "Wrote out/report.md."}.get(
                name, f"Done: {task['input']}" if not forever else f"still thinking ({n})"
            )
            step = {
                "task_id": task["task_id"],
                "step_id": uuid.uuid4().hex,
                "name": name,
                "status": "completed",
                "input": None,
                "additional_input": {},
                "output": output,
                "additional_output": {"n": n},
                "artifacts": artifacts,
                "is_last": not forever and n >= 3,
            }
            with state.lock:
                task["steps"].append(step)
            return step

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            parts = path.strip("/").split("/")  # ap v1 agent tasks {id} [artifacts [{aid}] | steps]
            task = (
                state.tasks.get(parts[4])
                if len(parts) >= 5 and parts[:4] == ["ap", "v1", "agent", "tasks"]
                else None
            )
            if task is None:
                self._send(404, {"detail": "no such task"})
            elif len(parts) == 5:
                self._send(200, {k: v for k, v in task.items() if k != "steps"})
            elif parts[5] == "steps":
                self._send(200, {"steps": task["steps"], "pagination": _page(len(task["steps"]))})
            elif parts[5] == "artifacts" and len(parts) == 6:
                self._send(200, {"artifacts": task["artifacts"], "pagination": _page(len(task["artifacts"]))})
            elif parts[5] == "artifacts" and (task["task_id"], parts[6]) in state.files:
                self._send(200, state.files[(task["task_id"], parts[6])], "application/octet-stream")
            else:
                self._send(404, {"detail": "not found"})

    return Handler


def _page(total: int) -> dict[str, int]:
    return {"total_items": total, "total_pages": 1, "current_page": 1, "page_size": max(total, 10)}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@contextlib.contextmanager
def serve_agent_protocol() -> Iterator[APState]:
    state = APState()
    httpd = _Server(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)

"""A real OpenAI-compatible HTTP server for tests (stdlib only, 127.0.0.1, scripted replies).

It speaks enough of the API for the ``openai`` package: ``POST /v1/chat/completions`` (plain content, JSON
content, tool calls, scripted HTTP errors, delays), ``POST /v1/embeddings`` (deterministic hashed vectors) and
``GET /v1/models``. Replies to chat completions come from a FIFO queue the test fills with :meth:`script`;
when the queue is empty the server answers with :attr:`default_reply` (or HTTP 500 if that is None).
Every request body is recorded in :attr:`requests` so tests can assert on what the client sent.

Use it through :func:`serve` (a context manager starting the server in a daemon thread)::

    with serve() as server:
        server.script(Reply(content='{"a": 1}'))
        client = openai.OpenAI(base_url=server.base_url, api_key="test")
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ToolCallReply:
    name: str
    arguments: str  # raw JSON text, possibly malformed on purpose
    id: str = ""


@dataclass(frozen=True)
class Reply:
    """One scripted answer to a chat completion request."""

    content: str | None = None
    tool_calls: tuple[ToolCallReply, ...] = ()
    status: int = 200  # non-200: answer with an OpenAI-style error body
    error_message: str = "scripted error"
    delay: float = 0.0  # seconds to wait before answering
    finish_reason: str = ""


@dataclass
class ScriptedServer:
    host: str = "127.0.0.1"
    port: int = 0
    default_reply: Reply | None = None
    embedding_dim: int = 16
    requests: list[dict[str, Any]] = field(default_factory=list)
    _queue: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def next_reply(self) -> Reply | None:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default_reply

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("_path", "").endswith("/chat/completions")]


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for i, call in enumerate(reply.tool_calls)
        ]
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _embedding(text: str, dim: int) -> list[float]:
    vector = [0.0] * dim
    for word in text.lower().split():
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % dim] += 1.0 if digest[1] & 1 else -1.0
    return vector


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request"}})
                return
            body["_path"] = self.path
            server.requests.append(body)
            if self.path.endswith("/chat/completions"):
                self._chat(body)
            elif self.path.endswith("/embeddings"):
                inputs = body.get("input")
                texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
                data = [
                    {"object": "embedding", "index": i, "embedding": _embedding(t, server.embedding_dim)}
                    for i, t in enumerate(texts)
                ]
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model", ""),
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def _chat(self, body: dict[str, Any]) -> None:
            reply = server.next_reply()
            if reply is None:
                self._send(500, {"error": {"message": "no scripted reply left", "type": "server_error"}})
                return
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status != 200:
                self._send(reply.status, {"error": {"message": reply.error_message, "type": "scripted"}})
                return
            self._send(200, _completion(body, reply))

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (timeout, cancellation) closed its socket: nothing to report


@contextlib.contextmanager
def serve(default_reply: Reply | None = None, embedding_dim: int = 16) -> Iterator[ScriptedServer]:
    """Run a :class:`ScriptedServer` on 127.0.0.1 (ephemeral port) in a daemon thread."""
    state = ScriptedServer(default_reply=default_reply, embedding_dim=embedding_dim)
    httpd = _Server(("127.0.0.1", 0), _handler(state))
    state.port = httpd.server_address[1]
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="openai-scripted", daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)

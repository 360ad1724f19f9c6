"""A hostile OpenAI-compatible chat server FOR TESTS AND BENCHMARKS (stdlib ``http.server``, 127.0.0.1).

It answers ``POST /v1/chat/completions`` the way misbehaving model servers and proxies do, one
:data:`MODES` value per server:

- ``ok``: a valid completion (a conclusion for turn prompts, ``team_up`` for team-up prompts);
- ``stall``: reads the request and never answers;
- ``trickle``: sends the headers, then one byte of a valid body every ``interval`` seconds;
- ``rate_limit``: HTTP 429 with ``Retry-After: <retry_after>`` (the first ``fail_first`` requests only
  when ``fail_first`` > 0, valid answers after);
- ``echo_headers``: HTTP 500 whose error message repeats every request header (an echoing proxy: the
  ``Authorization`` header included);
- ``invalid_json``: HTTP 200 with a body that is not JSON;
- ``unknown_members``: valid JSON naming members and agents that do not exist;
- ``self_nomination``: a discussion turn nominating the speaker itself, every time; endless
  ``search_agents`` calls for team-up prompts;
- ``huge``: a completion whose content is ``huge_bytes`` long;
- ``stream``: an SSE event stream although no streaming was requested;
- ``no_schema``: HTTP 400 for ``response_format`` ``json_schema`` (like an older server), ``ok`` otherwise.

Every request is recorded (:attr:`HostileServer.requests`: path, headers, body) so tests can assert what
the client sent (``max_tokens``, ``response_format``). Stalled handlers end when the server stops.

    with serve_hostile("stall") as server:
        ...  # base_url = server.base_url
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = (
    "ok",
    "stall",
    "trickle",
    "rate_limit",
    "echo_headers",
    "invalid_json",
    "unknown_members",
    "self_nomination",
    "huge",
    "stream",
    "no_schema",
)
_SPEAKER = re.compile(r"You are (.+?), one agent of a team")


@dataclass
class HostileServer:
    mode: str
    host: str = "127.0.0.1"
    port: int = 0
    interval: float = 1.0  # trickle: seconds between bytes
    retry_after: float = 3600.0  # rate_limit: the Retry-After header
    fail_first: int = 0  # rate_limit: only the first N requests are refused (0: all)
    huge_bytes: int = 4_000_000
    content: str | None = None  # ok: the content of every turn answer (default: a conclusion)
    requests: list[dict[str, Any]] = field(default_factory=list)
    stopped: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    def record(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> int:
        with self._lock:
            self.requests.append({"path": path, "headers": headers, "body": body})
            return len(self.requests)


def valid_answer(body: dict[str, Any]) -> dict[str, Any]:
    """What a well-behaved model would answer: ``team_up`` with the first shortlisted agent for a team-up
    prompt (``search_agents`` first), a conclusion for a turn prompt."""
    if body.get("tools"):
        shortlisted = any(m.get("role") == "tool" for m in body.get("messages", []))
        call = ("team_up", {"members": ["1"]}) if shortlisted else ("search_agents", {"queries": ["any"]})
        return {"tool_calls": [call]}
    decision = {"thought": "done", "message_type": "conclusion", "content": "The goal is answered."}
    return {"content": json.dumps(decision)}


def _speaker(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        found = _SPEAKER.search(str(message.get("content", "")))
        if found:
            return found.group(1)
    return "me"


def hostile_answer(mode: str, body: dict[str, Any]) -> dict[str, Any]:
    """The (syntactically valid) completion of the content modes."""
    if mode == "unknown_members":
        if body.get("tools"):
            return {"tool_calls": [("team_up", {"members": ["ghost-agent", "99"]})]}
        task = {"assignee": "ghost-agent", "title": "t", "description": "do it"}
        decision = {"message_type": "sync_task", "content": "Ghost, go.", "tasks": [task]}
        return {"content": json.dumps(decision)}
    if mode == "self_nomination":
        if body.get("tools"):
            return {"tool_calls": [("search_agents", {"queries": ["more agents"]})]}
        me = _speaker(body)
        decision = {"message_type": "discussion", "content": "Let me think more.", "next_speakers": [me]}
        return {"content": json.dumps(decision)}
    return valid_answer(body)


def completion(body: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.get("content")}
    calls = answer.get("tool_calls") or []
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ]
    return {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "hostile"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _handler(server: HostileServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(payload).encode(), headers)

        def do_GET(self) -> None:
            self._json(200, {"object": "list", "data": [{"id": "hostile", "object": "model"}]})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            count = server.record(self.path, dict(self.headers.items()), body)
            with contextlib.suppress(OSError):  # the client gave up (its deadline): nothing to do
                self._answer(body, count)

        def _answer(self, body: dict[str, Any], count: int) -> None:
            mode = server.mode
            if mode == "stall":
                server.stopped.wait()
            elif mode == "trickle":
                self._trickle(body)
            elif mode == "rate_limit" and (server.fail_first == 0 or count <= server.fail_first):
                error = {"error": {"message": "slow down", "type": "rate_limit_exceeded"}}
                self._json(429, error, {"Retry-After": f"{server.retry_after:g}"})
            elif mode == "echo_headers":
                echoed = "; ".join(f"{k}: {v}" for k, v in self.headers.items())
                self._json(500, {"error": {"message": f"upstream failed for {echoed}", "type": "proxy"}})
            elif mode == "invalid_json":
                self._send(200, b'{"id": "chatcmpl-x", "choices": [ {"message": oops')
            elif mode == "huge":
                answer = {"content": "{" + "x" * server.huge_bytes}
                self._json(200, completion(body, answer))
            elif mode == "stream":
                self._stream(body)
            elif mode == "no_schema" and body.get("response_format", {}).get("type") == "json_schema":
                refusal = {"message": "response_format type json_schema is not supported", "type": "bad"}
                self._json(400, {"error": refusal})
            elif server.content is not None and not body.get("tools"):
                self._json(200, completion(body, {"content": server.content}))
            else:
                self._json(200, completion(body, hostile_answer(mode, body)))

        def _trickle(self, body: dict[str, Any]) -> None:
            data = json.dumps(completion(body, valid_answer(body))).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
                if server.stopped.wait(server.interval):
                    return

        def _stream(self, body: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            text = valid_answer(body).get("content") or ""
            for piece in (text[:10], text[10:]):
                delta = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
                chunk = {"id": "c", "object": "chat.completion.chunk", "model": "hostile", "choices": [delta]}
                self._chunk(f"data: {json.dumps(chunk)}\n\n".encode())
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up closed its socket: nothing to report


@contextlib.contextmanager
def serve_hostile(mode: str, **options: Any) -> Iterator[HostileServer]:
    """Run a :class:`HostileServer` in ``mode`` on 127.0.0.1 (ephemeral port) in a daemon thread."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; one of {MODES}")
    state = HostileServer(mode, **options)
    httpd = _Server(("127.0.0.1", 0), _handler(state))
    state.port = httpd.server_address[1]
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=f"hostile-{mode}", daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        state.stopped.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


__all__ = ["MODES", "HostileServer", "completion", "hostile_answer", "serve_hostile", "valid_answer"]

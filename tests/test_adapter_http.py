"""Adapter kind ``http`` against a real stdlib HTTP server on 127.0.0.1 (success, 4xx, 5xx, slow, huge,
non-JSON, redirects, secrets echoed back)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import trio

from ioa_p2p.adapters import Task, TaskResult, run_task
from ioa_p2p.adapters.http import HttpAdapter, HttpOptions
from ioa_p2p.adapters.registry import load_adapter
from ioa_p2p.errors import AdapterOptionsError

SECRET = "s3cr3t-token-value"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[dict[str, Any]] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _send(self, status: int, body: bytes, kind: str = "application/json", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(body)

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        self._send(200, json.dumps({"text": f"got: {query['task'][0]}"}).encode())

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        Handler.seen.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        path = urlsplit(self.path).path
        if path == "/ok":
            answer = {
                "result": {"answer": f"did: {body['input']['prompt']}"},
                "meta": {"cost": 3, "by": "svc"},
            }
            self._send(200, json.dumps(answer).encode())
        elif path == "/chat":  # an OpenAI-compatible service: the answer and the tokens it used
            answer = {"choices": [{"message": {"content": "fine"}}], "model": "svc-1",
                      "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}}  # fmt: skip
            self._send(200, json.dumps(answer).encode())
        elif path == "/anthropic":
            answer = {"content": "fine", "tokens": {"input_tokens": 5, "output_tokens": 2, "model": "a-1"}}
            self._send(200, json.dumps(answer).encode())
        elif path == "/refuse":
            self._send(422, json.dumps({"error": {"message": "the task is too vague"}}).encode())
        elif path == "/auth":  # a proxy echoing our request headers back
            self._send(
                401,
                f"bad credentials: Authorization: {self.headers.get('Authorization')}".encode(),
                "text/plain",
            )
        elif path == "/boom":
            self._send(503, f"upstream down (api_key={SECRET})".encode(), "text/plain")
        elif path == "/slow":
            time.sleep(3)
            self._send(200, b'{"text": "too late"}')
        elif path == "/huge":
            self._send(200, json.dumps({"text": "x" * 2_000_000}).encode())
        elif path == "/endless":  # no Content-Length: only counting the bytes can stop it
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            with contextlib.suppress(OSError):
                for _ in range(200):
                    self.wfile.write(b"x" * 65536)
        elif path == "/html":
            self._send(200, b"<html><body>Service maintenance</body></html>", "text/html")
        elif path == "/redirect":
            self._send(302, b"", Location="/ok")
        else:
            self._send(404, b'{"error": {"message": "no such route"}}')


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the adapter hung up on purpose (over the limit, timeout)


@contextlib.contextmanager
def serve() -> Iterator[str]:
    httpd = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def adapter_for(url: str, **options: Any) -> HttpAdapter:
    base: dict[str, Any] = {
        "url": url,
        "headers": {"Authorization": "Bearer ${IOA_TEST_HTTP_TOKEN}"},
        "body": {"input": {"mode": "fast"}, "version": 2},
        "task_field": "input.prompt",
        "context_field": "input.history",
        "deadline_field": "deadline_s",
        "text_path": "result.answer",
        "data_path": "meta",
        "error_path": "error.message",
        "timeout": 1.5,
    }
    options = {**base, **options}
    from ioa_p2p.adapters import parse_options

    return HttpAdapter(parse_options(HttpOptions, options, "http"), env={"IOA_TEST_HTTP_TOKEN": SECRET})


async def _run(adapter: HttpAdapter, text: str = "summarise the report") -> TaskResult:
    context = [{"speaker": "alice", "type": "discussion", "content": "hello"}]
    return await run_task(adapter, Task.create(text, timeout=20, context=context))


async def test_a_task_is_sent_through_the_template_and_the_answer_extracted() -> None:
    Handler.seen.clear()
    with serve() as base:
        adapter = adapter_for(f"{base}/ok")
        result = await _run(adapter)
        await adapter.aclose()
    assert result.ok and result.text == "did: summarise the report"
    assert result.data["data"] == {"cost": 3, "by": "svc"} and result.data["http"] == {"status": 200}
    assert set(result.data["usage"]) == {
        "model",
        "prompt_tokens",
        "completion_tokens",
        "tool_calls",
        "wall_ms",
    }
    (sent,) = Handler.seen
    assert sent["auth"] == f"Bearer {SECRET}"
    body = sent["body"]
    assert body["input"]["prompt"] == "summarise the report" and body["input"]["mode"] == "fast"
    assert body["input"]["history"] == [{"speaker": "alice", "type": "discussion", "content": "hello"}]
    assert body["version"] == 2 and 0 < body["deadline_s"] <= 20


async def test_the_remotes_token_usage_is_its_results_usage() -> None:
    with serve() as base:
        chat = adapter_for(f"{base}/chat", text_path="choices.0.message.content")
        claude = adapter_for(f"{base}/anthropic", text_path="content", usage_path="tokens")
        ok = adapter_for(f"{base}/ok")  # reports no usage: unknown
        results = [await _run(a) for a in (chat, claude, ok)]
        for a in (chat, claude, ok):
            await a.aclose()
    usages = [r.data["usage"] for r in results]
    assert [(u["prompt_tokens"], u["completion_tokens"]) for u in usages] == [(42, 7), (5, 2), (None, None)]
    assert usages[1]["model"] == "a-1" and all(u["wall_ms"] >= 0 for u in usages)


async def test_get_puts_the_task_in_the_query() -> None:
    with serve() as base:
        adapter = adapter_for(f"{base}/anything", method="GET", task_field="task", text_path="text")
        result = await _run(adapter, "rain?")
        await adapter.aclose()
    assert result.ok and result.text == "got: rain?"


@pytest.mark.parametrize(
    ("path", "failure", "error_kind", "words"),
    [
        ("/refuse", "rejected", "refused", "the task is too vague"),
        ("/missing", "rejected", "refused", "no such route"),
        ("/auth", "task_error", "auth", "check the adapter's headers option"),
        ("/boom", "crash", "server_error", "upstream down"),
        ("/slow", "timeout", "timeout", "did not answer within 1.5 s"),
        ("/huge", "bad_output", "too_large", "over the limit of 524288"),
        ("/endless", "bad_output", "too_large", "larger than 524288 bytes"),
        ("/html", "bad_output", "bad_json", "did not answer JSON"),
        ("/redirect", "bad_output", "redirect", "redirect"),
    ],
)
async def test_failures_are_mapped_and_never_echo_secrets(
    path: str, failure: str, error_kind: str, words: str
) -> None:
    with serve() as base:
        adapter = adapter_for(f"{base}{path}", max_response_kb=512)
        with trio.fail_after(10):
            result = await _run(adapter)
        await adapter.aclose()
    assert not result.ok and result.failure == failure, result.text
    assert result.data["http"]["error_kind"] == error_kind and words in result.text
    assert SECRET not in json.dumps(result.to_dict(), default=str)


async def test_text_responses_and_missing_fields() -> None:
    with serve() as base:
        as_text = adapter_for(f"{base}/html", response="text")
        wrong_path = adapter_for(f"{base}/ok", text_path="result.summary")
        text, missing = await _run(as_text), await _run(wrong_path)
        await as_text.aclose()
        await wrong_path.aclose()
    assert text.ok and "Service maintenance" in text.text
    assert missing.failure == "bad_output" and "'result.summary'" in missing.text


async def test_an_unreachable_service_is_a_crash() -> None:
    with serve() as base:
        pass  # the port is closed again
    adapter = adapter_for(f"{base}/ok")
    result = await _run(adapter)
    await adapter.aclose()
    assert result.failure == "crash" and result.data["http"]["error_kind"] == "unreachable"


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"url": "ftp://x"},
        {"url": "http://127.0.0.1:1", "method": "DELETE"},
        {"url": "http://127.0.0.1:1", "response": "xml"},
        {"url": "http://127.0.0.1:1", "task_field": ""},
        {"url": "http://127.0.0.1:1", "headers": {"X-Key": "${IOA_TEST_UNSET_TOKEN}"}},
    ],
)
def test_bad_options_are_typed_errors(options: dict[str, Any]) -> None:
    with pytest.raises(AdapterOptionsError):
        load_adapter("http", options)

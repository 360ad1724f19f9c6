"""A model server's response body is bounded in size (ioa_p2p/llm/bounded_http.py): declared too large,
streamed without end, or just big: each is a ModelOutputError after at most the cap (plus a chunk) was
read, and a normal answer still goes through. Real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trio

from ioa_p2p.errors import ConfigError, ModelOutputError
from ioa_p2p.llm.bounded_http import ResponseTooLarge
from ioa_p2p.llm.openai_compat import OpenAIModel, model_from_settings
from ioa_p2p.testing.hostile_model import serve_hostile

CAP = 64 * 1024
MESSAGES = [{"role": "user", "content": "hello"}]


@contextmanager
def serve_endless(*, declare: int | None = None) -> Iterator[tuple[str, list[int]]]:
    """A server that answers every POST with 200 and an endless body (chunked), or only a huge
    Content-Length (``declare``). Yields its base URL and a list with the bytes it managed to send."""
    sent = [0]
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("content-length", "0")))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            if declare is not None:
                self.send_header("content-length", str(declare))
                self.end_headers()
                return
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            chunk = b'{"x": "' + b"a" * 16_384
            try:
                while not stop.is_set() and sent[0] < 512 * 1024 * 1024:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    sent[0] += len(chunk)
            except OSError:
                return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", sent
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


async def ask(base_url: str, cap: int = CAP) -> None:
    model = OpenAIModel(model="m", base_url=base_url, api_key="k", timeout=20, max_response_bytes=cap)
    try:
        with trio.fail_after(30):
            await model.complete(MESSAGES)
    finally:
        await model.aclose()


async def test_an_endless_body_is_cut_at_the_cap() -> None:
    with serve_endless() as (url, sent), pytest.raises(ResponseTooLarge, match="larger than 65536 bytes"):
        await ask(url)
    assert issubclass(ResponseTooLarge, ModelOutputError)
    # the client stopped reading at the cap: the server could not push the whole 512 MiB through
    assert sent[0] < 64 * 1024 * 1024


async def test_a_declared_huge_body_is_refused_before_reading() -> None:
    with serve_endless(declare=10**12) as (url, _), pytest.raises(ResponseTooLarge):
        await ask(url)


async def test_a_big_completion_over_the_cap_fails_and_a_normal_one_passes() -> None:
    with serve_hostile("huge", huge_bytes=200_000) as server, pytest.raises(ModelOutputError):
        await ask(server.base_url)
    with serve_hostile("ok") as server:
        model = OpenAIModel(model="m", base_url=server.base_url, api_key="k", max_response_bytes=CAP)
        try:
            with trio.fail_after(30):
                reply = await model.complete(MESSAGES)
        finally:
            await model.aclose()
        assert reply.text


def test_the_bound_is_a_model_setting() -> None:
    model = model_from_settings({"base_url": "http://127.0.0.1:9/v1", "max_response_bytes": 4096}, env={})
    assert model is not None
    with pytest.raises(ConfigError):
        model_from_settings({"base_url": "http://127.0.0.1:9/v1", "max_response_bytes": "lots"}, env={})

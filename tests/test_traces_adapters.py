"""Spans of an adapter's own calls, under the task's span (the node's tracer is the current tracer while
its adapter runs a task): the ``llm`` kind's model calls (``chat <model>``, GenAI attributes: model,
tokens) and tool calls (``execute_tool <name>``), and a remote agent's HTTP calls (``POST``, the HTTP
conventions' attributes) and MCP tool calls (``tools/call <tool>``), against real servers on 127.0.0.1
(an MCP server over stdio); with tracing off, nothing is recorded.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ioa_p2p.adapters import Task, TaskResult, open_adapter, run_task
from ioa_p2p.telemetry import TelemetrySettings
from ioa_p2p.telemetry.tracer import current_tracer, use_tracer

from .openai_server import Reply, ToolCallReply
from .openai_server import serve as serve_model
from .test_adapter_http import _run, adapter_for
from .test_adapter_http import serve as serve_http

MCP_SERVER = [sys.executable, str(Path(__file__).with_name("mcp_server.py"))]

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from ioa_p2p.node.telemetry.otel import OtelTracer  # noqa: E402


def open_tracer(tmp_path: Path) -> OtelTracer:
    return OtelTracer.create(TelemetrySettings(file="spans.jsonl"), tmp_path, "peer", {})


def finished(tracer: OtelTracer, tmp_path: Path) -> list[dict[str, Any]]:
    tracer.shutdown()  # flushes the exporter
    return [json.loads(line) for line in (tmp_path / "spans.jsonl").read_text().splitlines()]


async def test_the_llm_adapters_model_and_tool_calls_are_spans_under_the_task(tmp_path: Path) -> None:
    tracer = open_tracer(tmp_path)
    with serve_model() as server:
        server.script(
            Reply(
                tool_calls=(ToolCallReply("calculator", json.dumps({"expression": "6 * 7"})),),
                usage=(100, 20),
            ),
            Reply(content="The answer is 42.", usage=(150, 5)),
        )
        model = {"base_url": server.base_url, "api_key": "sk-test", "model": "tiny", "max_retries": 0}
        async with open_adapter("llm", {"model": model, "python": False}) as adapter:
            with tracer.span("ioa.task") as task, use_tracer(tracer):
                result = await run_task(adapter, Task.create("what is 6 times 7?", timeout=60))
                assert current_tracer() is tracer
            assert task.traceparent()
    assert result.ok and result.text == "The answer is 42."
    assert current_tracer().enabled is False  # the block is over: the no-op tracer again
    spans = finished(tracer, tmp_path)
    parent = next(s for s in spans if s["name"] == "ioa.task")
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert [s["name"] for s in chats] == ["chat openai/tiny"] * 2
    assert [
        (s["attributes"]["gen_ai.usage.input_tokens"], s["attributes"]["gen_ai.usage.output_tokens"])
        for s in chats
    ] == [(100, 20), (150, 5)]
    for span in chats:
        assert span["kind"] == "client" and span["parent_span_id"] == parent["span_id"]
        assert span["attributes"]["gen_ai.operation.name"] == "chat"
        assert span["attributes"]["gen_ai.request.model"] == "openai/tiny"
    tool = next(s for s in spans if s["name"] == "execute_tool calculator")
    assert tool["parent_span_id"] == parent["span_id"] and tool["status"] == "unset"
    assert tool["attributes"]["gen_ai.tool.name"] == "calculator"
    assert {s["trace_id"] for s in spans} == {parent["trace_id"]}


async def run_once(url: str) -> TaskResult:
    adapter = adapter_for(url)
    try:
        return await _run(adapter)
    finally:
        await adapter.aclose()


async def test_a_remote_agents_http_calls_are_client_spans_failures_marked(tmp_path: Path) -> None:
    tracer = open_tracer(tmp_path)
    with serve_http() as url:
        with tracer.span("invoke_agent svc", kind="client") as task, use_tracer(tracer):
            ok = await run_once(url + "/ok?key=secret-in-query")
            failed = await run_once(url + "/boom")
        # outside the block the adapter's calls record nothing
        assert (await run_once(url + "/ok")).ok
        assert task.traceparent()
    assert ok.ok and not failed.ok
    spans = finished(tracer, tmp_path)
    parent = next(s for s in spans if s["name"] == "invoke_agent svc")
    calls = [s for s in spans if s["name"] == "POST"]
    assert len(calls) == 2 and all(s["parent_span_id"] == parent["span_id"] for s in calls)
    good, bad = calls
    port = int(url.rsplit(":", 1)[1])
    assert good["attributes"] == {
        "http.request.method": "POST",
        "url.full": f"http://127.0.0.1:{port}/ok",  # no query: it may hold a secret
        "server.address": "127.0.0.1",
        "server.port": port,
        "http.response.status_code": 200,
    }
    assert good["status"] == "unset" and good["kind"] == "client"
    assert bad["attributes"]["http.response.status_code"] == 503 and bad["status"] == "error"
    assert bad["attributes"]["error.type"] == "503"


@pytest.mark.slow
async def test_mcp_tool_calls_are_client_spans_failures_marked(tmp_path: Path) -> None:
    tracer = open_tracer(tmp_path)
    async with open_adapter("mcp", {"command": MCP_SERVER}) as adapter:
        with tracer.span("invoke_agent tools", kind="client"), use_tracer(tracer):
            added = await run_task(
                adapter, Task.create('{"tool": "add", "arguments": {"a": 2, "b": 40}}', timeout=30)
            )
            failed = await run_task(
                adapter, Task.create('{"tool": "boom", "arguments": {"reason": "no"}}', timeout=30)
            )
    assert added.ok and added.text == "42" and not failed.ok
    spans = finished(tracer, tmp_path)
    parent = next(s for s in spans if s["name"] == "invoke_agent tools")
    add = next(s for s in spans if s["name"] == "tools/call add")
    boom = next(s for s in spans if s["name"] == "tools/call boom")
    assert add["parent_span_id"] == parent["span_id"] and add["kind"] == "client" and add["status"] == "unset"
    assert add["attributes"] == {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
    }
    assert boom["status"] == "error" and boom["attributes"]["error.type"]

"""Adapter kind ``mcp`` against a real MCP server built with the ``mcp`` package (tests/mcp_server.py),
over stdio (a child process) and streamable HTTP."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.adapters import Task, TaskContext, TaskResult, open_adapter, run_task
from ioa_p2p.adapters.mcp import CallTool, McpAdapter, McpOptions, ToolSpec, parse_tool_call
from ioa_p2p.adapters.registry import load_adapter
from ioa_p2p.errors import AdapterOptionsError, TaskRejected

from .mcp_server import PNG_1X1, serve_mcp_http

SERVER = [sys.executable, str(Path(__file__).with_name("mcp_server.py"))]
TOOLS = {"add", "forecast", "boom", "crash", "slow", "steps", "pixel", "pid", "summarise"}
USAGE_KEYS = {"model", "prompt_tokens", "completion_tokens", "tool_calls", "wall_ms"}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _run(adapter: Any, text: str, ctx: TaskContext | None = None) -> TaskResult:
    return await run_task(adapter, Task.create(text, timeout=30), ctx)


@pytest.mark.slow
async def test_stdio_server_tools_become_the_card_and_direct_calls_work() -> None:
    async with open_adapter("mcp", {"command": SERVER}) as adapter:
        card = adapter.describe()
        assert card.kind == "mcp" and set(card.skills) >= TOOLS
        assert "Arithmetic and weather tools" in card.description and "add(a, b)" in card.description
        added = await _run(adapter, '{"tool": "add", "arguments": {"a": 2, "b": 40}}')
        called = await _run(adapter, "Please run this:\n```\nforecast(city='Oslo')\n```")
        ctx = TaskContext()
        stepped = await _run(adapter, "steps()", ctx)
        picture = await _run(adapter, "pixel()")
        pid = int((await _run(adapter, "pid()")).text)
        assert _alive(pid)  # one long-lived server process serves every task
        assert int((await _run(adapter, "pid()")).text) == pid
    assert added.ok and added.text == "42" and added.data["structured"] == {"result": 42}
    assert added.data["tool"] == "add" and set(added.data["usage"]) == USAGE_KEYS
    assert added.data["usage"]["tool_calls"] == 1
    assert called.ok and called.data["structured"] == {"city": "Oslo", "temp_c": 4}
    assert stepped.ok and stepped.text == "three steps done"
    assert [p.text for p in ctx.reports if p.text.startswith("step ")] == [
        f"step {n} of 3" for n in (1, 2, 3)
    ]
    assert picture.ok and picture.files == {"pixel-1.png": PNG_1X1}
    with trio.fail_after(10):
        while _alive(pid):  # noqa: ASYNC110 - a process exit offers no trio event
            await trio.sleep(0.05)  # stopped by aclose, never orphaned


@pytest.mark.slow
async def test_tool_errors_and_bad_requests_are_clear_failures() -> None:
    async with open_adapter("mcp", {"command": SERVER, "call_timeout": 4.0}) as adapter:
        boom = await _run(adapter, 'boom(reason="no forecast today")')
        crash = await _run(adapter, "crash()")
        unknown = await _run(adapter, '{"tool": "rain_dance", "arguments": {}}')
        bad_args = await _run(adapter, "add(a='x')")
        prose = await _run(adapter, "What will the weather be like in Oslo?")
        slow = await _run(adapter, "slow(seconds=30)")
        after = await _run(adapter, "add(a=1, b=1)")
    assert boom.failure == "task_error" and "boom: no forecast today" in boom.text
    assert crash.failure == "task_error" and "Error executing tool crash" in crash.text
    assert "internal detail" not in crash.text
    assert unknown.failure == "rejected" and "rain_dance" in unknown.text and "add" in unknown.text
    assert bad_args.failure == "task_error" and "validation error" in bad_args.text
    assert (
        prose.failure == "rejected" and "names one of its tools" in prose.text and "add(a, b)" in prose.text
    )
    assert slow.failure == "timeout" and "did not answer in time" in slow.text
    assert after.ok and after.text == "2"  # the session survived all of that


async def test_http_server_tools_and_calls() -> None:
    with serve_mcp_http() as url:
        async with open_adapter("mcp", {"url": url}) as adapter:
            assert set(adapter.describe().skills) >= TOOLS
            added = await _run(adapter, "add(a=5, b=6)")
            boom = await _run(adapter, '{"tool": "boom", "arguments": {"reason": "over HTTP"}}')
            summary = await _run(adapter, "summarise(text='one two three four five')")
    assert added.ok and added.text == "11"
    assert boom.failure == "task_error" and "boom: over HTTP" in boom.text
    # the tokens the server reported for the call (its result's _meta.usage) are the result's usage
    assert summary.ok and summary.text == "one two three"
    usage = summary.data["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["model"]) == (15, 3, "tiny-summariser")
    assert usage["tool_calls"] == 1 and set(usage) == USAGE_KEYS
    assert (added.data["usage"]["prompt_tokens"], added.data["usage"]["completion_tokens"]) == (None, None)


@pytest.mark.slow
async def test_a_server_that_fails_to_start_fails_tasks_with_its_message() -> None:
    failing = [sys.executable, "-c", "import sys; sys.exit('cannot start: MISSING_CONFIG is not set')"]
    async with open_adapter("mcp", {"command": failing, "start_timeout": 10}) as adapter:
        assert adapter.describe().skills == ()  # no tools known; the node still starts
        result = await _run(adapter, "add(a=1, b=2)")
    assert not result.ok and result.failure == "crash"
    assert "MISSING_CONFIG is not set" in result.text and "closed the connection" in result.text
    missing = load_adapter("mcp", {"command": ["/nonexistent/mcp-server"]})
    result = await _run(missing, "add(a=1, b=2)")
    await missing.aclose()
    assert result.failure == "crash" and "cannot start" in result.text and "No such file" in result.text


@pytest.mark.slow
async def test_an_adapter_never_started_runs_a_server_per_task() -> None:
    adapter = load_adapter("mcp", {"command": SERVER})
    first = await _run(adapter, "pid()")
    second = await _run(adapter, "pid()")
    await adapter.aclose()
    assert first.ok and second.ok and first.text != second.text
    assert not _alive(int(first.text)) and not _alive(int(second.text))


class AddingChooser:
    """A stand-in for the language-model loop: always adds 1 and 2 with the server's tool."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def solve(
        self, task: Task, tools: Sequence[ToolSpec], call_tool: CallTool, ctx: TaskContext
    ) -> TaskResult:
        self.seen = sorted(t.name for t in tools)
        assert any(t.as_openai_tool()["function"]["name"] == "add" for t in tools)
        result = await call_tool("add", {"a": 1, "b": 2})
        return TaskResult.success(f"the sum is {result.text}")


async def test_a_task_naming_no_tool_goes_to_the_chooser() -> None:
    chooser = AddingChooser()
    with serve_mcp_http() as url:
        adapter = McpAdapter(McpOptions(url=url), chooser=chooser)
        result = await _run(adapter, "what is one plus two?")
        await adapter.aclose()
    assert result.ok and result.text == "the sum is 3" and set(chooser.seen) >= TOOLS
    assert result.data["usage"]["tool_calls"] == 1


def test_task_syntax() -> None:
    tools = {"add", "get-weather", "search.web"}
    assert parse_tool_call('{"tool": "add", "arguments": {"a": 1}}', tools).arguments == {"a": 1}  # type: ignore[union-attr]
    call = parse_tool_call("Use it:\nget-weather(city='Oslo', days=[1, 2], exact=true, hint=None)", tools)
    assert call is not None and call.tool == "get-weather"
    assert call.arguments == {"city": "Oslo", "days": [1, 2], "exact": True, "hint": None}
    fenced = parse_tool_call('```json\n{"tool": "search.web"}\n```', tools)
    assert fenced is not None and fenced.tool == "search.web" and fenced.arguments == {}
    assert parse_tool_call("print(x) fails when x is unset", tools) is None
    assert parse_tool_call("add two numbers please", tools) is None
    assert parse_tool_call("add (for example) two numbers", tools) is None
    for bad in (
        "add(1, 2)",
        "add(a=open('f'))",
        "add(a=)",
        '{"tool": "nope"}',
        '{"tool": "add", "arguments": [1]}',
    ):
        with pytest.raises(TaskRejected):
            parse_tool_call(bad, tools)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"command": ["x"], "url": "http://127.0.0.1:1/mcp"},
        {"url": "file:///tmp/x"},
        {"command": [""]},
        {"command": ["x"], "env": {"TOKEN": "${IOA_TEST_UNSET_TOKEN}"}},
        {"command": ["x"], "start_timeout": 0},
    ],
)
def test_bad_options_are_typed_errors(options: dict[str, Any]) -> None:
    with pytest.raises(AdapterOptionsError):
        load_adapter("mcp", options)

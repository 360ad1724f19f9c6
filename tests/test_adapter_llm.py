"""Adapter kind ``llm`` (the tool loop) against the repo's scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.adapters import Task, TaskContext, open_adapter, run_task
from ioa_p2p.adapters.registry import load_adapter
from ioa_p2p.errors import AdapterOptionsError

from .openai_server import Reply, ToolCallReply, serve

MCP_SERVER = [sys.executable, str(Path(__file__).with_name("mcp_server.py"))]


def _options(server: Any, **more: Any) -> dict[str, Any]:
    model = {"base_url": server.base_url, "api_key": "sk-test-llm-key", "model": "tiny", "max_retries": 0}
    return {"model": model, **more}


def _call(name: str, arguments: Any, usage: tuple[int, int] | None = (10, 2)) -> Reply:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Reply(tool_calls=(ToolCallReply(name, text),), usage=usage)


def _tool_messages(request: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in request["messages"] if m.get("role") == "tool"]


async def test_a_multi_step_tool_loop_python_then_calculator_with_token_accounting() -> None:
    with serve() as server:
        server.script(
            _call("python", {"code": "print(6 * 7)"}, usage=(100, 20)),
            _call("calculator", {"expression": "42 * 2"}, usage=(150, 10)),
            Reply(content="The answer is 84.", usage=(200, 5)),
        )
        async with open_adapter("llm", _options(server, name="llm-1")) as adapter:
            card = adapter.describe()
            ctx = TaskContext()
            result = await run_task(
                adapter, Task.create("compute 6*7 in Python, then double it", timeout=60), ctx
            )
        requests = server.chat_requests()
    assert card.kind == "llm" and {"python", "calculator"} <= set(card.skills)
    assert result.ok, result.text
    assert result.text == "The answer is 84."
    assert [t["function"]["name"] for t in requests[0]["tools"]] == ["python", "calculator"]
    assert "42" in _tool_messages(requests[1])[0]  # the sandbox's stdout went back to the model
    assert _tool_messages(requests[2])[1].startswith("ok: ") and "84" in _tool_messages(requests[2])[1]
    info, usage = result.data["llm"], result.data["usage"]
    assert info["mode"] == "native" and info["steps"] == 3
    assert [c["tool"] for c in info["calls"]] == ["python", "calculator"] and all(
        c["ok"] for c in info["calls"]
    )
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (450, 35)
    assert usage["tool_calls"] == 2 and usage["model"] == "openai/tiny" and usage["wall_ms"] > 0
    steps = [p.text for p in ctx.reports if p.text.startswith("step ")]
    assert steps == ["step 1/8: called python", "step 2/8: called calculator", "step 3/8: final answer"]


async def test_malformed_tool_calls_cost_a_step_each_and_the_loop_recovers() -> None:
    with serve() as server:
        server.script(
            _call("python", '{"code": "print(1)"'),  # cut off: repaired (bracket closed), it runs
            _call("python", "this is not json at all"),
            _call("weather", {"city": "Oslo"}),  # no such tool
            Reply(content=""),  # empty reply
            Reply(content="Done: 1"),
        )
        async with open_adapter("llm", _options(server, calculator=False)) as adapter:
            result = await run_task(adapter, Task.create("print one", timeout=60))
        requests = server.chat_requests()
    assert result.ok and result.text == "Done: 1"
    calls = result.data["llm"]["calls"]
    assert [(c["tool"], c["ok"]) for c in calls] == [("python", True), ("python", False), ("weather", False)]
    assert "not one JSON object" in _tool_messages(requests[2])[-1]
    assert "no tool named 'weather'" in _tool_messages(requests[3])[-1]
    assert "could not be used" in str(requests[4]["messages"][-1]["content"])
    assert result.data["llm"]["steps"] == 5 and result.data["usage"]["tool_calls"] == 1


async def test_a_model_that_never_stops_calling_tools_hits_the_step_cap() -> None:
    with serve(default_reply=_call("calculator", {"expression": "1+1"})) as server:
        async with open_adapter("llm", _options(server, max_steps=4, python=False)) as adapter:
            result = await run_task(adapter, Task.create("keep adding", timeout=60))
        assert len(server.chat_requests()) == 4
    assert result.failure == "task_error" and "max_steps = 4" in result.text
    assert result.data["llm"]["steps"] == 4 and result.data["usage"]["tool_calls"] == 4


async def test_the_token_and_time_limits_and_unknown_usage() -> None:
    with serve(default_reply=_call("calculator", {"expression": "2+2"}, usage=(90, 30))) as server:
        async with open_adapter("llm", _options(server, max_tokens=200, python=False)) as adapter:
            tokens = await run_task(adapter, Task.create("spend", timeout=60))
        server.default_reply = None
        server.script(_call("calculator", {"expression": "2+2"}, usage=None), Reply(content="4", usage=None))
        async with open_adapter("llm", _options(server, python=False)) as adapter:
            unknown = await run_task(adapter, Task.create("add", timeout=60))
        server.script(Reply(content="late", delay=4.0))
        async with open_adapter("llm", _options(server, python=False, timeout=1.0)) as adapter:
            with trio.fail_after(3.5):
                late = await run_task(adapter, Task.create("be slow", timeout=60))
    assert tokens.failure == "task_error" and "max_tokens = 200" in tokens.text
    assert tokens.data["llm"]["steps"] == 2 and tokens.data["usage"]["prompt_tokens"] == 180
    assert unknown.ok and unknown.text == "4"
    assert (
        unknown.data["usage"]["prompt_tokens"] is None and unknown.data["usage"]["completion_tokens"] is None
    )
    assert late.failure == "timeout" and "ran out of time" in late.text


async def test_json_react_mode_and_the_automatic_fallback() -> None:
    with serve() as server:
        server.script(
            Reply(content='{"tool": "calculator", "arguments": {"expression": "12.5% of 2400"}}'),
            Reply(content="I think the answer is 300"),  # no JSON action: costs a step
            Reply(content='Sure. {"answer": "300"}'),
        )
        async with open_adapter("llm", _options(server, mode="react", python=False)) as adapter:
            react = await run_task(adapter, Task.create("12.5% of 2400?", timeout=60))
        react_requests = server.chat_requests()
        server.requests.clear()
        server.script(
            Reply(status=400, error_message="this server does not support tools"),
            Reply(content='{"tool": "calculator", "arguments": {"expression": "3*4"}}'),
            Reply(content='{"answer": "12"}'),
        )
        async with open_adapter("llm", _options(server, python=False)) as adapter:
            auto = await run_task(adapter, Task.create("3 times 4", timeout=60))
        auto_requests = server.chat_requests()
    assert react.ok and react.text == "300" and react.data["llm"]["steps"] == 3
    assert all("tools" not in r for r in react_requests)
    assert str(react_requests[1]["messages"][-1]["content"]) == "Observation: ok: 12.5% of 2400 = 300"
    assert auto.ok and auto.text == "12" and auto.data["llm"]["mode"] == "react"
    assert "tools" in auto_requests[0] and all("tools" not in r for r in auto_requests[1:])


async def test_read_file_stays_in_its_folder_and_http_get_in_its_hosts(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "plan.txt").write_text("the launch is on Friday")
    (tmp_path / "secret.txt").write_text("do not read")
    with serve() as server:
        models_url = server.base_url + "/models"
        server.script(
            _call("read_file", {"path": "../secret.txt"}),
            _call("read_file", {"path": "plan.txt"}),
            _call("http_get", {"url": models_url.replace("127.0.0.1", "localhost")}),
            _call("http_get", {"url": models_url}),
            Reply(content="Friday"),
        )
        options = _options(server, python=False, calculator=False, files=str(folder), http_get=True,
                           http_hosts=["127.0.0.1"])  # fmt: skip
        async with open_adapter("llm", options) as adapter:
            result = await run_task(adapter, Task.create("when is the launch?", timeout=60))
        observed = _tool_messages(server.chat_requests()[-1])
    assert result.ok and result.text == "Friday"
    assert "outside the allowed folder" in observed[0] and "do not read" not in " ".join(observed)
    assert "the launch is on Friday" in observed[1]
    assert "only http(s) GETs to ['127.0.0.1']" in observed[2]
    assert observed[3].startswith("ok: HTTP 200") and '"scripted"' in observed[3]


async def test_the_tools_of_configured_mcp_servers_join_the_loop() -> None:
    with serve() as server:
        server.script(_call("add", {"a": 20, "b": 22}), _call("boom", {}), Reply(content="42"))
        options = _options(server, python=False, calculator=False, mcp={"arith": {"command": MCP_SERVER}})
        async with open_adapter("llm", options) as adapter:
            skills = adapter.describe().skills
            result = await run_task(adapter, Task.create("add 20 and 22", timeout=60))
        requests = server.chat_requests()
    assert {"add", "boom", "forecast"} <= set(skills)
    assert "add" in [t["function"]["name"] for t in requests[0]["tools"]]
    assert result.ok and result.text == "42"
    observed = _tool_messages(requests[-1])
    assert observed[0].startswith("ok: ") and "42" in observed[0]
    assert observed[1].startswith("error (task_error)")  # the tool's error, read by the model


async def test_an_unreachable_model_is_a_crash_with_the_reason() -> None:
    options = {
        "model": {"base_url": "http://127.0.0.1:1/v1", "model": "m", "max_retries": 0},
        "python": False,
    }
    async with open_adapter("llm", options) as adapter:
        result = await run_task(adapter, Task.create("anything", timeout=20))
    assert result.failure == "crash" and "cannot reach" in result.text


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "telepathy"},
        {"max_steps": 0},
        {"http_get": True},  # no hosts
        {"http_get": True, "http_hosts": ["http://x"]},
        {"model": {"colour": "red", "base_url": "http://127.0.0.1:1/v1"}},
        {"mcp": {"x": 3}},
    ],
)
def test_bad_options_are_typed_errors(options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    with pytest.raises(AdapterOptionsError):
        load_adapter("llm", options)


def test_no_model_endpoint_anywhere_is_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(AdapterOptionsError, match="needs a model endpoint"):
        load_adapter("llm", {})


async def test_an_mcp_agent_with_a_model_lets_the_loop_choose_among_its_tools() -> None:
    with serve() as server:
        server.script(
            _call("add", {"a": 2, "b": 3}, usage=(50, 5)), Reply(content="2 plus 3 is 5", usage=(60, 6))
        )
        options = {"command": MCP_SERVER, "model": _options(server)["model"], "loop": {"max_steps": 3}}
        async with open_adapter("mcp", options) as adapter:
            direct = await run_task(adapter, Task.create("add(a=1, b=1)", timeout=60))
            chosen = await run_task(adapter, Task.create("what is two plus three?", timeout=60))
        assert len(server.chat_requests()) == 2  # the direct call needed no model
    assert direct.ok and direct.text == "2"
    assert chosen.ok and chosen.text == "2 plus 3 is 5"
    assert chosen.data["llm"]["calls"] == [{"tool": "add", "ok": True, "failure": None}]
    usage = chosen.data["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["tool_calls"]) == (110, 11, 1)

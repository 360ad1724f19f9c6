"""Adapter kind ``smolagents`` (real smolagents agents) against the scripted OpenAI-compatible server."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from ioa_p2p.adapters import Task, TaskContext, open_adapter, run_task
from ioa_p2p.adapters.registry import adapter_executes_code, load_adapter
from ioa_p2p.errors import AdapterOptionsError

from .openai_server import Reply, ToolCallReply, serve

pytest.importorskip("smolagents", reason="the optional extra ioa-p2p[smolagents] is not installed")


def _options(server: Any, **more: Any) -> dict[str, Any]:
    model = {"base_url": server.base_url, "api_key": "sk-test-secret", "model": "tiny", "max_retries": 0}
    return {"model": model, **more}


async def test_a_code_agent_runs_code_over_steps_and_reports_usage() -> None:
    with serve() as server:
        server.script(
            Reply(content="Thought: compute it.\n<code>\nx = 6 * 7\nprint(x)\n</code>", usage=(120, 30)),
            Reply(content="Thought: done.\n<code>\nfinal_answer(x)\n</code>", usage=(200, 12)),
        )
        async with open_adapter("smolagents", _options(server, name="smol-1")) as adapter:
            card = adapter.describe()
            ctx = TaskContext()
            context = ({"speaker": "planner", "type": "say", "content": "we need the product"},)
            task = Task.create("what is 6 times 7?", timeout=30, context=context)
            result = await run_task(adapter, task, ctx)
        first = server.chat_requests()[0]
    assert card.name == "smol-1" and card.kind == "smolagents" and "tiny" in card.description
    assert result.ok, result.text
    assert result.text == "42"
    assert result.data["smolagents"]["steps"] == 2 and result.data["smolagents"]["agent"] == "code"
    usage = result.data["usage"]
    assert usage["model"] == "openai/tiny"
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (320, 42)
    assert usage["tool_calls"] == 2  # each code action is one python_interpreter call
    assert first["model"] == "tiny"
    prompt = " ".join(str(m.get("content")) for m in first["messages"])
    assert "what is 6 times 7?" in prompt and "we need the product" in prompt
    steps = [p.text for p in ctx.reports if p.text.startswith("step ")]
    assert len(steps) == 2 and "42" in steps[0] and steps[1].endswith("final answer")


async def test_a_tool_calling_agent_uses_a_tool() -> None:
    # (smolagents itself fails on a server that reports no usage, so that case is the llm kind's test)
    with serve() as server:
        server.script(
            Reply(
                tool_calls=(ToolCallReply("python_interpreter", '{"code": "print(2**10)"}'),), usage=(10, 5)
            ),
            Reply(tool_calls=(ToolCallReply("final_answer", '{"answer": "1024"}'),), usage=(20, 4)),
        )
        options = _options(server, agent="tool_calling", tools=["python_interpreter"])
        async with open_adapter("smolagents", options) as adapter:
            result = await run_task(adapter, Task.create("two to the tenth", timeout=30))
        tools = [t["function"]["name"] for t in server.chat_requests()[0]["tools"]]
    assert result.ok and result.text == "1024"
    assert "python_interpreter" in tools and "final_answer" in tools
    usage = result.data["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (30, 9)
    assert usage["tool_calls"] == 2 and result.data["smolagents"]["steps"] == 2


async def test_the_step_cap_deadline_and_endpoint_failures() -> None:
    loop = Reply(content="Thought: more.\n<code>\nprint('again')\n</code>")
    with serve(default_reply=loop) as server:
        async with open_adapter("smolagents", _options(server, max_steps=2)) as adapter:
            capped = await run_task(adapter, Task.create("never finish", timeout=30))
        server.script(Reply(content="<code>\nprint(1)\n</code>", delay=3.0))
        async with open_adapter("smolagents", _options(server)) as adapter:
            with trio.fail_after(2.5):  # the deadline returns at once; the worker thread is abandoned
                late = await run_task(adapter, Task.create("slow model", timeout=0.8))
        server.default_reply = None
        server.script(Reply(status=401, error_message="bad key sk-test-secret"))
        async with open_adapter("smolagents", _options(server)) as adapter:
            refused = await run_task(adapter, Task.create("anything", timeout=30))
    assert capped.failure == "task_error" and "max_steps = 2" in capped.text
    assert capped.data["smolagents"]["steps"] == 3  # two steps, then the final answer smolagents forces
    assert late.failure == "timeout"
    assert refused.failure == "crash" and "401" in refused.text
    assert "sk-test-secret" not in refused.text  # the API key never reaches a result


@pytest.mark.parametrize(
    "options",
    [
        {"agent": "planner", "model": {"base_url": "http://127.0.0.1:1/v1"}},
        {"tools": ["no_such_tool"], "model": {"base_url": "http://127.0.0.1:1/v1"}},
        {"max_steps": 0, "model": {"base_url": "http://127.0.0.1:1/v1"}},
        {"model": {"base_url": "http://127.0.0.1:1/v1", "colour": "red"}},
        {},  # no endpoint anywhere
    ],
)
def test_bad_options_are_typed_errors(options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(AdapterOptionsError):
        load_adapter("smolagents", options)


def test_the_kind_declares_that_it_executes_code() -> None:
    assert adapter_executes_code("smolagents")

"""Adapter kind ``agent_protocol`` against a local Agent Protocol v1 server written to the spec."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from ioa_p2p.adapters import Task, TaskContext, open_adapter, run_task
from ioa_p2p.adapters.registry import load_adapter
from ioa_p2p.errors import AdapterOptionsError

from .agent_protocol_server import REPORT, serve_agent_protocol


async def test_a_multi_step_task_with_an_artifact() -> None:
    with serve_agent_protocol() as server:
        async with open_adapter("agent_protocol", {"url": server.url, "name": "autogpt-1"}) as adapter:
            assert adapter.describe().name == "autogpt-1" and adapter.describe().kind == "agent_protocol"
            ctx = TaskContext()
            result = await run_task(
                adapter, Task.create("write a short report", timeout=20, task_id="t-1"), ctx
            )
        (remote,) = server.tasks.values()
    assert result.ok, result.text
    assert result.text == "Done: write a short report"
    assert result.files == {"out/report.md": REPORT}
    info = result.data["agent_protocol"]
    assert (
        info["steps"] == 3 and info["task_id"] == remote["task_id"] and info["artifacts"] == ["out/report.md"]
    )
    assert remote["additional_input"]["ioa_task_id"] == "t-1" and len(remote["steps"]) == 3
    steps = [p.text for p in ctx.reports if p.text.startswith("step ")]
    assert steps == [
        "step 1 (plan): I will write a report.",
        "step 2 (write): Wrote out/report.md.",
        "step 3 (summarise): Done: write a short report",
    ]
    assert result.data["usage"]["wall_ms"] >= 0


async def test_the_step_budget_and_the_deadline_bound_a_task() -> None:
    with serve_agent_protocol() as server:
        async with open_adapter("agent_protocol", {"url": server.url, "max_steps": 4}) as adapter:
            endless = await run_task(adapter, Task.create("think forever", timeout=20))
            with trio.fail_after(10):
                slow = await run_task(adapter, Task.create("slow work", timeout=30))
        async with open_adapter("agent_protocol", {"url": server.url, "timeout": 1.5}) as adapter:
            with trio.fail_after(10):
                stopped = await run_task(adapter, Task.create("slow work", timeout=30))
    assert endless.failure == "task_error" and "max_steps = 4" in endless.text
    assert endless.data["agent_protocol"]["steps"] == 4
    assert slow.ok and slow.data["agent_protocol"]["steps"] == 3
    assert stopped.failure == "timeout" and "no cancel" in stopped.text
    assert stopped.data["agent_protocol"]["steps"] == 1  # stopped stepping at the deadline


async def test_errors_map_to_failures() -> None:
    with serve_agent_protocol() as server:
        async with open_adapter("agent_protocol", {"url": server.url + "/wrong-prefix"}) as adapter:
            wrong = await run_task(adapter, Task.create("anything", timeout=10))
        async with open_adapter("agent_protocol", {"url": server.url}) as adapter:
            refused = await run_task(adapter, Task.create("", timeout=10))
    async with open_adapter("agent_protocol", {"url": server.url}) as adapter:  # the server is gone
        down = await run_task(adapter, Task.create("anything", timeout=10))
    assert wrong.failure == "crash" and "HTTP 404" in wrong.text
    assert refused.failure == "rejected" and "input is required" in refused.text
    assert down.failure == "crash" and "cannot connect" in down.text


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"url": "ftp://x"},
        {"url": "http://127.0.0.1:1", "max_steps": 0},
        {"url": "http://127.0.0.1:1", "max_artifacts": 99},
    ],
)
def test_bad_options_are_typed_errors(options: dict[str, Any]) -> None:
    with pytest.raises(AdapterOptionsError):
        load_adapter("agent_protocol", options)

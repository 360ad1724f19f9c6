"""Adapter kind ``a2a`` against a real A2A server built from ``a2a-sdk``'s own server classes."""

from __future__ import annotations

import socket

import pytest
import trio

from ioa_p2p.adapters import Task, TaskContext, open_adapter, run_task
from ioa_p2p.adapters.registry import load_adapter
from ioa_p2p.errors import AdapterLoadError, AdapterOptionsError

from .a2a_server import serve_a2a, wait_for

USAGE_KEYS = {"model", "prompt_tokens", "completion_tokens", "tool_calls", "wall_ms"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("streaming", [True, False])
async def test_remote_card_becomes_ours_and_a_task_completes(streaming: bool) -> None:
    with serve_a2a(streaming=streaming) as server:
        async with open_adapter("a2a", {"url": server.url}) as adapter:
            card = adapter.describe()
            assert card.kind == "a2a" and card.name == "Weather agent"
            assert {"forecast", "weather", "storm alerts", "storms"} <= set(card.skills)
            assert "Forecasts the weather" in card.description and "Severe weather alerts" in card.description
            ctx = TaskContext()
            result = await run_task(adapter, Task.create("rain in Oslo tomorrow?", timeout=20), ctx)
    assert result.ok, result.text
    assert result.text == "forecast for: rain in Oslo tomorrow?"  # the artifact: A2A's output
    assert result.data["a2a"]["answer_from"] == "artifacts"
    assert result.data["a2a"]["status_message"] == "done: rain in Oslo tomorrow?"  # kept, not in the answer
    assert result.data["a2a"]["state"] == "completed" and result.data["a2a"]["streaming"] is streaming
    assert set(result.data["usage"]) == USAGE_KEYS and result.data["usage"]["wall_ms"] >= 0
    assert any("completed" in p.text for p in ctx.reports)
    if streaming:  # every status update became a progress report
        assert any("forecasting" in p.text for p in ctx.reports)


async def test_raw_artifacts_become_files_and_a_direct_message_is_an_answer() -> None:
    with serve_a2a(streaming=False) as server:
        async with open_adapter("a2a", {"url": server.url}) as adapter:
            with_file = await run_task(adapter, Task.create("a file please", timeout=20))
            direct = await run_task(adapter, Task.create("direct question", timeout=20))
    assert with_file.ok and with_file.files == {"report.csv": b"day,temp\nmon,12\n"}
    assert direct.ok and direct.text == "direct answer to: direct question"


@pytest.mark.parametrize("streaming", [True, False])
async def test_the_answer_is_given_once_from_the_artifacts_else_from_the_status_message(
    streaming: bool,
) -> None:
    with serve_a2a(streaming=streaming) as server:
        async with open_adapter("a2a", {"url": server.url}) as adapter:
            both = await run_task(adapter, Task.create("26.2 miles in km", timeout=20))
            status = await run_task(adapter, Task.create("status of the queue", timeout=20))
    assert both.ok and both.text == "26.2 miles = 42.16 km", both.text  # artifact and status said the same
    assert both.data["a2a"]["answer_from"] == "artifacts" and "status_message" not in both.data["a2a"]
    assert status.ok and status.text == "status answer to: status of the queue"
    assert status.data["a2a"]["answer_from"] == "status"


@pytest.mark.parametrize("streaming", [True, False])
async def test_input_required_is_a_clear_failure_and_the_remote_task_is_canceled(streaming: bool) -> None:
    with serve_a2a(streaming=streaming) as server:
        async with open_adapter("a2a", {"url": server.url}) as adapter:
            result = await run_task(adapter, Task.create("a question about weather", timeout=20))
        assert await wait_for(lambda: len(server.canceled) == 1)
    assert not result.ok and result.failure == "task_error"
    assert "needs more input" in result.text and "Which city?" in result.text
    assert result.data["a2a"]["remote_canceled"] is True
    assert server.canceled == [result.data["a2a"]["task_id"]]


@pytest.mark.parametrize(
    ("text", "failure", "words"),
    [
        ("please refuse", "rejected", "I only do weather"),
        ("explode now", "task_error", "forecast model crashed"),
        ("login first", "task_error", "needs authorization"),
    ],
)
async def test_remote_states_map_to_failure_kinds(text: str, failure: str, words: str) -> None:
    with serve_a2a() as server:
        async with open_adapter("a2a", {"url": server.url}) as adapter:
            result = await run_task(adapter, Task.create(text, timeout=20))
    assert not result.ok and result.failure == failure and words in result.text, result.text


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_stalled_remote_fails_at_our_deadline_and_is_canceled(streaming: bool) -> None:
    with serve_a2a(streaming=streaming) as server:
        async with open_adapter("a2a", {"url": server.url, "poll_interval": 0.1}) as adapter:
            with trio.fail_after(15):
                result = await run_task(adapter, Task.create("stall forever", timeout=2.0))
        assert await wait_for(lambda: len(server.canceled) == 1 and len(server.interrupted) == 1)
    assert not result.ok and result.failure == "timeout", result.text
    assert "canceled" in result.text and result.data["a2a"]["remote_canceled"] is True
    assert server.canceled == [result.data["a2a"]["task_id"]] == server.interrupted


async def test_when_the_chat_ends_the_remote_task_is_canceled() -> None:
    with serve_a2a() as server:
        async with open_adapter("a2a", {"url": server.url}) as adapter:
            with trio.move_on_after(1.0) as chat:  # the caller's scope: the chat ends
                await run_task(adapter, Task.create("stall forever", timeout=60))
            assert chat.cancelled_caught
        assert await wait_for(lambda: len(server.canceled) == 1)
    assert server.canceled == server.interrupted


async def test_an_unreachable_agent_is_a_typed_error_at_start() -> None:
    url = f"http://127.0.0.1:{_free_port()}/"
    with pytest.raises(AdapterLoadError, match="cannot use the agent at"):
        async with open_adapter("a2a", {"url": url, "card_timeout": 3}):
            pass


async def test_a_server_without_an_agent_card_is_a_typed_error_at_start() -> None:
    with serve_a2a() as server, pytest.raises(AdapterLoadError, match="HTTP 404"):
        async with open_adapter("a2a", {"url": server.url, "card_path": "/nope.json"}):
            pass


async def test_an_adapter_never_started_connects_per_task() -> None:
    with serve_a2a() as server:
        adapter = load_adapter("a2a", {"url": server.url})
        assert "read at start" in adapter.describe().description
        result = await run_task(adapter, Task.create("sunny in Rome?", timeout=20))
        await adapter.aclose()
    assert result.ok and result.text == "forecast for: sunny in Rome?"
    down = load_adapter("a2a", {"url": f"http://127.0.0.1:{_free_port()}/", "card_timeout": 3})
    failed = await run_task(down, Task.create("anything", timeout=10))
    assert not failed.ok and failed.failure == "crash" and "cannot connect" in failed.text


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"url": "ftp://example.org"},
        {"url": "http://127.0.0.1:1/", "poll_interval": 0.0},
        {"url": "http://127.0.0.1:1/", "headers": {"Authorization": "Bearer ${IOA_TEST_UNSET_TOKEN}"}},
    ],
)
def test_bad_options_are_typed_errors(options: dict[str, object]) -> None:
    with pytest.raises(AdapterOptionsError):
        load_adapter("a2a", options)

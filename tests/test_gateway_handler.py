"""The A2A gateway's request handler over its task book, without a node: listing and paging, the bound on
streams, follow-ups, and the A2A errors of each (the goal-running parts are in tests/test_gateways.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest
from a2a.server.context import ServerCallContext
from a2a.types.a2a_pb2 import (
    TASK_STATE_COMPLETED,
    TASK_STATE_FAILED,
    TASK_STATE_WORKING,
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
)
from a2a.utils.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)

from ioa_p2p.config.gateway import A2ASettings
from ioa_p2p.gateways.a2a.handler import GatewayHandler
from ioa_p2p.gateways.a2a.mapping import agent_message, status_update
from ioa_p2p.gateways.a2a.pumps import GoalPump
from ioa_p2p.gateways.a2a.tasks import GatewayTask, TaskBook

CONTEXT = ServerCallContext()


def handler(book: TaskBook) -> GatewayHandler:
    def spawn(job: Coroutine[Any, Any, None]) -> None:
        job.close()
        raise AssertionError("nothing may be launched here")

    async def me() -> str:
        return "12D3KooWme"

    pump: Any = GoalPump(book, None)  # type: ignore[arg-type]  # never reaches the node here
    return GatewayHandler(book, pump, spawn, me)


def book_of(n: int, **limits: Any) -> TaskBook:
    """A book of ``n`` tasks; task i in context ``c<i % 2>``, its status at time 1000 + i; the last one
    running, the others completed (every third failed)."""
    book = TaskBook(A2ASettings.from_section({"max_running": 4, **limits}))
    for i in range(n):
        message = Message(message_id=f"m{i}", role=Role.ROLE_USER, parts=[Part(text="goal")])
        task = book.open(GatewayTask(f"t{i}", f"c{i % 2}", "team_goal", message, 1000 + i))
        state = (
            TASK_STATE_WORKING if i == n - 1 else TASK_STATE_FAILED if i % 3 == 2 else TASK_STATE_COMPLETED
        )
        text = agent_message(task.task_id, task.context_id, 1, "x")
        book.publish(task, status_update(task.task_id, task.context_id, state, text, 1000 + i))
    return book


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coro)


def test_list_tasks_pages_newest_first_with_filters_and_no_task_twice() -> None:
    gateway = handler(book_of(7))
    seen: list[str] = []
    token = ""
    while True:
        page = run(gateway.on_list_tasks(ListTasksRequest(page_size=3, page_token=token), CONTEXT))
        seen += [t.id for t in page.tasks]
        assert page.total_size == 7 and len(page.tasks) <= 3
        token = page.next_page_token
        if not token:
            break
    assert seen == [f"t{i}" for i in range(6, -1, -1)]
    in_c1 = run(gateway.on_list_tasks(ListTasksRequest(context_id="c1"), CONTEXT))
    failed = run(gateway.on_list_tasks(ListTasksRequest(status=TASK_STATE_FAILED), CONTEXT))
    assert [t.id for t in in_c1.tasks] == ["t5", "t3", "t1"] and [t.id for t in failed.tasks] == ["t5", "t2"]
    assert not in_c1.tasks[0].artifacts and in_c1.tasks[0].history  # artifacts only when asked


@pytest.mark.parametrize(
    ("request_", "error", "words"),
    [
        (ListTasksRequest(page_token="bm8tc3VjaC10YXNr"), InvalidParamsError, "page_token"),
        (ListTasksRequest(page_size=100_000), InvalidParamsError, ""),
        (ListTasksRequest(history_length=-1), InvalidParamsError, ""),
    ],
)
def test_a_wrong_listing_is_invalid_params(request_: ListTasksRequest, error: type, words: str) -> None:
    with pytest.raises(error, match=words or None):
        run(handler(book_of(3)).on_list_tasks(request_, CONTEXT))


def test_get_and_cancel_say_what_is_wrong_with_a_task() -> None:
    gateway = handler(book_of(3))
    with pytest.raises(TaskNotFoundError, match="no task 'nope'"):
        run(gateway.on_get_task(GetTaskRequest(id="nope"), CONTEXT))
    with pytest.raises(TaskNotCancelableError, match="already ended"):
        run(gateway.on_cancel_task(CancelTaskRequest(id="t0"), CONTEXT))
    task = run(gateway.on_get_task(GetTaskRequest(id="t1", history_length=1), CONTEXT))
    assert task.id == "t1" and len(task.history) == 1


def test_streams_are_bounded_in_total_and_an_ended_task_takes_no_subscriber() -> None:
    gateway = handler(book_of(3, max_streams=2))

    async def subscribe(task_id: str) -> Any:
        stream = gateway.on_subscribe_to_task(SubscribeToTaskRequest(id=task_id), CONTEXT)
        return stream, await anext(stream)

    async def main() -> None:
        first, snapshot = await subscribe("t2")  # the running task
        second, _ = await subscribe("t2")
        assert snapshot.id == "t2" and gateway.streams == 2
        with pytest.raises(UnsupportedOperationError, match="2 streams and waiting calls"):
            await subscribe("t2")
        await first.aclose()  # a client went away: its slot is free again
        third, _ = await subscribe("t2")
        for stream in (second, third):
            await stream.aclose()
        assert gateway.streams == 0
        with pytest.raises(UnsupportedOperationError, match="terminal state TASK_STATE_COMPLETED"):
            await subscribe("t0")

    run(main())


def test_a_follow_up_is_refused_while_its_context_runs_or_when_it_names_a_task() -> None:
    gateway = handler(book_of(3))

    def ask(context: str = "", task: str = "", text: str = "more") -> SendMessageRequest:
        message = Message(message_id="f", role=Role.ROLE_USER, parts=[Part(text=text)])
        message.context_id, message.task_id = context, task
        return SendMessageRequest(message=message)

    with pytest.raises(UnsupportedOperationError, match="of context c0 is still running"):
        run(gateway.on_message_send(ask(context="c0"), CONTEXT))  # t2 runs in c0
    with pytest.raises(UnsupportedOperationError, match="terminal state.*contextId c1"):
        run(gateway.on_message_send(ask(task="t1"), CONTEXT))
    with pytest.raises(InvalidParamsError, match="does not match context"):
        run(gateway.on_message_send(ask(context="c0", task="t1"), CONTEXT))
    with pytest.raises(TaskNotFoundError):
        run(gateway.on_message_send(ask(task="gone"), CONTEXT))
    with pytest.raises(InvalidParamsError, match="text part"):
        run(gateway.on_message_send(ask(text="  "), CONTEXT))

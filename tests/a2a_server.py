"""A real Agent2Agent server for tests, built from ``a2a-sdk``'s own server classes (127.0.0.1, a thread).

``DefaultRequestHandler`` + ``InMemoryTaskStore`` + the SDK's Starlette routes (agent card and JSON-RPC),
served by uvicorn on an ephemeral port in a daemon thread with its own asyncio loop. The agent's behaviour
is chosen by a word in the task text:

- ``stall``     works forever (until canceled); the cancel is recorded in :attr:`A2AServer.canceled`;
- ``question``  ends in ``input-required`` asking "Which city?";
- ``login``     ends in ``auth-required``;
- ``refuse``    ends ``rejected``; ``explode`` ends ``failed``;
- ``file``      adds a raw-bytes artifact ``report.csv``;
- ``direct``    answers with a single Message (no task);
- ``miles``     the answer "26.2 miles = 42.16 km" both as a text artifact and as the final status message
  (as many agents send it);
- ``status``    no artifact: the answer is only the final status message;
- anything else: two working updates, a text artifact, then ``completed`` with ``done: <text>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import trio
import uvicorn
from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, TaskState
from starlette.applications import Starlette


@dataclass
class A2AServer:
    url: str = ""
    streaming: bool = True
    canceled: list[str] = field(default_factory=list)  # task ids whose cancel the executor handled
    interrupted: list[str] = field(default_factory=list)  # task ids whose work was cancelled mid-way
    received: list[str] = field(default_factory=list)  # task texts
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, bucket: list[str], value: str) -> None:
        with self._lock:
            bucket.append(value)


class ScriptedExecutor(AgentExecutor):
    def __init__(self, state: A2AServer) -> None:
        self.state = state

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        self.state.record(self.state.received, text)
        if "direct" in text:
            await event_queue.enqueue_event(new_text_message(f"direct answer to: {text}"))
            return
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        up = TaskUpdater(event_queue, task.id, task.context_id)

        def say(words: str):  # noqa: ANN202 - SDK message type
            return new_text_message(words, task_id=task.id, context_id=task.context_id)

        await up.start_work(say("reading the task"))
        if "stall" in text:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.state.record(self.state.interrupted, task.id)
                raise
        if "question" in text:
            await up.requires_input(say("Which city?"))
            return
        if "login" in text:
            await up.requires_auth(say("Sign in at the weather service first."))
            return
        if "refuse" in text:
            await up.reject(say("I only do weather."))
            return
        if "explode" in text:
            await up.failed(say("the forecast model crashed"))
            return
        if "miles" in text:
            answer = "26.2 miles = 42.16 km"
            await up.add_artifact([new_text_part(answer)], name="conversion")
            await up.complete(say(answer))
            return
        if "status" in text:
            await up.complete(say(f"status answer to: {text}"))
            return
        await up.update_status(TaskState.TASK_STATE_WORKING, say("forecasting"))
        await up.add_artifact([new_text_part(f"forecast for: {text}")], name="forecast")
        if "file" in text:
            await up.add_artifact([Part(raw=b"day,temp\nmon,12\n", filename="report.csv")], name="report")
        await up.complete(say(f"done: {text}"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        self.state.record(self.state.canceled, context.task_id)
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def agent_card(url: str, streaming: bool) -> AgentCard:
    return AgentCard(
        name="Weather agent",
        description="Forecasts the weather for a city.",
        version="1.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=streaming),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="forecast",
                name="forecast",
                description="Weather forecast for a city",
                tags=["weather", "forecast"],
                examples=["Will it rain in Paris?"],
            ),
            AgentSkill(
                id="alerts", name="storm alerts", description="Severe weather alerts", tags=["storms"]
            ),
        ],
    )


@contextlib.contextmanager
def serve_a2a(*, streaming: bool = True) -> Iterator[A2AServer]:
    """Run the scripted A2A agent on 127.0.0.1 until the block ends."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    state = A2AServer(url=f"http://127.0.0.1:{sock.getsockname()[1]}/", streaming=streaming)
    card = agent_card(state.url, streaming)
    handler = DefaultRequestHandler(
        agent_executor=ScriptedExecutor(state), task_store=InMemoryTaskStore(), agent_card=card
    )
    app = Starlette(routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/"))
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield state
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


async def wait_for(predicate: Callable[[], bool], seconds: float = 5.0) -> bool:
    """Poll ``predicate()`` until true or ``seconds`` passed (state set by server threads)."""
    with trio.move_on_after(seconds):
        while not predicate():  # noqa: ASYNC110 - the server thread offers no trio event
            await trio.sleep(0.02)
        return True
    return False

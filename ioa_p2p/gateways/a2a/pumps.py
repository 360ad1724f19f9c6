"""Running a task's goal (asyncio): the node's goal events in, the task's A2A updates out.

:meth:`GoalPump.run` launches the goal through the node's control API (``POST /launch_goal`` with a stream;
a dropped connection to the node is resumed by the client) and turns each goal event into a status
update of the task (:mod:`~ioa_p2p.gateways.a2a.mapping`). The result ends the task: the artifact (answer,
steps, citations, chat ID, and the audit of the node's copy of the chat, ``GET /chats/audit``), then the
final state. A failed launch ends it failed with the node's message. The pump runs in the gateway's own
task group, never in a client's request: a client that goes away does not stop the goal.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import aclosing

from a2a.types.a2a_pb2 import TASK_STATE_CANCELED, TASK_STATE_FAILED, TaskState

from ioa_p2p.api.events import (
    CancelledEvent,
    DoneEvent,
    ErrorEvent,
    HeartbeatEvent,
    SearchingEvent,
    StartEvent,
    TeamEvent,
)
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.api.stream import StreamItem
from ioa_p2p.control_client.aio import AsyncControlClient
from ioa_p2p.errors import IoAError
from ioa_p2p.gateways.a2a.mapping import (
    agent_message,
    error_text,
    event_update,
    final_state,
    result_artifact,
    result_text,
    status_update,
)
from ioa_p2p.gateways.a2a.tasks import GatewayTask, TaskBook
from ioa_p2p.gateways.views import EventText, audit_view, events_of, result_view

log = logging.getLogger("ioa_p2p.gateways.a2a")


def now_ms() -> int:
    return int(time.time() * 1000)


class Started:
    """How the start of a launch went: set once the node accepted it (its first event) or refused it."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.refused: IoAError | None = None

    def accept(self) -> None:
        self.event.set()

    def refuse(self, error: IoAError) -> None:
        if not self.event.is_set():
            self.refused = error
            self.event.set()


class GoalPump:
    """Runs goals for the tasks of ``book`` through ``client``."""

    def __init__(self, book: TaskBook, client: AsyncControlClient) -> None:
        self.book = book
        self.client = client

    async def run(self, task: GatewayTask, request: LaunchRequest, started: Started) -> None:
        """The goal of ``task`` from launch to result (see the module docstring)."""
        text = EventText()
        try:
            async with aclosing(events_of(self.client, request)) as events:
                async for item in events:
                    started.accept()
                    if await self._take(task, item, text):
                        return
            self._end(task, TASK_STATE_FAILED, "the node ended the goal's stream without its result")
        except IoAError as exc:
            started.refuse(exc)
            self._end(task, TASK_STATE_FAILED, f"{type(exc).__name__}: {exc}")
        except Exception as exc:
            log.exception("the A2A gateway lost task %s", task.task_id)
            failure = IoAError(f"the gateway failed: {type(exc).__name__}")
            started.refuse(failure)
            self._end(task, TASK_STATE_FAILED, str(failure))
        finally:
            if not task.terminal:  # cancelled: the gateway is stopping
                self._end(task, TASK_STATE_FAILED, "the A2A gateway stopped before the goal ended")

    async def _take(self, task: GatewayTask, item: StreamItem, text: EventText) -> bool:
        """Apply one goal event to the task; True when it was the last."""
        event = item.event
        if isinstance(event, HeartbeatEvent):
            return False
        if isinstance(event, DoneEvent):
            await self._finish(task, event.result)
            return True
        if isinstance(event, ErrorEvent):
            cancelled = task.cancel_requested
            self._end(task, TASK_STATE_CANCELED if cancelled else TASK_STATE_FAILED, error_text(event.error))
            return True
        if isinstance(event, SearchingEvent | TeamEvent):
            task.launch_id = event.launch_id
        if isinstance(event, TeamEvent):
            task.chat_id = event.chat_id
            self.book.bind_context(task.context_id, event.chat_id)
        if isinstance(event, StartEvent) and not task.round_id:
            task.round_id = event.round_id
        if isinstance(event, CancelledEvent):
            task.cancel_requested = True  # cancelled from elsewhere too (`ioa goal cancel`)
        cursor = str(item.cursor) if item.cursor is not None else ""
        update = event_update(
            task.task_id, task.context_id, task.next_n, text(event), event.to_json(), cursor, now_ms()
        )
        self.book.publish(task, update)
        if task.cancel_requested and isinstance(event, SearchingEvent | TeamEvent):
            await self._send_cancel(task)  # asked before the node named the launch
        return False

    async def _finish(self, task: GatewayTask, result: GoalResult) -> None:
        try:
            audit = audit_view(await self.client.audit(result.chat_id))
        except IoAError as exc:
            audit = audit_view(None, f"{type(exc).__name__}: {exc}")
        view = result_view(result, audit)
        self.book.publish(task, result_artifact(task.task_id, task.context_id, result, view))
        state = final_state(result, task.cancel_requested)
        message = agent_message(task.task_id, task.context_id, task.next_n, result_text(result))
        self.book.publish(task, status_update(task.task_id, task.context_id, state, message, now_ms()))

    def _end(self, task: GatewayTask, state: TaskState, why: str) -> None:
        if task.terminal:
            return
        message = agent_message(task.task_id, task.context_id, task.next_n, why)
        self.book.publish(task, status_update(task.task_id, task.context_id, state, message, now_ms()))

    async def cancel(self, task: GatewayTask) -> None:
        """Ask the node to cancel the task's goal (a signed ``conv.cancel`` once its round runs)."""
        task.cancel_requested = True
        await self._send_cancel(task)

    async def _send_cancel(self, task: GatewayTask) -> None:
        if task.chat_id:
            await self.client.cancel_goal(chat=task.chat_id)
        elif task.launch_id:
            await self.client.cancel_goal(launch=task.launch_id)
        # else: the launch has not named itself yet; _take cancels it when it does


__all__ = ["GoalPump", "Started", "now_ms"]

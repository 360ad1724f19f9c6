"""The A2A request handler of the gateway: a2a-sdk's ``RequestHandler`` over the gateway's own tasks.

Methods (A2A v1.0): ``SendMessage`` / ``SendStreamingMessage`` start a task (a goal launched through the
node's control API, :mod:`~ioa_p2p.gateways.a2a.pumps`), or continue the chat of its ``contextId`` with a
new round; ``GetTask``, ``ListTasks``, ``CancelTask`` (a signed ``conv.cancel`` on the node) and
``SubscribeToTask`` (the task's snapshot, then its live updates). Push notifications and the extended card
are not offered (their A2A errors). Every stream and waiting call takes one of ``max_streams`` slots.
Errors are A2A's: ``TaskNotFoundError``, ``TaskNotCancelableError``, ``UnsupportedOperationError`` (a
terminal task, a task still running in the context), ``InvalidParamsError`` (a wrong option, a chat the
node refuses to continue), ``ContentTypeNotSupportedError`` (a part that is not text), ``InternalError``
(the node is not running: its message).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager, suppress
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.events import Event
from a2a.server.request_handlers.request_handler import RequestHandler, validate_request_params
from a2a.types.a2a_pb2 import (
    TASK_STATE_WORKING,
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskStatusUpdateEvent,
)
from a2a.utils.errors import (
    InternalError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from a2a.utils.task import (
    apply_history_length,
    decode_page_token,
    encode_page_token,
    validate_history_length,
    validate_page_size,
)

from ioa_p2p.errors import InputError, IoAError
from ioa_p2p.gateways.a2a.asks import read_ask
from ioa_p2p.gateways.a2a.mapping import TERMINAL, agent_message, state_name, status_update
from ioa_p2p.gateways.a2a.pumps import GoalPump, Started, now_ms
from ioa_p2p.gateways.a2a.tasks import Busy, GatewayTask, TaskBook

#: Seconds a SendMessage waits for the node to accept its launch (its first event comes at once).
START_WAIT = 30.0
#: Seconds CancelTask waits for the goal to end after the cancel.
CANCEL_WAIT = 15.0
_CHAT_ID = re.compile(r"[0-9a-f]{64}")

Spawn = Callable[[Coroutine[Any, Any, None]], None]


class GatewayHandler(RequestHandler):
    """See the module docstring. ``spawn`` runs a coroutine in the gateway's task group; ``me`` is the
    node's peer ID (asked once)."""

    def __init__(
        self, book: TaskBook, pump: GoalPump, spawn: Spawn, me: Callable[[], Coroutine[Any, Any, str]]
    ):
        self.book = book
        self.pump = pump
        self.spawn = spawn
        self.me = me
        self.streams = 0

    # ------------------------------------------------------------------ sending messages

    @validate_request_params
    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Task | Message:
        async with self._slot():
            task, snapshot = await self._start(params)
            if not params.configuration.return_immediately:
                await task.done.wait()
                snapshot = task.snapshot()
            return apply_history_length(snapshot, params.configuration)

    @validate_request_params
    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        async with self._slot():
            task, snapshot = await self._start(params)
            yield apply_history_length(snapshot, params.configuration)
            async for update in self._follow(task, 0):
                yield update

    @validate_request_params
    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        task = self._task(params.id)
        if task.terminal:
            raise UnsupportedOperationError(
                message=f"task {task.task_id} is in terminal state {state_name(task.state)}: GetTask gives "
                "its history and result"
            )
        async with self._slot():
            position = task.log.last
            yield task.snapshot()
            async for update in self._follow(task, position):
                yield update

    async def _start(self, params: SendMessageRequest) -> tuple[GatewayTask, Task]:
        """A new task for the message (or an A2A error), its goal launched; the task and its first
        snapshot."""
        validate_history_length(params.configuration)
        ask = read_ask(params)
        given = params.message
        if given.task_id:
            self._refuse_follow_up_of(given)
        context_id = given.context_id or uuid.uuid4().hex
        running = [t.task_id for t in self.book.in_context(context_id) if not t.terminal]
        if running:
            raise UnsupportedOperationError(
                message=f"task {running[0]} of context {context_id} is still running: wait for its end "
                "(SubscribeToTask) or cancel it, then send the follow-up"
            )
        chat = self.book.contexts.get(context_id)
        if chat is None and given.context_id and _CHAT_ID.fullmatch(given.context_id):
            chat = given.context_id  # a goal chat of this node, named by its ID: continue it
        if chat is not None and ask.team is not None:
            raise InvalidParamsError(
                message="metadata.team: a follow-up continues the chat's team; give no team"
            )
        try:
            request = ask.launch(me=await self.me(), chat=chat)
        except IoAError as exc:
            raise InternalError(message=f"{type(exc).__name__}: {exc}") from None
        message = Message()
        message.CopyFrom(given)
        message.role = Role.ROLE_USER
        task = GatewayTask(uuid.uuid4().hex, context_id, ask.skill, message, now_ms())
        message.task_id, message.context_id = task.task_id, context_id
        snapshot = task.snapshot()
        try:
            self.book.open(task)
        except Busy as exc:
            raise UnsupportedOperationError(message=str(exc)) from None
        started = Started()
        self.spawn(self.pump.run(task, request, started))
        try:
            await asyncio.wait_for(started.event.wait(), START_WAIT)
        except TimeoutError:
            raise InternalError(message=f"the node did not start the goal within {START_WAIT:g} s") from None
        if started.refused is not None:
            self.book.forget(task)
            error = started.refused
            if isinstance(error, InputError):
                raise InvalidParamsError(message=str(error)) from None
            raise InternalError(message=f"{type(error).__name__}: {error}") from None
        return task, snapshot

    def _refuse_follow_up_of(self, given: Message) -> None:
        task = self._task(given.task_id)
        if given.context_id and given.context_id != task.context_id:
            raise InvalidParamsError(
                message=f"context {given.context_id} does not match context {task.context_id} of task "
                f"{task.task_id}"
            )
        what = f"is in terminal state {state_name(task.state)}" if task.terminal else "is still running"
        raise UnsupportedOperationError(
            message=f"task {task.task_id} {what}; to continue its chat, send a message with contextId "
            f"{task.context_id} and no taskId (a new task, the chat's next round)"
        )

    async def _follow(self, task: GatewayTask, position: int) -> AsyncIterator[Event]:
        """The task's updates after ``position``, live, until its terminal update."""
        while True:
            batch = await task.log.wait_after(position)
            if batch.missed:
                note = f"({batch.missed} updates are no longer held here: this client fell behind; GetTask)"
                message = agent_message(task.task_id, task.context_id, 0, note)
                message.message_id = f"{task.task_id}.gap.{position}"
                yield status_update(task.task_id, task.context_id, TASK_STATE_WORKING, message, now_ms())
            for position, update in batch.entries:  # noqa: B007 - the reader's position
                yield update
                if isinstance(update, TaskStatusUpdateEvent) and update.status.state in TERMINAL:
                    return
            if task.log.closed and not task.log.after(position).entries:
                return

    @asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        limit = self.book.settings.max_streams
        if self.streams >= limit:
            raise UnsupportedOperationError(
                message=f"this gateway serves {limit} streams and waiting calls at once already; retry later"
            )
        self.streams += 1
        try:
            yield
        finally:
            self.streams -= 1

    # ------------------------------------------------------------------ tasks

    def _task(self, task_id: str) -> GatewayTask:
        task = self.book.get(task_id)
        if task is None:
            raise TaskNotFoundError(message=f"no task {task_id[:80]!r} on this gateway (or it was forgotten)")
        return task

    @validate_request_params
    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        validate_history_length(params)
        return apply_history_length(self._task(params.id).snapshot(), params)

    @validate_request_params
    async def on_list_tasks(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        validate_history_length(params)
        size = params.page_size if params.HasField("page_size") else 50
        validate_page_size(size)
        since = (
            params.status_timestamp_after.ToMilliseconds() if params.HasField("status_timestamp_after") else 0
        )
        chosen = [
            t
            for t in self.book.tasks.values()
            if (not params.context_id or t.context_id == params.context_id)
            and (not params.status or t.state == params.status)
            and (t.status_ms or t.created_ms) >= since
        ]
        chosen.sort(key=lambda t: (t.status_ms or t.created_ms, t.task_id), reverse=True)
        start = 0
        if params.page_token:
            after = decode_page_token(params.page_token)
            ids = [t.task_id for t in chosen]
            if after not in ids:
                raise InvalidParamsError(
                    message="page_token names no task of this listing (it was forgotten)"
                )
            start = ids.index(after) + 1
        page = chosen[start : start + size]
        tasks = []
        for t in page:
            snapshot = apply_history_length(t.snapshot(), params)
            if not params.include_artifacts:
                snapshot.ClearField("artifacts")
            tasks.append(snapshot)
        more = start + size < len(chosen)
        token = encode_page_token(page[-1].task_id) if more and page else ""
        return ListTasksResponse(tasks=tasks, next_page_token=token, page_size=size, total_size=len(chosen))

    @validate_request_params
    async def on_cancel_task(self, params: CancelTaskRequest, context: ServerCallContext) -> Task | None:
        task = self._task(params.id)
        if task.terminal:
            raise TaskNotCancelableError(
                message=f"task {task.task_id} already ended ({state_name(task.state)})"
            )
        try:
            await self.pump.cancel(task)
        except IoAError as exc:
            if not task.terminal:
                raise TaskNotCancelableError(message=f"the node did not cancel the goal: {exc}") from None
        with suppress(TimeoutError):  # else the cancel is on its way: the stream and GetTask will show it
            await asyncio.wait_for(task.done.wait(), CANCEL_WAIT)
        return task.snapshot()

    # ------------------------------------------------------------------ not offered

    async def on_create_task_push_notification_config(
        self, params: TaskPushNotificationConfig, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError(message="this gateway sends no push notifications: stream")

    async def on_get_task_push_notification_config(
        self, params: GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError(message="this gateway sends no push notifications: stream")

    async def on_list_task_push_notification_configs(
        self, params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> ListTaskPushNotificationConfigsResponse:
        raise PushNotificationNotSupportedError(message="this gateway sends no push notifications: stream")

    async def on_delete_task_push_notification_config(
        self, params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        raise PushNotificationNotSupportedError(message="this gateway sends no push notifications: stream")

    async def on_get_extended_agent_card(
        self, params: GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> AgentCard:
        raise UnsupportedOperationError(
            message="this agent has no extended card: its public card says it all"
        )


__all__ = ["CANCEL_WAIT", "START_WAIT", "GatewayHandler"]

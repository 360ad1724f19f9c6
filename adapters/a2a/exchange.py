"""One task sent to a remote A2A agent: stream (or send and poll), report progress, cancel on our deadline.

- Streaming (the remote's card says ``capabilities.streaming`` and the ``streaming`` option is on): one
  ``SendStreamingMessage``; each status update is a progress report. A stream that ends before the task is
  finished is continued by polling ``GetTask``.
- Otherwise ``SendMessage`` with ``returnImmediately`` (so that we learn the task id at once: a blocking send
  to an agent that never finishes would never return), then ``GetTask`` every ``poll_interval`` seconds.
- The wait ends a little before the task's deadline (``cancel_timeout`` or a fifth of the time left): the
  remote task is canceled (``CancelTask``) and the result is ``timeout``. When our caller cancels us instead
  (the chat ended, the node stops), the remote task is canceled in a shielded, bounded scope before the
  cancellation goes on. A remote task left waiting for input or authorization is canceled too.
- SDK and HTTP errors are translated here: timeouts -> ``timeout``; unreachable -> ``crash``; errors the
  remote declared (JSON-RPC errors) -> ``task_error``; oversized or malformed answers -> ``bad_output``.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import cast

import httpx
import trio
from a2a.client import A2AClientError, A2AClientTimeoutError, Client, ClientCallContext
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
)
from a2a.utils.errors import A2AError
from google.protobuf.json_format import ParseError

from ioa_p2p.adapters.a2a.remote import RemoteAgent, card_summary
from ioa_p2p.adapters.a2a.tracking import TaskTracker, build_result, remote_usage, state_name
from ioa_p2p.adapters.base import BAD_OUTPUT, CRASH, TASK_ERROR, TIMEOUT, Task, TaskContext, TaskResult
from ioa_p2p.adapters.remote import scrub, usage_record
from ioa_p2p.errors import IoAError, MessageTooLarge, ProtocolViolation

log = logging.getLogger(__name__)

#: Seconds a stream may stay open after the remote task finished before we close it.
STREAM_GRACE = 2.0


@dataclass(frozen=True, slots=True)
class ExchangeSettings:
    timeout: float  # our own cap on one task, within its deadline
    poll_interval: float
    cancel_timeout: float
    max_events: int
    secrets: tuple[str, ...] = ()


def build_request(task: Task) -> SendMessageRequest:
    message = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=task.text)])
    if task.task_id or task.chat_id:
        message.metadata.update({"ioa_task_id": task.task_id, "ioa_chat_id": task.chat_id})
    return SendMessageRequest(message=message)


def _soft_end(task: Task, settings: ExchangeSettings) -> float:
    """When we stop waiting: before the deadline by enough to cancel the remote task cleanly."""
    now = trio.current_time()
    end = now + settings.timeout
    if task.deadline is not None:
        left = task.deadline - now
        end = min(end, task.deadline - min(settings.cancel_timeout, max(0.0, left) / 5))
    return end


def _events(client: Client, request: SendMessageRequest, end: float) -> AsyncGenerator[StreamResponse, None]:
    """The SDK's event stream (an async generator, typed as an iterator by the SDK)."""
    return cast(
        AsyncGenerator[StreamResponse, None], client.send_message(request, context=_call_context(end))
    )


def _call_context(end: float) -> ClientCallContext:
    left = end - trio.current_time()
    return ClientCallContext(timeout=max(1.0, left) if math.isfinite(left) else None)


async def _stream(
    client: Client, request: SendMessageRequest, tracker: TaskTracker, ctx: TaskContext, end: float
) -> None:
    async with aclosing(_events(client, request, end)) as events:
        async for event in events:
            await _report(tracker, event, ctx)
            if tracker.done:
                break
        else:
            return
        # Done: let the stream end by itself for a moment (so the SDK's generators finish cleanly).
        with trio.move_on_after(STREAM_GRACE):
            async for event in events:
                await _report(tracker, event, ctx)


async def _report(tracker: TaskTracker, event: StreamResponse, ctx: TaskContext) -> None:
    text = tracker.apply(event)
    if text:
        await ctx.progress(text)


async def _poll(
    client: Client, tracker: TaskTracker, ctx: TaskContext, settings: ExchangeSettings, end: float
) -> None:
    if not tracker.done and not tracker.task_id:
        raise ProtocolViolation("the remote A2A agent answered with neither a task nor a message")
    while not tracker.done:
        await trio.sleep(settings.poll_interval)
        remote_task = await client.get_task(GetTaskRequest(id=tracker.task_id), context=_call_context(end))
        tracker.events += 1
        if tracker.events > tracker.max_events:
            raise ProtocolViolation(f"the remote A2A task took more than {tracker.max_events} polls")
        text = tracker.apply_task(remote_task)
        if text:
            await ctx.progress(text)


async def cancel_remote(client: Client, tracker: TaskTracker, time_limit: float) -> bool:
    """Ask the remote to cancel its task (shielded, at most ``time_limit`` s); whether it said canceled."""
    if not tracker.open_remote_task:
        return False
    with trio.CancelScope(shield=True), trio.move_on_after(time_limit):
        try:
            answer = await client.cancel_task(CancelTaskRequest(id=tracker.task_id))
            return state_name(answer.status.state) == "canceled"
        except (A2AError, httpx.HTTPError, IoAError, ParseError) as exc:
            log.info("canceling remote A2A task %s failed: %s", tracker.task_id, scrub(str(exc), limit=200))
    return False


async def run_exchange(
    remote: RemoteAgent, task: Task, ctx: TaskContext, settings: ExchangeSettings
) -> TaskResult:
    """Run ``task`` on the remote agent (see the module docstring); returns our result."""
    started = time.monotonic()
    tracker = TaskTracker(max_events=settings.max_events)
    end = _soft_end(task, settings)
    info = {"agent": card_summary(remote.card), "streaming": remote.streaming, "remote_canceled": False}
    try:
        with trio.move_on_at(end) as waited:
            request = build_request(task)
            if remote.streaming:
                await _stream(remote.client, request, tracker, ctx, end)
            else:
                async with aclosing(_events(remote.client, request, end)) as first:
                    async for event in first:
                        await _report(tracker, event, ctx)
            await _poll(remote.client, tracker, ctx, settings, end)
    except BaseException as exc:
        info["remote_canceled"] = await cancel_remote(remote.client, tracker, settings.cancel_timeout)
        failed = _translate(exc, tracker, settings)
        if failed is None:
            raise  # trio.Cancelled and anything we do not own
        return _with_usage(failed, started, tracker, info)
    if waited.cancelled_caught:
        info["remote_canceled"] = await cancel_remote(remote.client, tracker, settings.cancel_timeout)
        canceled = "its task was canceled" if info["remote_canceled"] else "canceling its task failed"
        reason = (
            f"the remote A2A agent did not finish before the deadline (last state: "
            f"{state_name(tracker.state)}); {canceled}"
        )
        return _with_usage(TaskResult.failed(TIMEOUT, reason), started, tracker, info)
    if tracker.open_remote_task:  # waiting for input or authorization we cannot give
        info["remote_canceled"] = await cancel_remote(remote.client, tracker, settings.cancel_timeout)
    return _with_usage(build_result(tracker, info, list(settings.secrets)), started, tracker, info)


def _translate(exc: BaseException, tracker: TaskTracker, settings: ExchangeSettings) -> TaskResult | None:
    secrets = settings.secrets
    where = f" (remote task {tracker.task_id})" if tracker.task_id else ""
    if isinstance(exc, MessageTooLarge | ProtocolViolation | ParseError):
        return TaskResult.failed(BAD_OUTPUT, f"the remote A2A agent sent a bad answer{where}: {exc}")
    if isinstance(exc, A2AClientTimeoutError):
        return TaskResult.failed(TIMEOUT, f"the remote A2A agent did not answer in time{where}")
    if isinstance(exc, A2AClientError | httpx.HTTPError):
        cause = exc.__cause__ if isinstance(exc.__cause__, MessageTooLarge) else None
        if cause is not None:
            return TaskResult.failed(BAD_OUTPUT, f"the remote A2A agent sent a bad answer{where}: {cause}")
        detail = scrub(str(exc), secrets)
        return TaskResult.failed(CRASH, f"cannot reach the remote A2A agent{where}: {detail}")
    if isinstance(exc, A2AError):
        return TaskResult.failed(
            TASK_ERROR,
            f"the remote A2A agent refused the request{where}: {type(exc).__name__}: "
            f"{scrub(str(exc), secrets, limit=500)}",
        )
    return None


def _with_usage(
    result: TaskResult, started: float, tracker: TaskTracker, info: dict[str, object]
) -> TaskResult:
    data = dict(result.data)
    data.setdefault("a2a", {**info, "task_id": tracker.task_id, "state": state_name(tracker.state)})
    data["a2a"]["remote_canceled"] = info["remote_canceled"]
    wall_ms = int((time.monotonic() - started) * 1000)
    data["usage"] = usage_record(wall_ms=wall_ms, **remote_usage(tracker.metadata))
    return TaskResult(result.ok, result.text, data, result.files, result.failure)


__all__ = ["ExchangeSettings", "build_request", "cancel_remote", "run_exchange"]

"""Goal events and results as A2A objects (pure): status updates, the final artifact, the final state.

Every goal event becomes one ``TaskStatusUpdateEvent`` (state ``TASK_STATE_WORKING``) whose message
(role agent, ``messageId`` ``<task id>.<n>``, n counting the task's updates from 1) has a text part (the
lines ``ioa goal`` prints) and a data part (the event's JSON, texts cut to 4000 characters), and metadata
``{"event": kind, "cursor": <the node's event cursor>}``. The goal's result becomes the artifact
``result``: a text part (the answer) and a data part (:func:`~ioa_p2p.gateways.views.result_view`: answer,
steps, citations, chat ID, audit verdict...). docs/gateways.md has the table of states.
"""

from __future__ import annotations

from typing import Any

from a2a.types.a2a_pb2 import (
    TASK_STATE_CANCELED,
    TASK_STATE_COMPLETED,
    TASK_STATE_FAILED,
    TASK_STATE_WORKING,
    Artifact,
    Message,
    Part,
    Role,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf.json_format import ParseDict
from google.protobuf.struct_pb2 import Value
from google.protobuf.timestamp_pb2 import Timestamp

from ioa_p2p.api.codec import JsonObject, JsonValue
from ioa_p2p.api.events import StreamError
from ioa_p2p.api.goals import EXIT_OK, GoalResult
from ioa_p2p.gateways.views import answer_text, clip

#: The states that end a task (nothing follows them).
TERMINAL = frozenset(
    {TASK_STATE_COMPLETED, TASK_STATE_FAILED, TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED}
)
ARTIFACT_ID = "result"
JSON_MEDIA = "application/json"

#: One update of a task: what its log holds and its streams send.
Update = TaskStatusUpdateEvent | TaskArtifactUpdateEvent


def json_part(value: JsonValue) -> Part:
    data: Any = value  # any JSON value: a protobuf Value holds each kind
    return Part(data=ParseDict(data, Value()), media_type=JSON_MEDIA)


def agent_message(task_id: str, context_id: str, n: int, text: str, data: JsonValue = None) -> Message:
    """The agent's message of a task's ``n``-th update (its ID is stable: ``<task id>.<n>``)."""
    parts = [Part(text=text)]
    if data is not None:
        parts.append(json_part(data))
    return Message(
        message_id=f"{task_id}.{n}", task_id=task_id, context_id=context_id, role=Role.ROLE_AGENT, parts=parts
    )


def status_update(
    task_id: str,
    context_id: str,
    state: TaskState,
    message: Message,
    now_ms: int,
    meta: JsonObject | None = None,
) -> TaskStatusUpdateEvent:
    stamp = Timestamp()
    stamp.FromMilliseconds(now_ms)
    update = TaskStatusUpdateEvent(
        task_id=task_id,
        context_id=context_id,
        status=TaskStatus(state=state, message=message, timestamp=stamp),
    )
    if meta:
        update.metadata.update(meta)
    return update


def event_update(
    task_id: str, context_id: str, n: int, text: str, event: JsonObject, cursor: str, now_ms: int
) -> TaskStatusUpdateEvent:
    """The status update of a goal event (state working)."""
    message = agent_message(task_id, context_id, n, text, clip(event))
    kind = str(event.get("event", ""))
    message.metadata.update({"event": kind, "cursor": cursor})
    return status_update(task_id, context_id, TASK_STATE_WORKING, message, now_ms, {"event": kind})


def result_artifact(
    task_id: str, context_id: str, result: GoalResult, view: JsonObject
) -> TaskArtifactUpdateEvent:
    """The artifact ``result`` of a finished goal: the answer as text, the result view as JSON."""
    artifact = Artifact(
        artifact_id=ARTIFACT_ID,
        name="result",
        description="the goal's answer, steps, citations, chat ID and the audit verdict of its history",
        parts=[Part(text=answer_text(result)), json_part(view)],
    )
    return TaskArtifactUpdateEvent(task_id=task_id, context_id=context_id, artifact=artifact, last_chunk=True)


def final_state(result: GoalResult, cancel_requested: bool) -> TaskState:
    """Completed when the round concluded with every needed task done; canceled when it was aborted after a
    cancel; failed otherwise (concluded with failed tasks, aborted at the deadline)."""
    if result.status == "concluded":
        return TASK_STATE_COMPLETED if result.exit_code == EXIT_OK else TASK_STATE_FAILED
    return TASK_STATE_CANCELED if cancel_requested else TASK_STATE_FAILED


def result_text(result: GoalResult) -> str:
    """The final status message of a goal that produced a result."""
    if result.status == "concluded" and result.exit_code == EXIT_OK:
        return answer_text(result)
    if result.status == "concluded":
        failed = sum(1 for t in result.tasks if t.status != "completed")
        return f"concluded, but {failed} of {len(result.tasks)} tasks did not complete: {answer_text(result)}"
    return f"aborted: {str(clip(result.conclusion, 1000)) or 'no conclusion'}"


def error_text(error: StreamError) -> str:
    return str(clip(f"{error.type}: {error.message}", 2000))


def state_name(state: TaskState) -> str:
    return TaskState.Name(state)


__all__ = [
    "ARTIFACT_ID",
    "TERMINAL",
    "Update",
    "agent_message",
    "error_text",
    "event_update",
    "final_state",
    "json_part",
    "result_artifact",
    "result_text",
    "state_name",
    "status_update",
]

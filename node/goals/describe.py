"""The events of a goal chat's messages (pure): a verified message in, its typed event out.

:func:`describe_start` (a round's ``conv.start``) and :func:`describe_message` (``turn``, ``progress``,
``result``, ``invalid``) build the events of :mod:`ioa_p2p.api.events` with the members' names;
:func:`describe_task` is a task of a round's outcome as the goal's result shows it.
"""

from __future__ import annotations

from collections.abc import Callable

from ioa_p2p.api.codec import json_object
from ioa_p2p.api.events import (
    InvalidEvent,
    MemberName,
    MessageEvent,
    MessageFields,
    ProgressEvent,
    ResultEvent,
    StartEvent,
    TaskAssigned,
    TurnEvent,
)
from ioa_p2p.api.goals import TaskRecord
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.base import fallback_kind, turn_origin
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome
from ioa_p2p.conversation.types import TaskView
from ioa_p2p.errors import IoAError
from ioa_p2p.history.bodies import ChatMessage
from ioa_p2p.wire.envelope import Envelope

NameOf = Callable[[str], str]

TYPE_NAMES = {
    cm.DISCUSSION: "discussion",
    cm.TASK_SYNC: "sync_task",
    cm.TASK_ASYNC: "async_task",
    cm.PAUSE: "pause",
    cm.CONCLUSION: "conclusion",
}


def describe_start(chat_id: str, start: ConvStart, round_id: str, name_of: NameOf) -> StartEvent:
    """The ``start`` event of a round."""
    return StartEvent(
        chat_id=chat_id,
        round_id=round_id,
        goal=start.goal,
        initiator=start.initiator,
        initiator_name=name_of(start.initiator),
        members=tuple(MemberName(m, name_of(m)) for m in start.members),
        deadline_ms=round(start.deadline * 1000),
        max_turns=start.max_turns,
        depth=start.depth,
        parent_chat=start.parent_chat,
        parent_task=start.parent_task,
    )


def describe_message(
    chat_id: str, env: Envelope, round_id: str | None, name_of: NameOf
) -> TurnEvent | ProgressEvent | ResultEvent | InvalidEvent | MessageEvent:
    """The event of a verified ``conv.*`` chat message (``turn``, ``progress``, ``result``, ``invalid``)."""
    body = env.body
    assert isinstance(body, ChatMessage)
    author, msg_id = str(env.author), env.hash.hex()
    base = MessageEvent(chat_id, round_id, msg_id, author, name_of(author), body.kind)
    try:
        parsed = cm.parse(body.kind, body.content)
    except IoAError as exc:
        return InvalidEvent(*_fields(base), reason=str(exc))
    if isinstance(parsed, cm.Turn):
        return TurnEvent(
            *_fields(base),
            type=TYPE_NAMES.get(parsed.kind, parsed.kind),
            height=parsed.height,
            level=parsed.level,
            reason=parsed.reason,
            text=parsed.text,
            next=tuple(name_of(n) for n in parsed.next),
            tasks=tuple(
                TaskAssigned(cm.task_id(msg_id, i), t.assignee, name_of(t.assignee), t.title, t.description)
                for i, t in enumerate(parsed.tasks)
            ),
            triggers=tuple(parsed.triggers),
            fail_tasks=tuple(parsed.fail_tasks),
            forced=parsed.forced,
            origin=turn_origin(parsed.text),
            fallback=fallback_kind(parsed.text) or "",
        )
    if isinstance(parsed, cm.TaskProgress):
        fraction = parsed.fraction
        return ProgressEvent(*_fields(base), task_id=parsed.task_id, text=parsed.text, fraction=fraction)
    if isinstance(parsed, TaskOutcome):
        return ResultEvent(
            *_fields(base),
            task_id=parsed.task_id,
            ok=parsed.ok,
            text=parsed.text,
            failure=parsed.failure,
            files=tuple(sorted(parsed.files or {})),
        )
    return base


def _fields(base: MessageFields) -> tuple[str, str | None, str, str, str, str]:
    return base.chat_id, base.round_id, base.msg_id, base.author, base.author_name, base.kind


def describe_task(task: TaskView, name_of: NameOf) -> TaskRecord:
    """A task of a round's outcome (files by name and size only; bytes in its data as ``{"$bytes"}``)."""
    return TaskRecord(
        task_id=task.task_id,
        title=task.title,
        description=task.description,
        assigner=task.assigner,
        assignee=task.assignee,
        mode=task.mode,
        status=task.status.value,
        text=task.text,
        failure=task.failure,
        data=json_object(task.data),
        files={name: len(blob) for name, blob in (task.files or {}).items()},
        progress=task.progress,
        assignee_name=name_of(task.assignee),
    )


__all__ = ["TYPE_NAMES", "NameOf", "describe_message", "describe_start", "describe_task"]

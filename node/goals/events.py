"""The JSON events of a goal chat (pure): what ``ioa goal`` prints and the control API streams.

Every event has ``event`` and ``chat_id``; the shapes are listed in docs/goals.md:
``searching``, ``team`` (from the initiator), ``start``, ``turn``, ``progress``, ``result``, ``member_left``,
``rejected``, ``invalid``, ``concluded`` / ``aborted``, and on streams ``heartbeat``, ``done``, ``error``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ioa_p2p.conversation import messages as cm
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


def describe_start(start: ConvStart, round_id: str, name_of: NameOf) -> dict[str, Any]:
    """The ``start`` event of a round."""
    return {
        "event": "start",
        "round_id": round_id,
        "goal": start.goal,
        "initiator": start.initiator,
        "initiator_name": name_of(start.initiator),
        "members": [{"peer_id": m, "name": name_of(m)} for m in start.members],
        "deadline_ms": round(start.deadline * 1000),
        "max_turns": start.max_turns,
        "depth": start.depth,
        "parent_chat": start.parent_chat,
        "parent_task": start.parent_task,
    }


def describe_message(env: Envelope, round_id: str | None, name_of: NameOf) -> dict[str, Any]:
    """The event of a verified ``conv.*`` chat message (``turn``, ``progress``, ``result``, ``invalid``)."""
    body = env.body
    assert isinstance(body, ChatMessage)
    author, msg_id = str(env.author), env.hash.hex()
    c = body.content
    base = {
        "round_id": round_id,
        "msg_id": msg_id,
        "author": author,
        "author_name": name_of(author),
        "kind": body.kind,
    }
    try:
        parsed = cm.parse(body.kind, c)
    except IoAError as exc:
        return {"event": "invalid", **base, "reason": str(exc)}
    if isinstance(parsed, cm.Turn):
        tasks = [
            {
                "task_id": cm.task_id(msg_id, i),
                "assignee": t.assignee,
                "assignee_name": name_of(t.assignee),
                "title": t.title,
                "description": t.description,
            }
            for i, t in enumerate(parsed.tasks)
        ]
        return {
            "event": "turn",
            **base,
            "type": TYPE_NAMES.get(parsed.kind, parsed.kind),
            "height": parsed.height,
            "level": parsed.level,
            "reason": parsed.reason,
            "text": parsed.text,
            "next": [name_of(n) for n in parsed.next],
            "tasks": tasks,
            "triggers": list(parsed.triggers),
            "fail_tasks": list(parsed.fail_tasks),
            "forced": parsed.forced,
        }
    if isinstance(parsed, cm.TaskProgress):
        return {
            "event": "progress",
            **base,
            "task_id": parsed.task_id,
            "text": parsed.text,
            "fraction": parsed.fraction,
        }
    if isinstance(parsed, TaskOutcome):
        return {
            "event": "result",
            **base,
            "task_id": parsed.task_id,
            "ok": parsed.ok,
            "text": parsed.text,
            "failure": parsed.failure,
            "files": sorted(parsed.files or {}),
        }
    return {"event": "message", **base}


def describe_task(task: TaskView, name_of: NameOf) -> dict[str, Any]:
    """A task of a round's outcome, as JSON."""
    out = task_json(task)
    out["assignee_name"] = name_of(task.assignee)
    return out


def task_json(task: TaskView) -> dict[str, Any]:
    """A task as plain JSON (files by name and size only)."""
    return {
        "task_id": task.task_id,
        "title": task.title,
        "description": task.description,
        "assigner": task.assigner,
        "assignee": task.assignee,
        "mode": task.mode,
        "status": task.status.value,
        "text": task.text,
        "failure": task.failure,
        "data": dict(task.data or {}),
        "files": {name: len(blob) for name, blob in (task.files or {}).items()},
        "progress": task.progress,
    }


__all__ = ["TYPE_NAMES", "NameOf", "describe_message", "describe_start", "describe_task", "task_json"]

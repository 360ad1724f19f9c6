"""The events of a goal (pure): one frozen dataclass per kind, and their JSON at the control API.

The goals service, its chat drivers and team formation pass these typed events (:data:`GoalEvent`);
:func:`event_to_json` turns one into JSON only where it leaves the node: the control routes
(:mod:`ioa_p2p.node.goals.routes`, the NDJSON of ``POST /launch_goal`` with ``stream`` and of
``GET /goal_events``), which ``ioa goal`` prints. The JSON shapes are docs/goals.md, section 4.

The JSON of an event is ``{"chat_id": ..., "event": <kind>, <fields>}``: ``chat_id`` first when the event
has one (every event of a chat; not ``searching`` / ``team_fallback``, which come before the chat exists,
nor the stream's own ``heartbeat`` / ``done`` / ``error``), then the kind (the class's ``event``), then the
other fields **in their declaration order**, which is therefore the key order on the wire (tests pin it).
Tuples become lists, nested dataclasses objects, and a value with ``to_json`` (a teammate, a goal result)
its JSON. A field marked :data:`OMIT_EMPTY` is left out when it is empty.

Kinds: the launcher's (``searching``, ``team_fallback``, ``team``), every member's from its chat (``start``,
``turn``, ``progress``, ``result``, ``message``, ``invalid``, ``plan``, ``cancelled``, ``rejected``,
``member_left``, ``concluded`` / ``aborted``), a stream's own (``heartbeat``, ``done``, ``error``).
``invalid`` and ``rejected`` each keep their two shapes (two classes each, see their docstrings).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ioa_p2p.node.goals.types import GoalResult, Teammate

#: Field metadata: the key is left out of the JSON when the value is empty.
OMIT_EMPTY: Mapping[str, bool] = {"omit_empty": True}


# --------------------------------------------------------------------------- parts of events


@dataclass(frozen=True, slots=True)
class MemberName:
    """A member of a round, with its name (``start.members``)."""

    peer_id: str
    name: str


@dataclass(frozen=True, slots=True)
class TaskAssigned:
    """A task a turn assigns (``turn.tasks``)."""

    task_id: str
    assignee: str
    assignee_name: str
    title: str
    description: str


@dataclass(frozen=True, slots=True)
class PlanStepView:
    """A step of a shared plan (``plan.steps``); ``owner`` is a peer ID or ""."""

    title: str
    owner: str
    status: str
    owner_name: str


@dataclass(frozen=True, slots=True)
class StreamError:
    """Why a streamed goal failed (``error.error``): the error's type, message and the exit code."""

    type: str
    message: str
    exit_code: int


# --------------------------------------------------------------------------- the launcher's events


@dataclass(frozen=True, slots=True)
class SearchingEvent:
    """The launch began looking for teammates (``launch_id`` cancels it before the chat exists)."""

    event: ClassVar[str] = "searching"
    goal: str
    launch_id: str


@dataclass(frozen=True, slots=True)
class TeamFallbackEvent:
    """The LLM team-up failed (``reason``: its failure kind); similarity chooses the team."""

    event: ClassVar[str] = "team_fallback"
    reason: str


@dataclass(frozen=True, slots=True)
class TeamEvent:
    """The team formed for a goal (also in the chat's event log, so followers see it)."""

    event: ClassVar[str] = "team"
    chat_id: str
    goal: str
    team: tuple[Teammate, ...]
    declined: tuple[Teammate, ...]
    unanswered: tuple[Teammate, ...]
    timings: Mapping[str, float]
    team_fallback: str
    launch_id: str


# --------------------------------------------------------------------------- the events of a chat


@dataclass(frozen=True, slots=True)
class StartEvent:
    """A round began (a valid ``conv.start``; its message id is the round id)."""

    event: ClassVar[str] = "start"
    chat_id: str
    round_id: str
    goal: str
    initiator: str
    initiator_name: str
    members: tuple[MemberName, ...]
    deadline_ms: int
    max_turns: int
    depth: int
    parent_chat: str
    parent_task: str


@dataclass(frozen=True, slots=True)
class MessageFields:
    """The fields every event of a ``conv.*`` message has (``round_id``: None when the message belongs to
    no known round); not an event itself."""

    chat_id: str
    round_id: str | None
    msg_id: str
    author: str
    author_name: str
    kind: str


@dataclass(frozen=True, slots=True)
class MessageEvent(MessageFields):
    """A verified ``conv.*`` message that is none of the kinds below."""

    event: ClassVar[str] = "message"


@dataclass(frozen=True, slots=True)
class TurnEvent(MessageFields):
    """A turn (``type``: discussion, sync_task, async_task, pause, conclusion)."""

    event: ClassVar[str] = "turn"
    type: str
    height: int
    level: int
    reason: str
    text: str
    next: tuple[str, ...]  # names
    tasks: tuple[TaskAssigned, ...]
    triggers: tuple[str, ...]
    fail_tasks: tuple[str, ...]
    forced: bool
    origin: str  # model, fallback, offline, rule
    fallback: str  # the failure kind of a fallback turn, or ""


@dataclass(frozen=True, slots=True)
class ProgressEvent(MessageFields):
    event: ClassVar[str] = "progress"
    task_id: str
    text: str
    fraction: float | None


@dataclass(frozen=True, slots=True)
class ResultEvent(MessageFields):
    event: ClassVar[str] = "result"
    task_id: str
    ok: bool
    text: str
    failure: str | None
    files: tuple[str, ...]  # names, sorted


@dataclass(frozen=True, slots=True)
class InvalidEvent(MessageFields):
    """A ``conv.*`` message whose content does not parse."""

    event: ClassVar[str] = "invalid"
    reason: str


@dataclass(frozen=True, slots=True)
class InvalidSideEvent:
    """A ``conv.plan`` / ``conv.cancel`` whose content does not parse (so no round is known)."""

    event: ClassVar[str] = "invalid"
    chat_id: str
    msg_id: str
    author: str
    reason: str


@dataclass(frozen=True, slots=True)
class PlanEvent:
    """A ``conv.plan`` update of a round's shared plan."""

    event: ClassVar[str] = "plan"
    chat_id: str
    round_id: str
    msg_id: str
    author: str
    author_name: str
    version: int
    steps: tuple[PlanStepView, ...]


@dataclass(frozen=True, slots=True)
class CancelledEvent:
    """The round's initiator cancelled it (``conv.cancel``); the ``aborted`` event follows."""

    event: ClassVar[str] = "cancelled"
    chat_id: str
    round_id: str
    msg_id: str
    author: str
    author_name: str
    reason: str


@dataclass(frozen=True, slots=True)
class CancelRejectedEvent:
    """A ``conv.cancel`` by a member that is not the round's initiator (ignored)."""

    event: ClassVar[str] = "rejected"
    chat_id: str
    round_id: str
    msg_id: str
    author: str
    author_name: str
    reason: str


@dataclass(frozen=True, slots=True)
class RejectedEvent:
    """A ``conv.*`` message the state machine refused."""

    event: ClassVar[str] = "rejected"
    chat_id: str
    round_id: str
    msg_id: str
    author: str
    reason: str


@dataclass(frozen=True, slots=True)
class MemberLeftEvent:
    """A member left the chat or was removed (``member.leave`` / ``member.remove``)."""

    event: ClassVar[str] = "member_left"
    chat_id: str
    member: str
    name: str


@dataclass(frozen=True, slots=True)
class ConcludedEvent:
    """The round ended with a conclusion (``text``) by ``author``."""

    event: ClassVar[str] = "concluded"
    chat_id: str
    round_id: str
    text: str
    forced: bool
    author: str
    author_name: str


@dataclass(frozen=True, slots=True)
class AbortedEvent:
    """The round was aborted (``reason``); ``text`` summarises the task results."""

    event: ClassVar[str] = "aborted"
    chat_id: str
    round_id: str
    text: str
    forced: bool = False  # the keys of a concluded event, then the reason
    author: str = ""
    author_name: str = ""
    reason: str = field(default="", metadata=OMIT_EMPTY)


# --------------------------------------------------------------------------- a stream's own events


@dataclass(frozen=True, slots=True)
class HeartbeatEvent:
    """Sent after 10 s of silence on a stream."""

    event: ClassVar[str] = "heartbeat"


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """The last event of a ``POST /launch_goal`` stream: the goal's result."""

    event: ClassVar[str] = "done"
    result: GoalResult


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """The last event of a ``POST /launch_goal`` stream when the goal failed."""

    event: ClassVar[str] = "error"
    error: StreamError


#: The events of one goal chat (every one has a ``chat_id``): what a driver logs and its followers get.
ChatEvent = (
    TeamEvent
    | StartEvent
    | MessageEvent
    | TurnEvent
    | ProgressEvent
    | ResultEvent
    | InvalidEvent
    | InvalidSideEvent
    | PlanEvent
    | CancelledEvent
    | CancelRejectedEvent
    | RejectedEvent
    | MemberLeftEvent
    | ConcludedEvent
    | AbortedEvent
)
#: Every event of a goal, as the goals service, its drivers and the control routes pass them.
GoalEvent = ChatEvent | SearchingEvent | TeamFallbackEvent | HeartbeatEvent | DoneEvent | ErrorEvent
#: Where a launch reports its events as they happen (``launch_goal(on_event=...)``).
EventSink = Callable[[GoalEvent], None]
#: The events that end a round.
END_EVENTS = (ConcludedEvent, AbortedEvent)


def event_to_json(event: GoalEvent) -> dict[str, Any]:
    """The JSON of an event at the control API (docs/goals.md, section 4; see the module docstring)."""
    out: dict[str, Any] = {}
    chat_id = getattr(event, "chat_id", None)
    if chat_id is not None:
        out["chat_id"] = chat_id
    out["event"] = event.event
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if f.name == "chat_id" or (f.metadata.get("omit_empty") and not value):
            continue
        out[f.name] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    """A field's value as JSON (see the module docstring)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


__all__ = [
    "END_EVENTS",
    "OMIT_EMPTY",
    "AbortedEvent",
    "CancelRejectedEvent",
    "CancelledEvent",
    "ChatEvent",
    "ConcludedEvent",
    "DoneEvent",
    "ErrorEvent",
    "EventSink",
    "GoalEvent",
    "HeartbeatEvent",
    "InvalidEvent",
    "InvalidSideEvent",
    "MemberLeftEvent",
    "MemberName",
    "MessageEvent",
    "MessageFields",
    "PlanEvent",
    "PlanStepView",
    "ProgressEvent",
    "RejectedEvent",
    "ResultEvent",
    "SearchingEvent",
    "StartEvent",
    "StreamError",
    "TaskAssigned",
    "TeamEvent",
    "TeamFallbackEvent",
    "TurnEvent",
    "event_to_json",
]

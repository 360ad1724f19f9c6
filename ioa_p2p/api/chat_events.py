"""The :class:`Event` base of a goal's events, the parts they carry, and the events of a goal chat (pure).

Every member's driver logs a chat's events (``start``, ``turn``, ``progress``, ``result``, ``message``,
``invalid``, ``plan``, ``cancelled``, ``rejected``, ``member_left``, ``concluded`` / ``aborted``); the
launcher's and a stream's own events, the unions and :func:`~ioa_p2p.api.events.decode_event` are in
:mod:`ioa_p2p.api.events`, which re-exports these. The JSON rules (key order, ``omit="empty"``) are in
that module's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar, Self

from ioa_p2p.api.codec import (
    ApiObject,
    Json,
    JsonObject,
    JsonValue,
    decode_object,
    encode_object,
)
from ioa_p2p.errors import InvalidField


class Event(ApiObject):
    """Base of the events: ``chat_id`` first, then ``event``, then the fields (module docstring)."""

    __slots__ = ()
    event: ClassVar[str] = ""

    def to_json(self) -> JsonObject:
        fields = encode_object(self)
        out: JsonObject = {}
        if "chat_id" in fields:
            out["chat_id"] = fields.pop("chat_id")
        out["event"] = self.event
        out.update(fields)
        return out

    @classmethod
    def from_json(cls, data: JsonValue) -> Self:
        if not isinstance(data, dict) or data.get("event") != cls.event:
            raise InvalidField("event", f"is not a {cls.event!r} event")
        return decode_object(cls, {k: v for k, v in data.items() if k != "event"}, "")


# --------------------------------------------------------------------------- parts of events


@dataclass(frozen=True, slots=True)
class MemberName(ApiObject):
    """A member of a round, with its name (``start.members``)."""

    peer_id: str
    name: str


@dataclass(frozen=True, slots=True)
class TaskAssigned(ApiObject):
    """A task a turn assigns (``turn.tasks``)."""

    task_id: str
    assignee: str
    assignee_name: str
    title: str
    description: str


@dataclass(frozen=True, slots=True)
class PlanStepView(ApiObject):
    """A step of a shared plan (``plan.steps``); ``owner`` is a peer ID or ""."""

    title: str
    owner: str
    status: str
    owner_name: str


@dataclass(frozen=True, slots=True)
class StreamError(ApiObject):
    """Why a streamed goal failed (``error.error``): the error's type, message and the exit code."""

    type: str
    message: str
    exit_code: int


# --------------------------------------------------------------------------- the events of a chat


@dataclass(frozen=True, slots=True)
class StartEvent(Event):
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
class MessageFields(Event):
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
class InvalidSideEvent(Event):
    """A ``conv.plan`` / ``conv.cancel`` whose content does not parse (so no round is known)."""

    event: ClassVar[str] = "invalid"
    chat_id: str
    msg_id: str
    author: str
    reason: str


@dataclass(frozen=True, slots=True)
class PlanEvent(Event):
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
class CancelledEvent(Event):
    """The round's initiator cancelled it (``conv.cancel``); the ``aborted`` event follows."""

    event: ClassVar[str] = "cancelled"
    chat_id: str
    round_id: str
    msg_id: str
    author: str
    author_name: str
    reason: str


@dataclass(frozen=True, slots=True)
class CancelRejectedEvent(Event):
    """A ``conv.cancel`` by a member that is not the round's initiator (ignored)."""

    event: ClassVar[str] = "rejected"
    chat_id: str
    round_id: str
    msg_id: str
    author: str
    author_name: str
    reason: str


@dataclass(frozen=True, slots=True)
class RejectedEvent(Event):
    """A ``conv.*`` message the state machine refused."""

    event: ClassVar[str] = "rejected"
    chat_id: str
    round_id: str
    msg_id: str
    author: str
    reason: str


@dataclass(frozen=True, slots=True)
class MemberLeftEvent(Event):
    """A member left the chat or was removed (``member.leave`` / ``member.remove``)."""

    event: ClassVar[str] = "member_left"
    chat_id: str
    member: str
    name: str


@dataclass(frozen=True, slots=True)
class ConcludedEvent(Event):
    """The round ended with a conclusion (``text``) by ``author``."""

    event: ClassVar[str] = "concluded"
    chat_id: str
    round_id: str
    text: str
    forced: bool
    author: str
    author_name: str


@dataclass(frozen=True, slots=True)
class AbortedEvent(Event):
    """The round was aborted (``reason``); ``text`` summarises the task results."""

    event: ClassVar[str] = "aborted"
    chat_id: str
    round_id: str
    text: str
    forced: bool = False  # the keys of a concluded event, then the reason
    author: str = ""
    author_name: str = ""
    reason: Annotated[str, Json(omit="empty")] = ""


__all__ = [
    "AbortedEvent",
    "CancelRejectedEvent",
    "CancelledEvent",
    "ConcludedEvent",
    "Event",
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
    "StartEvent",
    "StreamError",
    "TaskAssigned",
    "TurnEvent",
]

"""The events of a goal (pure): one frozen dataclass per kind, with its JSON both ways.

The goals service, its chat drivers and team formation pass these typed events (:data:`GoalEvent`); the
control routes stream their JSON (the NDJSON of ``POST /launch_goal`` with ``stream`` and of ``GET
/goal_events``, or the same JSON as server-sent events, :mod:`ioa_p2p.api.stream`); clients read it back
with :func:`decode_event`. The JSON shapes are docs/protocol.md §7.4 (pinned by tests/goal_event_shapes.py).

The JSON of an event is ``{"chat_id": ..., "event": <kind>, <fields>}``: ``chat_id`` first when the event
has one (every event of a chat; not ``searching`` / ``team_fallback``, which come before the chat exists,
nor the stream's own ``heartbeat`` / ``done`` / ``error`` / ``gap`` / ``reset``), then the kind (the
class's ``event``), then the other fields **in their declaration order**, which is therefore the key order
on the wire. A field marked ``omit="empty"`` is left out when it is empty.

Kinds: the launcher's (``searching``, ``team_fallback``, ``team``), every member's from its chat (``start``,
``turn``, ``progress``, ``result``, ``message``, ``invalid``, ``plan``, ``cancelled``, ``rejected``,
``member_left``, ``concluded`` / ``aborted``), a stream's own (``heartbeat``, ``done``, ``error``, ``gap``,
``reset``). ``invalid`` and ``rejected`` each keep their two shapes (two classes each, see their
docstrings); :func:`decode_event` tells them apart by their keys. A kind this version does not know is read
as :class:`UnknownEvent` (a newer node may add kinds). The :class:`Event` base, the parts events carry and
the events of a chat are in :mod:`ioa_p2p.api.chat_events` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from ioa_p2p.api.chat_events import (
    AbortedEvent,
    CancelledEvent,
    CancelRejectedEvent,
    ConcludedEvent,
    Event,
    InvalidEvent,
    InvalidSideEvent,
    MemberLeftEvent,
    MemberName,
    MessageEvent,
    MessageFields,
    PlanEvent,
    PlanStepView,
    ProgressEvent,
    RejectedEvent,
    ResultEvent,
    StartEvent,
    StreamError,
    TaskAssigned,
    TurnEvent,
)
from ioa_p2p.api.codec import (
    JsonObject,
    JsonValue,
    fields_of,
)
from ioa_p2p.api.goals import GoalResult, Teammate
from ioa_p2p.errors import InvalidField

# --------------------------------------------------------------------------- the launcher's events


@dataclass(frozen=True, slots=True)
class SearchingEvent(Event):
    """The launch began looking for teammates (``launch_id`` cancels it before the chat exists)."""

    event: ClassVar[str] = "searching"
    goal: str
    launch_id: str


@dataclass(frozen=True, slots=True)
class TeamFallbackEvent(Event):
    """The LLM team-up failed (``reason``: its failure kind); similarity chooses the team."""

    event: ClassVar[str] = "team_fallback"
    reason: str


@dataclass(frozen=True, slots=True)
class TeamEvent(Event):
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


# --------------------------------------------------------------------------- a stream's own events


@dataclass(frozen=True, slots=True)
class HeartbeatEvent(Event):
    """Sent after 10 s of silence on a stream."""

    event: ClassVar[str] = "heartbeat"


@dataclass(frozen=True, slots=True)
class DoneEvent(Event):
    """The last event of a ``POST /launch_goal`` stream: the goal's result."""

    event: ClassVar[str] = "done"
    result: GoalResult


@dataclass(frozen=True, slots=True)
class ErrorEvent(Event):
    """The last event of a ``POST /launch_goal`` stream when the goal failed."""

    event: ClassVar[str] = "error"
    error: StreamError


@dataclass(frozen=True, slots=True)
class GapEvent(Event):
    """A resumed stream could not give ``missed`` events: the node's bounded log no longer holds them
    (the client fell that far behind); the stream goes on with the oldest event it holds."""

    event: ClassVar[str] = "gap"
    missed: int


@dataclass(frozen=True, slots=True)
class ResetEvent(Event):
    """A resumed stream's cursor belongs to another log of this chat (the node restarted, or restarted
    the chat's driver): the log ``epoch`` follows from its first event (clients drop what they showed)."""

    event: ClassVar[str] = "reset"
    epoch: str


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event of a kind this version does not know (a newer node's): its kind and JSON, untouched."""

    event: str
    data: JsonObject

    def to_json(self) -> JsonObject:
        return dict(self.data)


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
#: A stream's own events (they are in no log).
StreamEvent = HeartbeatEvent | DoneEvent | ErrorEvent | GapEvent | ResetEvent
#: Every event of a goal, as the goals service, its drivers and the control routes pass them.
GoalEvent = ChatEvent | SearchingEvent | TeamFallbackEvent | StreamEvent
#: Where a launch reports its events as they happen (``launch_goal(on_event=...)``).
EventSink = Callable[[GoalEvent], None]
#: The events that end a round; that end a launch's stream.
END_EVENTS = (ConcludedEvent, AbortedEvent)
FINAL_EVENTS = (DoneEvent, ErrorEvent)

EVENT_TYPES: tuple[type[Event], ...] = (
    SearchingEvent, TeamFallbackEvent, TeamEvent, StartEvent, MessageEvent, TurnEvent, ProgressEvent,
    ResultEvent, InvalidEvent, InvalidSideEvent, PlanEvent, CancelledEvent, CancelRejectedEvent,
    RejectedEvent, MemberLeftEvent, ConcludedEvent, AbortedEvent, HeartbeatEvent, DoneEvent, ErrorEvent,
    GapEvent, ResetEvent,
)  # fmt: skip


def decode_event(data: JsonValue) -> GoalEvent | UnknownEvent:
    """The typed event of JSON ``data`` (a kind of two shapes by its keys); InvalidField when ``data`` is
    not an event or a known kind has wrong fields; :class:`UnknownEvent` for a kind not known here."""
    if not isinstance(data, dict) or not isinstance(data.get("event"), str):
        raise InvalidField("event", "an event is a JSON object with a text 'event'")
    kind = str(data["event"])
    candidates = [c for c in EVENT_TYPES if c.event == kind]
    if not candidates:
        return UnknownEvent(kind, dict(data))
    keys = set(data) - {"event"}
    chosen = next((c for c in candidates if keys == {s.key for s in fields_of(c)}), candidates[0])
    event = chosen.from_json(data)
    assert isinstance(event, GoalEvent)  # every class of EVENT_TYPES is in the union
    return event


__all__ = [
    "END_EVENTS",
    "EVENT_TYPES",
    "FINAL_EVENTS",
    "AbortedEvent",
    "CancelRejectedEvent",
    "CancelledEvent",
    "ChatEvent",
    "ConcludedEvent",
    "DoneEvent",
    "ErrorEvent",
    "Event",
    "EventSink",
    "GapEvent",
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
    "ResetEvent",
    "ResultEvent",
    "SearchingEvent",
    "StartEvent",
    "StreamError",
    "StreamEvent",
    "TaskAssigned",
    "TeamEvent",
    "TeamFallbackEvent",
    "TurnEvent",
    "UnknownEvent",
    "decode_event",
]

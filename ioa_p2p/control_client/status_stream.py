"""The live views' streams (``GET /network/events``, ``GET /node/events``, ``GET /chats/list/events``) as a
client reads them, and how they resume (pure).

Each event is the whole view as it is now (docs/protocol.md §7.3): ``network`` (a
:class:`~ioa_p2p.api.status.NetworkView`), ``node`` (a :class:`~ioa_p2p.api.status.NodeStatus`) or
``chats`` (the chats and their rounds); the stream sends the current view, then each change, and stays
open until the client goes away. A dropped connection is resumed with ``after`` = the last cursor read:
the node sends the current view only if it changed since, so no view comes twice; a node that restarted
answers ``reset``, then its current view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ioa_p2p.api.codec import ApiObject
from ioa_p2p.api.events import ErrorEvent, HeartbeatEvent, ResetEvent, UnknownEvent
from ioa_p2p.api.status import ChatsEvent, NetworkEvent, NodeEvent, StatusEventsRequest
from ioa_p2p.api.stream import Cursor, StreamItem
from ioa_p2p.errors import ControlAPIError, InvalidField, UnexpectedReply

#: A view's event, by the view.
V = TypeVar("V", NetworkEvent, NodeEvent, ChatsEvent)
T_co = TypeVar("T_co", covariant=True)


class LiveState(Protocol[T_co]):
    """What a client keeps of a live stream to resume it: the typed item of each read, the next request."""

    def saw(self, item: StreamItem) -> T_co | None: ...
    def request(self) -> ApiObject: ...


@dataclass(frozen=True, slots=True)
class StatusStreamItem(Generic[V]):
    """A view (or the stream's ``reset``) with its cursor (views have one; ``reset`` has none)."""

    event: V | ResetEvent
    cursor: Cursor | None = None


@dataclass(slots=True)
class StatusResume(Generic[V]):
    """The view a stream follows (its event type) and the last cursor read: the request that resumes it."""

    kind: type[V]
    cursor: Cursor | None = None

    def saw(self, item: StreamItem) -> StatusStreamItem[V] | None:
        """The typed item of one read (None for a heartbeat, or a kind this version does not know);
        ControlAPIError when the node reported a failure, UnexpectedReply for a view of the wrong shape."""
        event = item.event
        if isinstance(event, ErrorEvent):
            raise ControlAPIError(
                f"the node ended the {self.kind.event} stream: {event.error.message}",
                error_type=event.error.type,
            )
        if isinstance(event, ResetEvent):
            return StatusStreamItem(event)
        if isinstance(event, HeartbeatEvent) or not isinstance(event, UnknownEvent):
            return None
        if event.event != self.kind.event:
            return None
        try:
            typed = self.kind.from_json(event.data)
        except InvalidField as exc:
            raise UnexpectedReply(f"a {self.kind.event} stream's view has the wrong shape: {exc}") from None
        if item.cursor is not None:
            self.cursor = item.cursor
        return StatusStreamItem(typed, item.cursor)

    def request(self) -> StatusEventsRequest:
        return StatusEventsRequest(str(self.cursor) if self.cursor is not None else None)


__all__ = ["LiveState", "StatusResume", "StatusStreamItem"]

"""A chat's message stream (``GET /chats/events``) as a client reads it, and how it resumes (pure).

The node sends every message of the chat it holds, then each new one, as ``chat_message`` events with
cursors ``<epoch>.<index>`` (docs/protocol.md §7.3); the stream stays open until the client goes away.
A dropped connection (or one the node ended, e.g. for a newer stream beyond its 32) is resumed with
``after`` = the last cursor read, so no message is missed or repeated; a node that restarted since
answers ``reset`` and the chat from its start.
"""

from __future__ import annotations

from dataclasses import dataclass

from ioa_p2p.api.chats import ChatEventsRequest, ChatMessageEvent
from ioa_p2p.api.events import ErrorEvent, GapEvent, HeartbeatEvent, ResetEvent, UnknownEvent
from ioa_p2p.api.stream import Cursor, StreamItem
from ioa_p2p.errors import ControlAPIError, InvalidField, UnexpectedReply

#: What a chat stream yields: a message, or the stream's own ``gap`` / ``reset`` (heartbeats are read
#: and dropped).
ChatStreamEvent = ChatMessageEvent | GapEvent | ResetEvent


@dataclass(frozen=True, slots=True)
class ChatStreamItem:
    """A chat stream's event with its cursor (messages have one; ``gap`` and ``reset`` do not)."""

    event: ChatStreamEvent
    cursor: Cursor | None = None


@dataclass(slots=True)
class ChatResume:
    """The chat a stream follows and the last cursor read: the query that resumes it."""

    chat: str
    cursor: Cursor | None = None

    def saw(self, item: StreamItem) -> ChatStreamItem | None:
        """The typed item of one read from the stream (None for a heartbeat or a kind this version does
        not know, a newer node's); ControlAPIError when the node reported a failure, UnexpectedReply for a
        message of the wrong shape or a goal event (which a chat stream never sends)."""
        event = item.event
        if isinstance(event, ErrorEvent):
            raise ControlAPIError(
                f"the node ended the chat stream: {event.error.message}", error_type=event.error.type
            )
        typed: ChatStreamEvent
        if isinstance(event, UnknownEvent):
            if event.event != ChatMessageEvent.event:
                return None
            try:
                typed = ChatMessageEvent.from_json(event.data)
            except InvalidField as exc:
                raise UnexpectedReply(f"a chat stream's message has the wrong shape: {exc}") from None
        elif isinstance(event, HeartbeatEvent):
            return None
        elif isinstance(event, GapEvent | ResetEvent):
            typed = event
        else:
            raise UnexpectedReply(f"a chat stream sent a {event.event!r} event; expected chat_message")
        if item.cursor is not None:
            self.cursor = item.cursor
        return ChatStreamItem(typed, item.cursor)

    def request(self) -> ChatEventsRequest:
        """The request of ``GET /chats/events`` that resumes the stream."""
        return ChatEventsRequest(**self.query())

    def query(self) -> dict[str, str]:
        """The query string of ``GET /chats/events`` that resumes the stream."""
        out = {"chat": self.chat}
        if self.cursor is not None:
            out["after"] = str(self.cursor)
        return out


__all__ = ["ChatResume", "ChatStreamEvent", "ChatStreamItem"]

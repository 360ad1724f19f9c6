"""What a client remembers of a goal event stream to resume it after a dropped connection (pure).

A launch's stream (``POST /launch_goal`` with ``stream``, ``GET /goal_events?launch=ID``) ends with
``done`` or ``error``; a goal chat's (``GET /goal_events?chat=ID``) when the node closes it after the end
of the round. Anything else that ends the connection is a drop: the client asks ``GET /goal_events`` for
the same launch or chat ``after`` the last cursor it read, and gets each later event exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ioa_p2p.api.events import END_EVENTS, FINAL_EVENTS, SearchingEvent, TeamEvent
from ioa_p2p.api.stream import Cursor, StreamItem


@dataclass(slots=True)
class Resume:
    """The stream's source (``launch`` or ``chat``), the last cursor read, whether it ended."""

    launch: str | None = None
    chat: str | None = None
    round_id: str | None = None
    cursor: Cursor | None = None
    ended: bool = False
    round_ended: bool = False  # a chat stream's last event ended a round

    def saw(self, item: StreamItem) -> None:
        """Note an event read from the stream."""
        if item.cursor is not None:
            self.cursor = item.cursor
        event = item.event
        if self.chat is None and self.launch is None and isinstance(event, SearchingEvent | TeamEvent):
            self.launch = event.launch_id  # a launch names itself in its first events
        if isinstance(event, FINAL_EVENTS) and self.chat is None:
            self.ended = True
        elif self.chat is not None:
            self.round_ended = isinstance(event, END_EVENTS) and (
                self.round_id is None or event.round_id == self.round_id
            )
            self.ended = self.round_ended and self.round_id is not None

    @property
    def needs_end(self) -> bool:
        """Whether a clean end of the connection now would be a drop (the stream's end not yet seen)."""
        return not self.ended and not (self.chat is not None and self.round_ended)

    @property
    def resumable(self) -> bool:
        return self.launch is not None or self.chat is not None

    def query(self) -> dict[str, str]:
        """The query string of ``GET /goal_events`` that resumes the stream."""
        out = {"launch": self.launch} if self.launch is not None else {"chat": self.chat or ""}
        if self.chat is not None and self.round_id is not None:
            out["round"] = self.round_id
        if self.cursor is not None:
            out["after"] = str(self.cursor)
        return out


__all__ = ["Resume"]

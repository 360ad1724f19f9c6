"""Goal event streams on the wire (pure): cursors, NDJSON lines and server-sent events, both ways.

A node keeps a bounded log of events per launch and per goal chat; each logged event has a sequence
number (1, 2, ...) in its log, and each log an ``epoch`` (random, new when the log is created: a node that
restarted has new logs). A :class:`Cursor` ``<epoch>.<seq>`` names a logged event; a client that lost its
connection asks for the events *after* the last cursor it read and gets each later event exactly once
(docs/protocol.md §7.3).

Two framings of the same event JSON (:mod:`ioa_p2p.api.events`):

- ``application/x-ndjson`` (the default): one event per line, no cursors (the stream of earlier versions);
- ``text/event-stream`` (``Accept: text/event-stream``, or an ``after`` cursor): server-sent events; a
  logged event is ``id: <cursor>`` then ``data: <its JSON>``; a stream's own events (``gap``, ``reset``)
  have no ``id``; a heartbeat is the comment ``: heartbeat``. Browsers' ``EventSource`` resumes by itself
  (``Last-Event-ID``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ioa_p2p.api.codec import JsonValue
from ioa_p2p.api.events import Event, GoalEvent, HeartbeatEvent, UnknownEvent, decode_event
from ioa_p2p.errors import ControlAPIError, InvalidField

NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
SSE_HEARTBEAT = b": heartbeat\n\n"
_EPOCH = re.compile(r"[0-9a-f]{1,32}")


@dataclass(frozen=True, slots=True, order=True)
class Cursor:
    """A logged event: its log's ``epoch`` and its ``seq`` there (see the module docstring)."""

    epoch: str
    seq: int

    def __str__(self) -> str:
        return f"{self.epoch}.{self.seq}"

    @classmethod
    def parse(cls, text: str, path: str = "after") -> Cursor:
        """``<epoch>.<seq>``, or a bare ``<seq>`` (epoch ``""``: any log; the caller trusts it is the one)."""
        epoch, _, seq = text.strip().rpartition(".")
        if (epoch and not _EPOCH.fullmatch(epoch)) or not seq.isdigit() or len(seq) > 18:
            raise InvalidField(
                path, f"must be a cursor <epoch>.<seq> (the id of a streamed event), not {text!r}"
            )
        return cls(epoch, int(seq))


@dataclass(frozen=True, slots=True)
class StreamItem:
    """An event as a client reads it from a stream, with its cursor when it is a logged event."""

    event: GoalEvent | UnknownEvent
    cursor: Cursor | None = None


# --------------------------------------------------------------------------- writing


def ndjson_line(event: Event) -> bytes:
    return json.dumps(event.to_json()).encode() + b"\n"


def sse_frame(event: Event, cursor: Cursor | None = None) -> bytes:
    head = f"id: {cursor}\n" if cursor is not None else ""
    return f"{head}data: {json.dumps(event.to_json())}\n\n".encode()


def error_json(kind: str, message: str) -> JsonValue:
    """What a stream sends when the node fails mid-stream (after the HTTP status went out)."""
    return {"error": {"type": kind, "message": message}}


# --------------------------------------------------------------------------- reading


def read_ndjson(line: bytes | str) -> StreamItem | None:
    """The item of one NDJSON line (None for a blank line)."""
    text = line.decode() if isinstance(line, bytes) else line
    if not text.strip():
        return None
    return StreamItem(decode_event(_json(text)))


class SseReader:
    """Server-sent events, fed line by line (``feed`` returns the item a blank line completes)."""

    def __init__(self) -> None:
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, line: bytes | str) -> StreamItem | None:
        text = (line.decode() if isinstance(line, bytes) else line).rstrip("\r\n")
        if text == "":
            return self._dispatch()
        if text.startswith(":"):
            return StreamItem(HeartbeatEvent()) if text[1:].strip() == "heartbeat" else None
        name, _, value = text.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "id":
            self._id = value
        return None

    def _dispatch(self) -> StreamItem | None:
        data, ident = self._data, self._id
        self._data, self._id = [], None
        if not data:
            return None
        cursor = Cursor.parse(ident, "id") if ident else None
        return StreamItem(decode_event(_json("\n".join(data))), cursor)


def read_sse(lines: Iterator[bytes]) -> Iterator[StreamItem]:
    reader = SseReader()
    for line in lines:
        item = reader.feed(line)
        if item is not None:
            yield item


def _json(text: str) -> JsonValue:
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        raise InvalidField("event", f"is not JSON: {text[:80]!r}") from None
    if isinstance(value, dict) and "error" in value and "event" not in value:
        error = value["error"]
        kind = str(error.get("type", "Error")) if isinstance(error, dict) else "Error"
        message = str(error.get("message", "")) if isinstance(error, dict) else str(error)
        raise ControlAPIError(f"the node stopped the stream: {kind}: {message}", error_type=kind)
    return value


__all__ = [
    "NDJSON",
    "SSE",
    "SSE_HEARTBEAT",
    "Cursor",
    "SseReader",
    "StreamItem",
    "error_json",
    "ndjson_line",
    "read_ndjson",
    "read_sse",
    "sse_frame",
]

"""Live status streams: ``GET /network/events``, ``GET /node/events`` and ``GET /chats/list/events``
(docs/protocol.md §7.3).

Each event is the whole view (``{"event": "network", "view": NetworkView}``, ``{"event": "node", "view":
NodeStatus}``, ``{"event": "chats", "chats": [ChatInfo], "goals": [GoalSummary]}``), so a later event
replaces every earlier one. A view is sampled only while a stream asks for
it, at most every :data:`SAMPLE` seconds for all its streams together, and a sample gets a new sequence
number only when it differs from the previous one in what a viewer sees (:func:`network_key`,
:func:`node_key`, :func:`whole_key`: not the time of the measurement or the uptime, which the page ticks
itself; memory to the MiB, latency to the tenth of a millisecond).

Cursors are ``<epoch>.<seq>``: ``seq`` counts the changes of all the views of this node (1, 2, ...), the epoch
is drawn when the node starts. A stream sends the current view first, then each change. Resumed ``after``
a cursor of this epoch it sends the current view only if it changed since (the views in between are
replaced by it, never lost: each is the whole state), so nothing is sent twice; a cursor of another epoch
(the node restarted) gets ``reset`` first, then the current view; a cursor past the last change is 400.
Heartbeats follow every :data:`HEARTBEAT` seconds of silence. At most :data:`MAX_STREAMS` streams run at
once: a new one ends the oldest.
"""

from __future__ import annotations

import json
import math
import secrets
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass

import trio

from ioa_p2p.api.codec import JsonObject
from ioa_p2p.api.events import Event, HeartbeatEvent, ResetEvent
from ioa_p2p.api.stream import SSE_HEARTBEAT, Cursor, ndjson_line, sse_frame
from ioa_p2p.errors import UsageError

#: Seconds between two samples of a view (shared by all its streams), and of silence before a heartbeat.
SAMPLE = 2.0
HEARTBEAT = 10.0
#: Status streams served at once (a new one ends the oldest).
MAX_STREAMS = 16
MIB = 1 << 20

Sampler = Callable[[], Awaitable[Event]]


def network_key(view: JsonObject) -> str:
    """What a viewer sees of a network view: all but the time of the measurement, latency to 0.1 ms."""
    peers = []
    listed = view.get("peers")
    for peer in listed if isinstance(listed, list) else []:
        if isinstance(peer, dict):
            latency = peer.get("latency_ms")
            rounded = round(latency, 1) if isinstance(latency, int | float) else None
            peers.append({**peer, "latency_ms": rounded})
    return json.dumps({**view, "peers": peers, "measured_ms": 0}, sort_keys=True)


def node_key(view: JsonObject) -> str:
    """What a viewer sees of the node's status: all but the uptime (the page ticks it), memory to the MiB."""
    memory = view.get("memory")
    coarse = (
        {k: v // MIB if isinstance(v, int) else v for k, v in memory.items()}
        if isinstance(memory, dict)
        else memory
    )
    return json.dumps({**view, "uptime": 0, "memory": coarse}, sort_keys=True, default=str)


def whole_key(view: JsonObject) -> str:
    """Every field counts (the chats list: a new chat, a message, a round's state)."""
    return json.dumps(view, sort_keys=True, default=str)


KEYS: Mapping[str, Callable[[JsonObject], str]] = {
    "network": network_key,
    "node": node_key,
    "chats": whole_key,
}


@dataclass(slots=True)
class _Latest:
    seq: int = 0
    event: Event | None = None
    key: str = ""
    at: float = -math.inf


class _Token:
    __slots__ = ("ended",)

    def __init__(self) -> None:
        self.ended = False


class StatusFeeds:
    """The status streams of one node (see the module docstring); ``samplers`` by view name."""

    def __init__(self, samplers: Mapping[str, Sampler]) -> None:
        self.samplers = dict(samplers)
        self.epoch = secrets.token_hex(8)
        self.seq = 0
        self.latest = {kind: _Latest() for kind in self.samplers}
        self.locks = {kind: trio.Lock() for kind in self.samplers}
        self.live: deque[_Token] = deque()

    def open(self, kind: str, after: str | None, *, sse: bool) -> AsyncIterator[bytes]:
        """The stream of view ``kind`` after cursor ``after`` (None: from the current view)."""
        last, first = 0, None
        if after is not None:
            cursor = Cursor.parse(after)
            if cursor.epoch and cursor.epoch != self.epoch:
                first = ResetEvent(self.epoch)
            elif cursor.seq > self.seq:
                raise UsageError(f"cursor {after} is past the last change of this node's views ({self.seq})")
            else:
                last = cursor.seq
        return self._stream(kind, last, first, sse)

    async def fresh(self, kind: str) -> _Latest:
        """The view ``kind``, sampled again when the last sample is :data:`SAMPLE` seconds old."""
        latest = self.latest[kind]
        async with self.locks[kind]:
            if trio.current_time() - latest.at >= SAMPLE:
                event = await self.samplers[kind]()
                latest.at = trio.current_time()
                key = KEYS[kind](_view_json(event))
                if key != latest.key or latest.event is None:
                    self.seq += 1
                    latest.seq, latest.event, latest.key = self.seq, event, key
        return latest

    async def _stream(self, kind: str, last: int, first: Event | None, sse: bool) -> AsyncIterator[bytes]:
        token = _Token()
        self.live.append(token)
        while len(self.live) > MAX_STREAMS:
            self.live.popleft().ended = True
        try:
            if first is not None:
                yield sse_frame(first) if sse else ndjson_line(first)
            quiet = trio.current_time()
            while not token.ended:
                latest = await self.fresh(kind)
                if latest.seq > last and latest.event is not None:
                    last = latest.seq
                    cursor = Cursor(self.epoch, latest.seq)
                    yield sse_frame(latest.event, cursor) if sse else ndjson_line(latest.event)
                    quiet = trio.current_time()
                elif trio.current_time() - quiet >= HEARTBEAT:
                    yield SSE_HEARTBEAT if sse else ndjson_line(HeartbeatEvent())
                    quiet = trio.current_time()
                await trio.sleep(SAMPLE)
        finally:
            if token in self.live:
                self.live.remove(token)


def _view_json(event: Event) -> JsonObject:
    data = event.to_json()
    view = data.get("view", data)
    return view if isinstance(view, dict) else {}


__all__ = ["HEARTBEAT", "MAX_STREAMS", "SAMPLE", "StatusFeeds", "network_key", "node_key", "whole_key"]

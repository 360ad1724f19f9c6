"""Serving the DHT to many peers: which inbound Kademlia streams get a handler slot (patch 23).

py-libp2p 0.8.1's ``KadDHT.handle_stream`` serves at most 12 inbound streams at once (its guard against
event-loop saturation) and resets every stream past that at once. A handler keeps its slot until the
peer closes the stream: it reads the next request with no deadline. A client that leaves a stream open
holds a slot for as long as its connection lives, and py-libp2p's own clients do just that when a
caller's cancel scope ends them (their ``finally: await stream.close()`` is cancelled as well; a hostile
peer needs no bug). Measured with 50 node processes (docs/performance.md, "A late joiner at N = 50"):
the bootstrap node's 12 slots were held by 12 such streams of 12 connected peers, idle for 35-90 s, it
reset every other DHT stream (2,000 in two minutes) and a node joining then never learned a peer: its
routing table held the bootstrap node only, for good.

:class:`KadSlots` replaces that admission (``dht.handle_stream``; the request handling is still the
library's ``_do_handle_stream``):

- at most ``total`` streams are served at once (the library's 12), at most ``per_peer`` of one peer;
- a stream waiting for its next request is *idle*; idle for ``idle_timeout`` seconds it ends as if
  the peer had closed it (its handler sees end of stream, closes it and frees the slot);
- a request must arrive whole within ``request_timeout`` seconds of its first byte (a peer trickling
  it a byte at a time is ended the same way), and a stream holds its slot ``max_hold`` seconds in all,
  then is reset: however a peer spends a slot, it gives it back within ``max_hold``;
- a new stream that finds no room ends an idle stream (of the same peer when that peer is at its own
  cap) and takes the slot at once: the longest-idle of the streams *left open*, those that were answered
  and wait for another request (ours pipeline every request with the stream's opening, py-libp2p's send
  one per stream); a stream still waiting for its first request was just opened to be served, not left
  open (on a loaded machine its request may take seconds to arrive), and is ended for a newcomer only
  once it has waited ``first_request_grace`` seconds, and only when no stream left open can be;
- with no idle stream to end, the new stream waits up to ``wait`` seconds for a slot (at most
  ``max_waiting`` wait at once), then is reset as before.

So neither a leaking client nor a thousand identities holding idle streams keep a node's DHT from
answering a newcomer, and the total still holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from libp2p.kad_dht.kad_dht import DHTMode

from ioa_p2p.node.net.sources import serving_from
from ioa_p2p.node.net.traffic import kad_traffic

#: Seconds a served stream may wait for its next request before it is ended.
IDLE_TIMEOUT = 10.0
#: Seconds a request may take to arrive from its first byte to its last (a peer trickling it is ended).
REQUEST_TIMEOUT = 5.0
#: Seconds one stream may hold a slot in all, however it spends them (requests, answers, idle waits).
MAX_HOLD = 30.0
#: Streams of one peer served at once.
PER_PEER = 4
#: Seconds a stream waiting for its first request is safe from eviction (it was opened, not left open).
FIRST_REQUEST_GRACE = 5.0
#: Seconds a new stream may wait for a slot when none is idle, and how many may wait at once.
WAIT = 2.0
MAX_WAITING = 64


@dataclass(eq=False, slots=True)
class _Slot:
    peer: str
    #: when the stream took its slot
    opened: float = 0.0
    #: requests read whole (a stream with none is still being opened, not left open)
    requests: int = 0
    #: since when the handler waits for the next request (None: a request is being read or served)
    idle_since: float | None = None
    #: cancels the handler's wait for a request (set while it waits)
    scope: trio.CancelScope | None = None
    #: when the first byte of the request being read arrived (None: between requests)
    request_since: float | None = None
    ending: bool = False
    #: bytes left of the current request's body; a length prefix is being read when ``prefix``
    left: int = 0
    prefix: bool = False
    _value: int = 0
    _shift: int = 0

    def feed(self, data: bytes) -> None:
        """Follow the varint-prefixed requests' boundaries through ``data``."""
        i = 0
        while i < len(data):
            if self.left:
                take = min(self.left, len(data) - i)
                self.left -= take
                i += take
                continue
            if not self.prefix:
                self.prefix, self._value, self._shift = True, 0, 0
            byte = data[i]
            i += 1
            self._value |= (byte & 0x7F) << self._shift
            self._shift += 7
            if not byte & 0x80:
                self.prefix, self.left = False, self._value

    @property
    def between_requests(self) -> bool:
        return not self.left and not self.prefix

    def end(self) -> None:
        """End the handler's wait for a request (it sees end of stream)."""
        self.ending = True
        if self.scope is not None:
            self.scope.cancel()


@dataclass(slots=True)
class SlotStats:
    served: int = 0
    ended_idle: int = 0
    evicted: int = 0
    waited: int = 0
    refused: int = 0
    slow_requests: int = 0  # streams ended because a request did not arrive within request_timeout
    held_too_long: int = 0  # streams ended at max_hold


@dataclass(eq=False)
class KadSlots:
    """Admission of inbound DHT streams (see the module docstring); ``serve(stream)`` handles one."""

    serve: Callable[[Any], Awaitable[None]]
    total: int = 12
    per_peer: int = PER_PEER
    idle_timeout: float = IDLE_TIMEOUT
    request_timeout: float = REQUEST_TIMEOUT
    max_hold: float = MAX_HOLD
    first_request_grace: float = FIRST_REQUEST_GRACE
    wait: float = WAIT
    max_waiting: int = MAX_WAITING
    stats: SlotStats = field(default_factory=SlotStats)
    _slots: set[_Slot] = field(default_factory=set)
    _freed: trio.Event = field(default_factory=trio.Event)
    _waiting: int = 0

    def held(self, peer: str | None = None) -> int:
        """Slots held and not ending (of ``peer``, or of everyone)."""
        return sum(1 for s in self._slots if not s.ending and (peer is None or s.peer == peer))

    async def handle(self, stream: Any) -> None:
        try:
            peer = str(stream.muxed_conn.peer_id)
        except AttributeError:
            peer = "?"
        slot = await self._acquire(peer)
        if slot is None:
            self.stats.refused += 1
            with contextlib.suppress(Exception):  # the stream may be gone already
                await stream.reset()
            return
        self.stats.served += 1
        self._watch_reads(stream, slot)
        try:
            with trio.move_on_after(self.max_hold) as hold:
                await self.serve(stream)
            if hold.cancelled_caught:
                self.stats.held_too_long += 1
                with trio.CancelScope(shield=True), trio.move_on_after(1.0), contextlib.suppress(Exception):
                    await stream.reset()
        finally:
            self._slots.discard(slot)
            self._freed.set()
            self._freed = trio.Event()

    async def _acquire(self, peer: str) -> _Slot | None:
        deadline = trio.current_time() + self.wait
        waited = False
        while True:
            if self._has_room(peer) or self._end_idle_for(peer):
                slot = _Slot(peer, opened=trio.current_time())
                self._slots.add(slot)
                return slot
            if not waited:
                if self._waiting >= self.max_waiting:
                    return None
                waited = True
                self.stats.waited += 1
            if trio.current_time() >= deadline:
                return None
            self._waiting += 1
            try:
                with trio.move_on_at(deadline):
                    await self._freed.wait()
            finally:
                self._waiting -= 1

    def _has_room(self, peer: str) -> bool:
        return self.held() < self.total and self.held(peer) < self.per_peer

    def _end_idle_for(self, peer: str) -> bool:
        """End the idle stream that makes room for ``peer`` (the longest-idle of those left open after an
        answer, else the longest-waiting of those past ``first_request_grace`` without a request); False
        when none can."""
        own_cap = self.held(peer) >= self.per_peer
        now = trio.current_time()
        idle = [
            s
            for s in self._slots
            if not s.ending
            and s.idle_since is not None
            and (s.requests or now - s.opened >= self.first_request_grace)
            and (not own_cap or s.peer == peer)
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda s: (not s.requests, s.idle_since if s.requests else s.opened))
        oldest.end()
        self.stats.evicted += 1
        return self._has_room(peer)

    def _watch_reads(self, stream: Any, slot: _Slot) -> None:
        """Wrap ``stream.read``: a wait for the next request is idle, bounded by ``idle_timeout`` and
        ended by :meth:`_Slot.end`; either way the handler reads end of stream."""
        upstream = stream.read

        async def read(n: int | None = None) -> bytes:
            if slot.ending:
                return b""
            if not slot.between_requests:  # the rest of a request: due request_timeout after its start
                since = slot.request_since if slot.request_since is not None else trio.current_time()
                with trio.move_on_at(since + self.request_timeout):
                    return track(bytes(await upstream(n)))
                self.stats.slow_requests += 1
                slot.ending = True
                return b""
            slot.idle_since = trio.current_time()
            with trio.CancelScope(deadline=slot.idle_since + self.idle_timeout) as scope:
                slot.scope = scope
                try:
                    data = bytes(await upstream(n))
                finally:
                    slot.scope, slot.idle_since = None, None
                return track(data)
            if not slot.ending:
                self.stats.ended_idle += 1
                slot.ending = True
            return b""

        def track(data: bytes) -> bytes:
            """Follow the request boundaries through ``data``; a request that starts is timed."""
            if slot.between_requests and data:
                slot.request_since = trio.current_time()
            slot.feed(data)
            if slot.between_requests:
                if slot.request_since is not None:
                    slot.requests += 1
                slot.request_since = None
            return data

        stream.read = read


def serve_in_slots(dht: Any, slots: KadSlots | None = None) -> KadSlots:
    """Patch 23: ``dht`` admits its inbound streams through :class:`KadSlots` (``dht.handle_stream``
    replaced; the handler re-registered when the DHT serves already). RuntimeError when py-libp2p's
    KadDHT no longer has the parts this relies on."""
    limiter = getattr(dht, "_inbound_limiter", None)
    core = getattr(dht, "_do_handle_stream", None)
    if not isinstance(limiter, trio.CapacityLimiter) or core is None:
        raise RuntimeError(
            "py-libp2p's KadDHT has no _inbound_limiter / _do_handle_stream any more: revisit "
            "ioa_p2p.node.net.kad_slots"
        )

    traffic = kad_traffic(dht.host)

    async def serve(stream: Any) -> None:
        if dht.mode == DHTMode.CLIENT:  # as upstream: a client offers no DHT
            with contextlib.suppress(Exception):
                await stream.close()
            return
        if traffic is not None:
            traffic.served += 1
        with serving_from(stream):  # per-source rate limits see where its requests came from
            await core(stream)

    slots = slots or KadSlots(serve, total=int(limiter.total_tokens))
    upstream = dht.handle_stream
    dht.handle_stream = slots.handle
    dht.ioa_kad_slots = slots
    mux = dht.host.get_mux()
    for protocol, handler in list(getattr(mux, "handlers", {}).items()):
        if handler == upstream:
            dht.host.set_stream_handler(protocol, slots.handle)
    return slots


__all__ = [
    "IDLE_TIMEOUT",
    "MAX_HOLD",
    "FIRST_REQUEST_GRACE",
    "MAX_WAITING",
    "PER_PEER",
    "REQUEST_TIMEOUT",
    "WAIT",
    "KadSlots",
    "SlotStats",
    "serve_in_slots",
]

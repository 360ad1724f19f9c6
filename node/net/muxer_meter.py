"""Bounding what a peer can make the yamux muxer hold: unread bytes, its receive window, dead streams.

py-libp2p's yamux (0.8.1) buffers every DATA frame for its stream in ``stream_buffers`` until a
reader takes it, and:

- does not enforce the receive window: a peer that ignores flow control pushes data into a stream
  nobody reads (it only logs a warning);
- keeps the buffered bytes of a stream that was reset (by us: a refused frame, a stream past a
  cap) for 60-90 s, until a sweeper reclaims it; and a reset stream's buffer keeps growing with
  whatever the peer still sends on it.

:func:`meter_yamux` replaces a connection's ``stream_buffers`` with :class:`MeteredBuffers`, whose
buffers (:class:`MeteredBuffer`) see every byte that arrives and every byte a reader takes:

- the bytes a stream holds unread are claimed in the node's ``unread`` ledger (per peer, in
  total, by trust: :class:`~ioa_p2p.node.net.budgets.NodeBudgets`); when the ledger refuses, or
  evicts the stream's claim for a more trusted or lighter peer, the stream is reset and its
  buffer dropped;
- a DATA frame larger than what is left of the stream's receive window resets the stream;
- data for a stream that is already closed or reset is dropped, and a reset stream's buffer is
  dropped at once instead of after the sweeper's grace period.

Installed on each connection by ``libp2p_patches.meter_connections`` (patch 12) before the muxer
starts reading.
"""

from __future__ import annotations

import contextlib
import logging
import struct
from typing import TYPE_CHECKING, Any, SupportsIndex

from ioa_p2p.budget import Claim
from ioa_p2p.identity import PeerId

if TYPE_CHECKING:
    from ioa_p2p.node.net.budgets import NodeBudgets

log = logging.getLogger("ioa_p2p.net")

_HEADER = "!BBHII"  # yamux: version, type, flags, stream id, length
_TYPE_WINDOW_UPDATE = 0x1
_FLAG_RST = 0x8


class MuxerMeter:
    """The meter of one yamux connection to ``peer``."""

    def __init__(self, conn: Any, peer: PeerId, budgets: NodeBudgets) -> None:
        self.conn = conn
        self.peer = peer
        self.budgets = budgets
        #: streams reset because of this meter (window violations, refused or evicted bytes)
        self.resets = 0

    def arriving(self, buffer: MeteredBuffer, size: int) -> bool:
        """``size`` bytes arrive for ``buffer``'s stream: whether to keep them."""
        stream = self.conn.streams.get(buffer.sid)
        if stream is None:  # pragma: no cover - yamux creates the stream before its buffer
            return True
        if stream.closed:
            return False  # nobody will read it: the stream is reset or closed both ways
        if size > stream.recv_window:
            self._reset(stream, buffer, f"sent {size} bytes with {stream.recv_window} left of its window")
            return False
        unread = self.budgets.unread
        old, buffer.claim = buffer.claim, None
        unread.release(old)
        trust = self.budgets.trust(self.peer)
        claim = unread.try_claim(self.peer, len(buffer) + size, lambda: self._evicted(buffer), trust)
        if claim is None:
            self._reset(stream, buffer, "past the unread-bytes budget")
            return False
        buffer.claim = claim
        return True

    def taken(self, buffer: MeteredBuffer) -> None:
        """A reader took bytes (or the buffer was emptied): hold only what is left."""
        claim = buffer.claim
        if claim is None:
            return
        left = len(buffer)
        if left:
            self.budgets.unread.shrink(claim, left)
        else:
            buffer.claim = None
            self.budgets.unread.release(claim)

    def dropped(self, buffer: MeteredBuffer) -> None:
        """The buffer left the connection's table: nothing of it is held any more."""
        claim, buffer.claim = buffer.claim, None
        self.budgets.unread.release(claim)

    def _evicted(self, buffer: MeteredBuffer) -> None:
        buffer.claim = None  # the ledger already released it
        stream = self.conn.streams.get(buffer.sid)
        if stream is not None:
            self._reset(stream, buffer, "its unread bytes were evicted for another peer's")

    def _reset(self, stream: Any, buffer: MeteredBuffer, why: str) -> None:
        """Drop the stream's unread bytes and reset it: the reader sees a reset, the peer an RST."""
        self.resets += 1
        log.info("reset yamux stream %s of %s: %s", buffer.sid, self.peer, why)
        buffer.discard()
        stream.closed = stream.recv_closed = stream.send_closed = stream.reset_received = True
        event = self.conn.stream_events.get(buffer.sid)
        if event is not None:
            event.set()
        nursery = getattr(self.conn, "_nursery", None)
        if nursery is not None:
            nursery.start_soon(self._send_reset, stream)

    async def _send_reset(self, stream: Any) -> None:
        conn = self.conn
        with contextlib.suppress(Exception):  # the connection may be closing: nothing to tell
            async with conn.streams_lock:
                conn._finalize_stream_locked(stream, fully_closed=True)
            header = struct.pack(_HEADER, 0, _TYPE_WINDOW_UPDATE, _FLAG_RST, stream.stream_id, 0)
            await conn._write_frame(header)


class MeteredBuffer(bytearray):
    """One stream's receive buffer, reporting what arrives and what is taken to its meter."""

    __slots__ = ("claim", "meter", "sid")

    def __init__(self, meter: MuxerMeter, sid: int, data: bytes = b"") -> None:
        super().__init__(data)
        self.meter = meter
        self.sid = sid
        self.claim: Claim | None = None

    def extend(self, data: Any) -> None:
        if self.meter.arriving(self, len(data)):
            super().extend(data)

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        super().__delitem__(index)
        self.meter.taken(self)

    def clear(self) -> None:
        super().clear()
        self.meter.taken(self)

    def discard(self) -> None:
        """Drop every byte held (the stream is being reset)."""
        super().clear()
        self.meter.dropped(self)


class MeteredBuffers(dict[int, bytearray]):
    """A connection's ``stream_buffers``: every buffer put in is metered."""

    def __init__(self, meter: MuxerMeter) -> None:
        super().__init__()
        self.meter = meter

    def __setitem__(self, sid: int, value: bytearray) -> None:
        if not isinstance(value, MeteredBuffer):
            value = MeteredBuffer(self.meter, sid, bytes(value))
        super().__setitem__(sid, value)

    def __delitem__(self, sid: int) -> None:
        buffer = self[sid]
        super().__delitem__(sid)
        self._dropped(buffer)

    def pop(self, sid: int, *default: Any) -> Any:
        buffer = super().pop(sid, *default)
        self._dropped(buffer)
        return buffer

    def clear(self) -> None:
        for buffer in self.values():
            self._dropped(buffer)
        super().clear()

    def _dropped(self, buffer: Any) -> None:
        if isinstance(buffer, MeteredBuffer):
            self.meter.dropped(buffer)


def meter_yamux(conn: Any, peer: PeerId, budgets: NodeBudgets) -> MuxerMeter | None:
    """Meter a yamux connection (before it starts reading); None for another muxer."""
    buffers = getattr(conn, "stream_buffers", None)
    if not isinstance(buffers, dict) or not hasattr(conn, "_finalize_stream_locked"):
        return None
    meter = MuxerMeter(conn, peer, budgets)
    metered = MeteredBuffers(meter)
    for sid, buffer in buffers.items():
        metered[sid] = buffer
    conn.stream_buffers = metered
    upstream = conn._finalize_stream_locked

    def finalize(stream: Any, *, fully_closed: bool) -> None:
        # a reset stream's unread bytes are never read: drop them now, not after the sweeper's grace
        if fully_closed and stream.reset_received:
            buffer = metered.get(stream.stream_id)
            if isinstance(buffer, MeteredBuffer) and buffer:
                buffer.discard()
        upstream(stream, fully_closed=fully_closed)

    conn._finalize_stream_locked = finalize
    conn.ioa_meter = meter
    return meter


__all__ = ["MeteredBuffer", "MeteredBuffers", "MuxerMeter", "meter_yamux"]

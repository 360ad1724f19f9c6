"""Streams between the agents of one process, in memory: what :meth:`Node.open_stream
<ioa_p2p.node.node.Node.open_stream>` gives when the peer is a co-hosted agent (:mod:`.cohosted`).

Two agents of one ``[[agents]]`` process talk to each other through the same services, handlers and
signed, hash-chained messages as any two peers; only the transport differs. Over libp2p, each stream
between them costs both sides a yamux stream, multistream negotiation, Noise encryption of every frame and
the socket round trips, all on the process's one event loop (with 25 agents in a process these were the
largest share of the loop's samples, and an invitation between two of them went unanswered for 30 s and
more: docs/performance.md, issue 26). A :func:`local_stream_pair` carries the bytes from one end to the
other directly: the frames are the same bytes (each an envelope the reader verifies), the reader keeps its
deadlines and size limits (:class:`~ioa_p2p.node.net.framing.FramedStream`), the handler its stream budget
and fault boundary; nothing a remote peer sees changes. The DHT's requests between two agents of the
process use them too (``kad_io.exchange``), answered by py-libp2p's DHT handler of the other agent, which
reads what it needs of a stream's connection from :class:`LocalConnection`.

An end behaves as a py-libp2p stream does for :class:`~ioa_p2p.node.net.framing.FramedStream`: ``read``
returns what is buffered (up to ``n`` bytes) or waits, raises ``StreamEOF`` after the other end closed
and the buffer is drained, ``StreamReset`` once either end reset; ``write`` waits while the other end has
:data:`WINDOW` bytes unread (a bound, as yamux's receive window is), raises ``StreamClosed`` after this end
closed; ``close`` is a half-close (the other end may still write), ``reset`` ends both directions.
"""

from __future__ import annotations

from typing import Any

import trio
from libp2p.network.stream.exceptions import StreamClosed, StreamEOF, StreamReset
from libp2p.peer.id import ID

from ioa_p2p.identity import PeerId

#: Unread bytes one direction of a stream holds before its writer waits (yamux's default window).
WINDOW = 256 * 1024


class _Direction:
    """The bytes flowing one way between the two ends of a stream."""

    __slots__ = ("buffer", "closed", "lot", "reset")

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.closed = False  # the writer closed: EOF once the buffer is drained
        self.reset = False
        self.lot = trio.lowlevel.ParkingLot()

    def wake(self) -> None:
        self.lot.unpark_all()


class LocalConnection:
    """What a py-libp2p protocol handler reads of a stream's connection (``stream.muxed_conn``): the
    remote peer's ID; no transport address (a source network of None: the process's own)."""

    def __init__(self, peer: PeerId) -> None:
        self.peer_id = ID(peer.raw)

    def get_transport_addresses(self) -> list[Any]:
        return []

    def get_remote_address(self) -> None:
        return None


class LocalStream:
    """One end of a stream between two agents of this process (see the module docstring)."""

    def __init__(
        self, protocol: str, local: PeerId, remote: PeerId, incoming: _Direction, outgoing: _Direction
    ) -> None:
        self._protocol = protocol
        #: this end's agent, and the agent at the other end (who it is was known when the pair was made:
        #: both are agents this process runs with their own keys, as a Noise handshake would prove)
        self.local, self.remote = local, remote
        self._in, self._out = incoming, outgoing
        #: for py-libp2p's handlers (the DHT's), which read the remote peer from the stream's connection
        self.muxed_conn = LocalConnection(remote)
        self.metric_send_channel = None  # (the DHT handler's metrics hook: none here)

    def get_protocol(self) -> str:
        return self._protocol

    async def read(self, n: int = -1) -> bytes:
        """Up to ``n`` buffered bytes (all with ``n`` < 0), waiting for some; see the module docstring."""
        incoming = self._in
        while True:
            if incoming.reset:
                raise StreamReset(f"in-process stream {self._protocol} from {self.remote} was reset")
            if incoming.buffer:
                size = len(incoming.buffer) if n is None or n < 0 else n
                data = bytes(incoming.buffer[:size])
                del incoming.buffer[:size]
                incoming.wake()  # a writer waiting for room
                # no yield when bytes were there (py-libp2p's DHT handler reads a varint a byte at a
                # time: a full checkpoint per byte would wait a whole turn of the loop for each)
                await trio.lowlevel.checkpoint_if_cancelled()
                return data
            if incoming.closed:
                raise StreamEOF(f"{self.remote} closed in-process stream {self._protocol}")
            await incoming.lot.park()

    async def write(self, data: bytes) -> None:
        """Append ``data`` for the other end, waiting while it holds :data:`WINDOW` bytes unread."""
        outgoing = self._out
        while True:
            if outgoing.reset:
                raise StreamReset(f"in-process stream {self._protocol} to {self.remote} was reset")
            if outgoing.closed:
                raise StreamClosed(
                    f"in-process stream {self._protocol} to {self.remote} is closed for writing"
                )
            if len(outgoing.buffer) < WINDOW:
                break
            await outgoing.lot.park()
        outgoing.buffer += data
        outgoing.wake()
        await trio.lowlevel.checkpoint_if_cancelled()

    async def close(self) -> None:
        """Half-close: the other end reads what was written, then EOF."""
        self._out.closed = True
        self._out.wake()
        await trio.lowlevel.checkpoint()

    async def reset(self) -> None:
        """End both directions at once; unread bytes are dropped."""
        for direction in (self._in, self._out):
            direction.reset = True
            direction.buffer.clear()
            direction.wake()
        await trio.lowlevel.checkpoint()


def local_stream_pair(protocol: str, opener: PeerId, acceptor: PeerId) -> tuple[LocalStream, LocalStream]:
    """The opener's end and the acceptor's end of a new in-process stream of ``protocol``."""
    there, back = _Direction(), _Direction()
    return (
        LocalStream(protocol, opener, acceptor, back, there),
        LocalStream(protocol, acceptor, opener, there, back),
    )


__all__ = ["WINDOW", "LocalStream", "local_stream_pair"]
